"""Seeded random play of the Junqi core (``JunqiState``): every game ends, invariants hold, and the
end rules all occur."""

import random
from collections import Counter

import numpy as np
import pytest

from tbw_envs.junqi import END_REASONS, HEADQUARTERS, JunqiState
from tbw_envs.junqi.pieces import FLAG, MINE, MOBILE_MASK

# A few hundred games show every ending the default run asserts (flag captures and no-move
# losses come within the first ten); games where neither side can move come about once in 700,
# so the slow sweep plays thousands and asserts them too.
GAMES = 500
SWEEP_GAMES = 5000
CHECKED_GAMES = 150  # full invariant checks on every ply of the first games only (speed)


def _check_ply(state, before_counts, action, view_check):
    from_post, to_post = divmod(action, 60)
    mover_kind = state.kind[from_post]
    assert mover_kind not in (MINE, FLAG)
    assert from_post not in HEADQUARTERS or not state.rules.headquarters_lock
    mover = state.current_player
    state.apply(action)
    counts = (state.piece_counts(0), state.piece_counts(1))
    for player in (0, 1):
        assert all(a <= b for a, b in zip(counts[player], before_counts[player], strict=True))
    removed = sum(before_counts[0]) + sum(before_counts[1]) - sum(counts[0]) - sum(counts[1])
    assert removed in ((0, 1, 2) if state.history[-1].result else (0,))
    assert state.owner[from_post] == -1
    if state.owner[to_post] == mover:
        assert state.kind[to_post] == mover_kind
    for observer in (0, 1):
        for post in range(60):
            mask = state.possible[observer][post]
            if state.owner[post] == 1 - observer:
                assert mask >> state.kind[post] & 1, "deduction excludes the true type"
                if state.moved[post]:
                    assert mask & ~MOBILE_MASK == 0
            else:
                assert mask == 0
    if view_check and not state.is_terminal():
        legal = state.legal_actions()
        mask = state.legal_action_mask()
        assert np.flatnonzero(mask).tolist() == sorted(legal)
        assert len(set(legal)) == len(legal)
        assert state.view(state.current_player).legal_actions() == legal
        assert state.view(1 - state.current_player).legal_actions() == []
    return counts


def play_games(rules, games, seed, checked):
    rand = random.Random(seed)
    reasons = Counter()
    lengths = []
    for game in range(games):
        state = JunqiState.random_initial(rand, rules=rules)
        counts = (state.piece_counts(0), state.piece_counts(1))
        # The army of docs/junqi_rules.md ("The army"), typed in type order: marshal,
        # general, major general, brigadier, colonel, major, captain, lieutenant, engineer,
        # mine, bomb, flag.
        assert counts[0] == counts[1] == [1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 2, 1]
        while not state.is_terminal():
            actions = state.legal_actions()
            assert actions
            action = actions[rand.randrange(len(actions))]
            if game < checked:
                counts = _check_ply(state, counts, action, view_check=True)
            else:
                state.apply(action)
        assert state.legal_actions() == [] and state.legal_action_mask().sum() == 0
        assert state.end_reason in END_REASONS
        assert state.ply <= state.rules.ply_cap
        returns = state.returns()
        assert sum(returns) == 0 and (returns == [0, 0]) == (state.winner is None)
        reasons[state.end_reason] += 1
        if state.end_reason in ("no_collision_limit", "total_ply_limit", "ply_cap"):
            reasons[f"{state.end_reason}_decisive"] += state.winner is not None
        lengths.append(state.ply)
    return reasons, lengths


def check_random_ccgc_games(games: int) -> Counter:
    reasons, lengths = play_games("ccgc", games, seed=1, checked=CHECKED_GAMES)
    assert sum(reasons[r] for r in END_REASONS) == games
    assert reasons["no_collision_limit_decisive"] == reasons["no_collision_limit"]
    shares = {reason: reasons[reason] / games for reason in END_REASONS if reasons[reason]}
    print(f"\nCCGC random play, {games} games, mean {np.mean(lengths):.0f} plies: {shares}")
    # Random play rarely collides often enough: the 31-ply rule ends most games, but flag
    # captures and no-move losses must occur too.
    assert reasons["no_collision_limit"] > 0.5 * games
    assert reasons["flag_captured"] > 0 and reasons["no_legal_move"] > 0
    return reasons


def test_hundreds_of_random_ccgc_games_end_with_a_result():
    check_random_ccgc_games(GAMES)


@pytest.mark.slow
def test_thousands_of_random_ccgc_games_end_every_way():
    reasons = check_random_ccgc_games(SWEEP_GAMES)
    assert reasons["no_legal_move_both"] > 0


def test_variant_rule_sets_end_every_game():
    for rules, games in (("jj", 150), ("qq", 100), ("house", 150)):
        reasons, _ = play_games(rules, games, seed=2, checked=20)
        assert sum(reasons[r] for r in END_REASONS) == games
        if rules == "jj":
            # Under JJ rules the quiet-ply limit is a draw, never a loss.
            assert reasons["no_collision_limit"] > 0
            assert reasons["no_collision_limit_decisive"] == 0
        if rules == "qq":
            assert reasons["total_ply_limit"] > 0
            assert (
                reasons["total_ply_limit_decisive"] == reasons["no_collision_limit_decisive"] == 0
            )


def test_ply_cap_ends_games_that_nothing_else_ends():
    reasons, lengths = play_games(
        {"no_collision_limit": None, "ply_cap": 60}, games=100, seed=3, checked=10
    )
    assert reasons["ply_cap"] > 50 and max(lengths) == 60
