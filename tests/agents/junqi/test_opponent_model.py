"""The opponent-model tracker (``agents.junqi.belief.opponent_model``): its factorised likelihood
against an exact one computed on the game core, that a token's moves pull its row towards the
types they fit, that it reads the view only, its rows, columns and support, sampling, the per-game
cache and the registry."""

from __future__ import annotations

import dataclasses
import random

import numpy as np
import pytest

from agents.junqi.belief import (
    BELIEFS,
    CountBelief,
    ModelBelief,
    OpponentPly,
    cached_games,
    clear_cache,
    complete_assignment,
    feasible_masks,
    gather_evidence,
    make_belief,
    move_log_likelihoods,
    opponent_plies,
)
from agents.junqi.belief.model_fit import (
    ChoiceData,
    choice_data,
    fit_weights,
    negative_log_likelihood,
)
from agents.junqi.belief.opponent_model import (
    CACHE_GAMES,
    FEATURE_CONFIG,
    FITTED,
    FITTED_TEMPERATURE,
    FITTED_WEIGHTS,
    MODEL_FEATURES,
    model_scoring,
)
from agents.junqi.evaluation import FEATURE_NAMES, JunqiEvaluation
from agents.registry import make_agent
from tbw_envs.junqi import JunqiState, encode_action, parse_post, random_layout
from tbw_envs.junqi.layout import PIECE_CELLS, cell_to_post
from tbw_envs.junqi.pieces import (
    ATTACKER_LOST,
    ATTACKER_WON,
    BOTH_REMOVED,
    CAPTAIN,
    ENGINEER,
    GENERAL,
    MARSHAL,
    MINE,
    MOBILE_MASK,
    MOVED,
)
from tests.agents.junqi.test_belief import layout_with, play
from tests.helpers.junqi_games import permuted_layout, random_game
from tests.helpers.junqi_hand import ARMY

TEMPERATURE = 12.0


# ---------------------------------------------------------------------- the reference
def _model_score():
    """The model's evaluation and its score of a move: the fitted weights on the evaluation's
    features other than flag_defence, as the module says."""
    weights = [FITTED_WEIGHTS.get(name, 0.0) for name in FEATURE_NAMES]
    assert weights[FEATURE_NAMES.index("flag_defence")] == 0.0
    return JunqiEvaluation(FEATURE_CONFIG), (
        lambda context, action: float(np.dot(weights, context.features(action)))
    )


def _logsumexp(values) -> float:
    values = np.asarray(values, dtype=float)
    top = values.max()
    return float(top + np.log(np.exp(values - top).sum()))


def _opponent_token_posts(observer: int) -> dict[int, int]:
    """Initial post -> token, in the trackers' token order (``layout.PIECE_CELLS``)."""
    return {cell_to_post(cell, 1 - observer): token for token, cell in enumerate(PIECE_CELLS)}


def exact_log_likelihood(layouts, actions, observer: int, overrides: dict[int, int]) -> float:
    """log P(the opponent's moves | its types), on the game core: every opponent ply is a softmax
    of the model's score over ``state.legal_actions()`` (the whole legal move list, every piece at
    the type the state gives it), from the true layouts with the tokens of ``overrides`` (token
    -> type) set to other types. Only valid while those types replay the same public results."""
    assert observer == 0  # player 0 moves first: its legal moves do not read player 1's types
    evaluation, score = _model_score()
    state = JunqiState.initial(layouts)
    for post, token in _opponent_token_posts(observer).items():
        if token in overrides:
            state.kind[post] = overrides[token]
    total = 0.0
    for action in actions:
        if state.current_player != observer:
            context = evaluation.state_context(state)
            legal = state.legal_actions()
            values = [score(context, a) / TEMPERATURE for a in legal]
            total += values[legal.index(action)] - _logsumexp(values)
        state.apply(action)
    return total


