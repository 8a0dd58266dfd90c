"""What the public history tells a player about the opponent's pieces: a mask of possible types
for every opponent *token* (a piece named by its initial post; removed tokens keep existing),
from a replay of ``view.history`` starting at the player's own deployed layout."""

from __future__ import annotations

from dataclasses import dataclass

from tbw_envs.junqi.board import NUM_POSTS, post_name
from tbw_envs.junqi.layout import DEPLOY_CELLS, LAYOUT_CELLS, PIECE_CELLS, cell_allows, cell_to_post
from tbw_envs.junqi.pieces import (
    ARMY_SIZE,
    ATTACKER_LOST,
    ATTACKER_WON,
    BOTH_REMOVED,
    ENGINEER,
    FLAG,
    MARSHAL,
    MOBILE_MASK,
    MOVED,
    NO_PIECE,
    NUM_PIECE_TYPES,
    combat_table,
)
from tbw_envs.junqi.state import FLAG_CAPTURED, PLAY, move_tables
from tbw_envs.junqi.variant import JunqiRules

NO_TOKEN = -1
_TYPE_RANGE = range(NUM_PIECE_TYPES)
# The types each owner-frame cell may hold at deployment (flag only in a headquarters, mines
# only in the last two rows, no bomb in the front row).
_DEPLOYMENT_MASKS = tuple(
    sum(1 << kind for kind in _TYPE_RANGE if cell_allows(cell, kind))
    for cell in range(LAYOUT_CELLS)
)

_COMBAT_MASKS: dict[JunqiRules, tuple[list[list[int]], list[list[int]]]] = {}


def _combat_masks(rules: JunqiRules) -> tuple[list[list[int]], list[list[int]]]:
    """``(as_attacker, as_defender)``: ``as_attacker[result][our_defender]`` is the mask of
    types that give ``result`` attacking our piece; ``as_defender[result][our_attacker]`` the
    mask of types that give ``result`` when our piece attacks them."""
    masks = _COMBAT_MASKS.get(rules)
    if masks is None:
        table = combat_table(rules)
        as_attacker = [
            [sum(1 << a for a in _TYPE_RANGE if table[a][d] == result) for d in _TYPE_RANGE]
            for result in range(4)
        ]
        as_defender = [
            [sum(1 << d for d in _TYPE_RANGE if table[a][d] == result) for a in _TYPE_RANGE]
            for result in range(4)
        ]
        masks = _COMBAT_MASKS[rules] = (as_attacker, as_defender)
    return masks


@dataclass(frozen=True)
class Evidence:
    """What the public history tells one player about the opponent's pieces, token by token."""

    player: int
    # True for a game started from two layouts: 25 tokens, exact army counts, deployment priors.
    # False for a custom position: the living pieces only, army counts as upper bounds.
    full_army: bool
    initial_posts: tuple[int | None, ...]  # None for custom positions
    cells: tuple[int | None, ...]  # owner-frame cell of the initial post
    posts: tuple[int | None, ...]  # current post; None once removed
    removed_ply: tuple[int | None, ...]  # index in view.history of the ply that removed it
    masks: tuple[int, ...]
    # Living tokens of which at least one must be mobile: the opponent is to move and the game
    # goes on, so it has a legal move (empty when that says nothing).
    must_move: tuple[int, ...]

    @property
    def num_tokens(self) -> int:
        return len(self.masks)

    def living(self) -> list[int]:
        return [t for t, post in enumerate(self.posts) if post is not None]


def _history_error(index: int, record, problem: str) -> ValueError:
    return ValueError(
        f"belief: ply {index} ({record.describe()}) does not replay from the deployed layouts: "
        f"{problem}"
    )


