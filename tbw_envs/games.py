"""The games, by name: the bundled ones, those registered with ``register``, and those installed
packages declare in the entry-point group ``tbw_envs.games``.

``get_game(name)`` is a game's description (``tbw_envs.description.Game``), ``game_names()`` the
registered names (the bundled first) and ``registered_games()`` the descriptions. Every layer
asks these functions when it needs the games, never a copy taken at import: a game registered
later would be missing from the copy.

``register(game)`` checks the description first (``description_problems``) and registers its
envs with PettingZoo and Gymnasium (``tbw_envs.registration``). A package registers its game
without an import of it by anyone, through an entry point::

    [project.entry-points."tbw_envs.games"]
    nim = "nim_game.game:NIM"     # a Game instance, a Game subclass or a callable giving one

The entry points are loaded once, at the first ``game_names()`` / ``registered_games()`` or the
first lookup of a name not registered. One that fails to load is reported with a warning that
names it (and ``get_game`` of its name says why), and the other games stay as they are.
"""

from __future__ import annotations

import importlib.metadata
import keyword
import re
import warnings
from collections.abc import Mapping
from typing import Any

from tbw_envs.core.contract import short_list, short_repr
from tbw_envs.description import Frame, Game, GameStart
from tbw_envs.junqi.env.game import JUNQI
from tbw_envs.registration import (
    forget,
    registered,
    registered_names,
    registered_values,
    store,
)
from tbw_envs.tbw.env.game import TBW

__all__ = [
    "BUNDLED", "COMMAND_FLAGS", "ENTRY_POINT_GROUP", "Frame", "Game", "GameStart",
    "description_problems", "game_names", "get_game", "register", "registered_games",
    "unregister", "variant_fields",
]  # fmt: skip

ENTRY_POINT_GROUP = "tbw_envs.games"
BUNDLED: tuple[Game, ...] = (TBW, JUNQI)

# The options of the command lines (scripts/, agents/cli/) other than the variant flags, as
# identifiers: a game's ``variant_flag`` becomes an option of every command (``--scenario``),
# so it may not be one of these.
COMMAND_FLAGS = frozenset({
    "address", "agent", "agents", "algorithm", "allow_host", "batch", "batch_size", "budget",
    "cases", "chain_steps", "checkpoint_every", "clip_range", "config_name", "copies",
    "default_threads", "deployment", "dict_obs", "dir", "discount", "ent_coef", "entropy_coeff",
    "envs", "episodes", "epochs", "epsilon", "eval_every", "eval_games", "eval_opening_plies",
    "eval_opponent", "eval_opponents", "eval_prior", "every", "exploration", "force", "fps",
    "frames_per_batch", "freeze_every", "gae_lambda", "game", "game_index", "games", "gamma",
    "gif", "help", "hidden", "host", "init", "iterations", "json", "junqi_rules", "keep",
    "kernel", "know", "ladder", "latest_prob", "learner_seat", "learning_rate", "list",
    "lookahead", "lr", "max_children", "max_games", "max_seconds", "merge", "minibatch_size",
    "move_time_limit",
    "model_betas", "model_temperatures", "model_weights", "n_epochs", "n_steps", "no_config",
    "no_pettingzoo_stack", "no_progress", "no_render", "num_cpus", "num_env_runners",
    "num_envs_per_env_runner", "num_epochs", "num_steps", "number", "on_agent_error", "only",
    "opening_plies", "opponent", "opponent_weights", "opponents", "out", "overwrite", "pairs",
    "perturbation", "plies", "policy", "pool_size", "port", "positions", "prior_beta",
    "prior_clip", "prior_temperature", "profile", "quick", "ray", "record_thinking", "repeat",
    "require_digests", "resume", "rounds", "runs", "sample", "sb3", "scenarios", "seconds",
    "seed", "slice", "snapshot_every", "start_weights", "states", "step_size", "steps",
    "tbw_scenario", "test", "tests", "text", "threads", "timesteps", "timing_samples",
    "timing_views", "trace_decay", "train_batch_size", "truth", "validation", "verify",
    "version", "weight_decay", "weights", "win_reward", "workers",
})
GAME_NAME = re.compile(r"[a-z][a-z0-9_]*")

_entry_points_loaded = False
_failed_entry_points: dict[str, str] = {}  # game (entry point) name -> why it did not load


def description_problems(game: Any) -> list[str]:
    """What keeps ``game`` from being registered: each problem names the field and its value
    (empty: none)."""
    if not isinstance(game, Game):
        return [f"a game is described by an instance of tbw_envs.games.Game, got "
                f"{short_repr(game)} ({type(game).__name__})"]
    problems = []
    name = getattr(game, "name", None)
    if not (isinstance(name, str) and GAME_NAME.fullmatch(name) and not keyword.iskeyword(name)):
        problems.append(f"name {short_repr(name)} is not a lowercase identifier (letters, "
                        f"digits and _, a letter first)")
    for field in ("title", "variant_noun", "default_variant"):
        value = getattr(game, field, None)
        if not (isinstance(value, str) and value.strip()):
            problems.append(f"{field} {short_repr(value)} is not a non-empty string")
    flag = getattr(game, "variant_flag", None)
    if not (isinstance(flag, str) and flag.isidentifier() and not keyword.iskeyword(flag)):
        problems.append(f"variant_flag {short_repr(flag)} is not an identifier")
    elif flag in COMMAND_FLAGS:
        problems.append(f"variant_flag {flag!r} is already an option of the command lines "
                        f"(--{flag.replace('_', '-')}); choose another")
    agents = getattr(game, "agents", None)
    if not (isinstance(agents, tuple) and agents and all(isinstance(a, str) and a
                                                          for a in agents)):
        problems.append(f"agents {short_repr(agents)} is not a non-empty tuple of agent names")
    elif {"ppo", "learned"} & set(agents) and not game.has_frame:
        listed = sorted({"ppo", "learned"} & set(agents))
        problems.append(f"agents lists {' and '.join(map(repr, listed))}, but the game declares "
                        f"no frame (Game.frame): learned agents cannot play it")
    reasons = getattr(game, "end_reasons", None)
    if not (isinstance(reasons, tuple) and reasons and all(isinstance(r, str) for r in reasons)):
        problems.append(f"end_reasons {short_repr(reasons)} is not a non-empty tuple of names")
    if not problems:
        problems += _single_env_kwargs_problems(game)
    if not problems:
        try:
            game.load_variant(game.default_variant)
        except Exception as exc:  # any failure of the game's own loader is the problem
            problems.append(f"default_variant {game.default_variant!r} does not load: "
                            f"{type(exc).__name__}: {exc}")
    return problems


