"""Policy files: a trained MaskablePPO policy stored so that loading it runs no code.

An SB3 ``model.zip`` is unpickled when it is loaded (``MaskablePPO.load``), so a model file can
run any code it carries. The project therefore loads only *policy files* (``policy.npz``,
written by ``scripts/train_ppo.py`` next to ``model.zip``, or by ``scripts/convert_model.py``
from a ``model.zip`` the user trusts): a NumPy ``.npz`` archive of plain arrays,

- ``metadata.npy``: UTF-8 JSON (a uint8 array), checked by
  ``agents.policy.policy_metadata.check_metadata``;
- ``param/<name>.npy``: one float32 array per parameter of the policy (``named_parameters``).

``read_policy_file`` reads the archive with the zip module and NumPy's header parser only (no
pickle, no ``torch.load``, no ``np.load(allow_pickle=True)``). It checks the metadata, rebuilds
the policy with our own classes (``agents.policy.architectures``), and copies each array in
after checking its name, dtype and shape against the rebuilt policy (before the array's bytes
are read); a missing, extra or misshapen entry refuses the file. A ``.zip`` is refused with the
conversion command.
"""

from __future__ import annotations

import json
import math
import os
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
from numpy.lib import format as npy

from agents.policy.architectures import build_policy, describe_policy, require_train_extra
from agents.policy.policy_metadata import (
    MAX_PARAMETERS,
    MAX_TEXT,
    POLICY_FORMAT,
    POLICY_FORMAT_VERSION,
    PolicyFileError,
    check_metadata,
    game_info_of,
    policy_file_error,
)
from tbw_envs.core.yaml_loader import cached_by_file
from tbw_envs.games import variant_fields

# The attribute train_ppo.py sets on the model before saving; SB3 stores every plain attribute
# in model.zip, so checkpoints and the final model both say what they were trained on
# (scripts/convert_model.py reads it).
GAME_INFO_ATTRIBUTE = "tbw_envs_game"

POLICY_FILE = "policy.npz"
CONVERT_HINT = ("convert a model.zip you trust with: python scripts/convert_model.py "
                "model.zip policy.npz (it unpickles the zip, which can run code)")
METADATA_ENTRY = "metadata.npy"
PARAM_PREFIX = "param/"
MAX_METADATA_BYTES = 1 << 20
MAX_ENTRIES = 1024
MAX_FILE_BYTES = 4 * MAX_PARAMETERS + MAX_METADATA_BYTES + (1 << 20)



def save_policy(policy: Any, path: str | os.PathLike, game_info: dict[str, Any], *,
                deterministic: bool = True, source: str | None = None,
                timesteps: int | None = None) -> Path:
    """Write ``policy`` as a policy file (module docstring) and return its path.

    ``game_info``: ``game`` (required), its variant fields (``variant_fields``: ``scenario``,
    ``rules``, and a registered game's own), ``flip_perspective`` (default True). The
    written file is read back with ``load_policy``'s checks, so a file
    this function returns always loads."""
    arch, shape, num_actions = describe_policy(policy)
    info = dict(game_info or {})
    meta: dict[str, Any] = {
        "format": POLICY_FORMAT, "version": POLICY_FORMAT_VERSION,
        "game": info.get("game"),
        **{field: info.get(field) for field in variant_fields(info.get("game"))},
        "flip_perspective": bool(info.get("flip_perspective", True)),
        "deterministic": bool(deterministic),
        "observation_shape": list(shape), "num_actions": num_actions, "architecture": arch,
    }
    if source is not None:
        meta["source"] = str(source)[:MAX_TEXT]
    if timesteps is not None:
        meta["timesteps"] = int(timesteps)
    meta = json.loads(json.dumps(meta, allow_nan=False))  # plain JSON types, as read back
    check_metadata(meta, "to write")
    arrays = {"metadata": np.frombuffer(json.dumps(meta).encode("utf-8"), dtype=np.uint8)}
    for name, value in _named_tensors(policy).items():
        arrays[PARAM_PREFIX + name] = value.detach().cpu().numpy()
    path = Path(path)
    if path.suffix != ".npz":
        raise ValueError(f"a policy file is a .npz, got {str(path)!r}")
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    with partial.open("wb") as f:
        np.savez(f, **arrays)
    os.replace(partial, path)
    return path


def _named_tensors(policy: Any) -> dict[str, Any]:
    """Parameters and buffers, each once (shared extractors appear under their first name)."""
    return {**dict(policy.named_parameters()), **dict(policy.named_buffers())}


