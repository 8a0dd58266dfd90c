"""Policy files (``agents.policy.policy_files``): loading runs no code, every loading path
refuses SB3 zips, the policy rebuilt from a file plays exactly as the SB3 model it came from, and
a policy for another game or board is refused when the agent is built."""

from __future__ import annotations

import base64
import io
import json
import os
import pickle
import zipfile
from pathlib import Path

import numpy as np
import pytest

import agents.registry as registry

pytest.importorskip("torch", reason="torch is not installed (the train extra)")
pytest.importorskip("sb3_contrib", reason="sb3-contrib is not installed (the train extra)")

import cloudpickle  # noqa: E402  (a dependency of stable-baselines3)
import torch  # noqa: E402
from sb3_contrib import MaskablePPO  # noqa: E402
from torch import nn  # noqa: E402

from agents.arena import junqi_game, tbw_game  # noqa: E402
from agents.junqi import GreedyAgent as JunqiGreedyAgent  # noqa: E402
from agents.junqi.eval_prior import make_junqi_eval_prior  # noqa: E402
from agents.junqi.eval_prior_net import EvalPriorPolicy, eval_prior_policy_kwargs  # noqa: E402
from agents.policy import policy_files, policy_metadata  # noqa: E402
from agents.policy.agent import PPOAgent  # noqa: E402
from agents.policy.nets import mlp_policy_kwargs, plane_policy_kwargs  # noqa: E402
from agents.policy.policy_files import load_policy, save_policy  # noqa: E402
from agents.policy.policy_metadata import PolicyFileError  # noqa: E402
from agents.registry import make_agent  # noqa: E402
from agents.tbw.greedy import GreedyAgent  # noqa: E402
from tbw_envs.junqi.env.single import make_junqi_single  # noqa: E402
from tbw_envs.tbw.env.single import make_tbw_single  # noqa: E402

torch.set_num_threads(1)

pytestmark = pytest.mark.input_contract


class Payload:
    """Unpickling this makes the directory ``marker``: the stand-in for arbitrary code."""

    def __init__(self, marker: Path):
        self.marker = str(marker)

    def __reduce__(self):
        return (os.mkdir, (self.marker,))


def _small_cnn(**extra):
    return {**plane_policy_kwargs(channels=(8,), features_dim=32,
                                  net_arch=dict(pi=[32], vf=[32])), **extra}


# name: (game, scenario, policy class, policy_kwargs, env factory)
MODELS = {
    "tbw cnn": ("tbw", "duel_5v5_8x8", "MlpPolicy", _small_cnn,
                lambda: make_tbw_single("duel_5v5_8x8")),
    "tbw cnn relu, two extractors": (
        "tbw", "hex_skirmish", "MlpPolicy",
        lambda: {**plane_policy_kwargs(channels=(4, 8), features_dim=16,
                                       net_arch=dict(pi=[16, 16], vf=[8])),
                 "activation_fn": nn.ReLU, "share_features_extractor": False},
        lambda: make_tbw_single("hex_skirmish")),
    "tbw mlp": ("tbw", "duel_5v5_8x8", "MlpPolicy", lambda: mlp_policy_kwargs(net_arch=[32]),
                lambda: make_tbw_single("duel_5v5_8x8")),
    "junqi cnn": ("junqi", None, "MlpPolicy", _small_cnn, make_junqi_single),
    "junqi mlp": ("junqi", None, "MlpPolicy", lambda: mlp_policy_kwargs(net_arch=[32]),
                  make_junqi_single),
    "junqi eval prior": (
        "junqi", None, EvalPriorPolicy,
        lambda: eval_prior_policy_kwargs(channels=(8,), features_dim=32,
                                         net_arch=dict(pi=[32], vf=[32])),
        make_junqi_eval_prior),
}


