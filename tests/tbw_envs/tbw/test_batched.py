"""TBW's batched core (``tbw_envs.tbw.batched``): the reference backend held to ``tbw_v0``'s
observations, the compiled backend held to the reference under random play (every bundled
scenario and scenarios built here for what the bundled ones never do: line of sight, decimal
costs, square8 and odd-row hex boards, Hp at the turn limit, side 1 first), with games started
fresh, set mid-game and restarted, slots left out of steps, and ``state(i)`` compared as a
``TBWState``; the compiled backend bit-identical across runs and thread counts; what comes in
refused with its reason. The long run (10^6 plies) is marked slow."""

from __future__ import annotations

import random
import re
import warnings

import numpy as np
import pytest

from tbw_envs import tbw_v0
from tbw_envs.core.batched import numba_available, sample_legal
from tbw_envs.core.configs_path import configs_dir
from tbw_envs.core.yaml_loader import load_yaml
from tbw_envs.games import get_game
from tbw_envs.tbw import TBWState, available_scenarios, load_scenario
from tbw_envs.tbw.batched import make_batched
from tbw_envs.tbw.batched.base import state_fields
from tbw_envs.tbw.state import END_REASONS, MUTUAL_DEFEAT
from tests.helpers.tbw_builders import scenario as scenario_dict
from tests.helpers.tbw_builders import ut

needs_numba = pytest.mark.skipif(not numba_available(), reason="numba not installed")
BACKENDS = ["reference", pytest.param("numba", marks=needs_numba)]
ARRAYS = ("observation", "action_mask", "current_player", "terminated", "winner", "end_reason",
          "plies", "turn")
AGENTS = ("player_0", "player_1")

# What the bundled scenarios leave out, each on a small board.
SIGHT = scenario_dict(
    ["...L..", ".H..F.", "......", "..H.L.", "....H.", "......"],
    [(0, "bowman", (5, 0)), (0, "bowman", (5, 3)), (0, "guard", (4, 1), {"leader": True}),
     (1, "bowman", (0, 5)), (1, "bowman", (0, 2)), (1, "guard", (1, 3), {"leader": True})],
    topology="square8", win="leader", max_turns=5, first_side=1,
    unit_types={"bowman": ut(move=2, rng=(2, 3), hp=6, atk=3), "guard": ut(move=2, hp=9)},
    rules={"line_of_sight": True, "turn_limit_result": "hp"})
# 0.1 + 0.1 + 0.1 > 0.3 in floats: only MOVE_EPSILON lets a 0.3 budget cross three tenths; and
# a brink (1.000000001) costs exactly a budget of 1 + MOVE_EPSILON, which the budget admits.
DECIMAL = scenario_dict(
    ["ttttt", "rrSBM", "te.et", "MBSrr", "ttttt"],
    [(0, "walker", (4, 0)), (0, "rider", (4, 4)), (0, "walker", (3, 2)),
     (1, "walker", (0, 4)), (1, "rider", (0, 0)), (1, "stepper", (2, 2))],
    topology="hex", win="annihilation", max_turns=6,
    unit_types={"walker": ut(move=0.3, hp=4, atk=2), "stepper": ut(move=1, hp=3, atk=1),
                "rider": ut(move=3.5, hp=5, atk=2, cls="cavalry")},
    terrain_types={"plain": {"cost": 1}, "tenth": {"cost": {"default": 0.1, "cavalry": 0.2}},
                   "road": {"cost": 0.5}, "marsh": {"cost": {"foot": 2, "cavalry": 3}},
                   "bog": {"cost": {"default": 1, "cavalry": None}}, "mud": {"cost": 2.5},
                   "brink": {"cost": 1.000000001}},
    legend={".": "plain", "t": "tenth", "r": "road", "S": "marsh", "B": "bog", "M": "mud",
            "e": "brink"},
    rules={"turn_limit_result": "hp"})
BUILT = {"sight": SIGHT, "decimal": DECIMAL}


