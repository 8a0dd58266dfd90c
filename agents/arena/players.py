"""The arena's entrants: agents built from spec strings (registry agents, or your own:
``file.py:Name``) or ``factory(seed)`` callables, their labels, and the pairings of a round
robin.

A spec is parsed once per process, not once per game: ``agent_maker`` resolves an entrant for a
game and variant (its name looked up and its values cast, or a user agent's file or module
loaded and checked) into an ``AgentMaker``, kept for the process, whose ``make(seed)`` builds
each game's fresh agent. The parent resolves every entrant when it checks the run
(``build_entrants``), and each worker process the first time it meets one."""

from __future__ import annotations

import pickle
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from agents.arena.checks import ArenaInputError, ArenaTypeError
from agents.common.spec_syntax import split_spec
from agents.registry import agent_games, spec_maker
from agents.user_agents import is_user_spec, user_agent_game
from tbw_envs.core.contract import kind_of, short_repr
from tbw_envs.description import Game
from tbw_envs.games import game_names, get_game

# How many resolved entrants a process keeps (``agent_maker``); a run needs one per spec.
MAX_KEPT_MAKERS = 256


def entrant_label(entry: Any) -> str:
    """Display name of an entrant: the spec string, or a factory's ``name`` / ``__name__``."""
    if isinstance(entry, str):
        return entry
    return str(getattr(entry, "name", None) or getattr(entry, "__name__", None) or repr(entry))


def entrant_spec(entry: Any) -> str:
    """What a record says about how an agent was built."""
    if isinstance(entry, str):
        return entry
    module = getattr(entry, "__module__", "?")
    return f"{module}:{getattr(entry, '__qualname__', repr(entry))}"


class AgentMaker:
    """An entrant resolved for one game on one variant: ``make(seed)`` builds a fresh agent for
    one game without parsing the spec again (``agents.registry.spec_maker``: a registry agent's
    values cast by their declared types, a user agent's file or module loaded and what it names
    checked); a factory is called as ``factory(seed)``. Building raises what ``make_agent``
    raises."""

    def __init__(self, entry: Any, game: Game, variant: str | None = None):
        self.entry = entry
        if isinstance(entry, str):
            self._make: Callable[[int], Any] = spec_maker(entry, game.name, variant)
        else:
            self._make = entry

    def make(self, seed: int) -> Any:
        return self._make(seed)


# The entrants this process has resolved (``agent_maker``), by game, variant and spec.
_kept_makers: dict[tuple[Any, ...], AgentMaker] = {}


def agent_maker(entry: Any, game: Game, variant: str | None = None) -> AgentMaker:
    """The ``AgentMaker`` of ``entry`` for ``game`` on ``variant``, resolved once per process:
    a spec string met again (the next game, in this process or this worker) is not parsed
    again. Kept by the game's name and class rather than the description itself, since a
    worker process receives a copy of the description with every task."""
    if not isinstance(entry, str):
        return AgentMaker(entry, game, variant)  # a factory: nothing to parse
    key = (type(game), game.name, variant, entry)
    maker = _kept_makers.get(key)
    if maker is None:
        maker = AgentMaker(entry, game, variant)
        if len(_kept_makers) >= MAX_KEPT_MAKERS:
            del _kept_makers[next(iter(_kept_makers))]  # the oldest
        _kept_makers[key] = maker
    return maker


def build_agent(entry: Any, seed: int, game: Game, variant: str | None = None) -> Any:
    """An agent from a spec string, a registry agent's or your own (``file.py:Name``; told the
    game and its scenario or rule set, so a learned model for another board is refused), or
    from a picklable factory called as ``factory(seed)`` (a class defined at module level will
    do); the spec is parsed once per process (``agent_maker``)."""
    return agent_maker(entry, game, variant).make(seed)


