"""Opponent belief trackers (``agents.junqi.belief``): the priors, one hand-made game per evidence
rule, no leak of hidden identities, the registry and errors, and the ``flag_revealed_ply`` field
of the core they read. Soundness on recorded games is in test_belief_soundness.py."""

from __future__ import annotations

import dataclasses
import math
import random

import numpy as np
import pytest

from agents.junqi.belief import (
    BELIEFS,
    DEFAULT_BELIEF,
    LAYOUT_MARGINALS,
    CountBelief,
    PaperBelief,
    TokenSampler,
    UniformBelief,
    complete_assignment,
    feasible_masks,
    gather_evidence,
    make_belief,
)
from tbw_envs.junqi import (
    ATTACKER_LOST,
    ATTACKER_WON,
    BOTH_REMOVED,
    MOVED,
    JunqiState,
    Layout,
    encode_action,
    parse_post,
    piece_kind,
    random_layout,
    validate_layout,
)
from tbw_envs.junqi.layout import (
    HEADQUARTERS_CELLS,
    LAYOUT_CELLS,
    PIECE_CELLS,
    cell_allows,
    post_to_cell,
)
from tbw_envs.junqi.pieces import (
    ALL_TYPES_MASK,
    BOMB,
    ENGINEER,
    FLAG,
    MAJOR,
    MARSHAL,
    MINE,
    NUM_PIECE_TYPES,
)
from tests.helpers.junqi_games import permuted_layout, random_game
from tests.helpers.junqi_hand import ARMY

TRACKERS = (PaperBelief, CountBelief, UniformBelief)

# Bian, Li and Wang 2024, Table 1 ("Probability distribution table of chess pieces in the initial
# situation of enemy base camp"): Flag 0.5, Bomb 0.15, Platoon 0.15, Landmine 0.1, Battalion 0.05,
# Company 0.05, Others 0. Platoon = lieutenant (排长), battalion = major (营长), company = captain
# (连长).
PAPER_TABLE_1 = {"flag": 0.5, "bomb": 0.15, "lieutenant": 0.15, "mine": 0.1, "major": 0.05,
                 "captain": 0.05}  # fmt: skip


def bits(*names) -> int:
    return sum(1 << piece_kind(name) for name in names)


RANKED = ("marshal", "general", "major_general", "brigadier", "colonel", "major", "captain",
          "lieutenant")  # fmt: skip
# The ranked types that outrank each one: RANKS_ABOVE["lieutenant"] = marshal ... captain.
RANKS_ABOVE = {name: bits(*RANKED[:n]) for n, name in enumerate(RANKED)}


# ---------------------------------------------------------------------- helpers
def layout_with(player: int, fixed: dict[str, str]) -> Layout:
    """A legal layout for ``player`` with the given pieces on the given absolute posts; the rest
    filled deterministically (flag, mines and bombs in the back, then the ranks in order)."""
    cells: list[int | None] = [None] * LAYOUT_CELLS
    remaining = list(ARMY)
    for name, piece in fixed.items():
        cell, kind = post_to_cell(parse_post(name), player), piece_kind(piece)
        assert cell is not None and cell_allows(cell, kind), (name, piece)
        cells[cell] = kind
        remaining[kind] -= 1
    free = [cell for cell in PIECE_CELLS if cells[cell] is None]
    for kind in (FLAG, MINE, BOMB):
        for _ in range(remaining[kind]):
            cell = next(c for c in sorted(free, reverse=True) if cell_allows(c, kind))
            cells[cell] = kind
            free.remove(cell)
        remaining[kind] = 0
    rest = [kind for kind in range(NUM_PIECE_TYPES) for _ in range(remaining[kind])]
    for cell, kind in zip(sorted(free), rest, strict=True):
        cells[cell] = kind
    layout = Layout(tuple(cells))
    validate_layout(layout)
    return layout


def play(fixed0, fixed1, moves, rules="ccgc") -> JunqiState:
    """A game from two hand-made layouts; ``moves`` are (from, to, expected result)."""
    state = JunqiState.initial((layout_with(0, fixed0), layout_with(1, fixed1)), rules)
    for source, target, expected in moves:
        assert state.apply(encode_action(source, target)) == expected, (source, target)
    return state


