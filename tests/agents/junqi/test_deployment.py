"""Junqi deployment (``agents.junqi.deployment``): the heuristic layout is legal and boxes the flag
in with mines, and agents deploy their layout in the environment's deployment phase."""

from __future__ import annotations

import random

from agents.junqi import (
    GreedyAgent,
    heuristic_layout,
)
from tbw_envs.junqi import parse_post, validate_layout
from tbw_envs.junqi.layout import HEADQUARTERS_CELLS
from tbw_envs.junqi.pieces import (
    FLAG,
    MINE,
)


def test_heuristic_layout_is_legal_and_boxes_the_flag_in_with_mines():
    rand = random.Random(0)
    seen_flags = set()
    for _ in range(200):
        layout = heuristic_layout(rand)
        validate_layout(layout)
        flag = layout.cells.index(FLAG)
        assert flag in HEADQUARTERS_CELLS
        seen_flags.add(flag)
        for beside in (flag - 1, flag + 1, flag - 5):
            assert layout.cells[beside] == MINE
    assert seen_flags == set(HEADQUARTERS_CELLS)


def test_agents_deploy_their_layout_in_the_environments_deployment_phase():
    from tbw_envs import junqi_v0

    env = junqi_v0.raw_env(deployment="agents")
    env.reset(seed=0)
    agents = {"player_0": GreedyAgent(seed=1, layout="heuristic"),
              "player_1": GreedyAgent(seed=2)}
    assert hasattr(agents["player_0"], "layout") and not hasattr(agents["player_1"], "layout")
    plies = 0
    for name in env.agent_iter():
        _, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        view = env.view(name)
        env.step(env.to_env_action(name, agents[name].act(view)))
        plies += 1
        if plies >= 60:
            break
    own = env.view("player_0")
    assert own.phase == "play"
    flag = next(p for p in range(60) if own.owner[p] == 0 and own.kind[p] == FLAG)
    assert parse_post("L1") == flag or parse_post("L3") == flag
