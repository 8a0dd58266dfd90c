"""The Junqi search package (``agents.junqi.mcts``): the one search loop builds the tree each policy
describes (visit counts, edges, children keyed by move or by move and result), the leaf evaluators
score as documented, the budget runs on agents.common.budget's clock, UCB&MCTS keeps the paper's
formula and defaults, and ISMCTS takes an evaluation prior and an opponent model."""

from __future__ import annotations

import math
import random

import pytest

import agents.junqi.mcts as mcts
from agents.common.budget import Deadline
from agents.junqi import (
    FEATURE_NAMES,
    GreedyAgent,
    ISMCTSAgent,
    MCTSAgent,
    UCBMCTSAgent,
)
from agents.junqi.belief import make_belief
from agents.junqi.mcts import (
    EvaluationLeaf,
    MaterialLeaf,
    Node,
    SearchBudget,
    run_search,
)
from agents.registry import make_agent
from tbw_envs.junqi import JunqiState
from tests.helpers.junqi_games import midgame_states
from tests.helpers.stepping_clock import stepping_clock

ITERATIONS = 60


def _midgame_view(seed: int = 2):
    rand = random.Random(seed)
    while True:
        state = JunqiState.random_initial(rand)
        for _ in range(rand.randrange(20, 60)):
            if state.is_terminal():
                break
            state.apply(rand.choice(state.legal_actions()))
        if not state.is_terminal():
            return state.view(state.current_player)


def _searched_root(agent, view) -> tuple[Node, int, int]:
    """Run the agent's search on ``view`` and keep the root its tree policy built."""
    policy = agent.tree_policy
    built = []
    new_root = policy.new_root

    def keep(*args):
        built.append(new_root(*args))
        return built[-1]

    policy.new_root = keep
    belief = make_belief(agent.belief_name, view)
    action, done, root = run_search(policy, agent.leaf_evaluator, view, view.legal_actions(),
                                    belief, agent._rng, agent.budget, agent.budget.start())
    assert root is built[0]
    return root, action, done


def _nodes(root: Node):
    stack = [(root, 0)]
    while stack:
        node, depth = stack.pop()
        yield node, depth
        stack.extend((child, depth + 1) for child in node.children.values())


def test_the_package_exports_every_public_name():
    for name in mcts.__all__:
        assert getattr(mcts, name) is not None, name
    assert mcts.run_search.__module__ == "agents.junqi.mcts.search"


@pytest.mark.parametrize("cls", [MCTSAgent, UCBMCTSAgent])
def test_determinized_trees_count_every_node_reached(cls):
    view = _midgame_view()
    root, action, done = _searched_root(cls(iterations=ITERATIONS, seed=0), view)
    assert done == ITERATIONS and action in view.legal_actions()
    assert root.visits == ITERATIONS
    assert sum(edge.visits for edge in root.edges.values()) == ITERATIONS
    deepest = 0
    for node, depth in _nodes(root):
        deepest = max(deepest, depth)
        # One child per move, whatever the referee announced; the node was reached once per
        # visit of the edge into it and passed on through its own edges.
        assert set(node.children) == set(node.edges)
        for move, edge in node.edges.items():
            child = node.children[move]
            assert child.visits == edge.visits
            assert child.mover == 1 - node.mover
            assert sum(e.visits for e in child.edges.values()) <= child.visits
    assert deepest >= 2, "the search never went below the root's children"


def test_information_set_tree_keys_children_by_move_and_result():
    view = _midgame_view()
    agent = ISMCTSAgent(iterations=ITERATIONS, prior_visits=0.0, seed=0)
    root, action, done = _searched_root(agent, view)
    assert done == ITERATIONS and action in view.legal_actions()
    deepest = 0
    for node, depth in _nodes(root):
        deepest = max(deepest, depth)
        # Visits count the iterations that chose a move here (no prior visits to subtract).
        assert node.visits == sum(edge.visits for edge in node.edges.values())
        for (move, _result), child in node.children.items():
            assert move in node.edges and child.mover == 1 - node.mover
        for edge in node.edges.values():
            assert edge.available >= 1
    assert root.visits == ITERATIONS
    assert deepest >= 2


