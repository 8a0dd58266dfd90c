"""The pinned ladder: the one-dimensional fit against hand-computed cases, its profile-likelihood
interval, the ladder file's checks, and short end-to-end runs of both games."""

from __future__ import annotations

import itertools
import math

import pytest
import yaml

from agents.arena.ladder import run_ladder
from agents.arena.ladder_config import LadderConfigError, bundled_ladder_dir, load_ladder
from agents.arena.ladder_fit import fit_rating, rating_interval
from agents.arena.stats import PRIOR_GAMES
from agents.junqi.mcts import MaterialLeaf
from agents.registry import make_agent
from tests.helpers.quick_games import QUICK_JUNQI, SKIRMISH


def test_an_even_score_against_one_opponent_is_its_rating():
    assert fit_rating([5], [10], [1500]) == pytest.approx(1500, abs=1e-6)
    assert fit_rating([3, 3], [6, 6], [1300, 1700]) == pytest.approx(1500, abs=1e-6)


def test_a_score_matches_the_elo_formula_when_the_prior_is_negligible():
    # 7.5 of 10: odds 3, so 400 * log10(3) above the opponent.
    expected = 1500 + 400 * math.log10(3)
    assert fit_rating([7.5], [10], [1500], prior_games=1e-9) == pytest.approx(expected, abs=1e-3)
    # The weak prior pulls it slightly toward the pool's mean.
    assert 1500 < fit_rating([7.5], [10], [1500]) < expected


def test_a_symmetric_record_gives_the_midpoint():
    assert fit_rating([10, 0], [10, 10], [1400, 1600]) == pytest.approx(1500, abs=1e-6)


def test_all_wins_and_all_losses_are_finite():
    low, rating, high = rating_interval([10], [10], [1500])
    assert all(math.isfinite(x) for x in (low, rating, high)) and 1500 < low < rating < high
    low, rating, high = rating_interval([0], [10], [1500])
    assert all(math.isfinite(x) for x in (low, rating, high)) and low < rating < high < 1500


def test_the_rating_grows_with_the_score():
    ratings = [fit_rating([points], [10], [1500]) for points in range(11)]
    assert all(a < b for a, b in itertools.pairwise(ratings))


def test_the_interval_holds_the_rating_and_shrinks_with_more_games():
    widths = []
    for games in (4, 16, 64, 256):
        low, rating, high = rating_interval([0.75 * games], [games], [1500])
        assert low < rating < high
        widths.append(high - low)
    assert all(a > b for a, b in itertools.pairwise(widths))
    # Profile likelihood: with a negligible prior both ends lie z**2/2 below the maximum.
    low, rating, high = rating_interval([30], [40], [1500], prior_games=1e-9)
    p = lambda r: 1 / (1 + 10 ** ((1500 - r) / 400))  # noqa: E731
    ll = lambda r: 30 * math.log(p(r)) + 10 * math.log(1 - p(r))  # noqa: E731
    assert ll(rating) - ll(low) == pytest.approx(1.96**2 / 2, abs=1e-6)
    assert ll(rating) - ll(high) == pytest.approx(1.96**2 / 2, abs=1e-6)


def expected_score(difference: float) -> float:
    """The Elo model's expected score of a player ``difference`` points above its opponent."""
    return 1 / (1 + 10 ** (-difference / 400))


def test_a_pool_off_1500_keeps_its_pinned_scale_against_one_member():
    # A pool of one: the prior's virtual opponent (the pool's mean) is that member, so its
    # PRIOR_GAMES half-won games join the real ones and the Elo formula gives the rating.
    # Re-centring the pool on 1500 would put it 200 higher.
    won, games = 7 + PRIOR_GAMES / 2, 10 + PRIOR_GAMES
    expected = 1300 + 400 * math.log10(won / (games - won))
    assert fit_rating([7], [10], [1300]) == pytest.approx(expected, abs=1e-6)
    assert rating_interval([7], [10], [1300])[1] == pytest.approx(expected, abs=1e-6)