def token_of(evidence, initial_post: str) -> int:
    return evidence.initial_posts.index(parse_post(initial_post))


# ---------------------------------------------------------------------- core: flag_revealed_ply
def test_flag_revealed_ply_names_the_ply_that_removed_the_marshal():
    state = play({"G0": "marshal"}, {"F0": "engineer", "E0": "bomb"}, [
        ("G0", "F0", ATTACKER_WON), ("E0", "F0", BOTH_REMOVED),
    ])  # fmt: skip
    assert state.flag_revealed_ply == [1, None] and state.flag_revealed[0] is not None
    assert state.clone().flag_revealed_ply == [1, None]
    view = state.view(1)
    assert view.flag_revealed_ply == (1, None)
    assert view.determinize({p: 7 for p in view.opponent_posts()}).flag_revealed_ply == [1, None]
    # Both marshals traded on one ply: both flags announced at that ply.
    trade = play({"G0": "marshal"}, {"F0": "marshal"}, [("G0", "F0", BOTH_REMOVED)])
    assert trade.flag_revealed_ply == [0, 0] and trade.view(0).flag_revealed_ply == (0, 0)
    # No announcement: None; a flag announced before play (custom positions): no ply.
    assert JunqiState.random_initial(1).view(0).flag_revealed_ply == (None, None)
    custom = JunqiState.from_pieces(
        {"L1": (0, "flag"), "K0": (0, "major"), "A1": (1, "flag"), "B0": (1, "major")},
        revealed_flags=(1,),
    )
    assert custom.flag_revealed == [None, parse_post("A1")]
    assert custom.flag_revealed_ply == [None, None]


# ---------------------------------------------------------------------- priors
def test_uniform_layout_marginals_are_exact_and_match_random_layouts():
    hq = sorted(HEADQUARTERS_CELLS)[0]
    assert LAYOUT_MARGINALS[hq, FLAG] == pytest.approx(1 / 2)
    assert LAYOUT_MARGINALS[hq, MINE] == pytest.approx(1 / 6)
    assert LAYOUT_MARGINALS[hq, BOMB] == pytest.approx(1 / 24)
    assert LAYOUT_MARGINALS[hq, ENGINEER] == pytest.approx(7 / 24 * 3 / 19)
    back = 29  # back row, column 4
    assert LAYOUT_MARGINALS[back, MINE] == pytest.approx(1 / 3)
    assert LAYOUT_MARGINALS[back, BOMB] == pytest.approx(1 / 12)
    assert LAYOUT_MARGINALS[10, BOMB] == pytest.approx(1 / 8)  # a middle row
    assert LAYOUT_MARGINALS[0, BOMB] == 0 and LAYOUT_MARGINALS[0, MARSHAL] == pytest.approx(1 / 19)
    assert np.allclose(LAYOUT_MARGINALS.sum(axis=0), ARMY)
    rows = LAYOUT_MARGINALS.sum(axis=1)
    assert np.allclose(rows[list(PIECE_CELLS)], 1.0) and rows.sum() == pytest.approx(25)
    rand = random.Random(5)
    samples = 20000
    counts = np.zeros_like(LAYOUT_MARGINALS)
    for _ in range(samples):
        for cell, kind in enumerate(random_layout(rand).cells):
            if kind is not None:
                counts[cell, kind] += 1
    observed = counts / samples
    sigma = np.sqrt(LAYOUT_MARGINALS * (1 - LAYOUT_MARGINALS) / samples)
    assert np.all(np.abs(observed - LAYOUT_MARGINALS) <= 5 * sigma + 1e-9)


