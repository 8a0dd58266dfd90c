"""Online Evolutionary Planning (OEP) for TBW: evolve whole turns instead of searching them.

After Justesen, Mahlmann, Risi and Togelius, "Playing Multi-Action Adversarial Games: Online
Evolutionary Planning versus Tree Search" (2016-17). A *genome* is one whole turn of the side to
move; a population of genomes evolves within a budget per turn, and the best one is played.

Genome. TBW's turn is every ready unit acting once (move, then perhaps attack), in an order of
our choosing. A genome holds, for each ready unit ``i`` (``TurnModel`` index), a gene
``(key_i, tile_i, target_i)``: a priority key (a float; the units act in increasing key order,
the "random keys" encoding of permutations), the destination tile and the enemy to attack
(``TurnModel`` enemy index, -1 for none). Because order lives in per-unit keys, *uniform
crossover* (each unit's whole gene from either parent) always yields a valid order, and a unit
keeps its action together with its place in the order.

Replay and repair. A genome is replayed from the turn's start state on the search model's small
mutable lists (positions, occupancy, enemy Hp, dead mask; ``agents.tbw.search.model``, the rules
the single-turn search uses). A unit whose action has become illegal (its tile taken by a unit
that moved earlier or not reachable with the enemies still alive, its target dead or out of
reach) is repaired to the *nearest* legal action: the legal tile closest (board distance, then
tile index) to the gene's tile from which it can still attack its target, else the closest
legal tile with no attack (its own tile is always legal, so repair always succeeds). Repair is
deterministic, so a genome's plan is a pure function of its genes, and it is written back into
the genome (the paper's repaired genomes), so a repaired genome replays unchanged. A kill that
wins the game ends the plan there.

Fitness is the single-turn search's end-of-turn evaluation, ``evaluate(state, side)``
(``DefaultEvaluation()`` by default) of the game state after the plan, with ``side`` = the
mover, computed as the exact solver computes it: when the evaluation offers a decomposition
(``DefaultEvaluation`` does), from its per-unit tile tables and the enemies' Hp, without building
a game state (``agents.tbw.search.model.Evaluator.leaf``, equal to the callable's value, which
the tests check); otherwise the plan is applied to a clone of the start state (the core checks
every action again) and the callable is called. The tables cost a small fraction of a call of
the callable, which decides how many generations fit in a time budget on the big maps
(``scripts/bench/bench_oep.py``, docs/results.md). End states already seen this turn (the same
positions and Hp) reuse their value, and many children are such duplicates.

Evolution (each generation): the population is sorted by fitness and the best half survives
(elitism, so the best value never decreases); the other half is refilled by children of two
survivors drawn uniformly at random: uniform crossover, then, with probability
``mutation_rate``, one mutation: a random unit either takes a new random action (3 times in 4;
an attack half the time when it has any, otherwise attacks are a small share of its actions
and random genomes would rarely attack) or swaps its place in the order with another unit.
``mutation_rate`` is 0.5 by default: in a sweep against the exact solver's optimum it reached
the optimum as often as 1.0 with fewer evaluations, and more often than 0.1 (docs/results.md).

Initial population: the greedy script's plan (``GreedyAgent`` played out on a copy of the
state: a sensible plan at once, so OEP never plays a turn worse, by the evaluation, than that
script would), the idle plan (every unit stays and holds fire: the do-nothing floor), one
*focus-fire* plan per enemy that can be attacked this turn (every unit that can reach it attacks
it: a kill that needs three attackers, a leader's say, scores nothing until the third hit, so
variation alone rarely assembles it, while the exact search always finds it) and random genomes
(random order, random actions) for diversity, as in the paper. Seeds beyond ``population`` are
dropped (the greedy, idle and focus plans come first).

Budgets: ``seconds`` per turn (anytime: the clock is checked before every genome is scored, and
an evaluation is not started when the longest evaluation so far would cross the deadline; the
deadline keeps ``TIME_MARGIN`` of ``seconds`` back, so that a busy machine's scheduling noise
stays within it) or
``generations`` (deterministic for a seed, for tests and reproducible arenas). The run also
stops when ``STALL_GENERATIONS`` generations in a row produce no end state not seen before (the
population has converged on a small turn; more generations would only re-score known plans).
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass, field

from agents.common.budget import TIME_MARGIN, Deadline
from agents.common.params import (
    MAX_COUNT,
    MAX_POPULATION,
    OPTIONAL_SECONDS,
    SEED,
    CallableParam,
    Float,
    Int,
    Text,
    check_params,
    check_seed,
)
from agents.tbw.evaluation import DefaultEvaluation, as_two_argument_evaluation, decomposition_of
from agents.tbw.greedy import GreedyAgent
from agents.tbw.search.agent import TurnPlanAgent
from agents.tbw.search.model import FREE, Evaluator, TurnModel

DEFAULT_SECONDS = 1.0
DEFAULT_POPULATION = 100
DEFAULT_MUTATION_RATE = 0.5
ACTION_MUTATION_SHARE = 0.75  # the rest of the mutations swap two units' places in the order
ATTACK_SHARE = 0.5  # random actions: an attack this often when the unit has any
STALL_GENERATIONS = 25

_UNSET = object()

# The parameters of ``OEPAgent`` and ``evolve_turn`` (``agents.common.params``).
PARAMS = {
    "seconds": OPTIONAL_SECONDS,  # finite, > 0, at most MAX_SECONDS
    "generations": Int(low=0, high=MAX_COUNT, optional=True),
    "population": Int(low=2, high=MAX_POPULATION),
    "mutation_rate": Float(low=0.0, high=1.0),
    "seed": SEED,
    "evaluate": CallableParam(),
    "name": Text(optional=True, spec=False),
}


def check_budget(seconds, generations, who: str = "OEP") -> tuple[float | None, int | None]:
    """Validate a budget: ``seconds`` in (0, MAX_SECONDS] or None, ``generations`` in
    [0, MAX_COUNT] or None, not both None."""
    checked = check_params(PARAMS, who, seconds=seconds, generations=generations)
    if checked["seconds"] is None and checked["generations"] is None:
        raise ValueError(f"{who}: give a budget: seconds per turn, generations, or both")
    return checked["seconds"], checked["generations"]


@dataclass(eq=False)
class Genome:
    """One whole turn: per ready unit a priority key (order) and an action (tile, target)."""

    keys: list[float]
    genes: list[tuple[int, int]]  # (tile, enemy index or -1) per ready unit
    value: float = -math.inf
    plan: list[tuple[int, int, int]] = field(default_factory=list)  # (unit, tile, target)

    def order(self) -> list[int]:
        return sorted(range(len(self.keys)), key=lambda i: (self.keys[i], i))

    def copy(self) -> Genome:
        return Genome(self.keys[:], self.genes[:], self.value, self.plan[:])


@dataclass
class OEPResult:
    value: float  # fitness of the plan played
    actions: list[int]  # the plan as game actions, in playing order
    plan: list[tuple[int, tuple[int, int], int | None]]  # (unit id, (row, col), target id)
    generations: int  # complete generations after the initial population
    evaluations: int  # calls of the evaluation (end states not seen before this turn)
    replays: int  # genomes replayed (children included, evaluated or not)
    repairs: int  # unit actions repaired during replays
    seconds: float
    stopped: str  # "generations", "time", "converged" or "no units"
    seed_values: dict[str, float]  # the seeded genomes' fitness ("greedy", "idle", "random")


class TurnProblem:
    """One turn of the side to move in ``state``: replay with repair, fitness, random genomes.

    Public for the tests; ``evolve_turn`` is the entry point."""

    def __init__(self, state, evaluate=None):
        self.state = state
        self.model = model = TurnModel(state)
        self.side = model.side
        self.n = model.n
        self.evaluate = (
            DefaultEvaluation() if evaluate is None else as_two_argument_evaluation(evaluate)
        )
        self.evaluator = Evaluator(
            model, self.evaluate, decomposition_of(self.evaluate, state, self.side)
        )
        self.distance = state.scenario.board.distance_table
        self.full_mask = model.full_attackable_mask
        self._nearest: dict[tuple[int, int], tuple[int, ...]] = {}
        self._moves: list[list[tuple[int, int]]] = []
        self._attacks: list[list[tuple[int, int]]] = []
        for i in range(self.n):
            tiles = model.region(i, self.full_mask)  # the widest region: every kill made
            self._moves.append([(t, -1) for t in tiles])
            self._attacks.append([(t, e) for t in tiles for e in model.targets(i, t)])
        self._values: dict[tuple, float] = {}
        # The longest evaluation so far: a conservative guess of the next one on a busy machine.
        self.longest_evaluation = 0.0
        self.evaluations = 0
        self.replays = 0
        self.repairs = 0

    # ---------------------------------------------------------------- genomes

    def random_action(self, i: int, rng: random.Random) -> tuple[int, int]:
        attacks = self._attacks[i]
        if attacks and rng.random() < ATTACK_SHARE:
            return attacks[rng.randrange(len(attacks))]
        moves = self._moves[i]
        return moves[rng.randrange(len(moves))]

    def random_genome(self, rng: random.Random) -> Genome:
        return Genome(
            [rng.random() for _ in range(self.n)],
            [self.random_action(i, rng) for i in range(self.n)],
        )

    def idle_genome(self) -> Genome:
        return Genome([float(i) for i in range(self.n)],
                      [(t, -1) for t in self.model.start])

    def genome_from_actions(self, actions) -> Genome:
        """The genome of a sequence of unit actions of this turn (END_TURN stops it); units
        that do not act in it stay on their tiles, after the others."""
        m, state = self.model, self.state
        genome = self.idle_genome()
        genome.keys = [float(self.n + i) for i in range(self.n)]
        for k, action in enumerate(actions):
            if action == state.end_turn_action:
                break
            i, tile, target = m.decode(action)
            genome.keys[i] = float(k)
            genome.genes[i] = (tile, target)
        return genome

    def focus_genomes(self) -> list[Genome]:
        """Per enemy that can be attacked this turn, the plan in which every unit able to
        attack it does so (from its attack tile nearest to where it stands, strongest attacker
        first) and the others stay: kills that need several attackers, such as a leader's,
        earn nothing until the last hit lands, so random variation rarely assembles them."""
        m = self.model
        out = []
        for e in range(m.n_attackable):
            genome = self.idle_genome()
            attackers = []
            for i in range(self.n):
                d = self.distance[m.start[i]]
                tiles = [t for t, target in self._attacks[i] if target == e]
                if tiles:
                    genome.genes[i] = (min(tiles, key=lambda t: (d[t], t)), e)
                    attackers.append(i)
            attackers.sort(key=lambda i: (-m.atk[i], i))
            for k, i in enumerate(attackers):
                genome.keys[i] = float(k - self.n)
            out.append(genome)
        return out

    def greedy_genome(self, seed: int) -> Genome:
        """The plan ``GreedyAgent(seed)`` would play this turn, as a genome."""
        agent = GreedyAgent(seed)
        sim = self.state.clone()
        actions = []
        while not sim.is_terminal() and sim.current_player == self.side:
            action = agent.act(sim)
            actions.append(action)
            if action == sim.end_turn_action:
                break
            sim.apply(action)
        return self.genome_from_actions(actions)

    def crossover(self, a: Genome, b: Genome, rng: random.Random) -> Genome:
        keys, genes = [], []
        for i in range(self.n):
            parent = a if rng.random() < 0.5 else b
            keys.append(parent.keys[i])
            genes.append(parent.genes[i])
        return Genome(keys, genes)

    def mutate(self, genome: Genome, rng: random.Random) -> None:
        i = rng.randrange(self.n)
        if self.n > 1 and rng.random() >= ACTION_MUTATION_SHARE:
            j = rng.randrange(self.n - 1)
            j += j >= i
            genome.keys[i], genome.keys[j] = genome.keys[j], genome.keys[i]
        else:
            genome.genes[i] = self.random_action(i, rng)

    # ---------------------------------------------------------------- replay and repair

    def _candidates(self, i: int, tile: int) -> tuple[int, ...]:
        """Unit ``i``'s widest region, nearest to ``tile`` first (ties: lower tile index)."""
        key = (i, tile)
        out = self._nearest.get(key)
        if out is None:
            d = self.distance[tile]
            out = self._nearest[key] = tuple(
                sorted(self.model.region(i, self.full_mask), key=lambda t: (d[t], t))
            )
        return out

    def replay(self, genome: Genome) -> tuple:
        """Play ``genome`` from the start state, repairing illegal unit actions in place;
        sets ``genome.plan`` and returns the end state's key (positions, Hp, who acted)."""
        m = self.model
        pos, occ, hp = m.start[:], m.occupancy[:], m.enemy_hp[:]
        dead = 0
        plan = []
        genes = genome.genes
        won = False
        self.replays += 1
        for i in genome.order():
            tile, target = genes[i]
            region = self.model.region_set(i, dead)
            if not (
                tile in region and (occ[tile] == FREE or occ[tile] == i)
                and (target < 0 or (hp[target] > 0 and target in m.targets(i, tile)))
            ):
                tile, target = self._repair(i, tile, target, region, occ, hp)
                genes[i] = (tile, target)
                self.repairs += 1
            occ[pos[i]] = FREE
            occ[tile] = i
            pos[i] = tile
            plan.append((i, tile, target))
            if target >= 0:
                left = hp[target] - m.atk[i]
                if left > 0:
                    hp[target] = left
                else:
                    hp[target] = 0
                    occ[m.enemy_tile[target]] = FREE
                    dead |= 1 << target
                    if m.is_win(dead):
                        won = True
                        break
        genome.plan = plan
        acted = frozenset(i for i, _, _ in plan) if won else None
        return tuple(pos), tuple(hp), acted

    def _repair(self, i, tile, target, region, occ, hp) -> tuple[int, int]:
        m = self.model
        candidates = self._candidates(i, tile)
        if target >= 0 and hp[target] > 0:
            for t in candidates:
                if t in region and (occ[t] == FREE or occ[t] == i) and target in m.targets(i, t):
                    return t, target
        for t in candidates:
            if t in region and (occ[t] == FREE or occ[t] == i):
                return t, -1
        raise AssertionError("unreachable: a unit's own tile is always legal")  # pragma: no cover

    def end_state(self, plan):
        """The real game state after ``plan`` (the core checks every action again)."""
        state = self.state.clone()
        for i, tile, target in plan:
            state.apply(self.model.encode(i, tile, target))
        return state

    def score(self, genome: Genome, deadline: Deadline | None = None,
              force: bool = False) -> bool:
        """Replay and set ``genome.value``; False (genome unscored) when ``deadline`` leaves no
        time for this genome, or for one more evaluation as long as the longest so far (unless
        ``force``)."""
        watched = deadline is not None and not force
        if watched and not deadline.allows():
            return False
        key = self.replay(genome)
        value = self._values.get(key)
        if value is None:
            if watched and not deadline.allows(self.longest_evaluation):
                return False
            started = time.perf_counter()
            value = self.fitness(key, genome.plan)
            self._values[key] = value
            self.evaluations += 1
            if deadline is not None:
                self.longest_evaluation = max(self.longest_evaluation,
                                              time.perf_counter() - started)
        genome.value = value
        return True

    def fitness(self, key: tuple, plan) -> float:
        """The evaluation of the end state of ``plan``, whose ``replay`` key is ``key``."""
        if self.evaluator.decomposition is None:
            return float(self.evaluate(self.end_state(plan), self.side))
        pos, hp, _ = key
        dead = 0
        for e, left in enumerate(hp):
            if left <= 0:
                dead |= 1 << e
        return float(self.evaluator.leaf(pos, hp, dead, plan))

    def actions(self, plan) -> list[int]:
        return [self.model.encode(i, tile, target) for i, tile, target in plan]

    def readable(self, plan) -> list[tuple[int, tuple[int, int], int | None]]:
        m, board = self.model, self.state.scenario.board
        return [
            (m.ready[i], board.rc(tile), None if target < 0 else m.enemy_uid[target])
            for i, tile, target in plan
        ]


