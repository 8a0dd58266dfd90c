"""A self-play network guiding Junqi's search: ``learned:pretrained,simulations=200``.

With a budget (``simulations=K`` iterations, machine-independent, or ``seconds=S`` a move) the
``learned`` agent of Junqi is information-set MCTS (``agents.junqi.mcts.ISMCTSAgent``, its
defaults) whose root selects by PUCT over every legal move with the network's move
probabilities as the prior (constant ``puct``, in the leaf's piece-value units). The network
reads only the player's view, as the search's determinizations come only from its belief, so
no hidden piece reaches the agent either way. Without a budget the catalog builds the plain
``LearnedAgent``: one forward pass a move.
"""

from __future__ import annotations

from agents.common.params import MAX_ITERATIONS, OPTIONAL_SECONDS, Float, Int
from agents.junqi.mcts import ISMCTSAgent
from agents.learned.agent import LearnedAgent

# What a spec may add to ``learned``'s own parameters to make it search.
SEARCH_BUDGET = {
    "simulations": Int(low=1, high=MAX_ITERATIONS, optional=True),
    "seconds": OPTIONAL_SECONDS,
    "puct": Float(low=0.0),
}
DEFAULT_PUCT = 30.0


class GuidedSearchAgent(ISMCTSAgent):
    """ISMCTS with ``network``'s move probabilities as the root's PUCT prior."""

    name = "learned"

    def __init__(self, network: LearnedAgent, simulations: int | None = None,
                 seconds: float | None = None, puct: float = DEFAULT_PUCT,
                 seed: int | None = None):
        if network.game != "junqi":
            raise ValueError(f"GuidedSearchAgent searches Junqi; {network.path} plays "
                             f"{network.game}")
        if simulations is None and seconds is None:
            raise ValueError("GuidedSearchAgent needs simulations=K or seconds=S")
        super().__init__(iterations=simulations, seconds=seconds, seed=seed,
                         root_prior=network.move_probabilities, puct=puct)
        self.network = network
        self.path = network.path
