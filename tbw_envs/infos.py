"""The info values both games' envs share, as numbers that every vector client can stack.

Gymnasium's vector envs, Tianshou's buffers and TorchRL's specs each build one array per info key
from the first value they see, so a key must hold the same kind of value on every step of every
episode, ``reset`` included, and that value must be a number (or a fixed-shape numeric array).
``None`` for a draw, or a name such as ``"turn_limit_draw"``, breaks all three. So by default:

- ``winner``: 0 or 1, and ``NO_WINNER`` (-1) for a draw and while the game is running;
- ``end_reason``: an int code, an index into the env's ``metadata["end_reasons"]``, whose entry 0
  is ``"not_over"`` (so a code is never negative and never indexes from the end of the list)
  and whose last entry is ``"illegal_action"`` (a game ended by an illegal move);
- ``learner`` (single-agent wrappers) and ``active_agent`` (``parallel_env``): a seat index, 0 or
  1 (``active_agent`` is -1 once the game is over).

``string_infos=True`` (an argument of both envs, ``env()``, ``parallel_env()`` and the
single-agent wrappers) gives names instead for ``end_reason``, ``learner`` and ``active_agent``,
for reading logs by eye; ``winner`` stays an int.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tbw_envs.core.contract import short_repr

NO_WINNER = -1
NO_AGENT = -1
NOT_OVER = "not_over"
ILLEGAL_ACTION = "illegal_action"


class InfoCodes:
    """How one env writes the shared info values (module docstring)."""

    def __init__(self, core_end_reasons: Sequence[str], agents: Sequence[str],
                 string_infos: bool = False):
        if not isinstance(string_infos, (bool, np.bool_)):
            raise TypeError(f"string_infos must be True or False, got {short_repr(string_infos)}")
        self.end_reasons: tuple[str, ...] = (NOT_OVER, *core_end_reasons, ILLEGAL_ACTION)
        self._code = {name: code for code, name in enumerate(self.end_reasons)}
        self.agents = tuple(agents)
        self.strings = bool(string_infos)

    def end_reason(self, reason: str | None) -> int | str:
        """The info value of a core's end reason (None: the game is running)."""
        name = NOT_OVER if reason is None else reason
        return name if self.strings else self._code[name]

    def illegal_end(self) -> int | str:
        return self.end_reason(ILLEGAL_ACTION)

    @staticmethod
    def winner(winner: int | None) -> int:
        return NO_WINNER if winner is None else int(winner)

    def seat(self, agent: str | None) -> int | str:
        """The info value naming an agent (None: nobody)."""
        if self.strings:
            return "" if agent is None else agent
        return NO_AGENT if agent is None else self.agents.index(agent)
