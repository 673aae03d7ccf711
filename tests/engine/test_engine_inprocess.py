"""InProcessEngine answers every request with the message a client parses from the engine's socket answer."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from engine_helpers import SEVEN_MINI_GAMES, create_request, interface, join_request, random_action
from s2clientprotocol import debug_pb2, query_pb2
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env.engine import replay_file
from sc2env.engine.inprocess import InProcessEngine
from sc2env.engine.session import Session


def undated(data: bytes) -> replay_file.Replay:
    """A replay's contents but for its date (when its episode started, by the wall clock)."""
    replay = replay_file.decode(data)
    assert replay.started_at is not None
    return dataclasses.replace(replay, started_at=None)


class Twins:
    """The same requests to a Session over bytes (what the server does) and to an InProcessEngine."""

    def __init__(self) -> None:
        self.session = Session()
        self.engine = InProcessEngine()
        self.next_id = 0

    def ask(self, **fields) -> sc_pb.Response:
        self.next_id += 1
        request = sc_pb.Request(id=self.next_id, **fields)
        over_bytes = sc_pb.Response.FromString(self.session.handle(request.SerializeToString()))
        direct = self.engine.respond(request)
        if direct.save_replay.data:  # dated by each game's wall clock: the rest must be the same
            assert undated(direct.save_replay.data) == undated(over_bytes.save_replay.data)
            direct.save_replay.data = over_bytes.save_replay.data
        assert direct == over_bytes, f"{request.WhichOneof('request')} answered differently"
        assert direct.SerializeToString(deterministic=True) == over_bytes.SerializeToString(
            deterministic=True
        )
        assert self.engine.status == self.session.status
        return direct


def _tags(response: sc_pb.Response) -> list[int]:
    return [u.tag for u in response.observation.observation.raw_data.units if u.owner == 1]


@pytest.mark.parametrize("map_name", SEVEN_MINI_GAMES)
def test_every_answer_is_the_one_the_socket_carries(map_name):
    twins = Twins()
    twins.ask(ping=sc_pb.RequestPing())
    twins.ask(step=sc_pb.RequestStep(count=1))  # refused before any game: the same error
    options = interface(screen=48, minimap=32)
    options.render.resolution.x = options.render.resolution.y = 24
    options.render.minimap_resolution.x = options.render.minimap_resolution.y = 16
    twins.ask(create_game=create_request(map_name, seed=5))
    twins.ask(join_game=join_request(options))
    twins.ask(game_info=sc_pb.RequestGameInfo())
    twins.ask(data=sc_pb.RequestData(ability_id=True, unit_type_id=True))
    rng = np.random.default_rng(3)
    # Debug commands as SMACv2-style scenarios send them: a unit made, one killed, a value set.
    made = debug_pb2.DebugCommand()
    made.create_unit.unit_type, made.create_unit.owner, made.create_unit.quantity = 48, 1, 2  # Marines
    made.create_unit.pos.x = made.create_unit.pos.y = 20
    twins.ask(debug=sc_pb.RequestDebug(debug=[made]))
    response = twins.ask(observation=sc_pb.RequestObservation())
    tags = _tags(response)
    life = debug_pb2.DebugCommand()
    life.unit_value.unit_tag, life.unit_value.unit_value, life.unit_value.value = tags[0], 1, 20.0
    killed = debug_pb2.DebugCommand()
    killed.kill_unit.tag.append(tags[-1])
    twins.ask(debug=sc_pb.RequestDebug(debug=[life, killed]))
    response = twins.ask(observation=sc_pb.RequestObservation())
    layers = response.observation.observation.feature_layer_data
    assert len(layers.renders.height_map.data) == 48 * 48 and len(layers.minimap_renders.camera.data) > 0
    ended = 0
    for step in range(90):
        twins.ask(action=sc_pb.RequestAction(actions=[random_action(rng, step, _tags(response))]))
        twins.ask(step=sc_pb.RequestStep(count=24))
        response = twins.ask(observation=sc_pb.RequestObservation())
        if step % 30 == 29:
            query = query_pb2.RequestQuery()
            query.abilities.add(unit_tag=(_tags(response) or [0])[0])
            twins.ask(query=query)
        if response.observation.player_result:
            ended += 1
            twins.ask(step=sc_pb.RequestStep(count=1))  # "Game has already ended", both ways
            twins.ask(save_replay=sc_pb.RequestSaveReplay())
            twins.ask(restart_game=sc_pb.RequestRestartGame())
    # 90 steps of 24 loops outlast the two-minute timers: their end, refusals and restart were compared too.
    assert ended or map_name not in ("MoveToBeacon", "CollectMineralShards")
    twins.ask(save_replay=sc_pb.RequestSaveReplay())
    twins.ask(leave_game=sc_pb.RequestLeaveGame())
    twins.ask(quit=sc_pb.RequestQuit())
    assert twins.engine.quit


def test_refusals_and_typed_errors_are_the_same():
    twins = Twins()
    missing = sc_pb.RequestCreateGame(local_map=sc_pb.LocalMap(map_path="mini_games/NoSuchGame.SC2Map"))
    missing.player_setup.add(type=sc_pb.Participant)
    assert twins.ask(create_game=missing).create_game.error == sc_pb.ResponseCreateGame.MissingMap
    twins.ask(create_game=create_request("MoveToBeacon"))
    assert twins.ask(join_game=join_request(interface(screen=5000))).join_game.error
    twins.ask(join_game=join_request(interface(raw=False)))
    assert twins.ask(quick_save=sc_pb.RequestQuickSave()).error  # not served by the built-in engine
    assert twins.ask(step=sc_pb.RequestStep(count=10**9)).error  # past the engine's limit
    assert twins.ask().error  # an empty request


def test_the_engine_keeps_no_part_of_the_callers_messages():
    engine = InProcessEngine()
    engine.respond(sc_pb.Request(create_game=create_request("MoveToBeacon")))
    join = sc_pb.Request(join_game=join_request(interface(screen=32, minimap=32)))
    engine.respond(join)
    join.join_game.options.feature_layer.resolution.x = 7  # the caller reuses its message
    first = engine.respond(sc_pb.Request(observation=sc_pb.RequestObservation()))
    assert engine.respond(sc_pb.Request(game_info=sc_pb.RequestGameInfo())).game_info.options == interface(
        screen=32, minimap=32
    )
    first.observation.observation.game_loop = 999  # and changes an answer it was given
    second = engine.respond(sc_pb.Request(observation=sc_pb.RequestObservation()))
    assert second.observation.observation.game_loop == 0
    assert second.observation.observation.feature_layer_data.renders.unit_type.size.x == 32
