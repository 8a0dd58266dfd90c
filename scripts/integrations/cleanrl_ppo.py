"""CleanRL-style single-file masked PPO over Gymnasium vector envs (plain torch, one file).

    pip install -c constraints.txt -e ".[train]"
    python scripts/integrations/cleanrl_ppo.py --game tbw --iterations 20
    python scripts/integrations/cleanrl_ppo.py --game junqi --batched --num-envs 256
    python scripts/integrations/cleanrl_ppo.py --game junqi --compare 64 256 --iterations 2

The learner takes one seat of the single-agent wrapper (``make_tbw_single`` /
``make_junqi_single``, a random opponent playing inside ``step``, seats alternating), in
``gymnasium.vector.SyncVectorEnv``; with ``--batched``, in the batched env instead
(``gymnasium.make_vec(..., vectorization_mode="vector_entry_point")``, ``tbw_envs.single_vector``:
one object steps every game in arrays, the opponent's moves included), for a game with a
batched core. The PPO code is the same for both. The glue is three lines, marked ``# glue``
below:

1. ``autoreset_mode=gymnasium.vector.AutoresetMode.SAME_STEP`` (the batched env takes the
   string ``"same_step"`` too), so a finished sub-env is reset inside the step that ended it and
   the batch holds no dummy autoreset transitions (with the default NEXT_STEP mode the next
   action of that sub-env is discarded; it then has to be left out of the loss);
2. ``mask = torch.as_tensor(infos["action_mask"])``: Gymnasium stacks our per-env
   ``info["action_mask"]`` into ``(num_envs, n)``, never an all-False row;
3. ``logits.masked_fill(~mask, -1e9)`` in the policy: the masked categorical.

Everything else is the usual single-file PPO: an MLP actor-critic over the flattened planes,
rollouts of ``num_steps`` per env, GAE, clipped surrogate with value and entropy terms, minibatch
epochs, one torch thread. ``--dict-obs`` reads the mask from the Dict observation instead
(``mask_in_obs=True``). The masks of the sampled steps are stored and reused in the update, so
the new policy's log-probabilities are over the same legal actions as the old one's.

Speed: the result's ``env_steps_per_second`` counts learner steps over the time spent inside
``envs.reset`` and ``envs.step`` alone (the opponent's moves are inside ``step``), so it compares
env speed, apart from the network. ``--compare N ...`` trains both paths at each number of envs
in this one process (the batched env's compiled kernels loaded first, outside the timing) and
prints both rates and their ratio.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass, replace

import gymnasium
import numpy as np
import torch
from torch import nn

from tbw_envs.games import game_names, get_game


@dataclass
class Args:
    game: str = "tbw"
    scenario: str | dict = "duel_5v5_8x8"  # TBW: a bundled name, a YAML path or a dict
    rules: str | dict = "ccgc"  # Junqi: a rule-set name, a YAML path or a dict
    seed: int = 0
    iterations: int = 10
    num_envs: int = 4
    num_steps: int = 64  # per env per iteration
    learning_rate: float = 2.5e-4
    gamma: float = 0.99
    gae_lambda: float = 0.95
    minibatches: int = 4
    update_epochs: int = 4
    clip_coef: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    hidden: int = 128
    dict_obs: bool = False
    batched: bool = False  # the batched env instead of SyncVectorEnv
    threads: int = 1


def make_env(args: Args):
    def thunk():
        game = get_game(args.game)
        return game.single_agent_env(**variant_of(args), learner_seat="alternate",
                                     mask_in_obs=args.dict_obs)

    return thunk


def variant_of(args: Args) -> dict:
    game = get_game(args.game)
    return {game.variant_flag: getattr(args, game.variant_flag)}  # scenario= or rules=


def make_envs(args: Args):
    """``args.num_envs`` games in ``SyncVectorEnv``, or with ``args.batched`` in the batched env."""
    if args.batched:
        return gymnasium.make_vec(
            get_game(args.game).single_env_id, num_envs=args.num_envs,
            vectorization_mode="vector_entry_point",
            autoreset_mode=gymnasium.vector.AutoresetMode.SAME_STEP,  # glue 1
            **variant_of(args), learner_seat="alternate", mask_in_obs=args.dict_obs)
    return gymnasium.vector.SyncVectorEnv(
        [make_env(args) for _ in range(args.num_envs)],
        autoreset_mode=gymnasium.vector.AutoresetMode.SAME_STEP,  # glue 1
    )


class Agent(nn.Module):
    def __init__(self, obs_shape, n_actions: int, hidden: int):
        super().__init__()
        size = int(np.prod(obs_shape))

        def layer(n_in, n_out, std=2**0.5):
            linear = nn.Linear(n_in, n_out)
            nn.init.orthogonal_(linear.weight, std)
            nn.init.constant_(linear.bias, 0.0)
            return linear

        self.critic = nn.Sequential(nn.Flatten(), layer(size, hidden), nn.Tanh(),
                                    layer(hidden, 1, std=1.0))
        self.actor = nn.Sequential(nn.Flatten(), layer(size, hidden), nn.Tanh(),
                                   layer(hidden, n_actions, std=0.01))

    def value(self, obs):
        return self.critic(obs).squeeze(-1)

    def act(self, obs, mask, action=None):
        logits = self.actor(obs).masked_fill(~mask, -1e9)  # glue 3: the masked categorical
        dist = torch.distributions.Categorical(logits=logits)
        if action is None:
            action = dist.sample()
        return action, dist.log_prob(action), dist.entropy(), self.value(obs)


def split(obs, infos, dict_obs: bool):
    """(planes, mask) as tensors from a vector env's observation and infos."""
    if dict_obs:  # glue 2 with --dict-obs: the mask from the Dict observation
        return (torch.as_tensor(obs["observation"]),
                torch.as_tensor(obs["action_mask"]).bool())
    return torch.as_tensor(obs), torch.as_tensor(infos["action_mask"])  # glue 2