def evolve_turn(state, seconds=None, generations=None, population: int = DEFAULT_POPULATION,
                mutation_rate: float = DEFAULT_MUTATION_RATE, rng: random.Random | None = None,
                evaluate=None) -> OEPResult:
    """Evolve a plan for the side to move in ``state`` (see the module docstring)."""
    started = time.perf_counter()
    seconds, generations = check_budget(seconds, generations, "evolve_turn")
    check_params(PARAMS, "evolve_turn", population=population, mutation_rate=mutation_rate)
    if state.is_terminal():
        raise ValueError("OEP: cannot plan a turn in a finished game")
    rng = random.Random() if rng is None else rng
    problem = TurnProblem(state, evaluate)
    if problem.n == 0:  # nothing can act: the turn is END_TURN
        end = state.clone()
        end.apply(state.end_turn_action)
        value = float(problem.evaluate(end, problem.side))
        return OEPResult(value, [state.end_turn_action], [], 0, 1, 0, 0,
                         time.perf_counter() - started, "no units", {})
    deadline = Deadline(seconds, started, margin=TIME_MARGIN)

    # Initial population: the greedy script's plan, the idle plan, then random genomes.
    seeds = [("greedy", problem.greedy_genome(rng.randrange(2**31))),
             ("idle", problem.idle_genome())]
    seeds += [("focus", genome) for genome in problem.focus_genomes()]
    pop: list[Genome] = []
    seed_values: dict[str, float] = {}
    stopped = None
    for k in range(population):
        name, genome = seeds[k] if k < len(seeds) else ("random", problem.random_genome(rng))
        if not problem.score(genome, deadline, force=not pop):  # the first is always scored
            stopped = "time"
            break
        pop.append(genome)
        seed_values[name] = max(seed_values.get(name, -math.inf), genome.value)

    keep = population // 2
    done = 0
    stall = 0
    while stopped is None:
        if generations is not None and done >= generations:
            stopped = "generations"
            break
        if stall >= STALL_GENERATIONS:
            stopped = "converged"
            break
        pop.sort(key=lambda g: -g.value)  # stable: ties keep their places, deterministic
        survivors = pop[:keep]
        pop = survivors[:]
        seen = problem.evaluations
        while len(pop) < population:
            child = problem.crossover(rng.choice(survivors), rng.choice(survivors), rng)
            if rng.random() < mutation_rate:
                problem.mutate(child, rng)
            if not problem.score(child, deadline):
                stopped = "time"
                break
            pop.append(child)
        if stopped is None:
            done += 1
            stall = 0 if problem.evaluations > seen else stall + 1

    best = max(pop, key=lambda g: g.value)  # the first best: deterministic
    return OEPResult(
        value=best.value, actions=problem.actions(best.plan), plan=problem.readable(best.plan),
        generations=done, evaluations=problem.evaluations, replays=problem.replays,
        repairs=problem.repairs, seconds=time.perf_counter() - started, stopped=stopped,
        seed_values=seed_values,
    )


