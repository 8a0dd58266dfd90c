"""Agents by name, so scripts and configs can say ``--agents greedy random``.

A spec is ``name`` or ``name:key=value,key=value``, for example ``search:algorithm=exact``,
``search:algorithm=alg5,budget=20000``, ``ucbmcts:iterations=2000``, ``mcts:seconds=0.5`` or
``ppo:path=runs/ppo-tbw-.../model.zip``. Evaluation weights by name or YAML path:
``ucbmcts:weights=tuned``, ``exact:weights=tuned`` (TBW: ``configs/agents/tbw_eval_<name>.yaml``,
see ``agents.tbw.evaluation``). A name may mean a different agent in each game: ``greedy`` is
the TBW script in TBW and the evaluation's one-ply choice in Junqi. Your own agent is named by
its file or module, ``path/to/file.py:Name,key=value`` or ``package.module:Name``
(``agents.user_agents``). An agent of one game says so (``game``, a class attribute; a learned
agent's comes from its policy file), so that the single-agent envs refuse it as the other
game's opponent when they are built; a user agent says its game only if it sets ``game``.

Where the agents are. Which agents a game plays is its description's ``Game.agents``. The
registry's own (``AGENTS``) are those any game may list: ``random``, and ``ppo`` (a learned
policy) for a game with a frame. A game's own agents are in its catalog, the module its
description names (``Game.agent_catalog``: ``agents.tbw.catalog``, ``agents.junqi.catalog``),
imported the first time one of them is asked for (``agents.common.catalog``).

Syntax (``agents.common.spec_syntax``). Items are separated by commas; spaces around keys and
unquoted values are dropped. A lone word sets a true/false parameter: ``ppo:pretrained`` is
``ppo:pretrained=true``. A value that holds a comma (or starts with a quote, or must keep its
outer spaces) is quoted with double or single quotes, and a quote of the same kind inside it is
doubled, as in CSV: ``ppo:path="runs/a,b/model.zip"``, ``ppo:path='it''s/model.zip'``. (In a
shell, quote the whole spec: ``--agents 'ppo:path="runs/a,b/model.zip"'``.) Each key may appear
once.

Types. Each value is cast by the type its parameter declares (``PARAMS`` of the agent class,
``agents.common.params``), never guessed: ``ppo:path=007`` is the string ``"007"``,
``iterations=2.5`` and ``rollout_limit=abc`` are refused, ``seconds`` must be finite, > 0 and at
most ``agents.common.params.MAX_SECONDS`` (3600), ``ppo``'s ``threads`` at most ``MAX_THREADS``
(256).
Unknown and repeated keys are errors, and so is ``seed=`` (the seed is ``make_agent``'s
argument). Everything, names of kernels, beliefs and weights included, is checked when
``make_agent`` builds the agent, never at its first move; errors name the spec (cut to a bounded
length), the parameter and the value. The whole spec is at most
``agents.common.spec_syntax.MAX_SPEC_CHARS`` (8,192) characters.
"""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Callable, Mapping
from typing import Any

from agents.common.catalog import AgentEntry, declared
from agents.common.params import (
    MAX_THREADS,
    SEED,
    Bool,
    Int,
    Param,
    ParameterTypeError,
    PathText,
    check_seed,
)
from agents.common.spec_syntax import cast_spec_values, spec_error, split_spec
from agents.learned.agent import LearnedAgent, take_net_path
from agents.policy.agent import PPOAgent
from agents.policy.pretrained import pretrained_path
from agents.random_agent import RandomAgent
from agents.user_agents import bounded, is_user_spec, parse_user_spec, user_agent_maker
from tbw_envs.core.contract import short_repr
from tbw_envs.description import Game
from tbw_envs.games import game_names, get_game, registered_games

__all__ = ["AGENTS", "agent_entry", "agent_games", "agent_names", "agent_params", "make_agent",
           "parse_agent_spec"]



