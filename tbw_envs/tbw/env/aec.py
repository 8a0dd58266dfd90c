"""Turn-based war chess as a PettingZoo AEC environment (a thin adapter over ``tbw_envs.tbw``).

One AEC step is one unit's whole action (move, then attack or not) or END_TURN; the same agent
keeps stepping until its side's turn ends, so ``agent_selection`` stays put for several steps.

>>> from tbw_envs import tbw_v0
>>> env = tbw_v0.env(scenario="duel_5v5_8x8", render_mode="ansi")
>>> env.reset(seed=0)
>>> for agent in env.agent_iter():
...     obs, reward, terminated, truncated, info = env.last()
...     done = terminated or truncated
...     env.step(None if done else env.action_space(agent).sample(obs["action_mask"]))

Actions and observations are in the acting player's frame: with ``flip_perspective=True`` (the
default) ``player_1`` sees the board rotated 180 degrees and names destination tiles in that
rotated frame. ``env.decode_action`` / ``env.encode_action`` convert to absolute terms.

``infos[agent]`` holds the same four ints on every step, ``reset`` included, so every vector
client can stack them (``tbw_envs.infos``): ``turn`` (the round), ``plies`` (actions played so
far), ``end_reason`` (a code into ``metadata["end_reasons"]``: 0 ``"not_over"``, then
``tbw_envs.tbw.state.END_REASONS``, then ``"illegal_action"``) and ``winner`` (0, 1, or -1 for a
draw and while the game runs); ``string_infos=True`` names the end reason instead.

``mask_dtype`` (an argument of ``raw_env``, ``env()`` and ``parallel_env()``): the dtype of the
``action_mask`` observation and of its space, ``np.int8`` (the default, PettingZoo's convention)
or ``bool`` (TorchRL's masked policies take only boolean masks); anything else is refused.

Env card (the same as docs/tbw.md's; tests/tbw_envs/test_env_cards.py checks it against the code;
N is the units per side, T the tiles of the board; the numbers are the default scenario's):

- Import: ``from tbw_envs import tbw_v0``; ``tbw_v0.env()``; ``tbw_v0.raw_env()``;
  ``tbw_v0.parallel_env()``
- Actions: discrete; one step is one unit's whole action (move, then attack or not) or
  END_TURN, and the same agent steps until its side's turn ends
- Agents: ``player_0``, ``player_1``
- Action space: ``Discrete(1921)`` on duel_5v5_8x8, ``Discrete(N * T * (N + 1) + 1)`` on any
  scenario (N = 5, T = 64 here): id ``(slot * T + tile) * (N + 1) + k`` moves the acting side's
  unit ``slot`` to ``tile`` and attacks enemy slot ``k`` (``k = N``: no attack); the last id,
  1920, is END_TURN; tiles are in the acting agent's frame
- Observation space: ``Dict(observation=Box(0.0, 1.0, (32, 8, 8), float32), action_mask=Box(0,
  1, (1921,), int8))``; on any scenario one plane per terrain type, one per movement class, the
  turn progress, each side's 8 unit features, own units that acted and one per unit slot of
  each side, on the board's rows and columns, all in [0, 1]; with flip_perspective
  ``player_1``'s planes are turned half a turn
- Observation channels: ``terrain:plain``, ``terrain:mountain``, ``terrain:water``,
  ``move_cost:foot``, ``turn_progress``, ``own:present``, ``own:hp_fraction``, ``own:hp``,
  ``own:atk``, ``own:move``, ``own:range_min``, ``own:range_max``, ``own:leader``,
  ``own:acted``, ``enemy:present``, ``enemy:hp_fraction``, ``enemy:hp``, ``enemy:atk``,
  ``enemy:move``, ``enemy:range_min``, ``enemy:range_max``, ``enemy:leader``, ``own_slot:0``,
  ``own_slot:1``, ``own_slot:2``, ``own_slot:3``, ``own_slot:4``, ``enemy_slot:0``,
  ``enemy_slot:1``, ``enemy_slot:2``, ``enemy_slot:3``, ``enemy_slot:4`` (the env's
  observation_channels and metadata["observation_channels"])
- Action mask: ``observation["action_mask"]``, exact: 1 for every legal action of the agent to
  act, all 0 for the waiting agent and once the game is over
- Rewards: 0 until the game ends, then each agent's ``returns()``: +1 for a win, -1 for a loss,
  0 each for a draw; under ``env()`` an illegal action ends the game with -1 for its player and
  0 for the other
- Starting state: the scenario's first position, every unit at full Hp on its starting tile,
  side ``first_side`` to move; the rules are deterministic, so the seed only seeds the action
  spaces' samplers; ``reset(options={"state": ...})`` starts from any position
- Episode end: a side annihilated (``annihilation``); under win leader a side's leader killed
  (``leader_killed``); both sides beaten by the same action, a draw (``mutual_defeat``); after
  max_turns rounds (40 on duel_5v5_8x8) the side with more Hp wins (``turn_limit_hp``, under
  turn_limit_result hp) or it is a draw (``turn_limit_draw``); under ``env()`` an illegal
  action (``illegal_action``)
- Truncation: never; every end is a rule of the game, so a termination
- Arguments: ``scenario="duel_5v5_8x8"``: a bundled scenario name, a YAML path, a dict or a
  Scenario; ``render_mode=None``: None, "ansi", "rgb_array" or "human";
  ``flip_perspective=True``: turn ``player_1``'s board and actions half a turn;
  ``string_infos=False``: name the end reason in infos instead of its code;
  ``mask_dtype=np.int8``: the action mask's dtype, np.int8 or bool
- Version history: v0: the first version, the rules of the TBW paper with this project's
  scenarios, observations and action ids
"""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv, ParallelEnv

