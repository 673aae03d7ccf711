"""TwoPlayerGame: two engine processes over real sockets, joined, lock-stepped, restarted, crashed, replayed."""

from __future__ import annotations

import dataclasses
import os
import signal
import socket

import pytest
from s2clientprotocol import raw_pb2
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env import errors
from sc2env.game import MatchConfig
from sc2env.game.match import MatchState
from sc2env.game.two_player import GameState, TwoPlayerGame, seat_configs
from sc2env.launch import LaunchConfig

SELF, ENEMY = 1, 4
ATTACK = 23


def options() -> sc_pb.InterfaceOptions:
    opts = sc_pb.InterfaceOptions(raw=True, score=True)
    layer = opts.feature_layer
    layer.width = 24
    layer.resolution.x = layer.resolution.y = 16
    layer.minimap_resolution.x = layer.minimap_resolution.y = 16
    return opts


def config(map_name: str = "DuelMarines", **changes) -> MatchConfig:
    base = dict(
        map_name=map_name,
        interface_options=options(),
        launch=LaunchConfig(engine="builtin"),
        step_mul=16,
        request_timeout_s=30.0,
    )
    return MatchConfig(**(base | changes))


@pytest.fixture
def game():
    made = TwoPlayerGame(*seat_configs(config()))
    yield made
    made.close()


def own(observation: sc_pb.ResponseObservation, alliance: int = SELF) -> list:
    return [u for u in observation.observation.raw_data.units if u.alliance == alliance]


def attack(observation: sc_pb.ResponseObservation, x: float, y: float) -> list[sc_pb.Action]:
    command = raw_pb2.ActionRawUnitCommand(ability_id=ATTACK, unit_tags=[u.tag for u in own(observation)])
    command.target_world_space_pos.x, command.target_world_space_pos.y = x, y
    return [sc_pb.Action(action_raw=raw_pb2.ActionRaw(unit_command=command))]


def test_both_seats_join_one_game_each_in_its_own_slot_and_process(game):
    first, second = game.reset(seed=4)
    assert (game.host.player_id, game.guest.player_id) == (1, 2)
    assert game.host.process is not None and game.guest.process is not None
    assert game.host.process.pid != game.guest.process.pid
    assert first.observation.player_common.player_id == 1
    assert second.observation.player_common.player_id == 2
    assert {u.owner for u in own(first)} == {1} and {u.owner for u in own(second)} == {2}
    assert own(first, ENEMY) == [] and own(second, ENEMY) == []  # fog: the armies start out of sight


def test_steps_run_in_lock_step_and_a_fight_ends_for_both_with_mirrored_results(game):
    first, second = game.reset(seed=4)
    seen = (first, second)
    for _ in range(200):
        # Player 1 attacks across the map; player 2 only holds: player 1's whole army reaches it first.
        one, two = game.step(attack(seen[0], 50, 32), ())
        assert one.game_loop == two.game_loop  # neither runs ahead
        seen = (one.observation, two.observation)
        if one.terminated:
            break
    assert one.terminated and two.terminated
    assert one.outcome == -two.outcome != 0
    assert one.reward == one.outcome and two.reward == two.outcome  # the outcome, on two-player maps


def test_a_restart_and_a_new_seed_keep_both_game_processes(game):
    game.reset(seed=1)
    game.step()
    pids = [seat.process.pid for seat in game.seats]
    restarted = game.reset()
    assert [o.observation.game_loop for o in restarted] == [0, 0]
    recreated = game.reset(seed=2)
    assert [o.observation.game_loop for o in recreated] == [0, 0]
    assert [seat.process.pid for seat in game.seats] == pids
    assert game.step()[0].game_loop == 16


@pytest.mark.parametrize("killed", [1, 2])
def test_a_player_killed_mid_game_is_a_clear_error_and_the_next_reset_recovers(game, killed, marked_games):
    game.reset(seed=3)
    game.step()
    victim = game.seats[killed - 1].process
    os.kill(victim.pid, signal.SIGKILL)
    with pytest.raises(errors.GameCrashedError, match=f"player {killed}'s game was lost"):
        for _ in range(3):  # the kill is seen at the next request at the latest
            game.step()
    assert game.state is GameState.LOST
    assert all(seat.process is None for seat in game.seats)  # both stopped at once
    assert all(seat.state in (MatchState.LOST, MatchState.CLOSED) for seat in game.seats)
    assert str(killed) in game.lost_because
    with pytest.raises(errors.ProtocolError, match="reset"):
        game.host.begin_step()
    first, _ = game.reset()
    assert first.observation.game_loop == 0 and game.state is GameState.READY
    game.close()
    assert marked_games() == []