# ---------------------------------------------------------------------------- the agents
def _ppo(game: str | None = None, variant: str | None = None, **kw):
    if game is not None:
        # A policy file says which game (and board) it plays; refuse another now, not at a move.
        kw["game"] = game
        if variant is not None and get_game(game).frame_depends_on_variant:
            kw["variant"] = variant
    if kw.pop("pretrained", False):
        if "path" in kw:
            raise ValueError("give ppo:pretrained or ppo:path=..., not both")
        kw["path"] = str(pretrained_path(kw.get("game")))
    elif "path" not in kw:
        raise ValueError("ppo needs path=<policy.npz> or pretrained (the shipped policy)")
    return PPOAgent(**kw)


def _ppo_params() -> dict[str, Param]:
    # PPOAgent checks its own arguments; the spec layer declares the ones a spec may set, so
    # that ``path`` stays a string and ``threads`` has a cap (torch.set_num_threads(100000)
    # runs out of memory at the first move).
    return {
        "path": PathText(),
        "pretrained": Bool(),
        "deterministic": Bool(),
        "threads": Int(low=0, high=MAX_THREADS),
        "seed": SEED,
    }


def _learned(game: str | None = None, variant: str | None = None, **kw):
    take_net_path(game, kw)
    if game is not None and variant is not None and get_game(game).frame_depends_on_variant:
        kw["variant"] = variant
    return LearnedAgent(game=game, **kw)


# The agents every game may list in ``Game.agents``: the uniformly random one, and a learned
# policy (ppo:pretrained, the shipped one, or ppo:path=runs/.../policy.npz) for any game with a
# frame. A game's own agents are in its catalog (``Game.agent_catalog``), and a name may mean
# a different agent in each game (``greedy`` is the TBW script in TBW and the evaluation's
# one-ply choice in Junqi). Which games an agent plays is each game's description.
AGENTS: dict[str, AgentEntry] = {
    "random": AgentEntry(RandomAgent, lambda: declared(RandomAgent)),
    "ppo": AgentEntry(_ppo, _ppo_params, takes_game=True),
    "learned": AgentEntry(_learned, lambda: declared(LearnedAgent, extra={"pretrained": Bool()}),
                          takes_game=True),
}


def _catalog(game: Game) -> Mapping[str, AgentEntry]:
    """The game's own agents: ``AGENTS`` of its ``agent_catalog`` module, imported when first
    asked for (a game's catalog imports that game's agents, which other games do not need)."""
    if game.agent_catalog is None:
        return {}
    return importlib.import_module(game.agent_catalog).AGENTS


def agent_names(game: str | None = None) -> list[str]:
    """The agent names ``game`` lists (None: every registered game's), sorted."""
    games = registered_games() if game is None else (get_game(game),)
    return sorted({name for each in games for name in each.agents})


def agent_games(name: str) -> tuple[str, ...]:
    """The games agent ``name`` plays (from each game's description)."""
    return tuple(game.name for game in registered_games() if name in game.agents)


def agent_entry(name: str, game: str | None = None) -> AgentEntry:
    """The entry of agent ``name`` in ``game`` (None: the game it plays first): the game's
    catalog's, else the registry's own."""
    played = agent_games(name) if game is None else (game,)
    description = get_game(played[0]) if played else None
    entry = None if description is None else _catalog(description).get(name)
    if entry is None:
        entry = AGENTS.get(name)
    if entry is None:
        where = "" if description is None else (
            f"; game {description.name} lists it, but neither its catalog "
            f"{description.agent_catalog!r} nor the registry's own agents ({', '.join(AGENTS)}) "
            f"has it")
        raise ValueError(f"no agent {name!r}{where}")
    return entry


# Keys a spec may not set, with the reason.
_NOT_IN_SPECS = {
    "seed": "the seed is make_agent's seed= argument, which the arena sets for every game",
    "evaluate": "evaluate= takes a Python callable; in a spec give weights=<name or .yaml path>",
    "name": "the agent's name is its spec",
}


def agent_params(name: str, game: str | None = None) -> dict[str, Param]:
    """The parameters a spec may set for agent ``name`` in ``game`` (None: the agent
    ``make_agent`` builds without a game), by parameter name."""
    return {k: p for k, p in agent_entry(name, game).params().items() if p.spec}


