"""The round robin (``agents.arena.roundrobin``): results do not depend on the worker count, paired
games share their start with seats swapped, deterministic pairings are flagged, agents with a layout
method deploy their own layout, and every argument is checked before the first game."""

from __future__ import annotations

import random

import pytest

import agents.arena as arena
import agents.arena.players as arena_players
from agents.arena import (
    ArenaInputError,
    ArenaTypeError,
    layout_seed,
    result_tables,
    run_round_robin,
)
from agents.random_agent import RandomAgent
from tbw_envs.junqi import format_layout, load_layout, random_layout

# ---------------------------------------------------------------------- seeds and pairing


def test_results_do_not_depend_on_the_worker_count():
    specs = ["random", "random", "random"]
    one = run_round_robin("junqi", specs, games_per_pairing=4, seed=7, workers=1)
    two = run_round_robin("junqi", specs, games_per_pairing=4, seed=7, workers=2)
    assert len(one.games) == 3 * 4
    assert [g.outcome() for g in one.games] == [g.outcome() for g in two.games]
    assert [r.elo for r in one.ratings()] == [r.elo for r in two.ratings()]


def test_paired_games_share_the_start_with_seats_swapped():
    result = run_round_robin("junqi", ["random", "random"], games_per_pairing=3, seed=3,
                             workers=1)
    assert result.games_per_pairing == 4 and len(result.games) == 4  # rounded up to even
    seeds = set()
    for first, second in zip(result.games[::2], result.games[1::2], strict=True):
        assert first.seed == second.seed and (first.pair, first.swapped) == (second.pair, False)
        assert second.swapped
        assert first.layouts == second.layouts  # seat 0's and seat 1's layouts, both games
        assert first.labels == second.labels[::-1]
        assert first.layout_sources == second.layout_sources == ("random", "random")
        for seat in (0, 1):
            expected = random_layout(random.Random(layout_seed(first.seed, seat)))
            assert first.layouts[seat] == format_layout(expected)
        seeds.add(first.seed)
    assert len(seeds) == 2  # each pair has its own start


def test_tbw_pairs_are_the_seat_swap_of_the_scenario():
    result = run_round_robin("tbw", ["greedy", "random"], games_per_pairing=2, workers=1)
    first, second = result.games
    assert first.labels == ("greedy", "random") and second.labels == ("random", "greedy")
    assert first.layouts is None and first.end_reason == "annihilation"
    stats = result.pairing_stats()[0]
    assert stats.record(0) == (2, 0, 0) and stats.record(1) == (0, 0, 2)
    assert stats.record(0, 0) == (1, 0, 0) and stats.record(1, 1) == (0, 0, 1)


def test_deterministic_pairings_are_flagged_as_repeated_games():
    result = run_round_robin("tbw", ["exact"], games_per_pairing=4, workers=1)
    assert result.labels == ["exact", "exact (2)"]
    assert result.repeated_pairings() == ["exact v exact (2)"]
    assert "overstate the evidence" in result_tables(result)


# ---------------------------------------------------------------------- agent-chosen layouts

FIXED_LAYOUT = "flag_left_mined"


class FixedLayoutAgent(RandomAgent):
    """Random play from a layout of its own choosing."""

    name = "fixed-layout"

    def layout(self, rng, rules):
        assert isinstance(rng, random.Random) and rules.name == "ccgc"
        return load_layout(FIXED_LAYOUT)


class RngLayoutAgent(RandomAgent):
    """Draws its layout from the rng it is handed."""

    name = "rng-layout"

    def layout(self, rng, rules):
        return format_layout(random_layout(rng))  # text is accepted too


def test_an_agent_with_a_layout_method_deploys_its_own_layout():
    result = run_round_robin("junqi", [FixedLayoutAgent, RngLayoutAgent, "random"],
                             games_per_pairing=2, seed=5, workers=1)
    fixed = format_layout(load_layout(FIXED_LAYOUT))
    checked = 0
    for g in result.games:
        for seat in (0, 1):
            default = format_layout(random_layout(random.Random(layout_seed(g.seed, seat))))
            if g.labels[seat] == "fixed-layout":
                assert (g.layout_sources[seat], g.layouts[seat]) == ("agent", fixed)
            elif g.labels[seat] == "rng-layout":
                # rng = random.Random(layout_seed(seed, seat)): the seat's default stream.
                assert (g.layout_sources[seat], g.layouts[seat]) == ("agent", default)
            else:
                assert (g.layout_sources[seat], g.layouts[seat]) == ("random", default)
            checked += 1
    assert checked == 12


