"""The env cards (each env module's docstring and its docs page) say what the code does: the
page's card is the docstring's, and every channel, space, end reason, argument, default and
number of a card is checked against the code, so a card cannot drift from its env.

Also the two things the cards lean on: the envs' channel names in ``metadata`` and the
single-agent ids registered with their defaults (``gymnasium.spec(id).kwargs``)."""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import gymnasium
import numpy as np
import pytest

import tbw_envs  # noqa: F401 - registers the envs
from tbw_envs import junqi_v0, tbw_v0
from tbw_envs.games import description_problems, get_game
from tbw_envs.junqi.actions import returns_for
from tbw_envs.junqi.board import NUM_POSTS
from tbw_envs.junqi.env import aec as junqi_aec
from tbw_envs.junqi.env import single as junqi_single
from tbw_envs.junqi.layout import DEPLOY_CELLS
from tbw_envs.junqi.observation import OBSERVATION_PLANES
from tbw_envs.junqi.pieces import NUM_PIECE_TYPES
from tbw_envs.junqi.state import END_REASONS as JUNQI_END_REASONS
from tbw_envs.junqi.state import NUM_MOVE_ACTIONS
from tbw_envs.junqi.variant import load_rules
from tbw_envs.tbw.env import aec as tbw_aec
from tbw_envs.tbw.env import single as tbw_single
from tbw_envs.tbw.env.game import TBWGame
from tbw_envs.tbw.observation import UNIT_FEATURES
from tbw_envs.tbw.state import END_REASONS as TBW_END_REASONS
from tbw_envs.tbw.state import TBWState
from tbw_envs.tbw.variant import load_scenario

ROOT = Path(__file__).resolve().parents[2]
FIELDS = (
    "Import", "Actions", "Agents", "Action space", "Observation space", "Observation channels",
    "Action mask", "Rewards", "Starting state", "Episode end", "Truncation", "Arguments",
    "Version history",
)  # fmt: skip
ILLEGAL_END = "illegal_action"  # the end reason of the wrappers that end a game on one


@dataclass(frozen=True)
class Card:
    title: str  # the docs page's heading names it
    module: ModuleType  # whose docstring carries it
    page: str
    maker: object  # whose signature the Arguments list
    end_reasons: tuple[str, ...]
    single: bool  # a Gymnasium single-agent env, else a PettingZoo AEC env

    def env(self):
        return self.maker()

    def observation_space(self, env):
        return env.observation_space if self.single else env.observation_space("player_0")

    def action_space(self, env):
        return env.action_space if self.single else env.action_space("player_0")

    def raw(self, env):
        return env.aec if self.single else env


CARDS = (
    Card("tbw_v0", tbw_aec, "docs/tbw.md", tbw_v0.raw_env, TBW_END_REASONS, False),
    Card("junqi_v0", junqi_aec, "docs/junqi.md", junqi_v0.raw_env, JUNQI_END_REASONS, False),
    Card("tbw_envs/TBWSingle-v0", tbw_single, "docs/tbw.md", tbw_single.make_tbw_single,
         TBW_END_REASONS, True),
    Card("tbw_envs/JunqiSingle-v0", junqi_single, "docs/junqi.md",
         junqi_single.make_junqi_single, JUNQI_END_REASONS, True),
)
IDS = [card.title for card in CARDS]


def normalized(text: str) -> str:
    return " ".join(text.replace("``", "`").split())


def docstring_card(doc: str) -> dict[str, str]:
    """The card of a module docstring: ``- Field: value`` items (values continue on lines
    indented by two spaces) after the line that starts with ``Env card``."""
    lines = doc.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("Env card"))
    items: list[list[str]] = []
    for line in lines[start + 1:]:
        if line.startswith("- "):
            items.append([line[2:]])
        elif line.startswith("  ") and items:
            items[-1].append(line)
        elif items:
            break
    card = {}
    for item in items:
        field, _, value = " ".join(item).partition(": ")
        card[field] = normalized(value)
    return card


