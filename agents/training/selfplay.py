"""Self-play PPO on the batched cores: one ``PolicyValueNet`` plays both seats of N games of
``tbw_envs.vector`` at once, and every move is a training sample for the player who made it.

Zero-sum advantages. The value is the mover's. After move ``t`` the next mover is the same player
(TBW: another unit of the same turn) or the other one (``sign`` +1 or -1), so the one-step error
and the GAE recursion carry the next value and advantage over with that sign::

    delta_t = r_t + gamma * (1 - done_t) * sign_t * V(s_{t+1}) - V(s_t)
    A_t     = delta_t + gamma * lam * (1 - done_t) * sign_t * A_{t+1}

where ``r_t`` is the mover's reward for the move (+1 or -1 on the move that ends a game, 0
otherwise). This is the player-to-move form of the lambda-return: for an opponent's value,
``V_opponent = -V``. ``negamax_gae`` computes it over a whole rollout (tests hold it to a
per-game loop written from the definition).

Reproducible and resumable. Everything random draws from generators seeded from the run's seed
(``torch.Generator`` for the actions and minibatches, the envs' own seeds for the games), and at
every checkpoint boundary the games restart from seeds derived from the seed and the update
number. A run stopped at a checkpoint and resumed (``agents.training.selfplay_checkpoints``)
therefore makes the same weights, bit for bit, as one never stopped.

This module imports torch (the ``train`` extra).
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any

import numpy as np
import torch

from agents.learned.net import PolicyValueNet, default_config, legal_lists
from tbw_envs import vector


@dataclasses.dataclass
class SelfPlayConfig:
    """What a run is: the game, its variant and the PPO settings."""

    game: str = "junqi"
    variant: dict[str, Any] = dataclasses.field(default_factory=dict)
    num_envs: int = 256
    rollout_steps: int = 32
    epochs: int = 1
    minibatch: int = 2048
    lr: float = 3e-4
    gamma: float = 1.0
    lam: float = 0.95
    clip: float = 0.2
    value_coef: float = 0.5
    entropy_coef: float = 0.01
    max_grad_norm: float = 0.5
    channels: int = 32
    blocks: int = 2
    head_channels: int = 4
    value_hidden: int = 64
    policy_head: str = "flat"
    restart_every: int = 50  # updates between game restarts, the only possible checkpoints
    # A league against forgetting: this share of the games (the first slots) is played against
    # a frozen past snapshot, one drawn per update; only the learner's moves there train the
    # policy (the values of every position train the value head).
    league_fraction: float = 0.0
    snapshot_every: int = 25  # updates between snapshots
    league_size: int = 8  # snapshots kept, the newest

    def check(self) -> SelfPlayConfig:
        for name in ("num_envs", "rollout_steps", "epochs", "minibatch", "restart_every",
                     "snapshot_every", "league_size"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"SelfPlayConfig.{name} must be a positive int, got {value!r}")
        for name, low, high in (("lr", 0.0, 1.0), ("gamma", 0.0, 1.0), ("lam", 0.0, 1.0),
                                ("clip", 0.0, 1.0), ("value_coef", 0.0, 100.0),
                                ("league_fraction", 0.0, 1.0),
                                ("entropy_coef", 0.0, 10.0), ("max_grad_norm", 0.0, 1e6)):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or isinstance(value, bool) \
                    or not low <= value <= high or (name == "lr" and value == 0):
                raise ValueError(f"SelfPlayConfig.{name} must be a number in [{low}, {high}]"
                                 f"{' above 0' if name == 'lr' else ''}, got {value!r}")
        if not isinstance(self.variant, dict):
            raise ValueError(f"SelfPlayConfig.variant must be a dict of the game's keywords, "
                             f"got {self.variant!r}")
        return self


def negamax_gae(rewards: np.ndarray, values: np.ndarray, dones: np.ndarray, signs: np.ndarray,
                last_values: np.ndarray, gamma: float, lam: float
                ) -> tuple[np.ndarray, np.ndarray]:
    """Advantages and value targets of a rollout, ``(T, N)`` each, from the mover's rewards and
    values ``(T, N)``, the moves that ended a game ``dones`` ``(T, N)``, ``signs`` ``(T, N)``
    (+1 when the same player moves next, -1 when the other does) and ``last_values`` ``(N,)``,
    the value of the position after the rollout for its mover."""
    steps = rewards.shape[0]
    advantages = np.zeros_like(values, dtype=np.float32)
    following_value = last_values.astype(np.float32)
    following_advantage = np.zeros_like(following_value)
    for t in range(steps - 1, -1, -1):
        carry = (1.0 - dones[t]) * signs[t]
        delta = rewards[t] + gamma * carry * following_value - values[t]
        following_advantage = delta + gamma * lam * carry * following_advantage
        advantages[t] = following_advantage
        following_value = values[t]
    return advantages, advantages + values


@dataclasses.dataclass
class UpdateStats:
    update: int
    env_steps: int
    seconds: float
    policy_loss: float
    value_loss: float
    entropy: float
    approx_kl: float
    games_ended: int
    mean_game_plies: float


class SelfPlayTrainer:
    """PPO self-play (see the module docstring). ``train(updates)`` runs that many updates,
    each ``rollout_steps`` steps of ``num_envs`` games, then ``epochs`` passes of minibatches."""

    def __init__(self, config: SelfPlayConfig, seed: int = 0, backend: str = "auto"):
        self.config = config.check()
        self.seed = int(seed)
        self.envs = vector.make(config.game, config.num_envs, seed=self.seed, backend=backend,
                                autoreset_mode="same_step", **config.variant)
        self.net = PolicyValueNet(default_config(
            self.envs.single_observation_space.shape, self.envs.single_action_space.n,
            channels=config.channels, blocks=config.blocks, head_channels=config.head_channels,
            value_hidden=config.value_hidden, policy_head=config.policy_head))
        torch.manual_seed(self.seed)  # the initial weights
        for module in self.net.modules():
            if hasattr(module, "reset_parameters"):
                module.reset_parameters()
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=config.lr, eps=1e-5)
        self.generator = torch.Generator().manual_seed(self.seed + 1)
        self.updates_done = 0
        self.env_steps = 0
        self.league: list[PolicyValueNet] = []
        league_games = round(config.league_fraction * config.num_envs)
        self._league_slot = np.arange(config.num_envs) < league_games
        # In a league game the learner holds seat slot % 2, so it plays both sides.
        self._learner_seat = np.arange(config.num_envs) % 2
        self._obs: np.ndarray | None = None
        self._info: dict[str, Any] | None = None

    # ------------------------------------------------------------------ games
    def _restart_games(self) -> None:
        """New games in every slot, seeded by the run's seed and the update number."""
        seed = (self.seed * 1_000_003 + self.updates_done * 7919) % (2**31)
        self._obs, self._info = self.envs.reset(seed=seed)

    def _sample(self, net: PolicyValueNet, obs: np.ndarray, mask: np.ndarray
                ) -> tuple[np.ndarray, ...]:
        """A draw from ``net``'s masked policy for every row: actions, their log-probabilities
        and ``net``'s values."""
        listed, valid = legal_lists(mask)
        with torch.no_grad():
            log_probs, value = net(torch.from_numpy(obs), torch.from_numpy(listed),
                                   torch.from_numpy(valid))
            # Gumbel-max: a draw from the masked softmax with our own generator.
            noise = torch.rand(log_probs.shape, generator=self.generator).clamp_(1e-12, 1.0)
            column = torch.argmax(log_probs - torch.log(-torch.log(noise)), dim=-1)
            chosen = log_probs.gather(1, column[:, None]).squeeze(1)
        actions = listed[np.arange(listed.shape[0]), column.numpy()]
        return actions, chosen.numpy(), value.numpy()

    def _take_snapshot(self) -> None:
        twin = PolicyValueNet(self.net.config)
        twin.load_state_dict(self.net.state_dict())
        twin.eval()
        self.league = [*self.league, twin][-self.config.league_size:]

    def collect(self) -> dict[str, np.ndarray]:
        """One rollout: ``rollout_steps`` moves in every game, both seats by the net."""
        cfg = self.config
        if self._obs is None or self.updates_done % cfg.restart_every == 0:
            self._restart_games()
        if cfg.league_fraction and self.updates_done % cfg.snapshot_every == 0:
            self._take_snapshot()
        opponent = None
        if self.league and self._league_slot.any():
            pick = int(torch.randint(len(self.league), (1,), generator=self.generator))
            opponent = self.league[pick]
        steps, n = cfg.rollout_steps, cfg.num_envs
        obs_shape = self._obs.shape[1:]
        batch = {
            "obs": np.zeros((steps, n, *obs_shape), np.float32),
            "mask": np.zeros((steps, n, self._info["action_mask"].shape[1]), bool),
            "action": np.zeros((steps, n), np.int64),
            "log_prob": np.zeros((steps, n), np.float32),
            "value": np.zeros((steps, n), np.float32),
            "reward": np.zeros((steps, n), np.float32),
            "done": np.zeros((steps, n), np.float32),
            "sign": np.zeros((steps, n), np.float32),
            "learner": np.ones((steps, n), np.float32),  # 0: a league opponent's move
            "mover": np.zeros((steps, n), np.int64),
        }
        rows = np.arange(n)
        ended_plies: list[np.ndarray] = []
        obs, info = self._obs, self._info
        for t in range(steps):
            mask = info["action_mask"]
            mover = info["current_player"]
            actions, log_probs, values = self._sample(self.net, obs, mask)
            if opponent is not None:
                theirs = self._league_slot & (mover != self._learner_seat)
                if theirs.any():
                    actions[theirs] = self._sample(opponent, obs[theirs], mask[theirs])[0]
                    batch["learner"][t] = ~theirs
            batch["obs"][t], batch["mask"][t], batch["mover"][t] = obs, mask, mover
            batch["action"][t], batch["log_prob"][t], batch["value"][t] = actions, log_probs, values
            obs, rewards, terminated, _, info = self.envs.step(actions)
            batch["reward"][t] = rewards[rows, mover]
            batch["done"][t] = terminated
            batch["sign"][t] = np.where(info["current_player"] == mover, 1.0, -1.0)
            if terminated.any():
                ended_plies.append(info["final_info"]["plies"][terminated])
        self._obs, self._info = obs, info
        with torch.no_grad():
            listed, valid = legal_lists(info["action_mask"])
            _, last_values = self.net(torch.from_numpy(obs), torch.from_numpy(listed),
                                      torch.from_numpy(valid))
        advantages, targets = negamax_gae(batch["reward"], batch["value"], batch["done"],
                                          batch["sign"], last_values.numpy(), cfg.gamma, cfg.lam)
        batch["advantage"], batch["target"] = advantages, targets
        plies = np.concatenate(ended_plies) if ended_plies else np.zeros(0)
        batch["ended_plies"] = plies
        self.env_steps += steps * n
        return batch

    # ------------------------------------------------------------------ learning
    def learn(self, batch: dict[str, np.ndarray]) -> dict[str, float]:
        cfg = self.config
        total = cfg.rollout_steps * cfg.num_envs
        flat = {key: batch[key].reshape(total, *batch[key].shape[2:])
                for key in ("obs", "mask", "action", "log_prob", "advantage", "target",
                            "learner")}
        tensors = {key: torch.from_numpy(flat[key])
                   for key in ("obs", "log_prob", "advantage", "target", "learner")}
        sums = {"policy_loss": 0.0, "value_loss": 0.0, "entropy": 0.0, "approx_kl": 0.0}
        count = 0
        for _ in range(cfg.epochs):
            order = torch.randperm(total, generator=self.generator)
            for start in range(0, total, cfg.minibatch):
                index = order[start:start + cfg.minibatch]
                rows = index.numpy()
                listed, valid = legal_lists(flat["mask"][rows])
                column = np.argmax(listed == flat["action"][rows, None], axis=1)
                log_probs, values = self.net(tensors["obs"][index], torch.from_numpy(listed),
                                             torch.from_numpy(valid))
                new_log_prob = log_probs.gather(1, torch.from_numpy(column)[:, None]).squeeze(1)
                # The policy learns from the learner's own moves only (a league opponent's
                # weigh 0); where a move is the opponent's, the ratio is held at 1, so an
                # old log-probability of another policy's move cannot overflow it.
                weight = tensors["learner"][index]
                moves = weight.sum().clamp(min=1.0)
                advantage = tensors["advantage"][index]
                mean = (advantage * weight).sum() / moves
                spread = (((advantage - mean) ** 2 * weight).sum() / moves).sqrt()
                advantage = (advantage - mean) / (spread + 1e-8)
                log_ratio = torch.where(weight > 0, new_log_prob - tensors["log_prob"][index],
                                        0.0)
                ratio = torch.exp(log_ratio)
                policy_loss = -(torch.min(
                    ratio * advantage,
                    torch.clamp(ratio, 1 - cfg.clip, 1 + cfg.clip) * advantage) * weight
                ).sum() / moves
                value_loss = ((values - tensors["target"][index]) ** 2).mean()
                probs = torch.exp(log_probs)
                entropy = -((probs * torch.where(torch.from_numpy(valid), log_probs,
                                                 0.0)).sum(-1) * weight).sum() / moves
                loss = policy_loss + cfg.value_coef * value_loss - cfg.entropy_coef * entropy
                self.optimizer.zero_grad(set_to_none=True)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(self.net.parameters(), cfg.max_grad_norm)
                self.optimizer.step()
                with torch.no_grad():
                    kl = (((torch.exp(log_ratio) - 1) - log_ratio) * weight).sum() / moves
                for key, value in (("policy_loss", policy_loss), ("value_loss", value_loss),
                                   ("entropy", entropy), ("approx_kl", kl)):
                    sums[key] += float(value.detach())
                count += 1
        return {key: value / count for key, value in sums.items()}

    def update(self) -> UpdateStats:
        start = time.perf_counter()
        batch = self.collect()
        losses = self.learn(batch)
        self.updates_done += 1
        plies = batch["ended_plies"]
        return UpdateStats(update=self.updates_done, env_steps=self.env_steps,
                           seconds=time.perf_counter() - start, games_ended=int(plies.size),
                           mean_game_plies=float(plies.mean()) if plies.size else float("nan"),
                           **losses)