def random_scenario(rng: random.Random) -> dict:
    """A small random scenario (as ``test_state_reference``'s Hypothesis strategy draws)."""
    rows, cols = rng.randint(3, 7), rng.randint(3, 7)
    grid = ["".join(rng.choice("....FmHL") for _ in range(cols)) for _ in range(rows)]
    free = [(r, c) for r in range(rows) for c in range(cols) if grid[r][c] in ".Fm"]
    if len(free) < 2:
        grid[0], grid[-1] = "." + grid[0][1:], grid[-1][:-1] + "."
        free = [(0, 0), (rows - 1, cols - 1)]
    types = {"melee": ut(move=rng.choice([0, 1, 2, 2.5, 3]), hp=rng.randint(3, 12),
                         atk=rng.randint(1, 8)),
             "archer": ut(move=rng.randint(1, 3), rng=(2, rng.randint(2, 3)),
                          hp=rng.randint(3, 10), atk=rng.randint(1, 6)),
             "rider": ut(move=rng.randint(2, 5), hp=rng.randint(3, 10), atk=rng.randint(1, 6),
                         cls="cavalry")}
    cells = rng.sample(free, rng.randint(2, min(8, len(free))))
    units = [(i % 2, rng.choice(sorted(types)), cell, {"leader": i < 2})
             for i, cell in enumerate(cells)]
    return scenario_dict(
        grid, units, topology=rng.choice(["square4", "square8", "hex"]), unit_types=types,
        win=rng.choice(["annihilation", "leader", "none"]), max_turns=rng.randint(1, 6),
        first_side=rng.randint(0, 1),
        terrain_types={"plain": {"cost": 1}, "forest": {"cost": {"foot": 2, "cavalry": 3}},
                       "marsh": {"cost": 1.5}, "hill": {"passable": False},
                       "lake": {"passable": False, "shoot_over": True}},
        legend={".": "plain", "F": "forest", "m": "marsh", "H": "hill", "L": "lake"},
        rules={"line_of_sight": rng.random() < 0.5,
               "turn_limit_result": rng.choice(["draw", "hp"])})


def build(num_envs, scenario, flip, backend, threads=None):
    with warnings.catch_warnings():  # odd-row hex boards under flip: the warning is tested below
        warnings.simplefilter("ignore")
        return make_batched(num_envs, scenario, flip, backend=backend, threads=threads)


def random_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    keys = rng.random(mask.shape)
    keys[~mask] = -1.0
    return keys.argmax(axis=1)


def mid_game_state(scenario, rng: random.Random, late: bool = False) -> TBWState:
    """A running game a random number of random plies in, on its own Scenario object (loaded
    again: the same game, not the same object); ``late``: then moved on to the last round or
    the one before, its units' Hp cut at random, so games end within a few plies."""
    state = TBWState.initial(load_scenario(scenario))
    for _ in range(rng.randint(0, 3 * len(state.scenario.units))):
        legal = state.legal_actions()
        after = state.clone()
        after.apply(rng.choice(legal))
        if after.terminal:
            break
        state = after
    if late:
        state = state.clone()
        state.turn = max(state.turn, state.scenario.max_turns - rng.randint(0, 1))
        state.hp = [rng.randint(1, hp) if hp > 0 else hp for hp in state.hp]
    return state


def snapshot(batch) -> dict[str, np.ndarray]:
    return {name: getattr(batch, name).copy() for name in ARRAYS}


def check_same(compiled, reference, context: str) -> None:
    for name in ARRAYS:
        ours, theirs = getattr(compiled, name), getattr(reference, name)
        assert ours.dtype == theirs.dtype, (context, name)
        if ours.tobytes() != theirs.tobytes():  # bit for bit (-0.0 is not 0.0)
            slots = np.flatnonzero((ours != theirs).reshape(len(ours), -1).any(axis=1))
            raise AssertionError(f"{context}: {name} differs in slots {slots.tolist()}")


def check_states(compiled, reference, slots, context: str) -> None:
    for i in slots:
        ours, theirs = compiled.state(i), reference.state(i)
        assert state_fields(ours) == state_fields(theirs), (context, i)
        assert ours.legal_actions() == theirs.legal_actions(), (context, i)
        assert ours.end_reason == theirs.end_reason, (context, i)


