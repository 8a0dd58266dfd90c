"""The plain first versions of the Junqi state's hot paths, kept as the specification the fast
paths in ``tbw_envs.junqi.state`` are tested against (``tests/tbw_envs/junqi/test_fast_paths.py``):
``apply_move_reference`` plays a ply with the reference move generator and builds the legal-move
list at once, ``determinize_reference`` builds a determinization field by field through the
constructor. Written as functions over a state or view (the module's line budget keeps them out
of ``state.py``); they read its private fields on purpose."""

from __future__ import annotations

from agents.junqi.eval_config import EvalConfig
from agents.junqi.evaluation import _ENEMY_HEADQUARTERS, board_distances
from tbw_envs.junqi.actions import (
    FLAG_CAPTURED,
    NO_COLLISION_LIMIT,
    NO_LEGAL_MOVE,
    NO_LEGAL_MOVE_BOTH,
    PLAY,
    PLY_CAP,
    TOTAL_PLY_LIMIT,
    PlyRecord,
)
from tbw_envs.junqi.board import NUM_POSTS, board_graph
from tbw_envs.junqi.pieces import (
    ALL_TYPES_MASK,
    ATTACKER_LOST,
    ATTACKER_WON,
    ENGINEER,
    FLAG,
    MARSHAL,
    MINE,
    MOBILE_MASK,
    MOVED,
    NO_PIECE,
)
from tbw_envs.junqi.rules import EMPTY
from tbw_envs.junqi.state import JunqiState, _beats_mask, _stops_mask


def apply_move_reference(state, action: int) -> int:
    """``JunqiState._apply_move`` as first written, with the reference move generation and an
    eager legal-move list (``start_turn_reference``)."""
    owner, kind = state.owner, state.kind
    mover = state.current_player
    opponent = 1 - mover
    from_post, to_post = divmod(action, NUM_POSTS)
    attacker = kind[from_post]
    defender = kind[to_post]
    engineer_only = attacker == ENGINEER and not state._moves.non_engineer_can_reach_reference(
        owner, from_post, to_post
    )
    # What the mover's opponent knows of the moving piece, before it leaves its post.
    seen_attacker = state.possible[opponent][from_post] & MOBILE_MASK
    if engineer_only:
        seen_attacker &= 1 << ENGINEER
    state.possible[opponent][from_post] = 0
    state.moved[from_post] = False
    owner[from_post] = EMPTY
    kind[from_post] = NO_PIECE

    if defender == NO_PIECE:
        result = MOVED
        owner[to_post] = mover
        kind[to_post] = attacker
        state.moved[to_post] = True
        state.possible[opponent][to_post] = seen_attacker
    else:
        result = state._combat[attacker][defender]
        combat = state._combat
        if result == ATTACKER_WON:
            owner[to_post] = mover
            kind[to_post] = attacker
            state.moved[to_post] = True
            # The opponent knows its own defender, so it learns which types beat it.
            state.possible[opponent][to_post] = seen_attacker & _beats_mask(combat, defender)
            state.possible[mover][to_post] = 0
        elif result == ATTACKER_LOST:
            # The mover knows its attacker, so it learns which types stop it.
            state.possible[mover][to_post] &= _stops_mask(combat, attacker)
        else:
            owner[to_post] = EMPTY
            kind[to_post] = NO_PIECE
            state.moved[to_post] = False
            state.possible[mover][to_post] = 0
        if state.rules.flag_revealed_on_marshal_death:
            if attacker == MARSHAL and result != ATTACKER_WON:
                state._marshal_removed(mover)
            if defender == MARSHAL and result != ATTACKER_LOST:
                state._marshal_removed(opponent)

    state.history.append(PlyRecord(mover, from_post, to_post, result, engineer_only))
    state.ply += 1
    state.quiet_plies = state.quiet_plies + 1 if result == MOVED else 0
    state.current_player = opponent
    flag_taken = defender == FLAG and result != ATTACKER_LOST
    start_turn_reference(state, previous_mover=mover, flag_taken=flag_taken)
    return result


