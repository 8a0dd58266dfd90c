"""The true game state (the referee's view) and the forward model agents search, and
``JunqiView``: what one player may know, the information boundary between the referee and an
agent.

The state is flat lists indexed by post, so ``clone`` is a handful of list copies. Alongside the
true pieces it keeps, for each player, what that player may deduce about the opponent's pieces
(``possible`` type masks); those are updated only from public results and the observer's own
piece types, so a view can hand them out without leaking.

A view holds the player's own pieces, the opponent's piece positions (never their types), the
public ply history, the revealed flags, and the player's deductions about each opponent piece.
It is a standalone copy: it holds no reference to the true state.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from tbw_envs.core.contract import short_repr
from tbw_envs.core.errors import IllegalActionError
from tbw_envs.junqi.actions import (  # noqa: F401 (older code imports them from here)
    DEPLOY,
    DEPLOY_ACTION_BASE,
    END_REASONS,
    FLAG_CAPTURED,
    NO_COLLISION_LIMIT,
    NO_LEGAL_MOVE,
    NO_LEGAL_MOVE_BOTH,
    NUM_ACTIONS,
    NUM_MOVE_ACTIONS,
    PLAY,
    PLY_CAP,
    TOTAL_PLY_LIMIT,
    PlyRecord,
    as_action,
    decode_action,
    deploy_action,
    deploy_action_piece,
    describe_action,
    encode_action,
    returns_for,
)
from tbw_envs.junqi.board import NUM_POSTS, parse_post, post_name
from tbw_envs.junqi.layout import (
    DEPLOY_CELLS,
    Layout,
    as_random,
    cell_allows,
    cell_to_post,
    coerce_layout,
    deployment_choices,
    post_to_cell,
    random_layout,
)
from tbw_envs.junqi.pieces import (
    ALL_TYPES_MASK,
    ARMY_COUNTS,
    ARMY_SIZE,
    ATTACKER_LOST,
    ATTACKER_WON,
    ENGINEER,
    FLAG,
    MARSHAL,
    MOBILE_MASK,
    MOVED,
    NO_PIECE,
    NUM_PIECE_TYPES,
    PIECE_NAMES,
    combat_table,
    piece_kind,
)
from tbw_envs.junqi.render import render_ansi
from tbw_envs.junqi.rules import EMPTY, MoveGenerator
from tbw_envs.junqi.variant import JunqiRules, load_rules


# Bounded: a long-running job that builds rule sets on the fly (a new description each time)
# must not grow memory without end. A miss only costs rebuilding the tables.
@lru_cache(maxsize=64)
def move_tables(rules: JunqiRules) -> tuple[MoveGenerator, tuple]:
    return MoveGenerator(rules), combat_table(rules)


def deployment_masks() -> tuple[list[int], list[int]]:
    """Per player, the type mask a newly deployed opponent piece may have on each post, from the
    public deployment constraints alone."""
    masks: tuple[list[int], list[int]] = ([0] * NUM_POSTS, [0] * NUM_POSTS)
    for owner in (0, 1):
        for post in range(NUM_POSTS):
            cell = post_to_cell(post, owner)
            if cell is None:
                continue
            mask = 0
            for kind in range(NUM_PIECE_TYPES):
                if cell_allows(cell, kind):
                    mask |= 1 << kind
            masks[owner][post] = mask
    return masks


_DEPLOYMENT_MASKS = deployment_masks()



class JunqiState:
    """Two-player Junqi. Player 0 owns rows G-L and moves first; player 1 owns rows A-F."""

    __slots__ = (
        "rules", "_moves", "_combat", "owner", "kind", "moved", "possible", "flag_revealed",
        "flag_revealed_ply", "history", "current_player", "phase", "ply", "quiet_plies", "winner",
        "end_reason", "_legal", "_placed",
    )  # fmt: skip

    def __init__(self, rules: str | dict | JunqiRules | None = "ccgc"):
        """An empty board; use ``initial``, ``from_pieces`` or ``new_deployment``."""
        self.rules = load_rules(rules)
        self._moves, self._combat = move_tables(self.rules)
        self.owner = [EMPTY] * NUM_POSTS
        self.kind = [NO_PIECE] * NUM_POSTS
        self.moved = [False] * NUM_POSTS
        # possible[observer][post]: types the opponent piece on ``post`` may have, as far as
        # ``observer`` can tell; zero where no opponent piece stands.
        self.possible = [[0] * NUM_POSTS, [0] * NUM_POSTS]
        self.flag_revealed: list[int | None] = [None, None]
        # Index in ``history`` of the ply whose marshal removal announced each side's flag (None
        # for flags announced before play, as ``from_pieces(revealed_flags=...)`` does).
        self.flag_revealed_ply: list[int | None] = [None, None]
        self.history: list[PlyRecord] = []
        self.current_player = 0
        self.phase = PLAY
        self.ply = 0
        self.quiet_plies = 0
        self.winner: int | None = None
        self.end_reason: str | None = None
        # The legal actions; None in play until first asked for (see ``_start_turn``).
        self._legal: list[int] | None = []
        self._placed: list[list[int]] = [[], []]

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_pieces(
        cls,
        pieces: Mapping,
        to_move: int = 0,
        rules: str | dict | JunqiRules | None = "ccgc",
        revealed_flags: tuple[int, ...] = (),
    ) -> JunqiState:
        """Any position, without deployment checks: ``{"K0": (0, "engineer"), ...}``.

        Every piece counts as unmoved and the opponent may suspect any type of it. The flags of
        the players in ``revealed_flags`` start announced (as if their marshal had been removed).
        """
        if not isinstance(pieces, Mapping):
            raise ValueError(
                f"pieces must be a mapping post -> (player, piece), got {short_repr(pieces)}"
            )
        if to_move not in (0, 1) or isinstance(to_move, bool):
            raise ValueError(f"to_move must be 0 or 1, got {short_repr(to_move)}")
        state = cls(rules)
        for post_spec, entry in pieces.items():
            post = parse_post(post_spec)
            if not isinstance(entry, (tuple, list)) or len(entry) != 2:
                raise ValueError(
                    f"piece on {post_name(post)} must be (player, piece name), got "
                    f"{short_repr(entry)}"
                )
            player, name = entry
            if player not in (0, 1) or isinstance(player, bool):
                raise ValueError(
                    f"piece on {post_name(post)}: player must be 0 or 1: {short_repr(player)}"
                )
            if state.owner[post] != EMPTY:
                raise ValueError(f"post {post_name(post)} given twice")
            state.owner[post] = player
            state.kind[post] = piece_kind(name)
            state.possible[1 - player][post] = ALL_TYPES_MASK
        state.current_player = to_move
        for side in revealed_flags:
            if side not in (0, 1):
                raise ValueError(f"revealed_flags holds players 0 and 1, got {short_repr(side)}")
            state._reveal_flag(side)
        state._start_turn(previous_mover=1 - to_move, flag_taken=False)
        return state

    @classmethod
    def initial(cls, layouts, rules: str | dict | JunqiRules | None = "ccgc") -> JunqiState:
        """Start of play from two layouts (each validated): a pair ``(layout_0, layout_1)`` or a
        dict keyed by 0/1 or 'player_0'/'player_1'. A layout is a Layout, layout text, a bundled
        layout name or path, or 6 rows of 5 tokens (see ``tbw_envs.junqi.layout``)."""
        pair = _layout_pair(layouts)
        state = cls(rules)
        for player, layout in enumerate(pair):
            for post, kind in layout.pieces(player).items():
                state.owner[post] = player
                state.kind[post] = kind
            state._placed[player] = [layout.cells[cell] for cell in DEPLOY_CELLS]
        state._begin_play()
        return state

    @classmethod
    def random_initial(cls, rng=None, rules: str | dict | JunqiRules | None = "ccgc"):
        """Start of play from two uniformly random legal layouts."""
        rand = as_random(rng)
        return cls.initial((random_layout(rand), random_layout(rand)), rules)

    @classmethod
    def new_deployment(cls, rules: str | dict | JunqiRules | None = "ccgc") -> JunqiState:
        """An empty board in the deployment phase: players alternate, each filling its own posts
        in the fixed order ``layout.DEPLOY_CELLS`` with deployment actions (one per piece type);
        player 0 deploys first and, once all 50 pieces stand, moves first."""
        state = cls(rules)
        state.phase = DEPLOY
        state._legal = state._deployment_actions(0)
        return state

    def _begin_play(self) -> None:
        self.phase = PLAY
        for observer in (0, 1):
            masks = _DEPLOYMENT_MASKS[1 - observer]
            self.possible[observer] = [
                masks[post] if self.owner[post] == 1 - observer else 0 for post in range(NUM_POSTS)
            ]
        self.current_player = 0
        self._start_turn(previous_mover=1, flag_taken=False)

    # ------------------------------------------------------------------ queries
    def clone(self) -> JunqiState:
        other = JunqiState.__new__(JunqiState)
        other.rules = self.rules
        other._moves = self._moves
        other._combat = self._combat
        other.owner = self.owner[:]
        other.kind = self.kind[:]
        other.moved = self.moved[:]
        other.possible = [self.possible[0][:], self.possible[1][:]]
        other.flag_revealed = self.flag_revealed[:]
        other.flag_revealed_ply = self.flag_revealed_ply[:]
        other.history = self.history[:]
        other.current_player = self.current_player
        other.phase = self.phase
        other.ply = self.ply
        other.quiet_plies = self.quiet_plies
        other.winner = self.winner
        other.end_reason = self.end_reason
        other._legal = None if self._legal is None else self._legal[:]
        other._placed = [self._placed[0][:], self._placed[1][:]]
        return other

    def legal_actions(self) -> list[int]:
        legal = self._legal
        if legal is None:
            legal = self._legal = self._moves.legal_moves(self.owner, self.kind,
                                                          self.current_player)
        return legal[:]

    def legal_action_mask(self) -> np.ndarray:
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        mask[self.legal_actions()] = 1
        return mask

    def is_terminal(self) -> bool:
        return self.end_reason is not None

    def returns(self) -> list[float]:
        """``[r0, r1]``: +1 win, -1 loss, 0 draw or game not over."""
        return returns_for(self.winner)

    encode_action = staticmethod(encode_action)
    decode_action = staticmethod(decode_action)

    def piece_at(self, post) -> tuple[int, str] | None:
        post = parse_post(post)
        if self.owner[post] == EMPTY:
            return None
        return self.owner[post], PIECE_NAMES[self.kind[post]]

    def pieces(self) -> dict[str, tuple[int, str]]:
        """All pieces as ``{post name: (player, piece name)}`` (the format of ``from_pieces``)."""
        return {
            post_name(post): (self.owner[post], PIECE_NAMES[self.kind[post]])
            for post in range(NUM_POSTS)
            if self.owner[post] != EMPTY
        }

    def piece_counts(self, player: int) -> list[int]:
        counts = [0] * NUM_PIECE_TYPES
        for post in range(NUM_POSTS):
            if self.owner[post] == player:
                counts[self.kind[post]] += 1
        return counts

    def destinations(self, post) -> list[int]:
        """Posts the piece on ``post`` may move to now, whoever's turn it is."""
        return self._moves.destinations(self.owner, self.kind, parse_post(post))

    def view(self, player: int):
        """What ``player`` may know (see ``JunqiView``)."""
        return JunqiView.of_state(self, player)

    def __repr__(self) -> str:
        status = (
            f"over ({self.end_reason}, winner {self.winner})"
            if self.is_terminal()
            else (f"player {self.current_player} to move")
        )
        return f"<JunqiState {self.rules.name} {self.phase} ply {self.ply}: {status}>"

    def render_text(self, player: int | None = None) -> str:
        return render_ansi(self if player is None else self.view(player))

    # ------------------------------------------------------------------ transitions
    def apply(self, action) -> int:
        """Play one action for ``current_player``; returns the ply's result code (MOVED for a
        deployment action). Raises ``IllegalActionError`` (a ValueError), leaving the state
        unchanged, if it is illegal."""
        if type(action) is not int or not 0 <= action < NUM_ACTIONS:
            action = as_action(action)  # anything but a plain int in range (or the error)
        if self.end_reason is not None:
            raise IllegalActionError(f"action {action}: the game is over ({self.end_reason})")
        legal = self._legal
        if legal is None:
            # In play, before the list was asked for: check this one move alone.
            legal_move = action < NUM_MOVE_ACTIONS and self._moves.is_legal_move(
                self.owner, self.kind, self.current_player, action
            )
        else:
            legal_move = action in legal
        if not legal_move:
            legal = self.legal_actions()
            raise IllegalActionError(
                f"illegal action {action} ({describe_action(action)}) for player "
                f"{self.current_player} in the {self.phase} phase; {len(legal)} legal actions"
            )
        if self.phase == DEPLOY:
            self._apply_deployment(action - DEPLOY_ACTION_BASE)
            return MOVED
        return self._apply_move(action)

    def _apply_deployment(self, kind: int) -> None:
        player = self.current_player
        placed = self._placed[player]
        post = cell_to_post(DEPLOY_CELLS[len(placed)], player)
        self.owner[post] = player
        self.kind[post] = kind
        placed.append(kind)
        if len(self._placed[0]) == ARMY_SIZE and len(self._placed[1]) == ARMY_SIZE:
            self._begin_play()
            return
        self.current_player = 1 - player
        self._legal = self._deployment_actions(self.current_player)

    def _deployment_actions(self, player: int) -> list[int]:
        return [DEPLOY_ACTION_BASE + kind for kind in deployment_choices(self._placed[player])]

    def _apply_move(self, action: int) -> int:
        owner, kind, moved = self.owner, self.kind, self.moved
        mover = self.current_player
        opponent = 1 - mover
        from_post, to_post = divmod(action, NUM_POSTS)
        attacker = kind[from_post]
        defender = kind[to_post]
        engineer_only = attacker == ENGINEER and not self._moves.non_engineer_can_reach(
            owner, from_post, to_post
        )
        # What the mover's opponent knows of the moving piece, before it leaves its post.
        opponent_sees = self.possible[opponent]
        seen_attacker = opponent_sees[from_post] & MOBILE_MASK
        if engineer_only:
            seen_attacker &= 1 << ENGINEER
        opponent_sees[from_post] = 0
        moved[from_post] = False
        owner[from_post] = EMPTY
        kind[from_post] = NO_PIECE

        if defender == NO_PIECE:
            result = MOVED
            owner[to_post] = mover
            kind[to_post] = attacker
            moved[to_post] = True
            opponent_sees[to_post] = seen_attacker
            self.quiet_plies += 1
        else:
            combat = self._combat
            result = combat[attacker][defender]
            if result == ATTACKER_WON:
                owner[to_post] = mover
                kind[to_post] = attacker
                moved[to_post] = True
                # The opponent knows its own defender, so it learns which types beat it.
                opponent_sees[to_post] = seen_attacker & _beats_mask(combat, defender)
                self.possible[mover][to_post] = 0
            elif result == ATTACKER_LOST:
                # The mover knows its attacker, so it learns which types stop it.
                self.possible[mover][to_post] &= _stops_mask(combat, attacker)
            else:
                owner[to_post] = EMPTY
                kind[to_post] = NO_PIECE
                moved[to_post] = False
                self.possible[mover][to_post] = 0
            if self.rules.flag_revealed_on_marshal_death:
                if attacker == MARSHAL and result != ATTACKER_WON:
                    self._marshal_removed(mover)
                if defender == MARSHAL and result != ATTACKER_LOST:
                    self._marshal_removed(opponent)
            self.quiet_plies = 0

        # PlyRecord(...) without the NamedTuple constructor's keyword handling.
        self.history.append(_new_tuple(PlyRecord, (mover, from_post, to_post, result,
                                                   engineer_only)))
        self.ply += 1
        self.current_player = opponent
        self._start_turn(mover, defender == FLAG and result != ATTACKER_LOST)
        return result

    def _marshal_removed(self, side: int) -> None:
        # Custom positions may hold several marshals; the announcement comes with the last one.
        if MARSHAL not in self._kinds_of(side):
            # Called before the ply is appended, so its index is the current history length.
            self._reveal_flag(side, ply=len(self.history))

    def _reveal_flag(self, side: int, ply: int | None = None) -> None:
        """Announce ``side``'s flag post (its Field Marshal is gone); the other side now knows
        that post holds the flag, no other post does, and no piece of ``side`` is the marshal.
        ``ply``: index in ``history`` of the ply that removed the marshal (None before play)."""
        flag_post = next(
            (p for p in range(NUM_POSTS) if self.owner[p] == side and self.kind[p] == FLAG), None
        )
        observer_masks = self.possible[1 - side]
        for post in range(NUM_POSTS):
            if observer_masks[post]:
                observer_masks[post] &= ~((1 << FLAG) | (1 << MARSHAL))
        if flag_post is not None:
            self.flag_revealed[side] = flag_post
            self.flag_revealed_ply[side] = ply
            observer_masks[flag_post] = 1 << FLAG

    def _start_turn(self, previous_mover: int, flag_taken: bool) -> None:
        """Settle the end-of-game rules in CCGC order. The legal moves are generated when first
        asked for (``legal_actions``): this only checks that one exists, and a search never asks
        for them in the last state it reaches."""
        self._legal = []
        if flag_taken:
            self._end(previous_mover, FLAG_CAPTURED)
            return
        moves = self._moves
        if not moves.has_legal_move(self.owner, self.kind, self.current_player):
            if moves.has_legal_move(self.owner, self.kind, previous_mover):
                self._end(previous_mover, NO_LEGAL_MOVE)
            else:
                self._end(None, NO_LEGAL_MOVE_BOTH)
            return
        rules = self.rules
        limit = rules.no_collision_limit
        if limit is not None and self.quiet_plies >= limit:
            loser_moves_next = rules.no_collision_result == "side_to_move_loses"
            self._end(1 - self.current_player if loser_moves_next else None, NO_COLLISION_LIMIT)
            return
        if rules.total_ply_limit is not None and self.ply >= rules.total_ply_limit:
            self._end(None, TOTAL_PLY_LIMIT)
            return
        if self.ply >= rules.ply_cap:
            self._end(None, PLY_CAP)
            return
        self._legal = None

    def _end(self, winner: int | None, reason: str) -> None:
        self.winner = winner
        self.end_reason = reason
        self._legal = []

    def _kinds_of(self, player: int) -> list[int]:
        return [self.kind[p] for p in range(NUM_POSTS) if self.owner[p] == player]