def test_a_pool_off_1500_keeps_its_pinned_scale_against_two_members():
    # Pinned at 1300 and 1400 (mean 1350), 7 of 10 and 4 of 10. With the prior negligible the
    # score equation 11 = 10 x / (x + 1) + 10 x / (x + a), in x = 10 ** ((r - 1300) / 400) and
    # a = 10 ** (100 / 400), is the quadratic -9 x^2 + (11 (1 + a) - 10 a - 10) x + 11 a = 0.
    a = 10 ** (100 / 400)
    qa, qb, qc = 11 - 20, 11 * (1 + a) - 10 * a - 10, 11 * a
    x = (-qb - math.sqrt(qb * qb - 4 * qa * qc)) / (2 * qa)  # the positive root (qa < 0 < qc)
    expected = 1300 + 400 * math.log10(x)
    assert 1300 < expected < 1400
    assert fit_rating([7, 4], [10, 10], [1300, 1400], prior_games=1e-9) == pytest.approx(
        expected, abs=1e-3)
    # With the default prior its half-won games against the pool's mean (1350, not 1500) join
    # the score equation, which the fit solves.
    rating = fit_rating([7, 4], [10, 10], [1300, 1400])
    slope = (7 - 10 * expected_score(rating - 1300) + 4 - 10 * expected_score(rating - 1400)
             + PRIOR_GAMES / 2 - PRIOR_GAMES * expected_score(rating - 1350))
    assert slope == pytest.approx(0, abs=1e-9)
    assert abs(rating - expected) < 5  # the weak prior moves it only a little


def test_the_fit_refuses_bad_tallies():
    with pytest.raises(ValueError):
        fit_rating([3], [2], [1500])
    with pytest.raises(ValueError):
        fit_rating([1], [2], [math.nan])
    with pytest.raises(ValueError):
        fit_rating([], [], [])


LADDER = {"game": "junqi", "variant": "ccgc", "games_per_opponent": 2, "opening_plies": 0,
          "seed": 0, "pool": [{"spec": "random", "elo": 1400}, {"spec": "greedy", "elo": 1600}],
          "source": "python scripts/arena.py --game junqi --agents random greedy --games 2"}


def write_ladder(tmp_path, **changes):
    path = tmp_path / "ladder.yaml"
    path.write_text(yaml.safe_dump({**LADDER, **changes}), encoding="utf-8")
    return path


@pytest.mark.input_contract
@pytest.mark.parametrize("changes, message", [
    ({"colour": "red"}, "unknown key(s) 'colour'"),
    ({"game": "chess"}, "game: unknown game"),
    ({"variant": "no_such_rules"}, "variant"),
    ({"games_per_opponent": 3}, "must be even"),
    ({"games_per_opponent": 2.0}, "games_per_opponent must be a whole number"),
    ({"games_per_opponent": 0}, "games_per_opponent must be 2 to"),
    ({"opening_plies": -1}, "opening_plies"),
    ({"seed": "0"}, "seed must be a whole number"),
    ({"pool": []}, "pool is empty"),
    ({"pool": {"spec": "random"}}, "pool must be a list"),
    ({"pool": [{"spec": "random", "elo": 1}, {"spec": "random", "elo": 2}]}, "already pool #1"),
    ({"pool": [{"spec": "random", "elo": math.inf}]}, "elo must be finite"),
    ({"pool": [{"spec": "random", "elo": True}]}, "elo must be a number"),
    ({"pool": [{"spec": "random", "elo": "1500"}]}, "elo must be a number"),
    ({"pool": [{"spec": "random"}]}, "missing key(s) elo"),
    ({"pool": [{"spec": "random", "elo": 1, "note": 2}]}, "unknown key(s) 'note'"),
    ({"pool": [{"spec": " ", "elo": 1}]}, "spec must be a non-empty"),
    ({"source": ""}, "source must be a non-empty text"),
])
def test_a_bad_ladder_file_names_the_field(tmp_path, changes, message):
    with pytest.raises(LadderConfigError, match="ladder.yaml") as caught:
        load_ladder(write_ladder(tmp_path, **changes))
    assert message in str(caught.value)
    assert isinstance(caught.value, ValueError)


