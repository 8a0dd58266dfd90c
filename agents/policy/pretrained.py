"""The learned agents shipped with the project: one MaskablePPO policy per game, by name.

``ppo:pretrained`` (``make_agent("ppo:pretrained", game=...)``) plays the shipped policy of the
game being played. The files are ``policy.npz`` policy files (weights plus a JSON architecture,
read without pickle: ``agents.policy.policy_files``) in ``configs/agents/pretrained/``; the
manifest ``configs/agents/pretrained.yaml`` names each game's file, its SHA-256, and the
scenario or rule set it was trained for. A file whose hash does not match the manifest is
refused, so what plays is what docs/results.md measured (with the command, seed, steps and wall
time that made it).
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any

from tbw_envs.core.configs_path import configs_dir
from tbw_envs.core.contract import short_repr
from tbw_envs.core.yaml_loader import ConfigError, load_yaml
from tbw_envs.games import game_names

MANIFEST_KEYS = {"file", "sha256", "trained_for", "command", "seed", "steps"}


def manifest_path() -> Path:
    return configs_dir() / "agents" / "pretrained.yaml"


def manifest() -> dict[str, dict[str, Any]]:
    """Each shipped game's entry of ``configs/agents/pretrained.yaml``, checked."""
    path = manifest_path()
    data = load_yaml(path)
    if not isinstance(data, dict) or not set(data) <= set(game_names()):
        raise ConfigError(f"{path}: expected a mapping with keys among {list(game_names())}")
    for game, entry in data.items():
        if not isinstance(entry, dict) or set(entry) != MANIFEST_KEYS:
            raise ConfigError(f"{path}: {game}: expected exactly the keys {sorted(MANIFEST_KEYS)}")
        name = entry["file"]
        if not isinstance(name, str) or not re.fullmatch(r"pretrained/[\w.-]+\.npz", name) \
                or ".." in name:
            raise ConfigError(f"{path}: {game}.file must be a file in configs/agents/pretrained/, "
                              f"got {short_repr(name)}")
    return data


def pretrained_path(game: Any) -> Path:
    """The shipped policy file of ``game``, after checking its SHA-256 against the manifest."""
    if not isinstance(game, str) or game not in game_names():
        raise ValueError(f"ppo:pretrained needs the game it is to play "
                         f"({' or '.join(game_names())}), got {short_repr(game)}; "
                         f"make_agent('ppo:pretrained', game=...)")
    entries = manifest()
    if game not in entries:
        raise ValueError(f"no learned {game} agent is shipped ({manifest_path()} lists "
                         f"{sorted(entries)})")
    entry = entries[game]
    path = configs_dir() / "agents" / entry["file"]
    if not path.is_file():
        raise FileNotFoundError(f"the shipped {game} policy {path} is missing; reinstall the "
                                f"package")
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != entry["sha256"]:
        raise ValueError(f"the shipped {game} policy {path} has SHA-256 {digest}, the manifest "
                         f"says {entry['sha256']}: the file was changed or damaged")
    return path


def trained_for(game: str) -> str:
    """The scenario (TBW) or rule set (Junqi) the shipped policy of ``game`` learned on."""
    return str(manifest()[game]["trained_for"])
