"""A trained MaskablePPO policy (``scripts/train_ppo.py``) as an arena agent, for either seat.

Policy files: loading runs no code
----------------------------------
An SB3 ``model.zip`` is unpickled when it is loaded (``MaskablePPO.load``), so a model file can
run any code it carries. The agent therefore loads only *policy files* (``policy.npz``, written
by ``scripts/train_ppo.py`` next to ``model.zip``, or by ``scripts/convert_model.py`` from a
``model.zip`` the user trusts): a NumPy ``.npz`` archive of plain arrays,

- ``metadata.npy``: UTF-8 JSON (a uint8 array) with the format name and version, the game and
  its scenario or rule set, ``flip_perspective``, the default ``deterministic`` play, the
  observation shape, the number of actions, and the architecture: ``kind`` (``mlp``: SB3's
  flattening extractor; ``cnn``: ``agents.nets.PlaneCNN``; ``eval_prior``:
  ``agents.eval_prior_net.EvalPriorPolicy``), ``net_arch``, ``activation``, the extractor's
  ``features_dim`` and ``channels``, and for ``eval_prior`` its settings and the prior's;
- ``param/<name>.npy``: one float32 array per parameter of the policy (``named_parameters``).

``load_policy`` reads the archive with the zip module and NumPy's header parser only (no pickle,
no ``torch.load``, no ``np.load(allow_pickle=True)``). It checks the metadata against an
allow-list (known keys and types, finite numbers, bounded sizes), rebuilds the policy with our
own classes, and copies each array in after checking its name, dtype and shape against the
rebuilt policy (before the array's bytes are read); a missing, extra or misshapen entry refuses
the file. A ``.zip`` is refused with the conversion command.

The agent
---------
The agent rebuilds from a game-core view exactly what the single-agent wrapper
(``tbw_envs.wrappers``) gave the learner during training, with the same public encoders the
environments use:

- TBW: ``ObservationEncoder(scenario, flip).encode(view, side)``; with ``flip`` (the env's
  ``flip_perspective``, on by default) side 1 sees the board turned 180 degrees and names
  destination tiles in that turned frame, so the legal mask and the chosen action are mapped
  through the tile rotation ``t -> size - 1 - t`` (``Scenario.split_action`` / ``unit_action``).
- Junqi: ``observation_planes(view)``, ``legal_mask_in_frame`` and ``action_to_absolute``.
  A deployment-phase view is played by the policy too (its planes and mask cover deployment).
- Junqi with the evaluation prior (``scripts/train_ppo.py --eval-prior``; the policy is an
  ``agents.eval_prior_net.EvalPriorPolicy``, which carries the prior's settings): the Dict
  observation of ``agents.eval_prior.EvalPriorObservation``, whose ``eval_scores`` the agent
  computes from the view it is handed (``EvalPrior.scores(view)``).

The arena builds a new agent for every game, so loaded policies are cached per file (path,
size and modification time). torch and sb3-contrib are imported only when a policy is loaded:
``import agents`` works without the ``train`` extra.
"""

from __future__ import annotations

import json
import math
import os
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from agents.params import MAX_THREADS

GAMES = ("tbw", "junqi")
# The attribute train_ppo.py sets on the model before saving; SB3 stores every plain attribute
# in model.zip, so checkpoints and the final model both say what they were trained on
# (scripts/convert_model.py reads it).
GAME_INFO_ATTRIBUTE = "tbw_envs_game"

POLICY_FORMAT = "tbw-envs-policy"
POLICY_FORMAT_VERSION = 1
POLICY_FILE = "policy.npz"
METADATA_ENTRY = "metadata.npy"
PARAM_PREFIX = "param/"
ARCHITECTURES = ("mlp", "cnn", "eval_prior")
CONVERT_HINT = ("convert a model.zip you trust with: python scripts/convert_model.py "
                "model.zip policy.npz (it unpickles the zip, which can run code)")

# Bounds on what a policy file may ask for, checked before anything is built or read.
MAX_METADATA_BYTES = 1 << 20
MAX_ENTRIES = 1024
MAX_PARAMETERS = 100_000_000  # 400 MB of float32
MAX_FILE_BYTES = 4 * MAX_PARAMETERS + MAX_METADATA_BYTES + (1 << 20)
MAX_FEATURES = 8192
MAX_CONV_LAYERS = 16
MAX_CHANNELS = 1024
MAX_HEAD_LAYERS = 16
MAX_HEAD_WIDTH = 16384
MAX_PLANES = 4096
MAX_TEXT = 1000

_MODEL_CACHE: dict[tuple[str, int, int], tuple[Any, dict[str, Any]]] = {}


class PolicyFileError(ValueError):
    """A policy file that is not one, or whose contents break the format's rules."""


