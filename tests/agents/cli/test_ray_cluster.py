"""A Ray cluster of two nodes (``ray.cluster_utils.Cluster``: two raylets with one CPU each, on
this machine): ``scripts/arena.py --ray HOST:PORT`` gives the local run's games byte for byte,
and ``scripts/train_rllib.py --address HOST:PORT`` with two env runners places one on each node.
The commands run unchanged, as subprocesses, exactly as a user runs them against a cluster.
Slow; skipped without ray[rllib] (its own environment: docs/integrations.md, "RLlib")."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import REPO_ROOT

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        importlib.util.find_spec("ray") is None or importlib.util.find_spec("ray.rllib") is None,
        reason="ray[rllib] is not installed; it needs its own environment "
               "(docs/integrations.md, 'RLlib')"),
]


@pytest.fixture(scope="module")
def two_node_cluster():
    from ray.cluster_utils import Cluster

    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    cluster.add_node(num_cpus=1)
    cluster.wait_for_nodes()
    yield cluster
    cluster.shutdown()


def _run(args: list[str], cwd: Path) -> str:
    done = subprocess.run([sys.executable, *args], cwd=cwd, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_arena_on_a_two_node_cluster_equals_the_local_run(two_node_cluster, tmp_path):
    arena = str(REPO_ROOT / "scripts" / "arena.py")
    common = ["--game", "tbw", "--agents", "greedy", "random", "--games", "8", "--seed", "5",
              "--opening-plies", "4", "--no-render"]
    _run([arena, *common, "--ray", two_node_cluster.address, "--out", str(tmp_path / "ray")],
         tmp_path)
    _run([arena, *common, "--workers", "1", "--out", str(tmp_path / "local")], tmp_path)
    on_cluster = (tmp_path / "ray" / "games.jsonl").read_bytes()
    assert on_cluster == (tmp_path / "local" / "games.jsonl").read_bytes()
    assert on_cluster.count(b"\n") == 8


def test_train_rllib_spreads_env_runners_over_the_nodes(two_node_cluster, tmp_path):
    out = _run([str(REPO_ROOT / "scripts" / "train_rllib.py"), "--game", "tbw", "--iterations", "1",
                "--num-env-runners", "2", "--train-batch-size", "600", "--minibatch-size",
                "200", "--num-epochs", "1", "--eval-games", "0",
                "--address", two_node_cluster.address, "--out", str(tmp_path / "run")],
               tmp_path)
    assert "2 env runner(s) x 4 env(s) on 2 node(s)" in out and "on 2 node(s); output" in out
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["env_runner_nodes"] == 2 and summary["illegal_endings"] == 0
    assert summary["env_steps"] >= 600
    assert (tmp_path / "run" / "checkpoint").is_dir()