def test_the_replay_holds_both_players_and_is_seen_from_either_side(game):
    from sc2env.game.replay_match import ReplayConfig, ReplayMatch, replay_info

    first, second = game.reset(seed=5)
    for _ in range(4):
        game.step(attack(first, 40, 32), attack(second, 20, 32))
    data = game.save_replay()
    info = replay_info(data, LaunchConfig(engine="builtin"))
    assert [p.player_id for p in info.players] == [1, 2] and info.game_loops >= 64
    for player in (1, 2):
        replay = ReplayConfig(
            data, options(), LaunchConfig(engine="builtin"), step_mul=16, observed_player_id=player
        )
        with ReplayMatch(replay) as watched:
            observation = watched.start()
            assert observation.observation.player_common.player_id == player
            assert {u.owner for u in own(observation)} == {player}


def test_close_leaves_no_process_behind(marked_games):
    with TwoPlayerGame(*seat_configs(config())) as game:
        game.reset()
        assert len(marked_games()) >= 2
    assert marked_games() == []


def test_seat_configs_checks():
    host, guest = seat_configs(config("DuelZerglingsBanelings", race="zerg"))
    assert (host.race, guest.race) == ("zerg", "terran")  # each slot's own race
    with pytest.raises(ValueError, match="seat=2"):
        TwoPlayerGame(host, host)
    with pytest.raises(ValueError, match="player 2 Terran"):
        MatchConfig("DuelZerglingsBanelings", seat=2, race="zerg")
    with pytest.raises(ValueError, match="no bot"):
        from sc2env.game import Bot

        MatchConfig("DuelMarines", seat=1, bot=Bot())


def test_a_step_cut_short_on_one_side_is_not_reused(game):
    # Only the host's step was sent (a Ctrl-C before the guest's): it waits for a step that never comes.
    game.reset(seed=1)
    pids = [seat.process.pid for seat in game.seats]
    game.host.begin_step()
    first, second = game.reset()
    assert [o.observation.game_loop for o in (first, second)] == [0, 0]
    assert [seat.process.pid for seat in game.seats] != pids  # both started anew, nothing waits
    assert game.step()[0].game_loop == 16


def unservable_guest(game: TwoPlayerGame) -> MatchConfig:
    """Make the guest's join one the host's engine refuses (a camera wider than any the engine serves); the
    config it had, to put back."""
    good = game.guest.config
    bad = options()
    bad.feature_layer.width = 10_000
    game.guest.config = dataclasses.replace(good, interface_options=bad)
    return good


@pytest.mark.parametrize("seed", [None, 7])
def test_a_guest_that_cannot_join_fails_both_at_once_and_the_next_reset_recovers(seed, marked_games):
    # The host's own join waits for the other player: with a timeout longer than the test's, only an error
    # raised at once (the guest's, named) ends this test; waiting out the timeout would fail it.
    game = TwoPlayerGame(*seat_configs(config(request_timeout_s=3600.0)))
    try:
        good = unservable_guest(game)
        with pytest.raises(errors.RequestError, match=r"player 2 could not join.*width") as raised:
            game.reset(seed=seed)
        # A refused request, not a crash: callers that retry crashed games must not retry it as it is.
        assert not isinstance(raised.value, errors.GameCrashedError)
        assert raised.value.request == "join_game" and raised.value.error == "FeatureUnsupported"
        assert game.state is GameState.LOST and "player 2" in game.lost_because
        assert all(seat.process is None for seat in game.seats)  # both stopped, the waiting host too
        game.guest.config = good
        first, second = game.reset(seed=seed)
        assert [o.observation.game_loop for o in (first, second)] == [0, 0]
        assert game.state is GameState.READY and game.step()[0].game_loop == 16
    finally:
        game.close()
    assert marked_games() == []


def test_a_host_that_cannot_join_fails_both_at_once_and_the_next_reset_recovers(game, marked_games):
    game.prepare(recreate=True)
    assert game.ports is not None
    with socket.socket() as taken:  # something else holds the host's join port: it cannot listen there
        taken.bind(("127.0.0.1", game.ports.server_game))
        with pytest.raises(errors.PlayerJoinError, match=r"player 1 could not join.*cannot listen") as raised:
            game.together(lambda: game.host.reset(3), lambda: game.guest.reset(3))
    assert isinstance(raised.value, errors.GameCrashedError)  # what a crashed game's callers catch
    assert game.state is GameState.LOST
    assert all(seat.process is None for seat in game.seats)
    first, _ = game.reset(seed=3)  # new processes, new ports
    assert first.observation.game_loop == 0 and game.step()[0].game_loop == 16
    game.close()
    assert marked_games() == []


def test_the_host_keeps_its_join_port_between_games_and_new_seeds_join_every_time(game):
    # A host that let its port go between games could see it taken, or a guest that linked to it on its way
    # out turned away (the guest's next join then failed while the host waited for it).
    game.reset(seed=1)
    for seed in range(2, 12):
        game.prepare(recreate=True)  # both players left the last game
        assert game.ports is not None
        with socket.socket() as other, pytest.raises(OSError):
            other.bind(("127.0.0.1", game.ports.server_game))
        first, second = game.together(lambda s=seed: game.host.reset(s), lambda s=seed: game.guest.reset(s))
        assert (game.host.player_id, game.guest.player_id) == (1, 2)
        assert [o.observation.game_loop for o in (first, second)] == [0, 0]
