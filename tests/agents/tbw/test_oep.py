"""Online Evolutionary Planning (agents.tbw.oep): legality, repair, elitism, determinism,
budgets, bad parameters, the registry."""

from __future__ import annotations

import random

import pytest

from agents.random_agent import RandomAgent
from agents.registry import agent_entry, make_agent
from agents.tbw.evaluation import DefaultEvaluation, load_weights
from agents.tbw.oep import Genome, OEPAgent, TurnProblem, evolve_turn
from agents.tbw.search import plan_turn
from tbw_envs.tbw import TBWState, load_scenario, parse_scenario
from tests.helpers.stepping_clock import stepping_clock
from tests.helpers.tbw_search import close, random_state, replay

SCENARIOS = ["duel_5v5_8x8", "hex_skirmish", "fire_emblem_5v5", "paper_figure3"]


def random_game_state(name: str, rng: random.Random, max_plies: int = 40):
    """A state after random plies (so turns start mid-way, with kills and wounded units)."""
    state = TBWState.initial(load_scenario(name))
    for _ in range(rng.randrange(max_plies)):
        if state.is_terminal():
            break
        actions = state.legal_actions()
        state.apply(actions[rng.randrange(len(actions))])
    return state


def leader_kill_state():
    """Three swordsmen (Atk 5) can reach the enemy leader (12 Hp): only all three together
    kill it (a win); the greedy script hits the weakest enemy, a decoy, instead."""
    return TBWState.initial(parse_scenario({
        "name": "leader_kill",
        "board": {"topology": "square4", "rows": 7, "cols": 7, "default_terrain": "plain"},
        "terrain": {"plain": {"cost": 1}},
        "unit_types": {
            "sword": {"hp": 10, "atk": 5, "move": 2, "range": [1, 1]},
            "lord": {"hp": 12, "atk": 1, "move": 1, "range": [1, 1]},
            "decoy": {"hp": 2, "atk": 1, "move": 1, "range": [1, 1]},
        },
        "units": [
            {"side": 0, "type": "sword", "pos": [5, 3]},
            {"side": 0, "type": "sword", "pos": [3, 5]},
            {"side": 0, "type": "sword", "pos": [3, 1]},
            {"side": 0, "type": "lord", "pos": [0, 0], "leader": True},
            {"side": 1, "type": "lord", "pos": [3, 3], "leader": True},
            {"side": 1, "type": "decoy", "pos": [6, 5]},
        ],
        "win": "leader",
        "max_turns": 5,
    }))


# ------------------------------------------------------------------ legality


@pytest.mark.parametrize("name", SCENARIOS)
def test_every_action_the_agent_returns_is_legal(name):
    rng = random.Random(name)
    agent = OEPAgent(generations=3, population=12, seed=1)
    for _ in range(6):
        state = random_game_state(name, rng)
        if state.is_terminal():
            continue
        side = state.current_player
        agent.reset(rng.randrange(1000))
        while not state.is_terminal() and state.current_player == side:
            action = agent.act(state.clone())
            assert state.is_legal(action), state.describe_action(action)
            state.apply(action)


def test_whole_games_against_random_are_legal_and_the_agent_wins():
    agent = OEPAgent(generations=4, population=16, seed=0)
    opponent = RandomAgent(seed=0)
    wins = 0
    for game in range(2):
        state = TBWState.initial(load_scenario("duel_5v5_8x8"))
        players = (agent, opponent) if game == 0 else (opponent, agent)
        for p in players:
            p.reset(game)
        while not state.is_terminal():
            action = players[state.current_player].act(state.clone())
            assert state.is_legal(action)
            state.apply(action)
        oep_side = 0 if game == 0 else 1
        wins += state.winner == oep_side
    assert wins == 2


