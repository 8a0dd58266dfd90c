"""The training command (``agents.cli.train``): a short run writes its policy files, checkpoints,
monitor, evaluation and run record, and the policy it saves plays an arena game; ``--eval-prior``
trains the evaluation prior and is refused for TBW. The checks of every argument are in
test_train_arguments.py."""

from __future__ import annotations

import csv
import json

import pytest

from agents.arena import junqi_game, play_game, tbw_game
from agents.junqi.eval_prior import EvalPrior
from agents.junqi.greedy import GreedyAgent
from agents.random_agent import RandomAgent
from agents.registry import make_agent
from tbw_envs.games import get_game
from tests.helpers.ppo import maskable_ppo_or_skip, needs_torch_and_sb3_contrib


def _train(tmp_path, game, *extra):
    maskable_ppo_or_skip()
    from agents.cli.train import main

    out = tmp_path / game
    argv = ["--game", game, "--timesteps", "128", "--n-steps", "64", "--batch-size", "32",
            "--n-epochs", "1", "--checkpoint-every", "64", "--eval-every", "0",
            "--eval-games", "2", "--eval-opponents", "random", "--no-progress",
            "--out", str(out), "--seed", "0", *extra]
    assert main(argv) == 0
    return out


@pytest.mark.parametrize("game, extra", [
    ("tbw", ("--opponent", "random", "--policy", "cnn", "--opening-plies", "6")),
    # Self-play with a snapshot every 64 steps, and the MLP policy.
    ("junqi", ("--opponent", "self", "--snapshot-every", "64", "--policy", "mlp")),
])
def test_train_save_load_and_play_an_arena_game(tmp_path, game, extra):
    out = _train(tmp_path, game, *extra)
    for name in ("policy.npz", "model.zip", "monitor.csv", "eval.csv", "learning_curve.png",
                 "run.json"):
        assert (out / name).is_file(), name
    # Each checkpoint as SB3's zip (to resume) and as a policy file (what the arena loads).
    assert sorted(p.name for p in (out / "checkpoints").iterdir()) == [
        "ppo_128_steps.npz", "ppo_128_steps.zip", "ppo_64_steps.npz", "ppo_64_steps.zip"]
    with (out / "monitor.csv").open() as f:
        episodes = list(csv.DictReader(line for line in f if not line.startswith("#")))
    assert episodes and {e["learner"] for e in episodes} <= {"player_0", "player_1"}
    assert all(float(e["r"]) in (-1.0, 0.0, 1.0) for e in episodes)
    run = json.loads((out / "run.json").read_text())
    assert run["timesteps"] == 128
    assert [row["opponent"] for row in run["final_eval"]] == ["random"]
    if game == "junqi":
        # The initial snapshot plus one at 64 steps (the 128th step ends training).
        assert run["pool"]["snapshot_steps"][:2] == [0, 64]
        assert sum(run["pool"]["episodes_per_snapshot"].values()) >= 1
    agent = make_agent(f"ppo:path={out / 'policy.npz'}", seed=0, game=game)
    assert agent.game_info["game"] == game
    new_game = tbw_game() if game == "tbw" else junqi_game()
    record = play_game(new_game, [agent, RandomAgent(seed=1)], seed=0)
    assert record.end_reason in get_game(game).end_reasons
    assert record.moves[0] > 0


@needs_torch_and_sb3_contrib
def test_train_with_eval_prior_save_load_and_play(tmp_path):
    from agents.arena import junqi_game, play_game
    from agents.cli.train import main
    from agents.registry import make_agent

    out = tmp_path / "prior"
    argv = ["--game", "junqi", "--eval-prior", "--opponent", "greedy", "--timesteps", "256",
            "--n-steps", "128", "--batch-size", "64", "--n-epochs", "2", "--lr", "1e-3",
            "--checkpoint-every", "128", "--eval-every", "0", "--eval-games", "2",
            "--eval-opponents", "greedy", "--no-progress", "--out", str(out), "--seed", "0"]
    assert main(argv) == 0
    assert sorted(p.name for p in (out / "checkpoints").iterdir()) == [
        "ppo_0_steps.npz", "ppo_0_steps.zip", "ppo_128_steps.npz", "ppo_128_steps.zip",
        "ppo_256_steps.npz", "ppo_256_steps.zip"]
    run = json.loads((out / "run.json").read_text())
    assert run["timesteps"] == 256
    assert run["eval_prior"]["settings"] == {"temperature": 2.0, "clip": 15.0}
    (steps, beta), = run["eval_prior"]["beta_at_evaluations"]
    assert steps == 256 and beta > 0 and beta != 2.0  # beta is learned
    agent = make_agent(f"ppo:path={out / 'policy.npz'}", seed=0, game="junqi")
    assert agent.game_info["eval_prior"] is True
    assert agent.prior.to_dict() == EvalPrior().to_dict()
    initial = make_agent(f"ppo:path={out / 'checkpoints' / 'ppo_0_steps.npz'}", game="junqi")
    trained = dict(agent.policy.named_parameters())
    changed = [name for name, value in initial.policy.named_parameters()
               if not (value == trained[name]).all()]
    assert "action_net.weight" in changed and "log_beta" in changed
    record = play_game(junqi_game(), [agent, GreedyAgent(seed=1)], seed=0)
    assert record.end_reason in get_game("junqi").end_reasons
    assert record.moves[0] > 0


def test_eval_prior_is_refused_for_tbw(capsys):
    from agents.cli.train import parse_args

    with pytest.raises(SystemExit):
        parse_args(["--game", "tbw", "--eval-prior"])
    assert "--eval-prior exists for Junqi only" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        parse_args(["--game", "junqi", "--eval-prior", "--policy", "mlp"])
    assert "--policy cnn" in capsys.readouterr().err
