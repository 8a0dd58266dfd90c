"""Two-player Junqi as a PettingZoo AEC environment (``junqi_v0``).

Observations come from the acting player's view of the game core only (``JunqiState.view``), so
they hide exactly what the rules hide. Everything is in the observing player's frame: the top
player (``player_1``) sees the board turned half a turn, and its actions are in that turned frame
too (move ``a`` of player_1 is absolute move ``3599 - a``). ``encode_action`` / ``decode_action``
translate between absolute posts and an agent's actions.

``infos[agent]`` holds the same three ints on every step, ``reset`` included, so every vector
client can stack them (``tbw_envs.infos``): ``plies`` (actions played so far, deployment actions
included), ``end_reason`` (a code into ``metadata["end_reasons"]``: 0 ``"not_over"``, then
``tbw_envs.junqi.state.END_REASONS``, then ``"illegal_action"``) and ``winner`` (0, 1, or -1 for
a draw and while the game runs); ``string_infos=True`` names the end reason instead.

Env card (the same as docs/junqi.md's; tests/tbw_envs/test_env_cards.py checks it against the
code; the numbers of play limits are the default rule set's):

- Import: ``from tbw_envs import junqi_v0``; ``junqi_v0.env()``; ``junqi_v0.raw_env()``;
  ``junqi_v0.parallel_env()``
- Actions: discrete; one step is one move, or one piece placed in the deployment phase
- Agents: ``player_0``, ``player_1``
- Action space: ``Discrete(3612)``: id ``from * 60 + to`` (0 to 3599) moves the piece on post
  ``from`` to post ``to``, posts in the acting agent's frame (``player_1``'s move ``a`` is
  absolute move ``3599 - a``); id ``3600 + piece type`` (3600 to 3611) places a piece of that
  type (0 to 11) on the next post of the deployment order
- Observation space: ``Dict(observation=Box(0.0, 1.0, (39, 12, 5), float32),
  action_mask=Box(0, 1, (3612,), int8))``: 39 planes on the 12 rows and 5 columns of the board,
  all in [0, 1], from the observing player's view only, in its frame (``player_1``'s turned
  half a turn)
- Observation channels: ``own_marshal``, ``own_general``, ``own_major_general``,
  ``own_brigadier``, ``own_colonel``, ``own_major``, ``own_captain``, ``own_lieutenant``,
  ``own_engineer``, ``own_mine``, ``own_bomb``, ``own_flag``, ``opponent_present``,
  ``opponent_moved``, ``opponent_flag_revealed``, ``own_flag_revealed``,
  ``opponent_may_be_marshal``, ``opponent_may_be_general``, ``opponent_may_be_major_general``,
  ``opponent_may_be_brigadier``, ``opponent_may_be_colonel``, ``opponent_may_be_major``,
  ``opponent_may_be_captain``, ``opponent_may_be_lieutenant``, ``opponent_may_be_engineer``,
  ``opponent_may_be_mine``, ``opponent_may_be_bomb``, ``opponent_may_be_flag``,
  ``opponent_rank_lower_bound``, ``opponent_rank_upper_bound``, ``railroad``, ``camp``,
  ``headquarters``, ``last_move_from``, ``last_move_to``, ``ply_fraction``,
  ``quiet_ply_fraction``, ``deployment_phase``, ``next_deployment_post`` (the env's
  observation_channels and metadata["observation_channels"])
- Action mask: ``observation["action_mask"]``, exact: 1 for every legal action of the agent to
  act, all 0 for the waiting agent and once the game is over
- Rewards: 0 until the game ends, then each agent's ``returns()``: +1 for a win, -1 for a loss,
  0 each for a draw; under ``env()`` an illegal action ends the game with -1 for its player and
  0 for the other
- Starting state: with deployment "random", two uniformly random legal layouts drawn from the
  reset's seed, ``player_0`` to move; with deployment "agents", empty boards and the
  deployment phase, each player placing its 25 pieces in turn; ``reset(options=...)`` takes
  explicit layouts or any position
- Episode end: a flag captured (``flag_captured``); the side to move cannot move and loses
  (``no_legal_move``); neither side can move, a draw (``no_legal_move_both``); after 31 plies in
  a row without a collision the side to move loses (``no_collision_limit``); a draw after the
  rule set's total_ply_limit plies, off in ccgc (``total_ply_limit``); a draw at the hard cap of
  2000 plies (``ply_cap``); under ``env()`` an illegal action (``illegal_action``)
- Truncation: never; every end, the ply cap included, is a rule of the game, so a termination
- Arguments: ``rules="ccgc"``: a bundled rule-set name, a YAML path, a dict or a JunqiRules;
  ``deployment="random"``: "random" layouts at reset, or "agents" placing their own pieces;
  ``render_mode=None``: None, "ansi", "rgb_array" or "human"; ``render_perspective=None``: None
  renders the whole board, "player_0" or "player_1" what that player may know;
  ``string_infos=False``: name the end reason in infos instead of its code;
  ``mask_dtype=np.int8``: the action mask's dtype, np.int8 or bool
- Version history: v0: the first version, CCGC protocol rules by default, with this project's
  observations and action ids
"""

