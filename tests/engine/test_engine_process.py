"""The engine process itself: command line, framing, error answers, one client at a time, shutdown."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import portpicker
import pytest
import websocket
from engine_helpers import SEVEN_MINI_GAMES, connect, create_request, join_request, start_engine
from s2clientprotocol import query_pb2
from s2clientprotocol import sc2api_pb2 as sc_pb

# -headlessNoRender (PySC2 and sc2env send it for RGB without a GL library) once stopped the engine: argparse
# read it as -h with "eadlessNoRender" attached.
UNKNOWN_SC2_FLAGS = [
    "-dataVersion",
    "B89B5D6FA7CBF6452E721311BFBC6CB2",
    "-eglpath",
    "libEGL.so",
    "-verbose",
    "-displayMode",
    "0",
    "-headlessNoRender",
]


def ask(ws: websocket.WebSocket, request: sc_pb.Request, text: bool = True) -> sc_pb.Response:
    """Send like PySC2 does (TEXT frames carrying raw protobuf) and check the answer is BINARY."""
    (ws.send if text else ws.send_binary)(request.SerializeToString())
    opcode, data = ws.recv_data()
    assert opcode == websocket.ABNF.OPCODE_BINARY
    return sc_pb.Response.FromString(data)


@pytest.fixture
def running():
    proc, port = start_engine(*UNKNOWN_SC2_FLAGS)
    ws = connect(port)
    yield proc, port, ws
    ws.close()
    proc.terminate()
    proc.wait(5)


def test_text_frames_ids_status_and_malformed_bytes(running):
    ws = running[2]
    first = ask(ws, sc_pb.Request(id=1, ping=sc_pb.RequestPing()))
    assert (first.id, first.status, first.ping.base_build, first.ping.game_version) == (1, 1, 75689, "4.10.0")
    assert first.ping.data_version == "B89B5D6FA7CBF6452E721311BFBC6CB2" and not first.error
    ws.send(b"\x9a\x01\x00\x88\x06\x01")  # PySC2's very first ping, invalid UTF-8 in a TEXT frame
    assert sc_pb.Response.FromString(ws.recv()).ping.base_build == 75689
    ws.send_binary(b"\xff\xff\xff\xff garbage")
    broken = sc_pb.Response.FromString(ws.recv())
    assert broken.error and "malformed request" in broken.error[0] and broken.status == sc_pb.launched
    assert ask(ws, sc_pb.Request(id=7, ping=sc_pb.RequestPing())).id == 7, "still serving"


def hung_up(ws: websocket.WebSocket) -> bool:
    """Whether the engine closed the TCP connection (a reset if websocket-client's reply to the close frame
    arrived after that)."""
    try:
        return ws.sock.recv(1) == b""
    except ConnectionResetError:
        return True


def test_fragments_large_frames_pings_and_close(running):
    ws = running[2]
    ping = sc_pb.Request(id=21, ping=sc_pb.RequestPing()).SerializeToString()
    ws.send_frame(websocket.ABNF.create_frame(ping[:3], websocket.ABNF.OPCODE_BINARY, fin=0))
    ws.send_frame(websocket.ABNF.create_frame(ping[3:], websocket.ABNF.OPCODE_CONT, fin=1))
    assert sc_pb.Response.FromString(ws.recv()).id == 21, "a fragmented request is joined"
    big = create_request("MoveToBeacon")
    # 3 MiB: the 8-byte length form, and more than websockets' default 1 MiB cap (the path names the map)
    big.local_map.map_data = b"x" * (3 << 20)
    answer = ask(ws, sc_pb.Request(id=22, create_game=big), text=False)
    assert answer.id == 22 and answer.status == sc_pb.init_game and not answer.error, "read whole and parsed"
    ws.ping(b"are you there")
    opcode, data = ws.recv_data(control_frame=True)
    assert (opcode, data) == (websocket.ABNF.OPCODE_PONG, b"are you there")
    assert ask(ws, sc_pb.Request(id=23, ping=sc_pb.RequestPing())).id == 23, "still serving after a ping"
    ws.send_close(status=1000)
    opcode, data = ws.recv_data(control_frame=True)
    assert (opcode, data[:2]) == (websocket.ABNF.OPCODE_CLOSE, (1000).to_bytes(2, "big")), "close is echoed"
    assert hung_up(ws), "then the engine hangs up"
    again = connect(running[1])
    assert ask(again, sc_pb.Request(id=24, ping=sc_pb.RequestPing())).id == 24, "and takes the next client"
    again.close()


def test_unmasked_frames_and_one_byte_closes_are_protocol_errors(running):
    _, port, ws = running
    unmasked = websocket.ABNF(
        fin=1,
        opcode=websocket.ABNF.OPCODE_BINARY,
        mask_value=0,
        data=sc_pb.Request(ping=sc_pb.RequestPing()).SerializeToString(),
    )
    ws.sock.sendall(unmasked.format())
    opcode, data = ws.recv_data(control_frame=True)
    assert (opcode, data[:2]) == (websocket.ABNF.OPCODE_CLOSE, (1002).to_bytes(2, "big"))
    assert hung_up(ws)
    ws = connect(port)  # a close body of one byte (no room for a code) was echoed back as one byte
    ws.sock.sendall(websocket.ABNF.create_frame(b"\x03", websocket.ABNF.OPCODE_CLOSE).format())
    opcode, data = ws.recv_data(control_frame=True)
    assert (opcode, data) == (websocket.ABNF.OPCODE_CLOSE, (1002).to_bytes(2, "big"))
    assert hung_up(ws)


def test_wrong_status_and_unsupported_requests_get_errors(running):
    _, _, ws = running
    step = ask(ws, sc_pb.Request(id=3, step=sc_pb.RequestStep(count=1)))
    assert step.id == 3 and step.status == sc_pb.launched and "not valid in status launched" in step.error[0]
    replay = ask(ws, sc_pb.Request(id=4, start_replay=sc_pb.RequestStartReplay(replay_path="x.SC2Replay")))
    assert (
        replay.start_replay.error == sc_pb.ResponseStartReplay.InvalidReplayPath
        and replay.status == sc_pb.launched
    )
    query = ask(ws, sc_pb.Request(id=5, query=query_pb2.RequestQuery()))
    assert "query is not valid in status launched" in query.error[0]
    debug = ask(ws, sc_pb.Request(id=6, debug=sc_pb.RequestDebug()))
    assert debug.id == 6 and "debug is not valid in status launched" in debug.error[0]
    quick_save = ask(ws, sc_pb.Request(id=7, quick_save=sc_pb.RequestQuickSave()))
    assert quick_save.id == 7 and "quick_save is not supported by the built-in engine" in quick_save.error[0]
    save_map = ask(ws, sc_pb.Request(id=8, save_map=sc_pb.RequestSaveMap(map_path="x.SC2Map", map_data=b"?")))
    assert save_map.id == 8 and save_map.save_map.error == sc_pb.ResponseSaveMap.InvalidMapData
    assert "x.SC2Map" in save_map.error[0]  # a file that is no map definition, named
    missing = ask(ws, sc_pb.Request(create_game=create_request("Nope")))
    assert missing.create_game.error == sc_pb.ResponseCreateGame.MissingMap and not missing.error
    assert missing.status == sc_pb.launched
    for extra in ((sc_pb.Computer, sc_pb.Computer), (sc_pb.Observer,)):
        refused = create_request("MoveToBeacon")
        for kind in extra:
            refused.player_setup.add(type=kind, race=2)
        answer = ask(ws, sc_pb.Request(create_game=refused))
        assert answer.create_game.error == sc_pb.ResponseCreateGame.InvalidPlayerSetup
        assert answer.status == sc_pb.launched
    # One Computer, as PySC2's bin/play and bin/benchmark_observe add it, is taken and plays no part.
    with_bot = create_request("MoveToBeacon")
    with_bot.player_setup.add(type=sc_pb.Computer, race=2, difficulty=1)
    assert ask(ws, sc_pb.Request(create_game=with_bot)).status == sc_pb.init_game
    assert ask(ws, sc_pb.Request(create_game=create_request("MoveToBeacon"))).status == sc_pb.init_game
    bad = join_request()
    bad.options.feature_layer.resolution.x = 0
    assert ask(ws, sc_pb.Request(join_game=bad)).join_game.error == sc_pb.ResponseJoinGame.FeatureUnsupported
    assert ask(ws, sc_pb.Request(join_game=join_request())).status == sc_pb.in_game
    ended = ask(ws, sc_pb.Request(step=sc_pb.RequestStep(count=5000)))
    assert ended.status == sc_pb.ended and ended.step.simulation_loop == 1920
    again = ask(ws, sc_pb.Request(step=sc_pb.RequestStep(count=8)))
    assert again.error == ["Game has already ended"] and again.status == sc_pb.ended


def test_pipelined_requests_are_answered_in_order(running):
    _, _, ws = running
    requests = [
        sc_pb.Request(id=10, create_game=create_request("MoveToBeacon")),
        sc_pb.Request(id=11, join_game=join_request()),
        sc_pb.Request(id=12, action=sc_pb.RequestAction(actions=[sc_pb.Action()])),
        sc_pb.Request(id=13, step=sc_pb.RequestStep(count=8)),
        sc_pb.Request(id=14, observation=sc_pb.RequestObservation()),
    ]
    for r in requests:
        ws.send_binary(r.SerializeToString())
    answers = [sc_pb.Response.FromString(ws.recv()) for _ in requests]
    assert [a.id for a in answers] == [10, 11, 12, 13, 14]
    assert list(answers[2].action.result) == [1], "an empty action is a successful no-op"
    assert answers[4].observation.observation.game_loop == 8 and all(not a.error for a in answers)
    # Observations pipelined together each keep their own layers (the engine reuses its layer buffers).
    select_all = sc_pb.Action()
    select_all.action_feature_layer.unit_selection_rect.selection_screen_coord.add().p1.x = 63
    select_all.action_feature_layer.unit_selection_rect.selection_screen_coord[0].p1.y = 63
    ws.send_binary(sc_pb.Request(action=sc_pb.RequestAction(actions=[select_all])).SerializeToString())
    move = sc_pb.Action()
    move.action_feature_layer.unit_command.ability_id = 16  # Move to the screen's top-left corner
    move.action_feature_layer.unit_command.target_screen_coord.x = 0
    together = [
        sc_pb.Request(observation=sc_pb.RequestObservation()),
        sc_pb.Request(action=sc_pb.RequestAction(actions=[move])),
        sc_pb.Request(step=sc_pb.RequestStep(count=16)),
        sc_pb.Request(observation=sc_pb.RequestObservation()),
    ]
    ws.sock.sendall(
        b"".join(
            websocket.ABNF.create_frame(r.SerializeToString(), websocket.ABNF.OPCODE_BINARY).format()
            for r in together
        )
    )
    first, _, _, second = [sc_pb.Response.FromString(ws.recv()) for _ in range(len(together) + 1)][1:]
    screens = [o.observation.observation.feature_layer_data.renders.selected.data for o in (first, second)]
    assert first.observation.observation.game_loop == 8 and second.observation.observation.game_loop == 24
    assert any(screens[0]) and any(screens[1]), "the marine is selected in both frames"
    unit_types = [
        o.observation.observation.feature_layer_data.renders.unit_type.data for o in (first, second)
    ]
    assert unit_types[0] != unit_types[1], "the marine walked on: two different frames, each intact"


def test_one_client_at_a_time_and_404_elsewhere(running):
    _, port, ws = running
    with pytest.raises(websocket.WebSocketBadStatusException) as busy:
        websocket.create_connection(f"ws://127.0.0.1:{port}/sc2api", timeout=5)
    assert busy.value.status_code == 409
    ws.close()
    deadline = time.monotonic() + 10
    while True:  # the server notices the close asynchronously: until then it may still answer 409
        with pytest.raises(websocket.WebSocketBadStatusException) as wrong:
            websocket.create_connection(f"ws://127.0.0.1:{port}/other", timeout=5)
        if wrong.value.status_code != 409 or time.monotonic() > deadline:
            break
        time.sleep(0.02)
    assert wrong.value.status_code == 404
    again = connect(port)
    assert ask(again, sc_pb.Request(ping=sc_pb.RequestPing())).status == sc_pb.launched
    again.close()


def test_data_dir_with_definitions_replaces_the_shipped_ones(tmp_path):
    from sc2env.engine.mapdef import builtin_definitions

    (tmp_path / "MyBeacon.json").write_bytes(builtin_definitions()["MoveToBeacon"])
    port = portpicker.pick_unused_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "sc2env.engine",
            "-listen",
            "127.0.0.1",
            "-port",
            str(port),
            "-dataDir",
            str(tmp_path),
        ]
    )
    try:
        ws = connect(port)
        maps = ask(ws, sc_pb.Request(available_maps=sc_pb.RequestAvailableMaps())).available_maps
        assert list(maps.local_map_paths) == ["mini_games/MyBeacon.SC2Map"]
        missing = ask(ws, sc_pb.Request(create_game=create_request("MoveToBeacon"))).create_game
        assert missing.error == sc_pb.ResponseCreateGame.MissingMap and "MyBeacon" in missing.error_details
        assert ask(ws, sc_pb.Request(create_game=create_request("MyBeacon"))).status == sc_pb.init_game
        ws.close()
    finally:
        proc.kill()
        proc.wait(10)


def test_quit_exits_promptly():
    proc, port = start_engine()
    ws = connect(port)
    ws.send(sc_pb.Request(id=999999999, quit=sc_pb.RequestQuit()).SerializeToString())
    ws.close()  # PySC2 closes without reading the answer
    assert proc.wait(5) == 0


def test_sigterm_exits_and_says_so():
    port = portpicker.pick_unused_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "sc2env.engine", "-listen", "127.0.0.1", "-port", str(port)],
        stderr=subprocess.PIPE,
        text=True,
    )
    connect(port).close()
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(5) == 0
    # A client sees only its connection drop: the game's last output line says what stopped it.
    assert proc.stderr.read().strip().splitlines()[-1] == "sc2env.engine: stopped by SIGTERM"


def test_exits_when_its_parent_dies(tmp_path):
    port = portpicker.pick_unused_port()
    pid_file = tmp_path / "pid"
    parent = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent(f"""
        import subprocess, sys, time
        p = subprocess.Popen([sys.executable, "-m", "sc2env.engine", "-port", "{port}"])
        open({str(pid_file)!r}, "w").write(str(p.pid))
        time.sleep(60)
    """),
        ]
    )
    connect(port).close()
    engine_pid = int(pid_file.read_text())
    parent.kill()
    parent.wait(5)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            os.kill(engine_pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)
    os.kill(engine_pid, signal.SIGKILL)
    pytest.fail("the engine outlived its parent")


def test_port_in_use_is_a_clear_failure():
    proc, port = start_engine()
    try:
        connect(port).close()
        second = subprocess.run(
            [sys.executable, "-m", "sc2env.engine", "-port", str(port)],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
        assert second.returncode == 1 and f"cannot listen on 127.0.0.1:{port}" in second.stderr
    finally:
        proc.terminate()
        proc.wait(5)


def test_make_sc2path_writes_an_install_that_runs_the_engine(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "sc2env.engine", "--make-sc2path", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    binary = tmp_path / "Versions" / "Base75689" / "SC2_x64"
    assert str(binary) in done.stdout and os.access(binary, os.X_OK)
    maps = sorted(p.name for p in (tmp_path / "Maps" / "mini_games").iterdir())
    assert maps == sorted(f"{name}.SC2Map" for name in SEVEN_MINI_GAMES)
    port = portpicker.pick_unused_port()
    proc = subprocess.Popen([str(binary), "-listen", "127.0.0.1", "-port", str(port), *UNKNOWN_SC2_FLAGS])
    try:
        ws = connect(port)
        create = create_request("")
        create.local_map.map_path = "somewhere/renamed.SC2Map"  # recognised by content, not by name
        create.local_map.map_data = (tmp_path / "Maps" / "mini_games" / "MoveToBeacon.SC2Map").read_bytes()
        assert ask(ws, sc_pb.Request(create_game=create)).status == sc_pb.init_game
        ask(ws, sc_pb.Request(join_game=join_request()))
        assert ask(ws, sc_pb.Request(game_info=sc_pb.RequestGameInfo())).game_info.map_name == "MoveToBeacon"
        ws.close()
    finally:
        proc.terminate()
        proc.wait(5)


def _cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="reads CPU time from /proc")
@pytest.mark.parametrize("spin", [None, "0"])
def test_an_idle_engine_sleeps(spin):
    """Spinning for the next request is brief: a connected client that goes quiet costs the engine no CPU."""
    proc, port = start_engine(*(["--spin-wait", spin] if spin else []))
    try:
        ws = connect(port)
        for _ in range(20):  # quick requests: the engine spins between them (unless told not to)
            assert ask(ws, sc_pb.Request(ping=sc_pb.RequestPing())).HasField("ping")
        before = _cpu_seconds(proc.pid)
        time.sleep(1.0)
        assert _cpu_seconds(proc.pid) - before < 0.3
        assert ask(ws, sc_pb.Request(ping=sc_pb.RequestPing())).HasField("ping")  # and still answers
        ws.close()
    finally:
        proc.terminate()
        proc.wait(5)


def test_bad_spin_wait_is_refused():
    done = subprocess.run(
        [sys.executable, "-m", "sc2env.engine", "-port", "1", "--spin-wait", "-1"],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert done.returncode == 2 and "--spin-wait must be >= 0 seconds" in done.stderr


@pytest.mark.parametrize(
    "flag, value, says",
    [
        ("--max-message-bytes", "0", "--max-message-bytes must be a finite number >= 1, not 0"),
        ("--message-timeout", "-1", "--message-timeout must be a finite number >= 0, not -1.0"),
        ("--idle-timeout", "nan", "--idle-timeout must be a finite number >= 0, not nan"),
        ("--send-timeout", "inf", "--send-timeout must be a finite number >= 0, not inf"),
    ],
)
def test_bad_connection_limits_are_refused(flag, value, says):
    done = subprocess.run(
        [sys.executable, "-m", "sc2env.engine", "-port", "1", flag, value],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert done.returncode == 2 and says in done.stderr


def test_a_connection_that_never_says_hello_does_not_keep_the_slot(monkeypatch):
    import socket
    import threading

    from sc2env.engine import server as server_module

    monkeypatch.setattr(server_module, "HANDSHAKE_TIMEOUT_S", 1.5)  # ample for a loaded machine's 409
    answered = []
    server = server_module.Server(
        "127.0.0.1", 0, lambda data: answered.append(data) or [b"ok"], lambda: False
    )
    port = server.listener.getsockname()[1]
    stop = threading.Event()
    thread = threading.Thread(target=server.serve, args=(stop.is_set, 0.05), daemon=True)
    thread.start()
    try:
        probe = socket.create_connection(("127.0.0.1", port))  # a port probe: connects, says nothing
        probe.sendall(b"GET /sc2api HTTP/1.1\r\n")  # or starts a handshake and stalls
        time.sleep(0.1)
        with pytest.raises(websocket.WebSocketBadStatusException) as busy:
            websocket.create_connection(f"ws://127.0.0.1:{port}/sc2api", timeout=5)
        assert busy.value.status_code == 409  # the slot is still the probe's
        time.sleep(1.7)
        ws = websocket.create_connection(f"ws://127.0.0.1:{port}/sc2api", timeout=5)
        ws.send_binary(b"hello")
        assert ws.recv() == b"ok" and answered == [b"hello"]
        assert probe.recv(1) == b""  # the probe was hung up on
        ws.close()
        probe.close()
    finally:
        stop.set()
        thread.join(5)


def test_a_client_that_hung_up_frees_the_slot_for_the_next_at_once():
    # A port probe (nc -z, a health check) or a dropped client just before the real client: the new connection
    # was judged before the old one's end of file was read, and got 409 (which PySC2 does not retry).
    import socket
    import threading

    from sc2env.engine import server as server_module

    server = server_module.Server("127.0.0.1", 0, lambda data: [b"ok"], lambda: False)
    port = server.listener.getsockname()[1]
    stop = threading.Event()
    thread = threading.Thread(target=server.serve, args=(stop.is_set, 0.05), daemon=True)
    thread.start()
    try:
        for attempt in range(20):
            if attempt % 2:
                socket.create_connection(("127.0.0.1", port)).close()  # a probe
            else:
                dropped = websocket.create_connection(f"ws://127.0.0.1:{port}/sc2api", timeout=5)
                dropped.sock.close()  # gone without a close frame
            ws = websocket.create_connection(f"ws://127.0.0.1:{port}/sc2api", timeout=5)
            ws.send_binary(b"hello")
            assert ws.recv() == b"ok"
            ws.close()
    finally:
        stop.set()
        thread.join(5)