def _require_train_extra(what: str):
    try:
        import sb3_contrib  # noqa: F401
        import torch
    except ImportError as exc:
        raise ImportError(
            f"{what} needs torch and sb3-contrib (the train extra): "
            f"pip install -c constraints.txt -e '.[train]' ({exc})"
        ) from None
    return torch


# ---------------------------------------------------------------------------- architectures


def _activations() -> dict[str, Any]:
    from torch import nn

    return {"tanh": nn.Tanh, "relu": nn.ReLU, "elu": nn.ELU, "leaky_relu": nn.LeakyReLU}


def _head_layers(net_arch: Any) -> dict[str, list[int]]:
    """SB3's ``net_arch`` (a list for both heads, or ``{"pi": [...], "vf": [...]}``) as a dict."""
    if isinstance(net_arch, dict):
        return {"pi": [int(w) for w in net_arch.get("pi", [])],
                "vf": [int(w) for w in net_arch.get("vf", [])]}
    return {"pi": [int(w) for w in net_arch], "vf": [int(w) for w in net_arch]}


def describe_policy(policy: Any) -> tuple[dict[str, Any], tuple[int, ...], int]:
    """``(architecture, observation_shape, num_actions)`` of a policy this module can rebuild;
    any other policy (another class, extractor or activation) raises ``ValueError``."""
    _require_train_extra("describing a PPO policy")
    from gymnasium import spaces
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    from stable_baselines3.common.torch_layers import FlattenExtractor

    from agents.nets import PlaneCNN

    if not isinstance(policy.action_space, spaces.Discrete):
        raise ValueError(f"only Discrete action spaces are supported, got {policy.action_space}")
    activation = next((name for name, cls in _activations().items()
                       if policy.activation_fn is cls), None)
    if activation is None:
        raise ValueError(f"unsupported activation {policy.activation_fn!r}; supported: "
                         f"{sorted(_activations())}")
    arch: dict[str, Any] = {
        "net_arch": _head_layers(policy.net_arch), "activation": activation,
        "share_features_extractor": bool(policy.share_features_extractor),
        "normalize_images": bool(policy.normalize_images),
    }
    extractor = policy.features_extractor
    if type(policy).__name__ == "EvalPriorPolicy":
        from agents.eval_prior_net import EvalPriorPolicy, PriorPlanesExtractor

        if type(policy) is not EvalPriorPolicy or type(extractor) is not PriorPlanesExtractor:
            raise ValueError(f"unsupported policy {type(policy).__qualname__} with extractor "
                             f"{type(extractor).__qualname__}")
        arch.update(kind="eval_prior", beta_init=float(policy.beta_init),
                    learn_beta=bool(policy.learn_beta),
                    correction_init=float(policy.correction_init),
                    eval_prior=policy.eval_prior)
        extractor = extractor.cnn
        observation_shape = tuple(policy.observation_space["observation"].shape)
    elif type(policy) is MaskableActorCriticPolicy:
        if type(extractor) is FlattenExtractor:
            arch["kind"] = "mlp"
        elif type(extractor) is not PlaneCNN:
            raise ValueError(f"unsupported features extractor {type(extractor).__qualname__}; "
                             "supported: SB3's FlattenExtractor, agents.nets.PlaneCNN")
        observation_shape = tuple(policy.observation_space.shape)
    else:
        raise ValueError(f"unsupported policy class {type(policy).__qualname__}; supported: "
                         "MaskableActorCriticPolicy, agents.eval_prior_net.EvalPriorPolicy")
    if type(extractor) is PlaneCNN:
        arch.setdefault("kind", "cnn")
        arch["features_dim"] = int(extractor.features_dim)
        arch["channels"] = [int(m.out_channels) for m in extractor.convs
                            if hasattr(m, "out_channels")]
    return arch, tuple(int(d) for d in observation_shape), int(policy.action_space.n)


def _parameter_count(arch: dict[str, Any], shape: tuple[int, ...], num_actions: int) -> int:
    """How many numbers the policy of ``arch`` holds (to bound it before building it)."""
    planes, rows, cols = shape
    if arch["kind"] == "mlp":
        extractor, features = 0, planes * rows * cols
    else:
        extractor, width = 0, planes
        for channels in arch["channels"]:
            extractor += width * channels * 9 + channels
            width = channels
        features = arch["features_dim"]
        extractor += width * rows * cols * features + features
    count = extractor * (1 if arch["share_features_extractor"] else 2)
    for head, outputs in (("pi", num_actions), ("vf", 1)):
        width = features
        for layer in arch["net_arch"][head]:
            count += width * layer + layer
            width = layer
        count += width * outputs + outputs
    return count + (arch["kind"] == "eval_prior")


