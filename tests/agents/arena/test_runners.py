"""Where the round robin's games are played (``agents.arena.runners``): the Ray path checks its
address before anything runs, gives the local run's games, and names a game that fails on a
worker. Everything that needs Ray is skipped when it is not installed."""

from __future__ import annotations

import sys

import pytest

from agents.arena import check_ray_address, run_round_robin
from tests.helpers.ray_marks import needs_ray

# ---------------------------------------------------------------------- without Ray


@pytest.mark.parametrize("address", ["local", "auto", "ray://head:10001", "10.0.0.5:6379"])
def test_ray_addresses_accepted(address):
    assert check_ray_address(address) == address


@pytest.mark.parametrize("address", ["", "ray://", "head", ":6379", "head:port", None, 6379,
                                     "Local"])
def test_bad_ray_addresses_are_named(address):
    with pytest.raises(ValueError, match="Ray address must be"):
        check_ray_address(address)


def test_round_robin_checks_the_ray_address_before_anything_runs():
    with pytest.raises(ValueError, match="Ray address must be"):
        run_round_robin("tbw", ["random"], games_per_pairing=2, ray_address="cluster")


def test_worker_processes_play_a_game_registered_only_in_the_runs_process(registered_minigame):
    """A spawned worker never saw this process's ``register`` call: it registers the
    description its tasks carry, and plays the same games as this process."""
    game = registered_minigame.name
    here = run_round_robin(game, ["random", "random"], 4, seed=3, workers=1, bootstrap=0)
    in_workers = run_round_robin(game, ["random", "random"], 4, seed=3, workers=2,
                                 bootstrap=0)
    assert [g.outcome() for g in in_workers.games] == [g.outcome() for g in here.games]
    assert {g.game for g in in_workers.games} == {game}


def test_a_description_that_does_not_pickle_is_refused_before_workers_start(
        registered_minigame, monkeypatch, no_games):
    monkeypatch.setattr(registered_minigame, "unpicklable", lambda: None, raising=False)
    with pytest.raises(ValueError, match=f"game {registered_minigame.name}: its description "
                                         r".* must be picklable to play in worker processes"):
        run_round_robin(registered_minigame.name, ["random"], 4, workers=2)


# ---------------------------------------------------------------------- the arena on Ray


@needs_ray
@pytest.mark.parametrize("game, specs", [("tbw", ["random", "greedy"]),
                                         ("junqi", ["random", "random"])])
def test_round_robin_on_ray_equals_the_local_run(game, specs, ray_session):
    local = run_round_robin(game, specs, games_per_pairing=4, seed=11, workers=1)
    on_ray = run_round_robin(game, specs, games_per_pairing=4, seed=11, ray_address="local",
                             workers=2)
    assert [g.outcome() for g in on_ray.games] == [g.outcome() for g in local.games]
    assert len(on_ray.games) == 4 and on_ray.workers == 2
    assert ray_session.is_initialized()  # a running Ray is reused, never shut down


@needs_ray
def test_round_robin_on_ray_names_the_failing_game(ray_session):
    # The factory lives in this test module, which Ray's workers cannot import: ship it.
    ray_session.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    with pytest.raises(Exception, match=r"raised RuntimeError: boom on ply \d+ of tbw game \d+ "):
        run_round_robin("tbw", [_exploding_agent, "random"], games_per_pairing=2,
                        ray_address="local")


class _Exploding:
    name = "exploding"

    def reset(self, seed):
        pass

    def act(self, view):
        raise RuntimeError("boom")


def _exploding_agent(seed):
    return _Exploding()