def _make_model(name: str, seed: int = 0):
    game, scenario, policy_class, kwargs, env = MODELS[name]
    model = MaskablePPO(policy_class, env(), n_steps=32, batch_size=32, seed=seed, device="cpu",
                        policy_kwargs=kwargs())
    # Weights away from their initialisation (the prior policy's correction starts near zero).
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for parameter in model.policy.parameters():
            parameter.add_(0.3 * torch.randn(parameter.shape, generator=generator))
    setattr(model, policy_files.GAME_INFO_ATTRIBUTE, {
        "game": game, "scenario": scenario, "rules": "ccgc" if game == "junqi" else None,
        "flip_perspective": True})
    return model


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    """Per MODELS entry: the SB3 model.zip and the policy file scripts/convert_model.py made of
    it (the conversion is under test too)."""
    from agents.cli.convert_model import main as convert

    folder = tmp_path_factory.mktemp("models")
    made = {}
    for index, name in enumerate(MODELS):
        stem = folder / name.replace(" ", "_").replace(",", "")
        _make_model(name, seed=index).save(stem.with_suffix(".zip"))
        assert convert([str(stem.with_suffix(".zip")), str(stem.with_suffix(".npz"))]) == 0
        made[name] = (stem.with_suffix(".zip"), stem.with_suffix(".npz"))
    return made


# ---------------------------------------------------------------------------- same actions


def _views(game: str, scenario: str | None, plies: int, seed: int):
    """Views of both seats along random games."""
    rng = np.random.default_rng(seed)
    new_game = tbw_game(scenario) if game == "tbw" else junqi_game("ccgc")
    state, games = new_game(seed), 0
    for _ in range(plies):
        if state.is_terminal():
            games += 1
            state = new_game(seed + games)
        view = state.view(state.current_player)
        yield view
        state.apply(int(rng.choice(view.legal_actions())))


@pytest.mark.parametrize("name", sorted(MODELS))
def test_policy_file_plays_exactly_as_the_sb3_model(models, name):
    game, scenario, *_ = MODELS[name]
    zip_path, npz_path = models[name]
    # The trusted reference: the zip loaded by SB3 itself (our own file, made above).
    reference = MaskablePPO.load(str(zip_path), device="cpu").policy
    reference.set_training_mode(False)
    expected = PPOAgent.from_policy(reference, game)
    safe = PPOAgent(path=npz_path, game=game, variant=scenario)
    sampled = [PPOAgent.from_policy(reference, game, deterministic=False, seed=7),
               PPOAgent(path=npz_path, deterministic=False, seed=7)]
    assert type(safe.policy) is type(reference)
    seats = set()
    distinct = set()
    for view in _views(game, scenario, plies=150, seed=3):
        probs = expected.action_probabilities(view)
        np.testing.assert_array_equal(safe.action_probabilities(view), probs)
        action = safe.act(view)
        assert action == expected.act(view)
        assert sampled[0].act(view) == sampled[1].act(view)
        seats.add(view.current_player if game == "tbw" else view.player)
        distinct.add(action)
    assert seats == {0, 1}
    assert len(distinct) > 10  # many different positions and choices, not one repeated move


def test_saved_file_holds_the_metadata_of_the_format(models):
    _, npz_path = models["junqi eval prior"]
    with np.load(npz_path, allow_pickle=False) as data:  # plain arrays: loads without pickle
        meta = json.loads(data["metadata"].tobytes())
        names = sorted(k for k in data.files if k.startswith("param/"))
    assert meta["format"] == policy_metadata.POLICY_FORMAT and meta["version"] == 1
    assert (meta["game"], meta["rules"], meta["flip_perspective"], meta["deterministic"]) == (
        "junqi", "ccgc", True, True)
    assert meta["observation_shape"] == [39, 12, 5] and meta["num_actions"] == 3612
    arch = meta["architecture"]
    assert (arch["kind"], arch["features_dim"], arch["channels"]) == ("eval_prior", 32, [8])
    assert arch["net_arch"] == {"pi": [32], "vf": [32]} and arch["activation"] == "tanh"
    assert set(arch["eval_prior"]) == {"weights", "belief", "temperature", "clip"}
    assert "param/log_beta" in names and "param/action_net.weight" in names


