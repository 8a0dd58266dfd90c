"""The learned Junqi state value (``agents.junqi.state_value``): its features against a plain
recount on the game core, antisymmetry, the logistic fit recovering known weights, the shipped
file, bad files, and the search leaf that uses it."""

from __future__ import annotations

import random

import numpy as np
import pytest

from agents.junqi.mcts.leaf import GUIDED_LEAVES, MaterialLeaf, ValueLeaf
from agents.junqi.state_value import (
    PIECE_FEATURES,
    STATE_FEATURES,
    THREAT_STEPS,
    StateValue,
    fit_logistic,
    fit_state_value,
    load_state_value,
    outcome_samples,
    piece_value_scale,
    shipped_state_value,
    state_features,
)
from agents.junqi.value_net import shipped_value_net
from tbw_envs.junqi import JunqiState
from tbw_envs.junqi.board import COLS, board_graph, owner_rows, parse_post
from tbw_envs.junqi.pieces import FLAG, MINE, PIECE_NAMES
from tests.helpers.junqi_games import midgame_states


def _steps_between(a: int, b: int) -> int:
    """Board steps from ``a`` to ``b`` by a fresh breadth-first search."""
    frontier, seen, steps = {a}, {a}, 0
    while b not in frontier:
        frontier = {n for p in frontier for n in board_graph().neighbors[p]} - seen
        seen |= frontier
        steps += 1
    return steps


def reference_features(state: JunqiState, player: int) -> list[float]:
    """``state_features`` recounted from ``state.pieces()``, one definition at a time."""
    pieces = {parse_post(post): (side, PIECE_NAMES.index(name))
              for post, (side, name) in state.pieces().items()}
    flag = {side: post for post, (side, k) in pieces.items() if k == FLAG}

    def count(side, test):
        return sum(1 for post, (s, k) in pieces.items() if s == side and test(post, k))

    def near_flag(side):  # side's movable pieces near the other side's flag
        target = flag.get(1 - side)
        return count(side, lambda p, k: k not in (FLAG, MINE) and target is not None
                     and _steps_between(p, target) <= THREAT_STEPS)

    def guards(side):
        return count(side, lambda p, k: side in flag and _steps_between(p, flag[side]) == 1)

    def advance(side):
        return count(side, lambda p, k: k not in (FLAG, MINE)
                     and p // COLS in owner_rows(1 - side))

    me, them = player, 1 - player
    piece_part = [count(me, lambda p, k, t=t: k == t) - count(them, lambda p, k, t=t: k == t)
                  for t in range(len(PIECE_NAMES)) if t != FLAG]
    return [*piece_part, near_flag(me) - near_flag(them), guards(me) - guards(them),
            advance(me) - advance(them)]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_state_features_match_a_plain_recount_and_are_antisymmetric(seed):
    for state in midgame_states(6, plies=60, seed=seed):
        for player in (0, 1):
            features = state_features(state.owner, state.kind, player)
            assert features == reference_features(state, player)
            assert features == [-f for f in state_features(state.owner, state.kind, 1 - player)]
    start = JunqiState.random_initial(random.Random(seed))
    assert state_features(start.owner, start.kind, 0)[:len(PIECE_FEATURES)] == \
        [0] * len(PIECE_FEATURES)


def test_fit_logistic_recovers_known_weights():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(20000, 3))
    true = np.array([1.5, -0.7, 0.2])
    y = (rng.random(20000) < 1 / (1 + np.exp(-(x @ true)))).astype(float)
    assert fit_logistic(x, y, ridge=0.0) == pytest.approx(true, abs=0.06)
    with pytest.raises(ValueError, match="no samples"):
        fit_logistic(np.zeros((0, 3)), np.zeros(0))