def start_turn_reference(state, previous_mover: int, flag_taken: bool) -> None:
    """``JunqiState._start_turn`` as first written: the legal moves generated at once, by the
    reference generator."""
    state._legal = []
    rules = state.rules
    if flag_taken:
        state._end(previous_mover, FLAG_CAPTURED)
        return
    legal = state._moves.legal_moves_reference(state.owner, state.kind, state.current_player)
    if not legal:
        if state._moves.legal_moves_reference(state.owner, state.kind, previous_mover):
            state._end(previous_mover, NO_LEGAL_MOVE)
        else:
            state._end(None, NO_LEGAL_MOVE_BOTH)
        return
    if rules.no_collision_limit is not None and state.quiet_plies >= rules.no_collision_limit:
        loser_moves_next = rules.no_collision_result == "side_to_move_loses"
        state._end(1 - state.current_player if loser_moves_next else None, NO_COLLISION_LIMIT)
        return
    if rules.total_ply_limit is not None and state.ply >= rules.total_ply_limit:
        state._end(None, TOTAL_PLY_LIMIT)
        return
    if state.ply >= rules.ply_cap:
        state._end(None, PLY_CAP)
        return
    state._legal = legal


def determinize_reference(view, opponent_kinds: dict[int, int]) -> JunqiState:
    """``JunqiView.determinize`` as first written: a new state through the constructor, filled
    field by field, its legal moves generated at once by the reference generator."""
    if view.phase != PLAY:
        raise ValueError("determinize works in the play phase only")
    posts = view.opponent_posts()
    if sorted(opponent_kinds) != posts:
        raise ValueError(f"opponent_kinds must give a type for exactly the posts {posts}")
    state = JunqiState(view.rules)
    state.owner = list(view.owner)
    state.kind = list(view.kind)
    for post, kind in opponent_kinds.items():
        state.kind[post] = kind
    state.moved = list(view.moved)
    state.possible[view.player] = list(view.possible)
    state.possible[view.opponent] = [
        (MOBILE_MASK if view.moved[p] else ALL_TYPES_MASK) if view.owner[p] == view.player
        else 0
        for p in range(NUM_POSTS)
    ]  # fmt: skip
    state.flag_revealed = list(view.flag_revealed)
    state.flag_revealed_ply = list(view.flag_revealed_ply)
    state.history = list(view.history)
    state.current_player = view.current_player
    state.ply = view.ply
    state.quiet_plies = view.quiet_plies
    state.phase = PLAY
    if view.end_reason is not None:
        state._end(view.winner, view.end_reason)
    else:
        state._legal = state._moves.legal_moves_reference(state.owner, state.kind,
                                                          state.current_player)
    return state