def play_both(scenario, flip, num_envs, batch_steps, seed, states_every=7, check_all=True,
              threads=None):
    """Both backends through the same random play: random slots left out of each step, finished
    games restarted, running ones replaced by mid-game states; every array compared after every
    call, and ``state(i)`` of every slot (``check_all``) or of a few. Returns counts."""
    compiled = build(num_envs, scenario, flip, "numba", threads)
    reference = build(num_envs, scenario, flip, "reference")
    rng, pick = np.random.default_rng(seed), random.Random(seed)
    counts = {"plies": 0, "games": 0, "states": 0}
    check_same(compiled, reference, "built")
    for step in range(batch_steps):
        actions = random_actions(reference.action_mask, rng)
        active = (rng.random(num_envs) < 0.85) & ~reference.terminated
        before = snapshot(compiled)
        compiled.step(actions, active)
        reference.step(actions, active)
        context = f"{compiled.scenario.name} flip={flip} step {step}"
        check_same(compiled, reference, context)
        for name in ARRAYS:  # slots left out stay byte for byte as they were
            assert getattr(compiled, name)[~active].tobytes() == before[name][~active].tobytes()
        counts["plies"] += int(active.sum())
        slots = range(num_envs) if check_all else pick.sample(range(num_envs), 3)
        check_states(compiled, reference, slots, context)
        slot, player = pick.randrange(num_envs), pick.randrange(2)
        assert (compiled.observe_as(slot, player).tobytes()
                == reference.observe_as(slot, player).tobytes()), context
        finished = np.flatnonzero(reference.terminated)
        if finished.size:
            counts["games"] += finished.size
            compiled.reset_games(finished, [None] * finished.size)
            reference.reset_games(finished, [None] * finished.size)
        if step % states_every == 0:
            slot = pick.randrange(num_envs)
            state = mid_game_state(scenario, pick, late=pick.random() < 0.5)
            compiled.set_state(slot, state)
            reference.set_state(slot, state)
            counts["states"] += 1
        check_same(compiled, reference, context + " after resets")
    check_states(compiled, reference, range(num_envs), "end")
    return counts


# =============================================================================== the reference


@pytest.mark.parametrize("scenario", ["duel_5v5_8x8", "hex_skirmish", "open_solo_4", "sight"])
@pytest.mark.parametrize("flip", [True, False])
def test_the_reference_backend_observes_what_tbw_v0_observes(scenario, flip):
    # A few rounds a game, so games end, restart and end again within the steps.
    scenario = BUILT.get(scenario) or {**load_yaml(configs_dir() / "tbw" / f"{scenario}.yaml"),
                                       "max_turns": 4}
    num_envs = 3
    envs = [tbw_v0.raw_env(scenario=scenario, flip_perspective=flip) for _ in range(num_envs)]
    for env in envs:
        env.reset()
    batch = build(num_envs, scenario, flip, "reference")
    rng = np.random.default_rng(1)
    ended = 0
    for _ in range(120):
        for i, env in enumerate(envs):
            agent = env.agent_selection
            seen = env.observe(agent)
            assert seen["observation"].dtype == batch.observation.dtype
            assert seen["observation"].tobytes() == batch.observation[i].tobytes()
            assert np.array_equal(seen["action_mask"].astype(bool), batch.action_mask[i])
            for player, other in enumerate(AGENTS):  # either seat's planes (observe_as)
                assert (batch.observe_as(i, player).tobytes()
                        == env.observe(other)["observation"].tobytes())
            info = env.infos[agent]
            assert (batch.current_player[i], batch.turn[i], batch.plies[i],
                    batch.end_reason[i], batch.winner[i], batch.terminated[i]) == (
                AGENTS.index(agent), info["turn"], info["plies"], info["end_reason"],
                info["winner"], env.terminations[agent])
        actions = random_actions(batch.action_mask, rng)
        active = ~batch.terminated
        batch.step(actions, active)
        for i in np.flatnonzero(active):
            envs[i].step(int(actions[i]))
        finished = np.flatnonzero(batch.terminated)
        for i in finished:
            envs[i].reset()
        batch.reset_games(finished, [None] * finished.size)
        ended += finished.size
    assert ended >= num_envs


# =============================================================================== the kernels


@needs_numba
@pytest.mark.parametrize("flip", [True, False])
@pytest.mark.parametrize("scenario", [*available_scenarios(), *BUILT])
def test_the_kernels_play_as_the_reference(scenario, flip):
    counts = play_both(BUILT.get(scenario, scenario), flip, num_envs=6, batch_steps=60, seed=3)
    assert counts["plies"] >= 250 and counts["states"] >= 8


@needs_numba
def test_the_kernels_play_as_the_reference_on_random_scenarios():
    rng = random.Random(11)
    plies = games = 0
    for k in range(16):
        counts = play_both(random_scenario(rng), k % 2 == 0, num_envs=5, batch_steps=25,
                           seed=k, states_every=5)
        plies, games = plies + counts["plies"], games + counts["games"]
    assert plies > 1000 and games > 30