from tbw_envs.aec_wrappers import (
    standard_wrappers,
    step_after_game_over,
    turn_based_parallel,
)
from tbw_envs.core.contract import (
    check_agent,
    check_mask_dtype,
    check_options,
    check_seed,
    short_list,
    short_repr,
)
from tbw_envs.human_window import HumanWindow
from tbw_envs.infos import InfoCodes
from tbw_envs.tbw import END_TURN, IllegalActionError, Scenario, load_scenario
from tbw_envs.tbw.observation import ObservationEncoder, action_rotation
from tbw_envs.tbw.render import render_ansi, render_rgb
from tbw_envs.tbw.state import END_REASONS, TBWState, as_action_id

AGENTS = ("player_0", "player_1")
RESET_OPTIONS = ("scenario", "state")


def env(**kwargs) -> AECEnv:
    """The AEC env with the checks of PettingZoo's standard wrappers, in one layer
    (``tbw_envs.aec_wrappers.StandardWrapper``): an illegal action ends the game with -1 for the
    offender (as ``TerminateIllegalWrapper``), an action that breaks the input contract (not an
    integer, a bool, out of range) raises ValueError, and the reset/step order is enforced."""
    return standard_wrappers(raw_env(**kwargs))


def parallel_env(**kwargs) -> ParallelEnv:
    """``env()`` under PettingZoo's turn-based parallel conversion: each step plays the action
    of ``infos[agent]["active_agent"]``; the waiting agent's mask allows only action
    ``num_actions - 1`` (END_TURN) and its action is ignored (docs/integrations.md)."""
    return turn_based_parallel(env(**kwargs))