class ReferenceMoveContext:
    """``MoveContext`` written plainly, one feature at a time: the specification the fast
    context is tested against (features equal to the last bit, the same flag alarm)."""

    __slots__ = (
        "config", "mover", "owner", "kind", "quiet_plies", "rules", "gain", "loss", "pwin",
        "_locked", "_flag_alarm", "_targets", "_weights",
    )  # fmt: skip

    def __init__(self, config: EvalConfig, rules, mover: int, owner, kind, quiet_plies: int,
                 gain, loss, pwin, flag_revealed):
        self.config = config
        self.rules = rules
        self.mover = mover
        self.owner = owner
        self.kind = kind
        self.quiet_plies = quiet_plies
        self.gain, self.loss, self.pwin = gain, loss, pwin
        self._weights = config.weights
        graph = board_graph()
        self._locked = graph.is_headquarters if rules.headquarters_lock else (False,) * NUM_POSTS
        enemy_flag = flag_revealed[1 - mover]
        self._targets = (enemy_flag,) if enemy_flag is not None else _ENEMY_HEADQUARTERS[mover]
        self._flag_alarm = self._find_flag_alarm()

    # -- building blocks
    def strikers(self, post: int, vacated: int = -1) -> list[int]:
        """Enemy posts whose piece could move onto ``post`` next ply (``vacated`` counts as
        empty: the piece that moves there leaves it)."""
        graph = board_graph()
        if graph.is_camp[post]:
            return []
        owner, enemy, locked = self.owner, 1 - self.mover, self._locked
        found = [n for n in graph.road_only_neighbors[post] if owner[n] == enemy and not locked[n]]
        for ray in graph.rail_rays[post]:
            for there in ray:
                holder = owner[there]
                if holder == EMPTY or there == vacated:
                    continue
                if holder == enemy and not locked[there]:
                    found.append(there)
                break
        return found

    def expected_loss(self, piece: int, post: int, vacated: int = -1) -> float:
        loss = self.loss
        return max((loss[e][piece] for e in self.strikers(post, vacated)), default=0.0)

    def _find_flag_alarm(self):
        """Algorithm 2: (enemy post, urgency, {our post: P(win) for pieces that can hit it},
        best defender post, its P(win)) or None."""
        steps_limit = self.config.flag_alarm_steps
        owner, kind, mover = self.owner, self.kind, self.mover
        flags = [p for p in range(NUM_POSTS) if owner[p] == mover and kind[p] == FLAG]
        if not flags or steps_limit <= 0:
            return None
        dist = board_distances()[flags[0]]
        enemy = 1 - mover
        # Enemy pieces this deep in our half have moved there, so all of them are mobile.
        nearest = None
        for post in range(NUM_POSTS):
            if (
                owner[post] == enemy
                and dist[post] <= steps_limit
                and not self._locked[post]
                and (nearest is None or dist[post] < nearest[0])
            ):
                nearest = (dist[post], post)
        if nearest is None:
            return None
        threat = nearest[1]
        urgency = (steps_limit + 1 - dist[threat]) / steps_limit
        defenders = [
            p for p in range(NUM_POSTS)
            if owner[p] == mover and kind[p] != FLAG and kind[p] != MINE and not self._locked[p]
        ]  # fmt: skip
        if not defenders:
            return None
        to_threat = board_distances()[threat]
        best = max(defenders, key=lambda p: (self.pwin[threat][kind[p]], -to_threat[p]))
        return threat, urgency, best, self.pwin[threat][kind[best]]

    @property
    def flag_alarm_urgency(self) -> float:
        """Algorithm 2's urgency in this position (0 without an alarm): a property of the
        position, the same for every move."""
        return 0.0 if self._flag_alarm is None else self._flag_alarm[1]

    # -- features
    def features(self, action: int) -> list[float]:
        src, dst = divmod(action, NUM_POSTS)
        owner, mover = self.owner, self.mover
        piece = self.kind[src]
        values = self.config.piece_values
        attack = owner[dst] == 1 - mover
        if attack:
            attack_gain = self.gain[dst][piece]
            survive = self.pwin[dst][piece]
        else:
            attack_gain = 0.0
            survive = 1.0
        exposure = survive * self.expected_loss(piece, dst, vacated=src) if survive else 0.0
        protection = 0.0
        if values[piece] >= self.config.protect_min_value:
            protection = self.expected_loss(piece, src) - exposure
        flag_defence = 0.0
        alarm = self._flag_alarm
        if alarm is not None:
            threat, urgency, best, best_pwin = alarm
            if dst == threat:
                flag_defence = urgency * self.pwin[threat][piece]
            elif src == best:
                to_threat = board_distances()[threat]
                if to_threat[dst] < to_threat[src]:
                    flag_defence = 0.5 * urgency * best_pwin
        distances = board_distances()
        progress = float(
            min(distances[src][t] for t in self._targets)
            - min(distances[dst][t] for t in self._targets)
        )
        return [
            attack_gain, exposure, protection, flag_defence, progress,
            self._no_collision(attack),
        ]  # fmt: skip

    def _no_collision(self, attack: bool) -> float:
        rules = self.rules
        limit = rules.no_collision_limit
        if limit is None or rules.no_collision_result != "side_to_move_loses":
            return 0.0
        quiet = self.quiet_plies
        if not attack and quiet + 1 >= limit:
            return 1.0
        window = self.config.no_collision_window
        # 1 on the last ply on which we can still collide before the opponent plays the limit.
        urgency = min(1.0, max(0.0, (quiet + 1 - (limit - 1 - window)) / window))
        if urgency == 0.0:
            return 0.0
        burden_is_ours = (limit - quiet) % 2 == 0
        if attack:
            return urgency if burden_is_ours else -urgency
        return -urgency if burden_is_ours else 0.0

    def weighted(self, features) -> float:
        """``weights . features`` for a feature list from ``features``."""
        return sum(w * f for w, f in zip(self._weights, features, strict=True))

    def score(self, action: int) -> float:
        return self.weighted(self.features(action))

    def scores(self, actions) -> list[float]:
        return [self.weighted(self.features(a)) for a in actions]
