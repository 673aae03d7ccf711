"""The controller against real game processes: the fake StarCraft II, and the built-in engine."""

from __future__ import annotations

import os
import select
import signal

import pytest
from s2clientprotocol import common_pb2
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env import errors
from sc2env.client import Controller


def test_controller_for_a_launched_game(start, fake_install):
    process = start(engine="sc2", sc2path=fake_install)
    with Controller(process) as ctrl:
        assert ctrl.url == process.url and ctrl.process is process
        assert ctrl.ping().base_build == 75689
        assert ctrl.status == sc_pb.launched


def test_crash_is_reported_with_exit_status_and_output(start, fake_install, monkeypatch):
    monkeypatch.setenv("FAKE_SC2_FAULT", "available_maps:crash")
    process = start(engine="sc2", sc2path=fake_install)
    ctrl = Controller(process)
    with pytest.raises(errors.GameCrashedError) as raised:
        ctrl.available_maps()
    message = str(raised.value)
    assert "during `available_maps`" in message and "exited with code 7" in message
    assert "crash on available_maps" in message  # the game's last output
    assert isinstance(raised.value, errors.ConnectionError) and ctrl.closed


def test_drop_by_a_live_game_says_it_is_still_running(start, fake_install, monkeypatch):
    monkeypatch.setenv("FAKE_SC2_FAULT", "available_maps:drop")
    process = start(engine="sc2", sc2path=fake_install)
    with pytest.raises(errors.ConnectionError, match=rf"pid {process.pid}\) is still running") as raised:
        Controller(process).available_maps()
    assert not isinstance(raised.value, errors.GameCrashedError)


def test_hung_game_times_out_and_says_it_is_still_running(start, fake_install, monkeypatch):
    monkeypatch.setenv("FAKE_SC2_FAULT", "available_maps:hang")
    process = start(engine="sc2", sc2path=fake_install)
    ctrl = Controller(process, timeouts={"available_maps": 0.5})
    expected = rf"within 0\.5 s; .*pid {process.pid}\) is still running"
    with pytest.raises(errors.RequestTimeoutError, match=expected):
        ctrl.available_maps()


def test_connecting_to_a_dead_game(start, fake_install):
    process = start(engine="sc2", sc2path=fake_install)
    os.kill(process.pid, signal.SIGKILL)
    process.wait(5)
    with pytest.raises(errors.GameCrashedError, match="was killed by SIGKILL"):
        Controller(process, connect_timeout_s=5)


# --- the built-in engine, for real ------------------------------------------------------------------


def move_to_beacon(ctrl: Controller) -> None:
    create = sc_pb.RequestCreateGame(local_map=sc_pb.LocalMap(map_path="mini_games/MoveToBeacon.SC2Map"))
    create.player_setup.add(type=sc_pb.Participant)
    ctrl.create_game(create)
    options = sc_pb.InterfaceOptions(raw=False, score=True)
    options.feature_layer.width = 24
    options.feature_layer.resolution.x = options.feature_layer.resolution.y = 32
    options.feature_layer.minimap_resolution.x = options.feature_layer.minimap_resolution.y = 32
    ctrl.join_game(sc_pb.RequestJoinGame(race=common_pb2.Terran, options=options))


def test_builtin_engine_launches_and_answers_ping(start):
    process = start(engine="builtin")
    with Controller(process) as ctrl:
        ping = ctrl.ping()
    assert (ping.game_version, ping.base_build) == ("4.10.0", 75689)
    assert ping.data_version.upper() == "B89B5D6FA7CBF6452E721311BFBC6CB2"
    assert (process.engine, process.version.build) == ("builtin", ping.base_build)


def test_builtin_engine_plays_pipelined_steps_and_quits(start):
    process = start(engine="builtin")
    ctrl = Controller(process)
    move_to_beacon(ctrl)
    assert ctrl.status == sc_pb.in_game
    assert ctrl.observation().observation.game_loop == 0
    for expected_loop in (8, 16, 24):
        assert ctrl.act_step_observe([], 8).observation.game_loop == expected_loop
    with pytest.raises(errors.ProtocolError, match="`join_game` while the game is in_game"):
        ctrl.join_game(sc_pb.RequestJoinGame())
    with pytest.raises(errors.RequestError) as raised:
        ctrl.create_game(
            sc_pb.RequestCreateGame(local_map=sc_pb.LocalMap(map_path="mini_games/Nowhere.SC2Map"))
        )
    assert raised.value.request == "create_game" and raised.value.error
    ctrl.quit()
    assert process.wait(10) is not None  # it exits by itself on quit


def test_begin_and_finish_keep_two_engines_busy_at_once(start):
    controllers = [Controller(start(engine="builtin")) for _ in range(2)]
    for ctrl in controllers:
        move_to_beacon(ctrl)
        ctrl.observation()
    # Both games get their requests before either answer is read.
    pending = [ctrl.begin_act_step_observe([], 8) for ctrl in controllers]
    with pytest.raises(errors.ProtocolError, match="unanswered requests"):
        controllers[0].ping()
    fds = [p.fileno() for p in pending]
    assert min(fds) >= 0 and fds[0] != fds[1]
    readable, _, _ = select.select(fds, [], [], 30)
    assert readable, "an answer arrives on the pending step's socket"
    loops = [p.finish()[-1].observation.game_loop for p in pending]
    assert loops == [8, 8]
    assert [p.fileno() for p in pending] == [-1, -1]  # answered: nothing left to wait for
    assert pending[0].finish()[-1].observation.game_loop == 8  # answers are kept, not read twice
    assert controllers[0].ping().base_build == 75689  # the connection is free again
    for ctrl in controllers:
        ctrl.quit()


def test_a_forked_copy_neither_quits_nor_talks_to_our_game(start):
    process = start(engine="builtin")
    ctrl = Controller(process)
    move_to_beacon(ctrl)
    read, write = os.pipe()
    pending = ctrl.begin_act_step_observe([], 8)  # answers on their way when the fork happens
    child = os.fork()
    if child == 0:  # the copy: its requests would land on the parent's socket
        try:
            os.close(read)
            try:
                pending.finish()
                said = b"read the parent's answers"
            except errors.ConnectionError:
                try:
                    ctrl.ping()
                    said = b"ping went through"
                except errors.ConnectionError as error:
                    said = str(error).encode()
            ctrl.quit()  # as Match.close() / env.close() in the child do
            ctrl.close()
            os.write(write, said)
        finally:
            os._exit(0)
    os.close(write)
    assert os.waitpid(child, 0)[1] == 0
    with os.fdopen(read, "rb") as pipe:
        said = pipe.read().decode()
    assert "forked copy" in said and "make a new env" in said.lower()
    assert process.running
    assert pending.finish()[-1].observation.game_loop == 8  # the answers were left for us
    assert ctrl.act_step_observe([], 8).observation.game_loop == 16  # still ours, still in step
    ctrl.quit()