def build_policy(arch: dict[str, Any], observation_shape: tuple[int, ...], num_actions: int):
    """A fresh policy of a checked architecture (``_check_metadata``): our own classes only."""
    torch = _require_train_extra("building a PPO policy")
    from gymnasium import spaces
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    planes = spaces.Box(0.0, 1.0, tuple(observation_shape), np.float32)
    action_space = spaces.Discrete(num_actions)
    kwargs: dict[str, Any] = {
        "net_arch": {"pi": list(arch["net_arch"]["pi"]), "vf": list(arch["net_arch"]["vf"])},
        "activation_fn": _activations()[arch["activation"]],
        "share_features_extractor": arch["share_features_extractor"],
        "normalize_images": arch["normalize_images"],
        "ortho_init": False,  # the weights are replaced anyway
    }
    cnn_kwargs = ({"features_dim": arch["features_dim"], "channels": tuple(arch["channels"])}
                  if arch["kind"] != "mlp" else None)

    def lr_schedule(_progress: float) -> float:
        return 0.0

    with torch.no_grad():
        if arch["kind"] == "eval_prior":
            from agents.eval_prior import as_eval_prior, dict_observation_space
            from agents.eval_prior_net import EvalPriorPolicy, PriorPlanesExtractor

            prior = as_eval_prior(arch["eval_prior"])
            space = dict_observation_space(planes, num_actions, prior)
            policy = EvalPriorPolicy(
                space, action_space, lr_schedule, beta_init=arch["beta_init"],
                learn_beta=arch["learn_beta"], correction_init=arch["correction_init"],
                eval_prior=arch["eval_prior"], features_extractor_class=PriorPlanesExtractor,
                features_extractor_kwargs=cnn_kwargs, **kwargs)
        elif arch["kind"] == "cnn":
            from agents.nets import PlaneCNN

            policy = MaskableActorCriticPolicy(
                planes, action_space, lr_schedule, features_extractor_class=PlaneCNN,
                features_extractor_kwargs=cnn_kwargs, **kwargs)
        else:
            policy = MaskableActorCriticPolicy(planes, action_space, lr_schedule, **kwargs)
    policy.set_training_mode(False)
    return policy


# ---------------------------------------------------------------------------- metadata checks


def _fail(where: str, message: str) -> PolicyFileError:
    return PolicyFileError(f"policy file {where}: {message}")