# ---------------------------------------------------------------------------- pickle payloads


def _evil_sb3_zip(source: Path, target: Path, marker: Path) -> Path:
    """``source`` (an SB3 model.zip) with one more entry in its ``data``: a pickled object whose
    unpickling makes ``marker``. SB3 loads it, runs it and plays on."""
    with zipfile.ZipFile(source) as archive:
        entries = {name: archive.read(name) for name in archive.namelist()}
    data = json.loads(entries["data"])
    data["innocent_looking"] = {":type:": "<class 'object'>", ":serialized:": base64.b64encode(
        cloudpickle.dumps(Payload(marker))).decode()}
    entries["data"] = json.dumps(data).encode()
    with zipfile.ZipFile(target, "w") as archive:
        for name, content in entries.items():
            archive.writestr(name, content)
    return target


def _pickled_npy(payload) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, np.array([payload], dtype=object), allow_pickle=True)
    return buffer.getvalue()


def _rewrite_npz(source: Path, target: Path, replace=None, add=None, drop=()) -> Path:
    """A copy of the policy file ``source`` with entries replaced, added or dropped."""
    with zipfile.ZipFile(source) as archive:
        entries = {name: archive.read(name) for name in archive.namelist()}
    entries.update(replace or {})
    entries.update(add or {})
    with zipfile.ZipFile(target, "w") as archive:
        for name, content in entries.items():
            if name not in drop:
                archive.writestr(name, content)
    return target


def _evil_files(models, folder: Path, marker: Path) -> dict[str, Path]:
    zip_path, npz_path = models["tbw cnn"]
    evil_zip = _evil_sb3_zip(zip_path, folder / "model.zip", marker)
    payload = _pickled_npy(Payload(marker))
    return {
        "sb3 zip with a pickled entry": evil_zip,
        "the same zip renamed .npz": _evil_sb3_zip(zip_path, folder / "renamed.npz", marker),
        "a raw pickle named .npz": _write(folder / "raw.npz", pickle.dumps(Payload(marker))),
        "policy file plus a pickled entry": _rewrite_npz(
            npz_path, folder / "extra.npz", add={"param/evil.npy": payload}),
        "a parameter replaced by a pickle": _rewrite_npz(
            npz_path, folder / "param.npz", replace={"param/action_net.bias.npy": payload}),
        "the metadata replaced by a pickle": _rewrite_npz(
            npz_path, folder / "meta.npz", replace={"metadata.npy": payload}),
    }


def _write(path: Path, content: bytes) -> Path:
    path.write_bytes(content)
    return path


def test_the_payload_is_live(models, tmp_path):
    """What the refusals below guard against: SB3 runs the payload, and so would pickle."""
    marker = tmp_path / "ran"
    files = _evil_files(models, tmp_path, marker)
    MaskablePPO.load(str(files["sb3 zip with a pickled entry"]), device="cpu")
    assert marker.exists()
    marker.rmdir()
    with np.load(files["policy file plus a pickled entry"], allow_pickle=True) as data:
        data["param/evil"]
    assert marker.exists()


def _arena(spec: str):
    from agents.cli.arena import main

    return main(["--game", "tbw", "--agents", spec, "random", "--games", "2", "--no-render",
                 "--out", "/nonexistent/never-written"])


def _train(option: str, path: Path, tmp_path: Path):
    from agents.cli.train import main

    value = f"ppo:path={path}" if option == "--opponent" else str(path)
    return main(["--game", "tbw", option, value, "--timesteps", "64", "--n-steps", "32",
                 "--batch-size", "32", "--no-progress", "--out", str(tmp_path / "run")])