from __future__ import annotations

import warnings
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
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
from tbw_envs.core.errors import IllegalActionError
from tbw_envs.human_window import HumanWindow
from tbw_envs.infos import InfoCodes
from tbw_envs.junqi import JunqiRules, JunqiState, load_rules, parse_post
from tbw_envs.junqi.observation import (
    OBSERVATION_PLANES,
    OBSERVATION_SHAPE,
    STATE_SHAPE,
    action_to_absolute,
    legal_mask_in_frame,
    observation_planes,
    state_planes,
)
from tbw_envs.junqi.render import render_ansi, render_rgb
from tbw_envs.junqi.state import (
    END_REASONS,
    NUM_ACTIONS,
    NUM_MOVE_ACTIONS,
    as_action,
    describe_action,
)

AGENTS = ("player_0", "player_1")
DEPLOYMENT_MODES = ("random", "agents")
RESET_OPTIONS = ("layouts", "rules", "state")


def env(**kwargs) -> AECEnv:
    """``raw_env`` with the checks of PettingZoo's standard wrappers, in one layer
    (``tbw_envs.aec_wrappers.StandardWrapper``): an illegal action ends the game with -1 for the
    player who made it (as TerminateIllegalWrapper), an action that breaks the input contract
    (not an integer, a bool, out of range) raises ValueError, and the API order is enforced."""
    return standard_wrappers(raw_env(**kwargs))


def parallel_env(**kwargs) -> ParallelEnv:
    """``env()`` under PettingZoo's turn-based parallel conversion: each step plays the action
    of ``infos[agent]["active_agent"]``; the waiting agent's mask allows only the last action
    id and its action is ignored (docs/integrations.md)."""
    return turn_based_parallel(env(**kwargs))


