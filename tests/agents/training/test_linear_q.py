"""The linear Q-learner of the weight tuners (``agents.training.linear_q``): it recovers a linear
target whatever the units of its features, its values are w . phi, its state round-trips exactly,
and bad parameters and state dicts are refused, naming the field."""

from __future__ import annotations

import copy
import json
import math

import numpy as np
import pytest

from agents.training.linear_q import LinearQ, feature_scales
from tests.helpers.errors import assert_names
from tests.helpers.weight_files import set_at


def test_linear_q_recovers_a_linear_target_whatever_the_feature_units():
    rng = np.random.default_rng(0)
    true_w = np.array([2.0, -0.5, 300.0])
    units = np.array([100.0, 1.0, 0.01])  # features of very different sizes
    samples = rng.normal(size=(2000, 3)) * units
    learner = LinearQ(np.zeros(3), feature_scales(samples), step_size=0.05)
    for phi in samples:
        learner.td_update(phi, float(true_w @ phi))
    np.testing.assert_allclose(learner.weights, true_w, rtol=1e-3)


def test_linear_q_values_are_w_dot_phi_and_an_update_moves_toward_the_target():
    learner = LinearQ([1.0, -2.0], [10.0, 0.5], step_size=0.1)
    phi = np.array([3.0, 1.0])
    assert learner.value(phi) == pytest.approx(1.0)
    np.testing.assert_allclose(learner.values(np.array([phi, 2 * phi])), [1.0, 2.0])
    error = learner.td_update(phi, 11.0)
    assert error == pytest.approx(10.0)
    assert 1.0 < learner.value(phi) < 11.0


def test_linear_q_state_round_trip_is_exact():
    learner = LinearQ([0.1, 0.2], [3.0, 7.0], step_size=0.01, names=("a", "b"))
    learner.td_update([1.0, 2.0], 5.0)
    copy = LinearQ.from_state_dict(json.loads(json.dumps(learner.state_dict())))
    assert copy.theta.tolist() == learner.theta.tolist()
    assert copy.names == ("a", "b")


@pytest.mark.parametrize("weights, scales, step, match", [
    ([1.0], [1.0, 2.0], 0.1, "1 weights but 2 scales"),
    ([1.0], [0.0], 0.1, "scales must be positive"),
    ([np.nan], [1.0], 0.1, "weights must be finite"),
    ([1.0], [1.0], 0.0, "step_size must be positive"),
])  # fmt: skip
def test_linear_q_rejects_bad_parameters(weights, scales, step, match):
    with pytest.raises(ValueError, match=match):
        LinearQ(weights, scales, step)


def test_feature_scales_measure_active_values_only():
    samples = np.array([[0.0, 3.0, 0.0], [0.0, -4.0, 0.0], [0.0, 0.0, 0.0], [2.0, 0.0, 0.0]])
    np.testing.assert_allclose(feature_scales(samples), [2.0, np.sqrt(12.5), 1.0])
    with pytest.raises(ValueError, match="non-empty"):
        feature_scales(np.zeros((0, 3)))


@pytest.mark.input_contract
def test_linear_q_refuses_bad_state_dicts_naming_the_field():
    good = LinearQ([1.0, 2.0], [1.0, 1.0], 0.1, ("a", "b")).state_dict()
    for change, words in (
        (set_at("theta", [1.0, math.nan]), ["learner.theta[1]", "nan"]),
        (set_at("scales", [1.0, -2.0]), ["learner.scales", "-2.0"]),
        (set_at("step_size", "big"), ["learner.step_size", "'big'"]),
        (set_at("names", ["a", 3]), ["learner.names", "3"]),
        (set_at("theta", [1e308, 1.0]), []),  # fine on its own: the scales make it overflow
    ):
        data = copy.deepcopy(good)
        change(data)
        if not words:
            data["scales"] = [1e-310, 1.0]
            words = ["learner", "overflows"]
        with pytest.raises(ValueError) as caught:
            LinearQ.from_state_dict(data)
        assert_names(str(caught.value), *words)