@pytest.mark.input_contract
def test_missing_keys_wrong_game_and_strict_yaml_are_refused(tmp_path):
    data = dict(LADDER)
    del data["source"]
    path = tmp_path / "ladder.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    with pytest.raises(LadderConfigError, match="missing key.*source"):
        load_ladder(path)
    with pytest.raises(LadderConfigError, match="a ladder of 'junqi', not 'tbw'"):
        load_ladder(write_ladder(tmp_path), game="tbw")
    path.write_text("game: junqi\ngame: tbw\n", encoding="utf-8")
    with pytest.raises(LadderConfigError, match="duplicate"):
        load_ladder(path)
    with pytest.raises(LadderConfigError, match="ladder file .*missing.yaml' does not exist"):
        load_ladder(tmp_path / "missing.yaml")


@pytest.mark.input_contract
def test_an_unknown_ladder_name_gets_the_bundled_ones_and_a_guess(tmp_path):
    with pytest.raises(LadderConfigError) as caught:
        load_ladder("tbww")
    text = str(caught.value)
    assert text.startswith("unknown ladder 'tbww'; did you mean 'tbw'? available: [")
    assert "'junqi'" in text and text.endswith("or a path to a .yaml file")
    with pytest.raises(LadderConfigError, match="ladder must be a name .*, a YAML path or None "
                                                r"\(the game's own\), got int 5"):
        load_ladder(5)
    # A folder in it makes it a path, with or without a suffix.
    path = write_ladder(tmp_path)
    assert load_ladder(str(path.rename(tmp_path / "mine"))).game == "junqi"


@pytest.mark.parametrize("path", sorted(bundled_ladder_dir().glob("*.yaml")), ids=str)
def test_every_bundled_ladder_loads(path):
    ladder = load_ladder(path.stem)
    assert ladder.game == path.stem or ladder.game in path.stem


def test_the_junqi_pool_builds_the_ismcts_it_was_pinned_with():
    # The pool was rated with ISMCTS's defaults of its day; a later change of defaults must not
    # change the agent behind the pinned rating, so its spec spells every one of them out.
    [spec] = [m.spec for m in load_ladder("junqi").pool if m.spec.startswith("ismcts")]
    agent = make_agent(spec, seed=0, game="junqi")
    assert agent.prior_visits == 5.0
    assert type(agent.leaf_evaluator) is MaterialLeaf
    assert agent.belief_name == "count"
    # weights=default: UCB&MCTS's default evaluation, not ISMCTS's tuned one
    assert agent.evaluation.config == make_agent("ucbmcts", game="junqi").evaluation.config
    assert agent.evaluation.config != make_agent("ismcts", game="junqi").evaluation.config


