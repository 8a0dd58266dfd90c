"""Constructor arguments of the envs and wrappers hold to the input contract: a wrong type or
value is refused with an error naming it, and every integer type is an integer."""

from __future__ import annotations

import random

import numpy as np
import pytest

from tbw_envs import junqi_v0, tbw_v0
from tbw_envs.junqi.env.single import make_junqi_single
from tbw_envs.junqi.layout import Layout, random_layout, validate_layout
from tbw_envs.tbw.env.single import make_tbw_single

BAD_ARGUMENTS = [
    (lambda: tbw_v0.raw_env(flip_perspective="no"), TypeError, "flip_perspective"),
    (lambda: tbw_v0.raw_env(flip_perspective=1), TypeError, "flip_perspective"),
    (lambda: tbw_v0.env(string_infos="yes"), TypeError, "string_infos"),
    (lambda: junqi_v0.raw_env(string_infos=None), TypeError, "string_infos"),
    (lambda: make_tbw_single(string_infos=1), TypeError, "string_infos"),
    (lambda: make_tbw_single(illegal_reward=float("nan")), ValueError, "illegal_reward"),
    (lambda: make_junqi_single(illegal_reward=float("inf")), ValueError, "illegal_reward"),
    (lambda: make_tbw_single(illegal_reward="-1"), ValueError, "illegal_reward"),
    (lambda: make_tbw_single(illegal_reward=True), ValueError, "illegal_reward"),
    (lambda: make_junqi_single(opening_plies=-1), ValueError, "opening_plies"),
    (lambda: make_junqi_single(opening_plies=2.5), ValueError, "opening_plies"),
]


@pytest.mark.parametrize("case", range(len(BAD_ARGUMENTS)))
def test_bad_constructor_arguments_are_named(case):
    build, error, words = BAD_ARGUMENTS[case]
    with pytest.raises(error, match=words):
        build()


def test_valid_arguments_of_other_numeric_types_are_accepted():
    env = make_tbw_single(illegal_reward=np.float32(-0.5), opening_plies=np.int64(2))
    assert env.illegal_reward == -0.5 and env.opening_plies == 2
    assert tbw_v0.raw_env(flip_perspective=np.bool_(False)).flip_perspective is False
    _, info = make_junqi_single(opening_plies=np.int8(3), learner_seat=1).reset(seed=0)
    assert info["plies"] == 3


def test_a_layout_of_numpy_integers_is_the_same_layout():
    layout = random_layout(random.Random(0))
    as_numpy = Layout(tuple(None if k is None else np.int64(k) for k in layout.cells))
    validate_layout(as_numpy)
    assert as_numpy == layout and all(type(k) in (int, type(None)) for k in as_numpy.cells)
    with pytest.raises(ValueError, match="bad piece type"):
        validate_layout(Layout(tuple(True if k == 0 else k for k in layout.cells)))


def test_masked_sb3_vec_env_needs_at_least_one_env():
    pytest.importorskip("stable_baselines3", reason="stable-baselines3 is not installed")
    from gymnasium import spaces

    from agents.training.sb3_vec import MaskedSB3VecEnv

    class NoGames:
        num_envs = 0
        observation_space = spaces.Dict({
            "observation": spaces.Box(0, 1, (2,)),
            "action_mask": spaces.Box(0, 1, (3,), np.int8),
        })
        action_space = spaces.Discrete(3)

    with pytest.raises(ValueError, match="num_envs=0"):
        MaskedSB3VecEnv(NoGames())
