"""The metadata of a policy file (``agents.policy.policy_files``), checked field by field.

The metadata is UTF-8 JSON with the format name and version, the game and its scenario or rule
set, ``flip_perspective``, the default ``deterministic`` play, the observation shape, the
number of actions, and the architecture (``agents.policy.architectures``): ``kind``,
``net_arch``, ``activation``, the extractor's ``features_dim`` and ``channels``, and for
``eval_prior`` its settings and the prior's. ``check_metadata`` holds it to an allow-list
(known keys and types, finite numbers, bounded sizes) before anything is built or read.

Every file has the bundled games' variant fields (``scenario`` for TBW, ``rules`` for Junqi:
``Game.variant_flag``), and a registered game's file its own game's too (``variant_fields``).
The game's own field is None, a bundled variant whose observations and actions are the
policy's, or the path of a YAML file (``.yaml``/``.yml``, or a name with a folder in it), which
is not read: a policy file does not get to name files for this code to open.
"""

from __future__ import annotations

import math
from pathlib import PurePath
from typing import Any

from agents.junqi.eval_prior import PRIOR_GAME, EvalPrior
from agents.policy.architectures import ACTIVATIONS, ARCHITECTURES, parameter_count
from tbw_envs.games import Game, game_names, get_game, variant_fields

POLICY_FORMAT = "tbw-envs-policy"
POLICY_FORMAT_VERSION = 1

# Bounds on what a policy file may ask for, checked before anything is built or read.
MAX_PARAMETERS = 100_000_000  # 400 MB of float32
MAX_FEATURES = 8192
MAX_CONV_LAYERS = 16
MAX_CHANNELS = 1024
MAX_HEAD_LAYERS = 16
MAX_HEAD_WIDTH = 16384
MAX_PLANES = 4096
MAX_TEXT = 1000


class PolicyFileError(ValueError):
    """A policy file that is not one, or whose contents break the format's rules."""


def policy_file_error(where: str, message: str) -> PolicyFileError:
    return PolicyFileError(f"policy file {where}: {message}")