def _read_npy(archive: zipfile.ZipFile, entry: str, dtype: np.dtype, shape: tuple[int, ...] | None,
              where: str, max_bytes: int | None = None) -> np.ndarray:
    """One ``.npy`` entry, its header checked (dtype, and shape unless None) before its data is
    read; NumPy's header parser evaluates literals only."""
    with archive.open(entry) as f:
        try:
            version = npy.read_magic(f)
            if version == (1, 0):
                found_shape, fortran, found_dtype = npy.read_array_header_1_0(f)
            elif version == (2, 0):
                found_shape, fortran, found_dtype = npy.read_array_header_2_0(f)
            else:
                raise ValueError(f"unsupported .npy version {version}")
        except (ValueError, SyntaxError, EOFError) as exc:
            raise policy_file_error(
                where, f"entry {entry!r} is not a plain .npy array ({exc})") from None
        if found_dtype != dtype or found_dtype.hasobject:
            raise policy_file_error(
                where, f"entry {entry!r} has dtype {found_dtype}, expected {dtype}")
        if shape is not None and tuple(found_shape) != tuple(shape):
            raise policy_file_error(
                where, f"entry {entry!r} has shape {tuple(found_shape)}, the policy "
                       f"needs {tuple(shape)}")
        count = math.prod(found_shape)
        nbytes = count * dtype.itemsize
        if max_bytes is not None and nbytes > max_bytes:
            raise policy_file_error(
                where, f"entry {entry!r} holds {nbytes} bytes, at most {max_bytes} "
                       "allowed")
        data = f.read(nbytes + 1)
    if len(data) != nbytes:
        raise policy_file_error(
            where, f"entry {entry!r} holds {len(data)} bytes of data, its header "
                   f"says {nbytes}")
    array = np.frombuffer(data, dtype=dtype)
    return array.reshape(found_shape, order="F" if fortran else "C").copy()


def _no_constants(name: str):
    raise ValueError(f"{name} is not allowed")


def _check_central_directory(path: Path, where: str) -> None:
    """The zip's entry count and directory size, read from its end record before the zip
    module builds an object per entry."""
    size = path.stat().st_size
    with path.open("rb") as f:
        f.seek(max(0, size - (22 + 65535)))  # the end record and its comment, at most
        tail = f.read()
    at = tail.rfind(b"PK\x05\x06")
    if at < 0 or len(tail) - at < 22:
        raise policy_file_error(where, "not a readable .npz archive (no end of central directory)")
    entries = int.from_bytes(tail[at + 10:at + 12], "little")
    directory = int.from_bytes(tail[at + 12:at + 16], "little")
    if entries > MAX_ENTRIES or directory > MAX_ENTRIES * 1024:
        raise policy_file_error(
            where, f"{entries} entries in a {directory}-byte directory (at most "
                   f"{MAX_ENTRIES} entries)")


def _open_policy_file(path: Path) -> zipfile.ZipFile:
    where = repr(str(path))
    size = path.stat().st_size
    if size > MAX_FILE_BYTES:
        raise policy_file_error(where, f"{size} bytes, more than the {MAX_FILE_BYTES} allowed")
    with path.open("rb") as f:
        magic = f.read(4)
    if magic != b"PK\x03\x04":
        raise policy_file_error(
            where, f"not a {POLICY_FILE} archive (a policy file is the .npz that "
                   f"scripts/train_ppo.py writes; {CONVERT_HINT})")
    _check_central_directory(path, where)
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as exc:
        raise policy_file_error(where, f"not a readable .npz archive ({exc})") from None
    infos = archive.infolist()
    names = [info.filename for info in infos]
    if len(names) > MAX_ENTRIES or len(set(names)) != len(names):
        archive.close()
        raise policy_file_error(
            where, f"{len(names)} entries (at most {MAX_ENTRIES}, no duplicates)")
    if METADATA_ENTRY not in names:
        archive.close()
        if "data" in names and any(n.endswith(".pth") for n in names):
            raise policy_file_error(
                where, f"this is a Stable-Baselines3 model.zip, which is never loaded "
                       f"here; {CONVERT_HINT}")
        raise policy_file_error(where, f"no {METADATA_ENTRY} entry: not a {POLICY_FORMAT} file")
    return archive