def reference_terms(layouts, actions, observer: int):
    """Per opponent ply, from the game core at the true types: ``S[(token, type)]`` (the sum of
    ``exp(score / T)`` over the moves that token would have as that type), ``n[type]`` (the
    played move's ``score / T`` were the mover that type) and the mover."""
    evaluation, score = _model_score()
    state = JunqiState.initial(layouts)
    token_at = dict(_opponent_token_posts(observer))
    terms = []
    for action in actions:
        source, target = divmod(action, 60)
        if state.current_player != observer:
            sums, played = {}, {}
            for post, token in token_at.items():
                for kind in range(12):
                    if not MOBILE_MASK >> kind & 1:
                        continue
                    probe = state.clone()
                    probe.kind[post] = kind
                    context = evaluation.state_context(probe)
                    values = [
                        score(context, post * 60 + d) / TEMPERATURE
                        for d in probe.destinations(post)
                    ]
                    sums[token, kind] = float(np.exp(values).sum()) if values else 0.0
                    if post == source:
                        played[kind] = score(context, action) / TEMPERATURE
            terms.append((sums, played, token_at[source]))
        mover = state.current_player
        result = state.apply(action)
        if mover != observer:
            token = token_at.pop(source)
            if result in (MOVED, ATTACKER_WON):
                token_at[target] = token
        elif result in (ATTACKER_WON, BOTH_REMOVED):
            token_at.pop(target)
    return terms


def quiet_deduction_games(count: int, seed: int, plies=(12, 40), sides=(0, 1)):
    """Random games in which the opponent's deductions about our pieces never use its own hidden
    types (none of our attacks wins, none of its attacks loses), so the model's replay of them is
    exact; from the players of ``sides`` in turn."""
    rand = random.Random(seed)
    games = []
    while len(games) < count:
        layouts = (random_layout(rand), random_layout(rand))
        actions = random_game(rand, layouts, rand.randrange(*plies))
        observer = sides[len(games) % len(sides)]
        state = JunqiState.initial(layouts)
        for action in actions:
            state.apply(action)
        if state.is_terminal():
            continue
        if any(
            (r.player == observer and r.result == ATTACKER_WON)
            or (r.player != observer and r.result == ATTACKER_LOST)
            for r in state.history
        ):
            continue
        games.append((layouts, actions, observer, state))
    return games


# ---------------------------------------------------------------------- the likelihood
def test_the_factorised_likelihood_is_exact_when_the_other_tokens_are_known():
    """With every other token's type known (one-hot q), the mean-field likelihood is the exact
    one: each of a token's possible types against the core's full softmax over legal moves."""
    clear_cache()
    checked = informative = 0
    for layouts, actions, observer, state in quiet_deduction_games(4, seed=3, sides=(0,)):
        view = state.view(observer)
        evidence = gather_evidence(view)
        truth = [layouts[1 - observer].cells[cell] for cell in evidence.cells]
        q = np.zeros((25, 12))
        q[np.arange(25), truth] = 1.0
        mine = move_log_likelihoods(opponent_plies(view), q, TEMPERATURE)
        # Tokens that moved (their types change the played moves' scores) and one that did not.
        moved = [
            t
            for t in range(25)
            if evidence.masks[t] & ~MOBILE_MASK == 0 and bin(evidence.masks[t]).count("1") > 1
        ]
        still = [
            t
            for t in range(25)
            if evidence.masks[t] & ~MOBILE_MASK and evidence.posts[t] is not None
        ]
        for token in moved[:3] + still[:1]:
            kinds = [k for k in range(12) if evidence.masks[token] >> k & 1]
            exact = np.array(
                [exact_log_likelihood(layouts, actions, observer, {token: k}) for k in kinds]
            )
            ours = mine[token, kinds]
            assert np.allclose(ours - ours[0], exact - exact[0], atol=1e-9), (token, kinds)
            checked += 1
            informative += np.ptp(exact) > 0.05
    assert checked >= 8 and informative >= 4


def shuffling_moves(steps: int) -> list:
    """``steps`` rounds of both sides moving one piece between G2/F2 and a camp and back."""
    moves = []
    for step in range(steps):
        ours, theirs = (
            (("G2", "H1"), ("F2", "E1")) if step % 2 == 0 else (("H1", "G2"), ("E1", "F2"))
        )
        moves += [(*ours, MOVED), (*theirs, MOVED)]
    return moves