def test_paper_prior_is_table_1_on_headquarters():
    # The prior of a headquarters token is (1 - eps) x Table 1 + eps x the exact marginal of a
    # headquarters (flag 1/2, mine 1/6, bomb 1/24, every other type 7/24 x count / 19), with a
    # small eps so that Table 1's zeros can recover. eps is read off a type Table 1 gives 0; then
    # Table 1 itself must come back exactly.
    table = np.zeros(NUM_PIECE_TYPES)
    for name, p in PAPER_TABLE_1.items():
        table[piece_kind(name)] = p
    assert table.sum() == pytest.approx(1.0)  # "the probability of all pieces must sum to 1"
    marginal = np.array([7 / 24 * count / 19 for count in ARMY])
    marginal[FLAG], marginal[MINE], marginal[BOMB] = 1 / 2, 1 / 6, 1 / 24
    view = JunqiState.random_initial(3).view(0)
    belief = PaperBelief.from_view(view)
    for post in (parse_post("A1"), parse_post("A3")):
        row = belief.probs(post)
        assert row.sum() == pytest.approx(1.0)
        eps = row[ENGINEER] / marginal[ENGINEER]
        assert 0 < eps <= 0.02
        np.testing.assert_allclose((row - eps * marginal) / (1 - eps), table, atol=1e-9)
        assert 0 < row[ENGINEER] < 0.001 and 0 < row[MARSHAL] < 0.001
    # Elsewhere the exact marginal; with no evidence at all the count fit keeps it.
    cell = post_to_cell(parse_post("C0"), 1)
    assert np.allclose(belief.probs(parse_post("C0")), LAYOUT_MARGINALS[cell])
    count = CountBelief.from_view(view)
    for post in view.opponent_posts():
        assert np.allclose(count.probs(post), LAYOUT_MARGINALS[post_to_cell(post, 1)], atol=1e-6)


# ---------------------------------------------------------------------- hand-made evidence
def test_a_piece_that_moved_is_neither_mine_nor_flag():
    state = play({"K0": "major"}, {}, [("K0", "J1", MOVED)])
    view = state.view(1)
    evidence = gather_evidence(view)
    moved, still = token_of(evidence, "K0"), token_of(evidence, "K1")
    assert evidence.masks[moved] == ALL_TYPES_MASK & ~bits("mine", "flag")
    assert evidence.masks[still] == ALL_TYPES_MASK & ~bits("flag")
    assert evidence.posts[moved] == parse_post("J1")
    for cls in TRACKERS:
        row = cls.from_view(view).probs(parse_post("J1"))
        assert row[MINE] == 0 and row[FLAG] == 0 and row.sum() == pytest.approx(1.0)


def test_an_engineer_only_move_identifies_an_engineer():
    state = play({"G0": "lieutenant", "G1": "engineer"}, {"F0": "major"}, [
        ("G0", "H1", MOVED), ("F0", "E1", MOVED), ("G1", "F0", MOVED),  # G1-G0-F0: a turn
    ])  # fmt: skip
    assert state.history[-1].engineer_only
    view = state.view(1)
    evidence = gather_evidence(view)
    assert evidence.masks[token_of(evidence, "G1")] == bits("engineer")
    for cls in TRACKERS:
        assert cls.from_view(view).probs(parse_post("F0"))[ENGINEER] == pytest.approx(1.0)