class OEPAgent(TurnPlanAgent):
    """Plays each of its turns by Online Evolutionary Planning (``evolve_turn``).

    ``seconds`` per turn (default 1.0, or no time limit when ``generations`` is given and
    ``seconds`` is not), ``generations`` per turn (deterministic for a seed); with both, the run
    stops at whichever comes first. The plan is evolved at the first call of the turn and handed
    out one unit action per call; if the view is not the state the plan expects, the agent plans
    again from the view (like ``TBWSearchAgent``). Limits (``PARAMS``, checked when the agent
    is built): ``seconds`` finite and at most 3600, ``generations`` at most 1,000,000,
    ``population`` 2 to 10,000, ``mutation_rate`` in [0, 1].
    """

    PARAMS = PARAMS

    def __init__(self, seconds=_UNSET, generations: int | None = None,
                 population: int = DEFAULT_POPULATION,
                 mutation_rate: float = DEFAULT_MUTATION_RATE, seed: int | None = None,
                 evaluate=None, name: str | None = None):
        who = "OEPAgent"
        if seconds is _UNSET:
            seconds = None if generations is not None else DEFAULT_SECONDS
        self.seconds, self.generations = check_budget(seconds, generations, who)
        checked = check_params(self.PARAMS, who, population=population,
                               mutation_rate=mutation_rate, seed=seed, evaluate=evaluate,
                               name=name)
        self.population = checked["population"]
        self.mutation_rate = checked["mutation_rate"]
        self.evaluate = evaluate
        self.name = name or "oep"
        self._rng = random.Random(checked["seed"])
        self._forget_plan()

    def reset(self, seed: int | None = None) -> None:
        seed = check_seed(seed, "OEPAgent.reset")
        if seed is not None:
            self._rng.seed(seed)
        self._forget_plan()

    def _plan(self, view) -> OEPResult:
        return evolve_turn(
            view, seconds=self.seconds, generations=self.generations,
            population=self.population, mutation_rate=self.mutation_rate,
            rng=self._rng, evaluate=self.evaluate,
        )
