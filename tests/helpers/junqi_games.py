"""Junqi games for tests: two fixed layouts (``FIRST`` for player 0, ``SECOND`` for player 1),
rules that end a game at the fifth quiet ply, quiet moves, both armies deployed move by move,
random games and layouts with hidden pieces swapped."""

from __future__ import annotations

import random

from tbw_envs.junqi import (
    NUM_POSTS,
    JunqiState,
    Layout,
    deploy_action,
    load_layout,
    random_layout,
    validate_layout,
)
from tbw_envs.junqi.layout import DEPLOY_CELLS
from tbw_envs.junqi.pieces import ENGINEER

FIRST, SECOND = load_layout("flag_left_mined"), load_layout("bombs_forward")

# The side to move loses at the 5th ply in a row without a collision (CCGC: the 31st).
FIVE_QUIET = {"no_collision_limit": 5}


def quiet_action(game: JunqiState) -> int:
    """A legal move onto an empty post (no collision)."""
    return next(a for a in game.legal_actions() if game.piece_at(a % NUM_POSTS) is None)


def deploy_both_armies(step, game: JunqiState) -> None:
    """Fill both armies (FIRST for player 0, SECOND for player 1) with ``step(action)``."""
    orders = [[layout.cells[c] for c in DEPLOY_CELLS] for layout in (FIRST, SECOND)]
    while game.phase == "deploy":
        player = game.current_player
        index = sum(owner == player for owner, _ in game.pieces().values())
        step(deploy_action(orders[player][index]))


def random_game(rand, layouts, plies):
    """The actions of a random game from ``layouts``: ``plies`` of them, fewer if it ends."""
    state = JunqiState.initial(layouts)
    actions = []
    while not state.is_terminal() and len(actions) < plies:
        legal = state.legal_actions()
        action = legal[rand.randrange(len(legal))]
        actions.append(action)
        state.apply(action)
    return actions


def permuted_layout(layout, rand, swaps):
    """``layout`` with ``swaps`` random transpositions of pieces that keep it legal."""
    cells = list(layout.cells)
    occupied = [c for c, k in enumerate(cells) if k is not None]
    for _ in range(swaps):
        for _attempt in range(20):
            a, b = rand.sample(occupied, 2)
            cells[a], cells[b] = cells[b], cells[a]
            try:
                validate_layout(Layout(tuple(cells)))
                break
            except ValueError:
                cells[a], cells[b] = cells[b], cells[a]
    return Layout(tuple(cells))


def midgame_states(count, plies=30, seed=0):
    rand = random.Random(seed)
    states = []
    while len(states) < count:
        state = JunqiState.random_initial(rand)
        for _ in range(rand.randrange(plies // 2, plies * 2)):
            if state.is_terminal():
                break
            state.apply(rand.choice(state.legal_actions()))
        if not state.is_terminal():
            states.append(state)
    return states


def swap_ranked(layout: Layout, rand: random.Random) -> Layout:
    """``layout`` with two ranked pieces of different types swapped (always still legal): a
    deal the opponent cannot tell from ``layout`` until the pieces fight or move."""
    cells = list(layout.cells)
    ranked = [i for i, kind in enumerate(cells) if kind is not None and kind <= ENGINEER]
    while True:
        i, j = rand.sample(ranked, 2)
        if cells[i] != cells[j]:
            break
    cells[i], cells[j] = cells[j], cells[i]
    swapped = Layout(tuple(cells))
    validate_layout(swapped)
    return swapped


def hidden_swap_pairs(seed: int, games: int, plies: int, swaps: int = 3):
    """``(observer, real, other)`` at every ply of ``games`` random games, where ``other`` is
    ``real`` dealt with ``swaps`` of the opponent's ranked pieces swapped and played with the
    same actions, for as long as the public record cannot tell them apart (the last ply's
    result and the revealed flags agree)."""
    rand = random.Random(seed)
    for _game in range(games):
        layouts = [random_layout(rand), random_layout(rand)]
        observer = rand.randrange(2)
        alternative = list(layouts)
        for _ in range(swaps):
            alternative[1 - observer] = swap_ranked(alternative[1 - observer], rand)
        real, other = JunqiState.initial(layouts), JunqiState.initial(alternative)
        for _ply in range(plies):
            if real.history and (real.history[-1] != other.history[-1]
                                 or real.flag_revealed != other.flag_revealed):
                break  # the public record diverged: the observer can tell them apart now
            yield observer, real, other
            if real.is_terminal():
                break
            action = rand.choice(real.legal_actions())
            if action not in other.legal_actions():
                break
            real.apply(action)
            other.apply(action)