def failing_factory(seed):
    raise RuntimeError("no weights here")


class NotAnAgent:
    name = "not-an-agent"


def not_an_agent_factory(seed):
    return NotAnAgent()


# ---------------------------------------------------------------------- run_round_robin

GOOD = {"game": "tbw", "specs": ["random", "greedy"], "games_per_pairing": 2, "workers": 1}

API_CASES = [
    # (overrides of GOOD, error type, message fragment)
    ({"games_per_pairing": True}, ArenaTypeError,
     "games_per_pairing must be a positive integer, got bool True"),
    ({"games_per_pairing": 2.0}, ArenaTypeError, "got float 2.0"),
    ({"games_per_pairing": "4"}, ArenaTypeError, "got str '4'"),
    ({"games_per_pairing": 0}, ArenaInputError, "games_per_pairing must be a positive integer"),
    ({"games_per_pairing": 999_999_999_999}, ArenaInputError, "at most 100,000"),
    ({"specs": [f"random:seed={i}" for i in range(3)] + ["greedy"] * 20,
      "games_per_pairing": 400}, ArenaInputError, "more than the cap of 100,000 games"),
    ({"seed": "abc"}, ArenaTypeError, "seed must be a non-negative integer, got str 'abc'"),
    ({"seed": -1}, ArenaInputError, "seed must be a non-negative integer, got -1"),
    ({"seed": 1.0}, ArenaTypeError, "seed must be a non-negative integer, got float"),
    ({"seed": 2**63}, ArenaInputError, "seed must be at most"),
    ({"bootstrap": -5}, ArenaInputError, "bootstrap must be a non-negative integer, got -5"),
    ({"bootstrap": 2.5}, ArenaTypeError, "bootstrap must be a non-negative integer"),
    ({"bootstrap": 10**6}, ArenaInputError, "bootstrap must be at most 10,000"),
    ({"bootstrap_seed": None}, ArenaTypeError, "bootstrap_seed must be a non-negative"),
    ({"workers": 0}, ArenaInputError, "workers must be a positive integer, got 0"),
    ({"workers": True}, ArenaTypeError, "workers must be a positive integer, got bool"),
    ({"workers": 10**6}, ArenaInputError, "workers must be at most 256"),
    ({"progress": "yes"}, ArenaTypeError, "progress must be True or False"),
    ({"opening_plies": 1_000_000}, ArenaInputError,
     "opening_plies 1,000,000 is more than the cap of 100 for tbw scenario 'duel_5v5_8x8'"),
    ({"game": "junqi", "opening_plies": 501}, ArenaInputError, "cap of 500 for junqi rule set"),
    ({"opening_plies": -1}, ArenaInputError, "opening_plies must be a non-negative integer"),
    ({"opening_plies": True}, ArenaTypeError, "opening_plies must be a non-negative integer"),
    ({"variant": ""}, ArenaInputError, "variant (tbw scenario) must not be empty"),
    ({"variant": {"board": 1}}, ArenaTypeError, "must be a name or a path, got dict"),
    ({"variant": "no_such_map"}, ValueError, "unknown scenario 'no_such_map'"),
    ({"game": "chess"}, ArenaInputError, "unknown game 'chess'"),
    ({"game": None}, ArenaInputError, "unknown game None"),
    ({"specs": "random"}, ArenaTypeError, "specs must be a list of agent specs"),
    ({"specs": []}, ArenaInputError, "at least one agent is needed"),
    ({"specs": ["random", " "]}, ArenaInputError, "agent #2: an empty spec"),
    ({"specs": ["random", 3]}, ArenaTypeError, "agent #2 must be a spec string or a factory"),
    # (the registry words its own part; the arena names the entrant)
    ({"specs": ["random", "minimax"]}, ArenaInputError,
     ("agent #2 (minimax): ", "unknown agent 'minimax'")),
    ({"game": "junqi", "specs": ["random", "exact"]}, ArenaInputError,
     ("agent #2 (exact): ", "'exact' does not play junqi")),
    ({"specs": ["random", failing_factory]}, ArenaInputError,
     "agent #2 (failing_factory): cannot be built: RuntimeError: no weights here"),
    ({"specs": ["random", not_an_agent_factory]}, ArenaTypeError, "has no act() method"),
    ({"specs": ["random", lambda seed: RandomAgent(seed)], "workers": 2}, ArenaInputError,
     "a factory must be picklable to play in worker processes"),
    ({"ray_address": "nowhere"}, ValueError, "Ray address must be"),
    ({"ray_address": 5}, ArenaTypeError, "ray_address must be a string or None"),
]