@pytest.mark.parametrize(
    "fixed0, fixed1, moves, token, expected, living",
    [
        # We attack and lose: the defender outranks our captain (front row: no mine, no bomb).
        ({"G0": "captain"}, {"F0": "major"}, [("G0", "F0", ATTACKER_LOST)], "F0",
         RANKS_ABOVE["captain"], True),
        # We attack and win: the defender is below our major.
        ({"G0": "major"}, {"F0": "captain"}, [("G0", "F0", ATTACKER_WON)], "F0",
         bits("captain", "lieutenant", "engineer"), False),
        # We attack and both go: an equal rank (a bomb may not stand in the front row).
        ({"G0": "captain"}, {"F0": "captain"}, [("G0", "F0", BOTH_REMOVED)], "F0",
         bits("captain"), False),
        # It attacks and wins: it outranks our lieutenant.
        ({"G0": "lieutenant"}, {"F0": "colonel"}, [("G1", "H1", MOVED),
         ("F0", "G0", ATTACKER_WON)], "F0", RANKS_ABOVE["lieutenant"], True),
        # It attacks and loses: a mobile piece below our captain.
        ({"G0": "captain"}, {"F0": "engineer"}, [("G1", "H1", MOVED),
         ("F0", "G0", ATTACKER_LOST)], "F0", bits("lieutenant", "engineer"), False),
        # It attacks and both go: an equal rank or a bomb (a second-row piece may be a bomb).
        ({"G0": "major"}, {"F0": "engineer", "E0": "bomb"}, [("G0", "F0", ATTACKER_WON),
         ("E0", "F0", BOTH_REMOVED)], "E0", bits("major", "bomb"), False),
    ],
)  # fmt: skip
def test_combat_evidence_in_both_directions(fixed0, fixed1, moves, token, expected, living):
    state = play(fixed0, fixed1, moves)
    view = state.view(0)
    evidence = gather_evidence(view)
    index = token_of(evidence, token)
    assert evidence.masks[index] == expected
    assert (evidence.posts[index] is not None) == living
    assert (evidence.removed_ply[index] is None) == living
    if not living:
        assert evidence.removed_ply[index] == len(moves) - 1
    for cls in TRACKERS:
        row = cls.from_view(view).token_matrix()[index]
        assert row.sum() == pytest.approx(1.0)
        assert all((row[k] > 0) == bool(expected >> k & 1) for k in range(NUM_PIECE_TYPES))


@pytest.mark.parametrize(
    "announce, expected", [(True, bits("bomb")), (False, bits("marshal", "bomb"))]
)
def test_a_bomb_trade_with_our_marshal_and_the_marshal_deduction(announce, expected):
    # Its piece trades with our marshal: a marshal or a bomb. Had it been its marshal, its flag
    # would have been announced; with the announcement rule on, it was the bomb.
    state = play({"G0": "marshal"}, {"F0": "engineer", "E0": "bomb"}, [
        ("G0", "F0", ATTACKER_WON), ("E0", "F0", BOTH_REMOVED),
    ], rules={"flag_revealed_on_marshal_death": announce})  # fmt: skip
    assert state.flag_revealed[1] is None
    view = state.view(0)
    evidence = gather_evidence(view)
    assert evidence.masks[token_of(evidence, "E0")] == expected
    count = CountBelief.from_view(view)
    if announce:
        assert count.matrix()[:, MARSHAL].sum() == pytest.approx(1.0)  # the marshal lives


def test_a_piece_taken_while_the_game_goes_on_was_not_the_flag():
    # Our marshal fights its way up column 0 and takes the piece in headquarters A1: the game
    # goes on, so that piece was not the flag (a sample that made it the flag would end early).
    fixed1 = {"F0": "engineer", "E0": "lieutenant", "D0": "lieutenant", "C0": "captain",
              "B0": "captain", "B1": "major", "A1": "lieutenant", "F4": "colonel"}  # fmt: skip
    path = ["G0", "F0", "E0", "D0", "C0", "B0", "B1", "A1"]
    moves = []
    for step, (source, target) in enumerate(zip(path[:-1], path[1:], strict=True)):
        if step:
            moves.append(("F4", "E3", MOVED) if step % 2 else ("E3", "F4", MOVED))
        moves.append((source, target, ATTACKER_WON))
    state = play({"G0": "marshal"}, fixed1, moves)
    assert not state.is_terminal()
    view = state.view(0)
    evidence = gather_evidence(view)
    assert evidence.masks[token_of(evidence, "A1")] == bits(*RANKED[1:], "engineer")
    for cls in TRACKERS:
        assert cls.from_view(view).token_matrix()[token_of(evidence, "A1"), FLAG] == 0