def _int(value: Any, low: int, high: int, field: str, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise _fail(where, f"{field} must be an integer in [{low}, {high}], got {value!r:.80}")
    return value


def _number(value: Any, field: str, where: str, low: float = -math.inf) -> float:
    if (isinstance(value, bool) or not isinstance(value, (int, float))
            or not math.isfinite(value) or value < low):
        raise _fail(where, f"{field} must be a finite number >= {low}, got {value!r:.80}")
    return float(value)


def _bool(value: Any, field: str, where: str) -> bool:
    if not isinstance(value, bool):
        raise _fail(where, f"{field} must be true or false, got {value!r:.80}")
    return value


def _text(value: Any, field: str, where: str, optional: bool = True) -> str | None:
    if value is None and optional:
        return None
    if not isinstance(value, str) or len(value) > MAX_TEXT:
        raise _fail(where, f"{field} must be a string of at most {MAX_TEXT} characters, got "
                           f"{type(value).__name__}")
    return value


def _keys(data: Any, required: set[str], optional: set[str], field: str, where: str) -> dict:
    if not isinstance(data, dict):
        raise _fail(where, f"{field} must be a JSON object, got {type(data).__name__}")
    missing = sorted(required - set(data))
    unknown = sorted(set(data) - required - optional)
    if missing or unknown:
        raise _fail(where, f"{field}: " + "; ".join(
            part for part in (f"missing {missing}" if missing else "",
                              f"unknown {unknown[:10]}" if unknown else "") if part))
    return data


def _check_eval_prior_settings(settings: Any, where: str) -> dict[str, Any]:
    from agents.eval_prior import EvalPrior

    settings = _keys(settings, {"weights", "belief", "temperature", "clip"}, set(),
                     "architecture.eval_prior", where)
    # The weights in full (EvalPrior.to_dict()), never a name or a path to read.
    if not isinstance(settings["weights"], dict):
        raise _fail(where, "architecture.eval_prior.weights must be the weights in full "
                           f"(a JSON object), got {type(settings['weights']).__name__}")
    _text(settings["belief"], "architecture.eval_prior.belief", where, optional=False)
    for name in ("temperature", "clip"):
        _number(settings[name], f"architecture.eval_prior.{name}", where)
    try:
        EvalPrior.from_dict(dict(settings))
    except (ValueError, TypeError, KeyError) as exc:
        raise _fail(where, f"architecture.eval_prior: {exc}") from None
    return settings


def _check_architecture(arch: Any, where: str) -> dict[str, Any]:
    common = {"kind", "net_arch", "activation", "share_features_extractor", "normalize_images"}
    kind = arch.get("kind") if isinstance(arch, dict) else None
    if kind not in ARCHITECTURES:
        raise _fail(where, f"architecture.kind must be one of {list(ARCHITECTURES)}, got "
                           f"{kind!r:.80}")
    extra = set() if kind == "mlp" else {"features_dim", "channels"}
    if kind == "eval_prior":
        extra |= {"beta_init", "learn_beta", "correction_init", "eval_prior"}
    _keys(arch, common | extra, set(), "architecture", where)
    heads = _keys(arch["net_arch"], {"pi", "vf"}, set(), "architecture.net_arch", where)
    for head in ("pi", "vf"):
        layers = heads[head]
        if not isinstance(layers, list) or len(layers) > MAX_HEAD_LAYERS:
            raise _fail(where, f"architecture.net_arch.{head} must be a list of at most "
                               f"{MAX_HEAD_LAYERS} layer widths")
        for width in layers:
            _int(width, 1, MAX_HEAD_WIDTH, f"architecture.net_arch.{head} width", where)
    if arch["activation"] not in ("tanh", "relu", "elu", "leaky_relu"):
        raise _fail(where, f"architecture.activation {arch['activation']!r:.80} is not one of "
                           "tanh, relu, elu, leaky_relu")
    _bool(arch["share_features_extractor"], "architecture.share_features_extractor", where)
    _bool(arch["normalize_images"], "architecture.normalize_images", where)
    if kind != "mlp":
        _int(arch["features_dim"], 1, MAX_FEATURES, "architecture.features_dim", where)
        channels = arch["channels"]
        if not isinstance(channels, list) or not 1 <= len(channels) <= MAX_CONV_LAYERS:
            raise _fail(where, f"architecture.channels must be a list of 1 to {MAX_CONV_LAYERS} "
                               "channel counts")
        for count in channels:
            _int(count, 1, MAX_CHANNELS, "architecture.channels entry", where)
    if kind == "eval_prior":
        if _number(arch["beta_init"], "architecture.beta_init", where) <= 0:
            raise _fail(where, "architecture.beta_init must be positive")
        _bool(arch["learn_beta"], "architecture.learn_beta", where)
        _number(arch["correction_init"], "architecture.correction_init", where, low=0.0)
        _check_eval_prior_settings(arch["eval_prior"], where)
    return arch


def _check_metadata(meta: Any, where: str) -> dict[str, Any]:
    """The metadata of a policy file, checked field by field (module docstring)."""
    required = {"format", "version", "game", "scenario", "rules", "flip_perspective",
                "deterministic", "observation_shape", "num_actions", "architecture"}
    if not isinstance(meta, dict) or meta.get("format") != POLICY_FORMAT:
        raise _fail(where, f"not a {POLICY_FORMAT} file (metadata format "
                           f"{meta.get('format') if isinstance(meta, dict) else meta!r:.80})")
    if meta.get("version") != POLICY_FORMAT_VERSION or isinstance(meta.get("version"), bool):
        raise _fail(where, f"format version {meta.get('version')!r:.40} is not supported "
                           f"(this code reads version {POLICY_FORMAT_VERSION})")
    _keys(meta, required, {"source", "timesteps"}, "metadata", where)
    game = meta["game"]
    if game not in GAMES:
        raise _fail(where, f"game must be one of {list(GAMES)}, got {game!r:.80}")
    _text(meta["scenario"], "scenario", where)
    _text(meta["rules"], "rules", where)
    _text(meta.get("source"), "source", where)
    if meta.get("timesteps") is not None:
        _int(meta["timesteps"], 0, 2**62, "timesteps", where)
    _bool(meta["flip_perspective"], "flip_perspective", where)
    _bool(meta["deterministic"], "deterministic", where)
    shape = meta["observation_shape"]
    if not isinstance(shape, list) or len(shape) != 3:
        raise _fail(where, f"observation_shape must be [planes, rows, cols], got {shape!r:.80}")
    planes = _int(shape[0], 1, MAX_PLANES, "observation_shape planes", where)
    rows = _int(shape[1], 1, 100, "observation_shape rows", where)
    cols = _int(shape[2], 1, 100, "observation_shape cols", where)
    num_actions = _int(meta["num_actions"], 2, 10**8, "num_actions", where)
    if game == "junqi":
        from tbw_envs.junqi.encoding import NUM_OBSERVATION_PLANES
        from tbw_envs.junqi.state import NUM_ACTIONS

        expected = ([NUM_OBSERVATION_PLANES, 12, 5], NUM_ACTIONS)
        if (shape, num_actions) != expected:
            raise _fail(where, f"a Junqi policy has observation_shape {expected[0]} and "
                               f"{expected[1]} actions, not {shape} and {num_actions}")
    else:
        # TBW: units_per_side * tiles * (units_per_side + 1) + 1 actions (Scenario).
        tiles = rows * cols
        if tiles > 2500 or not any(n * tiles * (n + 1) + 1 == num_actions for n in range(1, 33)):
            raise _fail(where, f"num_actions {num_actions} does not fit a TBW board of "
                               f"{rows} x {cols} (at most 2,500 tiles and 32 units a side)")
    arch = _check_architecture(meta["architecture"], where)
    if arch["kind"] == "eval_prior" and game != "junqi":
        raise _fail(where, "an eval_prior policy plays Junqi only")
    count = _parameter_count(arch, (planes, rows, cols), num_actions)
    if count > MAX_PARAMETERS:
        raise _fail(where, f"the architecture holds {count:,} parameters, more than the "
                           f"{MAX_PARAMETERS:,} allowed")
    return meta


def game_info_of(meta: dict[str, Any]) -> dict[str, Any]:
    """What ``PPOAgent.game_info`` holds for a file's metadata."""
    kind = meta["architecture"]["kind"]
    return {"game": meta["game"], "scenario": meta["scenario"], "rules": meta["rules"],
            "flip_perspective": meta["flip_perspective"],
            "deterministic": meta["deterministic"],
            "policy": "mlp" if kind == "mlp" else "cnn", "eval_prior": kind == "eval_prior"}


# ---------------------------------------------------------------------------- the file


def save_policy(policy: Any, path: str | os.PathLike, game_info: dict[str, Any], *,
                deterministic: bool = True, source: str | None = None,
                timesteps: int | None = None) -> Path:
    """Write ``policy`` as a policy file (module docstring) and return its path.

    ``game_info``: ``game`` (required), ``scenario``, ``rules``, ``flip_perspective``
    (default True). The written file is read back with ``load_policy``'s checks, so a file
    this function returns always loads."""
    arch, shape, num_actions = describe_policy(policy)
    info = dict(game_info or {})
    meta: dict[str, Any] = {
        "format": POLICY_FORMAT, "version": POLICY_FORMAT_VERSION,
        "game": info.get("game"), "scenario": info.get("scenario"), "rules": info.get("rules"),
        "flip_perspective": bool(info.get("flip_perspective", True)),
        "deterministic": bool(deterministic),
        "observation_shape": list(shape), "num_actions": num_actions, "architecture": arch,
    }
    if source is not None:
        meta["source"] = str(source)[:MAX_TEXT]
    if timesteps is not None:
        meta["timesteps"] = int(timesteps)
    meta = json.loads(json.dumps(meta, allow_nan=False))  # plain JSON types, as read back
    _check_metadata(meta, "to write")
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
    from numpy.lib import format as npy

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
            raise _fail(where, f"entry {entry!r} is not a plain .npy array ({exc})") from None
        if found_dtype != dtype or found_dtype.hasobject:
            raise _fail(where, f"entry {entry!r} has dtype {found_dtype}, expected {dtype}")
        if shape is not None and tuple(found_shape) != tuple(shape):
            raise _fail(where, f"entry {entry!r} has shape {tuple(found_shape)}, the policy "
                               f"needs {tuple(shape)}")
        count = math.prod(found_shape)
        nbytes = count * dtype.itemsize
        if max_bytes is not None and nbytes > max_bytes:
            raise _fail(where, f"entry {entry!r} holds {nbytes} bytes, at most {max_bytes} "
                               "allowed")
        data = f.read(nbytes + 1)
    if len(data) != nbytes:
        raise _fail(where, f"entry {entry!r} holds {len(data)} bytes of data, its header "
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
        raise _fail(where, "not a readable .npz archive (no end of central directory)")
    entries = int.from_bytes(tail[at + 10:at + 12], "little")
    directory = int.from_bytes(tail[at + 12:at + 16], "little")
    if entries > MAX_ENTRIES or directory > MAX_ENTRIES * 1024:
        raise _fail(where, f"{entries} entries in a {directory}-byte directory (at most "
                           f"{MAX_ENTRIES} entries)")


def _open_policy_file(path: Path) -> zipfile.ZipFile:
    where = repr(str(path))
    size = path.stat().st_size
    if size > MAX_FILE_BYTES:
        raise _fail(where, f"{size} bytes, more than the {MAX_FILE_BYTES} allowed")
    with path.open("rb") as f:
        magic = f.read(4)
    if magic != b"PK\x03\x04":
        raise _fail(where, f"not a {POLICY_FILE} archive (a policy file is the .npz that "
                           f"scripts/train_ppo.py writes; {CONVERT_HINT})")
    _check_central_directory(path, where)
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as exc:
        raise _fail(where, f"not a readable .npz archive ({exc})") from None
    infos = archive.infolist()
    names = [info.filename for info in infos]
    if len(names) > MAX_ENTRIES or len(set(names)) != len(names):
        archive.close()
        raise _fail(where, f"{len(names)} entries (at most {MAX_ENTRIES}, no duplicates)")
    if METADATA_ENTRY not in names:
        archive.close()
        if "data" in names and any(n.endswith(".pth") for n in names):
            raise _fail(where, f"this is a Stable-Baselines3 model.zip, which is never loaded "
                               f"here; {CONVERT_HINT}")
        raise _fail(where, f"no {METADATA_ENTRY} entry: not a {POLICY_FORMAT} file")
    return archive


def read_policy_file(path: str | os.PathLike, target: Any = None, game: str | None = None
                     ) -> tuple[dict[str, Any], Any]:
    """``(metadata, policy)`` from a policy file, with every check of the module docstring.

    ``target``: an existing policy to load the weights into (``train_ppo.py --init``); its
    architecture, observation shape and number of actions must equal the file's. Without it
    the policy is built from the metadata. ``game``: the file must be a policy of that game."""
    torch = _require_train_extra("loading a PPO policy")
    path = Path(path)
    where = repr(str(path))
    with _open_policy_file(path) as archive:
        try:
            raw = _read_npy(archive, METADATA_ENTRY, np.dtype(np.uint8), None, where,
                            max_bytes=MAX_METADATA_BYTES)
            if raw.ndim != 1:
                raise _fail(where, "metadata must be a 1-D uint8 array")
            try:
                meta = json.loads(raw.tobytes().decode("utf-8"), parse_constant=_no_constants)
            except (UnicodeDecodeError, ValueError, RecursionError) as exc:
                raise _fail(where, f"metadata is not UTF-8 JSON ({exc})") from None
            meta = _check_metadata(meta, where)
            if game is not None and meta["game"] != game:
                raise _fail(where, f"a {meta['game']} policy, not one for {game}")
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
                    raise _fail(where, f"holds a {mine} policy for observations {shape} and "
                                       f"{num_actions} actions; needed: {theirs}, "
                                       f"{target_shape} and {target_actions}")
                policy = target
            tensors = _named_tensors(policy)
            expected = {PARAM_PREFIX + name + ".npy": name for name in tensors}
            present = set(archive.namelist()) - {METADATA_ENTRY}
            unexpected = sorted(present - set(expected))
            missing = sorted(set(expected) - present)
            if unexpected or missing:
                raise _fail(where, "; ".join(part for part in (
                    f"unexpected entries {unexpected[:5]}" if unexpected else "",
                    f"missing entries {missing[:5]}" if missing else "") if part))
            arrays = {}
            for entry, name in expected.items():
                tensor = tensors[name]
                dtype = np.dtype(str(tensor.dtype).removeprefix("torch.")).newbyteorder("<")
                arrays[name] = _read_npy(archive, entry, dtype, tuple(tensor.shape), where)
        except (zipfile.BadZipFile, EOFError, OSError, RuntimeError) as exc:
            raise _fail(where, f"unreadable ({type(exc).__name__}: {exc})") from None
    with torch.no_grad():
        for name, array in arrays.items():
            if not np.isfinite(array).all():
                raise _fail(where, f"parameter {name!r} holds NaN or infinite values")
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
    _require_train_extra("loading a PPO model")
    resolved = resolve_policy_path(path)
    stat = resolved.stat()
    key = (str(resolved), stat.st_size, stat.st_mtime_ns)
    if key not in _MODEL_CACHE:
        meta, policy = read_policy_file(resolved)
        _MODEL_CACHE[key] = (policy, game_info_of(meta))
    return _MODEL_CACHE[key]


class _TBWCodec:
    """Observation, mask and action mapping for one TBW scenario, as tbw_v0 builds them."""

    def __init__(self, scenario, flip: bool):
        from tbw_envs.tbw.observation import ObservationEncoder

        self.encoder = ObservationEncoder(scenario, flip=flip)
        self.flip = flip
        n_actions = scenario.num_actions
        size = scenario.board.size
        rotation = np.arange(n_actions)
        for action in range(n_actions - 1):  # the last action is END_TURN, the same in both
            slot, tile, enemy = scenario.split_action(action)
            rotation[action] = scenario.unit_action(slot, size - 1 - tile, enemy)
        self.rotation = rotation  # its own inverse: frame action <-> core action

    def encode(self, view) -> tuple[np.ndarray, np.ndarray]:
        side = view.current_player
        obs = self.encoder.encode(view, side)
        mask = np.asarray(view.legal_action_mask(), dtype=bool)
        if self.flip and side == 1:
            mask = mask[self.rotation]
        return obs, mask

    def to_core(self, view, action: int) -> int:
        if self.flip and view.current_player == 1:
            return int(self.rotation[action])
        return int(action)


class _JunqiCodec:
    def __init__(self, prior: Any = None):
        self.prior = prior  # an agents.eval_prior.EvalPrior: Dict observations with its scores

    def encode(self, view) -> tuple[Any, np.ndarray]:
        from tbw_envs.junqi.encoding import legal_mask_in_frame, observation_planes

        mask = legal_mask_in_frame(view.legal_actions(), view.player).astype(bool)
        planes = observation_planes(view)
        if self.prior is None:
            return planes, mask
        from agents.eval_prior import SCORES_KEY

        return {"observation": planes, "action_mask": mask.astype(np.int8),
                SCORES_KEY: self.prior.scores(view, mask.shape[0])}, mask

    def to_core(self, view, action: int) -> int:
        from tbw_envs.junqi.encoding import action_to_absolute

        return int(action_to_absolute(int(action), view.player))


def _view_game(view) -> str:
    # A TBW view is a TBWState (it carries its scenario); a Junqi view is a JunqiView.
    if hasattr(view, "scenario") and hasattr(view, "legal_action_mask"):
        return "tbw"
    if hasattr(view, "possible") and hasattr(view, "phase"):
        return "junqi"
    raise TypeError(f"PPOAgent cannot tell which game a {type(view).__name__} view is from")


def _as_bool(value: Any, name: str) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.lower() in ("true", "false", "yes", "no"):
        return value.lower() in ("true", "yes")
    raise ValueError(f"PPOAgent: {name} must be true/false (or 1/0), got {value!r}")


class PPOAgent:
    """Plays a MaskablePPO policy: the most likely legal action (``deterministic=True``) or one
    sampled from the masked distribution with its own seeded generator (``False``).

    Registry spec: ``ppo:path=runs/ppo-tbw-.../policy.npz`` (a policy file, or the run folder
    that holds one; add ``,deterministic=0`` to sample, ``,threads=N`` to change torch's thread
    count, 0 leaves torch's default). ``deterministic`` defaults to the file's setting.
    ``game`` (``tbw`` / ``junqi``) and, for TBW, ``scenario`` (a name, path or Scenario) say
    what the agent is about to play: a policy for another game or board is refused here, when
    the agent is built, not at its first move. ``self.game``, ``observation_shape`` and
    ``num_actions`` say what it plays (``tbw_envs.wrappers`` checks an opponent's).
    """

    name = "ppo"

    def __init__(self, path: str | os.PathLike | None = None, deterministic: Any = None,
                 seed: int | None = None, threads: int = 1, *, game: str | None = None,
                 scenario: Any = None, policy: Any = None,
                 game_info: dict[str, Any] | None = None):
        torch = _require_train_extra("PPOAgent")
        if (path is None) == (policy is None):
            raise ValueError("PPOAgent needs exactly one of path= (a policy.npz) or policy=")
        if path is not None and not isinstance(path, (str, os.PathLike)):
            raise ValueError(f"PPOAgent: path must be a file path, got {path!r:.80}")
        if (not isinstance(threads, int) or isinstance(threads, bool)
                or not 0 <= threads <= MAX_THREADS):
            raise ValueError(
                f"PPOAgent: threads must be an int in [0, {MAX_THREADS}], got {threads!r:.80}"
            )
        if game is not None and game not in GAMES:
            raise ValueError(f"PPOAgent: game must be one of {list(GAMES)}, got {game!r:.80}")
        if scenario is not None and game not in (None, "tbw"):
            raise ValueError(f"PPOAgent: scenario= is for TBW, not {game}")
        chosen = None if deterministic is None else _as_bool(deterministic, "deterministic")
        if threads:
            # On a small shared machine torch's default threading is many times slower for
            # these tiny networks (see README, Training).
            torch.set_num_threads(threads)
        if path is not None:
            policy, saved_info = load_policy(path)
            game_info = {**saved_info, **(game_info or {})}
        self.path = None if path is None else str(path)
        self.policy = policy
        self.game_info = dict(game_info or {})
        self.deterministic = (_as_bool(self.game_info.get("deterministic", True),
                                       "deterministic") if chosen is None else chosen)
        model_game = self.game_info.get("game")
        if model_game is not None and model_game not in GAMES:
            raise ValueError(f"PPOAgent: model trained on unknown game {model_game!r}")
        source = f" {self.path}" if self.path else ""
        if game is not None and model_game not in (None, game):
            raise ValueError(f"PPOAgent: model{source} was trained on {model_game}, cannot play "
                             f"{game}")
        self.flip = _as_bool(self.game_info.get("flip_perspective", True), "flip_perspective")
        # An EvalPriorPolicy carries the evaluation prior's settings (in its policy file).
        prior_settings = getattr(policy, "eval_prior", None)
        self.prior = None
        if prior_settings is not None:
            if model_game not in (None, "junqi") or game not in (None, "junqi"):
                raise ValueError(f"PPOAgent: an evaluation-prior model plays Junqi, not "
                                 f"{game or model_game}")
            from agents.eval_prior import as_eval_prior

            self.prior = as_eval_prior(prior_settings)
            self.game_info.setdefault("game", "junqi")
            self.observation_shape = tuple(policy.observation_space["observation"].shape)
        else:
            self.observation_shape = tuple(policy.observation_space.shape)
        self.num_actions = int(policy.action_space.n)
        self.game = self.game_info.get("game") or game
        if scenario is not None:
            self._check_scenario(scenario, source)
        self._rng = np.random.default_rng(seed)
        self._codecs: dict[int, Any] = {}

    def _check_scenario(self, scenario: Any, source: str) -> None:
        from tbw_envs.tbw import load_scenario
        from tbw_envs.tbw.observation import ObservationEncoder

        scenario = load_scenario(scenario)
        shape = ObservationEncoder(scenario, flip=self.flip).shape
        if shape != self.observation_shape or scenario.num_actions != self.num_actions:
            raise ValueError(
                f"PPOAgent: model{source} expects observations {self.observation_shape} and "
                f"{self.num_actions} actions; scenario {scenario.name!r} gives {shape} and "
                f"{scenario.num_actions}")

    @classmethod
    def from_policy(cls, policy: Any, game: str, flip_perspective: bool = True,
                    deterministic: bool = True, seed: int | None = None,
                    threads: int = 1) -> PPOAgent:
        """An agent over an in-memory policy (``model.policy``), e.g. to evaluate while training."""
        return cls(policy=policy, game_info={"game": game, "flip_perspective": flip_perspective},
                   deterministic=deterministic, seed=seed, threads=threads)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)

    def _codec(self, view):
        game = _view_game(view)
        expected = self.game_info.get("game")
        if expected is not None and expected != game:
            source = f" {self.path}" if self.path else ""
            raise ValueError(f"PPOAgent: model{source} was trained on {expected}, asked to play "
                             f"{game}")
        key = id(view.scenario) if game == "tbw" else 0
        codec = self._codecs.get(key)
        if codec is None:
            codec = (_TBWCodec(view.scenario, self.flip) if game == "tbw"
                     else _JunqiCodec(self.prior))
            self._codecs[key] = codec
        return codec

    def encode(self, view) -> tuple[Any, np.ndarray]:
        """The learner's observation and boolean legal mask for ``view``, in the frame of the
        player to move (what the wrapper gives the learner in that seat): planes, or for an
        evaluation-prior model the Dict ``{"observation", "action_mask", "eval_scores"}``."""
        obs, mask = self._codec(view).encode(view)
        planes = obs["observation"] if isinstance(obs, dict) else obs
        if planes.shape != self.observation_shape or mask.shape != (self.num_actions,):
            where = f"scenario {view.scenario.name!r}" if hasattr(view, "scenario") else "this game"
            raise ValueError(
                f"PPOAgent: the model expects observations {self.observation_shape} and "
                f"{self.num_actions} actions; {where} gives {planes.shape} and {mask.shape[0]}"
            )
        return obs, mask

    def action_probabilities(self, view) -> np.ndarray:
        """The policy's masked action distribution for ``view`` (in the player's frame)."""
        return self._probabilities(*self.encode(view))

    def _probabilities(self, obs: Any, mask: np.ndarray) -> np.ndarray:
        import torch

        with torch.no_grad():
            device = self.policy.device
            if isinstance(obs, dict):
                tensor = {key: torch.as_tensor(value[None], device=device).float()
                          for key, value in obs.items()}
            else:
                tensor = torch.as_tensor(obs[None], device=device)
            distribution = self.policy.get_distribution(tensor, action_masks=mask[None])
            return distribution.distribution.probs[0].cpu().numpy().astype(np.float64)

    def act(self, view) -> int:
        codec = self._codec(view)
        obs, mask = self.encode(view)
        legal = np.flatnonzero(mask)
        if legal.size == 0:
            raise ValueError(f"{self.name}: the view has no legal action (is the game over?)")
        probs = self._probabilities(obs, mask)[legal]
        if self.deterministic:
            choice = int(legal[int(np.argmax(probs))])
        else:
            total = probs.sum()
            # Masked logits leave illegal actions at exactly zero; renormalising over the legal
            # ones only absorbs float rounding.
            p = probs / total if total > 0 else np.full(legal.size, 1.0 / legal.size)
            choice = int(self._rng.choice(legal, p=p))
        return codec.to_core(view, choice)
