"""An observation policy as a view agent, so it can play wherever agents play (the arena).

An observation policy ``policy(observation, action_mask) -> action`` sees exactly what the env
gives its player (``env.observe(agent)``): the observation planes and the int8 legal-action mask
in the mover's frame. ``ObservationPolicyAgent`` builds them from the view with the game's frame
(``tbw_envs.games.get_game(game).frame(variant)``, the code the envs use) and turns the frame
action back into the core's action.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tbw_envs.core.contract import is_integer, kind_of, short_repr
from tbw_envs.core.errors import IllegalActionError
from tbw_envs.games import get_game, registered_games


class ObservationPolicyAgent:
    """An observation policy ``policy(observation, action_mask) -> action`` as a view agent:
    each move it encodes the view with the game's frame, exactly as the env would for that
    player, and turns the frame action it gets back into the core's action."""

    def __init__(self, policy: Callable[[np.ndarray, np.ndarray], Any], name: str,
                 game: str | None = None, variant: Any = None):
        self.policy = policy
        self.name = name
        # Without a game, the frame comes from each view's game and variant (kept while the
        # variant stays the same object, as it does through a game).
        self.frame = None if game is None else get_game(game).frame(
            get_game(game).default_variant if variant is None else variant)
        self.found: tuple[Any, Any] | None = None  # (variant, frame) found from a view

    def reset(self, seed: int | None = None) -> None:
        reset = getattr(self.policy, "reset", None)
        if callable(reset):
            reset(seed)

    def frame_for(self, view: Any) -> Any:
        if self.frame is not None:
            return self.frame
        for game in registered_games():
            if game.has_frame and game.is_view(view):
                variant = game.view_variant(view)
                if self.found is None or self.found[0] is not variant:
                    self.found = (variant, game.frame(variant))
                return self.found[1]
        raise TypeError(f"{self.name}: {kind_of(view)} {short_repr(view)} is not a view of "
                        f"any game")

    def act(self, view: Any) -> int:
        frame = self.frame_for(view)
        observation, legal = frame.encode(view)
        action = self.policy(observation, legal.astype(np.int8))
        if not is_integer(action) or not 0 <= action < len(legal) or not legal[action]:
            shown = f"{kind_of(action)} {short_repr(action)}" if not is_integer(action) else (
                f"action {int(action)}")
            legal_ids = np.flatnonzero(legal)
            raise IllegalActionError(
                f"{self.name} returned {shown}, which is not a legal action here: it must be "
                f"an int index where action_mask is 1 ({len(legal_ids)} legal of "
                f"{len(legal)}, such as {short_repr(legal_ids[:8].tolist())})")
        return frame.to_core(view, int(action))
