"""Two-player Junqi (dark game with referee): the game core. No RL-library imports here.

Main entry points: ``JunqiState`` (true state, forward model), ``JunqiView`` (what one player may
know), layouts (``parse_layout``, ``random_layout``, ``load_layout``) and rule sets
(``load_rules``). See docs/junqi.md.
"""

from tbw_envs.junqi.board import (
    CAMPS,
    HEADQUARTERS,
    NUM_POSTS,
    BoardGraph,
    board_graph,
    mirror_post,
    parse_post,
    post_name,
)
from tbw_envs.junqi.layout import (
    Layout,
    available_layouts,
    format_layout,
    load_layout,
    parse_layout,
    random_layout,
    validate_layout,
)
from tbw_envs.junqi.pieces import (
    ARMY_COUNTS,
    ATTACKER_LOST,
    ATTACKER_WON,
    BOTH_REMOVED,
    MOVED,
    PIECE_NAMES,
    RESULT_NAMES,
    piece_kind,
)
from tbw_envs.junqi.state import (
    DEPLOY_ACTION_BASE,
    END_REASONS,
    NUM_ACTIONS,
    JunqiState,
    JunqiView,
    PlyRecord,
    decode_action,
    deploy_action,
    encode_action,
)
from tbw_envs.junqi.variant import JunqiRules, RulesError, available_rule_sets, load_rules

__all__ = [
    "ARMY_COUNTS", "ATTACKER_LOST", "ATTACKER_WON", "BOTH_REMOVED", "CAMPS", "DEPLOY_ACTION_BASE",
    "END_REASONS", "HEADQUARTERS", "MOVED", "NUM_ACTIONS", "NUM_POSTS", "PIECE_NAMES",
    "RESULT_NAMES", "BoardGraph", "JunqiRules", "JunqiState", "JunqiView", "Layout", "PlyRecord",
    "RulesError",
    "available_layouts", "available_rule_sets", "board_graph", "decode_action", "deploy_action",
    "encode_action", "format_layout", "load_layout", "load_rules", "mirror_post", "parse_layout",
    "parse_post", "post_name", "piece_kind", "random_layout", "validate_layout",
]  # fmt: skip