# ---------------------------------------------------------------------------- spec names
def _check_name(spec: str, name: str, game: str | None) -> None:
    if game is not None and game not in game_names():
        raise ValueError(f"unknown game {short_repr(game)}; games are {list(game_names())}")
    if name not in agent_names():
        # Only the agents of the game being played: another game's would be refused next.
        known = agent_names(game)
        close = difflib.get_close_matches(name, known, n=3)
        guess = f"did you mean {' or '.join(map(repr, close))}? " if close else ""
        raise spec_error(spec, f"unknown agent {short_repr(name)}; {guess}known agents"
                               f"{'' if game is None else f' for {game}'}: {known}, or your "
                               f"own as path/to/file.py:Name or package.module:Name")
    if game is not None and name not in get_game(game).agents:
        playable = agent_names(game)
        plays = " and ".join(agent_games(name))
        raise ValueError(f"agent {name!r} does not play {game} (it plays {plays} only); "
                         f"agents for {game}: {playable}")


def parse_agent_spec(spec: str, game: str | None = None) -> tuple[str, dict[str, Any]]:
    """``(name, kwargs)`` of a spec, each value cast by its parameter's declared type and
    checked, without building the agent. With ``game``, the parameters of the agent the name
    means in that game; without, a key any game's agent of that name takes is accepted. A user
    agent (``path/to/file.py:Name``, ``package.module:Name``) gives ``("target:Name", kwargs)``,
    its file or module loaded to read what it takes (``agents.user_agents``)."""
    if is_user_spec(spec):
        return parse_user_spec(spec)
    name, texts = split_spec(spec)
    _check_name(spec, name, game)
    if game is not None:
        params = agent_params(name, game)
    else:
        params = {}
        for each in agent_games(name):
            for key, param in agent_params(name, each).items():
                params.setdefault(key, param)
    return name, cast_spec_values(spec, name, texts, params, _NOT_IN_SPECS)


def spec_maker(spec: str, game: str | None = None,
               variant: str | None = None) -> Callable[[int | None], Any]:
    """``make_agent`` in two steps, its errors the same: the spec is parsed and checked here,
    once (a user agent's file or module loaded), and the callable returned builds one agent per
    seed, named by the spec (the arena builds one for every game and parses each spec once per
    process)."""
    if is_user_spec(spec):
        return user_agent_maker(spec, game, variant)
    name, texts = split_spec(spec)
    _check_name(spec, name, game)
    values = cast_spec_values(spec, name, texts, agent_params(name, game), _NOT_IN_SPECS)
    entry = agent_entry(name, game)
    if entry.takes_game:
        values.update(game=game, variant=variant)

    def make(seed: int | None) -> Any:
        seed = check_seed(seed, f"make_agent({short_repr(spec)})")
        try:
            agent = entry.build(seed=seed, **values)
        except ParameterTypeError as exc:
            raise ParameterTypeError(f"agent spec {short_repr(spec)}: {bounded(str(exc))}"
                                     ) from None
        except TypeError as exc:
            raise spec_error(spec, bounded(str(exc))) from None
        except ValueError as exc:
            if type(exc) is not ValueError:  # its own kind (a ConfigError, ...): as raised
                raise
            raise spec_error(spec, bounded(str(exc))) from None
        agent.name = spec
        return agent

    return make


def make_agent(spec: str, seed: int | None = None, game: str | None = None,
               variant: str | None = None):
    """Build an agent from a spec string (syntax in the module docstring). Unknown names list
    the known ones, with ``game`` an agent that cannot play that game is refused, and every
    parameter is checked here, before the agent plays. ``seed``: None or a non-negative
    integer of any integer type. ``variant``: the TBW scenario or Junqi rule set about to be
    played, so a learned policy for another board is refused now (the arena passes it). A
    spec naming a file or a module (``path/to/file.py:Name``, ``package.module:Name``) builds
    your own agent from it (``agents.user_agents``)."""
    seed = check_seed(seed, f"make_agent({short_repr(spec)})")
    return spec_maker(spec, game, variant)(seed)
