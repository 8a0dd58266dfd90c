"""Training opponents (``agents.training.pools``): several opponents draw one per episode
reproducibly, and the snapshot pool draws per env and keeps frozen copies."""

from __future__ import annotations

import random

import pytest

from agents.arena import tbw_game
from agents.training.pools import MixedOpponent, build_opponent
from tbw_envs.games import game_names
from tbw_envs.tbw.env.single import make_tbw_single
from tests.helpers.ppo import maskable_ppo_or_skip, torch_or_skip, untrained_policy


def test_snapshot_pool_draws_per_env_and_keeps_frozen_copies():
    torch = torch_or_skip()
    maskable_ppo_or_skip()
    from agents.training.pools import SnapshotPool

    env = make_tbw_single("duel_5v5_8x8")
    pool = SnapshotPool("tbw", pool_size=2, latest_prob=0.0)
    first_env, second_env = pool.opponent(seed=1), pool.opponent(seed=2)
    with pytest.raises(RuntimeError, match="empty"):
        first_env.reset(0)
    policies = [untrained_policy(env, seed=s) for s in range(3)]
    for steps, policy in enumerate(policies):
        pool.add(policy, steps)
    assert pool.steps == [1, 2]  # the oldest left the pool
    # Frozen copies: training the live policy later does not change a snapshot.
    live = next(policies[2].parameters())
    with torch.no_grad():
        live.add_(1.0)
    assert not torch.equal(live, next(pool.policies[-1].parameters()))
    # Each env keeps its own draw for its whole episode while other envs reset.
    first_env.reset(5)
    drawn = first_env._current
    rng = random.Random(0)
    for _ in range(40):
        second_env.reset(rng.randrange(1000))
    assert first_env._current is drawn
    assert set(pool.games_against) == {1, 2}
    state = tbw_game()(0)
    assert first_env.act(state.view(state.current_player)) in state.legal_actions()


@pytest.mark.parametrize("game", list(game_names()))
def test_several_opponents_draw_one_per_episode_reproducibly(game):
    def draws(seed):
        opponent = build_opponent(["random", "greedy"], [1.0, 3.0], game, seed, pool=None)
        assert isinstance(opponent, MixedOpponent) and opponent.name == "random+greedy"
        picks = []
        for episode in range(30):
            opponent.reset(episode)
            picks.append(opponent._current.name)
        return picks

    assert draws(4) == draws(4)
    assert set(draws(4)) == {"random", "greedy"}
    single = build_opponent(["greedy"], None, game, 0, pool=None)
    assert not isinstance(single, MixedOpponent)
