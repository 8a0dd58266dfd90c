"""Junqi's own agents for the registry (``JunqiGame.agent_catalog``): the evaluation's greedy
one-ply choice, plain MCTS, the paper's UCB&MCTS and information-set MCTS, which may take a
learned policy's move probabilities as its root prior (``ismcts:policy=pretrained`` or a
``policy.npz`` path).
"""

from __future__ import annotations

from agents.common.catalog import AgentEntry, declared, entry_of
from agents.common.params import PathText
from agents.junqi.greedy import GreedyAgent
from agents.junqi.mcts import ISMCTSAgent, MCTSAgent, UCBMCTSAgent
from agents.policy.agent import PPOAgent
from agents.policy.pretrained import pretrained_path

__all__ = ["AGENTS"]


def _ismcts(policy: str | None = None, **kw):
    if policy is not None:
        # The learned policy's move probabilities become the search's root prior.
        path = pretrained_path("junqi") if policy == "pretrained" else policy
        kw["root_prior"] = PPOAgent(path=str(path), game="junqi").move_probabilities
    return ISMCTSAgent(**kw)


AGENTS: dict[str, AgentEntry] = {
    "greedy": entry_of(GreedyAgent),
    "mcts": entry_of(MCTSAgent),
    "ucbmcts": entry_of(UCBMCTSAgent),
    # ismcts:policy=pretrained (or a policy.npz path): the learned policy as the root's prior
    "ismcts": AgentEntry(_ismcts, lambda: declared(ISMCTSAgent, ("root_prior",),
                                                   {"policy": PathText()})),
}
