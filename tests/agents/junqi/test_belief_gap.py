"""``agents.junqi.mcts.belief_gap``: share 0 is the search as it is (the same moves as the agent
alone), share 1 reads every piece right, knowing some types moves those alone, each share plays
the same seat-swapped pairs, and runs of one setting merge (checked against hand counts)."""

from __future__ import annotations

import json
import math
import random

import pytest

from agents.arena.stats import wilson_interval
from agents.junqi.belief import UniformBelief
from agents.junqi.mcts import belief_gap
from agents.registry import make_agent
from tbw_envs.junqi import JunqiState
from tbw_envs.junqi.pieces import FLAG

AGENT = "ismcts:iterations=5"


def factory(spec: str):
    return lambda seed: make_agent(spec, seed=seed, game="junqi", variant=belief_gap.RULES)


def test_share_one_reads_every_piece_and_share_zero_changes_nothing():
    returns, before, after = belief_gap.play_pair(factory(AGENT), factory("greedy"), 1.0,
                                                  seed=2, pair=0)
    assert len(returns) == 2 and all(value in (-1.0, 0.0, 1.0) for value in returns)
    assert before and all(loss > 0 for loss in before)
    assert after == [0.0] * len(before)
    _, before, after = belief_gap.play_pair(factory(AGENT), factory("greedy"), 0.0, seed=2,
                                            pair=0)
    assert after == pytest.approx(before)


def test_share_zero_plays_the_moves_of_the_agent_alone():
    start = JunqiState.random_initial(random.Random(7))

    def game(wrap: bool) -> list[int]:
        agent = make_agent(AGENT, seed=11, game="junqi")
        opponent = make_agent("greedy", seed=12, game="junqi")
        wrapped = belief_gap.TruthShare(agent, 0.0) if wrap else None
        state, actions = start.clone(), []
        while not state.is_terminal() and len(actions) < 40:
            mover = state.current_player
            if wrapped is not None:
                wrapped.state = state
            player = agent if mover == 0 else opponent
            actions.append(player.act(state.view(mover)))
            state.apply(actions[-1])
        return actions

    assert game(wrap=True) == game(wrap=False)


def test_knowing_the_flag_draws_it_true_and_leaves_the_other_pieces_as_the_belief_had_them():
    rng = random.Random(5)
    state = JunqiState.random_initial(rng)
    agent = make_agent(AGENT, seed=3, game="junqi")
    own = agent.belief_of
    wrapped = belief_gap.TruthShare(agent, 1.0, frozenset({FLAG}))
    checked = 0
    for _ in range(60):
        view = state.view(state.current_player)
        if view.phase == "play":
            wrapped.state = state
            moved, belief = agent.belief_of(view), own(view)
            flag = next(post for post in view.opponent_posts() if state.kind[post] == FLAG)
            assert all(moved.sample(rng)[flag] == FLAG for _ in range(5))
            for post in view.opponent_posts():
                if post != flag:
                    assert list(moved.probs(post)) == list(belief.probs(post))
            checked += 1
        state.apply(rng.choice(state.legal_actions()))
        if state.is_terminal():
            break
    assert checked > 10
    assert all(0 < after <= before
               for before, after in zip(wrapped.before, wrapped.after, strict=True))


def test_the_log_loss_of_half_the_truth_on_a_uniform_belief_is_read_off_the_masks():
    """On the uniform tracker a piece whose evidence allows n types has p(true) = 1/n, so half
    the truth gives it 1/(2n) + 1/2; the loss is the mean of -log of that over the pieces."""
    rng = random.Random(3)
    state = JunqiState.random_initial(rng)
    for _ in range(8):
        state.apply(rng.choice(state.legal_actions()))
    view = state.view(state.current_player)
    belief = UniformBelief.from_view(view)
    truth = {post: state.kind[post] for post in view.opponent_posts()}
    allowed = {post: bin(belief.evidence.masks[token]).count("1")
               for token, post in enumerate(belief.evidence.posts) if post is not None}
    expected = [-math.log(0.5 / allowed[post] + 0.5) for post in view.opponent_posts()]
    assert belief_gap.log_loss(belief.toward(truth, 0.5), state) == pytest.approx(
        sum(expected) / len(expected))
    assert belief_gap.log_loss(belief.toward(truth, 1.0), state) == 0.0
    assert belief_gap.log_loss(belief, state) == pytest.approx(
        sum(math.log(n) for n in allowed.values()) / len(allowed))