def test_flag_announcement_marks_the_flag_and_the_removed_marshal():
    state = play({"G0": "marshal"}, {"F0": "marshal"}, [("G0", "F0", BOTH_REMOVED)])
    view = state.view(0)
    flag_post = view.flag_revealed[1]
    assert flag_post is not None and view.flag_revealed_ply[1] == 0
    evidence = gather_evidence(view)
    marshal, flag = token_of(evidence, "F0"), evidence.initial_posts.index(flag_post)
    for token, mask in enumerate(evidence.masks):
        if token == marshal:
            assert mask == bits("marshal")
        elif token == flag:
            assert mask == bits("flag")
        else:
            assert mask & bits("marshal", "flag") == 0
    for cls in TRACKERS:
        belief = cls.from_view(view)
        assert belief.probs(flag_post)[FLAG] == pytest.approx(1.0)
        assert belief.matrix()[:, MARSHAL].sum() == 0
        assert belief.matrix()[:, FLAG].sum() == pytest.approx(1.0)
        assert belief.token_matrix()[marshal, MARSHAL] == pytest.approx(1.0)


def test_count_belief_uses_the_army_composition():
    # Two of its pieces trade with our two majors: each was a major or a bomb. Its army has two
    # of each, so those two removed tokens take bomb mass away from the living pieces; the
    # paper's independent tables cannot see that.
    state = play({"G0": "major", "G2": "major"}, {"F0": "engineer", "E0": "bomb", "F2": "engineer",
                                                  "E2": "bomb"}, [
        ("G0", "F0", ATTACKER_WON), ("E0", "F0", BOTH_REMOVED),
        ("G2", "F2", ATTACKER_WON), ("E2", "F2", BOTH_REMOVED),
    ])  # fmt: skip
    view = state.view(0)
    count, paper = CountBelief.from_view(view), PaperBelief.from_view(view)
    tokens = count.token_matrix()
    assert np.allclose(tokens.sum(axis=0), ARMY, atol=1e-4)
    assert np.allclose(tokens.sum(axis=1), 1.0)
    # The paper tracker keeps the prior bomb mass on every living piece; the count tracker
    # moves some of it to the two removed tokens that might be the bombs.
    assert count.matrix()[:, BOMB].sum() < paper.matrix()[:, BOMB].sum()


def test_feasible_masks_apply_counting_deductions():
    # Three tokens that can only be the flag or the marshal: infeasible. Two: each takes one.
    masks = [bits("flag", "marshal")] * 2 + [ALL_TYPES_MASK & ~bits("flag", "marshal")] * 23
    assign = complete_assignment(masks, ARMY)
    assert sorted(assign[:2]) == [MARSHAL, FLAG]
    # A token that may be a bomb when two others must be the bombs: the bomb is cut away.
    masks = [bits("bomb")] * 2 + [bits("bomb", "major")] + [ALL_TYPES_MASK & ~bits("bomb")] * 22
    assign = complete_assignment(masks, ARMY)
    assert feasible_masks(masks, ARMY, assign)[2] == bits("major")
    with pytest.raises(ValueError, match="inconsistent evidence"):
        complete_assignment([bits("flag", "marshal")] * 3 + [ALL_TYPES_MASK] * 22, ARMY)
    # The sampler honours every mask and the counts exactly.
    sampler = TokenSampler(masks, [[1.0] * NUM_PIECE_TYPES] * 25)
    rand = random.Random(0)
    for _ in range(200):
        kinds = sampler.draw(rand)
        assert kinds[2] == MAJOR and [kinds.count(k) for k in range(12)] == list(ARMY)
        assert all(masks[t] >> kinds[t] & 1 for t in range(25))


# ---------------------------------------------------------------------- no leak
def test_beliefs_do_not_change_under_consistent_permutations_of_hidden_pieces():
    rand = random.Random(78)
    compared = differing = 0
    for _game in range(25):
        layouts = [random_layout(rand), random_layout(rand)]
        actions = random_game(rand, layouts, plies=rand.randrange(10, 160))
        observer = rand.randrange(2)
        alternative = list(layouts)
        alternative[1 - observer] = permuted_layout(layouts[1 - observer], rand,
                                                    rand.randrange(1, 4))
        real, other = JunqiState.initial(layouts), JunqiState.initial(alternative)
        for ply, action in enumerate([None, *actions]):
            if action is not None:
                if action not in other.legal_actions():
                    break
                real.apply(action)
                other.apply(action)
                if real.history[-1] != other.history[-1]:
                    break  # the public record diverged
                if real.flag_revealed != other.flag_revealed:
                    break
            if ply % 9:
                continue
            views = real.view(observer), other.view(observer)
            for cls in TRACKERS:
                first, second = (cls.from_view(v) for v in views)
                assert np.array_equal(first.matrix(), second.matrix())
                assert np.array_equal(first.token_matrix(), second.token_matrix())
                assert first.sample(random.Random(ply)) == second.sample(random.Random(ply))
            compared += 1
            differing += real.kind != other.kind
            if real.is_terminal():
                break
    assert compared > 100 and differing > 50