# Every way a model file is loaded.
LOADERS = {
    "load_policy": lambda path, tmp: load_policy(path),
    "PPOAgent": lambda path, tmp: PPOAgent(path=path),
    "make_agent": lambda path, tmp: make_agent(f"ppo:path={path}", game="tbw"),
    "arena --agents": lambda path, tmp: _arena(f"ppo:path={path}"),
    "train_ppo --opponent": lambda path, tmp: _train("--opponent", path, tmp),
    "train_ppo --init": lambda path, tmp: _train("--init", path, tmp),
}


@pytest.mark.parametrize("loader", sorted(LOADERS))
def test_no_loading_path_runs_a_payload(models, tmp_path, loader, capsys):
    marker = tmp_path / "ran"
    for what, path in _evil_files(models, tmp_path, marker).items():
        with pytest.raises((PolicyFileError, SystemExit)) as caught:
            LOADERS[loader](path, tmp_path)
        message = str(caught.value) + capsys.readouterr().err
        assert not marker.exists(), f"{loader} ran the payload of {what}"
        assert str(path.name) in message or "ppo:path" in message, (what, message)
        if path.suffix == ".zip":
            assert "scripts/convert_model.py" in message, (what, message)
    assert not (tmp_path / "run").exists()  # train_ppo refused before writing anything


@pytest.mark.parametrize("what, expected", [
    ("sb3 zip with a pickled entry", "Stable-Baselines3 .zip"),
    ("the same zip renamed .npz", "Stable-Baselines3 model.zip"),
    ("a raw pickle named .npz", "not a policy.npz archive"),
    ("policy file plus a pickled entry", "unexpected entries ['param/evil.npy']"),
    ("a parameter replaced by a pickle", "dtype object"),
    ("the metadata replaced by a pickle", "dtype object"),
])
def test_each_payload_is_refused_for_its_own_reason(models, tmp_path, what, expected):
    marker = tmp_path / "ran"
    path = _evil_files(models, tmp_path, marker)[what]
    with pytest.raises(PolicyFileError) as caught:
        load_policy(path)
    assert expected in str(caught.value)
    assert not marker.exists()


# ---------------------------------------------------------------------------- file checks


def _with_metadata(source: Path, target: Path, edit) -> Path:
    with np.load(source, allow_pickle=False) as data:
        meta = json.loads(data["metadata"].tobytes())
    edit(meta)
    text = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    return _rewrite_npz(source, target, replace={"metadata.npy": _array_npy(text)})


def _set(path: str, value):
    def edit(meta):
        keys = path.split(".")
        node = meta
        for key in keys[:-1]:
            node = node[key]
        node[keys[-1]] = value
    return edit


def _delete(key: str):
    return lambda meta: meta.pop(key)


def _array_npy(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array)
    return buffer.getvalue()


# (model, metadata edit or entry rewrite, words of the error)
BAD_METADATA = {
    "format": ("tbw cnn", _set("format", "other"), "not a tbw-envs-policy file"),
    "version": ("tbw cnn", _set("version", 2), "format version 2 is not supported"),
    "bool version": ("tbw cnn", _set("version", True), "format version True"),
    "unknown key": ("tbw cnn", _set("run_this", "import os"), "unknown ['run_this']"),
    "missing key": ("tbw cnn", _delete("num_actions"), "missing ['num_actions']"),
    "game": ("tbw cnn", _set("game", "chess"), "game must be one of"),
    "kind": ("tbw cnn", _set("architecture.kind", "agents.evil.Net"),
             "architecture.kind must be one of"),
    "activation": ("tbw cnn", _set("architecture.activation", "os.system"),
                   "architecture.activation 'os.system' is not one of"),
    "features_dim type": ("tbw cnn", _set("architecture.features_dim", "32"),
                          "architecture.features_dim must be an integer"),
    "channels": ("tbw cnn", _set("architecture.channels", [8, 0]), "channels entry"),
    "too many parameters": ("tbw cnn", _set("architecture.net_arch.pi", [16384, 16384]),
                            "parameters, more than the 100,000,000 allowed"),
    "flip": ("tbw cnn", _set("flip_perspective", "yes"), "flip_perspective must be true"),
    "num_actions vs board": ("tbw cnn", _set("num_actions", 1922), "does not fit a TBW board"),
    "junqi shape": ("junqi cnn", _set("observation_shape", [39, 12, 6]),
                    "a Junqi policy has observation_shape"),
    "prior weights by path": ("junqi eval prior",
                              _set("architecture.eval_prior.weights", "/etc/passwd"),
                              "the weights in full"),
    "prior temperature": ("junqi eval prior", _set("architecture.eval_prior.temperature", -1),
                          "temperature must be a positive number"),
    "prior for tbw": ("junqi eval prior", _set("game", "tbw"), "does not fit a TBW board"),
    "not json": ("tbw cnn", lambda meta: None, "not UTF-8 JSON"),
}


