"""The training command (``agents.cli.train``) checks every argument before training starts: each
bad value exits with argparse's status 2 and a message naming the flag and the value, before the
--out folder is written and before MaskablePPO.learn is called; good values reach training."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("torch", reason="torch is not installed (the train extra)")
pytest.importorskip("sb3_contrib", reason="sb3-contrib is not installed (the train extra)")

import torch  # noqa: E402
from sb3_contrib import MaskablePPO  # noqa: E402

from agents.cli.train import main  # noqa: E402
from agents.policy.nets import mlp_policy_kwargs, policy_kwargs_for  # noqa: E402
from agents.policy.policy_files import load_policy, save_policy  # noqa: E402
from tbw_envs.junqi.env.single import make_junqi_single  # noqa: E402
from tbw_envs.tbw.env.single import make_tbw_single  # noqa: E402

torch.set_num_threads(1)

pytestmark = pytest.mark.input_contract


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, str]:
    """What the cases name: {tbw} a policy file of the default CNN on duel_5v5_8x8 (fits
    --init), {junqi} a Junqi policy file, {zip} an SB3 model.zip, {file} a plain file, {earlier}
    a folder holding an earlier run, {missing} a path to nothing."""
    folder = tmp_path_factory.mktemp("files")
    tbw = MaskablePPO("MlpPolicy", make_tbw_single("duel_5v5_8x8"), n_steps=32, batch_size=32,
                      device="cpu", policy_kwargs=policy_kwargs_for("cnn"))
    save_policy(tbw.policy, folder / "tbw.npz", {"game": "tbw", "scenario": "duel_5v5_8x8"})
    tbw.save(folder / "model.zip")
    junqi = MaskablePPO("MlpPolicy", make_junqi_single(), n_steps=32, batch_size=32,
                        device="cpu", policy_kwargs=mlp_policy_kwargs(net_arch=[16]))
    save_policy(junqi.policy, folder / "junqi.npz", {"game": "junqi", "rules": "ccgc"})
    (folder / "file.txt").write_text("not a folder")
    (folder / "earlier").mkdir()
    (folder / "earlier" / "run.json").write_text("{}")
    return {"tbw": str(folder / "tbw.npz"), "junqi": str(folder / "junqi.npz"),
            "zip": str(folder / "model.zip"), "file": str(folder / "file.txt"),
            "earlier": str(folder / "earlier"), "missing": str(folder / "missing.npz")}


class Trained(Exception):
    """Raised by the patched MaskablePPO.learn: the run got as far as training."""


@pytest.fixture
def no_training(monkeypatch):
    started = []

    def learn(self, *args, **kwargs):
        started.append(self)
        raise Trained

    monkeypatch.setattr(MaskablePPO, "learn", learn)
    return started


def _argv(game: str, extra: list[str], files: dict[str, str], out: Path) -> list[str]:
    base = ["--game", game, "--timesteps", "64", "--n-steps", "32", "--batch-size", "32",
            "--eval-every", "0", "--eval-games", "2", "--eval-opponents", "random",
            "--no-progress", "--out", str(out)]
    return base + [arg.format(**files) for arg in extra]


# (game, extra arguments, words the message must hold): the flag and the value at fault.
BAD = {
    # numbers: range and finiteness
    "clip range negative": ("tbw", ["--clip-range", "-1"], ["--clip-range", "-1"]),
    "clip range zero": ("tbw", ["--clip-range", "0"], ["--clip-range", "(0, 1]", "0.0"]),
    "gamma 5": ("tbw", ["--gamma", "5"], ["--gamma", "[0, 1]", "5.0"]),
    "ent coef nan": ("tbw", ["--ent-coef", "nan"], ["--ent-coef", "finite", "nan"]),
    "ent coef negative": ("tbw", ["--ent-coef", "-0.1"], ["--ent-coef", "-0.1"]),
    "lr inf": ("tbw", ["--lr", "inf"], ["--lr", "inf"]),
    "lr zero": ("tbw", ["--lr", "0"], ["--lr", "0.0"]),
    "gae lambda": ("tbw", ["--gae-lambda", "1.5"], ["--gae-lambda", "1.5"]),
    "timesteps zero": ("tbw", ["--timesteps", "0"], ["--timesteps", "got 0"]),
    "timesteps float": ("tbw", ["--timesteps", "1e5"], ["--timesteps", "'1e5'"]),
    "envs zero": ("tbw", ["--envs", "0"], ["--envs", "got 0"]),
    "envs too many": ("tbw", ["--envs", "100000"], ["--envs", "100000"]),
    "n epochs": ("tbw", ["--n-epochs", "0"], ["--n-epochs", "got 0"]),
    "batch size one": ("tbw", ["--batch-size", "1"], ["--batch-size", "got 1"]),
    "batch size over rollout": ("tbw", ["--batch-size", "64"],
                                ["--batch-size 64", "--n-steps x --envs = 32"]),
    "rollout of one": ("tbw", ["--n-steps", "1", "--batch-size", "2"],
                       ["--n-steps x --envs", "1 x 1"]),
    "seed negative": ("tbw", ["--seed", "-1"], ["--seed", "got -1"]),
    "seed too large": ("tbw", ["--seed", str(2**32)], ["--seed", str(2**32)]),
    "threads": ("tbw", ["--threads", "-1"], ["--threads", "got -1"]),
    "eval games": ("tbw", ["--eval-games", "-2"], ["--eval-games", "got -2"]),
    "eval every": ("tbw", ["--eval-every", "-1"], ["--eval-every", "got -1"]),
    "checkpoint every": ("tbw", ["--checkpoint-every", "0"], ["--checkpoint-every", "got 0"]),
    "opening plies": ("tbw", ["--opening-plies", "-1"], ["--opening-plies", "got -1"]),
    "weights nan": ("tbw", ["--opponent", "random", "greedy", "--opponent-weights", "1", "nan"],
                    ["--opponent-weights", "nan"]),
    "weights inf": ("tbw", ["--opponent", "random", "greedy", "--opponent-weights", "1", "inf"],
                    ["--opponent-weights", "inf"]),
    "weights count": ("tbw", ["--opponent", "random", "greedy", "--opponent-weights", "1"],
                      ["--opponent-weights", "(2)", "[1.0]"]),
    "weights zero": ("tbw", ["--opponent", "random", "greedy", "--opponent-weights", "0", "0"],
                     ["--opponent-weights", "not all zero"]),
    # flags that do not apply to the game or the run
    "rules for tbw": ("tbw", ["--rules", "ccgc"], ["--rules applies to Junqi only", "'ccgc'"]),
    "deployment for tbw": ("tbw", ["--deployment", "agents"], ["--deployment", "junqi"]),
    "scenario for junqi": ("junqi", ["--scenario", "duel_5v5_8x8"],
                           ["--scenario applies to TBW only", "duel_5v5_8x8"]),
    "opening plies for junqi": ("junqi", ["--opening-plies", "3"], ["--opening-plies", "tbw"]),
    "eval prior for tbw": ("tbw", ["--eval-prior"], ["--eval-prior exists for Junqi only"]),
    "prior flag without prior": ("junqi", ["--prior-beta", "3"],
                                 ["--prior-beta applies with --eval-prior"]),
    "prior clip inf": ("junqi", ["--eval-prior", "--prior-clip", "inf"], ["--prior-clip", "inf"]),
    "prior with mlp": ("junqi", ["--eval-prior", "--policy", "mlp"], ["--policy cnn"]),
    "pool flag without self": ("tbw", ["--snapshot-every", "100"],
                               ["--snapshot-every applies to self-play"]),
    "latest prob": ("tbw", ["--opponent", "self", "--latest-prob", "2"],
                    ["--latest-prob", "2.0"]),
    "pool size": ("tbw", ["--opponent", "self", "--pool-size", "0"], ["--pool-size", "got 0"]),
    # specs, built up front
    "eval opponent unknown": ("tbw", ["--eval-opponents", "foo"],
                              ["--eval-opponents 'foo'", "unknown agent"]),
    "eval opponent self": ("tbw", ["--eval-opponents", "self"], ["--eval-opponents", "'self'"]),
    "eval opponent of junqi": ("tbw", ["--eval-opponents", "random", "mcts"],
                               ["--eval-opponents 'mcts'", "does not play tbw"]),
    "eval opponent policy of junqi": ("tbw", ["--eval-opponents", "ppo:path={junqi}"],
                                      ["--eval-opponents", "trained on junqi, cannot play tbw"]),
    "opponent unknown": ("tbw", ["--opponent", "foo"], ["--opponent 'foo'", "unknown agent"]),
    "opponent of tbw": ("junqi", ["--opponent", "exact"], ["--opponent 'exact'",
                                                           "does not play junqi"]),
    "opponent policy of tbw": ("junqi", ["--opponent", "ppo:path={tbw}"],
                               ["--opponent", "trained on tbw, cannot play junqi"]),
    "opponent policy of another board": (
        "tbw", ["--scenario", "hex_skirmish", "--opponent", "random", "ppo:path={tbw}"],
        ["--opponent", "tbw.npz", "expects observations (32, 8, 8)"]),
    "opponent zip": ("tbw", ["--opponent", "ppo:path={zip}"],
                     ["--opponent", "model.zip", "scripts/convert_model.py"]),
    "opponent missing": ("tbw", ["--opponent", "ppo:path={missing}"],
                         ["--opponent", "missing.npz", "not found"]),
    # the game's scenario or rule set
    "scenario unknown": ("tbw", ["--scenario", "no_such_scenario"],
                         ["--scenario 'no_such_scenario'"]),
    "rules unknown": ("junqi", ["--rules", "no_such_rules"], ["--rules 'no_such_rules'"]),
    # --init, read in full
    "init missing": ("tbw", ["--init", "{missing}"], ["--init", "missing.npz", "not found"]),
    "init zip": ("tbw", ["--init", "{zip}"], ["--init", "model.zip",
                                              "scripts/convert_model.py"]),
    "init of junqi": ("tbw", ["--init", "{junqi}"], ["--init", "a junqi policy, not one for tbw"]),
    "init of another policy": ("tbw", ["--init", "{tbw}", "--policy", "mlp"],
                               ["--init", "tbw.npz", "'kind': 'cnn'", "'kind': 'mlp'"]),
    "init on another board": ("tbw", ["--init", "{tbw}", "--scenario", "hex_skirmish"],
                              ["--init", "(32, 8, 8)", "(33, 8, 10)"]),
    # --out
    "out is a file": ("tbw", ["--out", "{file}"], ["--out", "file.txt", "not a folder"]),
    "out holds a run": ("tbw", ["--out", "{earlier}"], ["--out", "earlier", "run.json",
                                                        "--overwrite"]),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_arguments_fail_before_training(case, files, tmp_path, no_training, capsys):
    game, extra, words = BAD[case]
    out = tmp_path / "run"
    with pytest.raises(SystemExit) as caught:
        main(_argv(game, extra, files, out))
    assert caught.value.code == 2
    message = capsys.readouterr().err
    for word in words:
        assert word in message, (word, message)
    assert no_training == []
    assert not out.exists()


# Good arguments: the run reaches MaskablePPO.learn (patched to stop there).
GOOD = {
    "policy files as init and opponents": (
        "tbw", ["--init", "{tbw}", "--opponent", "ppo:path={tbw}", "random",
                "--opponent-weights", "1", "2", "--eval-opponents", "ppo:path={tbw}", "greedy"]),
    "edges of the ranges": (
        "tbw", ["--scenario", "hex_skirmish", "--opening-plies", "4", "--gamma", "1",
                "--gae-lambda", "0", "--ent-coef", "0", "--clip-range", "1", "--lr", "1",
                "--seed", str(2**32 - 1), "--threads", "0"]),
    "junqi self-play with the prior": (
        "junqi", ["--eval-prior", "--prior-beta", "3", "--opponent", "self", "greedy",
                  "--pool-size", "2", "--latest-prob", "1", "--deployment", "agents"]),
    "overwrite an earlier run": ("tbw", ["--out", "{earlier}", "--overwrite"]),
}


@pytest.mark.parametrize("case", sorted(GOOD))
def test_good_arguments_reach_training(case, files, tmp_path, no_training):
    game, extra = GOOD[case]
    with pytest.raises(Trained):
        main(_argv(game, extra, files, tmp_path / "run"))
    (model,) = no_training
    if "--init" in extra:
        # Training starts from the policy file's weights.
        expected = load_policy(files["tbw"])[0].state_dict()
        for name, value in model.policy.state_dict().items():
            assert torch.equal(value, expected[name]), name
    torch.set_num_threads(1)  # "--threads 0" leaves torch's default


def test_a_short_run_from_a_policy_file_writes_policy_files(files, tmp_path):
    out = tmp_path / "run"
    assert main(_argv("tbw", ["--init", "{tbw}", "--opponent", "ppo:path={tbw}",
                              "--checkpoint-every", "64"], files, out)) == 0
    for name in ("policy.npz", "model.zip", "checkpoints/ppo_64_steps.npz"):
        assert (out / name).is_file(), name
    policy, info = load_policy(out / "policy.npz")
    assert (info["game"], info["scenario"], info["policy"]) == ("tbw", "duel_5v5_8x8", "cnn")
    start = load_policy(files["tbw"])[0].state_dict()
    assert any(not torch.equal(value, start[name])
               for name, value in policy.state_dict().items())  # trained from there