def test_the_factorised_likelihood_is_exact_near_the_no_collision_limit():
    """26 quiet plies (the no-collision urgency rises from the 20th): the same exactness, for
    the shuffling piece and a piece that never moved."""
    moves = shuffling_moves(13)
    state = play({"G2": "major"}, {"F2": "major"}, moves)
    assert state.quiet_plies == 26 and not state.is_terminal()
    layouts = (layout_with(0, {"G2": "major"}), layout_with(1, {"F2": "major"}))
    actions = [encode_action(a, b) for a, b, _ in moves]
    view = state.view(0)
    evidence = gather_evidence(view)
    truth = [layouts[1].cells[cell] for cell in evidence.cells]
    q = np.zeros((25, 12))
    q[np.arange(25), truth] = 1.0
    mine = move_log_likelihoods(opponent_plies(view), q, TEMPERATURE)
    for name in ("F2", "B2"):
        token = evidence.initial_posts.index(parse_post(name))
        kinds = [k for k in range(12) if evidence.masks[token] >> k & 1]
        exact = np.array([exact_log_likelihood(layouts, actions, 0, {token: k}) for k in kinds])
        ours = mine[token, kinds]
        assert np.ptp(exact) > 0.5
        assert np.allclose(ours - ours[0], exact - exact[0], atol=1e-9), name


def test_the_factorised_likelihood_is_exact_after_our_flag_is_announced():
    """Our marshal dies to a bomb, so the opponent learns where our flag is (its deductions and
    its progress target change): the same exactness on the plies after."""
    fixed0, fixed1 = (
        {"G0": "marshal", "G2": "major"},
        {"F0": "engineer", "E0": "bomb", "F2": "major"},
    )
    moves = [("G0", "F0", ATTACKER_WON), ("E0", "F0", BOTH_REMOVED)]
    for step in range(4):
        ours, theirs = (
            (("G2", "H1"), ("F2", "E1")) if step % 2 == 0 else (("H1", "G2"), ("E1", "F2"))
        )
        moves += [(*ours, MOVED), (*theirs, MOVED)]
    state = play(fixed0, fixed1, moves)
    assert state.flag_revealed[0] is not None and state.flag_revealed_ply[0] == 1
    layouts = (layout_with(0, fixed0), layout_with(1, fixed1))
    actions = [encode_action(a, b) for a, b, _ in moves]
    view = state.view(0)
    evidence = gather_evidence(view)
    truth = [layouts[1].cells[cell] for cell in evidence.cells]
    q = np.zeros((25, 12))
    q[np.arange(25), truth] = 1.0
    mine = move_log_likelihoods(opponent_plies(view), q, TEMPERATURE)
    for name in ("F2", "D0", "B2"):
        token = evidence.initial_posts.index(parse_post(name))
        kinds = [k for k in range(12) if evidence.masks[token] >> k & 1]
        exact = np.array([exact_log_likelihood(layouts, actions, 0, {token: k}) for k in kinds])
        ours = mine[token, kinds]
        assert np.ptp(exact) > 0.1, name
        assert np.allclose(ours - ours[0], exact - exact[0], atol=1e-9), name


def test_the_mean_field_combines_the_cores_move_sums():
    """For any marginals q of the other tokens, l_i(tau) = sum of n_t(tau) where i moved - sum
    over plies of log(S_t(i, tau) + sum_{j != i} E_qj S_t(j)), with S and n from the core."""
    clear_cache()
    rand = random.Random(5)
    for layouts, actions, observer, state in quiet_deduction_games(2, seed=9, plies=(10, 24)):
        view = state.view(observer)
        evidence = gather_evidence(view)
        masks = np.array([[m >> k & 1 for k in range(12)] for m in evidence.masks], dtype=float)
        q = masks * np.array([[rand.random() + 0.01 for _ in range(12)] for _ in range(25)])
        q /= q.sum(axis=1, keepdims=True)
        expected = np.zeros((25, 12))
        for sums, played, mover in reference_terms(layouts, actions, observer):
            table = np.zeros((25, 12))
            for (token, kind), value in sums.items():
                table[token, kind] = value
            per_token = (q * table).sum(axis=1)
            others = per_token.sum() - per_token
            expected -= np.log(table + others[:, None])
            for kind, value in played.items():
                expected[mover, kind] += value
        ours = move_log_likelihoods(opponent_plies(view), q, TEMPERATURE)
        allowed = masks > 0
        for token in range(25):
            row = allowed[token]
            difference = ours[token, row] - expected[token, row]
            assert np.allclose(difference, difference[0], atol=1e-9), token


