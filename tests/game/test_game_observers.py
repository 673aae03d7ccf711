"""TwoPlayerGame with observers: each its own engine process, joined, stepped in lock-step, crashed, closed."""

from __future__ import annotations

import os
import signal

import numpy as np
import pytest
from s2clientprotocol import raw_pb2
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env.game import MatchConfig, ObserverConfig
from sc2env.game.two_player import GameState, TwoPlayerGame, seat_configs
from sc2env.interface import InterfaceFormat
from sc2env.launch import LaunchConfig

SELF, ENEMY = 1, 4
ATTACK = 23


def config() -> MatchConfig:
    options = sc_pb.InterfaceOptions(raw=True, score=True)
    options.feature_layer.width = 24
    options.feature_layer.resolution.x = options.feature_layer.resolution.y = 16
    options.feature_layer.minimap_resolution.x = options.feature_layer.minimap_resolution.y = 16
    return MatchConfig(
        "DuelMarines",
        interface_options=options,
        launch=LaunchConfig(engine="builtin"),
        step_mul=16,
        request_timeout_s=30.0,
    )


def watchers() -> list[ObserverConfig]:
    """Player 1's observer with feature layers and raw units, and the whole map's in RGB."""
    return [
        ObserverConfig(1, InterfaceFormat(screen_size=24, minimap_size=16, use_raw_units=True)),
        ObserverConfig(
            0, InterfaceFormat(screen_size=None, minimap_size=None, rgb_screen_size=32, rgb_minimap_size=16)
        ),
    ]


@pytest.fixture
def game():
    made = TwoPlayerGame(*seat_configs(config()), observers=watchers())
    yield made
    made.close()


def owners(observation: sc_pb.ResponseObservation) -> set[int]:
    return {u.owner for u in observation.observation.raw_data.units if u.owner in (1, 2)}


def attack(observation: sc_pb.ResponseObservation, x: float, y: float) -> list[sc_pb.Action]:
    tags = [u.tag for u in observation.observation.raw_data.units if u.alliance == SELF]
    command = raw_pb2.ActionRawUnitCommand(ability_id=ATTACK, unit_tags=tags)
    command.target_world_space_pos.x, command.target_world_space_pos.y = x, y
    return [sc_pb.Action(action_raw=raw_pb2.ActionRaw(unit_command=command))]


def test_observers_watch_in_lock_step_with_their_own_interface(game, marked_games):
    first, _ = game.reset(seed=4)
    of_player_1, of_all = game.observers
    assert {of_player_1.player_id, of_all.player_id} == {3, 4}
    assert len(marked_games()) >= 4  # two players' engines and two observers'
    assert owners(of_player_1.observation) == {1}  # player 1's fog: player 2's army is out of sight
    decoded = of_player_1.observe()
    assert decoded.feature_screen.shape[1:] == (24, 24) and decoded.feature_minimap.shape[1:] == (16, 16)
    rgb = of_all.observe()["rgb_screen"]
    assert rgb.shape == (32, 32, 3) and rgb.any()
    for _ in range(3):
        one, two = game.step(attack(first, 50, 32), ())
        loops = {one.game_loop, two.game_loop}
        loops |= {o.observation.observation.game_loop for o in game.observers}
        assert loops == {one.game_loop}  # nobody runs ahead: the observers are stepped with the players
    # A move of an observer's camera is its own: its RGB view changes, the players' cameras stay.
    before = of_all.observe()["rgb_screen"].copy()
    camera = one.observation.observation.raw_data.player.camera
    move = sc_pb.ObserverAction()
    move.camera_move.world_pos.x, move.camera_move.world_pos.y = 52, 40
    of_all.act([move])
    one, _ = game.step()
    assert not np.array_equal(of_all.observe()["rgb_screen"], before)
    assert one.observation.observation.raw_data.player.camera == camera


def test_a_killed_observer_leaves_the_players_playing_and_the_next_reset_brings_it_back(game, marked_games):
    game.reset(seed=4)
    game.step()
    victim = game.observers[0]
    assert victim.process is not None
    os.kill(victim.process.pid, signal.SIGKILL)
    for _ in range(3):
        one, two = game.step()
    assert one.game_loop == two.game_loop == 64 and not one.terminated
    assert game.state is GameState.READY and not victim.running and victim.lost_because
    assert game.observers[1].observation.observation.game_loop == 64  # the other observer watches on
    first, _ = game.reset()  # the game is created anew, with the observer in it again
    assert first.observation.game_loop == 0 and victim.running
    assert victim.observation.observation.game_loop == 0
    game.step()
    assert victim.observation.observation.game_loop == 16
    game.close()
    assert marked_games() == []


def test_a_fight_ends_with_both_results_for_the_observers(game):
    first, _ = game.reset(seed=4)
    for _ in range(200):
        one, _ = game.step(attack(first, 50, 32), ())
        first = one.observation
        if one.terminated:
            break
    assert one.terminated
    for observer in game.observers:
        results = {r.player_id: r.result for r in observer.observation.player_result}
        assert results == {1: sc_pb.Victory, 2: sc_pb.Defeat}


def test_observer_config_checks():
    with pytest.raises(ValueError, match="observed_player_id"):
        ObserverConfig(3)
    with pytest.raises(TypeError, match="InterfaceFormat"):
        ObserverConfig(1, sc_pb.InterfaceOptions())  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="seat 1"):
        MatchConfig("DuelMarines", seat=2, observers=1)


def test_an_observer_the_game_refuses_fails_the_reset_naming_it_and_stops_every_process(marked_games):
    from sc2env import errors

    refused = ObserverConfig(
        2, InterfaceFormat(screen_size=2000, minimap_size=16)
    )  # beyond the engine's 1024
    game = TwoPlayerGame(*seat_configs(config()), observers=[refused])
    with pytest.raises(errors.RequestError, match="observer 1 could not join"):
        game.reset(seed=1)
    assert game.state is GameState.LOST and marked_games() == []
    game.close()
