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
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from agents.common.params import (
    MAX_THREADS,
    SEED,
    Bool,
    Int,
    Param,
    ParameterTypeError,
    PathText,
    Text,
    check_seed,
)
from agents.common.spec_syntax import cast_spec_values, spec_error, split_spec
from agents.junqi import GreedyAgent as JunqiGreedyAgent
from agents.junqi import ISMCTSAgent, MCTSAgent, UCBMCTSAgent
from agents.policy.agent import PPOAgent
from agents.policy.pretrained import pretrained_path
from agents.random_agent import RandomAgent
from agents.tbw.evaluation import load_evaluation
from agents.tbw.greedy import GreedyAgent
from agents.tbw.oep import OEPAgent
from agents.tbw.search import TBWSearchAgent
from agents.tbw.tree import TBWTreeAgent
from agents.user_agents import is_user_spec, make_user_agent, parse_user_spec
from tbw_envs.core.contract import short_repr
from tbw_envs.games import GAMES as ALL_GAMES
from tbw_envs.games import game_names, get_game

GAMES = game_names()
_MAX_MESSAGE_CHARS = 500


# ---------------------------------------------------------------------------- factories
def _with_weights(kw: dict, who: str) -> dict:
    """``weights=tuned`` (or a path): the TBW evaluation from configs/agents/tbw_eval_*.yaml."""
    if "weights" in kw:
        if "evaluate" in kw:
            raise ValueError(f"give the {who} weights= or evaluate=, not both")
        kw["evaluate"] = load_evaluation(kw.pop("weights"))
    return kw


def _tbw_search(algorithm: str | None = None) -> Callable[..., Any]:
    def build(**kw):
        kw.pop("seed", None)
        if algorithm is not None:
            kw["algorithm"] = algorithm
        return TBWSearchAgent(**_with_weights(kw, "search agent"))

    return build


def _oep(**kw):
    return OEPAgent(**_with_weights(kw, "OEP agent"))


def _tree(**kw):
    return TBWTreeAgent(**_with_weights(kw, "tree agent"))


def _ismcts(policy: str | None = None, **kw):
    if policy is not None:
        # The learned policy's move probabilities become the search's root prior.
        path = pretrained_path("junqi") if policy == "pretrained" else policy
        kw["root_prior"] = PPOAgent(path=str(path), game="junqi").move_probabilities
    return ISMCTSAgent(**kw)


def _ppo(game: str | None = None, variant: str | None = None, **kw):
    if game is not None:
        # A policy file says which game (and board) it plays; refuse another now, not at a move.
        kw["game"] = game
        if variant is not None and get_game(game).variant_flag == "scenario":
            kw["scenario"] = variant
    if kw.pop("pretrained", False):
        if "path" in kw:
            raise ValueError("give ppo:pretrained or ppo:path=..., not both")
        kw["path"] = str(pretrained_path(kw.get("game")))
    elif "path" not in kw:
        raise ValueError("ppo needs path=<policy.npz> or pretrained (the shipped policy)")
    return PPOAgent(**kw)


# ---------------------------------------------------------------------------- parameters
# What a spec may set for each agent: the agent class's own declarations (``PARAMS``) plus what
# the registry itself turns into arguments (TBW ``weights=``).
_TBW_WEIGHTS = {"weights": Text(max_chars=4096)}


def _declared(cls: type, drop: tuple[str, ...] = (),
              extra: Mapping[str, Param] | None = None) -> dict[str, Param]:
    return {**{k: p for k, p in cls.PARAMS.items() if k not in drop}, **(extra or {})}


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


@dataclass(frozen=True)
class AgentEntry:
    """How to build one agent from a spec: ``build(seed=..., **spec values)``, and what a spec
    may set (``params()``). ``takes_game``: ``build`` is also told the game and variant."""

    build: Callable[..., Any]
    params: Callable[[], dict[str, Param]]
    takes_game: bool = False


_TBW_SEARCH_PARAMS = _declared(TBWSearchAgent, ("algorithm",), _TBW_WEIGHTS)
_JUNQI = {"mcts": MCTSAgent, "ucbmcts": UCBMCTSAgent}