def test_the_likelihood_on_hand_made_plies():
    """Two tokens, two plies: token 0 made a move that scores high as a marshal and low as an
    engineer; token 1 stood still with an attractive move as a marshal only."""
    marshal, engineer = MARSHAL, ENGINEER
    cells = np.array([0 * 12 + marshal, 0 * 12 + engineer, 1 * 12 + marshal, 1 * 12 + engineer])
    ply = OpponentPly(
        index=1,
        mover=0,
        cells=cells,
        scores=np.array([3.0, 0.0, 2.0, 0.0]),
        chosen=np.where(
            np.arange(12) == marshal, 3.0, np.where(np.arange(12) == engineer, 0.0, np.nan)
        ),
    )
    q = np.zeros((2, 12))
    q[:, [marshal, engineer]] = 0.5
    result = move_log_likelihoods([ply], q, 1.0)
    e = np.e
    other_for_0 = 0.5 * (e**2 + 1.0)
    other_for_1 = 0.5 * (e**3 + 1.0)
    assert result[0, marshal] - result[0, engineer] == pytest.approx(
        3.0 - np.log(e**3 + other_for_0) + np.log(1.0 + other_for_0)
    )
    assert result[1, marshal] - result[1, engineer] == pytest.approx(
        -np.log(e**2 + other_for_1) + np.log(1.0 + other_for_1)
    )
    assert result[0, marshal] > result[0, engineer] and result[1, marshal] < result[1, engineer]
    # The mover's types the played move is impossible for get -inf; a token that did not move
    # and has no move as some type only pays the others' sum there.
    assert np.isneginf(result[0, 5]) and np.isfinite(result[1, 5])
    assert result[1, 5] - result[1, engineer] == pytest.approx(
        -np.log(other_for_1) + np.log(1.0 + other_for_1)
    )


# ---------------------------------------------------------------------- moves move mass
def test_a_first_move_attack_puts_mass_on_the_strong_types():
    """The opponent's first move takes our lieutenant (about which it knew only the deployment
    constraints). The expected gain of that attack grows with the attacker's rank, so the model
    puts more mass on the marshal and general than the count tracker (which only knows the result
    allows marshal to captain), whichever the true attacker was."""
    post = parse_post("G0")
    matrices = []
    for attacker in ("marshal", "colonel", "captain"):
        state = play(
            {"G0": "lieutenant", "G2": "major"},
            {"F0": attacker},
            [("G2", "H1", MOVED), ("F0", "G0", ATTACKER_WON)],
        )
        view = state.view(0)
        model, count = ModelBelief.from_view(view), CountBelief.from_view(view)
        top, allowed = [MARSHAL, GENERAL], np.arange(12) <= CAPTAIN
        assert np.array_equal(count.probs(post) > 0, allowed)
        assert np.array_equal(model.probs(post) > 0, allowed)
        assert model.probs(post)[top].sum() > 2 * count.probs(post)[top].sum()
        loglik = model.log_likelihoods()[model.evidence.posts.index(post)]
        assert np.argmax(loglik) == MARSHAL and loglik[MARSHAL] > loglik[CAPTAIN] + 1.0
        matrices.append(model.token_matrix())
    assert all(np.array_equal(matrices[0], other) for other in matrices[1:])


