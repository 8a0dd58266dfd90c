"""What every Junqi agent shares (``agents.junqi.base``): legal moves, determinism under a seed, and
no cheating: an agent decides from its view alone, whatever the hidden pieces are."""

from __future__ import annotations

import functools
import random

import pytest

from agents.junqi import (
    GreedyAgent,
    ISMCTSAgent,
    MCTSAgent,
    UCBMCTSAgent,
)
from tbw_envs.junqi import JunqiState, Layout, random_layout, validate_layout
from tests.helpers.junqi_games import midgame_states

# ---------------------------------------------------------------------------------- agents
AGENT_MAKERS = {
    "greedy": lambda seed: GreedyAgent(seed=seed),
    "mcts": lambda seed: MCTSAgent(iterations=30, seed=seed),
    "ucbmcts": lambda seed: UCBMCTSAgent(iterations=60, seed=seed),
    "ismcts": lambda seed: ISMCTSAgent(iterations=60, seed=seed),
}

# ---------------------------------------------------------------------------------- no cheating
# An agent must decide from its view alone. The check: pairs of true states that differ only in
# the identities of hidden opponent pieces, with the same public history, so the player's views
# are equal; a freshly built agent, seeded the same, must play the same move in both worlds.
# The agent factory is handed the true state (``make(seed, truth)``): an honest factory ignores
# it, the cheating controls below read it, and the check must catch them.
CHEAT_CHECK_SEED = 3


def _permuted_twin(layouts, actions, observer, rand):
    """A second deal of the opponent's army (two of its pieces swapped in the layout) whose public
    history replays identically; ``(real, twin)`` after ``actions``, or None. A swap that changes
    a piece the observer can attack right now is preferred: there a peek at the true types
    matters most."""
    opponent = 1 - observer
    cells = list(layouts[opponent].cells)
    occupied = [c for c, k in enumerate(cells) if k is not None]
    fallback = None
    for _attempt in range(300):
        a, b = rand.sample(occupied, 2)
        if cells[a] == cells[b]:
            continue
        swapped = list(cells)
        swapped[a], swapped[b] = swapped[b], swapped[a]
        try:
            validate_layout(Layout(tuple(swapped)))
        except ValueError:
            continue
        alternative = list(layouts)
        alternative[opponent] = Layout(tuple(swapped))
        real, twin = JunqiState.initial(layouts), JunqiState.initial(alternative)
        same = True
        for action in actions:
            if action not in twin.legal_actions():
                same = False
                break
            real.apply(action)
            twin.apply(action)
            if real.history[-1] != twin.history[-1] or real.flag_revealed != twin.flag_revealed:
                same = False
                break
        if not same or real.kind == twin.kind or real.is_terminal():
            continue
        changed = {post for post in range(60) if real.kind[post] != twin.kind[post]}
        targets = {divmod(action, 60)[1] for action in real.legal_actions()}
        if changed & targets:
            return real, twin
        fallback = fallback or (real, twin)
    return fallback


def _hand_made_pairs():
    """Custom positions (no history: every opponent piece may be anything) where the piece next
    to ours is weak in one world and strong in the other; the swapped partner is far away."""
    pairs = []
    for ours, near, far, posts in (
        ({"E0": (0, "major"), "K2": (0, "captain")}, "lieutenant", "marshal", ("D0", "A4")),
        ({"H2": (0, "general"), "K0": (0, "engineer")}, "captain", "bomb", ("G2", "B3")),
    ):
        homes = {"L1": (0, "flag"), "L3": (0, "mine"), "A1": (1, "flag"), "A3": (1, "mine"),
                 "B0": (1, "colonel")}  # fmt: skip
        near_post, far_post = posts
        real = JunqiState.from_pieces(
            {**homes, **ours, near_post: (1, near), far_post: (1, far)})
        twin = JunqiState.from_pieces(
            {**homes, **ours, near_post: (1, far), far_post: (1, near)})
        pairs.append((real, twin))
    return pairs


@functools.cache
def _cheat_check_pairs():
    rand = random.Random(11)
    pairs = []
    while len(pairs) < 4:
        layouts = [random_layout(rand), random_layout(rand)]
        state = JunqiState.initial(layouts)
        actions = []
        for _ in range(rand.randrange(20, 60)):
            action = rand.choice(state.legal_actions())
            state.apply(action)
            actions.append(action)
            if state.is_terminal():
                break
        if state.is_terminal():
            continue
        pair = _permuted_twin(layouts, actions, state.current_player, rand)
        if pair is not None:
            pairs.append(pair)
    return tuple(pairs) + tuple(_hand_made_pairs())


def _moves_in_both_worlds(make) -> list[tuple[int, int]]:
    """For every pair: the move of ``make(seed, real)`` on the real view and of
    ``make(seed, twin)`` on the twin's view, both built with the same seed."""
    moves = []
    for real, twin in _cheat_check_pairs():
        player = real.current_player
        assert twin.current_player == player
        # The precondition: the player cannot tell the worlds apart ...
        assert real.view(player) == twin.view(player)
        # ... although they differ, in the opponent's hidden pieces only.
        assert real.kind != twin.kind and real.owner == twin.owner
        assert [real.kind[p] for p in range(60) if real.owner[p] == player] == [
            twin.kind[p] for p in range(60) if twin.owner[p] == player
        ]
        moves.append(tuple(
            make(CHEAT_CHECK_SEED, world).act(world.view(player)) for world in (real, twin)
        ))  # fmt: skip
    return moves


class _TruthBelief:
    """The back door: a belief tracker whose every determinization is the true state."""

    def __init__(self, belief, truth):
        self._belief, self._truth = belief, truth

    def sample_state(self, rng):
        return self._truth.clone()

    def __getattr__(self, name):
        return getattr(self._belief, name)


def _peeking(cls, **kwargs):
    """A factory of agents of ``cls`` that search the true state instead of the belief's
    samples: the closure over ``truth`` is the cheat."""

    def make(seed, truth):
        class Peeking(cls):
            def _search(self, view, actions, belief, started):
                return super()._search(view, actions, _TruthBelief(belief, truth), started)

        return Peeking(seed=seed, **kwargs)

    return make


CHEATERS = {
    "ucbmcts": _peeking(UCBMCTSAgent, iterations=60),
    "ismcts": _peeking(ISMCTSAgent, iterations=60),
}


@pytest.mark.parametrize("name", sorted(AGENT_MAKERS))
def test_agents_do_not_cheat_under_consistent_permutations_of_hidden_pieces(name):
    moves = _moves_in_both_worlds(lambda seed, truth: AGENT_MAKERS[name](seed))
    assert len(moves) == 6
    assert all(a == b for a, b in moves), moves


@pytest.mark.parametrize("name", sorted(CHEATERS))
def test_the_no_cheating_check_catches_an_agent_that_reads_the_true_state(name):
    """The control: the same check, on an agent that searches the true state instead of its
    belief's samples, must fail on some pair."""
    moves = _moves_in_both_worlds(CHEATERS[name])
    assert any(a != b for a, b in moves), moves


@pytest.mark.parametrize("name", sorted(AGENT_MAKERS))
def test_agents_play_legal_moves_and_are_deterministic_under_a_seed(name):
    for state in midgame_states(3, seed=len(name)):
        view = state.view(state.current_player)
        first = AGENT_MAKERS[name](7).act(view)
        assert first in view.legal_actions()
        assert AGENT_MAKERS[name](7).act(view) == first
        agent = AGENT_MAKERS[name](1)
        agent.reset(7)
        assert agent.act(view) == first