def illegal_endings(infos) -> int:
    """Episodes that this SAME_STEP step ended by an illegal learner action: Gymnasium's vector
    envs and the batched env alike nest the ended episodes' infos in ``infos["final_info"]``,
    each key beside its ``"_key"`` flags."""
    if not isinstance(infos, dict):  # SuperSuit's list of per-row dicts
        return 0
    final = infos.get("final_info", {})
    if "illegal_action" in final:
        return int(np.sum(final["illegal_action"][final["_illegal_action"]]))
    return 0


def run(args: Args) -> dict:
    """Train for ``args.iterations`` PPO iterations; returns what the test checks."""
    envs = make_envs(args)
    return ppo(envs, envs.single_observation_space, envs.single_action_space, args)


def compare(args: Args, sizes) -> list[dict]:
    """``run(args)`` over SyncVectorEnv and over the batched env at each number of envs in
    ``sizes``: env steps/s of each (time inside ``envs.reset``/``envs.step``) and their ratio."""
    # The first batched env loads the compiled kernels from numba's cache (or compiles them): a
    # once-per-process cost, kept out of the timed runs.
    warm_up = make_envs(replace(args, batched=True, num_envs=1))
    warm_up.reset(seed=args.seed)
    warm_up.close()
    rows = []
    for num_envs in sizes:
        rates = {}
        for batched in (False, True):
            result = run(replace(args, num_envs=num_envs, batched=batched))
            if result["illegal"]:
                raise RuntimeError(f"{result['illegal']} illegal actions with {num_envs} envs, "
                                   f"batched={batched}")
            rates[batched] = result["env_steps_per_second"]
        rows.append({"num_envs": num_envs, "sync_env_steps_per_second": round(rates[False]),
                     "batched_env_steps_per_second": round(rates[True]),
                     "ratio": round(rates[True] / rates[False], 1)})
    return rows