def test_a_tbw_ladder_end_to_end(tmp_path):
    scenario = tmp_path / "skirmish.yaml"
    scenario.write_text(yaml.safe_dump(SKIRMISH), encoding="utf-8")
    path = write_ladder(tmp_path, game="tbw", variant="skirmish.yaml", opening_plies=1,
                        pool=[{"spec": "random", "elo": 1300}, {"spec": "greedy", "elo": 1400}])
    result = run_ladder("tbw", "greedy", ladder=path, games_per_opponent=3, workers=1,
                        progress=False)
    assert result.games == 8 and result.games_per_opponent == 4
    assert [o.spec for o in result.opponents] == ["random", "greedy"]
    assert [o.elo for o in result.opponents] == [1300, 1400]  # as pinned: never re-centred
    assert [o.label for o in result.opponents] == ["random", "greedy (2)"]
    assert all(o.games == 4 for o in result.opponents)
    assert result.elo_low <= result.elo <= result.elo_high
    for pairing, opponent in enumerate(result.opponents):
        games = [g for g in result.records if g.pairing == pairing]
        candidate_points = sum(g.points(1 if g.swapped else 0) for g in games)
        assert candidate_points == opponent.wins + 0.5 * opponent.draws
    expected = rating_interval([o.wins + 0.5 * o.draws for o in result.opponents], [4, 4],
                               [1300, 1400])
    assert (result.elo_low, result.elo, result.elo_high) == pytest.approx(expected)
    again = run_ladder("tbw", "greedy", ladder=path, games_per_opponent=3, workers=1,
                       progress=False)
    assert [g.outcome() for g in again.records] == [g.outcome() for g in result.records]
    result.plot(tmp_path / "ladder.png")
    assert (tmp_path / "ladder.png").stat().st_size > 0
    assert "rating:" in result.table()



def test_the_progress_bar_shows_the_candidates_score_against_each_opponent(tmp_path, capsys):
    """As the table does: a pool member's own score against the candidate, beside the
    candidate's, would read as the candidate's against that member."""
    scenario = tmp_path / "skirmish.yaml"
    scenario.write_text(yaml.safe_dump(SKIRMISH), encoding="utf-8")
    pool = [{"spec": spec, "elo": 1000 + 100 * i}
            for i, spec in enumerate(["random", "alg2", "exact", "tree:solves=2", "tree:solves=3",
                                      "alg5:budget=50", "greedy"])]
    path = write_ladder(tmp_path, game="tbw", variant="skirmish.yaml", opening_plies=1,
                        pool=pool)
    result = run_ladder("tbw", "greedy", ladder=path, games_per_opponent=2, workers=1)
    final_bar = capsys.readouterr().err.replace("\r", "\n").strip().splitlines()[-1]
    total = sum(o.wins + 0.5 * o.draws for o in result.opponents) / result.games
    assert f"greedy {total:.2f}: " in final_bar
    # Every member, the seventh too, by the candidate's score against it, as in the table.
    for opponent in result.opponents:
        assert f"v {opponent.label} {opponent.score:.2f}" in final_bar

def test_a_junqi_ladder_end_to_end(tmp_path):
    rules = tmp_path / "quick.yaml"
    rules.write_text(yaml.safe_dump(QUICK_JUNQI), encoding="utf-8")
    path = write_ladder(tmp_path, variant=str(rules))
    result = run_ladder("junqi", "random", ladder=path, workers=1, progress=False, seed=5)
    assert result.games == 4 and result.seed == 5
    assert {g.base_seed for g in result.records} == {5}
    data = result.to_json()
    assert set(data) == {"game", "agent", "elo", "elo_low", "elo_high", "games", "scores"}
    assert data["game"] == "junqi" and data["agent"] == "random" and data["games"] == 4
    assert list(data["scores"]) == ["random", "greedy"]
    result.write_games(tmp_path / "games.jsonl")
    assert len((tmp_path / "games.jsonl").read_text().splitlines()) == 4


@pytest.mark.input_contract
@pytest.mark.parametrize("overrides, message", [
    ({"candidate_spec": ""}, "empty spec"),
    ({"candidate_spec": ["random"]}, "one agent spec"),
    ({"candidate_spec": "no_such_agent"}, "agent #1"),
    ({"games_per_opponent": 0}, "games_per_opponent"),
    ({"workers": 0}, "workers"),
    ({"seed": -1}, "seed"),
    ({"ray_address": "nowhere"}, "Ray address"),
])
def test_run_ladder_rejects_bad_arguments_before_any_game(tmp_path, overrides, message):
    arguments = {"game": "junqi", "candidate_spec": "random",
                 "ladder": write_ladder(tmp_path), "progress": False, **overrides}
    with pytest.raises(ValueError, match=message):
        run_ladder(**arguments)
