"""Where the bundled YAML configs (scenarios, rule sets, layouts) live."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path


def configs_dir() -> Path:
    """The bundled ``configs/`` folder: the repository's top-level one when running from a
    checkout or an editable install, the ``tbw_envs.configs`` package data in a wheel."""
    package = Path(__file__).resolve().parent.parent  # tbw_envs/
    checkout = package.parent / "configs"
    if checkout.is_dir():
        return checkout
    installed = package / "configs"
    if installed.is_dir():
        return installed
    try:
        return Path(str(files("tbw_envs.configs")))
    except (ModuleNotFoundError, TypeError) as exc:  # pragma: no cover - broken install
        raise FileNotFoundError("tbw_envs: cannot find the bundled configs/ folder") from exc