def test_ismcts_prior_visits_seed_every_available_edge():
    view = _midgame_view()
    agent = ISMCTSAgent(iterations=1, prior_visits=5.0, seed=0)
    root, _, _ = _searched_root(agent, view)
    ranked = {action: score for action, _, score in root.candidates}
    for move, edge in root.edges.items():
        chosen = edge.visits - 5.0
        assert chosen in (0.0, 1.0)
        if not chosen:
            assert edge.total == pytest.approx(5.0 * ranked[move])


def test_leaf_evaluators_credit_a_move_as_documented():
    agent = UCBMCTSAgent(iterations=1, seed=0)
    rng = random.Random(0)
    material = MaterialLeaf(agent.evaluation, rng, sample_k=4, horizon=4, even=False)
    whole = EvaluationLeaf(agent.evaluation, rng, sample_k=4, horizon=4, even=False)
    features = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    weights = dict(zip(FEATURE_NAMES, agent.evaluation.config.weights, strict=True))
    positional = sum(weights[name] * features[FEATURE_NAMES.index(name)]
                     for name in mcts.POSITIONAL_FEATURES)
    assert material.credit(123.0, features) == pytest.approx(positional)
    assert whole.credit(123.0, features) == 123.0
    state = JunqiState.random_initial(random.Random(1))
    assert material.score(state, 0, material.origin(state, 0)) == 0.0
    assert whole.origin(state, 0) == 0.0 and whole.score(state, 0, 0.0) == 0.0


def test_a_leaf_credits_moves_with_its_credit_config():
    """``credit_config`` weighs a move's features in the leaf, the evaluation still ranks: the
    material family credits its positional weights, the evaluation leaf all of them."""
    ranking = UCBMCTSAgent(iterations=1, seed=0, weights="tuned").evaluation
    other = ISMCTSAgent(iterations=1, weights="default").evaluation.config
    rng = random.Random(0)
    material = MaterialLeaf(ranking, rng, sample_k=4, horizon=4, even=False, credit_config=other)
    whole = EvaluationLeaf(ranking, rng, sample_k=4, horizon=4, even=False, credit_config=other)
    features = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    weights = dict(zip(FEATURE_NAMES, other.weights, strict=True))
    assert weights["progress"] != ranking.config.weight_dict()["progress"]
    positional = sum(weights[name] * features[FEATURE_NAMES.index(name)]
                     for name in mcts.POSITIONAL_FEATURES)
    assert material.credit(123.0, features) == pytest.approx(positional)
    assert whole.credit(123.0, features) == pytest.approx(
        sum(w * f for w, f in zip(other.weights, features, strict=True)))
    assert material.evaluation is ranking and whole.evaluation is ranking


def test_ismcts_leaf_weights_change_the_credit_and_nothing_else():
    """``leaf_weights`` (default ``default``) reaches the leaf's credit only: the root is ranked
    and primed with ``weights``; naming ``weights``'s own config credits with the evaluation."""
    view = _midgame_view(5)
    plain = ISMCTSAgent(iterations=ITERATIONS, seed=3, weights="tuned", leaf_weights="tuned")
    other = ISMCTSAgent(iterations=ITERATIONS, seed=3, weights="tuned")
    assert plain.leaf_credit is plain.evaluation
    assert plain.leaf_evaluator.credit_config is plain.evaluation.config
    default_weights = other.leaf_evaluator.credit_config.weight_dict()
    assert other.leaf_credit.config.name == "default"
    assert other.leaf_evaluator.positional_weights[FEATURE_NAMES.index("flag_defence")] == \
        default_weights["flag_defence"] != plain.evaluation.config.weight_dict()["flag_defence"]
    assert other.evaluation.config.name == "tuned"
    roots = [_searched_root(agent, view)[0] for agent in (plain, other)]
    assert [c[0] for c in roots[0].candidates] == [c[0] for c in roots[1].candidates]
    assert [(a, e.visits, e.total) for a, e in roots[0].edges.items()] != \
        [(a, e.visits, e.total) for a, e in roots[1].edges.items()]
    with pytest.raises(ValueError, match="leaf_weights"):
        ISMCTSAgent(leaf_weights=3)


