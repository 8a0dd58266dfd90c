"""A scripted TBW baseline: attack the weakest enemy in reach, else advance on the nearest one.

Each call returns one unit action: the best attack over all ready units if any exists (lowest
enemy Hp first, kills preferred, then the strongest attacker), otherwise the move that brings a
unit closest to attacking distance of its nearest enemy. Ties are broken at random (seeded).
"""

from __future__ import annotations

import random

from agents.common.params import SEED, check_seed
from tbw_envs.tbw import END_TURN


class GreedyAgent:
    name = "greedy"
    game = "tbw"  # an env of another game refuses it as an opponent when it is built
    PARAMS = {"seed": SEED}

    def __init__(self, seed: int | None = None):
        self._rng = random.Random(check_seed(seed, "GreedyAgent"))

    def reset(self, seed: int | None = None) -> None:
        seed = check_seed(seed, "GreedyAgent.reset")
        if seed is not None:
            self._rng.seed(seed)

    def act(self, view) -> int:
        sc = view.scenario
        board = sc.board
        hp = view.hp
        enemies = [e for e in sc.side_units[1 - view.current_player] if hp[e] > 0]
        best_attack, best_attack_key = [], None
        best_move, best_move_key = [], None
        for action in view.legal_actions():
            decoded = view.decode_action(action)
            if decoded == END_TURN:
                continue
            uid, dest, target = decoded
            utype = sc.units[uid].type
            if target is not None:
                kills = hp[target] <= utype.atk
                key = (hp[target], not kills, -utype.atk)
                if best_attack_key is None or key < best_attack_key:
                    best_attack, best_attack_key = [action], key
                elif key == best_attack_key:
                    best_attack.append(action)
            elif enemies and not best_attack:
                tile = board.tile(*dest)
                gap = min(
                    max(board.distance(tile, view.pos[e]) - utype.range_max,
                        utype.range_min - board.distance(tile, view.pos[e]), 0)
                    for e in enemies
                )
                key = (gap, -board.distance(tile, view.pos[uid]))
                if best_move_key is None or key < best_move_key:
                    best_move, best_move_key = [action], key
                elif key == best_move_key:
                    best_move.append(action)
        choices = best_attack or best_move
        if not choices:
            return view.end_turn_action
        return choices[self._rng.randrange(len(choices))]
