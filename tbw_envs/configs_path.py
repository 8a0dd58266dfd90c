"""Where the bundled YAML configs (scenarios, rule sets, layouts) live."""

from __future__ import annotations

from pathlib import Path


def configs_dir() -> Path:
    """The bundled ``configs/`` folder: the repository's top-level one when running from a
    checkout or an editable install, the ``tbw_envs.configs`` package data in a wheel."""
    checkout = Path(__file__).resolve().parent.parent / "configs"
    if checkout.is_dir():
        return checkout
    installed = Path(__file__).resolve().parent / "configs"
    if installed.is_dir():
        return installed
    try:
        from importlib.resources import files

        return Path(str(files("tbw_envs.configs")))
    except (ModuleNotFoundError, TypeError) as exc:  # pragma: no cover - broken install
        raise FileNotFoundError("tbw_envs: cannot find the bundled configs/ folder") from exc
