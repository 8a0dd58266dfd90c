"""Which game the agents play: an agent file declares its game (``GAME`` at module level, or a
class attribute ``game``), registry agents of one game count too; an agent of another game is
refused naming it, its game and the game played, and unknown agents get a "did you mean" among
the game's own agents."""

from __future__ import annotations

import pytest

from agents.arena import ArenaInputError, run_round_robin
from agents.arena.players import agents_game, entrant_games
from agents.registry import make_agent

AGENT_BODY = '''
import random


class {name}:
{attribute}
    def __init__(self, seed=None):
        self.rng = random.Random(seed)

    def reset(self, seed=None):
        self.rng.seed(seed)

    def act(self, view):
        return self.rng.choice(view.legal_actions())
'''


def agent_file(tmp_path, stem, module_game=None, class_game=None):
    """A user agent file with class ``Agent``; its spec."""
    path = tmp_path / f"{stem}.py"
    head = "" if module_game is None else f"GAME = {module_game!r}\n"
    attribute = "    pass" if class_game is None else f"    game = {class_game!r}"
    path.write_text(head + AGENT_BODY.format(name="Agent", attribute=attribute))
    return f"{path}:Agent"


def test_an_agent_file_declares_its_game_by_module_or_class(tmp_path):
    module = agent_file(tmp_path, "module_junqi", module_game="junqi")
    cls = agent_file(tmp_path, "class_tbw", class_game="tbw")
    both = agent_file(tmp_path, "both", module_game="tbw", class_game="junqi")  # class wins
    undeclared = agent_file(tmp_path, "any_game")
    assert entrant_games(module) == ("junqi",)
    assert entrant_games(cls) == ("tbw",)
    assert entrant_games(both) == ("junqi",)
    assert entrant_games(undeclared) is None
    assert entrant_games("ismcts:iterations=5") == ("junqi",)
    assert entrant_games("exact") == ("tbw",)
    assert entrant_games("random") == ("tbw", "junqi")


def test_the_agents_decide_the_game_or_are_refused_when_they_disagree(tmp_path):
    junqi_file = agent_file(tmp_path, "j", module_game="junqi")
    tbw_file = agent_file(tmp_path, "t", class_game="tbw")
    assert agents_game([junqi_file, "random"]) == "junqi"
    assert agents_game(["ismcts", "random"]) == "junqi"
    assert agents_game([tbw_file, agent_file(tmp_path, "any")]) == "tbw"
    assert agents_game(["random", "greedy"]) is None  # both games: the caller's default
    with pytest.raises(ArenaInputError, match=f"no game has them all: {junqi_file} plays "
                                              f"junqi; {tbw_file} plays tbw"):
        agents_game([junqi_file, "random", tbw_file])
    with pytest.raises(ArenaInputError, match="ismcts plays junqi; exact plays tbw"):
        agents_game(["ismcts", "exact"])


def test_an_agent_of_another_game_is_refused_naming_both_games(tmp_path):
    junqi_file = agent_file(tmp_path, "j", module_game="junqi")
    with pytest.raises(ArenaInputError, match=r"agent #1 \(.*j\.py:Agent\): .*j\.py:Agent plays "
                                              r"junqi \(GAME = 'junqi' in .*j\.py\), not tbw, "
                                              r"the game being played"):
        run_round_robin("tbw", [junqi_file, "random"], 2, workers=1)
    tbw_file = agent_file(tmp_path, "t", class_game="tbw")
    with pytest.raises(ValueError, match=r"plays tbw \(Agent.game = 'tbw'\), not junqi"):
        make_agent(tbw_file, game="junqi")
    assert make_agent(tbw_file, game="tbw").name == tbw_file
    result = run_round_robin("junqi", [junqi_file, "random"], 2, workers=1, bootstrap=0)
    assert len(result.games) == 2


def test_a_declared_game_that_is_no_game_is_refused(tmp_path):
    spec = agent_file(tmp_path, "chess", module_game="chess")
    with pytest.raises(ValueError, match=r"GAME is 'chess', not a game; games are tbw, junqi"):
        make_agent(spec, game="tbw")


def test_an_unknown_agent_gets_the_games_agents_and_a_guess():
    with pytest.raises(ValueError) as error:
        make_agent("ismct", game="junqi")
    message = str(error.value)
    assert "unknown agent 'ismct'; did you mean 'ismcts' or 'mcts'?" in message
    assert ("known agents for junqi: ['greedy', 'ismcts', 'learned', 'mcts', 'ppo', 'random', "
            in message)
    assert "'exact'" not in message  # a TBW agent would be refused next anyway
    with pytest.raises(ValueError, match=r"unknown agent 'minimax'; known agents for tbw: "):
        make_agent("minimax", game="tbw")
    with pytest.raises(ValueError, match=r"'grredy'; did you mean 'greedy'\? known agents: "
                                         r"\['alg2'"):
        make_agent("grredy")
    with pytest.raises(ValueError, match=r"agent 'exact' does not play junqi \(it plays tbw "
                                         r"only\)"):
        make_agent("exact", game="junqi")
