"""Gymnasium's ``RecordVideo`` over both single-agent envs writes a video (it needs moviepy,
which the ``render`` extra installs)."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest

import tbw_envs  # noqa: F401 - registers the envs
from tests.helpers.quick_games import QUICK_JUNQI, SKIRMISH

ENVS = {"tbw": ("tbw_envs/TBWSingle-v0", {"scenario": SKIRMISH}),
        "junqi": ("tbw_envs/JunqiSingle-v0", {"rules": QUICK_JUNQI})}


@pytest.mark.parametrize("game", ["tbw", "junqi"])
def test_record_video_writes_an_episode(game, tmp_path):
    pytest.importorskip("moviepy", reason="moviepy is not installed (the render extra)")
    env_id, kwargs = ENVS[game]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # moviepy's and RecordVideo's own notices
        env = gymnasium.wrappers.RecordVideo(
            gymnasium.make(env_id, render_mode="rgb_array", **kwargs), str(tmp_path),
            episode_trigger=lambda episode: episode == 0, disable_logger=True,
        )
        rng = np.random.default_rng(0)
        env.reset(seed=0)
        for _ in range(6):
            mask = env.unwrapped.action_masks()
            _, _, terminated, truncated, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
            if terminated or truncated:
                break
        env.close()
    videos = list(tmp_path.glob("*.mp4"))
    assert len(videos) == 1 and videos[0].stat().st_size > 1000
