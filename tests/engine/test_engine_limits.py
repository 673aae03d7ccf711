"""The engine's limits on one request: what would cost too much is refused with what to do, and a long step
stops when the client that asked for it is gone."""

from __future__ import annotations

import time

import pytest
from engine_helpers import arena, connect, create_request, interface, join_request, start_engine, unit
from s2clientprotocol import query_pb2
from s2clientprotocol import sc2api_pb2 as sc_pb
from sim_helpers import Sim

from sc2env.engine import replay_file
from sc2env.engine.limits import MAX_ACTIONS, MAX_QUERY_ITEMS, MAX_RESOLUTION, MAX_STEP_LOOPS
from sc2env.engine.session import Session

# A script that runs every loop: the engine simulates loop by loop (~50-200 us each), as the map did.
EVERY_LOOP = [{"when": {"every_loop": {}}, "do": []}]


def ask(session: Session, **request) -> sc_pb.Response:
    return sc_pb.Response.FromString(session.handle(sc_pb.Request(**request).SerializeToString()))


def endless(units: int = 1) -> bytes:
    """A map that never ends by itself and runs a trigger every loop."""
    return arena(
        [unit("Marine", 20 + k % 20, 20 + k // 20) for k in range(units)],
        triggers=EVERY_LOOP,
        time_limit=2**31 - 1,
    )


def test_a_step_longer_than_one_request_may_run_is_refused():
    # One step(2**32 - 1) on such a map ran for ~28 hours at 100 % CPU, long after its client had timed out.
    sim = Sim(endless())
    answer = sim.ask(step=sc_pb.RequestStep(count=2**32 - 1))
    assert answer.error == [
        f"step count {2**32 - 1} is more than one request may run (at most {MAX_STEP_LOOPS} game loops): "
        "step in several requests"
    ]
    assert sim.game.game_loop == 0 and sim.game.inputs == []
    answer = Sim(map_name="MoveToBeacon").ask(step=sc_pb.RequestStep(count=MAX_STEP_LOOPS))
    assert not answer.error and answer.status == sc_pb.ended  # as many as allowed: to the time limit


def test_more_actions_than_one_request_may_carry_are_refused_whole():
    # 100,000 actions in one request kept the engine busy for 16.8 s.
    sim = Sim(map_name="MoveToBeacon")
    noop = sc_pb.Action()
    answer = sim.ask(action=sc_pb.RequestAction(actions=[noop] * (MAX_ACTIONS + 1)))
    assert answer.error == [
        f"{MAX_ACTIONS + 1} actions in one request is more than the engine takes (at most {MAX_ACTIONS}): "
        "none was applied; send them in several requests"
    ]
    assert sim.game.inputs == []
    answer = sim.ask(action=sc_pb.RequestAction(actions=[noop] * MAX_ACTIONS))
    assert not answer.error and len(answer.action.result) == MAX_ACTIONS


def test_a_query_of_more_items_than_one_request_may_ask_is_refused():
    sim = Sim(map_name="MoveToBeacon")
    marine = sim.game.world.tag.tolist()[0]
    query = query_pb2.RequestQuery()
    for _ in range(MAX_QUERY_ITEMS // 2):
        query.abilities.add(unit_tag=marine)
        query.pathing.add(unit_tag=marine).end_pos.x = 30
    query.placements.add(ability_id=319)
    answer = sim.ask(query=query)
    assert answer.error == [
        f"a query of {MAX_QUERY_ITEMS + 1} items is more than one request may ask (at most "
        f"{MAX_QUERY_ITEMS} pathing, abilities and placements items together): split it into several queries"
    ]
    del query.placements[:]
    answer = sim.ask(query=query)
    assert not answer.error and len(answer.query.abilities) + len(answer.query.pathing) == MAX_QUERY_ITEMS


@pytest.mark.parametrize("setup", ["feature_layer", "render"])
@pytest.mark.parametrize("field", ["resolution", "minimap_resolution"])
def test_layers_bigger_than_the_cap_are_refused_at_join(session, setup, field):
    # 4096x4096 layers made a 600 MB observation.
    ask(session, create_game=create_request("MoveToBeacon"))
    options = interface()
    if setup == "render":
        options.render.resolution.x = options.render.resolution.y = 64
        options.render.minimap_resolution.x = options.render.minimap_resolution.y = 64
    getattr(getattr(options, setup), field).x = MAX_RESOLUTION + 1
    answer = ask(session, join_game=sc_pb.RequestJoinGame(race=1, options=options))
    assert answer.join_game.error == sc_pb.ResponseJoinGame.FeatureUnsupported
    assert f"{setup}.{field} must be between 1 and {MAX_RESOLUTION} pixels per side" in (
        answer.join_game.error_details
    )
    getattr(getattr(options, setup), field).x = MAX_RESOLUTION
    assert ask(session, join_game=sc_pb.RequestJoinGame(race=1, options=options)).status == sc_pb.in_game


def test_a_realtime_game_catches_up_in_steps_a_replay_can_hold():
    create = create_request("x")
    create.realtime = True
    create.local_map.map_data = arena([unit("Marine", 30, 30)], time_limit=2**31 - 1)
    session = Session()
    assert not ask(session, create_game=create).create_game.HasField("error")
    assert ask(session, join_game=join_request()).status == sc_pb.in_game
    session.game._wallclock_start -= 4000.0  # the client looked away for 4,000 s: 89,600 loops are due
    loop = ask(session, observation=sc_pb.RequestObservation()).observation.observation.game_loop
    assert loop >= 89_600 and session.game.inputs == [MAX_STEP_LOOPS, loop - MAX_STEP_LOOPS]
    recorded = replay_file.decode(ask(session, save_replay=sc_pb.RequestSaveReplay()).save_replay.data)
    assert recorded.game_loop == loop  # a replay the engine reads back


def test_a_long_step_stops_when_its_client_hangs_up_and_replays_as_it_ran():
    # The engine ran a long step to its end after the client had timed out and gone, serving nobody.
    proc, port = start_engine()
    try:
        ws = connect(port)
        create = create_request("x")
        create.local_map.map_data = endless(units=40)
        for request in (sc_pb.Request(create_game=create), sc_pb.Request(join_game=join_request())):
            ws.send_binary(request.SerializeToString())
            assert not sc_pb.Response.FromString(ws.recv()).error
        ws.send_binary(sc_pb.Request(step=sc_pb.RequestStep(count=MAX_STEP_LOOPS)).SerializeToString())
        time.sleep(0.2)  # the step is under way (tens of seconds of it, at 40 units and a trigger every loop)
        ws.send_close()  # as a client that timed out: a close frame, then it hangs up without waiting
        ws.sock.close()
        ws = connect(port)  # served as soon as the engine has stopped the step
        ws.send_binary(sc_pb.Request(observation=sc_pb.RequestObservation()).SerializeToString())
        live = sc_pb.Response.FromString(ws.recv())
        loop = live.observation.observation.game_loop
        assert live.status == sc_pb.in_game and 0 < loop < MAX_STEP_LOOPS, loop
        ws.send_binary(sc_pb.Request(save_replay=sc_pb.RequestSaveReplay()).SerializeToString())
        data = sc_pb.Response.FromString(ws.recv()).save_replay.data
        steps = [e for e in replay_file.decode(data).inputs if e.__class__ is int]
        assert steps == [loop]  # the loops that ran
        watcher = Session()
        started = ask(watcher, start_replay=sc_pb.RequestStartReplay(replay_data=data, options=interface()))
        assert not started.start_replay.HasField("error"), started.start_replay.error_details
        done = ask(watcher, step=sc_pb.RequestStep(count=MAX_STEP_LOOPS))
        assert (done.status, done.step.simulation_loop, list(done.error)) == (sc_pb.ended, loop, [])
        watched = ask(watcher, observation=sc_pb.RequestObservation()).observation.observation
        assert watched.raw_data.units == live.observation.observation.raw_data.units
        ws.close()
    finally:
        proc.terminate()
        proc.wait(10)
