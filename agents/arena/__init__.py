"""Play agents against each other on game cores and measure their strength.

Games run on the game core (``state.view(player)`` -> ``agent.act`` -> ``state.apply``), the same
forward model the environments wrap, so a match between two search agents pays no env overhead.

Two layers:

- ``play_game`` / ``run_match``: a seat-swapped match between two agent objects, in process:
  the games (and the records, ``ArenaGame``) a round robin of the two plays with the same seeds.
- ``run_round_robin``: every pair of agents given as spec strings (``agents.registry``), in
  *paired* games (for each game seed both seat assignments start from the same position: the
  same two Junqi layouts, or TBW's deterministic scenario), played in parallel processes. Every
  seed depends on the game alone (base seed, pairing, game, seat), so the worker count never
  changes a result. It reports wins/draws/losses by seat with Wilson intervals per pairing,
  Bradley-Terry ratings on the Elo scale with bootstrap intervals, how games ended, and time per
  move, and it writes every game as a replayable record (``agents.arena.replay``,
  ``scripts/replay.py``).

The modules, one job each: ``checks`` (argument checks and caps), ``stats`` (the statistics,
small pure functions testable against hand-checkable cases), ``players`` (the entrants),
``scheduling`` (seeds and tasks), ``openings``, ``play`` (the game loop), ``match``,
``runners`` (process pool, Ray), ``main_guard`` (a script that starts a round robin
at its top level), ``roundrobin``, ``journal`` (each game as it finishes, to resume an
interrupted run), ``records`` and ``digests`` (``games.jsonl``),
``results`` (plain data) with ``tables``, ``results_json``, ``files`` and ``plot`` (its
tables, JSON summary, run folder and chart: ``result_tables(result)``,
``write_result(result, out_dir)``, ...), ``record_shape`` and
``replay`` (verifying records), ``gif``, ``budget_curve`` (rating against search budget, read
back from a run's ``results.json``). The names below are the package's public ones, as
before it was split.
"""

from agents.arena.checks import (
    MAX_BOOTSTRAP,
    MAX_GAMES,
    MAX_WORKERS,
    OPENING_FRACTION,
    OUTPUT_FILES,
    ArenaInputError,
    ArenaTypeError,
    check_flag,
    check_game,
    check_int,
    check_opening_plies,
    check_out_dir,
    check_ray_address,
    check_specs,
    check_total_games,
    check_variant,
    default_variant,
    even_games,
    longest_game_plies,
    max_opening_plies,
)
from agents.arena.digests import (
    DIGEST_SCHEME,
    PLY_DIGEST_HEX,
    DigestChain,
    game_context,
    ply_digest_list,
    record_digest,
)
from agents.arena.files import write_result
from agents.arena.match import MatchResult, run_match
from agents.arena.openings import random_opening
from agents.arena.play import (
    GameSetup,
    game_factory,
    junqi_game,
    play_game,
    play_seated,
    play_task,
    tbw_game,
    warm_up,
)
from agents.arena.players import (
    build_agent,
    build_entrants,
    entrant_label,
    entrant_spec,
    entrants,
    unique_labels,
)
from agents.arena.plot import plot_round_robin
from agents.arena.records import (
    RECORD_FORMAT,
    RECORD_FORMATS,
    ArenaGame,
    end_reason,
    record_start_state,
    replay_record,
)
from agents.arena.results import PairingStats, Rating, RoundRobinResult
from agents.arena.results_json import result_json
from agents.arena.roundrobin import check_round_robin, run_round_robin
from agents.arena.runners import RAY_MISSING, connect_ray, import_ray, ray_play_task
from agents.arena.scheduling import (
    GameTask,
    agent_seed,
    iter_tasks,
    match_tasks,
    pair_seed,
    schedule,
)
from agents.arena.stats import (
    ELO_ANCHOR,
    ELO_PER_NAT,
    PRIOR_GAMES,
    Z_95,
    bradley_terry,
    elo_ratings,
    wilson_interval,
)
from agents.arena.tables import format_table, result_tables, result_title
from tbw_envs.core.canonical import canonical_json
from tbw_envs.core.contract import MAX_SEED
from tbw_envs.core.seeding import derive_seed
from tbw_envs.junqi.env.game import layout_seed

__all__ = [
    "DIGEST_SCHEME", "ELO_ANCHOR", "ELO_PER_NAT", "MAX_BOOTSTRAP", "MAX_GAMES",
    "MAX_SEED", "MAX_WORKERS", "OPENING_FRACTION", "OUTPUT_FILES", "PLY_DIGEST_HEX",
    "PRIOR_GAMES", "RAY_MISSING", "RECORD_FORMAT", "RECORD_FORMATS", "Z_95", "ArenaGame",
    "ArenaInputError", "ArenaTypeError", "DigestChain", "GameSetup", "GameTask", "MatchResult",
    "PairingStats", "Rating", "RoundRobinResult", "agent_seed", "bradley_terry", "build_agent",
    "build_entrants", "canonical_json", "check_flag", "check_game", "check_int",
    "check_opening_plies", "check_out_dir", "check_ray_address", "check_round_robin",
    "check_specs", "check_total_games", "check_variant", "connect_ray", "default_variant",
    "derive_seed", "elo_ratings", "end_reason", "entrant_label", "entrant_spec", "entrants",
    "even_games", "format_table", "game_context", "game_factory", "import_ray", "iter_tasks",
    "junqi_game", "layout_seed", "longest_game_plies", "match_tasks", "max_opening_plies",
    "pair_seed", "play_game", "play_seated", "play_task", "plot_round_robin", "ply_digest_list",
    "random_opening", "ray_play_task", "record_digest", "record_start_state", "replay_record",
    "result_json", "result_tables", "result_title", "run_match", "run_round_robin", "schedule",
    "tbw_game", "unique_labels", "warm_up", "wilson_interval", "write_result",
]