def _int(value: Any, low: int, high: int, field: str, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise policy_file_error(where, f"{field} must be an integer in [{low}, {high}], got "
                                       f"{value!r:.80}")
    return value


def _number(value: Any, field: str, where: str, low: float = -math.inf) -> float:
    if (isinstance(value, bool) or not isinstance(value, (int, float))
            or not math.isfinite(value) or value < low):
        raise policy_file_error(where, f"{field} must be a finite number >= {low}, got "
                                       f"{value!r:.80}")
    return float(value)


def _bool(value: Any, field: str, where: str) -> bool:
    if not isinstance(value, bool):
        raise policy_file_error(where, f"{field} must be true or false, got {value!r:.80}")
    return value


def _text(value: Any, field: str, where: str, optional: bool = True) -> str | None:
    if value is None and optional:
        return None
    if not isinstance(value, str) or len(value) > MAX_TEXT:
        raise policy_file_error(where, f"{field} must be a string of at most {MAX_TEXT} "
                                       f"characters, got {type(value).__name__}")
    return value


def _keys(data: Any, required: set[str], optional: set[str], field: str, where: str) -> dict:
    if not isinstance(data, dict):
        raise policy_file_error(where, f"{field} must be a JSON object, got "
                                       f"{type(data).__name__}")
    missing = sorted(required - set(data))
    unknown = sorted(set(data) - required - optional)
    if missing or unknown:
        raise policy_file_error(where, f"{field}: " + "; ".join(
            part for part in (f"missing {missing}" if missing else "",
                              f"unknown {unknown[:10]}" if unknown else "") if part))
    return data


def _check_eval_prior_settings(settings: Any, where: str) -> dict[str, Any]:
    settings = _keys(settings, {"weights", "belief", "temperature", "clip"}, set(),
                     "architecture.eval_prior", where)
    # The weights in full (EvalPrior.to_dict()), never a name or a path to read.
    if not isinstance(settings["weights"], dict):
        raise policy_file_error(where, "architecture.eval_prior.weights must be the weights in "
                                       f"full (a JSON object), got "
                                       f"{type(settings['weights']).__name__}")
    _text(settings["belief"], "architecture.eval_prior.belief", where, optional=False)
    for name in ("temperature", "clip"):
        _number(settings[name], f"architecture.eval_prior.{name}", where)
    try:
        EvalPrior.from_dict(dict(settings))
    except (ValueError, TypeError, KeyError) as exc:
        raise policy_file_error(where, f"architecture.eval_prior: {exc}") from None
    return settings


def _check_architecture(arch: Any, where: str) -> dict[str, Any]:
    common = {"kind", "net_arch", "activation", "share_features_extractor", "normalize_images"}
    kind = arch.get("kind") if isinstance(arch, dict) else None
    if kind not in ARCHITECTURES:
        raise policy_file_error(where, f"architecture.kind must be one of "
                                       f"{list(ARCHITECTURES)}, got {kind!r:.80}")
    extra = set() if kind == "mlp" else {"features_dim", "channels"}
    if kind == "eval_prior":
        extra |= {"beta_init", "learn_beta", "correction_init", "eval_prior"}
    _keys(arch, common | extra, set(), "architecture", where)
    heads = _keys(arch["net_arch"], {"pi", "vf"}, set(), "architecture.net_arch", where)
    for head in ("pi", "vf"):
        layers = heads[head]
        if not isinstance(layers, list) or len(layers) > MAX_HEAD_LAYERS:
            raise policy_file_error(where, f"architecture.net_arch.{head} must be a list of at "
                                           f"most {MAX_HEAD_LAYERS} layer widths")
        for width in layers:
            _int(width, 1, MAX_HEAD_WIDTH, f"architecture.net_arch.{head} width", where)
    if arch["activation"] not in ACTIVATIONS:
        raise policy_file_error(where, f"architecture.activation {arch['activation']!r:.80} is "
                                       f"not one of {', '.join(ACTIVATIONS)}")
    _bool(arch["share_features_extractor"], "architecture.share_features_extractor", where)
    _bool(arch["normalize_images"], "architecture.normalize_images", where)
    if kind != "mlp":
        _int(arch["features_dim"], 1, MAX_FEATURES, "architecture.features_dim", where)
        channels = arch["channels"]
        if not isinstance(channels, list) or not 1 <= len(channels) <= MAX_CONV_LAYERS:
            raise policy_file_error(where, f"architecture.channels must be a list of 1 to "
                                           f"{MAX_CONV_LAYERS} channel counts")
        for count in channels:
            _int(count, 1, MAX_CHANNELS, "architecture.channels entry", where)
    if kind == "eval_prior":
        if _number(arch["beta_init"], "architecture.beta_init", where) <= 0:
            raise policy_file_error(where, "architecture.beta_init must be positive")
        _bool(arch["learn_beta"], "architecture.learn_beta", where)
        _number(arch["correction_init"], "architecture.correction_init", where, low=0.0)
        _check_eval_prior_settings(arch["eval_prior"], where)
    return arch


def _names_a_file(text: str) -> bool:
    return PurePath(text).suffix.lower() in (".yaml", ".yml") or "/" in text or "\\" in text


def _check_variant(game: Game, meta: dict[str, Any], where: str) -> None:
    """The variant the metadata names must exist and give the policy's sizes (module
    docstring); the policy is then known to have been trained where it says."""
    field = game.variant_flag
    variant = meta[field]
    if variant is None or _names_a_file(variant):
        return
    bundled = game.variants()
    if variant not in bundled:
        raise policy_file_error(where, f"{field} {variant!r:.80} is no bundled "
                                       f"{game.variant_noun} ({', '.join(bundled)}) and no "
                                       f"path of a YAML file")
    frame = game.frame(variant, meta["flip_perspective"])
    shape, num_actions = tuple(meta["observation_shape"]), meta["num_actions"]
    if (tuple(frame.shape), frame.num_actions) != (shape, num_actions):
        raise policy_file_error(where, f"{field} {variant!r} gives observations "
                                       f"{tuple(frame.shape)} and {frame.num_actions} actions, "
                                       f"but the policy takes {shape} and {num_actions}: it "
                                       f"was not trained on {variant!r}")


def check_metadata(meta: Any, where: str) -> dict[str, Any]:
    """The metadata of a policy file, checked field by field (module docstring); ``where``
    names the file in the errors."""
    fields = variant_fields(meta.get("game") if isinstance(meta, dict) else None)
    required = {"format", "version", "game", *fields, "flip_perspective",
                "deterministic", "observation_shape", "num_actions", "architecture"}
    if not isinstance(meta, dict) or meta.get("format") != POLICY_FORMAT:
        found = meta.get("format") if isinstance(meta, dict) else meta
        raise policy_file_error(where, f"not a {POLICY_FORMAT} file (metadata format "
                                       f"{found!r:.80})")
    if meta.get("version") != POLICY_FORMAT_VERSION or isinstance(meta.get("version"), bool):
        raise policy_file_error(where, f"format version {meta.get('version')!r:.40} is not "
                                       f"supported (this code reads version "
                                       f"{POLICY_FORMAT_VERSION})")
    _keys(meta, required, {"source", "timesteps"}, "metadata", where)
    game = meta["game"]
    if game not in game_names():
        raise policy_file_error(where, f"game must be one of {list(game_names())}, got "
                                       f"{game!r:.80}")
    for field in fields:
        _text(meta[field], field, where)
    _text(meta.get("source"), "source", where)
    if meta.get("timesteps") is not None:
        _int(meta["timesteps"], 0, 2**62, "timesteps", where)
    _bool(meta["flip_perspective"], "flip_perspective", where)
    _bool(meta["deterministic"], "deterministic", where)
    shape = meta["observation_shape"]
    if not isinstance(shape, list) or len(shape) != 3:
        raise policy_file_error(where, f"observation_shape must be [planes, rows, cols], got "
                                       f"{shape!r:.80}")
    planes = _int(shape[0], 1, MAX_PLANES, "observation_shape planes", where)
    rows = _int(shape[1], 1, 100, "observation_shape rows", where)
    cols = _int(shape[2], 1, 100, "observation_shape cols", where)
    num_actions = _int(meta["num_actions"], 2, 10**8, "num_actions", where)
    problem = get_game(game).frame_size_error(shape, num_actions)
    if problem is not None:
        raise policy_file_error(where, problem)
    _check_variant(get_game(game), meta, where)
    arch = _check_architecture(meta["architecture"], where)
    if arch["kind"] == "eval_prior" and game != PRIOR_GAME.name:
        raise policy_file_error(where, f"an eval_prior policy plays {PRIOR_GAME.title} only")
    count = parameter_count(arch, (planes, rows, cols), num_actions)
    if count > MAX_PARAMETERS:
        raise policy_file_error(where, f"the architecture holds {count:,} parameters, more "
                                       f"than the {MAX_PARAMETERS:,} allowed")
    return meta


def game_info_of(meta: dict[str, Any]) -> dict[str, Any]:
    """What ``PPOAgent.game_info`` holds for a file's metadata."""
    kind = meta["architecture"]["kind"]
    return {"game": meta["game"], **{field: meta[field] for field in variant_fields(meta["game"])},
            "flip_perspective": meta["flip_perspective"],
            "deterministic": meta["deterministic"],
            "policy": "mlp" if kind == "mlp" else "cnn", "eval_prior": kind == "eval_prior"}