@pytest.mark.parametrize("case", sorted(BAD_METADATA))
def test_metadata_is_checked_against_the_allow_list(models, tmp_path, case):
    name, edit, words = BAD_METADATA[case]
    source = models[name][1]
    if case == "not json":
        bad = _rewrite_npz(source, tmp_path / "bad.npz", replace={
            "metadata.npy": _array_npy(np.frombuffer(b'{"format": NaN', dtype=np.uint8))})
    else:
        bad = _with_metadata(source, tmp_path / "bad.npz", edit)
    with pytest.raises(PolicyFileError) as caught:
        load_policy(bad)
    assert words in str(caught.value)


BAD_ENTRIES = {
    "wrong shape": (lambda npz: {"replace": {"param/action_net.bias.npy": _array_npy(
        np.zeros(7, np.float32))}}, "has shape (7,), the policy needs (1921,)"),
    "wrong dtype": (lambda npz: {"replace": {"param/action_net.bias.npy": _array_npy(
        np.zeros(1921, np.float64))}}, "dtype float64, expected float32"),
    "missing entry": (lambda npz: {"drop": ("param/value_net.bias.npy",)},
                      "missing entries ['param/value_net.bias.npy']"),
    "nan weights": (lambda npz: {"replace": {"param/action_net.bias.npy": _array_npy(
        np.full(1921, np.nan, np.float32))}}, "NaN or infinite"),
    "too many entries": (lambda npz: {"add": {f"pad/{i}.npy": b"" for i in range(1100)}},
                         "entries in a"),
    "truncated data": (lambda npz: {"replace": {"param/action_net.bias.npy": _array_npy(
        np.zeros(1921, np.float32))[:-8]}}, "bytes of data, its header says"),
}


@pytest.mark.parametrize("case", sorted(BAD_ENTRIES))
def test_entries_are_checked_before_they_are_read(models, tmp_path, case):
    change, words = BAD_ENTRIES[case]
    source = models["tbw cnn"][1]
    bad = _rewrite_npz(source, tmp_path / "bad.npz", **change(source))
    with pytest.raises(PolicyFileError) as caught:
        load_policy(bad)
    assert words in str(caught.value)


def test_a_file_larger_than_any_policy_is_refused_unread(models, monkeypatch, tmp_path):
    copy = _write(tmp_path / "policy.npz", models["tbw mlp"][1].read_bytes())
    monkeypatch.setattr(policy_files, "MAX_FILE_BYTES", 1000)
    with pytest.raises(PolicyFileError, match="bytes, more than the 1000 allowed"):
        load_policy(copy)