# ---------------------------------------------------------------------- api and errors
def test_registry_and_errors():
    assert set(BELIEFS) == {"paper", "count", "uniform", "model"} and DEFAULT_BELIEF in BELIEFS
    view = JunqiState.random_initial(0).view(1)
    for name, cls in BELIEFS.items():
        belief = make_belief(name, view)
        assert isinstance(belief, cls) and belief.name == name
        assert belief.matrix().shape == (60, 12) and belief.probs(0).shape == (12,)
    with pytest.raises(ValueError,
                       match="unknown belief 'oracle'; known: count, model, paper, uniform"):
        make_belief("oracle", view)
    with pytest.raises(ValueError, match="play phase"):
        make_belief("count", JunqiState.new_deployment().view(0))
    # Records that contradict the rules: a flag announced off a headquarters, or on a post the
    # opponent never deployed on.
    view = JunqiState.random_initial(0).view(0)  # the opponent is player 1 (rows A-F)
    off_headquarters = dataclasses.replace(view, flag_revealed=(None, parse_post("C0")))
    with pytest.raises(ValueError, match="inconsistent evidence: no type fits .* C0"):
        make_belief("count", off_headquarters)
    with pytest.raises(ValueError, match="not a deployment post"):
        make_belief("uniform", dataclasses.replace(view, flag_revealed=(None, parse_post("L1"))))
    # A history that does not replay from the deployed layouts.
    state = JunqiState.random_initial(0)
    state.apply(state.legal_actions()[0])
    record = state.history[0]
    broken = dataclasses.replace(
        state.view(1), history=(record._replace(from_post=parse_post("A0")),)
    )
    with pytest.raises(ValueError, match="does not replay"):
        make_belief("paper", broken)


def test_custom_positions_use_the_cores_masks_and_upper_counts():
    state = JunqiState.from_pieces({
        "L1": (0, "flag"), "K4": (0, "captain"), "H0": (0, "major"),
        "A1": (1, "flag"), "A3": (1, "mine"), "B4": (1, "major"), "G0": (1, "lieutenant"),
    })  # fmt: skip
    state.apply(encode_action("H0", "G0"))  # our major beats it
    view = state.view(0)
    rand = random.Random(0)
    for cls in TRACKERS:
        belief = cls.from_view(view)
        assert not belief.evidence.full_army
        matrix = belief.matrix()
        for post in view.opponent_posts():
            assert matrix[post].sum() == pytest.approx(1.0)
            assert matrix[post, state.kind[post]] > 0
        for _ in range(20):
            sample = belief.sample(rand)
            assert all(view.possible[p] >> k & 1 for p, k in sample.items())
            assert list(sample.values()).count(FLAG) <= 1
            # Player 1 is to move: the sample leaves it a legal move.
            assert belief.sample_state(rand).legal_actions()
    own_turn = make_belief("count", state.view(1)).sample_state(rand)
    assert own_turn.legal_actions() == state.legal_actions()


def _midgame(seed: int):
    rand = random.Random(seed)
    state = JunqiState.random_initial(rand)
    for _ in range(30):
        state.apply(rand.choice(state.legal_actions()))
    return state