def test_a_side_without_units_ends_its_turn():
    state = TBWState.initial(load_scenario("open_solo_4"))
    agent = OEPAgent(generations=2, population=4, seed=0)
    while not state.is_terminal():
        action = agent.act(state.clone())
        assert state.is_legal(action)
        state.apply(action)
    result = evolve_turn(_side_one_to_move(), generations=1)
    assert result.stopped == "no units" and result.actions == [result_state_end_turn()]


def _side_one_to_move():
    state = TBWState.initial(load_scenario("open_solo_4"))
    for _ in range(4):
        state.apply(state.legal_actions()[0])
    assert state.current_player == 1 and not state.ready_units()
    return state


def result_state_end_turn():
    return TBWState.initial(load_scenario("open_solo_4")).end_turn_action


def test_the_agent_replans_when_the_view_is_not_the_expected_state():
    agent = OEPAgent(generations=2, population=8, seed=3)
    first = TBWState.initial(load_scenario("duel_5v5_8x8"))
    agent.act(first.clone())
    other = random_game_state("duel_5v5_8x8", random.Random(5), 30)
    assert not other.is_terminal()
    action = agent.act(other.clone())
    assert other.is_legal(action)


# ------------------------------------------------------------------ repair


def _check_replay_against_the_core(problem: TurnProblem, genome: Genome) -> None:
    """Replays ``genome`` and checks, step by step in the real game state, that an action legal
    as written is kept and an illegal one becomes the nearest legal action of that unit (keeping
    its target when it can)."""
    original = genome.genes[:]
    problem.replay(genome)
    state = problem.state.clone()
    m = problem.model
    board = state.scenario.board
    for i, tile, target in genome.plan:
        wanted_tile, wanted_target = original[i]
        wanted = m.encode(i, wanted_tile, wanted_target)
        chosen = m.encode(i, tile, target)
        assert state.is_legal(chosen)
        if state.is_legal(wanted):
            assert (tile, target) == (wanted_tile, wanted_target)
        else:
            uid = m.ready[i]
            legal = [state.decode_action(a) for a in state.legal_actions()[:-1]]
            legal = [(board.tile(*rc), t) for u, rc, t in legal if u == uid]
            enemy = None if wanted_target < 0 else m.enemy_uid[wanted_target]
            keeping = [t for t, tgt in legal if enemy is not None and tgt == enemy]
            pool = keeping or [t for t, tgt in legal if tgt is None]
            nearest = min(board.distance(wanted_tile, t) for t in pool)
            assert board.distance(wanted_tile, tile) == nearest
            assert (target >= 0) == bool(keeping)
            if keeping:
                assert target == wanted_target
        state.apply(chosen)
    # the plan ends with the turn (or the game)
    assert state.is_terminal() or state.current_player != problem.side


@pytest.mark.parametrize("seed", range(40))
def test_repair_gives_the_nearest_legal_action_and_is_idempotent(seed):
    state = random_state(seed, own=3, enemies=3)
    if state.is_terminal():
        pytest.skip("no game")
    problem = TurnProblem(state)
    rng = random.Random(seed)
    for _ in range(15):
        genome = problem.random_genome(rng)
        _check_replay_against_the_core(problem, genome)
        repaired_plan = genome.plan[:]
        before = problem.repairs
        problem.replay(genome)  # repaired genomes replay unchanged
        assert problem.repairs == before and genome.plan == repaired_plan


@pytest.mark.parametrize("name", ["hex_skirmish", "fire_emblem_5v5", "battle_10v10_16x16"])
def test_repair_on_bundled_scenarios(name):
    rng = random.Random(name)
    for _ in range(3):
        state = random_game_state(name, rng)
        if state.is_terminal():
            continue
        problem = TurnProblem(state)
        for _ in range(6):
            _check_replay_against_the_core(problem, problem.random_genome(rng))