def test_a_zip_path_is_refused_with_the_conversion_command(models, tmp_path):
    zip_path, _ = models["tbw cnn"]
    with pytest.raises(PolicyFileError, match=r"scripts/convert_model\.py model\.zip"):
        PPOAgent(path=zip_path)
    # Beside a policy.npz (as train_ppo.py writes), the message points at it.
    (tmp_path / "model.zip").write_bytes(zip_path.read_bytes())
    (tmp_path / "policy.npz").write_bytes(models["tbw cnn"][1].read_bytes())
    with pytest.raises(PolicyFileError, match="policy.npz', which scripts/train_ppo.py wrote"):
        make_agent(f"ppo:path={tmp_path / 'model.zip'}", game="tbw")
    # The run folder itself names its policy file.
    assert make_agent(f"ppo:path={tmp_path}", game="tbw").game == "tbw"


# ---------------------------------------------------------------------------- another game


# (model, PPOAgent keywords, words of the error)
WRONG_GAME = {
    "tbw model for junqi": ("tbw cnn", {"game": "junqi"}, "trained on tbw, cannot play junqi"),
    "junqi model for tbw": ("junqi mlp", {"game": "tbw"}, "trained on junqi, cannot play tbw"),
    "prior model for tbw": ("junqi eval prior", {"game": "tbw"}, "cannot play tbw"),
    "8x8 model on hex": ("tbw cnn", {"variant": "hex_skirmish"}, "scenario 'hex_skirmish'"),
    "hex model on 8x8": ("tbw cnn relu, two extractors", {"variant": "duel_5v5_8x8"},
                         "scenario 'duel_5v5_8x8'"),
    "scenario for junqi": ("junqi cnn", {"game": "junqi", "variant": "duel_5v5_8x8"},
                           "unknown Junqi rule set 'duel_5v5_8x8'"),
}


@pytest.mark.parametrize("case", sorted(WRONG_GAME))
def test_a_policy_for_another_game_or_board_is_refused_when_built(models, case):
    name, keywords, words = WRONG_GAME[case]
    with pytest.raises(ValueError) as caught:
        PPOAgent(path=models[name][1], **keywords)
    assert words in str(caught.value)


def test_make_agent_refuses_a_policy_for_another_game_when_built(models, monkeypatch):
    """make_agent(spec, game=...) reaches PPOAgent's game check only if agents/registry.py
    forwards ``game`` to the ppo factory."""
    seen = {}

    def record(**kwargs):
        seen.update(kwargs)
        raise RuntimeError("recorded")

    with monkeypatch.context() as patch:
        patch.setattr(registry, "PPOAgent", record)
        with pytest.raises(RuntimeError, match="recorded"):
            make_agent("ppo:path=x.npz", game="junqi")
    assert seen.get("game") == "junqi"
    with pytest.raises(ValueError, match="trained on tbw, cannot play junqi"):
        make_agent(f"ppo:path={models['tbw cnn'][1]}", game="junqi")


# (env factory, opponent, error type, words): the wrapper refuses at construction what declares
# another game or board, and names the game when an undeclared agent of the other game fails.
WRONG_OPPONENT = {
    "tbw policy in junqi": (make_junqi_single, lambda m: PPOAgent(path=m["tbw cnn"][1]),
                            ValueError, "plays tbw, but this env is junqi"),
    "junqi policy in tbw": (lambda **kw: make_tbw_single("duel_5v5_8x8", **kw),
                            lambda m: PPOAgent(path=m["junqi eval prior"][1]),
                            ValueError, "plays junqi, but this env is tbw"),
    "8x8 policy on hex": (lambda **kw: make_tbw_single("hex_skirmish", **kw),
                          lambda m: PPOAgent(path=m["tbw cnn"][1]),
                          ValueError, "expects observations (32, 8, 8) and 1921 actions"),
    # The registry's agents of one game say which (``game``): refused at construction.
    "tbw greedy in junqi": (make_junqi_single, lambda m: make_agent("greedy", game="tbw"),
                            ValueError, "opponent 'greedy' plays tbw, but this env is junqi"),
    "junqi greedy in tbw": (lambda **kw: make_tbw_single("duel_5v5_8x8", **kw),
                            lambda m: make_agent("greedy", game="junqi"),
                            ValueError, "opponent 'greedy' plays junqi, but this env is tbw"),
    # Built directly, they say it too (a class attribute).
    "direct tbw greedy in junqi": (make_junqi_single, lambda m: GreedyAgent(seed=0),
                                   ValueError, "opponent 'greedy' plays tbw, but this env is "
                                   "junqi"),
    "direct junqi greedy in tbw": (lambda **kw: make_tbw_single("duel_5v5_8x8", **kw),
                                   lambda m: JunqiGreedyAgent(seed=0),
                                   ValueError, "plays junqi, but this env is tbw"),
    # An agent that says nothing (a user's own): its first move names the game it cannot play.
    "undeclared tbw greedy in junqi": (make_junqi_single,
                                       lambda m: _Undeclared(GreedyAgent(seed=0)),
                                       TypeError, "opponent 'greedy' cannot play junqi"),
    "undeclared junqi greedy in tbw": (lambda **kw: make_tbw_single("duel_5v5_8x8", **kw),
                                       lambda m: _Undeclared(JunqiGreedyAgent(seed=0)),
                                       TypeError, "cannot play tbw"),
}


