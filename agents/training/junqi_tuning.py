"""Q-learning of the Junqi move-evaluation weights (``scripts/tune_weights.py --game junqi``).

The move evaluation is linear in its named features (``agents.junqi.evaluation``), so it can be
read as an action-value function ``Q(s, a) = w . phi(s, a)``, and Q-learning can tune ``w``
(``agents.training.linear_q``). Choices, and why:

* **Features** are the evaluation's own, computed exactly as ``GreedyAgent`` computes them
  (the learner's view and its belief tracker, never the true state), so the tuned weights drop
  into every agent that reads ``weights=tuned``.
* **Reward**: the change of the material balance (our pieces' values minus theirs, flag
  excluded, in the evaluation's piece-value units) from one of our decisions to the next, and
  ``win_reward`` (+/-) when the game ends. It defaults to the flag's value (5000): capturing
  the flag is what ``attack_gain`` values at that price, so any other win reward would teach
  the learner to shrink ``attack_gain`` to reconcile the two. Material is what
  ``attack_gain`` and ``exposure`` predict, so the learned values stay in piece-value units
  and the tuned weights keep the scale of the defaults: the search agents add them to
  material changes at their leaves, which only makes sense on that scale. The training loop
  reads material off the true state; the agent's
  features never do.
* **Afterstates**: the TD target of a move is the reward until our next decision plus
  ``discount x max_a' Q(s', a')`` there: the opponent's reply is part of the environment.
* **State baseline**: the move features alone cannot express how good the position is, only
  how moves differ, yet the targets carry the position's value. Q gets a state part
  (``STATE_FEATURES``: a constant, the material balance / 100, and the urgency of Algorithm 2's
  flag alarm), the same for every move of a position, so it leaves the greedy choice alone and
  absorbs the value level that the move weights would otherwise be bent to fit (without the
  alarm term, ``flag_defence`` learns a negative weight: the moves it rewards are played in
  positions that are often already lost). Only the move weights are written out.
* **Start** from the default weights (the paper's values), so training tunes them.
* **Opponents**: each episode draws one from a pool of agent specs (``agents.registry``), or
  ``self``: the greedy policy of the current weights, frozen for that episode. Our seat
  alternates.
* **Exploration**: epsilon-greedy, epsilon falling linearly from ``epsilon_start`` to
  ``epsilon_end`` over the run.

Every episode's randomness (layouts, exploration, opponent) derives from ``(seed, episode)``,
so a run resumed from its checkpoint continues exactly as it would have without the stop
(unless the resume raises ``episodes``: the exploration schedule then stretches to the new
length).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np

from agents.arena import GameSetup, play_game
from agents.junqi.belief import BELIEFS, make_belief
from agents.junqi.evaluation import FEATURE_NAMES, JunqiEvaluation, load_weights, material
from agents.junqi.greedy import GreedyAgent
from agents.registry import make_agent
from agents.training.linear_q import LinearQ, feature_scales
from agents.training.weight_tuner import (
    MAX_EPISODES,
    MAX_GAMES,
    MAX_REWARD,
    TuningConfigError,
    WeightTuner,
    check_agent_specs,
    check_epsilons,
    check_int,
    check_names,
    check_real,
    check_text,
    linear_epsilon,
)
from tbw_envs.core.contract import MAX_SEED, short_repr
from tbw_envs.core.seeding import derive_seed
from tbw_envs.games import get_game
from tbw_envs.junqi.pieces import FLAG
from tbw_envs.junqi.variant import load_rules

JUNQI = get_game("junqi")

CHECKPOINT_FORMAT = "tbw-envs-junqi-tuning/1"
STATE_FEATURES = ("baseline", "balance", "flag_alarm")


@dataclass
class JunqiTuningConfig:
    episodes: int = 1000
    step_size: float = 0.0002
    discount: float = 0.9
    epsilon_start: float = 0.2
    epsilon_end: float = 0.02
    win_reward: float | None = None  # None: the flag's piece value
    opponents: tuple[str, ...] = ("greedy", "self")
    rules: str = "ccgc"
    belief: str = "count"
    start_weights: str = "default"
    eval_every: int = 100
    eval_games: int = 40  # paired: half the seeds, both seat assignments
    eval_opponent: str = "greedy"
    warmup_games: int = 4
    seed: int = 0

    def __post_init__(self):
        """Every field checked (``TuningConfigError`` naming it); ranges: ``episodes`` and
        ``eval_every`` in [0, 1e6], ``eval_games`` even and ``warmup_games`` >= 1, both at most
        1e5, ``step_size`` in (0, 1], ``discount`` and the epsilons in [0, 1], ``win_reward``
        None or in (0, 1e6], ``seed`` in [0, 2**63 - 1], names non-empty strings."""
        for name, high in (("episodes", MAX_EPISODES), ("eval_every", MAX_EPISODES),
                           ("eval_games", MAX_GAMES), ("warmup_games", MAX_GAMES),
                           ("seed", MAX_SEED)):
            setattr(self, name, check_int(name, getattr(self, name), 0, high))
        if self.eval_games % 2:
            raise TuningConfigError("eval_games", "eval_games must be even (paired games), "
                                                  f"got {self.eval_games}")
        if self.warmup_games < 1:
            raise TuningConfigError("warmup_games", "warmup_games must be at least 1 (it sets "
                                                    "the feature scales)")
        self.epsilon_start, self.epsilon_end = check_epsilons(self.epsilon_start,
                                                              self.epsilon_end)
        self.discount = check_real("discount", self.discount, 0.0, 1.0)
        self.step_size = check_real("step_size", self.step_size, 0.0, 1.0, open_low=True,
                                    what="a positive number")
        if self.win_reward is not None:
            self.win_reward = check_real("win_reward", self.win_reward, 0.0, MAX_REWARD,
                                         open_low=True, what="None or a positive number")
        self.opponents = check_names("opponents", self.opponents, "the opponent pool is empty")
        for name in ("rules", "belief", "start_weights", "eval_opponent"):
            check_text(name, getattr(self, name))
        if self.belief not in BELIEFS:
            raise TuningConfigError("belief", f"belief must be one of {sorted(BELIEFS)}, got "
                                              f"{short_repr(self.belief)}")

    def epsilon(self, episode: int) -> float:
        return linear_epsilon(episode, self.episodes, self.epsilon_start, self.epsilon_end)


def _derive(seed: int, *parts) -> int:
    return derive_seed("junqi-tuning", seed, *parts)


class JunqiWeightTuner(WeightTuner):
    """Runs the Q-learning; ``run(progress)`` trains up to ``config.episodes``."""

    CHECKPOINT_FORMAT = CHECKPOINT_FORMAT
    CONFIG_CLASS = JunqiTuningConfig
    GAME = JUNQI
    LEARNER_FEATURES = FEATURE_NAMES + STATE_FEATURES

    def __init__(self, config: JunqiTuningConfig):
        """Loads the rule set and the starting weights and builds every opponent once, so a
        config that cannot run fails here (``TuningConfigError`` naming the field), before any
        game is played."""
        super().__init__()
        self.config = config
        try:
            self.rules = load_rules(config.rules)
        except ValueError as exc:
            raise TuningConfigError("rules", f"rules: {exc}") from None
        try:
            self.base = load_weights(config.start_weights)
        except ValueError as exc:
            raise TuningConfigError("start_weights", f"start_weights: {exc}") from None
        self.evaluation = JunqiEvaluation(self.base)
        self.win_reward = (self.base.piece_values[FLAG] if config.win_reward is None
                           else float(config.win_reward))
        check_agent_specs(config, JUNQI.name)

    def _check_learned_weights(self) -> None:
        self.current_config()

    # -- the pieces of an episode
    def _new_state(self, seed: int):
        return JUNQI.new_state(self.rules, seed)

    def features(self, view, balance: float) -> tuple[list[int], np.ndarray]:
        """The legal moves of ``view`` and their rows: the move features as ``GreedyAgent``
        sees them, then the state features (``STATE_FEATURES``)."""
        actions = view.legal_actions()
        belief = make_belief(self.config.belief, view)
        context = self.evaluation.context(view, belief)
        moves = np.asarray([context.features(a) for a in actions], dtype=float)
        state = [1.0, balance / 100.0, context.flag_alarm_urgency]
        return actions, np.hstack([moves, np.tile(state, (len(actions), 1))])

    def current_config(self, name: str = "tuned"):
        if self.learner is None:
            return self.base.with_weights(self.base.weights, name=name)
        return self.base.with_weights(self.learner.weights[: len(FEATURE_NAMES)], name=name)

    def _opponent(self, spec: str, seed: int):
        if spec == "self":
            agent = GreedyAgent(belief=self.config.belief, weights=self.current_config(),
                                    seed=seed)
        else:
            agent = make_agent(spec, seed=seed, game=JUNQI.name)
        agent.reset(seed)
        return agent

    def _balance(self, state, player: int) -> float:
        values = self.base.piece_values
        return (material(state.owner, state.kind, player, values)
                - material(state.owner, state.kind, 1 - player, values))

    def warm_up(self) -> None:
        """Fix the feature scales from the legal moves seen in a few greedy-v-greedy games."""
        rows = []
        for game in range(self.config.warmup_games):
            seed = _derive(self.config.seed, "warmup", game)
            state = self._new_state(seed)
            players = [GreedyAgent(belief=self.config.belief, weights=self.base,
                                       seed=seed + i) for i in (0, 1)]
            while not state.is_terminal():
                player = state.current_player
                view = state.view(player)
                rows.append(self.features(view, self._balance(state, player))[1])
                state.apply(players[player].act(view))
        start = list(self.base.weights) + [0.0] * len(STATE_FEATURES)
        self.learner = LinearQ(start, feature_scales(np.vstack(rows)), self.config.step_size,
                               FEATURE_NAMES + STATE_FEATURES)

    def play_episode(self, episode: int) -> float:
        """One training game; returns the mean absolute TD error of its updates."""
        config, learner = self.config, self.learner
        rng = random.Random(_derive(config.seed, "episode", episode))
        state = self._new_state(_derive(config.seed, "layouts", episode))
        seat = episode % 2
        opponent = self._opponent(config.opponents[rng.randrange(len(config.opponents))],
                                  _derive(config.seed, "opponent", episode))
        epsilon = config.epsilon(episode)
        pending = None  # (features of our last move, material balance before it)
        errors = []
        while not state.is_terminal():
            player = state.current_player
            view = state.view(player)
            if player != seat:
                state.apply(opponent.act(view))
                continue
            balance = self._balance(state, seat)
            actions, phi = self.features(view, balance)
            q = learner.values(phi)
            if pending is not None:
                reward = balance - pending[1]
                errors.append(learner.td_update(pending[0], reward + config.discount * q.max()))
            if rng.random() < epsilon:
                index = rng.randrange(len(actions))
            else:
                best = np.flatnonzero(q >= q.max() - 1e-9)
                index = int(best[rng.randrange(len(best))])
            pending = (phi[index], balance)
            state.apply(actions[index])
        if pending is not None:
            reward = self._balance(state, seat) - pending[1]
            reward += self.win_reward * state.returns()[seat]
            errors.append(learner.td_update(pending[0], reward))
        return float(np.mean(np.abs(errors))) if errors else 0.0

    def evaluate(self) -> float:
        """Score of the current weights' greedy policy against ``eval_opponent`` over
        ``eval_games`` paired games (the same seeds at every evaluation point), played as the
        arena plays them (``play_game``)."""
        setup = GameSetup(JUNQI, self.config.rules)
        points = 0.0
        for pair in range(self.config.eval_games // 2):
            seed = _derive(self.config.seed, "eval", pair)
            for our_seat in (0, 1):
                ours = GreedyAgent(belief=self.config.belief, weights=self.current_config())
                theirs = self._opponent(self.config.eval_opponent, seed)
                agents = [theirs, ours] if our_seat else [ours, theirs]
                returns = play_game(setup, agents, seed).returns
                points += (returns[our_seat] + 1.0) / 2.0
        return points / max(1, self.config.eval_games)

    def _record_evaluation(self) -> None:
        if self.config.eval_games == 0:
            return
        self.history.evaluations.append({
            "episode": self.episode, "score": self.evaluate(),
            "weights": dict(zip(FEATURE_NAMES + STATE_FEATURES,
                                map(float, self.learner.weights), strict=True)),
        })  # fmt: skip
