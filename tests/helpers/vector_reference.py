"""The specification of ``tbw_envs.vector``: N of the game's raw AEC envs played as the batched
env promises (slot ``i`` reset with seed ``seed + i``, then without a seed at each new game; the
step after a game ends resets it, next-step autoreset), giving the same tuple of arrays.

It reads the AEC envs only through their public API (``observe``, ``rewards``, ``infos``,
``core_state``), so it shares no code with the batched cores it checks.
"""

from __future__ import annotations

import numpy as np

from tbw_envs.games import get_game

AGENTS = ("player_0", "player_1")


class LoopedAEC:
    def __init__(self, game: str, num_envs: int, **env_kwargs):
        self.envs = [get_game(game).raw_env(**env_kwargs) for _ in range(num_envs)]
        self.num_envs = num_envs
        self._needs_reset = np.zeros(num_envs, bool)

    def reset(self, seed: int, states=None):
        for i, env in enumerate(self.envs):
            state = None if states is None else states[i]
            if state is None:
                env.reset(seed=seed + i)
            else:
                env.reset(seed=seed + i, options={"state": state})
        self._needs_reset[:] = False
        return self._arrays()

    def step(self, actions):
        rewards = np.zeros((self.num_envs, 2), np.float32)
        terminated = np.zeros(self.num_envs, bool)
        for i, env in enumerate(self.envs):
            if self._needs_reset[i]:
                env.reset()
                continue
            env.step(int(actions[i]))
            if all(env.terminations.values()):
                terminated[i] = True
                rewards[i] = [env.rewards[a] for a in AGENTS]
        self._needs_reset = terminated.copy()
        obs, info = self._arrays()
        return obs, rewards, terminated, np.zeros(self.num_envs, bool), info

    def _arrays(self):
        observations, masks, movers, extra = [], [], [], {}
        for env in self.envs:
            mover = env.core_state.current_player
            seen = env.observe(AGENTS[mover])
            observations.append(seen["observation"])
            masks.append(seen["action_mask"].astype(bool))
            movers.append(mover)
            # Every info value is an int (tbw_envs.infos): end_reason, winner, plies, TBW's turn.
            for key, value in env.infos[AGENTS[mover]].items():
                extra.setdefault(key, []).append(value)
        info = {"action_mask": np.array(masks), "current_player": np.array(movers),
                **{key: np.array(values) for key, values in extra.items()}}
        return np.array(observations), info


# The slot holding each game's variant, which compares by what decides play (a Scenario has
# no value equality: two loads of one file are two objects).
VARIANT_SLOTS = {"scenario": "tbw", "rules": "junqi"}


def same_state(a, b) -> list[str]:
    """The slots in which two core states differ (empty when they are equal), legal actions
    included."""
    slots = [s for s in type(a).__slots__ if not s.startswith("_")]
    differ = [s for s in slots if getattr(a, s) != getattr(b, s) and not _same_variant(s, a, b)]
    if a.legal_actions() != b.legal_actions():
        differ.append("legal_actions()")
    return differ


def _same_variant(slot: str, a, b) -> bool:
    game = VARIANT_SLOTS.get(slot)
    if game is None:
        return False
    context = get_game(game).variant_context
    return context(getattr(a, slot)) == context(getattr(b, slot))
