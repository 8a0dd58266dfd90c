"""TorchRL recipe: self-play PPO with a masked policy on our AEC envs.

    pip install -c constraints.txt -e ".[train]" torchrl
    python scripts/integrations/torchrl_masked.py --game tbw --iterations 5

The glue is two lines, marked ``# glue``: ``PettingZooWrapper(..., use_mask=True)``, which
TorchRL requires for AEC envs, and the selection of the steps where an agent moved for its loss.
TorchRL turns every info value into a tensor under a spec fixed at reset; ours are ints with the
same keys on every step (``tbw_envs.infos``), so they arrive as tensors at
``(agent, "info", key)``. TorchRL puts each agent's
legal-action mask at ``(agent, "action_mask")`` (all True for the waiting agent, whose action
it does not play) and marks the agent that moved at ``(agent, "mask")``.

The rest is TorchRL's standard PPO pieces: a ``MaskedCategorical`` actor and a value network
per agent group (one network shared by both seats: each sees the board in its own frame, so this
is self-play), a ``Collector``, ``ClipPPOLoss`` with its GAE value estimator over each group's
keys, and Adam. The one turn-based detail: GAE runs over every step of a group's stream (the
waiting steps carry that agent's observation, reward and done too), and the PPO loss is taken
only on the steps where that agent moved (``(agent, "mask")``). Verified with torchrl 0.14.1,
tensordict 0.14.3, torch 2.13.0 (docs/integrations.md).
"""

from __future__ import annotations

import argparse
import time

from tbw_envs.games import game_names, get_game


def make_env(game: str, seed: int = 0):
    from torchrl.envs.libs.pettingzoo import PettingZooWrapper

    aec = get_game(game).env()  # the AEC env on the game's default scenario or rule set
    return PettingZooWrapper(aec, use_mask=True,  # glue 1
                             categorical_actions=True, seed=seed)


def make_actor_critic(env, hidden: int = 64):
    """Per agent group, a masked actor and a critic; the groups share the two networks."""
    from tensordict.nn import TensorDictModule
    from torch import nn
    from torchrl.modules import MaskedCategorical, ProbabilisticActor

    groups = list(env.group_map)
    n_actions = env.full_action_spec[groups[0], "action"].space.n
    actor_net = nn.Sequential(nn.Flatten(-3), nn.LazyLinear(hidden), nn.Tanh(),
                              nn.Linear(hidden, n_actions))
    critic_net = nn.Sequential(nn.Flatten(-3), nn.LazyLinear(hidden), nn.Tanh(),
                               nn.Linear(hidden, 1))
    actors, critics = {}, {}
    for group in groups:
        obs = (group, "observation", "observation")
        actors[group] = ProbabilisticActor(
            TensorDictModule(actor_net, in_keys=[obs], out_keys=[(group, "logits")]),
            in_keys={"logits": (group, "logits"), "mask": (group, "action_mask")},
            out_keys=[(group, "action")],
            distribution_class=MaskedCategorical,
            return_log_prob=True,
            log_prob_key=(group, "log_prob"),
        )
        critics[group] = TensorDictModule(critic_net, in_keys=[obs],
                                          out_keys=[(group, "state_value")])
    # Materialise the lazy layers before the optimiser sees them.
    td = env.fake_tensordict()
    for group in groups:
        actors[group](td)
        critics[group](td)
    return actors, critics


def illegal_moves(data, groups) -> tuple[int, int]:
    """(moves, moves outside the mask) in a batch: only the steps where the agent moved."""
    moves = illegal = 0
    for group in groups:
        acted = data[group, "mask"].squeeze(-1)
        action = data[group, "action"][acted]
        mask = data[group, "action_mask"][acted]
        illegal += int((~mask.gather(-1, action.unsqueeze(-1))).sum())
        moves += int(acted.sum())
    return moves, illegal


def run(game: str = "tbw", iterations: int = 3, frames_per_batch: int = 256, epochs: int = 4,
        seed: int = 0, threads: int = 1) -> dict:
    """``iterations`` PPO iterations of ``frames_per_batch`` env steps each; returns what the
    test checks (losses per iteration, moves, illegal moves, whether the weights changed).
    ``threads``: torch threads (one is fastest on a shared 2-core machine: README, Training)."""
    import torch
    from tensordict.nn import TensorDictSequential
    from torchrl.collectors import Collector
    from torchrl.objectives import ClipPPOLoss, ValueEstimators

    torch.set_num_threads(threads)
    torch.manual_seed(seed)
    env = make_env(game, seed)
    groups = list(env.group_map)
    actors, critics = make_actor_critic(env)
    losses = {}
    for group in groups:
        loss = ClipPPOLoss(actors[group], critics[group], clip_epsilon=0.2, entropy_coeff=0.01,
                           normalize_advantage=True, functional=False)
        loss.set_keys(reward=(group, "reward"), action=(group, "action"),
                      sample_log_prob=(group, "log_prob"), value=(group, "state_value"),
                      advantage=(group, "advantage"), value_target=(group, "value_target"),
                      done=(group, "done"), terminated=(group, "terminated"))
        loss.make_value_estimator(ValueEstimators.GAE, gamma=0.99, lmbda=0.95)
        losses[group] = loss
    params = list({id(p): p for loss in losses.values() for p in loss.parameters()}.values())
    before = [p.detach().clone() for p in params]
    optimiser = torch.optim.Adam(params, lr=3e-4)
    collector = Collector(env, TensorDictSequential(*actors.values()),
                          frames_per_batch=frames_per_batch,
                          total_frames=frames_per_batch * iterations)
    history, moves, illegal, games = [], 0, 0, 0
    start = time.perf_counter()
    for data in collector:
        step_moves, step_illegal = illegal_moves(data, groups)
        moves, illegal = moves + step_moves, illegal + step_illegal
        games += int(data["next", "done"].sum())
        with torch.no_grad():
            for group in groups:
                losses[group].value_estimator(data)  # GAE over the group's whole stream
        total = 0.0
        for _ in range(epochs):
            optimiser.zero_grad()
            objective = 0.0
            for group in groups:
                moved = data[data[group, "mask"].squeeze(-1)]  # glue 2: where it moved
                if moved.numel() == 0:
                    continue
                out = losses[group](moved)
                objective = objective + out["loss_objective"] + out["loss_critic"] \
                    + out["loss_entropy"]
            objective.backward()
            torch.nn.utils.clip_grad_norm_(params, 1.0)
            optimiser.step()
            total += float(objective)
        history.append(total / epochs)
        collector.update_policy_weights_()
    collector.shutdown()
    elapsed = time.perf_counter() - start
    changed = any(not torch.equal(a, p.detach()) for a, p in zip(before, params, strict=True))
    return {"iterations": len(history), "loss": history, "moves": moves, "illegal": illegal,
            "games": games, "weights_changed": changed, "seconds": elapsed,
            "steps_per_second": moves / elapsed}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=game_names(), default="tbw")
    parser.add_argument("--iterations", type=int, default=5)
    parser.add_argument("--frames-per-batch", type=int, default=256)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if args.iterations < 1 or args.frames_per_batch < 1:
        parser.error("--iterations and --frames-per-batch must be >= 1")
    print(run(args.game, args.iterations, args.frames_per_batch, seed=args.seed))


if __name__ == "__main__":
    main()
