"""Training throughput of sb3-contrib's MaskablePPO: our two games beside PettingZoo's connect
four, in one process on one machine, with the same PPO settings.

    python scripts/bench/bench_ppo.py                      # every case, 4096 learner steps each
    python scripts/bench/bench_ppo.py --steps 8192 --cases tbw-cnn connect4-mlp
    python scripts/bench/bench_ppo.py --default-threads    # also tbw-mlp with torch's own threading

Throughput is learner env steps per second of ``model.learn``: the opponent's moves inside each
step, the policy's forward passes and the PPO updates all included. Each case plays a uniformly
random opponent. Connect four needs PettingZoo's classic extra (pygame): ``pip install pygame``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

import gymnasium
import numpy as np

from tbw_envs.games import game_names, get_game

CONNECT_FOUR = "connect4"


class ConnectFourSingle(gymnasium.Env):
    """connect_four_v3 for one learner against a uniformly random opponent, seats alternating,
    with ``action_masks()`` as our wrapper has: the same shape of single-agent view."""

    def __init__(self):
        from pettingzoo.classic import connect_four_v3

        self.aec = connect_four_v3.env()
        self.aec.reset(seed=0)
        space = self.aec.observation_space("player_0")["observation"]
        self.observation_space = gymnasium.spaces.Box(0.0, 1.0, space.shape, np.float32)
        self.action_space = self.aec.action_space("player_0")
        self.learner = "player_0"
        self._episodes = 0

    def _obs(self) -> np.ndarray:
        return self.aec.observe(self.learner)["observation"].astype(np.float32)

    def action_masks(self) -> np.ndarray:
        return self.aec.observe(self.learner)["action_mask"].astype(bool)

    def _play_opponent(self) -> None:
        while self.aec.agents and self.aec.agent_selection != self.learner:
            obs, _, terminated, truncated, _ = self.aec.last()
            if terminated or truncated:
                return
            legal = np.flatnonzero(obs["action_mask"])
            self.aec.step(int(self.np_random.choice(legal)))

    def _finished(self) -> bool:
        return self.aec.terminations[self.learner] or self.aec.truncations[self.learner]

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.aec.reset(seed=seed)
        self.learner = ("player_0", "player_1")[self._episodes % 2]
        self._episodes += 1
        self._play_opponent()
        return self._obs(), {}

    def step(self, action):
        self.aec.step(int(action))
        if not self._finished():
            self._play_opponent()
        done = self._finished()
        reward = float(self.aec._cumulative_rewards[self.learner]) if done else 0.0
        return self._obs(), reward, done, False, {}


def make_case(name: str):
    from agents.policy.nets import mlp_policy_kwargs, plane_policy_kwargs

    game, policy = name.rsplit("-", 1)
    if game == CONNECT_FOUR:
        # The same heads as our MLP case, so the difference is the environment's cost.
        return ConnectFourSingle(), mlp_policy_kwargs() if policy == "mlp" else None
    if game not in game_names():
        raise ValueError(f"unknown case {name!r}")
    # On the game's default scenario or rule set.
    env = get_game(game).single_agent_env(opponent="random", learner_seat="alternate")
    return env, plane_policy_kwargs() if policy == "cnn" else mlp_policy_kwargs()


CASES = ("connect4-mlp", "tbw-mlp", "tbw-cnn", "junqi-mlp", "junqi-cnn")


def measure(name: str, steps: int, args) -> dict:
    from sb3_contrib import MaskablePPO

    env, policy_kwargs = make_case(name)
    if policy_kwargs is None:
        raise ValueError(f"case {name!r} is not available")
    model = MaskablePPO("MlpPolicy", env, n_steps=args.n_steps, batch_size=args.batch_size,
                        n_epochs=args.n_epochs, policy_kwargs=policy_kwargs, seed=0,
                        device="cpu")
    start = time.perf_counter()
    model.learn(steps)
    seconds = time.perf_counter() - start
    return {"case": name, "steps": model.num_timesteps, "seconds": round(seconds, 2),
            "steps_per_second": round(model.num_timesteps / seconds, 1),
            "parameters": sum(p.numel() for p in model.policy.parameters())}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--steps", type=int, default=4096, help="learner steps per case")
    p.add_argument("--cases", nargs="+", default=list(CASES), choices=CASES)
    p.add_argument("--n-steps", type=int, default=1024)
    p.add_argument("--batch-size", type=int, default=256)
    p.add_argument("--n-epochs", type=int, default=4)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--default-threads", action="store_true",
                   help="also time tbw-mlp with torch's default thread count")
    p.add_argument("--out", default=None, help="write the results as JSON here")
    args = p.parse_args(argv)
    try:
        import torch
    except ImportError:
        print("bench_ppo.py needs the train extra: pip install -c constraints.txt -e '.[train]'",
              file=sys.stderr)
        return 2
    default_threads = torch.get_num_threads()
    load_before = os.getloadavg()
    results = []
    runs = [(case, args.threads) for case in args.cases]
    if args.default_threads:
        runs.append(("tbw-mlp", default_threads))
    for case, threads in runs:
        torch.set_num_threads(threads)
        try:
            row = measure(case, args.steps, args)
        except ImportError as exc:  # connect four without pygame
            print(f"{case}: skipped ({exc}; pip install pygame)")
            continue
        row["torch_threads"] = threads
        results.append(row)
        print(f"{case:<14} threads {threads}: {row['steps_per_second']:>7.1f} steps/s "
              f"({row['steps']} steps in {row['seconds']:.1f} s, {row['parameters']} params)",
              flush=True)
    machine = {"cpus": os.cpu_count(), "load_average_before": load_before,
               "load_average_after": os.getloadavg(),
               "python": platform.python_version(), "torch": torch.__version__,
               "torch_default_threads": default_threads, "cpu": platform.processor()}
    print(json.dumps(machine))
    if args.out:
        Path(args.out).write_text(json.dumps({"machine": machine, "args": vars(args),
                                              "results": results}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