def test_tokens_that_could_move_and_did_not_lean_to_immobile_types():
    """Both sides shuffle one piece in and out of a camp for 20 plies. The opponent's back-row
    pieces beside an empty camp had moves and never made one: the model gives them more mine mass
    than the count tracker, and the last row (no moves at all) correspondingly less; the shuffling
    piece, which would have had long railroad runs as an engineer, is all but surely none."""
    moves = shuffling_moves(10)
    state = play({"G2": "major"}, {"F2": "major"}, moves)
    view = state.view(0)
    model, count = ModelBelief.from_view(view), CountBelief.from_view(view)
    for name in ("B0", "B1", "B2", "B3", "B4"):
        assert state.destinations(parse_post(name))  # beside an empty camp
        assert model.probs(parse_post(name))[MINE] > count.probs(parse_post(name))[MINE] + 0.03
    assert model.probs(parse_post("B2"))[MINE] > count.probs(parse_post("B2"))[MINE] + 0.15
    for name in ("A0", "A2", "A4"):
        assert not state.destinations(parse_post(name))
        assert model.probs(parse_post(name))[MINE] < count.probs(parse_post(name))[MINE] - 0.05
    assert count.probs(parse_post("F2"))[ENGINEER] > 0.1
    assert model.probs(parse_post("F2"))[ENGINEER] < 1e-6


# ---------------------------------------------------------------------- no leak, shape, sampling
def test_the_model_reads_the_view_only():
    """Two games whose opponent armies differ in hidden types but give the same public record:
    the same matrix and the same samples, with the cache warm from the other game or cleared."""
    rand = random.Random(78)
    compared = differing = 0
    for _game in range(6):
        layouts = [random_layout(rand), random_layout(rand)]
        actions = random_game(rand, layouts, plies=rand.randrange(30, 90))
        observer = rand.randrange(2)
        alternative = list(layouts)
        alternative[1 - observer] = permuted_layout(layouts[1 - observer], rand, 3)
        real, other = JunqiState.initial(layouts), JunqiState.initial(alternative)
        for ply, action in enumerate(actions):
            if action not in other.legal_actions():
                break
            real.apply(action)
            other.apply(action)
            if real.history[-1] != other.history[-1] or real.flag_revealed != other.flag_revealed:
                break
            if ply % 13 or real.is_terminal():
                continue
            first = ModelBelief.from_view(real.view(observer))
            second = ModelBelief.from_view(other.view(observer))
            clear_cache()
            third = ModelBelief.from_view(other.view(observer))
            for belief in (second, third):
                assert np.array_equal(first.token_matrix(), belief.token_matrix())
                assert first.sample(random.Random(ply)) == belief.sample(random.Random(ply))
            compared += 1
            differing += real.kind != other.kind
    assert compared >= 10 and differing >= 5


def test_rows_columns_support_and_sampling():
    rand = random.Random(8)
    checked = moved = 0
    for _game in range(5):
        layouts = (random_layout(rand), random_layout(rand))
        state = JunqiState.initial(layouts)
        for action in random_game(rand, layouts, rand.randrange(40, 120)):
            state.apply(action)
        if state.is_terminal():
            continue
        for player in (0, 1):
            view = state.view(player)
            model = ModelBelief.from_view(view)
            tokens = model.token_matrix()
            evidence = model.evidence
            assert np.allclose(tokens.sum(axis=1), 1.0)
            assert np.allclose(tokens.sum(axis=0), ARMY, atol=1e-4)
            feasible = feasible_masks(
                evidence.masks, ARMY, complete_assignment(evidence.masks, ARMY)
            )
            allowed = np.array([[m >> k & 1 for k in range(12)] for m in feasible], dtype=bool)
            assert not tokens[~allowed].any()
            assert (tokens[allowed] > 0).all()  # the floor keeps every feasible pair
            truth = [layouts[1 - player].cells[cell] for cell in evidence.cells]
            assert all(tokens[t, k] > 0 for t, k in enumerate(truth))
            moved += not np.allclose(tokens, CountBelief(view, evidence).token_matrix(), atol=1e-3)
            for seed in range(5):
                sample = model.sample(random.Random(seed))
                assert all(
                    evidence.masks[evidence.posts.index(p)] >> k & 1 for p, k in sample.items()
                )
                determinized = model.sample_state(random.Random(seed))
                assert determinized.owner == list(view.owner)
                if view.current_player != player:
                    assert determinized.legal_actions()
            checked += 1
    assert checked >= 6 and moved == checked


