"""Junqi's own agents for the registry (``JunqiGame.agent_catalog``): the evaluation's greedy
one-ply choice, plain MCTS, the paper's UCB&MCTS and information-set MCTS, which may take a
learned policy's move probabilities as its root prior (``ismcts:policy=pretrained`` or a
``policy.npz`` path), and the self-play network, alone or guiding that search
(``learned:pretrained,simulations=200``: ``agents.junqi.guided``).
"""

from __future__ import annotations

from agents.common.catalog import AgentEntry, declared, entry_of
from agents.common.params import Bool, PathText
from agents.junqi.greedy import GreedyAgent
from agents.junqi.guided import SEARCH_BUDGET, GuidedSearchAgent
from agents.junqi.mcts import ISMCTSAgent, MCTSAgent, UCBMCTSAgent
from agents.learned.agent import LearnedAgent, take_net_path
from agents.policy.agent import PPOAgent
from agents.policy.pretrained import pretrained_path

__all__ = ["AGENTS"]


def _ismcts(policy: str | None = None, **kw):
    if policy is not None:
        # The learned policy's move probabilities become the search's root prior.
        path = pretrained_path("junqi") if policy == "pretrained" else policy
        kw["root_prior"] = PPOAgent(path=str(path), game="junqi").move_probabilities
    return ISMCTSAgent(**kw)


def _learned(game: str | None = None, variant=None, simulations: int | None = None,
             seconds: float | None = None, puct: float | None = None, **kw):
    take_net_path("junqi", kw)
    seed = kw.get("seed")
    network = LearnedAgent(game="junqi", **kw)
    if simulations is None and seconds is None:
        if puct is not None:
            raise ValueError("learned: puct= weighs the prior of a search; give simulations=K "
                             "or seconds=S with it")
        return network
    search = {} if puct is None else {"puct": puct}
    return GuidedSearchAgent(network, simulations=simulations, seconds=seconds, seed=seed,
                             **search)


AGENTS: dict[str, AgentEntry] = {
    "greedy": entry_of(GreedyAgent),
    "mcts": entry_of(MCTSAgent),
    "ucbmcts": entry_of(UCBMCTSAgent),
    # ismcts:policy=pretrained (or a policy.npz path): the learned policy as the root's prior
    "ismcts": AgentEntry(_ismcts, lambda: declared(ISMCTSAgent, ("root_prior",),
                                                   {"policy": PathText()})),
    # learned:pretrained (or path=<net.npz>): the self-play network; with simulations=K or
    # seconds=S it guides ISMCTS (the registry's ``learned`` in every other game)
    "learned": AgentEntry(_learned, lambda: declared(
        LearnedAgent, extra={"pretrained": Bool(), **SEARCH_BUDGET}), takes_game=True),
}
