"""What a page may ask an agent to spend: the server's own caps, stricter than the command line's.

Any web page the person visits can post to the server, so a spec from a page is held to caps
that keep one move near ``max_seconds`` of thinking (``scripts/serve.py --max-seconds``, 10 s by
default) and its ``threads`` to the server's ``--threads``. A spec over a cap is refused before
its game starts, naming the cap and the flag that raises it; ``PlaySession`` also stops every
move's search at ``max_seconds`` whatever its parameters (``agents.common.budget.stop_when``),
so a cap is the first line and the stop the backstop.

The count caps are the work one second of thinking buys on a quiet 2-core machine (the searches'
benchmarks, ``docs/benchmarks.md``), rounded down, times ``max_seconds``:

* Junqi searches at a mid-game position, ``scripts/bench/bench_junqi_agents.py --positions 10
  --iterations 200``: ISMCTS 2,670-2,870 iterations/s, UCB&MCTS about 6,900, MCTS about 1,050;
* the single-turn TBW searches on the plain-Python path, ``scripts/bench/bench_search.py --kernel
  python``: 0.6-0.8 M ops1/s (the compiled kernel is about 60 times faster);
* the tree search: a single-turn solve takes 2 ms on ``duel_5v5_8x8``, 8 ms at the median on
  ``fire_emblem_5v5`` and about 0.2 s on ``battle_10v10_16x16`` (2026-12-01, AMD EPYC, lightly
  loaded), so 10 solves a second holds on middling boards and the time stop takes over on
  the biggest;
* evolutionary planning: 15,000-45,000 plan evaluations a second on ``duel_5v5_8x8`` and
  ``battle_10v10_16x16`` (same machine); a generation evaluates half the population, so 100
  generations a second at a population of 160 (16 per second of the cap) is 8,000.

The compiled single-turn kernel cannot be stopped inside its loop; at the ops1 cap it runs a
quarter of a second (20 M ops1 took 0.7-0.9 s on the machine above), within the one second in
which a stop must take effect.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from agents.common.params import MAX_SECONDS, PathText

__all__ = ["DEFAULT_MAX_SECONDS", "PER_SECOND", "PageLimitError", "PageLimits"]

DEFAULT_MAX_SECONDS = 10.0

# Work per second of thinking, by (agent, parameter): a cap is this times max_seconds.
_NODES_PER_SECOND = 500_000
PER_SECOND: Mapping[tuple[str, str], int] = {
    ("ismcts", "iterations"): 2_500,
    ("ucbmcts", "iterations"): 6_000,
    ("mcts", "iterations"): 1_000,
    ("tree", "solves"): 10,
    ("tree", "solve_nodes"): _NODES_PER_SECOND,
    ("oep", "generations"): 100,
    # A bigger population makes every generation slower.
    ("oep", "population"): 16,
    **{(name, "budget"): _NODES_PER_SECOND for name in ("search", "exact", "alg5", "alg2")},
}
# What a page may name for a parameter that takes a path (a name the agent resolves itself).
NAMED_FILES: Mapping[tuple[str, str], tuple[str, ...]] = {("ismcts", "policy"): ("pretrained",)}
# A text value that reads as a file (weights by YAML path, say) rather than a bundled name.
_FILE_SUFFIXES = (".py", ".yaml", ".yml", ".zip", ".npz", ".json", ".pt", ".pth", ".txt")


def _reads_as_a_file(value: str) -> bool:
    return (any(c in value for c in "/\\") or value in (".", "..") or value.startswith("~")
            or value.lower().endswith(_FILE_SUFFIXES))


class PageLimitError(ValueError):
    """A spec from a page over one of the server's caps."""


class PageLimits:
    """The caps of one server: ``max_seconds`` of thinking a move, ``threads`` for a learned
    agent's torch threads (the server's ``--threads``)."""

    def __init__(self, max_seconds: float = DEFAULT_MAX_SECONDS, threads: int = 2):
        if isinstance(max_seconds, bool) or not isinstance(max_seconds, (int, float)) or not (
                math.isfinite(max_seconds) and 0 < max_seconds <= MAX_SECONDS):
            raise ValueError(f"max_seconds must be a number above 0 and at most "
                             f"{MAX_SECONDS:g}, got {max_seconds!r}")
        if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
            raise ValueError(f"threads must be an integer of at least 1, got {threads!r}")
        self.max_seconds = float(max_seconds)
        self.threads = threads

    def cap(self, name: str, key: str) -> int | None:
        """The cap of agent ``name``'s count parameter ``key``, if it has one."""
        rate = PER_SECOND.get((name, key))
        return None if rate is None else max(1, int(rate * self.max_seconds))

    def caps(self) -> dict[str, Any]:
        """Every cap, as JSON-ready data (``/api/games`` shows them to the page)."""
        counts = {f"{name}:{key}": self.cap(name, key) for name, key in PER_SECOND}
        return {"max_seconds": self.max_seconds, "threads": self.threads, "counts": counts}

    def check(self, name: str, values: Mapping[str, Any], params: Mapping[str, Any]) -> None:
        """Refuse (``PageLimitError``) a value of agent ``name``'s spec that a page may not
        ask for: over a cap, or a file (any value of a path parameter but the names the agent
        resolves itself, and text that reads as a path). ``params``: the agent's declared
        parameters."""
        for key, value in values.items():
            path_param = isinstance(params.get(key), PathText)
            if (path_param and value not in NAMED_FILES.get((name, key), ())) or (
                    not path_param and isinstance(value, str) and _reads_as_a_file(value)):
                allowed = NAMED_FILES.get((name, key), ())
                names = f" (a page may name {', '.join(allowed)})" if allowed else ""
                raise PageLimitError(
                    f"{key}={value!r} names a file{names}; agents that load files are offered "
                    f"only when the server is started with them (scripts/serve.py --agents)")
            elif key == "seconds" or (key == "budget" and isinstance(value, float)):
                if value is not None and value > self.max_seconds:
                    raise PageLimitError(
                        f"{key}={value:g} is over this server's cap of {self.max_seconds:g} s "
                        f"of thinking a move (scripts/serve.py --max-seconds raises it)")
            elif key == "threads":
                if value > self.threads:
                    raise PageLimitError(
                        f"threads={value} is over this server's cap of {self.threads} (its "
                        f"--threads: scripts/serve.py --threads raises it)")
            else:
                cap = self.cap(name, key)
                if cap is not None and isinstance(value, int) and value > cap:
                    raise PageLimitError(
                        f"{key}={value:,} is over this server's cap of {cap:,} for {name} "
                        f"(about {self.max_seconds:g} s of thinking a move; scripts/serve.py "
                        f"--max-seconds raises it)")