def test_search_budget_runs_on_a_deadline_and_keeps_its_repr():
    budget = SearchBudget(iterations=3)
    clock = budget.start()
    assert isinstance(clock, Deadline)
    assert [budget.more(done, clock) for done in range(5)] == [True, True, True, False, False]
    assert repr(budget) == "SearchBudget(iterations=3, seconds=None)"
    timed = SearchBudget(seconds=0.5)
    assert timed.more(10**6, timed.start())
    assert not timed.more(0, Deadline(0.5, started=0.0))  # long past
    assert repr(timed) == "SearchBudget(iterations=None, seconds=0.5)"
    assert SearchBudget().iterations == mcts.DEFAULT_ITERATIONS


# Section 4: "we determined the value of the cof parameter in the UCB formula to be 10".
PAPER_COF = 10
# Section 2.1: "we limit the upper limit of the game tree extension to 4 layers".
PAPER_TREE_DEPTH = 4


def test_ucbmcts_defaults_are_the_papers_cof_and_tree_depth():
    for agent in (UCBMCTSAgent(), make_agent("ucbmcts", game="junqi")):
        assert agent.cof == PAPER_COF
        assert agent.max_depth == PAPER_TREE_DEPTH


def test_tree_selection_is_the_papers_ucb_formula_eq3():
    # Eq. 3: UCB = w_c / n_c + cof x sqrt(2 x log n_p / n_c); here w_c = 3, n_c = 4, n_p = 20.
    from agents.junqi.mcts import Edge, mean_ucb

    expected = 3 / 4 + PAPER_COF * math.sqrt(2 * math.log(20) / 4)
    # Plain UCT keeps an edge's wins from the mover's side and selects with sign 1; UCB&MCTS
    # keeps the sum of leaf values from the searching player's side, and the opponent's nodes
    # (sign -1) maximise the negated mean.
    edge = Edge()
    edge.visits, edge.total = 4, 3.0
    assert mean_ucb(edge, 1.0, math.log(20), PAPER_COF) == pytest.approx(expected)
    assert mean_ucb(edge, -1.0, math.log(20), PAPER_COF) == pytest.approx(expected - 2 * 3 / 4)


@pytest.mark.parametrize("cls", [MCTSAgent, UCBMCTSAgent, ISMCTSAgent])
def test_search_budgets_are_respected(cls, monkeypatch):
    state = midgame_states(1, seed=4)[0]
    view = state.view(state.current_player)
    agent = cls(iterations=25, seed=0)
    agent.act(view)
    assert agent.last_stats["iterations"] == 25
    # On a clock that moves 10 ms per reading, 0.15 s last 15 readings. The search reads it
    # before every iteration, so it stops after at most 15, on any machine; one that checked
    # the time more rarely would run more.
    step = 0.01
    stepping_clock(monkeypatch, step)
    agent = cls(seconds=0.15, seed=0)
    agent.act(view)
    assert 1 < agent.last_stats["iterations"] <= round(0.15 / step)


def test_ismcts_with_an_overwhelming_evaluation_prior_plays_the_greedy_move():
    """Virtual visits worth the evaluation's score: with enough of them no search result can
    overturn the one-ply order, so the move is greedy's whenever greedy's best is unique."""
    checked = 0
    for state in midgame_states(12, seed=11):
        view = state.view(state.current_player)
        actions = view.legal_actions()
        greedy = GreedyAgent(weights="tuned", seed=0)
        context = greedy.evaluation.context(view, make_belief("count", view))
        scores = sorted(context.scores(actions), reverse=True)
        if len(scores) < 2 or scores[0] - scores[1] < 1e-6:
            continue
        agent = ISMCTSAgent(iterations=40, prior_visits=1e7, belief="count", weights="tuned",
                            seed=0)
        assert agent.act(view) == greedy.act(view)
        checked += 1
    assert checked >= 5