def test_no_history_and_custom_positions_give_the_count_tracker():
    view = JunqiState.random_initial(3).view(0)
    assert np.allclose(
        ModelBelief.from_view(view).token_matrix(), CountBelief.from_view(view).token_matrix()
    )
    state = JunqiState.from_pieces({
        "L1": (0, "flag"), "K4": (0, "captain"), "H0": (0, "major"),
        "A1": (1, "flag"), "A3": (1, "mine"), "B4": (1, "major"), "G0": (1, "lieutenant"),
    })  # fmt: skip
    state.apply(encode_action("H0", "G0"))
    custom = state.view(0)
    assert np.allclose(
        ModelBelief.from_view(custom).matrix(), CountBelief.from_view(custom).matrix()
    )


# ---------------------------------------------------------------------- cache and registry
def test_the_cache_extends_games_and_stays_bounded():
    rand = random.Random(12)
    layouts = (random_layout(rand), random_layout(rand))
    state = JunqiState.initial(layouts)
    clear_cache()
    for action in random_game(rand, layouts, 40):
        state.apply(action)
        if state.is_terminal():
            break
        warm = ModelBelief.from_view(state.view(1))  # the game's replay grows ply by ply
    assert cached_games() == 1
    clear_cache()
    cold = ModelBelief.from_view(state.view(1))
    assert np.array_equal(warm.token_matrix(), cold.token_matrix())
    # A shorter view of a cached game reads a prefix of its plies.
    early = dataclasses.replace(state.view(1), history=state.history[:10])
    plies = opponent_plies(early)
    assert [p.index for p in plies] == [
        i for i, r in enumerate(state.history[:10]) if r.player == 0
    ]
    assert cached_games() == 1
    for _ in range(CACHE_GAMES + 3):
        other = JunqiState.random_initial(rand)
        other.apply(other.legal_actions()[0])
        ModelBelief.from_view(other.view(1))
    assert cached_games() == CACHE_GAMES


def test_registry_parameters_and_an_agent_playing_with_it():
    view = JunqiState.random_initial(0).view(1)
    assert BELIEFS["model"] is ModelBelief
    assert isinstance(make_belief("model", view), ModelBelief)
    with pytest.raises(ValueError, match="temperature must be > 0"):
        ModelBelief(view, temperature=0.0)
    agent = make_agent("greedy:belief=model", seed=1, game="junqi")
    state = JunqiState.random_initial(1)
    for _ in range(6):
        action = agent.choose(state.view(state.current_player), state.legal_actions())
        assert action in state.legal_actions()
        state.apply(action)


# ---------------------------------------------------------------------- the fitted weights
def _random_positions(count: int, seed: int, plies: int = 120):
    """``(starting state, actions)`` of random games, for their positions' choice sets."""
    rand = random.Random(seed)
    games = []
    for _ in range(count):
        layouts = (random_layout(rand), random_layout(rand))
        games.append((JunqiState.initial(layouts), random_game(rand, layouts, plies)))
    return games


def _simulated(data: ChoiceData, weights, seed: int) -> ChoiceData:
    """``data``'s choice sets with the played moves drawn from the logit of ``weights``."""
    rand = np.random.default_rng(seed)
    chosen = []
    for start, stop in zip(data.starts[:-1], data.starts[1:]):  # noqa: B905
        scores = data.features[start:stop] @ weights
        p = np.exp(scores - scores.max())
        chosen.append(start + rand.choice(stop - start, p=p / p.sum()))
    return dataclasses.replace(data, chosen=np.asarray(chosen))


def test_the_choice_sets_are_the_legal_moves_and_their_features():
    games = _random_positions(2, seed=4, plies=30)
    data = choice_data(games, FEATURE_CONFIG, MODEL_FEATURES)
    evaluation = JunqiEvaluation(FEATURE_CONFIG)
    columns = [FEATURE_NAMES.index(name) for name in MODEL_FEATURES]
    state, choice = games[0][0].clone(), 0
    for action in games[0][1]:
        legal = state.legal_actions()
        if len(legal) > 1:
            rows = data.features[data.starts[choice] : data.starts[choice + 1]]
            context = evaluation.state_context(state)
            assert np.array_equal(rows, [np.take(context.features(a), columns) for a in legal])
            assert data.chosen[choice] == data.starts[choice] + legal.index(action)
            choice += 1
        state.apply(action)
    assert data.names == MODEL_FEATURES and choice > 20