def test_repair_examples():
    state = leader_kill_state()
    problem = TurnProblem(state)
    m = problem.model
    board = state.scenario.board
    lord = m.enemy_uid.index(4)
    decoy = m.enemy_uid.index(5)
    stay = (m.start[3], -1)  # our own leader, far away, stays
    # Units 0 and 1 both want (4, 3) to hit the lord: the second is moved to the nearest tile
    # from which it can still attack it.
    t43 = board.tile(4, 3)
    genome = Genome([0.0, 1.0, 2.0, 3.0], [(t43, lord), (t43, lord), (m.start[2], -1), stay])
    problem.replay(genome)
    assert genome.plan[0] == (0, t43, lord)
    i, tile, target = genome.plan[1]
    assert i == 1 and target == lord and board.distance(tile, t43) == 2
    assert genome.genes[1] == (tile, lord)  # written back into the genome
    # A target out of reach from every tile the unit can use: it keeps its tile, holds fire.
    genome = Genome([0.0, 1.0, 2.0, 3.0],
                    [(m.start[0], -1), (m.start[1], -1), (m.start[2], decoy), stay])
    problem.replay(genome)
    assert genome.plan[2] == (2, m.start[2], -1)
    # A tile held by a unit that has not moved yet: the nearest free tile instead.
    genome = Genome([1.0, 0.0, 2.0, 3.0],
                    [(m.start[0], -1), (m.start[0], -1), (m.start[2], -1), stay])
    _check_replay_against_the_core(problem, genome)
    assert genome.plan[0][0] == 1 and genome.plan[0][1] != m.start[0]
    assert genome.plan[1] == (0, m.start[0], -1)


# ------------------------------------------------------------------ fitness and elitism


@pytest.mark.parametrize("name", ["duel_5v5_8x8", "hex_skirmish", "fire_emblem_5v5"])
def test_plan_value_is_its_evaluation_and_never_below_the_seeds(name):
    rng = random.Random(name)
    evaluate = DefaultEvaluation()
    for _ in range(3):
        state = random_game_state(name, rng)
        if state.is_terminal():
            continue
        result = evolve_turn(state, generations=3, population=20, rng=random.Random(0),
                             evaluate=evaluate)
        assert {"greedy", "idle"} <= set(result.seed_values)
        assert result.value >= max(result.seed_values.values())
        end = replay(state, result.actions)
        assert end.is_terminal() or end.current_player != state.current_player
        assert close(result.value, evaluate(end, state.current_player))


@pytest.mark.parametrize("name", ["duel_5v5_8x8", "fire_emblem_5v5", "battle_10v10_16x16"])
def test_table_fitness_equals_the_evaluation_of_the_real_end_state(name):
    """The fast fitness (the decomposition's tables) against its reference twin: the plan
    applied by the core to a clone, then ``evaluate(state, side)``; tuned weights too."""
    rng = random.Random(name)
    for evaluate in (DefaultEvaluation(), load_weights("tuned")):
        for _ in range(3):
            state = random_game_state(name, rng)
            if state.is_terminal():
                continue
            problem = TurnProblem(state, evaluate)
            assert problem.evaluator.decomposition is not None
            genomes = [problem.random_genome(rng) for _ in range(15)]
            genomes += problem.focus_genomes() + [problem.idle_genome()]
            for genome in genomes:
                key = problem.replay(genome)
                reference = evaluate(problem.end_state(genome.plan), problem.side)
                assert close(problem.fitness(key, genome.plan), reference)


def test_an_evaluation_without_decomposition_is_called_on_the_end_state():
    state = random_game_state("hex_skirmish", random.Random(5))
    calls = []

    def hp_margin(s, side):
        calls.append(s)
        return float(sum(s.hp[u] for u in s.scenario.side_units[side])
                     - sum(s.hp[u] for u in s.scenario.side_units[1 - side]))

    problem = TurnProblem(state, hp_margin)
    assert problem.evaluator.decomposition is None
    genome = problem.random_genome(random.Random(0))
    key = problem.replay(genome)
    value = problem.fitness(key, genome.plan)
    assert len(calls) == 1 and value == hp_margin(problem.end_state(genome.plan), problem.side)