def read_policy_file(path: str | os.PathLike, target: Any = None, game: str | None = None
                     ) -> tuple[dict[str, Any], Any]:
    """``(metadata, policy)`` from a policy file, with every check of the module docstring.

    ``target``: an existing policy to load the weights into (``train_ppo.py --init``); its
    architecture, observation shape and number of actions must equal the file's. Without it
    the policy is built from the metadata. ``game``: the file must be a policy of that game."""
    torch = require_train_extra("loading a PPO policy")
    path = Path(path)
    where = repr(str(path))
    with _open_policy_file(path) as archive:
        try:
            raw = _read_npy(archive, METADATA_ENTRY, np.dtype(np.uint8), None, where,
                            max_bytes=MAX_METADATA_BYTES)
            if raw.ndim != 1:
                raise policy_file_error(where, "metadata must be a 1-D uint8 array")
            try:
                meta = json.loads(raw.tobytes().decode("utf-8"), parse_constant=_no_constants)
            except (UnicodeDecodeError, ValueError, RecursionError) as exc:
                raise policy_file_error(where, f"metadata is not UTF-8 JSON ({exc})") from None
            meta = check_metadata(meta, where)
            if game is not None and meta["game"] != game:
                raise policy_file_error(where, f"a {meta['game']} policy, not one for {game}")
            shape = tuple(meta["observation_shape"])
            num_actions = meta["num_actions"]
            if target is None:
                policy = build_policy(meta["architecture"], shape, num_actions)
            else:
                arch, target_shape, target_actions = describe_policy(target)
                structural = ("kind", "net_arch", "activation", "share_features_extractor",
                              "features_dim", "channels")
                mine = {k: meta["architecture"].get(k) for k in structural}
                theirs = {k: arch.get(k) for k in structural}
                if mine != theirs or (shape, num_actions) != (target_shape, target_actions):
                    raise policy_file_error(
                        where, f"holds a {mine} policy for observations {shape} and "
                               f"{num_actions} actions; needed: {theirs}, "
                               f"{target_shape} and {target_actions}")
                policy = target
            tensors = _named_tensors(policy)
            expected = {PARAM_PREFIX + name + ".npy": name for name in tensors}
            present = set(archive.namelist()) - {METADATA_ENTRY}
            unexpected = sorted(present - set(expected))
            missing = sorted(set(expected) - present)
            if unexpected or missing:
                raise policy_file_error(where, "; ".join(part for part in (
                    f"unexpected entries {unexpected[:5]}" if unexpected else "",
                    f"missing entries {missing[:5]}" if missing else "") if part))
            arrays = {}
            for entry, name in expected.items():
                tensor = tensors[name]
                dtype = np.dtype(str(tensor.dtype).removeprefix("torch.")).newbyteorder("<")
                arrays[name] = _read_npy(archive, entry, dtype, tuple(tensor.shape), where)
        except (zipfile.BadZipFile, EOFError, OSError, RuntimeError) as exc:
            raise policy_file_error(where, f"unreadable ({type(exc).__name__}: {exc})") from None
    with torch.no_grad():
        for name, array in arrays.items():
            if not np.isfinite(array).all():
                raise policy_file_error(where, f"parameter {name!r} holds NaN or infinite values")
            tensors[name].copy_(torch.from_numpy(array))
    policy.set_training_mode(False)
    return meta, policy


def resolve_policy_path(path: str | os.PathLike) -> Path:
    """The policy file that ``path`` names: the file itself, ``<folder>/policy.npz`` for a run
    folder, or ``path + ".npz"``; a ``.zip`` is refused (``CONVERT_HINT``)."""
    resolved = Path(path).expanduser()
    if resolved.suffix.lower() == ".zip":
        beside = resolved.with_name(POLICY_FILE)
        hint = (f"use {str(beside)!r}, which scripts/train_ppo.py wrote next to it, or "
                if beside.is_file() else "")
        raise PolicyFileError(
            f"PPO model {str(path)!r} is a Stable-Baselines3 .zip: loading one unpickles it, "
            f"which can run any code it carries, so only policy files (.npz) are loaded; "
            f"{hint}{CONVERT_HINT}")
    if resolved.is_dir():
        resolved = resolved / POLICY_FILE
    elif not resolved.exists() and resolved.with_name(resolved.name + ".npz").is_file():
        resolved = resolved.with_name(resolved.name + ".npz")
    if not resolved.is_file():
        raise FileNotFoundError(f"PPO policy {str(path)!r} not found (expected a policy.npz "
                                f"written by scripts/train_ppo.py or scripts/convert_model.py)")
    return resolved.resolve()


def load_policy(path: str | os.PathLike) -> tuple[Any, dict[str, Any]]:
    """The policy of a policy file and its game info (``game_info_of``), cached per file
    version. Runs no code from the file (module docstring)."""
    require_train_extra("loading a PPO model")
    return _load_policy_file(resolve_policy_path(path))


# Bounded: each policy holds its network; a long job that loads many files keeps the latest.
@cached_by_file(maxsize=32)
def _load_policy_file(path: str) -> tuple[Any, dict[str, Any]]:
    meta, policy = read_policy_file(path)
    return policy, game_info_of(meta)

