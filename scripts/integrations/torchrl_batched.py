"""TorchRL recipe: masked PPO of one learner seat on the batched env, through ``GymWrapper``.

    pip install -c constraints.txt -e ".[train,integrations]"
    python scripts/integrations/torchrl_batched.py --num-envs 64 --iterations 10

The batched env (``gymnasium.make_vec("tbw_envs/JunqiSingle-v0", num_envs,
vectorization_mode="vector_entry_point")``, TBW's id too; ``tbw_envs.single_vector``) is a Gymnasium
``VectorEnv``, which TorchRL's ``GymWrapper`` wraps as a batched env (batch size
``[num_envs]``), a random opponent playing inside ``step``. The glue is two lines, marked
``# glue``:

1. ``autoreset_mode="same_step"``: ``GymWrapper`` refuses a vector env that resets in the next
   step; in the same step it swaps the finished games' last planes (``info["final_obs"]``)
   into ``("next", "observation")`` and the new games' planes into the following step;
2. ``"mask": "action_mask"`` in the actor's ``in_keys``: ``GymWrapper`` reads every info key
   into the tensordict (run once unmasked at construction to learn their specs), so the
   learner's bool masks arrive at ``"action_mask"``, where ``MaskedCategorical`` reads them.

The observation stays the planes' Box (no ``mask_in_obs``): TorchRL's reader of final
observations cannot take a Dict one (``RuntimeError: generator raised StopIteration``, with
``SyncVectorEnv`` too; torchrl 0.14.1). The rest is TorchRL's standard PPO pieces: a
``MaskedCategorical`` ``ProbabilisticActor`` and a critic over the flattened planes, a
``Collector`` of ``frames_per_batch`` env steps (over all envs) per batch, ``ClipPPOLoss`` with
its GAE estimator, Adam. Verified with torchrl 0.14.1, tensordict 0.14.3, torch 2.13.0.
"""

from __future__ import annotations

import argparse
import time

import gymnasium

from tbw_envs.games import game_names, get_game


def make_env(game: str, num_envs: int, **variant):
    """``num_envs`` games of ``game``'s batched env as a TorchRL env of batch size
    ``[num_envs]``."""
    from torchrl.envs import GymWrapper

    envs = gymnasium.make_vec(get_game(game).single_env_id, num_envs=num_envs,
                              vectorization_mode="vector_entry_point",
                              autoreset_mode="same_step",  # glue 1
                              learner_seat="alternate", **variant)
    return GymWrapper(envs, categorical_action_encoding=True)


def make_actor_critic(env, hidden: int = 64):
    from tensordict.nn import TensorDictModule
    from torch import nn
    from torchrl.modules import MaskedCategorical, ProbabilisticActor

    n_actions = env.full_action_spec["action"].space.n
    actor_net = nn.Sequential(nn.Flatten(-3), nn.LazyLinear(hidden), nn.Tanh(),
                              nn.Linear(hidden, n_actions))
    critic_net = nn.Sequential(nn.Flatten(-3), nn.LazyLinear(hidden), nn.Tanh(),
                               nn.Linear(hidden, 1))
    actor = ProbabilisticActor(
        TensorDictModule(actor_net, in_keys=["observation"], out_keys=["logits"]),
        in_keys={"logits": "logits", "mask": "action_mask"},  # glue 2
        out_keys=["action"], distribution_class=MaskedCategorical, return_log_prob=True,
        log_prob_key="action_log_prob")
    critic = TensorDictModule(critic_net, in_keys=["observation"], out_keys=["state_value"])
    td = env.fake_tensordict()  # materialise the lazy layers before the optimiser sees them
    actor(td)
    critic(td)
    return actor, critic