def unique_labels(entries: Sequence[Any]) -> list[str]:
    """Labels for the entrants, numbering repeats: ``random``, ``random (2)``."""
    labels: list[str] = []
    seen: Counter[str] = Counter()
    for entry in entries:
        base = entrant_label(entry)
        seen[base] += 1
        labels.append(base if seen[base] == 1 else f"{base} ({seen[base]})")
    return labels


def entrants(entries: Sequence[Any]) -> tuple[list[Any], list[str], list[tuple[int, int]]]:
    """The entrants (a single entry plays a copy of itself), their labels and the pairings."""
    entries = list(entries)
    if len(entries) == 1:
        entries = entries * 2
    labels = unique_labels(entries)
    pairings = [(a, b) for a in range(len(entries)) for b in range(a + 1, len(entries))]
    return entries, labels, pairings


def build_entrants(game: str | Game, entries: Sequence[Any], labels: Sequence[str],
                   pickled: bool, variant: str | None = None) -> None:
    """Build every entrant once, here and now, so a bad spec (unknown agent, an agent that does
    not play ``game`` (a name or its description), bad options, a model file that does not
    load) or a failing factory is reported before any game; with ``pickled`` (worker
    processes, Ray) a factory must pickle, and so must the game's description, which every task
    carries. Each spec stays resolved for the games this process plays (``agent_maker``)."""
    game = get_game(game)
    if pickled:
        try:
            pickle.dumps(game)
        except Exception as exc:
            raise ArenaInputError(
                f"game {game.name}: its description ({kind_of(game)}) must be picklable to "
                f"play in worker processes (every task carries it; or use workers=1): "
                f"{type(exc).__name__}: {short_repr(str(exc))}") from None
    for index, entry in enumerate(entries):
        who = f"agent #{index + 1} ({labels[index]})"
        if pickled and not isinstance(entry, str):
            try:
                pickle.dumps(entry)
            except Exception as exc:
                raise ArenaInputError(
                    f"{who}: a factory must be picklable to play in worker processes (define "
                    f"it at module level, or use workers=1): {type(exc).__name__}: "
                    f"{short_repr(str(exc))}") from None
        try:
            agent = build_agent(entry, 0, game, variant)
        except Exception as exc:
            raise ArenaInputError(f"{who}: {exc}" if isinstance(exc, ValueError) else
                                  f"{who}: cannot be built: {type(exc).__name__}: {exc}"
                                  ) from None
        for method in ("act", "reset"):
            if not callable(getattr(agent, method, None)):
                raise ArenaTypeError(f"{who}: the agent it builds ({kind_of(agent)}) has no "
                                     f"{method}() method")


def entrant_games(entry: Any) -> tuple[str, ...] | None:
    """The games an entrant plays, where it says: a registry agent's (``ismcts``: Junqi), a user
    agent's declared one (``agents.user_agents.declared_game``; this loads its file), a
    factory's ``game`` attribute; None where it does not say (or its spec does not load: building
    it reports that, in context)."""
    if not isinstance(entry, str):
        game = getattr(entry, "game", None)
        return (game,) if isinstance(game, str) and game in game_names() else None
    try:
        if is_user_spec(entry):
            game = user_agent_game(entry)
            return None if game is None else (game,)
        name = split_spec(entry)[0]
    except ValueError:
        return None
    return agent_games(name) or None


def agents_game(entries: Sequence[Any]) -> str | None:
    """The game ``entries`` decide between them: the one game every entrant that names its
    games plays, or None when they leave more than one open. Raises ``ArenaInputError`` naming
    the agents when no game has them all."""
    common = list(game_names())
    said: list[tuple[str, tuple[str, ...]]] = []
    for entry in entries:
        games = entrant_games(entry)
        if games is None:
            continue
        said.append((entrant_label(entry), games))
        common = [game for game in common if game in games]
    if not common:
        plays = "; ".join(f"{label} plays {' and '.join(games)}" for label, games in said
                          if len(games) < len(game_names()))
        raise ArenaInputError(f"the agents play different games, so no game has them all: "
                              f"{plays}")
    return common[0] if len(common) == 1 and said else None