@needs_numba
def test_a_game_both_sides_lose_at_once_is_a_mutual_defeat():
    # Set in by hand: side 0's leader is already dead when its killer strikes side 1's.
    data = scenario_dict(["...."], [(0, "killer", (0, 0)), (0, "soldier", (0, 3),
                                                           {"leader": True, "hp": 1}),
                                    (1, "soldier", (0, 1), {"leader": True})], win="leader")
    batches = [build(1, data, True, backend) for backend in ("numba", "reference")]
    state = TBWState.initial(load_scenario(data))
    state.hp[1] = 0
    state.occupant[3] = -1
    strike = state.encode_action(0, (0, 0), 2)
    for batch in batches:
        batch.set_state(0, state)
        batch.step(np.array([strike]), np.array([True]))
    check_same(*batches, "mutual defeat")
    assert batches[0].end_reason[0] == 1 + END_REASONS.index(MUTUAL_DEFEAT)
    assert batches[0].winner[0] == -1 and batches[0].terminated[0]


@needs_numba
@pytest.mark.parametrize("scenario, batch_steps", [("battle_10v10_16x16", 30),
                                                   ("fire_emblem_5v5", 60)])
def test_seeded_runs_are_bit_identical_across_runs_and_thread_counts(scenario, batch_steps):
    # Two threads step two slices of 128 games at once; one thread, the kernel the comparisons
    # with the reference step, all of them. The three runs go in lockstep, each drawing from its
    # own generator, and their bytes are compared after every step (no trace is kept: battle's
    # planes and masks are 19 MB a step). sample_legal, not random_actions: a random key for
    # each of battle's 28,161 actions costs twenty times the kernels' step.
    runs = [make_batched(256, scenario, backend="numba", threads=t) for t in (2, 2, 1)]
    rngs = [np.random.default_rng(5) for _ in runs]
    for step in range(batch_steps):
        for batch, rng in zip(runs, rngs, strict=True):
            batch.step(sample_legal(batch.action_mask, rng),
                       (rng.random(256) < 0.9) & ~batch.terminated)
        for other in runs[1:]:
            for name in ARRAYS:
                want, got = getattr(runs[0], name), getattr(other, name)
                assert (got.dtype, got.shape) == (want.dtype, want.shape), (step, name)
                assert np.array_equal(np.ascontiguousarray(got).view(np.uint8),
                                      np.ascontiguousarray(want).view(np.uint8)), (step, name)
        for batch in runs:
            finished = np.flatnonzero(batch.terminated)
            batch.reset_games(finished, [None] * finished.size)


# =============================================================================== new games


@pytest.mark.parametrize("backend", BACKENDS)
def test_reset_games_starts_the_scenario_again_and_draws_nothing(backend):
    batch = make_batched(4, "paper_figure3", backend=backend)
    fresh = snapshot(batch)
    rng = np.random.default_rng(0)
    for _ in range(12):
        batch.step(random_actions(batch.action_mask, rng), ~batch.terminated)
    generators = [np.random.default_rng(9), np.random.default_rng(9)]
    batch.reset_games([1, 3], generators)
    assert [g.random() for g in generators] == [np.random.default_rng(9).random()] * 2
    for name, array in fresh.items():
        assert np.array_equal(getattr(batch, name)[[1, 3]], array[[1, 3]]), name
    assert state_fields(batch.state(3)) == state_fields(TBWState.initial("paper_figure3"))
    assert batch.plies[0] == 12 and batch.extra_info()["turn"] is batch.turn


@pytest.mark.parametrize("backend", BACKENDS)
def test_set_state_takes_the_same_scenario_loaded_again_and_counts_plies_from_it(backend):
    batch = make_batched(2, "duel_5v5_8x8", backend=backend)
    state = mid_game_state("duel_5v5_8x8", random.Random(4))
    assert state.scenario is not batch.scenario
    batch.set_state(1, state)
    assert batch.plies[1] == 0 and batch.turn[1] == state.turn
    copy = batch.state(1)
    assert copy.scenario is batch.scenario and copy is not state
    assert state_fields(copy) == state_fields(state)
    assert copy.legal_actions() == state.legal_actions()


# =============================================================================== what comes in