def test_a_run_tallies_the_pairs_it_plays_and_asks_the_interval_of_its_points():
    asked = []

    def interval(points, games):
        asked.append((points, games))
        return wilson_interval(points, games)

    played = [belief_gap.play_pair(factory(AGENT), factory("greedy"), 0.5, seed=4, pair=pair)
              for pair in (0, 1)]
    [row] = belief_gap.run(factory(AGENT), factory("greedy"), [0.5], pairs=2, seed=4,
                           interval=interval, progress=False)
    returns = [value for pair_returns, _, _ in played for value in pair_returns]
    before = [loss for _, pair_before, _ in played for loss in pair_before]
    after = [loss for _, _, pair_after in played for loss in pair_after]
    points = sum((value + 1) / 2 for value in returns)
    assert row["share"] == 0.5 and row["games"] == 4
    assert (row["wins"], row["draws"], row["losses"]) == (
        sum(v > 0 for v in returns), sum(v == 0 for v in returns), sum(v < 0 for v in returns))
    assert row["score"] == points / 4 and asked == [(points, 4)]
    assert row["ci_95"] == list(wilson_interval(points, 4))
    assert row["moves"] == len(before) > 0
    assert row["log_loss_belief"] == pytest.approx(sum(before) / len(before))
    assert row["log_loss_used"] == pytest.approx(sum(after) / len(after))
    assert row["log_loss_used"] < row["log_loss_belief"]


def test_only_the_searches_with_a_belief_qualify():
    assert belief_gap.is_belief_search(make_agent("ucbmcts:iterations=3", game="junqi"))
    assert belief_gap.is_belief_search(make_agent("mcts:iterations=3", game="junqi"))
    assert not belief_gap.is_belief_search(make_agent("greedy", game="junqi"))
    assert not belief_gap.is_belief_search(make_agent("random", game="junqi"))


ROW = {"games": 2, "wins": 1, "draws": 1, "losses": 0, "score": 0.75, "ci_95": [0.2, 0.97],
       "log_loss_belief": 2.0, "log_loss_used": 1.0, "moves": 10}


def write_run(folder, share, before_know=False, **setting):
    folder.mkdir()
    data = {"command": "x", "agent": "ismcts", "opponent": "greedy", "seed": 1, "pairs": 1,
            "know": None, **setting, "rows": [{"share": share, **ROW}]}
    if before_know:  # a run from before --know has no "know"
        del data["know"]
    (folder / "results.json").write_text(json.dumps(data), encoding="utf-8")
    return folder


def test_merged_rows_join_runs_of_one_setting_by_share(tmp_path):
    runs = [write_run(tmp_path / "b", 1.0), write_run(tmp_path / "a", 0.0),
            write_run(tmp_path / "c", 0.5, before_know=True)]
    setting, rows = belief_gap.merged_rows(runs)
    assert setting == {"agent": "ismcts", "opponent": "greedy", "seed": 1, "pairs": 1,
                       "know": None}
    assert [row["share"] for row in rows] == [0.0, 0.5, 1.0]


@pytest.mark.parametrize("other, message", [
    ({"seed": 2}, "played {'agent': 'ismcts', 'opponent': 'greedy', 'seed': 2"),
    ({"know": ["flag"]}, "'know': ['flag']"),
    ({"pairs": 3}, "'pairs': 3"),
])
def test_merged_rows_refuse_runs_of_another_setting(tmp_path, other, message):
    runs = [write_run(tmp_path / "a", 0.0), write_run(tmp_path / "b", 1.0, **other)]
    with pytest.raises(ValueError, match="--merge: .* played") as info:
        belief_gap.merged_rows(runs)
    assert message in str(info.value)


def test_merged_rows_refuse_a_share_played_twice_and_an_unreadable_run(tmp_path):
    runs = [write_run(tmp_path / "a", 0.5), write_run(tmp_path / "b", 0.5)]
    with pytest.raises(ValueError, match=r"a share was played twice \(\[0.5, 0.5\]\)"):
        belief_gap.merged_rows(runs)
    with pytest.raises(ValueError, match="cannot read .*results.json"):
        belief_gap.merged_rows([tmp_path / "none"])
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "results.json").write_text('{"agent": "x"}', encoding="utf-8")
    with pytest.raises(ValueError, match="cannot read .*'opponent'"):
        belief_gap.merged_rows([broken])


def test_the_table_has_a_row_a_share():
    rows = [{"share": 0.0, **ROW}, {"share": 1.0, **ROW, "log_loss_used": 0.0}]
    lines = belief_gap.table(rows, "ismcts", "greedy").splitlines()
    assert lines[0] == "ismcts against greedy, its belief moved toward the truth"
    assert lines[3] == "| 0 | 1-1-0 | 0.750 | [0.200, 0.970] | 2.000 | 1.000 | 10 |"
    assert lines[4] == "| 1 | 1-1-0 | 0.750 | [0.200, 0.970] | 2.000 | 0.000 | 10 |"
    known = belief_gap.table(rows, "ismcts", "greedy", ["flag", "marshal"])
    assert known.splitlines()[0] == ("ismcts against greedy, at share 1 knowing its opponent's "
                                     "flag, marshal alone")