class raw_env(AECEnv):  # noqa: N801 - PettingZoo's naming convention
    metadata = {
        "render_modes": ["ansi", "rgb_array", "human"],
        "name": "tbw_v0",
        "is_parallelizable": False,
        "render_fps": 4,
        "end_reasons": list(InfoCodes(END_REASONS, AGENTS).end_reasons),
    }

    def __init__(self, scenario="duel_5v5_8x8", render_mode: str | None = None,
                 flip_perspective: bool = True, string_infos: bool = False,
                 mask_dtype=np.int8):
        super().__init__()
        self.info_codes = InfoCodes(END_REASONS, AGENTS, string_infos)
        self.mask_dtype = check_mask_dtype(mask_dtype)
        modes = self.metadata["render_modes"]
        if render_mode is not None and not (isinstance(render_mode, str) and render_mode in modes):
            raise ValueError(f"render_mode {short_repr(render_mode)} is not one of {modes}")
        self.render_mode = render_mode
        if not isinstance(flip_perspective, (bool, np.bool_)):
            raise TypeError(
                f"flip_perspective must be True or False, got {short_repr(flip_perspective)}"
            )
        self.flip_perspective = bool(flip_perspective)
        self.possible_agents = list(AGENTS)
        self.agents = list(AGENTS)
        # The channels depend on the scenario, so each env has its own metadata; _set_scenario
        # updates it in place, which wrappers holding the same dict see.
        self.metadata = {**type(self).metadata, "observation_channels": []}
        self._set_scenario(load_scenario(scenario))
        self._state = TBWState.initial(self.scenario)
        self._reset_bookkeeping()

    # ------------------------------------------------------------------ spaces

    def _set_scenario(self, scenario) -> None:
        self.scenario = scenario
        if self.flip_perspective and not scenario.board.rotation_is_symmetry():
            warnings.warn(
                f"tbw_v0: scenario {scenario.name!r} is a {scenario.board.topology} board with "
                f"{scenario.board.rows} rows, which a 180-degree turn does not map onto itself, "
                f"so player_1's rotated view distorts neighbourhoods; use an even number of "
                f"rows or flip_perspective=False",
                stacklevel=3,
            )
        self._encoder = ObservationEncoder(scenario, flip=self.flip_perspective)
        self.metadata["observation_channels"] = list(self._encoder.channel_names)
        n_actions = scenario.num_actions
        obs_space = spaces.Dict({
            "observation": spaces.Box(0.0, 1.0, self._encoder.shape, np.float32),
            "action_mask": spaces.Box(0, 1, (n_actions,), self.mask_dtype),
        })
        self.observation_spaces = {a: obs_space for a in AGENTS}
        self.action_spaces = {a: spaces.Discrete(n_actions) for a in AGENTS}
        state_shape = (self._encoder.shape[0] + 1,) + self._encoder.shape[1:]
        self.state_space = spaces.Box(0.0, 1.0, state_shape, np.float32)
        self._rotation = action_rotation(scenario)
        self._rotation_list = self._rotation.tolist()

    @property
    def variant(self) -> Scenario:
        """The scenario being played (a reset may switch it), by the games' common name for
        it; ``variant.longest_game()`` caps the single-agent wrapper's random openings."""
        return self.scenario

    @property
    def core_state(self) -> TBWState:
        """The running game's core state (read-only property; ``state()`` is PettingZoo's global
        state array for centralised critics). The live object: read it, do not change it (use
        ``core_state.clone()`` for a copy to search or to ``reset(options={"state": ...})``)."""
        return self._state

    @property
    def observation_channels(self) -> tuple[str, ...]:
        """The name of each observation plane, in order (e.g. ``"enemy:hp_fraction"``); also
        ``metadata["observation_channels"]``, as a list."""
        return self._encoder.channel_names

    def observation_space(self, agent):
        return self.observation_spaces[self._check_agent(agent)]

    def action_space(self, agent):
        return self.action_spaces[self._check_agent(agent)]

    def _check_agent(self, agent) -> str:
        return check_agent(agent, AGENTS)

    # ------------------------------------------------------------------ frames

    def _rotates(self, agent: str) -> bool:
        return self.flip_perspective and agent == "player_1"

    def to_core_action(self, agent: str, action: int) -> int:
        """The game core's (absolute) action id for ``agent``'s env action."""
        agent, action = self._check_agent(agent), self._valid_int(action)
        return self._rotation_list[action] if self._rotates(agent) else action

    def to_env_action(self, agent: str, core_action: int) -> int:
        """``agent``'s env action id for a core (absolute) action id."""
        agent, core_action = self._check_agent(agent), self._valid_int(core_action)
        return self._rotation_list[core_action] if self._rotates(agent) else core_action

    def decode_action(self, action: int, agent: str | None = None):
        """``(unit_id, (row, col), target_unit_id or None)`` in absolute board terms, or
        ``END_TURN``, for an env action of ``agent`` (default: the agent to act)."""
        agent = self.agent_selection if agent is None else self._check_agent(agent)
        return self._state.decode_action(self.to_core_action(agent, action))

    def encode_action(self, unit_id, dest=None, target=None, agent: str | None = None) -> int:
        """The env action id (in ``agent``'s frame) for an absolute unit action or END_TURN."""
        agent = self.agent_selection if agent is None else self._check_agent(agent)
        if isinstance(unit_id, str) and unit_id == END_TURN:
            return self.scenario.end_turn_action
        return self.to_env_action(agent, self._state.encode_action(unit_id, dest, target))

    def _valid_int(self, action) -> int:
        return as_action_id(action, self.scenario.num_actions)

    # ------------------------------------------------------------------ AEC API

    def reset(self, seed: int | None = None, options: dict | None = None):
        """``options``: ``{"scenario": ...}`` switches to a scenario of the same shapes;
        ``{"state": TBWState}`` starts from a copy of that position (a game core state, e.g.
        one move from the end, of a scenario of the same shapes). Every argument is checked
        before anything changes, so a rejected reset leaves the env, action-space samplers
        included, as it was."""
        seed = check_seed(seed, "tbw_v0.reset")
        options = check_options(options, "tbw_v0.reset")
        unknown = set(options) - set(RESET_OPTIONS)
        if unknown:
            # PettingZoo's api_test passes arbitrary options, so they may not be an error.
            warnings.warn(
                f"tbw_v0.reset: ignoring unknown option(s) {short_list(unknown)}; "
                f"supported: {list(RESET_OPTIONS)}",
                stacklevel=2,
            )
        start = options.get("state")
        if start is not None and not isinstance(start, TBWState):
            raise TypeError(
                f"reset(options={{'state': ...}}) takes a tbw_envs.tbw.TBWState, got "
                f"{short_repr(start)}"
            )
        if start is not None and start.terminal:
            raise ValueError("reset(options={'state': ...}): that game is already over")
        if start is not None and "scenario" in options:
            raise ValueError("reset(options=...): give 'scenario' or 'state', not both "
                             "(a state carries its scenario)")
        new = None
        if "scenario" in options or start is not None:
            new = start.scenario if start is not None else load_scenario(options["scenario"])
            old_shapes = (self._encoder.shape, self.scenario.num_actions)
            new_shapes = (ObservationEncoder(new).shape, new.num_actions)
            if new_shapes != old_shapes:
                raise ValueError(
                    f"reset(options=...): scenario {new.name} has observation/action "
                    f"shapes {new_shapes}, this env has {old_shapes}; PettingZoo spaces are "
                    f"fixed, so make a new env for it"
                )
        if new is not None:
            self._set_scenario(new)
        # The rules are deterministic; the seed only seeds the action spaces' samplers.
        if seed is not None:
            for i, agent in enumerate(AGENTS):
                self.action_spaces[agent].seed(seed + i)
        self._state = TBWState.initial(self.scenario) if start is None else start.clone()
        self.agents = list(AGENTS)
        self._reset_bookkeeping()
        if self.render_mode == "human":
            self.render()

    def _reset_bookkeeping(self) -> None:
        self._plies = 0
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = AGENTS[self._state.current_player]
        self._sync_infos()

    def _sync_infos(self) -> None:
        codes, state = self.info_codes, self._state
        info = {"turn": state.turn, "plies": self._plies,
                "end_reason": codes.end_reason(state.end_reason),
                "winner": codes.winner(state.winner)}
        for a in self.agents:
            self.infos[a] = dict(info)

    def observe(self, agent):
        agent = self._check_agent(agent)
        return {"observation": self.observe_planes(agent), "action_mask": self._mask(agent)}

    def observe_planes(self, agent) -> np.ndarray:
        """``observe(agent)["observation"]`` without building the mask."""
        return self._encoder.encode(self._state, AGENTS.index(self._check_agent(agent)))

    def _mask(self, agent: str) -> np.ndarray:
        side = AGENTS.index(agent)
        if self._state.terminal or self._state.current_player != side:
            return np.zeros(self.scenario.num_actions, self.mask_dtype)
        mask = self._state.legal_action_mask().astype(self.mask_dtype, copy=False)
        return mask[self._rotation] if self._rotates(agent) else mask

    def action_mask(self, agent: str | None = None) -> np.ndarray:
        """The legal-action mask of ``agent`` (default: the agent to act), in its frame."""
        return self._mask(self.agent_selection if agent is None else self._check_agent(agent))

    def view(self, agent: str):
        """What ``agent`` may know, as the game core gives it (for agents that search)."""
        return self._state.view(AGENTS.index(self._check_agent(agent)))

    def state(self) -> np.ndarray:
        return self._encoder.encode_state(self._state)

    def step(self, action):
        """Play ``agent_selection``'s action. After the game is over, ``step(None)`` removes
        each finished agent and any other action raises ``GameOverError``
        (``tbw_envs.aec_wrappers.step_after_game_over``). An illegal action raises
        ``IllegalActionError`` (a ValueError) and changes nothing."""
        if step_after_game_over(self, action):
            return
        # Contract errors (not an integer, out of range) pass through as they are; only a
        # well-formed action can be called illegal.
        self.play_checked(self.agent_selection, self._valid_int(action))

    def play_checked(self, agent: str, action: int) -> None:
        """``step`` for an ``action`` already checked to be an int in range, by ``agent`` =
        ``agent_selection`` in a game that is not over (``step`` and ``env()``'s
        ``StandardWrapper`` check both first, so neither checks twice): the raw-env contract's
        ``tbw_envs.aec_wrappers.CheckedPlay``."""
        try:
            self._state.apply(self._rotation_list[action] if self._rotates(agent) else action)
        except IllegalActionError as exc:
            raise IllegalActionError(f"illegal action {action} for {agent}: {exc}") from None
        self._plies += 1
        self._cumulative_rewards[agent] = 0.0
        if self._state.terminal:
            returns = self._state.returns()
            for i, a in enumerate(AGENTS):
                self.rewards[a] = returns[i]
                self.terminations[a] = True
        self.agent_selection = AGENTS[self._state.current_player]
        self._sync_infos()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self):
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; nothing to render")
            return None
        if self.render_mode == "ansi":
            return render_ansi(self._state)
        if self.render_mode == "rgb_array":
            return render_rgb(self._state)
        # "human": the rgb frame in a pygame window (tbw_envs.human_window), opened on first use.
        window = getattr(self, "_human_window", None)
        if window is None:
            window = self._human_window = HumanWindow(
                f"TBW: {self.scenario.name}", self.metadata["render_fps"]
            )
        window.show(render_rgb(self._state))
        return None

    def close(self):
        window = getattr(self, "_human_window", None)
        if window is not None:
            window.close()
            self._human_window = None
