"""Self-play training throughput on the batched cores (``agents.training.selfplay``) beside
sb3-contrib's MaskablePPO on the single-agent envs, in one run.

    python scripts/bench/bench_selfplay.py                  # both games, 3 timed updates each
    python scripts/bench/bench_selfplay.py --games junqi --threads 1 2 --updates 5

A self-play case is one network playing both seats of ``--envs`` games; its rate is env steps
per second over whole updates (the moves, every forward pass, the PPO epochs), after one update
to warm up (numba's kernels load or compile, torch allocates). Each ``--nets`` preset is timed
at each ``--threads`` count of torch. MaskablePPO is ``bench_ppo.py``'s case ``<game>-cnn``
(the shipped agents' network and settings, a random opponent), run by this script in a child
process with ``--ppo-steps`` learner steps, and each self-play rate is given as a multiple of it.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# The network presets (agents.training.selfplay.SelfPlayConfig fields); "small" is
# scripts/train_learned.py's default.
NETS = {
    "small": {"channels": 32, "blocks": 0, "head_channels": 8},
    "tiny": {"channels": 16, "blocks": 0, "head_channels": 8},
    "deep": {"channels": 32, "blocks": 1, "head_channels": 16},
}
VARIANTS = {"junqi": {"rules": "ccgc"}, "tbw": {"scenario": "duel_5v5_8x8"}}


def selfplay_rate(game: str, net: str, threads: int, updates: int, args) -> dict:
    import torch

    from agents.learned.net import policy_head_for
    from agents.training.selfplay import SelfPlayConfig, SelfPlayTrainer

    torch.set_num_threads(threads)
    config = SelfPlayConfig(game=game, variant=VARIANTS[game], num_envs=args.envs,
                            rollout_steps=args.rollout_steps, epochs=args.epochs,
                            minibatch=args.minibatch, policy_head=policy_head_for(game),
                            **NETS[net])
    trainer = SelfPlayTrainer(config, seed=0)
    trainer.update()
    start, steps = time.perf_counter(), trainer.env_steps
    for _ in range(updates):
        trainer.update()
    seconds = time.perf_counter() - start
    return {"game": game, "net": net, "torch_threads": threads,
            "env_steps": trainer.env_steps - steps, "seconds": round(seconds, 2),
            "steps_per_second": round((trainer.env_steps - steps) / seconds),
            "parameters": sum(p.numel() for p in trainer.net.parameters())}


def maskable_ppo_rates(games: list[str], steps: int) -> dict[str, float]:
    script = Path(__file__).with_name("bench_ppo.py")
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "ppo.json"
        subprocess.run([sys.executable, str(script), "--steps", str(steps), "--cases",
                        *[f"{game}-cnn" for game in games], "--out", str(out)], check=True)
        results = json.loads(out.read_text())["results"]
    return {row["case"].rsplit("-", 1)[0]: row["steps_per_second"] for row in results}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--games", nargs="+", default=list(VARIANTS), choices=list(VARIANTS))
    parser.add_argument("--nets", nargs="+", default=list(NETS), choices=list(NETS))
    parser.add_argument("--threads", nargs="+", type=int, default=[1, 2])
    parser.add_argument("--updates", type=int, default=3, help="timed updates per case")
    parser.add_argument("--envs", type=int, default=256)
    parser.add_argument("--rollout-steps", type=int, default=32)
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--minibatch", type=int, default=2048)
    parser.add_argument("--ppo-steps", type=int, default=4096,
                        help="MaskablePPO learner steps per game (0: skip MaskablePPO)")
    args = parser.parse_args(argv)
    try:
        import torch
    except ImportError:
        print("bench_selfplay.py needs the train extra: pip install -c constraints.txt -e "
              "'.[train]'", file=sys.stderr)
        return 2
    load_before = os.getloadavg()
    rows = []
    for game in args.games:
        for net in args.nets:
            for threads in args.threads:
                row = selfplay_rate(game, net, threads, args.updates, args)
                rows.append(row)
                print(f"{game} {net} ({row['parameters']:,} params), torch threads {threads}: "
                      f"{row['steps_per_second']:,} env steps/s", flush=True)
    ppo = maskable_ppo_rates(args.games, args.ppo_steps) if args.ppo_steps else {}
    print("\n| game | net | torch threads | self-play env steps/s | x MaskablePPO |")
    print("|---|---|---:|---:|---:|")
    for row in rows:
        base = ppo.get(row["game"])
        ratio = f"{row['steps_per_second'] / base:.0f}x" if base else ""
        print(f"| {row['game']} | {row['net']} | {row['torch_threads']} | "
              f"{row['steps_per_second']:,} | {ratio} |")
    for game, rate in ppo.items():
        print(f"MaskablePPO {game}-cnn: {rate:,.0f} learner steps/s")
    print(json.dumps({"cpus": os.cpu_count(), "load_average_before": load_before,
                      "load_average_after": os.getloadavg(), "python": platform.python_version(),
                      "torch": torch.__version__}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