def page_card(text: str, title: str) -> dict[str, str]:
    """The card of a docs page: the table under the heading ``### Env card: `title```."""
    lines = text.splitlines()
    start = lines.index(f"### Env card: `{title}`")
    rows = []
    for line in lines[start + 1:]:
        if line.startswith("|"):
            rows.append(line)
        elif rows:
            break
    card = {}
    for row in rows[2:]:  # the header and the separator first
        field, value = (cell.strip() for cell in row.strip().strip("|").split("|", 1))
        card[field] = normalized(value.rstrip("|"))
    return card


def card_of(card: Card) -> dict[str, str]:
    return docstring_card(card.module.__doc__)


def code_names(text: str) -> list[str]:
    return re.findall(r"`([^`]+)`", text)


def numbers(text: str) -> set[float]:
    return {float(n) for n in re.findall(r"(?<![\w.:])[-+]?\d+(?:\.\d+)?(?![\w.])", text)}


def known_numbers(card: Card) -> set[float]:
    """Every number a card may state, each read from the code."""
    env = card.env()
    raw = card.raw(env)
    obs_space = card.observation_space(env)
    box = obs_space["observation"] if isinstance(obs_space, gymnasium.spaces.Dict) else obs_space
    n = int(card.action_space(env).n)
    facts = {n, n - 1, *box.shape, float(box.low.min()), float(box.high.max())}
    if card.module in (tbw_aec, tbw_single):
        scenario = load_scenario("duel_5v5_8x8")
        state = TBWState.initial(scenario)
        returns = set()
        for winner in (0, 1, None):
            state.winner = winner
            returns.update(state.returns())
        facts |= {scenario.units_per_side, scenario.board.size, len(UNIT_FEATURES),
                  scenario.max_turns, *returns}
    else:
        rules = load_rules("ccgc")
        facts |= {NUM_MOVE_ACTIONS, NUM_MOVE_ACTIONS - 1, NUM_POSTS, 0, NUM_PIECE_TYPES - 1,
                  len(DEPLOY_CELLS), rules.no_collision_limit, rules.ply_cap,
                  *returns_for(0), *returns_for(None)}
    if card.single:
        signature = inspect.signature(card.maker).parameters
        facts |= {signature["illegal_reward"].default, signature["learner_seat"].default,
                  signature["opening_plies"].default, raw.variant.longest_game()[0] // 4}
    return {float(f) for f in facts}


@pytest.mark.parametrize("card", CARDS, ids=IDS)
def test_the_card_has_every_field_in_order(card):
    assert tuple(card_of(card)) == FIELDS


@pytest.mark.parametrize("card", CARDS, ids=IDS)
def test_the_docs_page_carries_the_same_card(card):
    page = (ROOT / card.page).read_text(encoding="utf-8")
    assert page_card(page, card.title) == card_of(card)


@pytest.mark.parametrize("card", CARDS, ids=IDS)
def test_the_import_row_runs(card):
    namespace: dict = {}
    for snippet in code_names(card_of(card)["Import"]):
        exec(snippet, namespace)  # the card's own code


@pytest.mark.parametrize("card", CARDS, ids=IDS)
def test_the_channels_are_the_encoders_in_order(card):
    raw = card.raw(card.env())
    named = code_names(card_of(card)["Observation channels"])
    assert named == list(raw.observation_channels) == raw.metadata["observation_channels"]


@pytest.mark.parametrize("card", CARDS, ids=IDS)
def test_the_spaces_are_the_envs(card):
    env = card.env()
    entry = card_of(card)
    counts = re.findall(r"Discrete\((\d+)\)", entry["Action space"])
    assert counts and {int(c) for c in counts} == {card.action_space(env).n}
    boxes = re.findall(r"(?:(\w+)=)?Box\(([^,]+), ([^,]+), \(([^)]*)\), (\w+)\)",
                       entry["Observation space"])
    space = card.observation_space(env)
    assert boxes
    for key, low, high, shape, dtype in boxes:
        box = space[key] if key else space
        assert np.all(box.low == float(low)) and np.all(box.high == float(high))
        assert box.shape == tuple(int(d) for d in shape.split(",") if d.strip())
        assert box.dtype == np.dtype(dtype)
        if key == "observation" or not key:
            assert box.shape[0] == len(code_names(entry["Observation channels"]))


@pytest.mark.parametrize("card", CARDS, ids=IDS)
def test_the_end_reasons_are_the_states(card):
    reasons = [name for name in code_names(card_of(card)["Episode end"]) if name.isidentifier()]
    assert reasons == [*card.end_reasons, ILLEGAL_END]
    raw = card.raw(card.env())
    assert raw.metadata["end_reasons"] == ["not_over", *card.end_reasons, ILLEGAL_END]


@pytest.mark.parametrize("card", CARDS, ids=IDS)
def test_the_arguments_are_the_signature(card):
    listed = re.findall(r"`(\w+)=([^`]+)`", card_of(card)["Arguments"])
    parameters = [p for p in inspect.signature(card.maker).parameters.values()
                  if p.default is not inspect.Parameter.empty]
    assert [name for name, _ in listed] == [p.name for p in parameters]
    for (name, default), parameter in zip(listed, parameters, strict=True):
        assert eval(default, {"np": np}) == parameter.default, name


@pytest.mark.parametrize("card", CARDS, ids=IDS)
def test_every_number_of_the_card_is_read_from_the_code(card):
    entry = card_of(card)
    text = " ".join(value for field, value in entry.items() if field != "Observation channels")
    assert numbers(text) <= known_numbers(card), sorted(numbers(text) - known_numbers(card))


@pytest.mark.parametrize("card", CARDS[:2], ids=IDS[:2])
def test_agents_are_the_envs(card):
    assert code_names(card_of(card)["Agents"]) == card.env().possible_agents


@pytest.mark.parametrize("card", CARDS, ids=IDS)
def test_the_version_is_the_envs(card):
    assert card_of(card)["Version history"].startswith("v0: ")
    env = card.env()
    if card.single:
        assert gymnasium.spec(card.title).version == 0
    else:
        assert env.metadata["name"].endswith("_v0")


@pytest.mark.parametrize("module", [tbw_v0, junqi_v0], ids=["tbw_v0", "junqi_v0"])
def test_a_played_game_ends_by_termination_with_the_cards_rewards(module):
    env = module.env()
    env.reset(seed=3)
    final = {}
    for agent in env.agent_iter():
        observation, reward, terminated, truncated, _ = env.last()
        assert not truncated  # the card: never truncated
        if terminated:
            final[agent] = reward
        env.step(None if terminated else env.action_space(agent).sample(
            observation["action_mask"]))
    assert tuple(final[agent] for agent in env.possible_agents) in (
        (1.0, -1.0), (-1.0, 1.0), (0.0, 0.0))


# ------------------------------------------------------------------ channel names in metadata

@pytest.mark.parametrize("make", [tbw_v0.env, tbw_v0.raw_env, junqi_v0.env, junqi_v0.raw_env,
                                  tbw_v0.parallel_env, junqi_v0.parallel_env])
def test_every_env_layer_carries_its_channel_names_in_metadata(make):
    env = make()
    assert env.metadata["observation_channels"] == list(env.unwrapped.observation_channels)
    assert len(env.metadata["observation_channels"]) == env.observation_space(
        "player_0")["observation"].shape[0]


def test_the_channel_names_follow_the_scenario():
    env = tbw_v0.raw_env(scenario="hex_skirmish")
    assert "move_cost:cavalry" in env.metadata["observation_channels"]
    assert "move_cost:cavalry" not in tbw_v0.raw_env().metadata["observation_channels"]
    assert "observation_channels" not in tbw_v0.raw_env.metadata  # per env, not per class


def test_junqi_names_its_channels_as_tbw_does():
    env = junqi_v0.raw_env()
    assert env.observation_channels == OBSERVATION_PLANES
    assert isinstance(env.observation_channels, tuple)
    assert isinstance(tbw_v0.raw_env().observation_channels, tuple)


# ------------------------------------------------------------------ spec kwargs show defaults

def defaults_of(maker) -> dict:
    return {name: p.default for name, p in inspect.signature(maker).parameters.items()
            if p.default is not inspect.Parameter.empty}


@pytest.mark.parametrize(("env_id", "maker"), [
    ("tbw_envs/TBWSingle-v0", tbw_single.make_tbw_single),
    ("tbw_envs/JunqiSingle-v0", junqi_single.make_junqi_single),
], ids=["tbw", "junqi"])
def test_the_spec_lists_every_default(env_id, maker):
    kwargs = gymnasium.spec(env_id).kwargs
    assert kwargs == defaults_of(maker)
    game = get_game("tbw" if "TBW" in env_id else "junqi")
    assert next(iter(kwargs)) == game.variant_flag
    assert kwargs[game.variant_flag] == game.default_variant


@pytest.mark.parametrize(("env_id", "maker"), [
    ("tbw_envs/TBWSingle-v0", tbw_single.make_tbw_single),
    ("tbw_envs/JunqiSingle-v0", junqi_single.make_junqi_single),
], ids=["tbw", "junqi"])
def test_make_without_kwargs_builds_the_default_env(env_id, maker):
    made, direct = gymnasium.make(env_id).unwrapped, maker()
    for attribute in ("learner_seat_option", "illegal_action", "illegal_reward", "opening_plies",
                      "mask_in_obs", "noop_action"):
        assert getattr(made, attribute) == getattr(direct, attribute), attribute
    game = get_game("tbw" if "TBW" in env_id else "junqi")
    assert game.variant_context(made.aec.variant) == game.variant_context(direct.aec.variant)
    assert made.aec.mask_dtype == direct.aec.mask_dtype
    assert made.aec.info_codes.strings == direct.aec.info_codes.strings
    assert made.observation_space == direct.observation_space
    assert made.action_space == direct.action_space
    assert made.render_mode is direct.render_mode is None
    first, second = made.reset(seed=5), direct.reset(seed=5)
    assert np.array_equal(first[0], second[0])
    first_legal = int(np.flatnonzero(made.action_masks())[0])
    assert first_legal == int(np.flatnonzero(direct.action_masks())[0])
    after_made, after_direct = made.step(first_legal), direct.step(first_legal)
    assert np.array_equal(after_made[0], after_direct[0])
    assert after_made[1:3] == after_direct[1:3]


def test_make_still_takes_kwargs_over_the_defaults():
    env = gymnasium.make("tbw_envs/TBWSingle-v0", scenario="paper_figure3", opening_plies=2)
    assert env.unwrapped.aec.variant.name == "paper_figure3"
    assert env.unwrapped.opening_plies == 2
    junqi = gymnasium.make("tbw_envs/JunqiSingle-v0", rules="jj", learner_seat=1)
    assert junqi.unwrapped.aec.variant.name == "jj" and junqi.unwrapped.learner_seat_option == 1


class RenamedFlagGame(TBWGame):
    name = "third"
    variant_flag = "board"


def test_a_renamed_variant_flag_is_the_specs_keyword():
    from tbw_envs.games import register, unregister

    game = register(RenamedFlagGame())
    try:
        kwargs = gymnasium.spec(game.single_env_id).kwargs
        assert next(iter(kwargs)) == "board" and "scenario" not in kwargs
        assert kwargs["board"] == game.default_variant
        env = gymnasium.make(game.single_env_id, board="paper_figure3")
        assert env.unwrapped.aec.variant.name == "paper_figure3"
    finally:
        unregister(game.name)


def test_a_game_without_its_own_list_registers_the_generic_defaults(registered_minigame):
    game = registered_minigame
    kwargs = gymnasium.spec(game.single_env_id).kwargs
    assert next(iter(kwargs)) == game.variant_flag
    assert kwargs[game.variant_flag] == game.default_variant
    assert {"opponent", "learner_seat", "opening_plies"} <= set(kwargs)
    env = gymnasium.make(game.single_env_id)
    env.reset(seed=0)


class BadDefaultsGame(TBWGame):
    name = "bad_defaults"
    variant_flag = "bad_board"

    @property
    def single_env_kwargs(self):
        return {"bad_board": "no_such_board"}


def test_single_env_kwargs_that_disagree_with_the_description_are_refused():
    problems = description_problems(BadDefaultsGame())
    assert any("single_env_kwargs" in p and "no_such_board" in p for p in problems), problems
