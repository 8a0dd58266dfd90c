"""Agents by name, so scripts and configs can say ``--agents greedy random``.

A spec is ``name`` or ``name:key=value,key=value``, for example ``search:algorithm=exact``,
``search:algorithm=alg5,budget=20000``, ``ucbmcts:iterations=2000``, ``mcts:seconds=0.5`` or
``ppo:path=runs/ppo-tbw-.../model.zip``. Evaluation weights by name or YAML path:
``ucbmcts:weights=tuned``, ``exact:weights=tuned`` (TBW: ``configs/agents/tbw_eval_<name>.yaml``,
see ``agents.tbw.evaluation``). A name may mean a different agent in each game: ``greedy`` is
the TBW script in TBW and the evaluation's one-ply choice in Junqi.

Syntax. Items are separated by commas; spaces around keys and unquoted values are dropped. A
lone word sets a true/false parameter: ``ppo:pretrained`` is ``ppo:pretrained=true``. A
value that holds a comma (or starts with a quote, or must keep its outer spaces) is quoted with
double or single quotes, and a quote of the same kind inside it is doubled, as in CSV:
``ppo:path="runs/a,b/model.zip"``, ``ppo:path='it''s/model.zip'``. (In a shell, quote the
whole spec: ``--agents 'ppo:path="runs/a,b/model.zip"'``.) Each key may appear once.

Types. Each value is cast by the type its parameter declares (``PARAMS`` of the agent class,
``agents.params``), never guessed: ``ppo:path=007`` is the string ``"007"``, ``iterations=2.5``
and ``rollout_limit=abc`` are refused, ``seconds`` must be finite, > 0 and at most
``agents.params.MAX_SECONDS`` (3600), ``ppo``'s ``threads`` at most ``MAX_THREADS`` (256).
Unknown and repeated keys are errors, and so is ``seed=`` (the seed is ``make_agent``'s
argument). Everything, names of kernels, beliefs and weights included, is checked when
``make_agent`` builds the agent, never at its first move; errors name the spec (cut to a bounded
length), the parameter and the value. The whole spec is at most ``MAX_SPEC_CHARS`` (8,192)
characters.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from agents.params import (
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
from tbw_envs.contract import short_repr

MAX_SPEC_CHARS = 8192
GAMES = ("tbw", "junqi")
_MAX_MESSAGE_CHARS = 500


def _random(**kw):
    from agents.random_agent import RandomAgent

    return RandomAgent(**kw)


def _greedy(**kw):
    from agents.tbw.greedy import GreedyAgent

    return GreedyAgent(**kw)


def _junqi(class_name: str) -> Callable[..., Any]:
    def factory(**kw):
        import agents.junqi as junqi

        return getattr(junqi, class_name)(**kw)

    return factory


def _ppo(**kw):
    # agents.sb3 imports torch only when a model loads, so the registry stays torch-free.
    from agents.sb3 import PPOAgent

    if kw.pop("pretrained", False):
        from agents.pretrained import pretrained_path

        if "path" in kw:
            raise ValueError("give ppo:pretrained or ppo:path=..., not both")
        kw["path"] = str(pretrained_path(kw.get("game")))
    elif "path" not in kw:
        raise ValueError("ppo needs path=<policy.npz> or pretrained (the shipped policy)")
    return PPOAgent(**kw)


def _search(**kw):
    from agents.tbw.search import TBWSearchAgent

    kw.pop("seed", None)
    return TBWSearchAgent(**_with_weights(kw, "search agent"))


def _with_weights(kw: dict, who: str) -> dict:
    """``weights=tuned`` (or a path): the TBW evaluation from configs/agents/tbw_eval_*.yaml."""
    if "weights" in kw:
        from agents.tbw.evaluation import load_evaluation

        if "evaluate" in kw:
            raise ValueError(f"give the {who} weights= or evaluate=, not both")
        kw["evaluate"] = load_evaluation(kw.pop("weights"))
    return kw


def _oep(**kw):
    from agents.tbw.oep import OEPAgent

    return OEPAgent(**_with_weights(kw, "OEP agent"))


def _tree(**kw):
    from agents.tbw.tree import TBWTreeAgent

    return TBWTreeAgent(**_with_weights(kw, "tree agent"))


AGENT_FACTORIES: dict[str, Callable[..., Any]] = {
    "random": _random,
    "greedy": _greedy,
    "mcts": _junqi("MCTSAgent"),
    "ucbmcts": _junqi("UCBMCTSAgent"),
    "ismcts": _junqi("ISMCTSAgent"),
    "search": _search,
    # Short names for the single-turn searches of the TBW paper and ours.
    "exact": lambda **kw: _search(algorithm="exact", **kw),
    "alg5": lambda **kw: _search(algorithm="alg5", **kw),
    "alg2": lambda **kw: _search(algorithm="alg2", **kw),
    # A MaskablePPO model from scripts/train_ppo.py: ppo:path=runs/ppo-tbw-.../model.zip
    "ppo": _ppo,
    # Online Evolutionary Planning: oep:seconds=1 (anytime) or oep:generations=50 (reproducible)
    "oep": _oep,
    # Search across turns on whole-turn plans: tree:seconds=1 (anytime) or tree:solves=200
    "tree": _tree,
}
# Per game, the factories whose name means another agent there than in AGENT_FACTORIES.
GAME_FACTORIES: dict[str, dict[str, Callable[..., Any]]] = {
    "junqi": {"greedy": _junqi("GreedyEvalAgent")},
}
# Which games an agent can play.
AGENT_GAMES: dict[str, tuple[str, ...]] = {
    "random": ("tbw", "junqi"), "greedy": ("tbw", "junqi"), "search": ("tbw",),
    "exact": ("tbw",), "alg5": ("tbw",), "alg2": ("tbw",),
    "mcts": ("junqi",), "ucbmcts": ("junqi",), "ismcts": ("junqi",),
    "ppo": ("tbw", "junqi"),
    "oep": ("tbw",),
    "tree": ("tbw",),
}

# ---------------------------------------------------------------------------- parameters
# What a spec may set for each agent: the agent class's own declarations (``PARAMS``), read
# when needed, plus what the registry itself turns into arguments (TBW ``weights=``).
_TBW_WEIGHTS = {"weights": Text(max_chars=4096)}


def _class_params(module: str, class_name: str, drop: tuple[str, ...] = (),
                  extra: Mapping[str, Param] | None = None) -> Callable[[], dict[str, Param]]:
    def params() -> dict[str, Param]:
        import importlib

        cls = getattr(importlib.import_module(module), class_name)
        declared = {k: p for k, p in cls.PARAMS.items() if k not in drop}
        return {**declared, **(extra or {})}

    return params


def _ppo_params() -> dict[str, Param]:
    # agents.sb3 checks its own arguments; the spec layer declares the ones a spec may set, so
    # that ``path`` stays a string and ``threads`` has a cap (torch.set_num_threads(100000)
    # runs out of memory at the first move).
    return {
        "path": PathText(),
        "pretrained": Bool(),
        "deterministic": Bool(),
        "threads": Int(low=0, high=MAX_THREADS),
        "seed": SEED,
    }


AGENT_PARAMS: dict[str, Callable[[], dict[str, Param]]] = {
    "random": _class_params("agents.random_agent", "RandomAgent"),
    "greedy": _class_params("agents.tbw.greedy", "GreedyAgent"),
    "mcts": _class_params("agents.junqi.mcts", "MCTSAgent"),
    "ucbmcts": _class_params("agents.junqi.mcts", "UCBMCTSAgent"),
    "ismcts": _class_params("agents.junqi.mcts", "ISMCTSAgent"),
    "search": _class_params("agents.tbw.search", "TBWSearchAgent", extra=_TBW_WEIGHTS),
    "exact": _class_params("agents.tbw.search", "TBWSearchAgent", ("algorithm",), _TBW_WEIGHTS),
    "alg5": _class_params("agents.tbw.search", "TBWSearchAgent", ("algorithm",), _TBW_WEIGHTS),
    "alg2": _class_params("agents.tbw.search", "TBWSearchAgent", ("algorithm",), _TBW_WEIGHTS),
    "ppo": _ppo_params,
    "oep": _class_params("agents.tbw.oep", "OEPAgent", extra=_TBW_WEIGHTS),
    "tree": _class_params("agents.tbw.tree", "TBWTreeAgent", extra=_TBW_WEIGHTS),
}
GAME_PARAMS: dict[str, dict[str, Callable[[], dict[str, Param]]]] = {
    "junqi": {"greedy": _class_params("agents.junqi.greedy", "GreedyEvalAgent")},
}
# Keys a spec may not set, with the reason.
_NOT_IN_SPECS = {
    "seed": "the seed is make_agent's seed= argument, which the arena sets for every game",
    "evaluate": "evaluate= takes a Python callable; in a spec give weights=<name or .yaml path>",
    "name": "the agent's name is its spec",
}


def agent_params(name: str, game: str | None = None) -> dict[str, Param]:
    """The parameters a spec may set for agent ``name`` in ``game`` (None: the agent
    ``make_agent`` builds without a game), by parameter name."""
    source = GAME_PARAMS.get(game or "", {}).get(name, AGENT_PARAMS[name])
    return {k: p for k, p in source().items() if p.spec}


# ---------------------------------------------------------------------------- spec syntax
def _spec_error(spec: str, problem: str) -> ValueError:
    return ValueError(f"agent spec {short_repr(spec)}: {problem}")


def _split_spec(spec) -> tuple[str, dict[str, str | None]]:
    """``(name, {key: value text})`` of a spec: the syntax only, no types (module docstring)."""
    if not isinstance(spec, str):
        raise ParameterTypeError(f"agent spec must be a string such as 'greedy' or "
                                 f"'ucbmcts:iterations=200', got {type(spec).__name__} "
                                 f"{short_repr(spec)}")
    if len(spec) > MAX_SPEC_CHARS:
        raise _spec_error(spec, f"{len(spec)} characters long; a spec has at most "
                                f"{MAX_SPEC_CHARS}")
    name, _, body = spec.partition(":")
    name = name.strip()
    if not name:
        raise _spec_error(spec, "no agent name before ':'")
    items: dict[str, str | None] = {}
    i, n = 0, len(body)
    while i < n:
        j = i
        while j < n and body[j] not in "=,":
            j += 1
        key = body[i:j].strip()
        if j == n or body[j] == ",":
            if key:  # a lone word: a flag ("ppo:pretrained"), if _cast finds a Bool of that name
                if key in items:
                    raise _spec_error(spec, f"{short_repr(key)} is given twice")
                items[key] = None
            i = j + 1  # (or an empty item: "a=1,,b=2", a trailing comma)
            continue
            i = j + 1  # an empty item ("a=1,,b=2", a trailing comma)
            continue
        if not key:
            raise _spec_error(spec, f"expected key=value, got a value without a key at "
                                    f"{short_repr(body[i:])}")
        i = j + 1
        while i < n and body[i] in " \t":
            i += 1
        if i < n and body[i] in "\"'":
            quote, i, chars = body[i], i + 1, []
            while True:
                if i >= n:
                    raise _spec_error(spec, f"the value of {short_repr(key)} opens a {quote} "
                                            "quote that is never closed")
                if body[i] == quote:
                    if i + 1 < n and body[i + 1] == quote:  # a doubled quote: the quote itself
                        chars.append(quote)
                        i += 2
                        continue
                    i += 1
                    break
                chars.append(body[i])
                i += 1
            value = "".join(chars)
            while i < n and body[i] in " \t":
                i += 1
            if i < n and body[i] != ",":
                raise _spec_error(spec, f"text after the closing quote of the value of "
                                        f"{short_repr(key)}: {short_repr(body[i:])}")
            i += 1
        else:
            end = body.find(",", i)
            end = n if end < 0 else end
            value = body[i:end].strip()
            i = end + 1
        if key in items:
            raise _spec_error(spec, f"{short_repr(key)} is given twice")
        items[key] = value
    return name, items


def _check_name(spec: str, name: str, game: str | None) -> None:
    if name not in AGENT_FACTORIES:
        raise _spec_error(spec, f"unknown agent {short_repr(name)}; known agents: "
                                f"{sorted(AGENT_FACTORIES)}")
    if game is not None:
        if game not in GAMES:
            raise ValueError(f"unknown game {short_repr(game)}; games are {list(GAMES)}")
        if game not in AGENT_GAMES[name]:
            playable = sorted(n for n, games in AGENT_GAMES.items() if game in games)
            raise ValueError(f"agent {name!r} does not play {game}; agents for {game}: "
                             f"{playable}")


def _cast(spec: str, name: str, texts: dict[str, str | None],
          params: Mapping[str, Param]) -> dict:
    """The spec's values cast by their declared types, checked; a lone word (value None) sets a
    declared bool flag."""
    kwargs: dict[str, Any] = {}
    for key, text in texts.items():
        param = params.get(key)
        if param is None and text is None:
            raise _spec_error(spec, f"expected key=value, got {short_repr(key)}")
        if param is None:
            known = ", ".join(sorted(params)) or "no parameters"
            why = f" ({_NOT_IN_SPECS[key]})" if key in _NOT_IN_SPECS else ""
            raise _spec_error(spec, f"unknown parameter {short_repr(key)} for {name}{why}; "
                                    f"{name} takes: {known}")
        if text is None:  # a lone word
            if not isinstance(param, Bool):
                raise _spec_error(spec, f"expected key=value, got {short_repr(key)}")
            text = "true"
        try:
            kwargs[key] = param.parse(text, key, name)
        except ParameterTypeError as exc:
            raise ParameterTypeError(f"agent spec {short_repr(spec)}: {exc}") from None
        except ValueError as exc:
            raise _spec_error(spec, str(exc)) from None
    missing = sorted(k for k, p in params.items() if p.required and k not in kwargs)
    if missing:
        raise _spec_error(spec, f"{name} needs {', '.join(f'{k}=' for k in missing)}")
    return kwargs


def parse_agent_spec(spec: str, game: str | None = None) -> tuple[str, dict[str, Any]]:
    """``(name, kwargs)`` of a spec, each value cast by its parameter's declared type and
    checked, without building the agent. With ``game``, the parameters of the agent the name
    means in that game; without, a key any game's agent of that name takes is accepted."""
    name, texts = _split_spec(spec)
    _check_name(spec, name, game)
    if game is not None:
        params = agent_params(name, game)
    else:
        params = {}
        for each in AGENT_GAMES[name]:
            for key, param in agent_params(name, each).items():
                params.setdefault(key, param)
    return name, _cast(spec, name, texts, params)


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
    played, so a learned policy for another board is refused now (the arena passes it)."""
    name, texts = _split_spec(spec)
    seed = check_seed(seed, f"make_agent({short_repr(spec)})")
    _check_name(spec, name, game)
    kwargs = _cast(spec, name, texts, agent_params(name, game))
    factory = GAME_FACTORIES.get(game or "", {}).get(name, AGENT_FACTORIES[name])
    if name == "ppo" and game is not None:
        # A policy file says which game (and board) it plays; refuse another now, not at a move.
        kwargs["game"] = game
        if game == "tbw" and variant is not None:
            kwargs["scenario"] = variant
    try:
        agent = factory(seed=seed, **kwargs)
    except ParameterTypeError as exc:
        raise ParameterTypeError(f"agent spec {short_repr(spec)}: {_bounded(str(exc))}") from None
    except TypeError as exc:
        raise _spec_error(spec, _bounded(str(exc))) from None
    except ValueError as exc:
        if type(exc) is not ValueError:  # its own kind (a ConfigError, ...): as raised
            raise
        raise _spec_error(spec, _bounded(str(exc))) from None
    agent.name = spec
    return agent