def test_the_likelihood_its_gradient_and_hessian():
    """The mean -log P(played move) against a direct sum of log-softmaxes; the gradient and the
    Hessian against central finite differences."""
    data = choice_data(_random_positions(2, seed=6, plies=40), FEATURE_CONFIG, MODEL_FEATURES)
    weights = np.array([0.1, -0.05, 0.08, 0.6, 5.0])
    value, gradient, hessian = negative_log_likelihood(weights, data)
    direct = [
        _logsumexp(data.features[a:b] @ weights) - data.features[c] @ weights
        for a, b, c in zip(data.starts[:-1], data.starts[1:], data.chosen)  # noqa: B905
    ]
    assert value == pytest.approx(np.mean(direct), rel=1e-12)
    step = 1e-5
    for k in range(len(weights)):
        shift = np.zeros(len(weights))
        shift[k] = step
        up, down = (negative_log_likelihood(weights + d, data) for d in (shift, -shift))
        assert gradient[k] == pytest.approx((up[0] - down[0]) / (2 * step), rel=1e-5, abs=1e-8)
        assert np.allclose(hessian[k], (up[1] - down[1]) / (2 * step), rtol=1e-4, atol=1e-7)
    assert np.allclose(hessian, hessian.T) and np.linalg.eigvalsh(hessian).min() > -1e-12


def test_the_fit_recovers_known_weights_from_simulated_choices():
    """Moves drawn from a logit with known weights on real positions (random games): the fit
    finds those weights within four standard errors, the well-measured ones within 10% (exposure
    and no_collision vary too little in random play for that), and its gradient vanishes there;
    the same data give the same fit."""
    data = choice_data(_random_positions(30, seed=2), FEATURE_CONFIG, MODEL_FEATURES)
    truth = np.array([FITTED_WEIGHTS[name] for name in MODEL_FEATURES])
    simulated = _simulated(data, truth, seed=0)
    fitted, summary = fit_weights(simulated)
    errors = np.array([summary["standard_errors"][name] for name in MODEL_FEATURES])
    assert np.all(np.abs(fitted - truth) <= 4.0 * errors), (fitted, truth, errors)
    for name in ("attack_gain", "protection", "progress"):
        k = MODEL_FEATURES.index(name)
        assert fitted[k] == pytest.approx(truth[k], rel=0.1), name
        assert errors[k] < 0.05 * abs(truth[k]), name
    assert summary["gradient_norm"] < 1e-8 and summary["mean_nll"] < summary["mean_nll_uniform"]
    assert summary["choices"] == data.choices > 3000
    again, _ = fit_weights(simulated)
    assert np.array_equal(fitted, again)


def test_a_feature_that_never_varies_keeps_a_zero_weight():
    sets = [(np.array([[1.0, 3.0], [0.0, 3.0], [2.0, 3.0]]), index) for index in (0, 2, 2, 1)]
    fitted, _ = fit_weights(ChoiceData.from_sets(("a", "b"), sets))
    assert fitted[1] == pytest.approx(0.0, abs=1e-6) and fitted[0] > 0.0
    with pytest.raises(ValueError, match="outside"):
        ChoiceData.from_sets(("a",), [(np.zeros((2, 1)), 2)])


def test_the_model_scores_with_the_fitted_weights():
    assert set(FITTED_WEIGHTS) == set(MODEL_FEATURES) == set(FEATURE_NAMES) - {"flag_defence"}
    evaluation, weights = model_scoring(FITTED)
    assert evaluation.config.name == FEATURE_CONFIG
    assert weights == tuple(FITTED_WEIGHTS.get(name, 0.0) for name in FEATURE_NAMES)
    assert ModelBelief.weights == FITTED and ModelBelief.temperature == FITTED_TEMPERATURE
    # An evaluation config's name scores with its own weights, flag_defence still left out.
    tuned, weights = model_scoring("tuned")
    assert weights[FEATURE_NAMES.index("flag_defence")] == 0.0
    assert weights[0] == tuned.config.weights[0]
