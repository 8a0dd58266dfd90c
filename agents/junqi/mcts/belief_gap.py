"""How much stronger a Junqi search plays when its belief is moved toward the truth.

An experiment, not an agent: it tells what a better belief would be worth. Before each of the
search's moves its belief (``DeterminizedSearchAgent.belief_of``) is replaced by
``belief.toward(truth, share)`` (``TruthShare``): every living opponent piece's row becomes
``(1 - share) x its row + share x one-hot(its true type)``. ``share = 0`` is the search as it
is; ``share = 1`` draws every determinization as the true state (an oracle). With ``know`` (a
set of piece types), share 1 knows where the opponent's pieces of those types stand
(``belief.knowing``) and nothing more.

Every share plays the same pairs of games (``play_pair``): each pair starts from one pair of
random layouts, the search as player 0 and then as player 1, with the same agent seeds, so the
rows of ``run`` differ by the belief alone. A row gives W-D-L, the score with its interval, and
the belief's log-loss on the true types (the mean over the search's moves of the mean of
-log p(true type) over the opponent's living pieces), before and after the move toward the
truth. ``merged_rows`` joins runs of one setting; ``table`` and ``plot`` show them.
``scripts/research/belief_gap.py`` is the command line (it builds the agents from specs).
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Callable, Sequence
from pathlib import Path

from agents.base import Agent
from agents.junqi.mcts.agents import DeterminizedSearchAgent
from tbw_envs.junqi import JunqiState

RULES = "ccgc"
CLIP = 1e-12  # a probability below this is scored as this
# An agent of the experiment built from its seed (the search's and its opponent's).
AgentFactory = Callable[[int], Agent]
# A score's interval from (points, games): the arena's Wilson interval, passed in by the caller.
ScoreInterval = Callable[[float, int], tuple[float, float]]


def log_loss(belief, state) -> float | None:
    """Mean -log p(true type) over the opponent's living pieces (p clipped at ``CLIP``); None
    when the opponent has none."""
    losses = [-math.log(max(float(belief.probs(post)[state.kind[post]]), CLIP))
              for post in belief.view.opponent_posts()]
    return sum(losses) / len(losses) if losses else None


def is_belief_search(agent: Agent) -> bool:
    """Whether ``agent`` is a Junqi search with a belief to move (mcts, ucbmcts or ismcts)."""
    return isinstance(agent, DeterminizedSearchAgent)


class TruthShare:
    """Replaces a search agent's belief by one moved toward the true state, and keeps the
    log-loss of both at each move. The game loop sets ``state`` (the true state) before each
    of the agent's moves."""

    def __init__(self, agent: DeterminizedSearchAgent, share: float,
                 know: frozenset[int] | None = None):
        self.share = share
        self.know = know  # at share 1, only the pieces of these types are known
        self.state = None
        self.before: list[float] = []
        self.after: list[float] = []
        self._own = agent.belief_of
        agent.belief_of = self.belief_of

    def belief_of(self, view):
        belief = self._own(view)
        state = self.state
        truth = {post: state.kind[post] for post in view.opponent_posts()}
        if self.know is not None and self.share > 0:
            moved = belief.knowing({post: kind for post, kind in truth.items()
                                    if kind in self.know})
        else:
            moved = belief.toward(truth, self.share)
        before, after = log_loss(belief, state), log_loss(moved, state)
        if before is not None:
            self.before.append(before)
            self.after.append(after)
        return moved


def game_seed(seed: int, pair: int, seat: int) -> int:
    """The search's seed in the game of ``pair`` where it plays ``seat`` (its opponent's: one
    more)."""
    return (seed * 100_003 + pair) * 2 + seat


def play_pair(make_search: AgentFactory, make_opponent: AgentFactory, share: float, seed: int,
              pair: int, know: frozenset[int] | None = None):
    """The pair's two games (the search as player 0, then 1) from one pair of random layouts:
    the search's returns and the log-loss lists (before, after the move) of its moves."""
    layouts_rng = random.Random(f"{seed}/{pair}")
    start = JunqiState.random_initial(layouts_rng, RULES)
    returns, before, after = [], [], []
    for seat in (0, 1):
        agent_seed = game_seed(seed, pair, seat)
        agent = make_search(agent_seed)
        opponent = make_opponent(agent_seed + 1)
        wrapped = TruthShare(agent, share, know)
        players = {seat: agent, 1 - seat: opponent}
        state = start.clone()
        while not state.is_terminal():
            mover = state.current_player
            wrapped.state = state
            state.apply(players[mover].act(state.view(mover)))
        returns.append(state.returns()[seat])
        before += wrapped.before
        after += wrapped.after
    return returns, before, after