class _Undeclared:
    """An agent that does not say its game, as a user's own may not."""

    name = "greedy"

    def __init__(self, inner):
        self.inner = inner

    def reset(self, seed=None):
        self.inner.reset(seed)

    def act(self, view):
        return self.inner.act(view)


@pytest.mark.parametrize("case", sorted(WRONG_OPPONENT))
def test_wrapper_names_an_opponent_of_another_game(models, case):
    make_env, opponent, error, words = WRONG_OPPONENT[case]
    with pytest.raises(error) as caught:
        env = make_env(opponent=opponent(models), learner_seat=1)
        env.reset(seed=0)  # the opponent moves first
    assert words in str(caught.value)


def test_a_fitting_policy_opponent_plays_in_the_wrapper(models):
    opponent = PPOAgent(path=models["tbw cnn"][1], game="tbw", variant="duel_5v5_8x8")
    env = make_tbw_single("duel_5v5_8x8", opponent=opponent, learner_seat=1)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(20):
        _, _, terminated, truncated, _ = env.step(int(rng.choice(np.flatnonzero(
            env.action_masks()))))
        if terminated or truncated:
            break


# ---------------------------------------------------------------------------- the converter


def test_converter_warns_and_refuses_to_overwrite(models, tmp_path, capsys):
    from agents.cli.convert_model import build_parser, main

    assert "unpickled" in build_parser().format_help()
    zip_path, npz_path = models["tbw mlp"]
    for argv, words in [
        ([str(zip_path), str(npz_path)], "exists (--force overwrites it)"),
        ([str(zip_path), str(tmp_path / "out.zip")], "a policy file ends in .npz"),
        ([str(tmp_path / "missing.zip"), str(tmp_path / "x.npz")], "not found"),
        ([str(zip_path), str(tmp_path / "x.npz"), "--game", "junqi"],
         "the model says it was trained with game 'tbw'"),
    ]:
        with pytest.raises(SystemExit):
            main(argv)
        assert words in capsys.readouterr().err
    assert main([str(zip_path), str(tmp_path / "sampled.npz"), "--sample"]) == 0
    assert PPOAgent(path=tmp_path / "sampled.npz").deterministic is False
    assert "WARNING" in capsys.readouterr().err


def test_save_refuses_a_policy_it_cannot_rebuild():
    class Other(nn.Module):
        pass

    model = _make_model("tbw mlp")
    model.policy.activation_fn = nn.Sigmoid
    with pytest.raises(ValueError, match="unsupported activation"):
        save_policy(model.policy, "/nonexistent/x.npz", {"game": "tbw"})
    model.policy.activation_fn = nn.Tanh
    model.policy.features_extractor = Other()
    with pytest.raises(ValueError, match="unsupported features extractor"):
        save_policy(model.policy, "/nonexistent/x.npz", {"game": "tbw"})