def run(game: str = "junqi", num_envs: int = 16, iterations: int = 3,
        frames_per_batch: int = 256, epochs: int = 4, seed: int = 0, threads: int = 1,
        **variant) -> dict:
    """``iterations`` batches of ``frames_per_batch`` env steps (``frames_per_batch /
    num_envs`` per env), ``epochs`` PPO updates on each; returns what the test checks (losses,
    steps, illegal actions, episodes, whether the weights changed, whether the finished games'
    last planes reached ``("next", "observation")``). ``variant``: the game's variant keyword
    (``rules=``, ``scenario=``)."""
    import torch
    from torchrl.collectors import Collector
    from torchrl.objectives import ClipPPOLoss, ValueEstimators

    torch.set_num_threads(threads)
    torch.manual_seed(seed)
    env = make_env(game, num_envs, **variant)
    env.set_seed(seed)
    actor, critic = make_actor_critic(env)
    loss = ClipPPOLoss(actor, critic, clip_epsilon=0.2, entropy_coeff=0.01,
                       normalize_advantage=True, functional=False)
    loss.set_keys(sample_log_prob="action_log_prob", value="state_value")
    loss.make_value_estimator(ValueEstimators.GAE, gamma=0.99, lmbda=0.95)
    params = list(loss.parameters())
    before = [p.detach().clone() for p in params]
    optimiser = torch.optim.Adam(params, lr=3e-4)
    collector = Collector(env, actor, frames_per_batch=frames_per_batch,
                          total_frames=frames_per_batch * iterations)
    history, steps, illegal, episodes, swapped = [], 0, 0, 0, True
    start = time.perf_counter()
    for data in collector:  # (num_envs, steps per env)
        steps += data.numel()
        mask = data["action_mask"]
        illegal += int((~mask.gather(-1, data["action"].unsqueeze(-1))).sum())
        done = data["next", "done"].squeeze(-1)
        episodes += int(done.sum())
        # A finished game's next planes are its last ones: a board (TorchRL writes zeros when
        # an env gives no final planes), and not the new game's first planes, which follow.
        last = data["next", "observation"]
        swapped &= bool(last[done].flatten(1).any(-1).all())
        ended = done[:, :-1]
        swapped &= bool((last[:, :-1][ended] != data["observation"][:, 1:][ended])
                        .flatten(1).any(-1).all())
        with torch.no_grad():
            loss.value_estimator(data)
        total = 0.0
        for _ in range(epochs):
            optimiser.zero_grad()
            out = loss(data)
            objective = out["loss_objective"] + out["loss_critic"] + out["loss_entropy"]
            objective.backward()
            torch.nn.utils.clip_grad_norm_(params, 1.0)
            optimiser.step()
            total += float(objective.detach())
        history.append(total / epochs)
        collector.update_policy_weights_()
    collector.shutdown()
    elapsed = time.perf_counter() - start
    changed = any(not torch.equal(a, p.detach()) for a, p in zip(before, params, strict=True))
    return {"iterations": len(history), "loss": history, "steps": steps, "illegal": illegal,
            "episodes": episodes, "final_planes_swapped": swapped, "weights_changed": changed,
            "seconds": elapsed, "steps_per_second": steps / elapsed}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    batched = [name for name in game_names() if get_game(name).has_batched_core]
    parser.add_argument("--game", choices=batched, default="junqi")
    parser.add_argument("--num-envs", type=int, default=16)
    parser.add_argument("--iterations", type=int, default=5)
    parser.add_argument("--frames-per-batch", type=int, default=256,
                        help="env steps per batch, over all envs")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if min(args.num_envs, args.iterations, args.frames_per_batch) < 1:
        parser.error("--num-envs, --iterations and --frames-per-batch must be >= 1")
    if args.frames_per_batch % args.num_envs:
        parser.error(f"--frames-per-batch ({args.frames_per_batch}) must be a multiple of "
                     f"--num-envs ({args.num_envs}): each batch is the same steps of every env")
    print(run(args.game, args.num_envs, args.iterations, args.frames_per_batch, seed=args.seed))


if __name__ == "__main__":
    main()
