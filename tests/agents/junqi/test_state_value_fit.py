"""``agents.junqi.state_value.fit_report`` and ``state_value_yaml``: the report of a fit scored
on test games, the material-only baseline against a plain one-weight search, and the YAML that
``load_state_value`` reads back with how the fit was made."""

from __future__ import annotations

import math

import numpy as np
import pytest
import yaml

from agents.junqi.belief.scoring import random_play_games
from agents.junqi.evaluation import load_weights
from agents.junqi.state_value import (
    PIECE_FEATURES,
    RIDGE,
    STATE_FEATURES,
    fit_report,
    fit_state_value,
    load_state_value,
    played_positions,
    state_value_yaml,
)
from tbw_envs.junqi.pieces import FLAG, NUM_PIECE_TYPES, PIECE_NAMES

EVERY = 3


@pytest.fixture(scope="module")
def piece_values():
    return dict(zip(PIECE_NAMES, load_weights("tuned").piece_values, strict=True))


@pytest.fixture(scope="module")
def games():
    """Random games played to their end (a few hundred plies at most)."""
    return {"fit": random_play_games(8, seed=2, rules="ccgc", longest=5000),
            "test": random_play_games(6, seed=3, rules="ccgc", longest=5000)}


def material_losses(games, piece_values) -> float:
    """The ridge-penalised logistic fit of the results on the material balance alone, found by a
    plain search over its one weight; its log-loss on ``games["test"]``."""
    def balances(which):
        rows, targets = [], []
        for _, _, player, owner, kind, result in played_positions(games[which], EVERY):
            total = 0.0
            for post, side in enumerate(owner):
                if side in (0, 1) and kind[post] != FLAG and kind[post] < NUM_PIECE_TYPES:
                    value = piece_values[PIECE_NAMES[kind[post]]]
                    total += value if side == player else -value
            rows.append(total)
            targets.append(result)
        return np.asarray(rows), np.asarray(targets)

    def loss(w, x, y):
        p = np.clip(1 / (1 + np.exp(-w * x)), 1e-12, 1 - 1e-12)
        return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))

    x, y = balances("fit")
    grid = np.linspace(-0.02, 0.02, 40_001)
    best = min(grid, key=lambda w: loss(w, x, y) + RIDGE / 2 * w * w)
    return loss(best, *balances("test"))


def test_the_report_is_the_fit_and_its_scores_on_the_test_games(games, piece_values):
    value, report = fit_report(games["fit"], games["test"], piece_values, EVERY)
    same, info = fit_state_value(games["fit"], piece_values, EVERY)
    assert value == same and report["fit"] == info
    assert report["weights"] == dict(zip(STATE_FEATURES, value.weights, strict=True))
    assert report["scale"] == value.scale
    assert report["piece_values"] == pytest.approx(
        {name: w / value.scale for name, w in zip(PIECE_FEATURES, value.weights, strict=False)})
    tested = sum(1 for _ in played_positions(games["test"], EVERY))
    assert report["test"]["samples"] == tested > 0
    assert report["test"]["material_log_loss"] == pytest.approx(
        material_losses(games, piece_values), abs=1e-4)
    # Scored on the games it was fitted on, the test log-loss is the fit's.
    _, again = fit_report(games["fit"], games["fit"], piece_values, EVERY)
    assert again["test"]["log_loss"] == pytest.approx(again["fit"]["log_loss"])
    assert "test" not in fit_report(games["fit"], None, piece_values, EVERY)[1]


def test_the_yaml_reads_back_with_how_it_was_made(games, piece_values, tmp_path):
    value, report = fit_report(games["fit"], None, piece_values, EVERY)
    made_by = {"command": "python fit --every 3", "games_sha256": {"a/games.jsonl": "0" * 64},
               "samples": report["fit"]["samples"]}
    text = state_value_yaml(value, made_by)
    assert text.startswith("# The learned Junqi state value")
    path = tmp_path / "value.yaml"
    path.write_text(text)
    loaded = load_state_value(path)
    assert loaded.weights == value.weights and loaded.scale == value.scale
    data = yaml.safe_load(text)
    assert list(data) == ["weights", "scale", "made_by"] and data["made_by"] == made_by
    assert list(data["weights"]) == list(STATE_FEATURES)
    assert all(math.isfinite(w) for w in data["weights"].values())
