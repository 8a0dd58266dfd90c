"""``agents.junqi.belief.model_fit.fit_opponent_model`` and ``fit_markdown``: the fit of the
model tracker's own features over every informative ply of the games, and a table whose
``FITTED_WEIGHTS`` block reads back as the fitted weights, digit for digit."""

from __future__ import annotations

import pytest

from agents.junqi.belief.model_fit import fit_markdown, fit_opponent_model
from agents.junqi.belief.opponent_model import FEATURE_CONFIG, MODEL_FEATURES
from agents.junqi.belief.scoring import random_play_games


@pytest.fixture(scope="module")
def fit():
    return fit_opponent_model(random_play_games(2, seed=4, rules="ccgc", longest=40))


def test_the_fit_reads_every_ply_with_a_choice_of_both_players(fit):
    games = random_play_games(2, seed=4, rules="ccgc", longest=40)
    choices = moves = 0
    for start, actions in games:
        state = start.clone()
        for action in actions:
            legal = state.legal_actions()
            if len(legal) > 1:
                choices += 1
                moves += len(legal)
            state.apply(action)
    assert (fit["choices"], fit["moves"], fit["games"]) == (choices, moves, 2)
    assert fit["features"] == list(MODEL_FEATURES) and fit["feature_config"] == FEATURE_CONFIG
    assert fit["mean_nll"] <= fit["mean_nll_uniform"]


def test_the_markdown_block_reads_back_as_the_weights(fit):
    text = fit_markdown(fit)
    lines = text.splitlines()
    assert lines[:2] == ["| feature | weight | standard error |", "|---|---:|---:|"]
    assert [line.split(" | ")[0][2:] for line in lines[2:2 + len(MODEL_FEATURES)]] == list(
        MODEL_FEATURES)
    assert f"2 games, {fit['choices']} choices ({fit['moves']} legal moves)" in text
    namespace: dict = {}
    exec(text[text.index("FITTED_WEIGHTS = {"):], namespace)
    assert namespace["FITTED_WEIGHTS"] == fit["weights"]