def _single_env_kwargs_problems(game: Game) -> list[str]:
    """What is wrong with ``game.single_env_kwargs``, the defaults its Gymnasium id is
    registered with."""
    try:
        defaults = game.single_env_kwargs
    except Exception as exc:  # any failure of the game's own property is the problem
        return [f"single_env_kwargs failed: {type(exc).__name__}: {exc}"]
    if not (isinstance(defaults, Mapping)
            and all(isinstance(k, str) and k.isidentifier() for k in defaults)):
        return [f"single_env_kwargs {short_repr(defaults)} is not a mapping of keyword names "
                f"to defaults"]
    if defaults.get(game.variant_flag) != game.default_variant:
        return [f"single_env_kwargs gives {game.variant_flag}="
                f"{short_repr(defaults.get(game.variant_flag))}, not the default_variant "
                f"{game.default_variant!r}"]
    return []


def register(game: Game, *, replace: bool = False) -> Game:
    """Add ``game`` to the registered games and its envs to PettingZoo's and Gymnasium's
    registries (``game.aec_env_id``, ``game.single_env_id``). A ValueError lists what is wrong
    with the description, or says the name or an env id is taken (``replace=True`` replaces
    the game of the same name)."""
    problems = description_problems(game)
    if problems:
        what = getattr(game, "name", None)
        raise ValueError(f"cannot register game {short_repr(what)}: " + "; ".join(problems))
    if not replace and registered(game.name) is not None:
        raise ValueError(f"a game named {game.name!r} is already registered "
                         f"({registered(game.name)!r}); give replace=True to "
                         f"replace it")
    for other in registered_values():
        if other.name == game.name:
            continue
        for field in ("aec_env_id", "single_env_id"):
            taken = {other.aec_env_id, other.single_env_id}
            if getattr(game, field) in taken:
                raise ValueError(f"cannot register game {game.name!r}: its {field} "
                                 f"{getattr(game, field)!r} is game {other.name!r}'s; "
                                 f"declare another {field}")
    store(game)
    _failed_entry_points.pop(game.name, None)
    return game


def unregister(name: str) -> Game:
    """Remove the game ``name`` and its env ids (for tests that register a game of their own);
    a ValueError if no such game is registered."""
    if registered(name) is None:
        raise ValueError(f"no game named {short_repr(name)} is registered; games: "
                         f"{', '.join(registered_names())}")
    return forget(name)


def variant_fields(game: str | None = None) -> tuple[str, ...]:
    """The variant fields of a file that names one game (an arena record, a policy file): the
    bundled games' ("scenario", "rules"), null but for its own, then ``game``'s own field if it
    is another game's. A game registered later adds its field to its own files only, so
    installing it changes no other game's files."""
    fields = dict.fromkeys(bundled.variant_flag for bundled in BUNDLED)
    if isinstance(game, str) and game in game_names():
        fields[get_game(game).variant_flag] = None
    return tuple(fields)


def game_names() -> tuple[str, ...]:
    """The registered games' names, the bundled first, entry points loaded."""
    _load_entry_points()
    return registered_names()


def registered_games() -> tuple[Game, ...]:
    """The registered games' descriptions, in the order of ``game_names()``."""
    _load_entry_points()
    return registered_values()


def get_game(name: str | Game) -> Game:
    """The description of the game called ``name`` (a ``Game`` is returned as is); a ValueError
    names the known games otherwise."""
    if isinstance(name, Game):
        return name
    game = registered(name) if isinstance(name, str) else None
    if game is None and isinstance(name, str):
        _load_entry_points()
        game = registered(name)
    if game is None:
        why = _failed_entry_points.get(name) if isinstance(name, str) else None
        if why is not None:
            raise ValueError(f"game {name!r} did not load: {why}")
        raise ValueError(f"unknown game {short_repr(name)}; games: "
                         f"{short_list(registered_names())}")
    return game


def _load_entry_points() -> None:
    global _entry_points_loaded
    if _entry_points_loaded:
        return
    _entry_points_loaded = True  # first: a plugin that looks games up while loading
    for entry_point in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        try:
            register(_described(entry_point.load()))
        except Exception as exc:  # a broken plugin must not take the other games down
            why = (f"entry point {entry_point.name!r} ({entry_point.value}) of group "
                   f"{ENTRY_POINT_GROUP!r} failed: {type(exc).__name__}: {exc}")
            _failed_entry_points[entry_point.name] = why
            warnings.warn(f"tbw_envs: game {why}", RuntimeWarning, stacklevel=3)


def _described(loaded: Any) -> Any:
    """The ``Game`` an entry point gives: an instance, or a class or callable that makes one."""
    if isinstance(loaded, Game) or not callable(loaded):
        return loaded
    return loaded()


for _bundled in BUNDLED:
    register(_bundled)
