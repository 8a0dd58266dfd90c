"""Agents by name, so scripts and configs can say ``--agents greedy random``.

A spec is ``name`` or ``name:key=value,key=value`` (values parsed as int, float or string),
for example ``search:algorithm=exact``, ``search:algorithm=alg5,budget=20000``,
``ucbmcts:iterations=2000``, ``mcts:seconds=0.5`` or ``ppo:path=runs/ppo-tbw-.../model.zip``.
Evaluation weights by name or YAML path: ``ucbmcts:weights=tuned``, ``exact:weights=tuned``
(TBW: ``configs/agents/tbw_eval_<name>.yaml``, see ``agents.tbw.evaluation``).
A name may mean a different agent in each game: ``greedy`` is the TBW script in TBW and the
evaluation's one-ply choice in Junqi.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


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


def _parse_value(text: str):
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return text


def parse_agent_spec(spec: str) -> tuple[str, dict[str, Any]]:
    name, _, params = spec.partition(":")
    kwargs: dict[str, Any] = {}
    for item in filter(None, params.split(",")):
        key, eq, value = item.partition("=")
        if not eq or not key:
            raise ValueError(f"agent spec {spec!r}: expected key=value, got {item!r}")
        kwargs[key.strip()] = _parse_value(value.strip())
    return name.strip(), kwargs


def make_agent(spec: str, seed: int | None = None, game: str | None = None):
    """Build an agent from a spec string; unknown names list the known ones, and with ``game``
    an agent that cannot play that game is refused."""
    name, kwargs = parse_agent_spec(spec)
    if name not in AGENT_FACTORIES:
        raise ValueError(f"unknown agent {name!r}; known agents: {sorted(AGENT_FACTORIES)}")
    if game is not None and game not in AGENT_GAMES[name]:
        playable = sorted(n for n, games in AGENT_GAMES.items() if game in games)
        raise ValueError(f"agent {name!r} does not play {game}; agents for {game}: {playable}")
    factory = GAME_FACTORIES.get(game or "", {}).get(name, AGENT_FACTORIES[name])
    try:
        agent = factory(seed=seed, **kwargs)
    except TypeError as exc:
        raise ValueError(f"agent spec {spec!r}: {exc}") from None
    agent.name = spec
    return agent