# The one table of agents: name -> entry, or per game (``{game: entry}``) where a name means a
# different agent in each game (``greedy`` is the TBW script in TBW and the evaluation's one-ply
# choice in Junqi). Which games an agent plays is each game's description (``Game.agents``).
AGENTS: dict[str, AgentEntry | dict[str, AgentEntry]] = {
    "random": AgentEntry(RandomAgent, lambda: _declared(RandomAgent)),
    "greedy": {
        "tbw": AgentEntry(GreedyAgent, lambda: _declared(GreedyAgent)),
        "junqi": AgentEntry(JunqiGreedyAgent, lambda: _declared(JunqiGreedyAgent)),
    },
    **{name: AgentEntry(cls, lambda cls=cls: _declared(cls)) for name, cls in _JUNQI.items()},
    # ismcts:policy=pretrained (or a policy.npz path): the learned policy as the root's prior
    "ismcts": AgentEntry(_ismcts, lambda: _declared(ISMCTSAgent, ("root_prior",),
                                                    {"policy": PathText()})),
    "search": AgentEntry(_tbw_search(), lambda: _declared(TBWSearchAgent, extra=_TBW_WEIGHTS)),
    # Short names for the single-turn searches of the TBW paper and ours.
    **{name: AgentEntry(_tbw_search(name), lambda: _TBW_SEARCH_PARAMS)
       for name in ("exact", "alg5", "alg2")},
    # A learned policy: ppo:pretrained (the shipped one) or ppo:path=runs/.../policy.npz
    "ppo": AgentEntry(_ppo, _ppo_params, takes_game=True),
    # Online Evolutionary Planning: oep:seconds=1 (anytime) or oep:generations=50 (reproducible)
    "oep": AgentEntry(_oep, lambda: _declared(OEPAgent, extra=_TBW_WEIGHTS)),
    # Search across turns on whole-turn plans: tree:seconds=1 (anytime) or tree:solves=200
    "tree": AgentEntry(_tree, lambda: _declared(TBWTreeAgent, extra=_TBW_WEIGHTS)),
}


def agent_games(name: str) -> tuple[str, ...]:
    """The games agent ``name`` plays (from each game's description)."""
    return tuple(game.name for game in ALL_GAMES.values() if name in game.agents)


def agent_entry(name: str, game: str | None = None) -> AgentEntry:
    """The entry of agent ``name`` in ``game`` (None: the game it plays first)."""
    entry = AGENTS[name]
    if isinstance(entry, AgentEntry):
        return entry
    return entry[game if game is not None else agent_games(name)[0]]


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
    if game is not None and game not in GAMES:
        raise ValueError(f"unknown game {short_repr(game)}; games are {list(GAMES)}")
    if name not in AGENTS:
        # Only the agents of the game being played: another game's would be refused next.
        known = sorted(AGENTS) if game is None else sorted(ALL_GAMES[game].agents)
        close = difflib.get_close_matches(name, known, n=3)
        guess = f"did you mean {' or '.join(map(repr, close))}? " if close else ""
        raise spec_error(spec, f"unknown agent {short_repr(name)}; {guess}known agents"
                               f"{'' if game is None else f' for {game}'}: {known}, or your "
                               f"own as path/to/file.py:Name or package.module:Name")
    if game is not None and name not in ALL_GAMES[game].agents:
        playable = sorted(ALL_GAMES[game].agents)
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


def _bounded(text: str) -> str:
    if len(text) <= _MAX_MESSAGE_CHARS:
        return text
    return text[: _MAX_MESSAGE_CHARS - 3] + "..."


def make_agent(spec: str, seed: int | None = None, game: str | None = None,
               variant: str | None = None):
    """Build an agent from a spec string (syntax in the module docstring). Unknown names list
    the known ones, with ``game`` an agent that cannot play that game is refused, and every
    parameter is checked here, before the agent plays. ``seed``: None or a non-negative
    integer of any integer type. ``variant``: the TBW scenario or Junqi rule set about to be
    played, so a learned policy for another board is refused now (the arena passes it). A
    spec naming a file or a module (``path/to/file.py:Name``, ``package.module:Name``) builds
    your own agent from it (``agents.user_agents``)."""
    if is_user_spec(spec):
        return make_user_agent(spec, seed=seed, game=game, variant=variant)
    name, texts = split_spec(spec)
    seed = check_seed(seed, f"make_agent({short_repr(spec)})")
    _check_name(spec, name, game)
    kwargs = cast_spec_values(spec, name, texts, agent_params(name, game), _NOT_IN_SPECS)
    entry = agent_entry(name, game)
    if entry.takes_game:
        kwargs.update(game=game, variant=variant)
    try:
        agent = entry.build(seed=seed, **kwargs)
    except ParameterTypeError as exc:
        raise ParameterTypeError(f"agent spec {short_repr(spec)}: {_bounded(str(exc))}") from None
    except TypeError as exc:
        raise spec_error(spec, _bounded(str(exc))) from None
    except ValueError as exc:
        if type(exc) is not ValueError:  # its own kind (a ConfigError, ...): as raised
            raise
        raise spec_error(spec, _bounded(str(exc))) from None
    agent.name = spec
    return agent