class raw_env(AECEnv):
    """Junqi AEC env.

    Args:
        rules: rule-set name, YAML path, dict or JunqiRules (default "ccgc").
        deployment: "random" draws uniformly random legal layouts at reset; "agents" makes each
            player fill its own posts in a fixed order with deployment actions (3600 + piece type)
            before play starts.
        render_mode: None, "ansi", "rgb_array" or "human" (the rgb frame in a pygame window
            after each reset and step, as tbw_v0 does; the ``render`` extra).
        render_perspective: None renders the full board; "player_0" / "player_1" renders what
            that player may know.
        string_infos: name the end reason in ``infos`` instead of giving its code (module
            docstring).
        mask_dtype: the dtype of the ``action_mask`` observation and its space: ``np.int8``
            (the default, PettingZoo's convention) or ``bool`` (TorchRL's masked policies take
            only boolean masks); anything else is refused.
    """

    metadata = {
        "render_modes": ["ansi", "rgb_array", "human"],
        "name": "junqi_v0",
        "is_parallelizable": False,
        "render_fps": 2,
        "end_reasons": list(InfoCodes(END_REASONS, AGENTS).end_reasons),
        "observation_channels": list(OBSERVATION_PLANES),
    }

    def __init__(
        self,
        rules: Any = "ccgc",
        deployment: str = "random",
        render_mode: str | None = None,
        render_perspective: str | None = None,
        string_infos: bool = False,
        mask_dtype=np.int8,
    ):
        super().__init__()
        self.info_codes = InfoCodes(END_REASONS, AGENTS, string_infos)
        self.mask_dtype = check_mask_dtype(mask_dtype)
        if not isinstance(deployment, str) or deployment not in DEPLOYMENT_MODES:
            raise ValueError(
                f"deployment must be 'random' or 'agents', got {short_repr(deployment)}"
            )
        if render_mode is not None and (
            not isinstance(render_mode, str) or render_mode not in self.metadata["render_modes"]
        ):
            raise ValueError(
                f"render_mode must be None or one of {self.metadata['render_modes']}, "
                f"got {short_repr(render_mode)}"
            )
        if render_perspective is not None and (
            not isinstance(render_perspective, str) or render_perspective not in AGENTS
        ):
            raise ValueError(
                f"render_perspective must be None or an agent name {list(AGENTS)}, got "
                f"{short_repr(render_perspective)}"
            )
        self.rules = load_rules(rules)
        self.deployment = deployment
        self.render_mode = render_mode
        self.render_perspective = render_perspective
        self.possible_agents = list(AGENTS)
        self.agent_name_mapping = {name: index for index, name in enumerate(AGENTS)}
        self.observation_spaces = {
            name: spaces.Dict(
                {
                    "observation": spaces.Box(0.0, 1.0, OBSERVATION_SHAPE, dtype=np.float32),
                    "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), dtype=self.mask_dtype),
                }
            )
            for name in AGENTS
        }
        self._action_spaces = {name: spaces.Discrete(NUM_ACTIONS) for name in AGENTS}
        self.state_space = spaces.Box(0.0, 1.0, STATE_SHAPE, dtype=np.float32)
        self._state: JunqiState | None = None
        self._np_random, self._np_random_seed = seeding.np_random(None)

    @property
    def variant(self) -> JunqiRules:
        """The rule set being played (a reset may switch it), by the games' common name for
        it; ``variant.longest_game()`` caps the single-agent wrapper's random openings."""
        return self.rules

    @property
    def core_state(self) -> JunqiState:
        """The running game's core state, as ``tbw_v0``'s (read-only property; ``state()`` is
        PettingZoo's global state array, and ``game`` the same object as this). The live
        object: read it, do not change it (``core_state.clone()`` for a copy)."""
        return self._game()

    @property
    def observation_channels(self) -> tuple[str, ...]:
        """The name of each observation plane, in order (e.g. ``"opponent_moved"``), as
        ``tbw_v0``'s; also ``metadata["observation_channels"]``, as a list."""
        return OBSERVATION_PLANES

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[check_agent(agent, AGENTS)]

    def action_space(self, agent: str) -> spaces.Space:
        return self._action_spaces[check_agent(agent, AGENTS)]

    def _player(self, agent) -> int:
        """``agent``'s player index (0 or 1); a clear error for any other name."""
        return self.agent_name_mapping[check_agent(agent, AGENTS)]

    def _game(self) -> JunqiState:
        if self._state is None:
            raise RuntimeError("junqi_v0: call reset() before using the env")
        return self._state

    # ------------------------------------------------------------------ AEC API
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """``options``: ``{"layouts": {"player_0": ..., "player_1": ...}}`` (explicit layouts,
        skipping any deployment phase) and/or ``{"rules": ...}`` (switch rule set, kept for later
        resets), or ``{"state": JunqiState}`` (start from a copy of that position, e.g. one built
        with ``JunqiState.from_pieces``; its rules are kept for later resets)."""
        # Everything is checked and the new game built before anything changes, so a rejected
        # reset leaves the env as it was: rules, game and every random generator.
        seed = check_seed(seed, "junqi_v0.reset")
        options = check_options(options, "junqi_v0.reset")
        unknown = set(options) - set(RESET_OPTIONS)
        if unknown:
            # A warning, not an error: PettingZoo's api_test passes arbitrary options.
            warnings.warn(
                f"junqi_v0.reset: ignoring unknown option(s) {short_list(unknown)}; supported: "
                f"{list(RESET_OPTIONS)}",
                stacklevel=2,
            )
        start = options.get("state")
        if start is not None:
            if not isinstance(start, JunqiState):
                raise TypeError(
                    f"reset(options={{'state': ...}}) takes a tbw_envs.junqi.JunqiState, got "
                    f"{short_repr(start)}"
                )
            if start.is_terminal():
                raise ValueError("reset(options={'state': ...}): that game is already over")
            clash = {"layouts", "rules"} & set(options)
            if clash:
                raise ValueError(
                    f"reset(options=...): give 'state' alone, not with {sorted(clash)} (a state "
                    f"carries its rules and pieces)"
                )
        rules = load_rules(options["rules"]) if "rules" in options else self.rules
        np_random, np_random_seed = (
            seeding.np_random(seed) if seed is not None
            else (self._np_random, self._np_random_seed)
        )
        if start is not None:
            game, rules = start.clone(), start.rules
        elif options.get("layouts") is not None:
            game = JunqiState.initial(options["layouts"], rules)
        elif self.deployment == "agents":
            game = JunqiState.new_deployment(rules)
        else:
            # Cannot fail once the rules are valid, so drawing from the env's own generator
            # here (unseeded resets) does not break the all-or-nothing rule.
            game = JunqiState.random_initial(np_random, rules)
        self._np_random, self._np_random_seed = np_random, np_random_seed
        if seed is not None:
            # As tbw_v0 does, so env.action_space(agent).sample(mask) loops replay a game.
            for i, name in enumerate(AGENTS):
                self._action_spaces[name].seed(seed + i)
        self.rules, self._state = rules, game
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self._plies = 0
        self._sync_infos()
        self.agent_selection = AGENTS[self._state.current_player]
        if self._state.is_terminal():  # only possible with exotic rules; keep the API sound
            self._finish()
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        player = self._player(agent)
        return {
            "observation": observation_planes(self._game().view(player)),
            "action_mask": self._mask(player),
        }

    def observe_planes(self, agent: str) -> np.ndarray:
        """``observe(agent)["observation"]`` without building the mask."""
        return observation_planes(self._game().view(self._player(agent)))

    def step(self, action) -> None:
        """Play ``agent_selection``'s action. After the game is over, ``step(None)`` removes
        each finished agent and any other action raises ``GameOverError``
        (``tbw_envs.aec_wrappers.step_after_game_over``). An illegal action raises
        ``IllegalActionError`` (a ValueError) and changes nothing."""
        self._game()
        if step_after_game_over(self, action):
            return
        self.play_checked(self.agent_selection, as_action(action))

    def play_checked(self, agent: str, action: int) -> None:
        """``step`` for an ``action`` already checked to be an int in range, by ``agent`` =
        ``agent_selection`` in a game that is not over (``step`` and ``env()``'s
        ``StandardWrapper`` check both first, so neither checks twice): the raw-env contract's
        ``tbw_envs.aec_wrappers.CheckedPlay``."""
        player = self.agent_name_mapping[agent]
        absolute = action_to_absolute(action, player)
        try:
            self._state.apply(absolute)
        except IllegalActionError:
            raise IllegalActionError(
                f"illegal action {action} ({describe_action(absolute)} in absolute posts) "
                f"for {agent}; {len(self._state.legal_actions())} legal actions"
            ) from None
        self._cumulative_rewards[agent] = 0.0
        self._plies += 1
        if self._state.is_terminal():
            self._finish()
        else:
            self.rewards = dict.fromkeys(self.agents, 0.0)
            self._sync_infos()
            self.agent_selection = AGENTS[self._state.current_player]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _finish(self) -> None:
        returns = self._state.returns()
        self.rewards = {name: float(returns[i]) for i, name in enumerate(AGENTS)}
        self.terminations = dict.fromkeys(self.agents, True)
        self._sync_infos()

    def _sync_infos(self) -> None:
        codes, game = self.info_codes, self._state
        info = {"plies": self._plies, "end_reason": codes.end_reason(game.end_reason),
                "winner": codes.winner(game.winner)}
        self.infos = {agent: dict(info) for agent in self.agents}

    def state(self) -> np.ndarray:
        """Omniscient planes (absolute frame); never part of an observation."""
        return state_planes(self._game())

    def render(self):
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode=...")
            return None
        subject = self._game()
        if self.render_perspective is not None:
            subject = self._state.view(self.agent_name_mapping[self.render_perspective])
        if self.render_mode == "ansi":
            return render_ansi(subject)
        if self.render_mode == "rgb_array":
            return render_rgb(subject)
        # "human": the rgb frame in a pygame window (tbw_envs.human_window), opened on first use.
        window = getattr(self, "_human_window", None)
        if window is None:
            title = "Junqi" if self.render_perspective is None else (
                f"Junqi: {self.render_perspective}'s view"
            )
            window = self._human_window = HumanWindow(title, self.metadata["render_fps"])
        window.show(render_rgb(subject))
        return None

    def close(self) -> None:
        window = getattr(self, "_human_window", None)
        if window is not None:
            window.close()
            self._human_window = None

    # ------------------------------------------------------------------ helpers for agents
    def view(self, agent: str):
        """The core's view of ``agent`` (what it may know), for agents that play from views."""
        return self._game().view(self._player(agent))

    def action_mask(self, agent: str) -> np.ndarray:
        """``agent``'s legal-action mask in its own frame (zeros when it is not its turn)."""
        return self._mask(self._player(agent))

    def _mask(self, player: int) -> np.ndarray:
        game = self._game()
        # The referee's cached legal list equals the player's view.legal_actions() on its turn
        # (tested); reusing it halves the move generation per step.
        legal = game.legal_actions() if game.current_player == player else []
        return legal_mask_in_frame(legal, player).astype(self.mask_dtype, copy=False)

    def to_env_action(self, agent: str, core_action: int) -> int:
        """A core (absolute) action as ``agent``'s env action."""
        return action_to_absolute(as_action(core_action), self._player(agent))

    def to_core_action(self, agent: str, env_action: int) -> int:
        """``agent``'s env action as a core (absolute) action."""
        return action_to_absolute(as_action(env_action), self._player(agent))

    def encode_action(self, from_post, to_post, agent: str | None = None) -> int:
        """The env action (in ``agent``'s frame; default: the agent to act) moving from
        ``from_post`` to ``to_post``, absolute posts as ints 0-59 or names like 'K0'. Same
        argument order as ``tbw_v0``: what to do first, whose frame last."""
        absolute = parse_post(from_post) * 60 + parse_post(to_post)
        if agent is None:
            self._game()  # agent_selection exists from the first reset on
            agent = self.agent_selection
        return self.to_env_action(agent, absolute)

    def decode_action(self, action: int, agent: str | None = None) -> tuple[int, int]:
        """Absolute ``(from_post, to_post)`` of an env move action of ``agent`` (default: the
        agent to act)."""
        if agent is None:
            self._game()
            agent = self.agent_selection
        absolute = self.to_core_action(agent, action)
        if absolute >= NUM_MOVE_ACTIONS:
            raise ValueError(f"action {action} is a deployment action, not a move")
        return divmod(absolute, 60)