def test_ismcts_opponent_model_plays_its_evaluations_best_candidate():
    agent = ISMCTSAgent(iterations=5, opponent="evaluation", seed=0)
    for state in midgame_states(6, seed=5):
        view = state.view(state.current_player)
        belief = make_belief("count", view)
        world = belief.sample_state(random.Random(0))
        legal = world.legal_actions()
        candidates = [(a, 0.0, 0.0) for a in random.Random(1).sample(legal, min(6, len(legal)))]
        context = agent.evaluation.state_context(world)
        best = max(candidates, key=lambda c: context.score(c[0]))[0]
        assert agent.tree_policy.modelled_reply(world, candidates)[0] == best
        assert agent.act(view) in view.legal_actions()
    with pytest.raises(ValueError, match="opponent must be 'search' or 'evaluation'"):
        ISMCTSAgent(opponent="psychic")


@pytest.mark.parametrize("bad", [-1, True, "many", math.inf])
def test_ismcts_rejects_a_bad_prior(bad):
    with pytest.raises(ValueError, match="prior_visits must be a non-negative number"):
        ISMCTSAgent(prior_visits=bad)


def test_search_agents_reject_bad_parameters():
    for bad in ({"iterations": 0}, {"iterations": 2.5}, {"seconds": -1}, {"seconds": True}):
        with pytest.raises(ValueError):
            UCBMCTSAgent(**bad)
    with pytest.raises(ValueError, match="expand_k"):
        UCBMCTSAgent(expand_k=0)
    with pytest.raises(ValueError, match="unknown belief"):
        ISMCTSAgent(belief="psychic")
    with pytest.raises(ValueError, match="unknown layout policy"):
        GreedyAgent(layout="fortress")


