"""A single-agent Gymnasium view of a game's two-player AEC env, for Stable-Baselines3 and friends.

The learner holds one seat; the opponent (an agent following ``agents.base.Agent``, a callable
``(observation, action_mask) -> action`` such as a frozen policy, or ``"random"``) plays inside
``step()``. An opponent that says which game it plays (``game``, as the registry's agents of one
game and the learned agents do) is refused here if that is the other game. The learner's
reward includes its losses (+1 win, -1 loss, 0 draw, at the end).
``action_masks()`` makes sb3-contrib's ``MaskablePPO`` work without ``ActionMasker``.

Masks for other libraries (docs/integrations.md):

- ``info["action_mask"]`` (bool, one entry per action) on every ``reset`` and ``step``, so
  Gymnasium's vector envs stack it into ``infos["action_mask"]`` of shape ``(num_envs, n)``;
- ``mask_in_obs=True`` makes the observation a Dict ``{"observation", "action_mask"}`` (the
  mask as int8, as in the PettingZoo envs, or bool with ``mask_dtype=bool``) for libraries
  that read masks from observations;
- behind ``gymnasium.make`` (whose wrappers do not forward methods) the method is
  ``env.get_wrapper_attr("action_masks")()``; on a vector env, ``envs.call("action_masks")``.

A mask is never all False. Once the episode is over (the game ended, or an illegal action ended
it), every mask (``action_masks()``, ``info`` and the Dict observation) allows exactly one
action, ``noop_action`` (the last action id: END_TURN in TBW). It is a placeholder so that
masked-softmax code stays finite on terminal observations and on a vector env's sub-env that
waits for its autoreset; it is never played: ``step`` after the end still raises
``GameOverError``, and the vector env's autoreset step discards the action.

Infos: every ``reset`` and ``step`` gives the same keys, each a number or a fixed-shape array,
so Gymnasium's vector envs (both autoreset modes), Tianshou and TorchRL stack them: the AEC env's
(``turn`` in TBW, ``plies``, ``end_reason``, ``winner``: ``tbw_envs.infos``), ``learner`` (the
learner's seat, 0 or 1), ``illegal_action`` (a bool) and ``action_mask``. Each number is a
numpy value, not a Python int or bool (TorchRL's ``default_info_dict_reader`` reads every
value's ``dtype``): ``np.int64``, and ``illegal_action`` a 0-d bool array
(``as_numpy_scalar``). ``string_infos=True`` names the
learner and the end reason instead (as ``str``).

Learner seats (``learner_seat``): 0 or 1 is fixed; ``"random"`` draws each episode's seat from
the env's ``np_random`` (so from the seed); ``"alternate"`` takes the seed's parity on a seeded
reset (``reset(seed=s)`` is seat ``s % 2``, and the same episode, every time) and the other seat
than the last episode's on an unseeded one (player_0 first). So a learner sees both seats evenly
whether it seeds once and then resets unseeded (as SB3 and Gymnasium's vector envs do: sub-env
``i`` gets seed ``s + i``, then autoresets unseeded) or seeds every episode with consecutive seeds;
seeding every episode with seeds of one parity keeps one seat.

Illegal learner actions (``check_env`` samples unmasked ones): with ``illegal_action="lose"``
(the default, as PettingZoo's ``TerminateIllegalWrapper``) the episode ends with reward
``illegal_reward`` (-1), ``info["illegal_action"] = True``, the end reason
``"illegal_action"`` and the opponent as winner; with ``"raise"`` a ValueError
names the action. Actions outside the input contract (docs/input_contract.md: not an integer,
a bool, out of range) always raise ValueError, and ``step`` after the episode ended raises
``GameOverError`` (a RuntimeError).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gymnasium
import numpy as np

from tbw_envs.core.contract import (
    GameOverError,
    check_action,
    check_options,
    check_seed,
    is_integer,
    is_real_number,
    opening_plies_problem,
    short_repr,
)
from tbw_envs.registration import registered_names

SEATS = ("player_0", "player_1")


def as_numpy_scalar(value):
    """An info value with the ``dtype`` that TorchRL's ``default_info_dict_reader`` reads:
    ``np.int64`` or ``np.float32``, and a bool as a 0-d bool array, not ``np.bool_``: Gymnasium's
    vector envs stack a ``np.bool_`` (not a ``np.number``) into an object array. Names
    (``string_infos``) stay strings."""
    if isinstance(value, (bool, np.bool_)):
        return np.array(value, dtype=bool)
    if isinstance(value, (int, np.integer)):
        return np.int64(value)
    if isinstance(value, (float, np.floating)):
        return np.float32(value)
    return value


OpponentPolicy = Callable[[np.ndarray, np.ndarray], int]


class SingleAgentEnv(gymnasium.Env):
    """Wrap a game's raw AEC env (``tbw_v0.raw_env``, ``junqi_v0.raw_env``, any registered
    game's ``Game.raw_env``). It needs ``view``, ``to_env_action``, ``action_mask``,
    ``observe``, ``observe_planes``, ``info_codes`` (``tbw_envs.infos``) and ``variant`` (with
    ``name`` and ``longest_game()``)."""

    def __init__(
        self,
        aec_env,
        opponent: Any | OpponentPolicy = "random",
        learner_seat: int | str = 0,
        illegal_action: str = "lose",
        illegal_reward: float = -1.0,
        mask_in_obs: bool = False,
        opening_plies: int = 0,
    ):
        super().__init__()
        if not isinstance(mask_in_obs, (bool, np.bool_)):
            raise TypeError(f"mask_in_obs must be True or False, got {short_repr(mask_in_obs)}")
        if not is_integer(opening_plies) or opening_plies < 0:
            raise ValueError(
                f"opening_plies must be a non-negative integer, got {short_repr(opening_plies)}"
            )
        # Random plies at each reset, before the learner's first move: a policy trained from a
        # scenario's one fixed start learns that start, not the game (docs/results.md).
        self.opening_plies = int(opening_plies)
        self.aec = getattr(aec_env, "unwrapped", aec_env)
        for needed in ("view", "to_env_action", "action_mask", "observe", "observe_planes",
                       "info_codes", "variant"):
            if not hasattr(self.aec, needed):
                raise TypeError(
                    f"SingleAgentEnv needs a tbw_envs raw AEC env with .{needed}; "
                    f"got {type(aec_env).__name__}"
                )
        # An opening as long as the game would end every episode inside reset(): capped as the
        # arena's openings are (docs/input_contract.md).
        variant = self.aec.variant
        problem = opening_plies_problem(self.opening_plies, variant.longest_game(),
                                        f"{self._game} {short_repr(variant.name)}")
        if problem:
            raise ValueError(f"opening_plies {problem}")
        if is_integer(learner_seat) and learner_seat in (0, 1):
            learner_seat = int(learner_seat)
        elif not (isinstance(learner_seat, str) and learner_seat in ("alternate", "random")):
            raise ValueError(
                f"learner_seat must be 0, 1, 'alternate' or 'random', got "
                f"{short_repr(learner_seat)}"
            )
        if not isinstance(illegal_action, str) or illegal_action not in ("lose", "raise"):
            raise ValueError(
                f"illegal_action must be 'lose' or 'raise', got {short_repr(illegal_action)}"
            )
        self.learner_seat_option = learner_seat
        self.illegal_action = illegal_action
        if not (is_real_number(illegal_reward) and np.isfinite(illegal_reward)):
            raise ValueError(
                f"illegal_reward must be a finite number, got {short_repr(illegal_reward)}"
            )
        self.illegal_reward = float(illegal_reward)
        self._codes = self.aec.info_codes
        # "random" samples the opponent's mask with this env's np_random, so reset(seed=...)
        # fixes the opponent's play too.
        is_random = isinstance(opponent, str) and opponent == "random"
        self.opponent = self._random_policy if is_random else opponent
        if not (hasattr(self.opponent, "act") or callable(self.opponent)):
            raise TypeError(
                "opponent must be 'random', an agent with act(view), or a callable "
                f"(observation, action_mask) -> action; got {short_repr(opponent)}"
            )
        self.render_mode = self.aec.render_mode
        self.metadata = dict(self.aec.metadata)
        self.mask_in_obs = bool(mask_in_obs)
        aec_space = self.aec.observation_space(SEATS[0])
        # The AEC env's own Dict space already is {"observation", "action_mask"}.
        self.observation_space = aec_space if self.mask_in_obs else aec_space["observation"]
        self._obs_mask_dtype = aec_space["action_mask"].dtype  # the raw env's mask_dtype
        self.action_space = self.aec.action_space(SEATS[0])
        self._check_opponent_fits(opponent, aec_space["observation"].shape)
        self.noop_action = int(self.action_space.n) - 1
        self._over_mask = np.zeros(self.action_space.n, bool)
        self._over_mask[self.noop_action] = True
        self._over_mask.flags.writeable = False
        self._has_reset = False
        self._ended_in_reset = False
        # "alternate": the seat of the next unseeded reset (module docstring).
        self._next_alternate_seat = 0
        self.learner = SEATS[learner_seat if isinstance(learner_seat, int) else 0]
        self._done = True
        # The learner's legal mask in the current state, built once per step (by ``_emit``) and
        # used by ``step``'s legality check, ``action_masks()``, the info and the observation.
        self._mask = self._over_mask

    # ------------------------------------------------------------------ helpers

    @property
    def core_state(self):
        """The running game's core state (``TBWState`` / ``JunqiState``): the raw env's
        ``core_state``, read-only."""
        return self.aec.core_state

    @property
    def opponent_seat(self) -> str:
        return SEATS[1 - SEATS.index(self.learner)]

    def action_masks(self) -> np.ndarray:
        """Boolean mask of the learner's legal actions (what MaskablePPO asks for); once the
        episode is over, only ``noop_action`` (module docstring)."""
        if not self._has_reset:
            return self.aec.action_mask(self.learner).astype(bool)
        return self._mask.copy()

    def _random_policy(self, _observation: np.ndarray, action_mask: np.ndarray) -> int:
        return int(self.np_random.choice(np.flatnonzero(action_mask)))

    def _learner_obs(self, mask: np.ndarray):
        planes = self.aec.observe_planes(self.learner)
        if not self.mask_in_obs:
            return planes
        return {"observation": planes, "action_mask": mask.astype(self._obs_mask_dtype)}

    def _emit(self, illegal: bool = False):
        """The observation and info of the current state, both carrying the same mask (the
        one mask built this step)."""
        if self._done:
            self._mask = self._over_mask
        else:
            self._mask = self.aec.action_mask(self.learner).astype(bool)
        info = {**self.aec.infos[self.learner], "learner": self._codes.seat(self.learner),
                "illegal_action": illegal}
        if illegal:
            info["end_reason"] = self._codes.illegal_end()
            info["winner"] = SEATS.index(self.opponent_seat)
        info = {key: as_numpy_scalar(value) for key, value in info.items()}
        info["action_mask"] = self._mask.copy()
        return self._learner_obs(self._mask), info

    @property
    def _game(self) -> str:
        return str(self.aec.metadata.get("name", "?")).removesuffix("_v0")

    def _check_opponent_fits(self, opponent: Any, planes_shape: tuple[int, ...]) -> None:
        """An opponent that says what it plays (``game``; ``observation_shape`` and
        ``num_actions`` for a policy, as ``agents.policy.agent.PPOAgent`` does) is refused here
        when it was built for the other game or another board, not at its first move."""
        declared = getattr(opponent, "game", None)
        if not (isinstance(declared, str) and declared in registered_names()):
            return
        label = short_repr(getattr(opponent, "name", None) or type(opponent).__name__)
        if declared != self._game:
            raise ValueError(f"opponent {label} plays {declared}, but this env is {self._game}: "
                             f"give it an opponent built for {self._game}")
        shape = getattr(opponent, "observation_shape", None)
        actions = getattr(opponent, "num_actions", None)
        if shape is not None and actions is not None and (
                tuple(shape) != tuple(planes_shape) or actions != self.action_space.n):
            raise ValueError(f"opponent {label} expects observations {tuple(shape)} and "
                             f"{actions} actions; this env gives {tuple(planes_shape)} and "
                             f"{int(self.action_space.n)} (another board?)")

    def _opponent_action(self) -> int:
        seat = self.opponent_seat
        if hasattr(self.opponent, "act"):
            view = self.aec.view(seat)
            try:
                choice = self.opponent.act(view)
            except AttributeError as exc:
                # An agent of the other game asks the view for what only its own game's views
                # have (a TBW agent for view.scenario, a Junqi agent for view.phase).
                if getattr(exc, "obj", None) is not view:
                    raise
                label = short_repr(getattr(self.opponent, "name", None)
                                   or type(self.opponent).__name__)
                raise TypeError(f"opponent {label} cannot play {self._game}: it asked the "
                                f"{type(view).__name__} for .{exc.name}, which {self._game} "
                                f"views do not have (an agent built for the other game?)"
                                ) from exc
            return self.aec.to_env_action(seat, choice)
        if self.opponent == self._random_policy:  # needs only the mask, not the planes
            return self._random_policy(None, self.aec.action_mask(seat))
        obs = self.aec.observe(seat)
        # The opponent's output obeys the same contract as the learner's (no float truncation).
        return self._as_action(
            self.opponent(obs["observation"], obs["action_mask"]), obs["action_mask"].shape[0]
        )

    def _finished(self) -> bool:
        return any(self.aec.terminations.values()) or any(self.aec.truncations.values())

    def _play_opening(self) -> None:
        """``opening_plies`` uniformly random legal plies for whichever side is to move (fewer if
        the game ends), drawn from this env's ``np_random``."""
        for _ in range(self.opening_plies):
            if self._finished():
                return
            mask = self.aec.action_mask(self.aec.agent_selection)
            self.aec.step(int(self.np_random.choice(np.flatnonzero(mask))))

    def _play_opponent(self) -> None:
        while not self._finished() and self.aec.agent_selection == self.opponent_seat:
            self.aec.step(self._opponent_action())

    def _outcome(self) -> tuple[float, bool, bool]:
        terminated = any(self.aec.terminations.values())
        truncated = not terminated and any(self.aec.truncations.values())
        reward = float(self.aec.rewards[self.learner]) if terminated or truncated else 0.0
        return reward, terminated, truncated

    # ------------------------------------------------------------------ Gymnasium API

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        seed = check_seed(seed, "SingleAgentEnv.reset")
        options = check_options(options, "SingleAgentEnv.reset")
        # The AEC env resets first: it checks the options' contents and, when it rejects them,
        # changes nothing, so neither has this wrapper (its generator, seat or episode count).
        self.aec.reset(seed=seed, options=options)
        super().reset(seed=seed)
        if self.learner_seat_option == "alternate":
            # From the seed, so that reset(seed=s) replays its episode (check_env's determinism
            # checks); unseeded resets take the other seat from the last episode.
            seat = seed % 2 if seed is not None else self._next_alternate_seat
            self.learner = SEATS[seat]
            self._next_alternate_seat = 1 - seat
        elif self.learner_seat_option == "random":
            self.learner = SEATS[int(self.np_random.integers(2))]
        if hasattr(self.opponent, "reset"):
            # Drawn from np_random even without a seed, so reset(seed=s) then reset() replays.
            self.opponent.reset(int(self.np_random.integers(2**31 - 1)))
        self._play_opening()
        self._play_opponent()
        self._done = self._finished()
        self._ended_in_reset = self._done
        self._has_reset = True
        return self._emit()

    def _as_action(self, action, num_actions: int) -> int:
        # Stable-Baselines3 hands a policy's action over as a one-element array; that is the
        # one shape accepted here beyond the shared contract.
        if (
            isinstance(action, np.ndarray)
            and action.size == 1
            and action.shape != ()
            and action.dtype.kind in "iu"
        ):
            action = action.reshape(())
        return check_action(action, num_actions)

    def step(self, action):
        if self._done:
            what = ("the game ended inside reset() (the opponent's moves or the random opening "
                    "finished it), so call reset() again" if self._ended_in_reset
                    else "call reset() first")
            raise GameOverError(f"step({short_repr(action)}) called on a finished episode; {what}")
        mask = self._mask
        action = self._as_action(action, mask.shape[0])
        if not mask[action]:
            if self.illegal_action == "raise":
                raise ValueError(
                    f"illegal action {action} for {self.learner} "
                    f"({int(mask.sum())} legal actions)"
                )
            self._done = True
            obs, info = self._emit(illegal=True)
            return obs, self.illegal_reward, True, False, info
        self.aec.step(action)
        self._play_opponent()
        reward, terminated, truncated = self._outcome()
        self._done = terminated or truncated
        obs, info = self._emit()
        return obs, reward, terminated, truncated, info

    def render(self):
        return self.aec.render()

    def close(self):
        self.aec.close()