def test_more_generations_never_lower_the_value():
    state = random_game_state("fire_emblem_5v5", random.Random(2))
    values = [
        evolve_turn(state, generations=g, population=20, rng=random.Random(4)).value
        for g in (0, 1, 3, 6)
    ]
    assert values == sorted(values)


def test_focus_fire_seed_finds_a_three_unit_leader_kill():
    state = leader_kill_state()
    result = evolve_turn(state, generations=0, population=4, rng=random.Random(0))
    assert result.seed_values["focus"] > 100_000  # a win
    assert replay(state, result.actions).winner == 0


def test_reaches_the_exact_optimum_on_a_small_turn():
    state = TBWState.initial(load_scenario("duel_5v5_8x8"))
    evaluate = DefaultEvaluation()
    exact = plan_turn(state, "exact", evaluate=evaluate)
    result = evolve_turn(state, generations=30, population=40, rng=random.Random(0),
                         evaluate=evaluate)
    assert result.value <= exact.value + 1e-9
    assert close(result.value, exact.value)


def test_one_argument_evaluation_is_accepted():
    state = TBWState.initial(load_scenario("duel_5v5_8x8"))

    def hp_sum(s):  # scores for the side that moved (s.last_side)
        return float(sum(s.hp[u] for u in s.scenario.side_units[s.last_side]))

    result = evolve_turn(state, generations=1, population=4, evaluate=hp_sum)
    assert result.value == sum(state.hp[u] for u in state.scenario.side_units[0])


# ------------------------------------------------------------------ determinism and budgets


def test_seeded_generations_budget_is_deterministic():
    def game(seed):
        agents = [OEPAgent(generations=3, population=10, seed=seed), RandomAgent(seed=1)]
        for k, a in enumerate(agents):
            a.reset(seed + k)
        state = TBWState.initial(load_scenario("hex_skirmish"))
        actions = []
        while not state.is_terminal() and len(actions) < 40:
            action = agents[state.current_player].act(state.clone())
            state.apply(action)
            actions.append(action)
        return actions

    assert game(7) == game(7)
    state = random_game_state("fire_emblem_5v5", random.Random(3))
    a = evolve_turn(state, generations=4, population=12, rng=random.Random(9))
    b = evolve_turn(state, generations=4, population=12, rng=random.Random(9))
    assert (a.actions, a.value, a.evaluations, a.generations) == (
        b.actions, b.value, b.evaluations, b.generations)
    assert a.stopped in ("generations", "converged") and a.generations <= 4


def test_generations_budget_counts_generations():
    state = TBWState.initial(load_scenario("fire_emblem_5v5"))
    result = evolve_turn(state, generations=3, population=10, rng=random.Random(0))
    assert result.generations == 3 and result.stopped == "generations"
    assert result.replays == 10 + 3 * 5  # the initial population, then half of it each time


def test_time_budget_stops_the_evolution_on_its_deadline(monkeypatch):
    # On a clock that moves 0.1 ms per reading the budget runs out after a fixed amount of
    # work, on any machine; without a deadline this turn evolves until it converges (thousands
    # of generations). Its own timing figures are in docs/results.md.
    stepping_clock(monkeypatch, step=1e-4)
    state = TBWState.initial(load_scenario("battle_10v10_16x16"))
    result = evolve_turn(state, seconds=0.3, rng=random.Random(0))
    assert result.stopped == "time" and result.generations > 0  # cut inside a generation
    assert result.seconds <= 0.3  # ended on the clock's readings within the budget
    agent = OEPAgent(seconds=0.2, seed=0)
    action = agent.act(state.clone())
    assert state.is_legal(action)
    assert agent.last_result.stopped == "time" and agent.last_result.seconds <= 0.2


