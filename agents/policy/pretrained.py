"""The learned agents shipped with the project, by name: per game a MaskablePPO policy
(``ppo:pretrained``) and a self-play policy-value network (``learned:pretrained``).

``make_agent("ppo:pretrained", game=...)`` plays the shipped policy of the game being played;
``learned:pretrained`` the shipped network. The files are in ``configs/agents/pretrained/``:
``policy.npz`` policy files (weights plus a JSON architecture, read without pickle:
``agents.policy.policy_files``) and ``net.npz`` network files (``agents.learned.files``, also
plain arrays). Each kind's manifest (``MANIFESTS``: ``configs/agents/pretrained.yaml`` and
``configs/agents/learned.yaml``) names each game's file, its SHA-256, and the scenario or rule
set it was trained for. A file whose hash does not match its manifest is refused, so what plays
is what docs/results.md measured (with the command, seed and steps that made it).
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
# Each shipped kind of learned agent (the agent's name in a spec) and its manifest.
MANIFESTS = {"ppo": "pretrained.yaml", "learned": "learned.yaml"}


def manifest_path(agent: str = "ppo") -> Path:
    if agent not in MANIFESTS:
        raise ValueError(f"no {short_repr(agent)} agent is shipped; the shipped kinds are "
                         f"{', '.join(MANIFESTS)}")
    return configs_dir() / "agents" / MANIFESTS[agent]


def manifest(agent: str = "ppo") -> dict[str, dict[str, Any]]:
    """Each shipped game's entry of ``agent``'s manifest (``MANIFESTS``), checked."""
    path = manifest_path(agent)
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


def pretrained_path(game: Any, agent: str = "ppo") -> Path:
    """The shipped file of ``agent`` (``MANIFESTS``) for ``game``, after checking its SHA-256
    against the manifest."""
    if not isinstance(game, str) or game not in game_names():
        raise ValueError(f"{agent}:pretrained needs the game it is to play "
                         f"({' or '.join(game_names())}), got {short_repr(game)}; "
                         f"make_agent('{agent}:pretrained', game=...)")
    entries = manifest(agent)
    if game not in entries:
        raise ValueError(f"no {agent}:pretrained agent of {game} is shipped "
                         f"({manifest_path(agent)} lists {sorted(entries)})")
    entry = entries[game]
    path = configs_dir() / "agents" / entry["file"]
    if not path.is_file():
        raise FileNotFoundError(f"the shipped {game} {agent} file {path} is missing; reinstall "
                                f"the package")
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != entry["sha256"]:
        raise ValueError(f"the shipped {game} {agent} file {path} has SHA-256 {digest}, the "
                         f"manifest says {entry['sha256']}: the file was changed or damaged")
    return path


def trained_for(game: str, agent: str = "ppo") -> str:
    """The scenario (TBW) or rule set (Junqi) the shipped ``agent`` of ``game`` learned on."""
    return str(manifest(agent)[game]["trained_for"])
