"""Q-learning of the TBW evaluation weights (``scripts/tune_weights.py --game tbw``).

The single-turn search (``agents.tbw.search``) picks the plan whose end-of-turn state scores
highest under ``DefaultEvaluation``, which is linear in named features
(``agents.tbw.evaluation.FEATURE_NAMES``). Read as a value of afterstates,
``V(s') = w . phi(s')``, the weights can be learned by TD (``agents.training.linear_q``).
Choices, and why:

* **Afterstates**: one decision is a whole turn; its afterstate is the state after our plan.
  The one-step TD target of our afterstate is ``discount x`` the value of the next afterstate
  the greedy plan would reach at our next turn (Q-learning: the max over our next plans, which
  is what the search returns), or of the end of the game when it ends before that. Games last
  dozens of our turns and the only reward is the result, so by default the targets are
  lambda-returns (``trace_decay`` 0.8, cut at exploring turns as in Watkins's Q(lambda)),
  which carry the result back faster than one-step targets; updates come after each game.
* **Features** are the evaluation's own, so the tuned weights drop into every agent that reads
  ``weights=tuned``. ``victory`` is not learned: it is the terminal signal (a finished game's
  value is ``win_reward x`` its result) and keeps its weight, so the search still takes every
  win it sees. Its 1e6 is a "wins first" switch for the search, not a value on the learned
  scale.
* **State part**: a constant and the fraction of the turn limit used (``STATE_FEATURES``). Every
  plan of one turn ends with the same values of both, so they never change which plan the search
  picks, but they absorb the value level (a late position is worth less: the turn limit draws
  it) that the feature weights would otherwise be bent to fit. Only the feature weights are
  written out.
* **Reward**: only the result, ``win_reward`` (+1, 0 or -1 times it) when the game ends;
  ``win_reward`` sets the scale of the learned weights, and only their ratios change the play.
* **Greedy plan**: ``plan_turn(state, algorithm, evaluate=current weights, budget=ops1)`` (a node
  budget, so the run is deterministic on any machine). **Exploration**, with probability
  epsilon (falling linearly over the run): the plan the search finds under weights perturbed
  by a random factor ``exp(perturbation x N(0, 1))`` each (``"perturb"``: a plausible but
  different plan), or random legal unit actions for the whole turn (``"random"``).
* **Opponents**: each episode draws one from a pool of agent specs (``agents.registry``:
  ``random``, ``greedy``, ``exact``, ...), or ``self``: the search with the current weights,
  frozen for that episode. Seats alternate.
* **Varied starts**: the scenarios are deterministic, and so are the search agents: without
  variation every game from one scenario would repeat. Episodes cycle through ``scenarios``
  and start with a random number (in ``opening_plies``) of uniformly random plies
  (``agents.arena.random_opening``).
* **Start** from the default weights, so training tunes them; the feature scales of the
  learner are fixed by a warm-up sample of afterstates.

Every episode's randomness derives from ``(seed, episode)``, so a run resumed from its
checkpoint continues exactly as it would have without the stop (unless the resume raises
``episodes``: the exploration schedule then stretches to the new length).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

import numpy as np

from agents.arena import GameSetup, play_game, random_opening
from agents.registry import make_agent
from agents.tbw.evaluation import (
    FEATURE_NAMES,
    MAX_WEIGHT,
    DefaultEvaluation,
    features,
    load_weights,
)
from agents.tbw.search import ALGORITHMS, DEFAULT_AGENT_BUDGET, TBWSearchAgent, plan_turn
from agents.training.linear_q import LinearQ, feature_scales
from agents.training.weight_tuner import (
    MAX_EPISODES,
    MAX_GAMES,
    MAX_PLIES,
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
from tbw_envs.core.contract import MAX_SEED, is_integer, short_repr
from tbw_envs.core.seeding import derive_seed
from tbw_envs.games import get_game
from tbw_envs.tbw.state import TBWState
from tbw_envs.tbw.variant import load_scenario

TBW = get_game("tbw")

CHECKPOINT_FORMAT = "tbw-envs-tbw-tuning/1"
FIXED_FEATURES = ("victory",)
LEARNED_FEATURES = tuple(f for f in FEATURE_NAMES if f not in FIXED_FEATURES)
STATE_FEATURES = ("baseline", "turn_used")
EXPLORATIONS = ("perturb", "random")
TUNING_SCENARIOS = ("duel_5v5_8x8", "hex_skirmish", "fire_emblem_5v5")
MAX_BUDGET = 10**12  # ops1 per turn
MAX_PERTURBATION = 5.0  # exp(5 x N(0, 1)) already spans many orders of magnitude


@dataclass
class TBWTuningConfig:
    episodes: int = 900
    step_size: float = 0.004
    discount: float = 0.97
    trace_decay: float = 0.8  # lambda of the lambda-returns; 0: one-step Q-learning
    epsilon_start: float = 0.3
    epsilon_end: float = 0.05
    exploration: str = "perturb"
    perturbation: float = 0.7  # log-normal spread of the exploring turn's weights
    win_reward: float = 100.0
    opponents: tuple[str, ...] = ("exact", "self")
    scenarios: tuple[str, ...] = TUNING_SCENARIOS
    opening_plies: tuple[int, int] = (0, 10)  # random plies before each game, drawn in [lo, hi]
    algorithm: str = "exact"
    budget: int = DEFAULT_AGENT_BUDGET  # ops1 per turn, for our plans and the "self" opponent
    start_weights: str = "default"
    eval_every: int = 100
    eval_games: int = 60  # paired, spread over the scenarios: half the seeds, both seats
    eval_opponent: str = "exact"
    eval_opening_plies: int = 10  # as in the arena measurement (docs/results.md)
    warmup_games: int = 2  # per scenario
    seed: int = 0

    def __post_init__(self):
        """Every field checked (``TuningConfigError`` naming it); ranges: ``episodes`` and
        ``eval_every`` in [0, 1e6], ``eval_games`` even and ``warmup_games`` >= 1, both at most
        1e5, ``budget`` in [0, 1e12] ops1, ``opening_plies`` and ``eval_opening_plies`` in
        [0, 10000], ``step_size`` in (0, 1], ``discount``, ``trace_decay`` and the epsilons in
        [0, 1], ``perturbation`` in [0, 5], ``win_reward`` in (0, 1e6], ``seed`` in
        [0, 2**63 - 1], names non-empty strings."""
        for name, high in (("episodes", MAX_EPISODES), ("eval_every", MAX_EPISODES),
                           ("eval_games", MAX_GAMES), ("warmup_games", MAX_GAMES),
                           ("eval_opening_plies", MAX_PLIES), ("budget", MAX_BUDGET),
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
        for name in ("discount", "trace_decay"):
            setattr(self, name, check_real(name, getattr(self, name), 0.0, 1.0))
        self.step_size = check_real("step_size", self.step_size, 0.0, 1.0, open_low=True,
                                    what="a positive number")
        self.win_reward = check_real("win_reward", self.win_reward, 0.0, MAX_REWARD,
                                     open_low=True, what="a positive number")
        self.perturbation = check_real("perturbation", self.perturbation, 0.0,
                                       MAX_PERTURBATION, what="a non-negative number")
        if self.exploration not in EXPLORATIONS:
            raise TuningConfigError("exploration", f"exploration must be one of "
                                                   f"{EXPLORATIONS}, got "
                                                   f"{short_repr(self.exploration)}")
        if self.algorithm not in ALGORITHMS:
            raise TuningConfigError("algorithm", f"algorithm must be one of {ALGORITHMS}, got "
                                                 f"{short_repr(self.algorithm)}")
        self.opponents = check_names("opponents", self.opponents, "the opponent pool is empty")
        self.scenarios = check_names("scenarios", self.scenarios, "no scenarios to train on")
        for name in ("start_weights", "eval_opponent"):
            check_text(name, getattr(self, name))
        plies = self.opening_plies
        if (not isinstance(plies, (list, tuple)) or len(plies) != 2
                or not all(is_integer(p) for p in plies)
                or not 0 <= plies[0] <= plies[1] <= MAX_PLIES):
            raise TuningConfigError("opening_plies", "opening_plies must be two integers "
                                    f"0 <= lo <= hi <= {MAX_PLIES}, got "
                                    f"{short_repr(self.opening_plies)}")
        self.opening_plies = (int(plies[0]), int(plies[1]))

    def epsilon(self, episode: int) -> float:
        return linear_epsilon(episode, self.episodes, self.epsilon_start, self.epsilon_end)


def _derive(seed: int, *parts) -> int:
    return derive_seed("tbw-tuning", seed, *parts)


class TBWWeightTuner(WeightTuner):
    """Runs the Q-learning; ``run(progress)`` trains up to ``config.episodes``."""

    CHECKPOINT_FORMAT = CHECKPOINT_FORMAT
    CONFIG_CLASS = TBWTuningConfig
    GAME = TBW
    LEARNER_FEATURES = LEARNED_FEATURES + STATE_FEATURES

    def __init__(self, config: TBWTuningConfig):
        """Loads the starting weights and the scenarios and builds every opponent once, so a
        config that cannot run fails here (``TuningConfigError`` naming the field), before any
        game is played."""
        super().__init__()
        self.config = config
        try:
            self.base = load_weights(config.start_weights)
        except ValueError as exc:
            raise TuningConfigError("start_weights", f"start_weights: {exc}") from None
        if self.base.tile_bonus is not None:  # pragma: no cover - files hold no tile bonus
            raise ValueError("a tile bonus is not a named feature; start from plain weights")
        self.scenarios = {}
        for name in config.scenarios:
            try:
                self.scenarios[name] = load_scenario(name)
            except ValueError as exc:
                raise TuningConfigError("scenarios", f"scenarios: {exc}") from None
        self._learned = [FEATURE_NAMES.index(f) for f in LEARNED_FEATURES]
        check_agent_specs(config, TBW.name)

    def _check_learned_weights(self) -> None:
        self.current_evaluation()

    # -- features and weights
    def row(self, afterstate, side: int) -> np.ndarray:
        """The learner's features of a non-terminal afterstate: the learned evaluation
        features, then the state part (``STATE_FEATURES``)."""
        phi = features(afterstate, side)[self._learned]
        limit = afterstate.scenario.max_turns
        return np.concatenate([phi, [1.0, min(afterstate.turn, limit) / limit]])

    def weight_dict(self) -> dict[str, float]:
        """Every weight of the evaluation (the fixed ones included) by feature name."""
        weights = self.base.weight_dict()
        if self.learner is not None:
            learned = self.learner.weights[: len(LEARNED_FEATURES)]
            weights.update(zip(LEARNED_FEATURES, map(float, learned), strict=True))
        return weights

    def current_evaluation(self) -> DefaultEvaluation:
        return DefaultEvaluation.from_weights(self.weight_dict(), source="tuned weights")

    def _afterstate_value(self, afterstate, side: int) -> float:
        if afterstate.is_terminal():
            return self.config.win_reward * afterstate.returns()[side]
        return self.learner.value(self.row(afterstate, side))

    # -- plans
    def _plan(self, state, evaluation: DefaultEvaluation) -> list[int]:
        result = plan_turn(state, self.config.algorithm, evaluate=evaluation,
                           budget=self.config.budget)
        return list(result.actions) or [state.end_turn_action]

    def _exploring_plan(self, state, rng: random.Random) -> list[int]:
        if self.config.exploration == "perturb":
            weights = self.weight_dict()
            for name in LEARNED_FEATURES:
                weights[name] *= math.exp(self.config.perturbation * rng.gauss(0.0, 1.0))
                # Held within the evaluation's range (a no-op for any weight near its start).
                weights[name] = min(MAX_WEIGHT, max(-MAX_WEIGHT, weights[name]))
            return self._plan(state, DefaultEvaluation.from_weights(weights))
        # "random": uniformly random unit actions until the turn passes.
        probe, side, actions = state.clone(), state.current_player, []
        while not probe.is_terminal() and probe.current_player == side:
            legal = probe.legal_actions()
            choice = rng.choice(legal[:-1] if len(legal) > 1 else legal)
            probe.apply(choice)
            actions.append(choice)
        return actions

    @staticmethod
    def _after(state, actions: list[int]):
        """The state after ``actions``; END_TURN added if the turn has not passed yet."""
        after = state.clone()
        side = state.current_player
        for action in actions:
            after.apply(action)
        if not after.is_terminal() and after.current_player == side:
            after.apply(after.end_turn_action)
        return after

    def _start(self, name: str, plies: int, seed: int):
        state = TBWState.initial(self.scenarios[name])
        random_opening(state, plies, seed)
        return state

    def _opponent(self, spec: str, seed: int):
        if spec == "self":
            agent = TBWSearchAgent(self.config.algorithm, evaluate=self.current_evaluation(),
                                   budget=self.config.budget, name="self")
        else:
            agent = make_agent(spec, seed=seed, game=TBW.name)
        agent.reset(seed)
        return agent

    # -- the pieces of a run
    def warm_up(self) -> None:
        """Fix the feature scales from the afterstates of a few games of the starting weights'
        search against greedy, per scenario (greedy closes in, so fights happen)."""
        rows = []
        for name in self.config.scenarios:
            for game in range(self.config.warmup_games):
                seed = _derive(self.config.seed, "warmup", name, game)
                state = self._start(name, self.config.opening_plies[1], seed)
                ours = game % 2
                players = {ours: TBWSearchAgent(self.config.algorithm, evaluate=self.base,
                                                budget=self.config.budget),
                           1 - ours: self._opponent("greedy", seed)}
                while not state.is_terminal():
                    side = state.current_player
                    state.apply(players[side].act(state.view(side)))
                    if state.current_player != side and not state.is_terminal():
                        rows.append(self.row(state, side))
        if not rows:
            raise RuntimeError("the warm-up games produced no afterstate to scale features by")
        start = list(self.base.weights[self._learned]) + [0.0] * len(STATE_FEATURES)
        self.learner = LinearQ(start, feature_scales(np.vstack(rows)), self.config.step_size,
                               LEARNED_FEATURES + STATE_FEATURES)

    def play_episode(self, episode: int) -> float:
        """One training game, then its updates; returns their mean absolute TD error.

        The weights stay fixed during the game (ours and the ``self`` opponent's); the updates
        come after it, one per afterstate of ours, toward its lambda-return (``trace_decay``):
        ``G_t = discount x ((1 - lambda) x v_t + lambda x G_t+1)``, where ``v_t`` is the value
        of the greedy plan's afterstate at our next turn (or of the end of the game). The return
        is cut (``G_t = discount x v_t``) where the next turn explored, as in Watkins's Q(lambda):
        an exploring turn says nothing about the greedy policy's value. lambda = 0 is one-step
        Q-learning."""
        config, learner = self.config, self.learner
        rng = random.Random(_derive(config.seed, "episode", episode))
        name = config.scenarios[episode % len(config.scenarios)]
        seat = (episode // len(config.scenarios)) % 2
        plies = rng.randint(*config.opening_plies)
        state = self._start(name, plies, _derive(config.seed, "opening", episode))
        spec = config.opponents[rng.randrange(len(config.opponents))]
        opponent = self._opponent(spec, _derive(config.seed, "opponent", episode))
        epsilon = config.epsilon(episode)
        evaluation = self.current_evaluation()
        rows: list[np.ndarray] = []  # our non-terminal afterstates, in order
        bootstrap: list[float] = []  # v_t of each row
        cut: list[bool] = []  # whether row t's return stops at v_t
        while not state.is_terminal():
            side = state.current_player
            if side != seat:
                state.apply(opponent.act(state.view(side)))
                continue
            greedy = self._plan(state, evaluation)
            greedy_after = self._after(state, greedy)
            explore = rng.random() < epsilon
            if rows:
                bootstrap.append(self._afterstate_value(greedy_after, seat))
                cut.append(explore or greedy_after.is_terminal())
            chosen, after = greedy, greedy_after
            if explore:
                chosen = self._exploring_plan(state, rng)
                after = self._after(state, chosen)
            for action in chosen:
                state.apply(action)
            if not state.is_terminal() and state.current_player == seat:
                state.apply(state.end_turn_action)
            if after.is_terminal():
                break
            rows.append(self.row(after, seat))
        if len(bootstrap) < len(rows):  # the game ended in the opponent's turn or at the limit
            bootstrap.append(config.win_reward * state.returns()[seat])
            cut.append(True)
        returns = [0.0] * len(rows)
        following = 0.0
        for t in range(len(rows) - 1, -1, -1):
            if cut[t]:
                following = config.discount * bootstrap[t]
            else:
                following = config.discount * ((1.0 - config.trace_decay) * bootstrap[t]
                                               + config.trace_decay * following)
            returns[t] = following
        errors = [learner.td_update(row, target) for row, target in zip(rows, returns,
                                                                          strict=True)]
        return float(np.mean(np.abs(errors))) if errors else 0.0

    def evaluate(self) -> tuple[float, dict[str, float]]:
        """Score of the current weights' search against ``eval_opponent`` over ``eval_games``
        paired games spread over the scenarios (the same openings at every evaluation point),
        played as the arena plays them (``play_game``): the overall score and the score per
        scenario."""
        config = self.config
        pairs = config.eval_games // 2
        points = {name: [] for name in config.scenarios}
        for pair in range(pairs):
            name = config.scenarios[pair % len(config.scenarios)]
            seed = _derive(config.seed, "eval", pair)
            setup = GameSetup(TBW, name, config.eval_opening_plies)
            for our_seat in (0, 1):
                ours = TBWSearchAgent(config.algorithm, evaluate=self.current_evaluation(),
                                      budget=config.budget)
                theirs = self._opponent(config.eval_opponent, seed)
                returns = play_game(setup, [theirs, ours] if our_seat else [ours, theirs],
                                    seed).returns
                points[name].append((returns[our_seat] + 1.0) / 2.0)
        every = [p for scores in points.values() for p in scores]
        overall = sum(every) / max(1, len(every))
        return overall, {n: sum(s) / len(s) for n, s in points.items() if s}

    def _record_evaluation(self) -> None:
        if self.config.eval_games == 0:
            return
        score, by_scenario = self.evaluate()
        names = LEARNED_FEATURES + STATE_FEATURES
        self.history.evaluations.append({
            "episode": self.episode, "score": score, "scenarios": by_scenario,
            "weights": dict(zip(names, map(float, self.learner.weights), strict=True)),
        })  # fmt: skip
