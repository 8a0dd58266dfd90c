"""SuperSuit recipe: self-play masked PPO over SuperSuit's vector envs of our ``parallel_env()``.

    pip install -c constraints.txt -e ".[train]" supersuit
    python scripts/integrations/supersuit_vec.py --game tbw --copies 2 --iterations 10
    python scripts/integrations/supersuit_vec.py --game tbw --sb3 --timesteps 2048

``ss.pettingzoo_env_to_vec_env_v1(tbw_v0.parallel_env())`` turns one game into a vector env of
two rows, one per seat, and ``ss.concat_vec_envs_v1(..., copies, base_class="gymnasium")``
stacks ``copies`` games (``num_cpus=N`` runs them in N processes). No glue on the env side: our
turn-based ``parallel_env()`` keeps both agents alive until the game ends, so SuperSuit's
"no agent death" assertion holds, and SuperSuit resets a game in the step that ends it (the
final observations are in ``infos[i]["terminal_observation"]``). The policy side is two lines
(``split`` and ``Agent.act`` in ``cleanrl_ppo``): the mask is ``obs["action_mask"]`` (masks in
the Dict observation), applied as ``logits.masked_fill(~mask, -1e9)``.

Why this trains both seats at once (self-play, one network): each step only the agent to move
plays; the other row's mask allows only the last action id, so its sampled action has
probability 1, log-probability 0 and no policy gradient, and its row still carries that seat's
rewards (+1/-1 at the end) and values. The PPO loop is ``cleanrl_ppo.ppo``, the same code as
the CleanRL-style recipe. Verified with supersuit 3.11.0, pettingzoo 1.27.0.

``--sb3``: sb3-contrib's ``MaskablePPO`` on the same vector env, one line of glue:
``MaskedSB3VecEnv(games)`` (``agents.training.sb3_vec``), the SB3 adapter that serves the masks
from the observations (SuperSuit's own ``base_class="stable_baselines3"`` output gives
MaskablePPO no masks and breaks SB3's seeding).
"""

from __future__ import annotations

import argparse

try:  # the CleanRL recipe's PPO loop, its neighbour: imported as a package module (the tests)
    from .cleanrl_ppo import Args, ppo
except ImportError:  # or run as a file, with this folder first on the path
    from cleanrl_ppo import Args, ppo
from tbw_envs.games import game_names, get_game


def make_vec_env(game: str, copies: int = 2, num_cpus: int = 0):
    """``copies`` games of ``parallel_env()`` as SuperSuit's Gymnasium-style vector env."""
    import supersuit as ss

    par = get_game(game).parallel_env()  # on the game's default scenario or rule set
    return ss.concat_vec_envs_v1(ss.pettingzoo_env_to_vec_env_v1(par), copies,
                                 num_cpus=num_cpus, base_class="gymnasium")


def run(game: str = "tbw", copies: int = 2, iterations: int = 3, num_steps: int = 64,
        seed: int = 0, num_cpus: int = 0) -> dict:
    """PPO over ``copies`` games (2 x ``copies`` vector rows); returns what the test checks."""
    envs = make_vec_env(game, copies, num_cpus)
    args = Args(game=game, seed=seed, iterations=iterations, num_steps=num_steps,
                num_envs=envs.num_envs, dict_obs=True)
    try:
        return ppo(envs, envs.observation_space, envs.action_space, args)
    finally:
        envs.close()


def run_sb3(game: str = "tbw", copies: int = 2, timesteps: int = 2048, n_steps: int = 256,
            seed: int = 0, num_cpus: int = 0) -> dict:
    """MaskablePPO (self-play, one network) for ``timesteps`` steps; returns what the test
    checks."""
    import torch
    from sb3_contrib import MaskablePPO

    from agents.training.sb3_vec import MaskedSB3VecEnv

    torch.set_num_threads(1)
    venv = MaskedSB3VecEnv(make_vec_env(game, copies, num_cpus))  # glue: the masks for SB3
    try:
        model = MaskablePPO("MlpPolicy", venv, n_steps=n_steps, batch_size=64, seed=seed,
                            verbose=0)
        before = [p.detach().clone() for p in model.policy.parameters()]
        model.learn(timesteps)
        changed = any(not torch.equal(a, b)
                      for a, b in zip(before, model.policy.parameters(), strict=True))
        return {"steps": model.num_timesteps, "parameters_changed": changed,
                "rows": venv.num_envs}
    finally:
        venv.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=game_names(), default="tbw")
    parser.add_argument("--copies", type=int, default=2, help="games stepped side by side")
    parser.add_argument("--iterations", type=int, default=10)
    parser.add_argument("--num-steps", type=int, default=64)
    parser.add_argument("--num-cpus", type=int, default=0, help="worker processes (0: none)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--sb3", action="store_true", help="sb3-contrib's MaskablePPO instead")
    parser.add_argument("--timesteps", type=int, default=2048, help="with --sb3")
    args = parser.parse_args()
    if min(args.copies, args.iterations, args.num_steps) < 1 or args.num_cpus < 0:
        parser.error("--copies, --iterations, --num-steps must be >= 1, --num-cpus >= 0")
    if args.sb3:
        print(run_sb3(args.game, args.copies, args.timesteps, args.num_steps, args.seed,
                      args.num_cpus))
    else:
        print(run(args.game, args.copies, args.iterations, args.num_steps, args.seed,
                  args.num_cpus))


if __name__ == "__main__":
    main()