@pytest.mark.parametrize("backend", BACKENDS)
def test_what_a_batch_cannot_take_is_refused_with_its_reason(backend):
    batch = make_batched(2, "duel_5v5_8x8", backend=backend)
    other = TBWState.initial("paper_figure3")
    assert "differs from this batch's 'duel_5v5_8x8' in its terrain types" in (
        batch.check_variant_state(other))
    cases = [
        (lambda: batch.set_state(0, other), "set_state: the state plays scenario"),
        (lambda: batch.set_state(0, "a state"), "takes tbw_envs.tbw.TBWState states, not str"),
        (lambda: batch.set_state(2, TBWState.initial("duel_5v5_8x8")), "slot index 2 is not"),
        (lambda: batch.step(np.array([0, 1920]), np.array([True, False])),
         "slot 0: action 0 is not legal"),
        (lambda: batch.step(np.array([1921, 1920]), np.array([True, True])),
         "slot 0: action 1921 is not legal"),
        (lambda: batch.step(np.array([1920]), np.array([True])), "actions must be 2 integers"),
        (lambda: batch.step(np.array([1920, 1920]), np.array([1, 1])), "active must be 2 bool"),
        (lambda: batch.reset_games([0, 5], [None, None]), "slot index 5 is not in [0, 2)"),
        (lambda: batch.state(-1), "state: slot index -1 is not"),
    ]
    over = TBWState.initial("duel_5v5_8x8")
    over.terminal = True
    cases.append((lambda: batch.set_state(0, over), "that game is already over"))
    bad_tile = TBWState.initial("duel_5v5_8x8")
    bad_tile.pos[0] = 64
    cases.append((lambda: batch.set_state(0, bad_tile), "pos holds a tile outside [0, 64)"))
    short = TBWState.initial("duel_5v5_8x8")
    short.hp = short.hp[:3]
    cases.append((lambda: batch.set_state(0, short), "hp has 3 entries, the scenario 10"))
    seat = TBWState.initial("duel_5v5_8x8")
    seat.current_player = 2
    cases.append((lambda: batch.set_state(0, seat), "current_player is 2, not a side"))
    before = snapshot(batch)
    for call, message in cases:
        with pytest.raises(ValueError, match=re.escape(message)):
            call()
    for name, array in before.items():  # nothing changed
        assert np.array_equal(getattr(batch, name), array)


def test_make_batched_refuses_bad_arguments_by_name():
    with pytest.raises(ValueError, match="num_envs must be an integer from 1 to"):
        make_batched(0)
    with pytest.raises(TypeError, match="flip_perspective must be True or False, got 'yes'"):
        make_batched(1, flip_perspective="yes")
    with pytest.raises(ValueError, match="backend must be one of auto, numba, reference"):
        make_batched(1, backend="cuda")
    with pytest.raises(ValueError, match="threads must be None or an integer from 1 to 1024"):
        make_batched(1, backend="reference", threads=0)
    with pytest.warns(UserWarning, match="distorts neighbourhoods"):
        make_batched(1, DECIMAL, backend="reference")


def test_the_description_builds_the_core_from_the_aec_env_keywords():
    tbw = get_game("tbw")
    core = tbw.batched_core(3, backend="reference", scenario="paper_figure3",
                            flip_perspective=False)
    assert (core.num_envs, core.scenario.name, core.flip_perspective) == (3, "paper_figure3",
                                                                          False)
    assert tbw.batched_core(1, backend="reference").scenario.name == tbw.default_variant
    with pytest.raises(ValueError, match="takes scenario= and flip_perspective=, not "
                                         "mask_dtype, render_mode"):
        tbw.batched_core(1, render_mode="ansi", mask_dtype=bool)


# =============================================================================== the long run


@needs_numba
@pytest.mark.slow
def test_a_million_random_plies_agree():
    """Every bundled scenario, both frames, fresh and mid-game starts: at least 10^6 plies, the
    turned frame stepped by two threads, the other by one."""
    plies = games = states = 0
    scenarios = available_scenarios()
    per_run = 10**6 // (2 * len(scenarios)) + 1
    for k, scenario in enumerate(scenarios):
        for flip in (True, False):
            done = 0
            seed = 100 + 2 * k + flip
            while done < per_run:
                counts = play_both(scenario, flip, num_envs=128, batch_steps=200, seed=seed,
                                   states_every=3, check_all=False, threads=2 if flip else 1)
                done += counts["plies"]
                games += counts["games"]
                states += counts["states"]
                seed += 1000
            plies += done
    assert plies >= 10**6 and games > 1000 and states > 1000