def gather_evidence(view) -> Evidence:
    """Replay ``view.history`` from the deployment and collect every token's evidence mask."""
    if view.phase != PLAY:
        raise ValueError("belief trackers work in the play phase only (after deployment)")
    if len(view.placed) != ARMY_SIZE:
        return _custom_position_evidence(view)
    me, opponent = view.player, 1 - view.player
    own_kind = [NO_PIECE] * NUM_POSTS
    for cell, kind in zip(DEPLOY_CELLS, view.placed, strict=True):
        own_kind[cell_to_post(cell, me)] = kind
    cells = PIECE_CELLS
    initial_posts = [cell_to_post(cell, opponent) for cell in cells]
    token_at = [NO_TOKEN] * NUM_POSTS
    for token, post in enumerate(initial_posts):
        token_at[post] = token
    masks = [_DEPLOYMENT_MASKS[cell] for cell in cells]
    removed_ply: list[int | None] = [None] * len(cells)
    as_attacker, as_defender = _combat_masks(view.rules)

    for index, record in enumerate(view.history):
        source, target, result = record.from_post, record.to_post, record.result
        if record.player == opponent:
            token = token_at[source]
            if token == NO_TOKEN:
                raise _history_error(index, record, "no opponent piece on the start post")
            masks[token] &= MOBILE_MASK
            if record.engineer_only:
                masks[token] &= 1 << ENGINEER
            token_at[source] = NO_TOKEN
            defender = own_kind[target]
            if result == MOVED:
                if defender != NO_PIECE or token_at[target] != NO_TOKEN:
                    raise _history_error(index, record, "a quiet move onto an occupied post")
                token_at[target] = token
                continue
            if defender == NO_PIECE:
                raise _history_error(index, record, "a combat without one of our pieces")
            masks[token] &= as_attacker[result][defender]
            if result == ATTACKER_WON:
                own_kind[target] = NO_PIECE
                token_at[target] = token
            elif result == ATTACKER_LOST:
                removed_ply[token] = index
            else:
                own_kind[target] = NO_PIECE
                removed_ply[token] = index
        else:
            attacker = own_kind[source]
            if attacker == NO_PIECE:
                raise _history_error(index, record, "none of our pieces on the start post")
            own_kind[source] = NO_PIECE
            token = token_at[target]
            if result == MOVED:
                if token != NO_TOKEN or own_kind[target] != NO_PIECE:
                    raise _history_error(index, record, "a quiet move onto an occupied post")
                own_kind[target] = attacker
                continue
            if token == NO_TOKEN:
                raise _history_error(index, record, "a combat without an opponent piece")
            masks[token] &= as_defender[result][attacker]
            if result == ATTACKER_WON:
                token_at[target] = NO_TOKEN
                removed_ply[token] = index
                own_kind[target] = attacker
            elif result == BOTH_REMOVED:
                token_at[target] = NO_TOKEN
                removed_ply[token] = index

    for post in range(NUM_POSTS):
        mine_here = own_kind[post] != NO_PIECE
        if (view.owner[post] == me) != mine_here or (view.owner[post] == opponent) != (
            token_at[post] != NO_TOKEN
        ):
            raise ValueError(
                f"belief: the replayed history does not end in the view's position "
                f"(post {post_name(post)})"
            )
        if mine_here and own_kind[post] != view.kind[post]:
            raise ValueError(f"belief: our piece on {post_name(post)} is not the deployed one")

    _flag_evidence(view, initial_posts, removed_ply, masks)
    for token, mask in enumerate(masks):
        if not mask:
            raise ValueError(
                f"belief: inconsistent evidence: no type fits the opponent piece deployed on "
                f"{post_name(initial_posts[token])}"
            )
    posts: list[int | None] = [None] * len(cells)
    for post, token in enumerate(token_at):
        if token != NO_TOKEN:
            posts[token] = post
    return Evidence(
        player=me,
        full_army=True,
        initial_posts=tuple(initial_posts),
        cells=tuple(cells),
        posts=tuple(posts),
        removed_ply=tuple(removed_ply),
        masks=tuple(masks),
        must_move=_must_move(view, posts),
    )


def _flag_evidence(view, initial_posts, removed_ply, masks) -> None:
    """The flag announcement, the marshal it implies, and a flag we took to win."""
    opponent = 1 - view.player
    flag_bit, marshal_bit = 1 << FLAG, 1 << MARSHAL
    flag_token = None
    flag_post = view.flag_revealed[opponent]
    if flag_post is not None:
        # The flag never moves, so the announced post is its initial post.
        flag_token = initial_posts.index(flag_post) if flag_post in initial_posts else None
        if flag_token is None:
            raise ValueError(
                f"belief: the announced flag post {post_name(flag_post)} is not a "
                "deployment post of the opponent"
            )
        marshal_ply = view.flag_revealed_ply[opponent]
        marshal_token = None
        if marshal_ply is not None:
            marshal_token = next(
                (t for t, ply in enumerate(removed_ply) if ply == marshal_ply), None
            )
            if marshal_token is None:
                raise ValueError(
                    f"belief: no opponent piece was removed at ply {marshal_ply}, "
                    "which announced the flag"
                )
        for token in range(len(masks)):
            if token == marshal_token:
                masks[token] &= marshal_bit
            elif marshal_token is not None or removed_ply[token] is None:
                masks[token] &= ~marshal_bit
    elif view.rules.flag_revealed_on_marshal_death:
        # The marshal's removal would have announced the flag: every removed token is not it.
        for token, ply in enumerate(removed_ply):
            if ply is not None:
                masks[token] &= ~marshal_bit
    captured = None
    if (
        view.end_reason == FLAG_CAPTURED
        and view.winner == view.player
        and view.history
        and view.history[-1].player == view.player
    ):
        last = len(view.history) - 1
        captured = next((t for t, ply in enumerate(removed_ply) if ply == last), None)
        flag_token = captured if captured is not None else flag_token
    # Removing the flag ends the game, so a token removed while the game went on was not it.
    for token, ply in enumerate(removed_ply):
        if ply is not None and token != captured:
            masks[token] &= ~flag_bit
    if flag_token is not None:
        for token in range(len(masks)):
            masks[token] &= flag_bit if token == flag_token else ~flag_bit


def _must_move(view, posts) -> tuple[int, ...]:
    """Living tokens with a destination, when the opponent must have a legal move now."""
    if view.end_reason is not None or view.current_player == view.player:
        return ()
    moves, _ = move_tables(view.rules)
    owner, kind = list(view.owner), list(view.kind)
    # Opponent pieces read as NO_PIECE, i.e. as a mobile non-engineer; whether a mobile piece has
    # any destination does not depend on its type (an engineer's first railroad step is also a
    # straight slide).
    return tuple(
        token
        for token, post in enumerate(posts)
        if post is not None and moves.destinations(owner, kind, post)
    )


def _custom_position_evidence(view) -> Evidence:
    """A position without a deployment to replay: the living pieces and the core's masks."""
    opponent = 1 - view.player
    posts = [post for post in range(NUM_POSTS) if view.owner[post] == opponent]
    none = tuple(None for _ in posts)
    return Evidence(
        player=view.player,
        full_army=False,
        initial_posts=none,
        cells=none,
        posts=tuple(posts),
        removed_ply=none,
        masks=tuple(view.possible[post] for post in posts),
        must_move=_must_move(view, posts),
    )