def test_a_root_prior_selects_the_root_by_puct():
    """The root offers every move; the selection is the mean plus
    puct * P * sqrt(visits + 1) / (1 + own visits), and a prior that puts all its mass on one
    move, with a large constant, makes the search play that move."""
    for state in midgame_states(4, seed=13):
        view = state.view(state.current_player)
        moves = view.legal_actions()
        favourite = moves[len(moves) // 2]
        prior = {m: (1.0 if m == favourite else 0.0) for m in moves}
        agent = ISMCTSAgent(iterations=60, seed=0, belief="count", puct=1e6,
                            root_prior=lambda v, ms, prior=prior: [prior[m] for m in ms])
        assert agent.act(view) == favourite
        # The formula, on the root the search left behind.
        policy = agent.tree_policy
        root = policy._root
        assert set(root.edges) == set(moves)  # every move offered, no widening
        expected = max(root.candidates, key=lambda c: (
            root.edges[c[0]].total / root.edges[c[0]].visits
            + 1e6 * math.sqrt(root.visits + 1) * prior[c[0]]
            / (1.0 + root.edges[c[0]].visits - policy.prior_visits)))
        assert policy._puct_root(root)[0] == expected[0]
    with pytest.raises(ValueError, match="root_prior"):
        ISMCTSAgent(root_prior="ppo")


@pytest.mark.parametrize("spec", ["ismcts:iterations=40", "ucbmcts:iterations=30",
                                  "mcts:iterations=20"])
def test_a_search_says_what_it_thought(spec):
    state = midgame_states(1, plies=20, seed=4)[0]
    view = state.view(state.current_player)
    agent = make_agent(spec, seed=2, game="junqi")
    assert agent.thinking() is None
    action = agent.act(view)
    thought = agent.thinking()
    assert thought["iterations"] == agent.last_stats["iterations"] > 0
    moves = thought["moves"]
    assert 1 <= len(moves) <= 5 and moves[0][0] == action  # the move played is the most visited
    assert [m[1] for m in moves] == sorted((m[1] for m in moves), reverse=True)
    assert set(thought["belief"]) == {str(p) for p in view.opponent_posts()}
    for post, probabilities in thought["belief"].items():
        assert math.isclose(sum(probabilities), 1.0, abs_tol=0.01)
        # No weight on a type the view has ruled out for that piece.
        ruled_out = [k for k in range(12) if not view.possible[int(post)] >> k & 1]
        assert all(probabilities[k] == 0 for k in ruled_out)
    again = make_agent(spec, seed=2, game="junqi")
    again.act(view)
    assert again.thinking() == thought  # an iteration budget thinks the same every time


class _FixedBelief:
    """A belief that gives every opponent piece the same row (for ``reveal_entropy``)."""

    def __init__(self, view, row):
        self.view = view
        self.row = row

    def probs(self, post):
        return self.row


def test_reveal_entropy_is_the_entropy_of_the_announced_result():
    """By hand: an engineer onto a piece that is a mine or a marshal (won or lost: log 2); onto
    one that is a mine, a bomb or a marshal with 1/2, 1/4, 1/4 (won, both removed, lost:
    1.5 log 2); a marshal onto a surely smaller piece (0); any move onto an empty post (0)."""
    from agents.junqi.mcts.reveal import reveal_entropy
    from tbw_envs.junqi.pieces import BOMB, ENGINEER, LIEUTENANT, MARSHAL, MINE, NUM_PIECE_TYPES

    def row(**shares):
        kinds = {"mine": MINE, "bomb": BOMB, "marshal": MARSHAL, "lieutenant": LIEUTENANT}
        values = [0.0] * NUM_PIECE_TYPES
        for name, p in shares.items():
            values[kinds[name]] = p
        return values

    checked = set()
    for state in midgame_states(30, seed=21):
        view = state.view(state.current_player)
        for action in view.legal_actions():
            source, target = JunqiState.decode_action(action)
            attacker = view.kind[source]
            if view.owner[target] != view.opponent:
                assert reveal_entropy(view, _FixedBelief(view, row(mine=0.5, marshal=0.5)),
                                      action) == 0.0
                checked.add("empty")
            elif attacker == ENGINEER:
                assert reveal_entropy(view, _FixedBelief(view, row(mine=0.5, marshal=0.5)),
                                      action) == pytest.approx(math.log(2))
                three = _FixedBelief(view, row(mine=0.5, bomb=0.25, marshal=0.25))
                assert reveal_entropy(view, three, action) == pytest.approx(1.5 * math.log(2))
                checked.add("engineer")
            elif attacker == MARSHAL:
                assert reveal_entropy(view, _FixedBelief(view, row(lieutenant=1.0)),
                                      action) == 0.0
                checked.add("marshal")
    assert checked == {"empty", "engineer", "marshal"}


def test_reveal_raises_each_root_attack_by_its_result_entropy():
    """With ``reveal`` the root's candidates are the evaluation's, each attack's credit and score
    raised by reveal x its entropy, other moves unchanged, ranked again by the new score."""
    from agents.junqi.mcts.reveal import reveal_entropy

    raised = 0
    for state in midgame_states(4, seed=17):
        view = state.view(state.current_player)
        plain, _, _ = _searched_root(ISMCTSAgent(iterations=5, seed=0), view)
        agent = ISMCTSAgent(iterations=5, seed=0, reveal=30.0)
        root, _, _ = _searched_root(agent, view)
        belief = make_belief(agent.belief_name, view)
        expected = []
        for action, credit, score in plain.candidates:
            bonus = 30.0 * reveal_entropy(view, belief, action)
            raised += bonus > 0
            expected.append((action, credit + bonus, score + bonus))
        expected.sort(key=lambda candidate: (-candidate[2], candidate[0]))
        assert root.candidates == expected
    assert raised > 0
    with pytest.raises(ValueError, match="reveal"):
        ISMCTSAgent(reveal=-1.0)