_new_tuple = tuple.__new__

# Keyed by combat table, which depends on three two-way rule options: at most 8 entries each.
_BEATS_CACHE: dict[tuple, list[int]] = {}
_STOPS_CACHE: dict[tuple, list[int]] = {}


def _beats_mask(combat: tuple, defender: int) -> int:
    """Types that win when attacking ``defender``."""
    masks = _BEATS_CACHE.get(combat)
    if masks is None:
        masks = _BEATS_CACHE[combat] = [
            sum(1 << a for a in range(NUM_PIECE_TYPES) if combat[a][d] == ATTACKER_WON)
            for d in range(NUM_PIECE_TYPES)
        ]
    return masks[defender]


def _stops_mask(combat: tuple, attacker: int) -> int:
    """Defender types against which ``attacker`` loses and the defender stays."""
    masks = _STOPS_CACHE.get(combat)
    if masks is None:
        masks = _STOPS_CACHE[combat] = [
            sum(1 << d for d in range(NUM_PIECE_TYPES) if combat[a][d] == ATTACKER_LOST)
            for a in range(NUM_PIECE_TYPES)
        ]
    return masks[attacker]


def _layout_pair(layouts) -> tuple[Layout, Layout]:
    if isinstance(layouts, Mapping):
        keys = set(layouts)
        for names in ((0, 1), ("player_0", "player_1")):
            if keys == set(names):
                return tuple(  # type: ignore[return-value]
                    coerce_layout(layouts[key], f"layout of player {i}")
                    for i, key in enumerate(names)
                )
        raise ValueError(
            "layouts dict needs keys 0 and 1 or 'player_0' and 'player_1', "
            f"got {sorted(keys, key=str)}"
        )
    if isinstance(layouts, (list, tuple)) and len(layouts) == 2:
        return (
            coerce_layout(layouts[0], "layout of player 0"),
            coerce_layout(layouts[1], "layout of player 1"),
        )
    raise ValueError("layouts must be a pair (player 0, player 1) or a dict keyed by player")