@pytest.mark.input_contract
@pytest.mark.parametrize(("overrides", "error", "message"), API_CASES,
                         ids=[f"{'-'.join(c[0])}-{i}" for i, c in enumerate(API_CASES)])
def test_run_round_robin_rejects_bad_arguments_before_any_game(no_games, overrides, error,
                                                                message):
    with pytest.raises(error) as info:
        run_round_robin(**(GOOD | overrides))
    for fragment in (message,) if isinstance(message, str) else message:
        assert fragment in str(info.value)
    assert len(str(info.value)) < 400  # values are quoted cut short


@pytest.mark.input_contract
def test_arena_errors_are_value_errors_and_type_errors_are_type_errors():
    assert issubclass(ArenaInputError, ValueError)
    assert issubclass(ArenaTypeError, TypeError) and issubclass(ArenaTypeError, ValueError)
    assert not issubclass(ArenaInputError, TypeError)


@pytest.mark.input_contract
def test_every_agent_is_built_once_before_the_first_game(monkeypatch, no_games):
    built = []
    real = arena.build_agent

    def spy(entry, seed, game, variant=None):
        built.append(entry)
        return real(entry, seed, game, variant)

    monkeypatch.setattr(arena_players, "build_agent", spy)
    with pytest.raises(ArenaInputError, match="agent #3"):
        run_round_robin("tbw", ["random", "greedy", "minimax"], 2, workers=1)
    assert built == ["random", "greedy", "minimax"]


# ----------------------------------------------------------------- progress-bar labels
def test_progress_labels_keep_what_tells_budgets_apart():
    from agents.arena.roundrobin import progress_labels

    labels = [f"ismcts:iterations={b},weights=tuned" for b in (25, 250, 1600)]
    labels += ["greedy:weights=tuned", "random"]
    assert progress_labels(labels) == ["ismcts:25", "ismcts:250", "ismcts:1600",
                                       "greedy:tuned", "random"]
    # Agents of different names drop their parameter names.
    assert progress_labels(["ismcts:iterations=2500", "greedy:weights=tuned"]) == \
        ["ismcts:2500", "greedy:tuned"]
    # Unless that makes two of them alike (both would read mcts:300).
    assert progress_labels(["mcts:iterations=300", "mcts:seconds=300", "random"]) == \
        ["mcts:iteratio\u2026", "mcts:seconds", "random"]


def test_progress_labels_name_a_file_agent_by_its_class_not_its_path():
    from agents.arena.roundrobin import progress_labels

    assert progress_labels(["/home/me/agents/my_agent.py:Aggressive", "greedy"]) == \
        ["Aggressive", "greedy"]
    # With its arguments, kept apart as a built-in agent's are.
    assert progress_labels(["my_agent.py:Aggressive,depth=3", "my_agent.py:Aggressive,depth=40",
                            "random"]) == ["Aggressive:3", "Aggressive:40", "random"]
    # Two files with a class of one name keep their files, to tell them apart.
    assert progress_labels(["a/one.py:Agent", "b/two.py:Agent"]) == ["a/one.py:Agent",
                                                                   "b/two.py:Agent"]
    # A module spec has no file to drop.
    assert progress_labels(["pkg.mod:Mine", "random"]) == ["pkg.mod:Mine", "random"]


def test_progress_labels_never_cut_a_value_into_another():
    from agents.arena.roundrobin import progress_labels

    # "tree:solves=320" is one character too long: cut, it would read as solves=32.
    assert progress_labels(["tree:solves=5", "tree:solves=320", "exact"]) == \
        ["tree:5", "tree:320", "exact"]
    assert progress_labels(["ucbmcts:iterations=50,weights=tuned",
                            "ucbmcts:iterations=50,weights=default"]) == \
        ["ucbmcts:tuned", "ucbmcts:defau\u2026"]
    # Labels that fit stay whole, even when they are equal (one spec playing itself).
    assert progress_labels(["random", "random"]) == ["random", "random"]
