"""The games, by name: the one place that lists them (``get_game("tbw")``)."""

from __future__ import annotations

from tbw_envs.core.contract import short_repr
from tbw_envs.core.game import Frame, Game, GameStart
from tbw_envs.junqi.env.game import JUNQI
from tbw_envs.tbw.env.game import TBW

__all__ = ["GAMES", "Frame", "Game", "GameStart", "game_names", "get_game"]

GAMES: dict[str, Game] = {game.name: game for game in (TBW, JUNQI)}


def game_names() -> tuple[str, ...]:
    return tuple(GAMES)


def get_game(name: str | Game) -> Game:
    """The description of the game called ``name`` (a ``Game`` is returned as is); a ValueError
    names the known games otherwise."""
    if isinstance(name, Game):
        return name
    game = GAMES.get(name) if isinstance(name, str) else None
    if game is None:
        raise ValueError(f"unknown game {short_repr(name)}; games: {', '.join(GAMES)}")
    return game