@dataclass(frozen=True, eq=True)
class JunqiView:
    player: int
    current_player: int
    phase: str
    rules: JunqiRules
    ply: int
    quiet_plies: int  # plies since the last collision
    winner: int | None
    end_reason: str | None
    owner: tuple[int, ...]  # -1 empty, 0 / 1 the player owning the piece on each post
    kind: tuple[int, ...]  # own piece types; NO_PIECE on empty posts and opponent pieces
    moved: tuple[bool, ...]  # the piece on the post has moved at least once (public)
    possible: tuple[int, ...]  # type bitmask of each opponent piece as far as we can tell
    flag_revealed: tuple[int | None, int | None]  # announced flag post per side
    history: tuple[PlyRecord, ...]
    placed: tuple[int, ...]  # own piece types deployed so far (deployment phase)
    # Index in ``history`` of the ply that announced each side's flag (its marshal's removal).
    flag_revealed_ply: tuple[int | None, int | None] = (None, None)

    @classmethod
    def of_state(cls, state: JunqiState, player: int) -> JunqiView:
        if player not in (0, 1) or isinstance(player, bool):
            raise ValueError(f"player must be 0 or 1, got {short_repr(player)}")
        owner = state.owner
        if state.phase == DEPLOY:
            # The opponent's posts fill in a fixed public order; show nothing of them.
            owner = [p if p == player else EMPTY for p in owner]
        return cls(
            player=player,
            current_player=state.current_player,
            phase=state.phase,
            rules=state.rules,
            ply=state.ply,
            quiet_plies=state.quiet_plies,
            winner=state.winner,
            end_reason=state.end_reason,
            owner=tuple(owner),
            kind=tuple([k if o == player else NO_PIECE for o, k in zip(owner, state.kind)]),  # noqa: B905
            moved=tuple(state.moved),
            possible=tuple(state.possible[player]),
            flag_revealed=tuple(state.flag_revealed),  # type: ignore[arg-type]
            history=tuple(state.history),
            placed=tuple(state._placed[player]),
            flag_revealed_ply=tuple(state.flag_revealed_ply),  # type: ignore[arg-type]
        )

    def __getstate__(self) -> dict:
        # The determinization template is a cache: pickles and copies leave it behind.
        return {k: v for k, v in self.__dict__.items() if k != "_determinize_template"}

    # ------------------------------------------------------------------ agent interface
    def is_terminal(self) -> bool:
        return self.end_reason is not None

    def returns(self) -> list[float]:
        return returns_for(self.winner)

    def legal_actions(self) -> list[int]:
        """The player's legal actions; empty when the game is over or it is not its turn
        (the opponent's moves depend on types this player cannot see)."""
        if self.end_reason is not None or self.current_player != self.player:
            return []
        if self.phase == DEPLOY:
            return [DEPLOY_ACTION_BASE + kind for kind in deployment_choices(self.placed)]
        moves, _ = move_tables(self.rules)
        return moves.legal_moves(list(self.owner), list(self.kind), self.player)

    def legal_action_mask(self) -> np.ndarray:
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        mask[self.legal_actions()] = 1
        return mask

    encode_action = staticmethod(encode_action)
    decode_action = staticmethod(decode_action)

    @property
    def opponent(self) -> int:
        return 1 - self.player

    def opponent_posts(self) -> list[int]:
        return [post for post in range(NUM_POSTS) if self.owner[post] == self.opponent]

    def next_deploy_post(self) -> int | None:
        """Absolute post the player fills next in the deployment phase."""
        if self.phase != DEPLOY or len(self.placed) >= len(DEPLOY_CELLS):
            return None
        return cell_to_post(DEPLOY_CELLS[len(self.placed)], self.player)

    # ------------------------------------------------------------------ determinization
    def determinize(self, opponent_kinds: dict[int, int]) -> JunqiState:
        """A full state with the given types on the opponent's pieces, for search. The
        opponent's own deductions about our pieces are not known to us; the returned state
        lets it suspect any type (any mobile type for pieces that have moved)."""
        if self.phase != PLAY:
            raise ValueError("determinize works in the play phase only")
        template = self.__dict__.get("_determinize_template") or self._determinize_template()
        posts, post_set, prototype = template
        if (len(opponent_kinds) != len(posts) or not post_set.issuperset(opponent_kinds)) and (
            sorted(opponent_kinds) != posts
        ):
            raise ValueError(f"opponent_kinds must give a type for exactly the posts {posts}")
        state = prototype.clone()
        kind = state.kind
        for post, piece in opponent_kinds.items():
            kind[post] = piece
        return state

    def _determinize_template(self) -> tuple:
        """The opponent's posts (a list and a set) and the determinized state without the
        opponent's types, which every ``determinize`` clones: built once per view (a view is
        frozen) and kept in its ``__dict__``, outside the dataclass fields."""
        posts = self.opponent_posts()
        state = JunqiState(self.rules)
        state.owner = list(self.owner)
        state.kind = list(self.kind)
        state.moved = list(self.moved)
        state.possible[self.player] = list(self.possible)
        state.possible[self.opponent] = [
            (MOBILE_MASK if self.moved[p] else ALL_TYPES_MASK) if self.owner[p] == self.player
            else 0
            for p in range(NUM_POSTS)
        ]  # fmt: skip
        state.flag_revealed = list(self.flag_revealed)
        state.flag_revealed_ply = list(self.flag_revealed_ply)
        state.history = list(self.history)
        state.current_player = self.current_player
        state.ply = self.ply
        state.quiet_plies = self.quiet_plies
        state.phase = PLAY
        if self.end_reason is not None:
            state._end(self.winner, self.end_reason)
        else:
            # Our own moves read only our own types (the view's); the opponent's depend on
            # the types drawn and wait until asked for.
            state._legal = self.legal_actions() if self.current_player == self.player else None
        template = (posts, frozenset(posts), state)
        object.__setattr__(self, "_determinize_template", template)
        return template

    def sample_determinization(self, rng=None) -> JunqiState:
        """``determinize`` with opponent types drawn at random among those the player cannot
        rule out (own deductions and army counts; removed pieces' types are left open)."""
        rand = rng if isinstance(rng, random.Random) else random.Random(rng)
        posts = sorted(self.opponent_posts(), key=lambda p: bin(self.possible[p]).count("1"))
        remaining = list(ARMY_COUNTS)
        chosen: dict[int, int] = {}

        def assign(index: int) -> bool:
            if index == len(posts):
                return True
            post = posts[index]
            options = [
                k for k in range(NUM_PIECE_TYPES) if self.possible[post] >> k & 1 and remaining[k]
            ]
            rand.shuffle(options)
            for kind in options:
                remaining[kind] -= 1
                chosen[post] = kind
                if assign(index + 1):
                    return True
                remaining[kind] += 1
            return False

        if not assign(0):
            raise ValueError("no assignment of opponent types fits this view's deductions")
        return self.determinize(chosen)

    def render_text(self) -> str:
        return render_ansi(self)