def test_outcome_samples_label_each_sampled_position_with_its_movers_result():
    games, finished = [], 0
    rng = random.Random(3)
    while finished < 6:
        start = JunqiState.random_initial(random.Random(rng.randrange(10**9)))
        state, actions = start.clone(), []
        while not state.is_terminal() and len(actions) < 600:
            legal = state.legal_actions()
            action = legal[rng.randrange(len(legal))]
            state.apply(action)
            actions.append(action)
        games.append((start, actions))
        finished += state.is_terminal()
    x, y = outcome_samples(games, every=3)
    expected_x, expected_y = [], []
    for start, actions in games:
        state, rows = start.clone(), []
        for ply, action in enumerate(actions):
            if ply % 3 == 0:
                rows.append((reference_features(state, state.current_player),
                             state.current_player))
            state.apply(action)
        if state.is_terminal():  # an unfinished game teaches nothing
            for features, player in rows:
                expected_x.append(features)
                expected_y.append((state.returns()[player] + 1) / 2)
    assert x.tolist() == expected_x and y.tolist() == expected_y
    # Fitting is the logistic fit of these samples; with the learned piece values as the
    # evaluation's, the scale is exactly 1.
    weights = fit_logistic(x, y)
    as_hand = dict(zip(PIECE_FEATURES, weights, strict=False))
    value, info = fit_state_value(games, as_hand, every=3)
    assert value.weights == pytest.approx(weights) and value.scale == pytest.approx(1.0)
    assert info["samples"] == len(y) and np.isfinite(info["log_loss"])


def test_piece_value_scale_is_the_least_squares_ratio():
    hand = {name: float(i + 1) for i, name in enumerate(PIECE_FEATURES)}
    weights = np.array([0.01 * hand[n] for n in PIECE_FEATURES] + [5.0, 5.0, 5.0])
    assert piece_value_scale(weights, hand) == pytest.approx(0.01)
    with pytest.raises(ValueError, match="no piece-value scale"):
        piece_value_scale(-weights, hand)


def test_the_shipped_value_loads_and_scores_in_piece_units():
    value = shipped_state_value()
    assert len(value.weights) == len(STATE_FEATURES) and value.scale > 0
    state = midgame_states(1, plies=80, seed=4)[0]
    for player in (0, 1):
        logit = sum(w * f for w, f in zip(value.weights,
                                          state_features(state.owner, state.kind, player),
                                          strict=True))
        assert value.balance(state.owner, state.kind, player) == pytest.approx(
            logit / value.scale)
    assert value.balance(state.owner, state.kind, 0) == pytest.approx(
        -value.balance(state.owner, state.kind, 1))


@pytest.mark.parametrize(("text", "words"), [
    ("[1, 2]", ["weights"]),
    ("weights: {marshal: 1}\nscale: 1", ["missing"]),
    ("weights: {" + ", ".join(f"{n}: 0" for n in STATE_FEATURES) + ", psychic: 1}\nscale: 1",
     ["unknown", "psychic"]),
    ("weights: {" + ", ".join(f"{n}: .nan" for n in STATE_FEATURES) + "}\nscale: 1",
     ["finite"]),
    ("weights: {" + ", ".join(f"{n}: 0" for n in STATE_FEATURES) + "}\nscale: -1",
     ["scale", "-1"]),
    ("weights: {" + ", ".join(f"{n}: 0" for n in STATE_FEATURES) + "}\nscale: !!python/none ''",
     ["could not determine a constructor"]),
])
def test_a_bad_state_value_file_is_refused_by_name(tmp_path, text, words):
    path = tmp_path / "value.yaml"
    path.write_text(text)
    with pytest.raises(Exception) as info:
        load_state_value(path)
    for word in words:
        assert word in str(info.value)


@pytest.mark.parametrize("name, shipped", [("value", shipped_state_value),
                                            ("net", shipped_value_net)])
def test_the_learned_leaves_score_their_balance_change(name, shipped):
    from agents.junqi.evaluation import JunqiEvaluation

    evaluation = JunqiEvaluation("tuned")
    leaf = GUIDED_LEAVES[name](evaluation, random.Random(0), 4, horizon=0, even=False)
    assert isinstance(leaf, ValueLeaf) and isinstance(leaf, MaterialLeaf)
    value = shipped()
    for state in midgame_states(4, plies=50, seed=5):
        player = state.current_player
        later = state.clone()
        later.apply(later.legal_actions()[0])
        origin = leaf.origin(state, player)
        assert origin == pytest.approx(value.balance(state.owner, state.kind, player))
        if not later.is_terminal():
            assert leaf.value(later.clone(), player, origin, 0.0, 1) == pytest.approx(
                value.balance(later.owner, later.kind, player) - origin)


def test_state_value_is_a_frozen_record():
    value = StateValue((0.0,) * len(STATE_FEATURES), 1.0)
    assert value.as_dict() == dict.fromkeys(STATE_FEATURES, 0.0)