def ppo(envs, space, action_space, args: Args) -> dict:
    """PPO on ``envs``, any vector env that resets finished sub-envs within the step (with
    ``space`` and ``action_space`` those of one sub-env; ``args.num_envs`` is not used).
    ``scripts/integrations/supersuit_vec.py`` runs it on SuperSuit's vector envs."""
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    obs_shape = space["observation"].shape if args.dict_obs else space.shape
    n_actions = int(action_space.n)
    agent = Agent(obs_shape, n_actions, args.hidden)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)
    before = [p.detach().clone() for p in agent.parameters()]

    T, N = args.num_steps, envs.num_envs
    b_obs = torch.zeros((T, N, *obs_shape))
    b_mask = torch.zeros((T, N, n_actions), dtype=torch.bool)
    b_act = torch.zeros((T, N), dtype=torch.long)
    b_logp, b_rew, b_done, b_val = (torch.zeros((T, N)) for _ in range(4))

    clock = time.perf_counter()
    obs, infos = envs.reset(seed=args.seed)
    env_seconds = time.perf_counter() - clock
    next_obs, next_mask = split(obs, infos, args.dict_obs)
    next_done = torch.zeros(N)
    running = np.zeros(N)
    returns, illegal, losses, per_iteration = [], 0, [], []
    start = time.perf_counter()
    for _ in range(args.iterations):
        first = len(returns)
        for t in range(T):
            b_obs[t], b_mask[t], b_done[t] = next_obs, next_mask, next_done
            with torch.no_grad():
                action, logp, _, value = agent.act(next_obs, next_mask)
            b_act[t], b_logp[t], b_val[t] = action, logp, value
            clock = time.perf_counter()
            obs, reward, terminated, truncated, infos = envs.step(action.numpy())
            env_seconds += time.perf_counter() - clock
            done = np.logical_or(terminated, truncated)  # SuperSuit's are uint8
            illegal += illegal_endings(infos)
            running += reward
            returns += running[done].tolist()
            running[done] = 0.0
            b_rew[t] = torch.as_tensor(reward, dtype=torch.float32)
            next_obs, next_mask = split(obs, infos, args.dict_obs)
            next_done = torch.as_tensor(done, dtype=torch.float32)

        with torch.no_grad():  # GAE
            next_value = agent.value(next_obs)
            advantages = torch.zeros((T, N))
            last = torch.zeros(N)
            for t in reversed(range(T)):
                not_done = 1.0 - (next_done if t == T - 1 else b_done[t + 1])
                following = next_value if t == T - 1 else b_val[t + 1]
                delta = b_rew[t] + args.gamma * following * not_done - b_val[t]
                last = delta + args.gamma * args.gae_lambda * not_done * last
                advantages[t] = last
            targets = advantages + b_val

        flat = T * N
        f_obs, f_mask = b_obs.reshape(flat, *obs_shape), b_mask.reshape(flat, n_actions)
        f_act, f_logp = b_act.reshape(flat), b_logp.reshape(flat)
        f_adv, f_target = advantages.reshape(flat), targets.reshape(flat)
        size = flat // args.minibatches
        for _epoch in range(args.update_epochs):
            order = torch.randperm(flat)
            for begin in range(0, flat, size):
                idx = order[begin:begin + size]
                _, logp, entropy, value = agent.act(f_obs[idx], f_mask[idx], f_act[idx])
                ratio = (logp - f_logp[idx]).exp()
                adv = f_adv[idx]
                adv = (adv - adv.mean()) / (adv.std() + 1e-8)
                policy_loss = torch.max(
                    -adv * ratio, -adv * ratio.clamp(1 - args.clip_coef, 1 + args.clip_coef)
                ).mean()
                value_loss = 0.5 * (value - f_target[idx]).pow(2).mean()
                loss = policy_loss + args.vf_coef * value_loss - args.ent_coef * entropy.mean()
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()
                losses.append(loss.item())
        ended = returns[first:]
        per_iteration.append(round(float(np.mean(ended)), 3) if ended else None)
        # Every sampled action was inside its stored mask (a masked logit is -1e9).
        illegal += int((~b_mask.gather(-1, b_act.unsqueeze(-1))).sum())
    envs.close()
    elapsed = time.perf_counter() - start
    steps = args.iterations * T * N
    changed = any(not torch.equal(a, p.detach())
                  for a, p in zip(before, agent.parameters(), strict=True))
    return {"iterations": args.iterations, "steps": steps, "illegal": illegal,
            "episodes": len(returns),
            "outcomes": {name: int(np.sum(np.sign(returns) == sign)) if returns else 0
                         for name, sign in (("win", 1), ("draw", 0), ("loss", -1))},
            "mean_return": float(np.mean(returns)) if returns else None,
            "mean_return_per_iteration": per_iteration,
            "final_loss": losses[-1], "weights_changed": changed, "seconds": elapsed,
            "steps_per_second": steps / elapsed, "env_seconds": env_seconds,
            "env_steps_per_second": steps / env_seconds}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    defaults = Args()
    parser.add_argument("--game", choices=game_names(), default=defaults.game)
    parser.add_argument("--scenario", default=defaults.scenario, help="TBW scenario")
    parser.add_argument("--rules", default=defaults.rules, help="Junqi rule set")
    for name in ("seed", "iterations", "num_envs", "num_steps", "hidden"):
        parser.add_argument(f"--{name.replace('_', '-')}", type=int,
                            default=getattr(defaults, name))
    parser.add_argument("--learning-rate", type=float, default=defaults.learning_rate)
    parser.add_argument("--dict-obs", action="store_true",
                        help="read masks from Dict observations (mask_in_obs=True)")
    parser.add_argument("--batched", action="store_true",
                        help="the batched env (gymnasium.make_vec, vector_entry_point) instead "
                             "of SyncVectorEnv")
    parser.add_argument("--compare", type=int, nargs="+", metavar="NUM_ENVS",
                        help="train both envs at each number of envs; print their env steps/s")
    ns = parser.parse_args()
    sizes = ns.compare or []
    if min(ns.iterations, ns.num_envs, ns.num_steps, ns.hidden, *sizes) < 1:
        parser.error("--iterations, --num-envs, --num-steps, --hidden and --compare must be >= 1")
    if min([ns.num_envs, *sizes]) * ns.num_steps < defaults.minibatches:
        parser.error(f"--num-envs (each --compare size) x --num-steps must be at least "
                     f"{defaults.minibatches}")
    if (ns.batched or sizes) and not get_game(ns.game).has_batched_core:
        parser.error(f"--batched and --compare need a game with a batched core; {ns.game} has "
                     f"none")
    if sizes and ns.batched:
        parser.error("--compare runs both envs; leave out --batched")
    del ns.compare
    args = Args(**vars(ns))
    if not sizes:
        print(run(args))
        return
    print(f"{args.game}: env steps/s, {args.iterations} iterations x {args.num_steps} steps "
          f"per env")
    for row in compare(args, sizes):
        print(row)


if __name__ == "__main__":
    main()
