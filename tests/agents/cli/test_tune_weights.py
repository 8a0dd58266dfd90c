"""``agents.cli.tune_weights``: it writes the tuned weights, the history and the chart for either
game, refuses the options of the other game, and stops every bad argument before anything runs or is
written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agents.junqi.evaluation import FEATURE_NAMES
from agents.junqi.evaluation import load_weights as load_junqi_weights
from agents.tbw.evaluation import load_weights as load_tbw_weights
from agents.training.tbw_tuning import LEARNED_FEATURES
from tests.helpers.errors import assert_names
from tests.helpers.weight_files import (
    junqi_checkpoint,
    junqi_text,
    set_at,
    tbw_text,
    write_checkpoint,
)


def test_tune_weights_script_writes_tbw_weights_history_and_chart(tiny_scenarios, tmp_path):
    from agents.cli.tune_weights import main

    out = tmp_path / "run"
    assert main(["--game", "tbw", "--episodes", "2", "--eval-every", "2", "--eval-games", "2",
                 "--seed", "1", "--scenarios", *tiny_scenarios, "--opening-plies", "0", "2",
                 "--budget", "20000", "--opponents", "random", "--out", str(out),
                 "--no-config"]) == 0
    for name in ("checkpoint.json", "history.json", "learning_curve.png", "tbw_eval_tuned.yaml"):
        assert (out / name).is_file(), name
    tuned = load_tbw_weights(str(out / "tbw_eval_tuned.yaml"))
    checkpoint = json.loads((out / "checkpoint.json").read_text())
    assert checkpoint["episode"] == 2 and checkpoint["config"]["budget"] == 20000
    history = json.loads((out / "history.json").read_text())
    assert [p["episode"] for p in history["evaluations"]] == [0, 2]
    last = history["evaluations"][-1]["weights"]  # after the final episode
    assert {f: tuned.weight_dict()[f] for f in LEARNED_FEATURES} == {
        f: last[f] for f in LEARNED_FEATURES}
    assert tuned.win_value == 1e6


def test_tune_weights_script_refuses_options_of_the_other_game(capsys):
    from agents.cli.tune_weights import main

    with pytest.raises(SystemExit):
        main(["--game", "tbw", "--rules", "jj"])
    assert "--rules applies to --game junqi only" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--game", "junqi", "--scenarios", "hex_skirmish"])
    assert "--scenarios applies to --game tbw only" in capsys.readouterr().err


def test_tune_weights_script_writes_weights_history_and_chart(tmp_path):
    from agents.cli.tune_weights import main

    out = tmp_path / "run"
    assert main(["--episodes", "2", "--eval-every", "2", "--eval-games", "2", "--seed", "1",
                 "--out", str(out), "--no-config"]) == 0
    for name in ("checkpoint.json", "history.json", "learning_curve.png", "junqi_eval_tuned.yaml"):
        assert (out / name).is_file(), name
    tuned = load_junqi_weights(str(out / "junqi_eval_tuned.yaml"))
    assert tuned.name == "tuned" and len(tuned.weights) == len(FEATURE_NAMES)
    history = json.loads((out / "history.json").read_text())
    assert [p["episode"] for p in history["evaluations"]] == [0, 2]


# ----------------------------------------------------------------------- the script
@pytest.fixture
def script(tmp_path, monkeypatch, shipped_configs_unchanged, capsys):
    """``run(argv) -> (exit code, stderr)`` of scripts/tune_weights.py in-process, in an empty
    working folder; afterwards nothing but what the case made itself may be there."""
    from agents.cli.tune_weights import main

    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)

    def run(argv):
        capsys.readouterr()
        with pytest.raises(SystemExit) as caught:
            main(argv)
        return caught.value.code, capsys.readouterr().err

    run.work = work
    return run


def _tbw_file(folder: Path, **changes) -> str:
    path = folder / "tbw_eval_bad.yaml"
    path.write_text(tbw_text(**changes), encoding="utf-8")
    return str(path)


def _junqi_file(folder: Path) -> str:
    path = folder / "junqi_eval_bad.yaml"
    path.write_text(junqi_text("  flag_alarm_steps: 4 ", "  flag_alarm_steps: 2.7 "))
    return str(path)


def _file(folder: Path) -> str:
    path = folder / "taken"
    path.write_text("keep me", encoding="utf-8")
    return str(path)


def _earlier_run(folder: Path) -> str:
    run = folder / "earlier"
    run.mkdir()
    (run / "checkpoint.json").write_text("{}", encoding="utf-8")
    (run / "junqi_eval_tuned.yaml").write_text("keep me", encoding="utf-8")
    return str(run)


def _checkpoint_dir(folder: Path, change=None) -> str:
    data = junqi_checkpoint()
    if change is not None:
        change(data)
    write_checkpoint(folder / "stopped", data)
    return str(folder / "stopped")


def _empty_dir(folder: Path) -> str:
    (folder / "empty").mkdir()
    return str(folder / "empty")


# (argv, with {name} filled from the helpers above, and the words stderr must hold)
CLI_CASES = [
    (["--episodes", "0"], ["--episodes", "at least 1", "got 0"]),
    (["--episodes", "-5"], ["--episodes", "got -5"]),
    (["--episodes", "2.5"], ["--episodes", "invalid int value", "'2.5'"]),
    (["--opponents", "foo"], ["--opponents", "'foo'", "unknown agent"]),
    (["--opponents", "greedy", "exact"], ["--opponents", "'exact'", "does not play junqi"]),
    (["--game", "tbw", "--opponents", "exact", "foo"], ["--opponents", "'foo'"]),
    (["--eval-opponent", "nosuch"], ["--eval-opponent", "'nosuch'"]),
    (["--config-name", "a/b"], ["--config-name", "simple name", "'a/b'"]),
    (["--config-name", "../x"], ["--config-name", "'../x'"]),
    (["--config-name", "x.yaml"], ["--config-name", "'x.yaml'"]),
    (["--config-name", "x" * 65], ["--config-name", "64 characters"]),
    (["--config-name", "tuned"], ["--config-name", "junqi_eval_tuned.yaml exists",
                                  "--overwrite"]),
    (["--game", "tbw", "--config-name", "tuned"], ["--config-name",
                                                   "tbw_eval_tuned.yaml exists"]),
    (["--config-name", "default", "--overwrite"], ["--config-name", "'default'",
                                                   "never replaced"]),
    (["--config-name", "x", "--no-config"], ["--no-config", "--config-name"]),
    (["--step-size", "nan"], ["--step-size", "float nan"]),
    (["--step-size", "0"], ["--step-size", "(0, 1]", "float 0.0"]),
    (["--step-size", "2"], ["--step-size", "float 2.0"]),
    (["--discount", "1.5"], ["--discount", "float 1.5"]),
    (["--epsilon", "0.1", "0.5"], ["--epsilon", "0.1 and 0.5"]),
    (["--epsilon", "nan", "0"], ["--epsilon", "float nan"]),
    (["--seed", "-1"], ["--seed", "int -1"]),
    (["--eval-games", "3"], ["--eval-games", "even", "3"]),
    (["--eval-every", "-1"], ["--eval-every", "int -1"]),
    (["--start-weights", "nosuch"], ["--start-weights", "'nosuch'"]),
    (["--start-weights", "{junqi_file}"], ["--start-weights", "{junqi_file}",
                                           "params.flag_alarm_steps", "float 2.7"]),
    (["--rules", "nosuch"], ["--rules", "'nosuch'"]),
    (["--game", "tbw", "--scenarios", "nosuch"], ["--scenarios", "'nosuch'"]),
    (["--game", "tbw", "--opening-plies", "5", "2"], ["--opening-plies", "(5, 2)"]),
    (["--game", "tbw", "--win-reward", "1e308"], ["--win-reward", "float 1e+308"]),
    (["--game", "tbw", "--perturbation", "inf"], ["--perturbation", "float inf"]),
    (["--game", "tbw", "--trace-decay", "nan"], ["--trace-decay", "float nan"]),
    (["--game", "tbw", "--budget", "-1"], ["--budget", "int -1"]),
    (["--game", "tbw", "--eval-opening-plies", "10001"], ["--eval-opening-plies",
                                                         "int 10001"]),
    (["--game", "tbw", "--algorithm", "minimax"], ["--algorithm", "'minimax'"]),
    (["--game", "tbw", "--exploration", "boltzmann"], ["--exploration", "'boltzmann'"]),
    (["--game", "tbw", "--start-weights", "{tbw_file}"],
     ["--start-weights", "{tbw_file}", "weight 'material'", "1e+308"]),
    (["--game", "tbw", "--rules", "jj"], ["--rules applies to --game junqi only"]),
    (["--out", "{file}"], ["--out", "{file}", "not a directory"]),
    (["--out", "{file}/run"], ["--out", "{file}", "not a directory"]),
    (["--out", "a" * 300 + "/run"], ["--out", "cannot be used", "File name too long"]),
    (["--out", "{earlier_run}"], ["--out", "{earlier_run}", "checkpoint.json",
                                  "junqi_eval_tuned.yaml", "--resume", "--overwrite"]),
    (["--resume", "{work}/nowhere"], ["--resume", "nowhere", "not a directory"]),
    (["--resume", "{empty_dir}"], ["--resume", "{empty_dir}", "no checkpoint.json"]),
    (["--resume", "{checkpoint_dir}", "--seed", "3"], ["--seed", "not allowed with --resume"]),
    (["--resume", "{checkpoint_dir}", "--out", "x"], ["--out", "not allowed with --resume"]),
    (["--resume", "{checkpoint_dir}", "--episodes", "1"],
     ["--episodes", "{checkpoint_dir}/checkpoint.json", "already played 2", "got 1"]),
    (["--resume", "{bad_episode_dir}"],
     ["--resume", "{bad_episode_dir}/checkpoint.json", "episode must be", "int -5"]),
    (["--resume", "{bad_learner_dir}"],
     ["--resume", "{bad_learner_dir}/checkpoint.json", "learner.step_size", "'x'"]),
    (["--game", "tbw", "--resume", "{checkpoint_dir}"],
     ["--resume", "{checkpoint_dir}/checkpoint.json", "not a TBW tuning checkpoint"]),
]  # fmt: skip


def _fill(text: str, places: dict) -> str:
    for key, value in places.items():
        text = text.replace("{" + key + "}", value)
    return text


@pytest.mark.input_contract
@pytest.mark.parametrize("argv, words", CLI_CASES)
def test_bad_arguments_stop_the_script_before_anything_runs_or_is_written(script, argv,
                                                                         words):
    work = script.work
    helpers = {
        "file": lambda: _file(work), "earlier_run": lambda: _earlier_run(work),
        "junqi_file": lambda: _junqi_file(work), "tbw_file": lambda: _tbw_file(
            work, material="1.0e+308"),
        "empty_dir": lambda: _empty_dir(work), "checkpoint_dir": lambda: _checkpoint_dir(work),
        "bad_episode_dir": lambda: _checkpoint_dir(work, set_at("episode", -5)),
        "bad_learner_dir": lambda: _checkpoint_dir(work, set_at("learner", "step_size", "x")),
        "work": lambda: str(work),
    }  # fmt: skip
    places = {k: make() for k, make in helpers.items() if "{" + k + "}" in " ".join(argv)}
    before = {p: p.read_bytes() for p in work.rglob("*") if p.is_file()}
    code, err = script([_fill(a, places) for a in argv])
    assert code == 2, err
    assert_names(err, *(_fill(w, places) for w in words))
    after = {p: p.read_bytes() for p in work.rglob("*") if p.is_file()}
    assert after == before  # nothing written, nothing lost
    assert not (work / "runs").exists()


@pytest.mark.input_contract
def test_the_script_writes_the_tuned_weights_to_the_run_folder_only(script, tmp_path,
                                                                    monkeypatch):
    from agents.cli.tune_weights import main

    out = script.work / "run"
    assert main(["--episodes", "1", "--eval-games", "0", "--seed", "1", "--out",
                 str(out)]) == 0
    tuned = load_junqi_weights(str(out / "junqi_eval_tuned.yaml"))
    assert tuned.name == "tuned"
    assert sorted(p.name for p in out.iterdir()) == ["checkpoint.json", "history.json",
                                                     "junqi_eval_tuned.yaml"]
    # The same folder again: refused, the earlier run kept.
    before = {p: p.read_bytes() for p in out.iterdir()}
    code, err = script(["--episodes", "1", "--out", str(out)])
    assert code == 2 and "already holds a run's files" in err
    assert {p: p.read_bytes() for p in out.iterdir()} == before
    # --config-name installs a copy in configs/agents (here a stand-in folder), and refuses
    # to replace it without --overwrite.
    installed = tmp_path / "agents"
    installed.mkdir()
    monkeypatch.setattr("agents.cli.tune_weights.JunqiTuning.config_path",
                        lambda game, name: installed / f"{game.name}_eval_{name}.yaml")
    assert main(["--resume", str(out), "--config-name", "mine"]) == 0
    assert load_junqi_weights(str(installed / "junqi_eval_mine.yaml")).weights == tuned.weights
    code, err = script(["--resume", str(out), "--config-name", "mine"])
    assert code == 2 and "junqi_eval_mine.yaml exists" in err
    assert main(["--resume", str(out), "--config-name", "mine", "--overwrite"]) == 0


@pytest.mark.input_contract
def test_every_option_of_the_script_is_checked_or_documented():
    """A new option must get a row in CLI_CASES (or be one that cannot be wrong)."""
    from agents.cli.tune_weights import build_parser

    covered = {word for argv, _ in CLI_CASES for word in argv if word.startswith("--")}
    free = {"--help", "--overwrite", "--no-config", "--game"}  # flags and argparse choices
    options = {o for action in build_parser()._actions for o in action.option_strings
               if o.startswith("--")}
    assert options - covered - free == set()
