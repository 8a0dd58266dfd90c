"""Piece types, army composition and the combat table.

Piece types are small ints so boards stay flat lists; the order (strongest ranked piece first,
then mine, bomb, flag) is also the order of the 12 deployment actions.
"""

from __future__ import annotations

from tbw_envs.core.contract import short_repr

MARSHAL, GENERAL, MAJOR_GENERAL, BRIGADIER, COLONEL, MAJOR = range(6)
CAPTAIN, LIEUTENANT, ENGINEER, MINE, BOMB, FLAG = range(6, 12)
NUM_PIECE_TYPES = 12
NO_PIECE = -1  # kind of an empty post, and of an opponent piece in a view (identity hidden)

PIECE_NAMES = (
    "marshal", "general", "major_general", "brigadier", "colonel", "major",
    "captain", "lieutenant", "engineer", "mine", "bomb", "flag",
)  # fmt: skip
PIECE_CODES = ("MA", "GE", "MG", "BR", "CO", "MJ", "CA", "LI", "EN", "MI", "BO", "FL")
PIECE_CHINESE = (
    "司令", "军长", "师长", "旅长", "团长", "营长", "连长", "排长", "工兵", "地雷", "炸弹", "军旗",
)  # fmt: skip
# Rank decides ordinary combat; mine, bomb and flag have special rules instead of a rank.
RANKS = (10, 9, 8, 7, 6, 5, 4, 3, 2, 0, 0, 0)
ARMY_COUNTS = (1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 2, 1)
ARMY_SIZE = sum(ARMY_COUNTS)  # 25

ALL_TYPES_MASK = (1 << NUM_PIECE_TYPES) - 1
# Pieces that can never leave their post (the headquarters lock is a post property, not a type).
IMMOBILE_MASK = (1 << MINE) | (1 << FLAG)
MOBILE_MASK = ALL_TYPES_MASK & ~IMMOBILE_MASK
RANKED_MASK = (1 << MINE) - 1

# Result code of one ply: the only thing the referee announces besides the move itself.
MOVED, ATTACKER_WON, ATTACKER_LOST, BOTH_REMOVED = range(4)
RESULT_NAMES = ("moved", "attacker_won", "attacker_lost", "both_removed")

_TOKENS: dict[str, int] = {}
for _kind in range(NUM_PIECE_TYPES):
    _TOKENS[PIECE_NAMES[_kind]] = _kind
    _TOKENS[PIECE_CODES[_kind].lower()] = _kind
    _TOKENS[PIECE_CHINESE[_kind]] = _kind
_TOKENS.update({"field_marshal": MARSHAL, "sapper": ENGINEER, "landmine": MINE})


def piece_kind(name: str | int) -> int:
    """Piece type from a name ('engineer'), a two-letter code ('EN'), the Chinese name ('工兵')
    or an int 0-11. Raises ValueError naming the bad token."""
    if isinstance(name, bool):
        raise ValueError(f"piece must be a name or an int 0-11, got {short_repr(name)}")
    if isinstance(name, int):
        if 0 <= name < NUM_PIECE_TYPES:
            return name
        raise ValueError(f"piece type {name} out of range 0-11")
    if not isinstance(name, str):
        raise ValueError(f"piece must be a name or an int 0-11, got {type(name).__name__}")
    kind = _TOKENS.get(name.strip().lower())
    if kind is None:
        raise ValueError(
            f"unknown piece name {short_repr(name)}; expected one of {', '.join(PIECE_NAMES)} "
            f"(or codes {', '.join(PIECE_CODES)})"
        )
    return kind


def mask_of(*kinds: int) -> int:
    mask = 0
    for kind in kinds:
        mask |= 1 << kind
    return mask


def kinds_in(mask: int) -> list[int]:
    return [kind for kind in range(NUM_PIECE_TYPES) if mask >> kind & 1]


def resolve_combat(attacker: int, defender: int, rules) -> int:
    """Result code when ``attacker`` moves onto ``defender`` under ``rules``."""
    if attacker == BOMB or defender == BOMB:
        if attacker == BOMB and defender == FLAG and rules.bomb_vs_flag == "bomb_removed":
            return ATTACKER_LOST
        return BOTH_REMOVED
    if defender == FLAG:
        if attacker == MARSHAL and not rules.marshal_takes_flag:
            return ATTACKER_LOST
        return ATTACKER_WON
    if defender == MINE:
        if attacker == ENGINEER:
            return ATTACKER_WON
        return BOTH_REMOVED if rules.mine_vs_attacker == "both_removed" else ATTACKER_LOST
    if attacker in (MINE, FLAG):  # cannot happen in play (immobile); kept total for tables
        return ATTACKER_LOST
    if RANKS[attacker] > RANKS[defender]:
        return ATTACKER_WON
    if RANKS[attacker] < RANKS[defender]:
        return ATTACKER_LOST
    return BOTH_REMOVED


def combat_table(rules) -> tuple[tuple[int, ...], ...]:
    """``table[attacker][defender]`` -> result code, precomputed once per rule set."""
    return tuple(
        tuple(resolve_combat(a, d, rules) for d in range(NUM_PIECE_TYPES))
        for a in range(NUM_PIECE_TYPES)
    )
