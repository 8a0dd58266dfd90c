"""Hypothesis fuzz over TBW scenario dicts and YAML files (``tbw_envs.tbw.variant``): loading
never hangs (a per-example deadline) and never raises anything but ``ScenarioError``; whatever
it accepts is usable (a state is built, a move is played, an observation is encoded). The rule
sets' and the YAML loader's fuzz tests sit with theirs."""

from __future__ import annotations

import copy
import random

import yaml
from hypothesis import given
from hypothesis import strategies as st

from tbw_envs.core.yaml_loader import parse_yaml
from tbw_envs.tbw import Scenario, ScenarioError, TBWState, parse_scenario
from tbw_envs.tbw.observation import ObservationEncoder
from tests.helpers.fuzz import FUZZ, values

BASE_SCENARIO = {
    "name": "fuzz",
    "description": "a small valid scenario that the fuzz mutates",
    "board": {"topology": "square4", "terrain": ["..#.", "....", ".~..", "...."],
              "legend": {".": "plain", "#": "hill", "~": "lake"}},
    "terrain": {"plain": {"cost": 1}, "hill": {"passable": False},
                "lake": {"passable": False, "shoot_over": True},
                "bog": {"cost": {"foot": 2, "default": 3}, "char": "b"}},
    "unit_types": {"sword": {"hp": 5, "atk": 2, "move": 2, "range": [1, 1]},
                   "bow": {"hp": 3, "atk": 1, "move": 2.5, "range": 2, "move_class": "foot"}},
    "units": [{"side": 0, "type": "sword", "pos": [3, 0], "leader": True},
              {"side": 0, "type": "bow", "pos": [3, 3]},
              {"side": 1, "type": "sword", "pos": [0, 0], "leader": True, "hp": 4}],
    "first_side": 0,
    "max_turns": 5,
    "win": "leader",
    "rules": {"line_of_sight": True, "turn_limit_result": "hp"},
}


def _paths(value, prefix=()):
    """Every place in ``value`` a mutation may hit: dict keys and list indices."""
    yield prefix
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(
        value, list) else ()
    for key, child in items:
        yield from _paths(child, (*prefix, key))


SCENARIO_PATHS = [p for p in _paths(BASE_SCENARIO) if p]

DELETE = object()
mutations = st.lists(
    st.tuples(
        # Unknown keys too, at the top and inside the board.
        st.sampled_from([*SCENARIO_PATHS, ("extra",), ("board", "size")]),
        values | st.just(DELETE),
    ),
    min_size=1,
    max_size=3,
)


def _mutate(base, changes):
    data = copy.deepcopy(base)
    for path, value in changes:
        parent = data
        for key in path[:-1]:
            try:
                parent = parent[key]
            except (KeyError, IndexError, TypeError):
                break
        else:
            key = path[-1]
            if isinstance(parent, dict) or (
                isinstance(parent, list) and isinstance(key, int) and key < len(parent)
            ):
                if value is DELETE:
                    if isinstance(parent, list) or key in parent:
                        del parent[key]
                else:
                    parent[key] = value
    return data


def _use(scenario: Scenario) -> None:
    state = TBWState.initial(scenario)
    legal = state.legal_actions()
    if legal:
        state.apply(random.Random(0).choice(legal))
    ObservationEncoder(scenario).encode(state, 0)


def test_the_fuzz_base_is_valid():
    _use(parse_scenario(copy.deepcopy(BASE_SCENARIO)))


@FUZZ
@given(mutations)
def test_scenario_dicts_load_or_raise_scenario_error(changes):
    data = _mutate(BASE_SCENARIO, changes)
    try:
        scenario = parse_scenario(data)
    except ScenarioError:
        return
    _use(scenario)


@FUZZ
@given(mutations)
def test_scenario_yaml_files_load_or_raise_scenario_error(changes):
    text = yaml.safe_dump(_mutate(BASE_SCENARIO, changes))
    try:
        scenario = parse_scenario(parse_yaml(text, "fuzz.yaml", error=ScenarioError))
    except ScenarioError:
        return
    _use(scenario)