def test_default_budget_is_one_second_unless_generations_are_given():
    assert (OEPAgent().seconds, OEPAgent().generations) == (1.0, None)
    assert (OEPAgent(generations=5).seconds, OEPAgent(generations=5).generations) == (None, 5)
    both = OEPAgent(seconds=0.5, generations=5)
    assert (both.seconds, both.generations) == (0.5, 5)


# ------------------------------------------------------------------ bad input


@pytest.mark.parametrize("kwargs, error, words", [
    ({"seconds": 0}, ValueError, "seconds must be > 0"),
    ({"seconds": -1.0}, ValueError, "seconds must be > 0"),
    ({"seconds": float("nan")}, ValueError, "seconds must be a finite number"),
    ({"seconds": "1"}, TypeError, "seconds must be a finite number"),
    ({"seconds": True}, TypeError, "seconds"),
    ({"seconds": None}, ValueError, "give a budget"),
    ({"generations": -1}, ValueError, "generations must be >= 0"),
    ({"generations": 2.5}, TypeError, "generations must be an integer"),
    ({"population": 1}, ValueError, "population must be >= 2"),
    ({"population": 10.0}, TypeError, "population must be an integer"),
    ({"mutation_rate": 1.5}, ValueError, "mutation_rate must be >= 0.0 and <= 1.0"),
    ({"mutation_rate": -0.1}, ValueError, "mutation_rate"),
    ({"seed": -1}, ValueError, "seed must be >= 0"),
    ({"evaluate": 3}, TypeError, "evaluate must be callable"),
])
def test_bad_parameters_raise_clear_errors(kwargs, error, words):
    with pytest.raises(error, match=words):
        OEPAgent(**kwargs)


def test_bad_calls_raise():
    state = TBWState.initial(load_scenario("duel_5v5_8x8"))
    with pytest.raises(ValueError, match="population must be >= 2"):
        evolve_turn(state, generations=1, population=0)
    with pytest.raises(ValueError, match="give a budget"):
        evolve_turn(state)
    finished = leader_kill_state()
    for action in (finished.encode_action(0, (4, 3), 4), finished.encode_action(1, (3, 4), 4),
                   finished.encode_action(2, (3, 2), 4)):
        finished.apply(action)
    assert finished.is_terminal()
    with pytest.raises(ValueError, match="finished game"):
        evolve_turn(finished, generations=1)
    with pytest.raises(ValueError, match="game is over"):
        OEPAgent(generations=1).act(finished)
    with pytest.raises(ValueError, match="seed must be >= 0"):
        OEPAgent(generations=1).reset(-3)


# ------------------------------------------------------------------ registry


def test_registry_builds_oep_for_tbw_only():
    spec = "oep:generations=2,population=6,mutation_rate=0.25"
    agent = make_agent(spec, seed=3, game="tbw")
    assert isinstance(agent, OEPAgent) and agent.name == spec
    assert (agent.generations, agent.population, agent.mutation_rate, agent.seconds) == (
        2, 6, 0.25, None)
    assert make_agent("oep:seconds=1").seconds == 1.0
    with pytest.raises(ValueError, match="does not play junqi"):
        make_agent("oep", game="junqi")
    with pytest.raises(ValueError, match="seconds must be > 0"):
        make_agent("oep:seconds=0")
    with pytest.raises(ValueError, match="unknown parameter 'budget' for oep"):
        make_agent("oep:budget=3")
    tuned = make_agent("oep:generations=1,weights=tuned", game="tbw")
    assert tuned.evaluate == load_weights("tuned") != DefaultEvaluation()
    with pytest.raises(ValueError, match="unknown TBW evaluation weights 'best'"):
        make_agent("oep:weights=best", game="tbw")
    with pytest.raises(ValueError, match="OEP agent weights= or evaluate=, not both"):
        agent_entry("oep").build(weights="tuned", evaluate=DefaultEvaluation())