def run(make_search: AgentFactory, make_opponent: AgentFactory, shares: Sequence[float],
        pairs: int, seed: int, interval: ScoreInterval, progress: bool = True,
        know: frozenset[int] | None = None) -> list[dict]:
    """One row per share: ``pairs`` pairs of games (``play_pair``), the search's W-D-L, score
    (a draw half a point) with ``interval(points, games)``, the mean log-loss of its belief and
    of the one it used, and its moves counted."""
    from tqdm import tqdm

    rows = []
    bar = tqdm(total=len(shares) * pairs * 2, desc="belief gap", unit="game", disable=not progress)
    for share in shares:
        points, wins, losses, before, after = 0.0, 0, 0, [], []
        for pair in range(pairs):
            returns, pair_before, pair_after = play_pair(make_search, make_opponent, share, seed,
                                                         pair, know)
            for value in returns:
                points += (value + 1.0) / 2.0
                wins += value > 0
                losses += value < 0
            before += pair_before
            after += pair_after
            bar.update(2)
            bar.set_postfix(share=share, score=f"{points / (2 * pair + 2):.2f}")
        games = 2 * pairs
        low, high = interval(points, games)
        rows.append({"share": share, "games": games, "wins": wins, "draws": games - wins - losses,
                     "losses": losses, "score": points / games, "ci_95": [low, high],
                     "log_loss_belief": sum(before) / len(before) if before else None,
                     "log_loss_used": sum(after) / len(after) if after else None,
                     "moves": len(before)})
    bar.close()
    return rows


def table(rows: list[dict], agent: str, opponent: str, know: list[str] | None = None) -> str:
    """The rows as a markdown table under a line naming the search, its opponent and what it
    was told (``know``: the names of the types known at share 1)."""
    moved = ("its belief moved toward the truth" if know is None
             else f"at share 1 knowing its opponent's {', '.join(know)} alone")
    lines = [f"{agent} against {opponent}, {moved}",
             "| share of the truth | W-D-L | score | Wilson 95% | log-loss of its belief | "
             "log-loss used | moves |", "|---:|---|---:|---|---:|---:|---:|"]
    for row in rows:
        low, high = row["ci_95"]
        lines.append(f"| {row['share']:g} | {row['wins']}-{row['draws']}-{row['losses']} | "
                     f"{row['score']:.3f} | [{low:.3f}, {high:.3f}] | "
                     f"{row['log_loss_belief']:.3f} | {row['log_loss_used']:.3f} | "
                     f"{row['moves']} |")
    return "\n".join(lines)


def plot(rows: list[dict], path: Path, title: str) -> None:
    """Score (with its interval) against the log-loss of the belief used, one point a share.
    Needs matplotlib."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    x = [row["log_loss_used"] for row in rows]
    y = [row["score"] for row in rows]
    errors = [[row["score"] - row["ci_95"][0] for row in rows],
              [row["ci_95"][1] - row["score"] for row in rows]]
    ax.errorbar(x, y, yerr=errors, fmt="o-", capsize=4)
    for row in rows:
        ax.annotate(f"share {row['share']:g}", (row["log_loss_used"], row["score"]),
                    textcoords="offset points", xytext=(6, 6))
    ax.set_xlabel("log-loss of the belief used (nats a piece)")
    ax.set_ylabel("score (Wilson 95%)")
    ax.set_title(title, fontsize=9)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def merged_rows(folders: Sequence[str | Path]) -> tuple[dict, list[dict]]:
    """The setting and the rows, by share, of several runs' ``results.json``; ValueError
    unless they played the same agent, opponent, seed, pairs and known types with different
    shares."""
    first, rows = None, []
    for folder in folders:
        path = Path(folder) / "results.json"
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            setting = {key: data[key] for key in ("agent", "opponent", "seed", "pairs")}
            setting["know"] = data.get("know")  # runs before --know have none
            found = data["rows"]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"--merge: cannot read {path}: {exc}") from exc
        if first is None:
            first = setting
        elif setting != first:
            raise ValueError(f"--merge: {path} played {setting}, not {first}")
        rows += found
    shares = [row["share"] for row in rows]
    if len(set(shares)) != len(shares):
        raise ValueError(f"--merge: a share was played twice ({sorted(shares)})")
    return first, sorted(rows, key=lambda row: row["share"])
