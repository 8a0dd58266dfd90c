"""What one player may know: the information boundary between the referee and an agent.

A view holds the player's own pieces, the opponent's piece positions (never their types), the
public ply history, the revealed flags, and the player's deductions about each opponent piece
(``possible`` type masks, derived from the public history and the player's own types only).
It is a standalone copy: it holds no reference to the true state.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np

from tbw_envs.contract import short_repr
from tbw_envs.junqi.board import NUM_POSTS
from tbw_envs.junqi.layout import DEPLOY_CELLS, cell_to_post, deployment_choices
from tbw_envs.junqi.moves import EMPTY
from tbw_envs.junqi.pieces import (
    ALL_TYPES_MASK,
    ARMY_COUNTS,
    MOBILE_MASK,
    NO_PIECE,
    NUM_PIECE_TYPES,
)
from tbw_envs.junqi.rules import JunqiRules
from tbw_envs.junqi.state import (
    DEPLOY,
    DEPLOY_ACTION_BASE,
    NUM_ACTIONS,
    PLAY,
    JunqiState,
    PlyRecord,
    _tables,
    decode_action,
    encode_action,
    returns_for,
)


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
        moves, _ = _tables(self.rules)
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
        posts = self.opponent_posts()
        if sorted(opponent_kinds) != posts:
            raise ValueError(f"opponent_kinds must give a type for exactly the posts {posts}")
        state = JunqiState(self.rules)
        state.owner = list(self.owner)
        state.kind = list(self.kind)
        for post, kind in opponent_kinds.items():
            state.kind[post] = kind
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
            state._legal = state._moves.legal_moves(state.owner, state.kind, state.current_player)
        return state

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
        from tbw_envs.junqi.render import render_ansi

        return render_ansi(self)
