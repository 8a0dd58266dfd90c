"""Third-party RL clients on our envs with nothing but the libraries' usual calls, over runs
long enough that games end every way (wins for either seat, draws, illegal moves), often in the
same step. Each test is skipped, with the reason, only when its library is missing."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from tbw_envs import junqi_v0, tbw_v0
from tbw_envs.junqi.env.single import make_junqi_single
from tbw_envs.tbw.env.single import make_tbw_single
from tests.helpers.quick_games import QUICK_JUNQI, SKIRMISH

AEC = {"tbw": lambda: tbw_v0.env(scenario=SKIRMISH),
       "junqi": lambda: junqi_v0.env(rules=QUICK_JUNQI)}
PARALLEL = {"tbw": lambda: tbw_v0.parallel_env(scenario=SKIRMISH),
            "junqi": lambda: junqi_v0.parallel_env(rules=QUICK_JUNQI)}
SINGLE = {"tbw": lambda: make_tbw_single(scenario=SKIRMISH, learner_seat="random",
                                         mask_in_obs=True),
          "junqi": lambda: make_junqi_single(rules=QUICK_JUNQI, learner_seat="random",
                                             mask_in_obs=True)}
# Steps of each TorchRL rollout (5 ms each). The seeded runs reach ten endings and all three
# rewards within 100 steps, so 400 leave four times what they need and more would repeat the same
# endings. In TBW's masked AEC env the first seat's group sees a decisive reward seldom (most
# skirmishes are drawn at the turn limit), so when it first sees +1 and -1 depends on the seed:
# with seed 0 only after 673 steps, with seed 10 after 16 (over 12 seeds the latest was 325).
ROLLOUT_STEPS = 400
TORCH_SEEDS = {("tbw", "aec"): 10}


@pytest.mark.parametrize("game", ["tbw", "junqi"])
def test_tianshou_collector_buffers_every_ending(game):
    pytest.importorskip("tianshou", reason="tianshou is not installed (the integrations extra)")
    from tianshou.algorithm.algorithm_base import Policy
    from tianshou.data import Batch, Collector, VectorReplayBuffer
    from tianshou.env import DummyVectorEnv

    class MaskedRandom(Policy):
        """Random legal actions from the Dict observation's mask, and now and then an
        illegal one."""

        def __init__(self, action_space, seed=0):
            super().__init__(action_space=action_space)
            self.rng = np.random.default_rng(seed)

        def forward(self, batch, state=None, **kwargs):
            acts = []
            for mask in np.asarray(batch.obs.action_mask).astype(bool):
                pool = ~mask if self.rng.random() < 0.03 and (~mask).any() else mask
                acts.append(int(self.rng.choice(np.flatnonzero(pool))))
            return Batch(act=np.array(acts), state=state)

    envs = DummyVectorEnv([SINGLE[game] for _ in range(8)])
    policy = MaskedRandom(envs.action_space[0])
    buffer = VectorReplayBuffer(4000, buffer_num=8)
    # raise_on_nan_in_buffer: what Tianshou's trainer checks, and what a None in infos broke.
    collector = Collector(policy, envs, buffer, raise_on_nan_in_buffer=True)
    collector.reset()
    # 400 steps: over 100 episodes; all three rewards and illegal endings come within 100.
    stats = collector.collect(n_step=400)
    assert stats.n_collected_episodes >= 40
    data = buffer.sample(0)[0]
    done = data.terminated | data.truncated
    assert set(np.unique(data.rew[done])) == {-1.0, 0.0, 1.0}
    for key in ("winner", "end_reason", "learner", "plies", "illegal_action"):
        assert np.asarray(data.info[key]).dtype.kind in "biu", key
    assert np.asarray(data.info["illegal_action"])[done].any()
    envs.close()


@pytest.mark.parametrize("kind", ["aec", "parallel"])
@pytest.mark.parametrize("game", ["tbw", "junqi"])
def test_torchrl_pettingzoo_wrapper_rolls_out_through_every_ending(game, kind):
    pytest.importorskip("torchrl", reason="torchrl is not installed (the integrations extra)")
    from torchrl.envs.libs.pettingzoo import PettingZooWrapper
    from torchrl.envs.utils import check_env_specs

    torch = pytest.importorskip("torch", reason="torch is not installed (the train extra)")
    seed = TORCH_SEEDS.get((game, kind), 0)
    torch.manual_seed(seed)  # the rollout's random actions come from torch's global generator
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # TorchRL's note on the PettingZoo version it tests
        if kind == "aec":
            env = PettingZooWrapper(AEC[game](), use_mask=True, categorical_actions=True,
                                    seed=seed)
        else:
            env = PettingZooWrapper(PARALLEL[game](), categorical_actions=True, seed=seed)
        check_env_specs(env)
        rollout = env.rollout(ROLLOUT_STEPS, break_when_any_done=False)
    group = next(iter(env.group_map))
    info = rollout["next", group, "info"]
    for key in ("winner", "end_reason", "plies"):
        assert key in info.keys()  # noqa: SIM118 - a TensorDict, whose `in` wants its keys
    done = rollout["next", "done"].reshape(-1)
    assert int(done.sum()) >= 10
    rewards = rollout["next", group, "reward"]
    assert set(rewards.unique().tolist()) == {-1.0, 0.0, 1.0}
    if kind == "parallel":
        active = info["active_agent"].reshape(len(done), -1)
        assert set(active[done].unique().tolist()) == {-1}
        assert set(active[~done].unique().tolist()) <= {0, 1}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_cleanrl_recipe_trains_through_mixed_endings_over_seeds(seed):
    pytest.importorskip("torch", reason="torch is not installed (the train extra)")
    from scripts.integrations import cleanrl_ppo

    args = cleanrl_ppo.Args(game="tbw", scenario=SKIRMISH, seed=seed, iterations=3,
                            num_envs=8, num_steps=32)
    result = cleanrl_ppo.run(args)
    assert result["illegal"] == 0 and result["weights_changed"]
    assert result["episodes"] >= 40 and min(result["outcomes"].values()) > 0


@pytest.mark.parametrize("game", ["tbw", "junqi"])
def test_supersuit_vector_env_plays_whole_games_of_our_parallel_env(game):
    """SuperSuit's helpers on ``parallel_env()``: rows are seats, the waiting seat's mask
    allows only the last id, a game ends for both rows in one step with opposite rewards (or
    a draw), and the env resets inside that step."""
    ss = pytest.importorskip("supersuit",
                             reason="supersuit is not installed (the integrations extra)")
    from tbw_envs import junqi_v0, tbw_v0

    par = (tbw_v0.parallel_env(scenario="paper_figure3") if game == "tbw"
           else junqi_v0.parallel_env(rules={"total_ply_limit": 60}))
    envs = ss.concat_vec_envs_v1(ss.pettingzoo_env_to_vec_env_v1(par), 2, num_cpus=0,
                                 base_class="gymnasium")
    assert envs.num_envs == 4
    obs, _ = envs.reset(seed=0)
    rng = np.random.default_rng(0)
    n = envs.action_space.n
    ended = 0
    for _ in range(5000):
        masks = obs["action_mask"].astype(bool)
        assert masks.any(axis=1).all()
        for game_rows in (masks[0:2], masks[2:4]):  # one seat acts, the other waits
            waiting = [row.sum() == 1 and row[n - 1] for row in game_rows]
            assert sum(waiting) >= 1
        actions = np.array([rng.choice(np.flatnonzero(row)) for row in masks])
        obs, rewards, terminated, truncated, infos = envs.step(actions)
        done = np.logical_or(terminated, truncated)
        for first in (0, 2):
            assert done[first] == done[first + 1]  # both seats end together
            if done[first]:
                ended += 1
                assert rewards[first] == -rewards[first + 1]
                assert "terminal_observation" in infos[first]
        if ended >= 2:
            break
    assert ended >= 2
    envs.close()


@pytest.mark.parametrize("game", ["tbw", "junqi"])
def test_torchrl_gym_wrapper_reads_single_agent_infos(game):
    """TorchRL's ``default_info_dict_reader`` reads each info value's ``dtype``: Python ints and
    bools failed with "'int' object has no attribute 'dtype'"."""
    pytest.importorskip("torchrl", reason="torchrl is not installed (the integrations extra)")
    import torch
    from torchrl.envs import GymWrapper
    from torchrl.envs.gym_like import default_info_dict_reader

    single = {"tbw": lambda: make_tbw_single(scenario=SKIRMISH, learner_seat="alternate"),
              "junqi": lambda: make_junqi_single(rules=QUICK_JUNQI, learner_seat="alternate")}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env = GymWrapper(single[game]())
        env.set_info_dict_reader(default_info_dict_reader())
        env.set_seed(0)
        # Unmasked random actions: most episodes end on an illegal move, some by the rules.
        rollout = env.rollout(200, break_when_any_done=False)
    after = rollout["next"]
    assert after["illegal_action"].dtype == torch.bool and after["winner"].dtype == torch.int64
    assert after["illegal_action"].any() and after["done"].any()
    assert set(after["learner"].tolist()) == {0, 1}
    assert after["action_mask"].shape == (200, env.action_spec.space.n)
