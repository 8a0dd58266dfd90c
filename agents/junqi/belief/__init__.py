"""Opponent belief trackers for Junqi: P(type | opponent piece) from a player's view alone.

Every tracker is a function of ``view = state.view(player)``: it replays the public history from
the start (``view.placed`` gives the player's own deployed layout, so its own piece types are
known at every ply) and never touches the true state.

Evidence (shared by every tracker)
----------------------------------
Each of the opponent's 25 pieces is a *token* named by its initial post; removed tokens keep
existing. A token carries a 12-bit mask of the types it may have:

- deployment constraints of its initial post (flag only in a headquarters, mines only in the last
  two rows, no bomb in the front row);
- it moved: not a mine, not the flag; an ``engineer_only`` move: an engineer;
- every combat with one of our pieces (whose type we know), in both directions, through the rule
  set's combat table: the token's type must give the announced result code;
- the flag announcement: the token on the announced post is the flag (no other token is); the
  opponent token removed at ``view.flag_revealed_ply`` is the marshal (no other token is). While
  the opponent's flag stays unannounced under ``flag_revealed_on_marshal_death``, no removed token
  is the marshal;
- taking the flag ends the game: a token removed while the game went on was not the flag, and in
  a game we won by taking the flag the token removed at the last ply was.

Trackers
--------
- ``PaperBelief`` (section 3.1 of Bian, Li and Wang 2024): an independent table per piece: a prior
  by initial post, every public event zeroes the types it rules out, then the row is renormalised
  (the paper's eqs. 1-2). Headquarters start from the paper's Table 1, every other post from the
  exact uniform-layout marginal (``uniform_layout_marginals``).
- ``CountBelief``: the same evidence plus the army composition. The 25 x 12 token matrix (removed
  tokens included) starts from the uniform-layout marginals times the evidence masks, restricted
  to the (token, type) pairs that some complete assignment with exactly ``ARMY_COUNTS`` allows,
  and is fitted by iterative proportional fitting: rows to 1, columns to ``ARMY_COUNTS``.
- ``UniformBelief``: uniform over each token's evidence mask (baseline).
- ``ModelBelief`` (``opponent_model``): the count tracker reweighted by the opponent's *moves*,
  not only by what the rules allow. The opponent is modelled as picking each move with
  probability proportional to ``exp(score / T)``, the score being the move evaluation
  (``agents.junqi.evaluation``, ``flag_defence`` left out) from its side with its own deductions
  about our pieces. A move's score depends on the type of the piece that moves, so the likelihood
  of the opponent's plies factorises over its tokens (mean-field: every other token at its
  count-tracker marginals): at each past opponent ply, the played move's score if the mover were
  of each type, against the sum over every token's moves were it of each type. The count
  tracker's start times ``exp(beta x log-likelihood)`` is fitted to the army counts as before.
  ``T``, ``beta`` and the evaluation weights were fitted on arena games of the shipped agents;
  the per-ply scores are cached per game, so rebuilding the belief every move scores only the
  new plies.

All of them share one sampler (``TokenSampler``): a type for every token, exactly ``ARMY_COUNTS``
of each, each inside its mask, each living token's type drawn with the tracker's probabilities.

Custom positions (``JunqiState.from_pieces``) have no deployment to replay. There the tokens are
the opponent's living pieces, their masks the core's own deductions (``view.possible``), the army
counts are upper bounds and the priors are uniform over the mask; ``ModelBelief`` is then the
count tracker (no history to read moves from).

Modules: ``priors`` (the layout priors), ``evidence`` (the replay of the public history),
``sampling`` (type assignments and the sampler), ``trackers`` (the trackers, ``make_belief``),
``opponent_model`` (``ModelBelief``, registered in ``BELIEFS`` here, as it imports the trackers).
"""

from agents.junqi.belief.evidence import NO_TOKEN, Evidence, gather_evidence
from agents.junqi.belief.opponent_model import (
    ModelBelief,
    OpponentPly,
    cached_games,
    clear_cache,
    move_log_likelihoods,
    opponent_plies,
)
from agents.junqi.belief.priors import (
    LAYOUT_MARGINALS,
    PAPER_HEADQUARTERS_SMOOTHING,
    PAPER_HEADQUARTERS_TABLE,
    PAPER_PRIORS,
    paper_prior,
    uniform_layout_marginals,
)
from agents.junqi.belief.sampling import TokenSampler, complete_assignment, feasible_masks
from agents.junqi.belief.trackers import (
    BELIEFS,
    DEFAULT_BELIEF,
    IPF_MAX_ITERATIONS,
    IPF_TOLERANCE,
    BeliefTracker,
    CountBelief,
    PaperBelief,
    UniformBelief,
    fit_counts,
    make_belief,
    normalise_rows,
)

# Registered here rather than in trackers.py: the model imports the trackers.
BELIEFS[ModelBelief.name] = ModelBelief

__all__ = [
    "BELIEFS", "DEFAULT_BELIEF", "IPF_MAX_ITERATIONS", "IPF_TOLERANCE", "LAYOUT_MARGINALS",
    "NO_TOKEN", "PAPER_HEADQUARTERS_SMOOTHING", "PAPER_HEADQUARTERS_TABLE", "PAPER_PRIORS",
    "BeliefTracker", "CountBelief", "Evidence", "ModelBelief", "OpponentPly", "PaperBelief",
    "TokenSampler", "UniformBelief", "cached_games", "clear_cache", "complete_assignment",
    "feasible_masks", "fit_counts",
    "gather_evidence", "make_belief", "move_log_likelihoods", "normalise_rows", "opponent_plies",
    "paper_prior", "uniform_layout_marginals",
]
