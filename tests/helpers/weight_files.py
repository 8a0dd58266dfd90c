"""Evaluation weight files and tuning checkpoints for the input-contract tests: the shipped files,
valid TBW weights, the text of a TBW or Junqi weight file with one change, and a valid Junqi
checkpoint with the edits that break it."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

from agents.junqi.evaluation import FEATURE_NAMES as JUNQI_FEATURES
from agents.junqi.evaluation import load_weights
from agents.training.junqi_tuning import STATE_FEATURES as JUNQI_STATE
from agents.training.junqi_tuning import JunqiTuningConfig, JunqiWeightTuner
from agents.training.linear_q import LinearQ
from tbw_envs.core.configs_path import configs_dir


def shipped_agent_files() -> list[Path]:
    """Every file under configs/agents, sorted."""
    return sorted(p for p in (configs_dir() / "agents").rglob("*") if p.is_file())


# The shipped weight files, and every shipped agent file as the test session found them.
SHIPPED = sorted((configs_dir() / "agents").glob("*_eval_*.yaml"))
SHIPPED_FILES = shipped_agent_files()
TBW_OK = {"material": 1, "kills": 5, "victory": 1.0e6, "leader_threat": -2, "exposure": -2,
          "distance": -0.1}  # fmt: skip


# ----------------------------------------------------------------------- TBW weight files
def tbw_text(**changes) -> str:
    weights = {**TBW_OK, **changes}
    body = ", ".join(f"{k}: {v}" for k, v in weights.items() if v is not None)
    return f"name: mine\nweights: {{{body}}}\n"


# ----------------------------------------------------------------------- Junqi weight files
JUNQI_DEFAULT = (configs_dir() / "agents" / "junqi_eval_default.yaml").read_text("utf-8")


def junqi_text(old: str, new: str) -> str:
    assert JUNQI_DEFAULT.count(old) == 1, old
    return JUNQI_DEFAULT.replace(old, new)


# ----------------------------------------------------------------------- checkpoints
def junqi_checkpoint(episode: int = 2, episodes: int = 4) -> dict:
    """A valid Junqi checkpoint, built by hand (no game is played)."""
    config = JunqiTuningConfig(episodes=episodes, eval_every=0, eval_games=0, warmup_games=1,
                               seed=3)
    names = JUNQI_FEATURES + JUNQI_STATE
    start = list(load_weights("default").weights) + [0.0] * len(JUNQI_STATE)
    learner = LinearQ(start, [1.0 + i for i in range(len(names))], 0.0002, names)
    return {
        "format": JunqiWeightTuner.CHECKPOINT_FORMAT, "config": asdict(config),
        "episode": episode, "learner": learner.state_dict(),
        "history": {"evaluations": [{"episode": 0, "score": 0.5,
                                     "weights": dict(zip(names, start, strict=True))}],
                    "td_errors": [1.5] * episode},
    }  # fmt: skip


def mutated(change) -> dict:
    data = junqi_checkpoint()
    change(data)
    return data


def set_at(*path_and_value):
    *path, value = path_and_value

    def change(data):
        target = data
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return change


def delete_at(*path):
    def change(data):
        target = data
        for key in path[:-1]:
            target = target[key]
        del target[path[-1]]

    return change


def write_checkpoint(folder: Path, content) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "checkpoint.json"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content if isinstance(content, str) else json.dumps(content),
                        encoding="utf-8")
    return path