@pytest.mark.parametrize("name", ["count", "model"])
def test_a_belief_moved_toward_the_truth_mixes_each_row_with_its_true_type(name):
    """``toward(truth, share)``: row = (1 - share) x row + share x one-hot(true type); share 0
    leaves the belief as it was, share 1 samples the true state every time, and the tracker it
    came from is untouched."""
    state = _midgame(4)
    view = state.view(state.current_player)
    belief = make_belief(name, view)
    truth = {post: state.kind[post] for post in view.opponent_posts()}
    original = belief.matrix()
    assert np.array_equal(belief.toward(truth, 0).matrix(), original)
    half = belief.toward(truth, 0.5)
    for post, kind in truth.items():
        expected = 0.5 * original[post]
        expected[kind] += 0.5
        assert half.probs(post) == pytest.approx(expected)
    assert np.array_equal(belief.matrix(), original)
    oracle = belief.toward(truth, 1.0)
    rng = random.Random(0)
    for _ in range(5):
        assert oracle.sample(rng) == truth
        world = oracle.sample_state(rng)
        assert [world.kind[p] for p in range(len(world.kind))] == list(state.kind)


def test_toward_refuses_a_bad_share_or_a_truth_the_evidence_rules_out():
    state = _midgame(5)
    view = state.view(state.current_player)
    belief = make_belief("count", view)
    truth = {post: state.kind[post] for post in view.opponent_posts()}
    for share in (-0.1, 1.5, math.nan, True, "half"):
        with pytest.raises(ValueError, match="share must be a number in"):
            belief.toward(truth, share)
    missing = dict(truth)
    missing.pop(next(iter(missing)))
    with pytest.raises(ValueError, match="does not allow"):
        belief.toward(missing, 0.5)
    moved = next(post for post in truth if view.moved[post])  # so not a mine
    with pytest.raises(ValueError, match=f"post {moved} the type {MINE}"):
        belief.toward({**truth, moved: MINE}, 0.5)


@pytest.mark.parametrize("name", ["count", "model"])
def test_a_belief_knowing_some_pieces_draws_them_true_and_keeps_the_counts_for_the_rest(name):
    """``knowing({post: type})``: those pieces are drawn as their types every time, no other
    piece is drawn as a type they use up (the flag, the marshal), the rest keep their rows, and
    the tracker it came from is untouched."""
    state = _midgame(6)
    view = state.view(state.current_player)
    belief = make_belief(name, view)
    original = belief.matrix()
    unique = {post: state.kind[post] for post in view.opponent_posts()
              if state.kind[post] in (FLAG, MARSHAL)}
    assert unique  # the flag is alive (the game goes on)
    known = belief.knowing(unique)
    rng = random.Random(1)
    for _ in range(50):
        sample = known.sample(rng)
        for post, kind in sample.items():
            if post in unique:
                assert kind == unique[post]
            else:
                assert kind not in unique.values()
    for post in view.opponent_posts():
        if post in unique:
            assert known.probs(post)[unique[post]] == 1.0
        else:
            assert np.array_equal(known.probs(post), original[post])
    assert np.array_equal(belief.matrix(), original)
    unknown = [post for post in view.opponent_posts() if post not in unique]
    drawn = {kind for _ in range(50) for post, kind in belief.sample(rng).items()
             if post in unknown}
    assert drawn & set(unique.values())  # without the knowledge they were drawn elsewhere


def test_knowing_refuses_an_empty_post_or_a_type_the_evidence_rules_out():
    state = _midgame(5)
    view = state.view(state.current_player)
    belief = make_belief("count", view)
    empty = next(post for post in range(len(state.kind)) if post not in view.opponent_posts())
    with pytest.raises(ValueError, match=f"post {empty} holds no living opponent piece"):
        belief.knowing({empty: FLAG})
    moved = next(post for post in view.opponent_posts() if view.moved[post])
    with pytest.raises(ValueError, match=f"post {moved} cannot hold the type {MINE}"):
        belief.knowing({moved: MINE})
    for bad in (True, 12, -1, "flag"):
        with pytest.raises(ValueError, match="cannot hold the type"):
            belief.knowing({moved: bad})
    kind = state.kind[moved]
    assert belief.knowing({moved: np.int64(kind)}).probs(moved)[kind] == 1.0
    flags = [post for post in view.opponent_posts() if view.possible[post] >> FLAG & 1]
    assert len(flags) == 2  # both headquarters may still hold it
    with pytest.raises(ValueError, match="not consistent with the army counts"):
        belief.knowing({flags[0]: FLAG, flags[1]: FLAG})
