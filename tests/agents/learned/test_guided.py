"""The self-play network guiding Junqi's search (``learned:...,simulations=K``): the spec builds
the search, its root prior is the network's move probabilities, it plays legal arena games in
both seats, it cannot tell apart positions that differ only in hidden pieces, and the specs it
cannot honour are refused by name."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch", reason="torch is not installed (the train extra)")
pytest.importorskip("numba", reason="numba not installed (the fast extra)")

from agents.arena import run_round_robin  # noqa: E402
from agents.junqi.guided import GuidedSearchAgent  # noqa: E402
from agents.learned.agent import LearnedAgent  # noqa: E402
from agents.registry import make_agent  # noqa: E402
from tbw_envs.junqi.state import JunqiState  # noqa: E402
from tests.helpers.learned_nets import trained_file  # noqa: E402

HOMES = {"L1": (0, "flag"), "L3": (0, "mine"), "A1": (1, "flag"), "A3": (1, "mine"),
         "E0": (0, "major"), "K2": (0, "captain"), "K0": (0, "engineer")}


@pytest.fixture(scope="module")
def junqi_net(tmp_path_factory):
    path, _ = trained_file(tmp_path_factory.mktemp("net"), "junqi", updates=2)
    return path


def test_a_budget_makes_the_network_guide_the_search(junqi_net):
    plain = make_agent(f"learned:path={junqi_net}", game="junqi")
    guided = make_agent(f"learned:path={junqi_net},simulations=30,puct=12.5", game="junqi")
    timed = make_agent(f"learned:path={junqi_net},seconds=0.05", game="junqi")
    assert type(plain) is LearnedAgent
    assert isinstance(guided, GuidedSearchAgent) and isinstance(timed, GuidedSearchAgent)
    assert guided.budget.iterations == 30 and guided.budget.seconds is None
    assert timed.budget.seconds == 0.05 and guided.tree_policy.puct == 12.5


def test_the_move_probabilities_are_the_networks_over_the_legal_moves(junqi_net):
    agent = make_agent(f"learned:path={junqi_net}", game="junqi")
    state = JunqiState.from_pieces({**HOMES, "D0": (1, "lieutenant"), "A4": (1, "marshal")})
    view = state.view(0)
    legal = state.legal_actions()
    illegal = next(a for a in range(10_000) if a not in set(legal))
    probabilities = agent.move_probabilities(view, [*legal, illegal])
    assert probabilities[-1] == 0.0
    assert np.isclose(sum(probabilities[:-1]), 1.0) and min(probabilities[:-1]) > 0.0
    assert legal[int(np.argmax(probabilities[:-1]))] == agent.act(view)


def test_the_root_starts_from_the_networks_choice(junqi_net):
    """With one simulation and an overwhelming prior constant, PUCT's first root choice, and so
    the move, is the network's most likely move."""
    network = make_agent(f"learned:path={junqi_net}", game="junqi")
    guided = make_agent(f"learned:path={junqi_net},simulations=1,puct=1e9", game="junqi",
                        seed=4)
    state = JunqiState.from_pieces({**HOMES, "D0": (1, "lieutenant"), "A4": (1, "marshal")})
    assert guided.act(state.view(0)) == network.act(state.view(0))


def test_hidden_pieces_do_not_reach_the_guided_search(junqi_net):
    """Two positions that differ only in which hidden enemy piece stands where: equally seeded
    searches play the same move and find the same visits."""
    real = JunqiState.from_pieces({**HOMES, "D0": (1, "lieutenant"), "A4": (1, "marshal")})
    twin = JunqiState.from_pieces({**HOMES, "D0": (1, "marshal"), "A4": (1, "lieutenant")})
    assert real.kind != twin.kind
    spec = f"learned:path={junqi_net},simulations=40"
    first, second = (make_agent(spec, game="junqi", seed=9) for _ in range(2))
    assert first.act(real.view(0)) == second.act(twin.view(0))
    assert first.thinking() == second.thinking()


def test_the_guided_search_plays_arena_games_in_both_seats(junqi_net):
    result = run_round_robin("junqi", [f"learned:path={junqi_net},simulations=8", "random"], 2,
                             workers=1, progress=False, bootstrap=0)
    (stats,) = result.pairing_stats()
    assert stats.games == 2


def test_specs_it_cannot_honour_are_refused(junqi_net, tmp_path):
    with pytest.raises(ValueError, match="puct= weighs the prior of a search"):
        make_agent(f"learned:path={junqi_net},puct=3", game="junqi")
    with pytest.raises(ValueError, match="not both"):
        make_agent(f"learned:path={junqi_net},pretrained", game="junqi")
    with pytest.raises(ValueError, match="simulations"):
        make_agent(f"learned:path={junqi_net},simulations=0", game="junqi")
    tbw_net, _ = trained_file(tmp_path, "tbw")
    with pytest.raises(ValueError, match="simulations"):
        make_agent(f"learned:path={tbw_net},simulations=10", game="tbw")
    with pytest.raises(ValueError, match="trained on tbw"):
        make_agent(f"learned:path={tbw_net},simulations=10", game="junqi")
