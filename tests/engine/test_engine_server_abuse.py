"""The engine process against clients that misbehave: it answers, refuses or hangs up, and keeps serving."""

from __future__ import annotations

import base64
import os
import socket
import struct
import time

import pytest
import websocket
from engine_helpers import connect, create_request, join_request, start_engine
from s2clientprotocol import sc2api_pb2 as sc_pb

BINARY = websocket.ABNF.OPCODE_BINARY


def frame(request: sc_pb.Request, opcode: int = BINARY) -> bytes:
    return websocket.ABNF.create_frame(request.SerializeToString(), opcode).format()


def handshake(port: int, path: str = "/sc2api") -> bytes:
    key = base64.b64encode(os.urandom(16)).decode()
    return (
        f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
    ).encode()


def ping(n: int) -> sc_pb.Request:
    return sc_pb.Request(id=n, ping=sc_pb.RequestPing())


@pytest.fixture
def engine():
    proc, port = start_engine()
    connect(port).close()  # listening
    yield proc, port
    proc.terminate()
    proc.wait(5)


def still_serves(port: int) -> bool:
    ws = connect(port)
    try:
        ws.send_binary(ping(99).SerializeToString())
        return sc_pb.Response.FromString(ws.recv()).id == 99
    finally:
        ws.close()


def test_a_second_client_that_resets_before_it_is_refused_does_not_stop_the_engine(engine):
    # The engine, busy with observations, got to the second connection after it had reset: sending it the 409
    # raised ConnectionResetError, which ended the engine and cut off the first client.
    proc, port = engine
    ws = connect(port)
    ws.send_binary(sc_pb.Request(create_game=create_request("MoveToBeacon")).SerializeToString())
    ws.recv()
    options = join_request().options
    options.feature_layer.resolution.x = options.feature_layer.resolution.y = 512
    ws.send_binary(
        sc_pb.Request(join_game=sc_pb.RequestJoinGame(race=1, options=options)).SerializeToString()
    )
    ws.recv()
    for _attempt in range(3):
        ws.sock.sendall(
            b"".join(frame(sc_pb.Request(id=i, observation=sc_pb.RequestObservation())) for i in range(6))
        )
        time.sleep(0.02)  # the engine is rendering
        second = socket.create_connection(("127.0.0.1", port))
        second.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        second.close()  # a reset, not a close
        assert [sc_pb.Response.FromString(ws.recv()).id for _ in range(6)] == list(range(6))
    assert proc.poll() is None
    ws.close()
    assert still_serves(port)


def test_more_requests_in_one_read_than_a_write_takes_buffers_are_all_answered(engine):
    # Answers go out in one sendmsg(); beyond IOV_MAX (1,024) buffers it failed and the client was dropped.
    _, port = engine
    ws = connect(port)
    ws.sock.sendall(b"".join(frame(ping(i)) for i in range(1500)))
    assert [sc_pb.Response.FromString(ws.recv()).id for _ in range(1500)] == list(range(1500))
    ws.close()


def _peak_rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmHWM")) / 1024


def test_pipelined_observations_are_answered_without_holding_every_answer(engine):
    # Every answer to one read was kept until the last was made: 5,000 pipelined observations took 800 MB.
    proc, port = engine
    ws = connect(port)
    ws.send_binary(sc_pb.Request(create_game=create_request("MoveToBeacon")).SerializeToString())
    ws.recv()
    ws.send_binary(sc_pb.Request(join_game=join_request()).SerializeToString())
    ws.recv()
    ws.send_binary(sc_pb.Request(observation=sc_pb.RequestObservation()).SerializeToString())
    size = len(ws.recv())
    before = _peak_rss_mb(proc.pid)
    n = (300 << 20) // size  # 300 MB of answers
    ws.sock.sendall(
        b"".join(frame(sc_pb.Request(id=i, observation=sc_pb.RequestObservation())) for i in range(n))
    )
    for i in range(n):
        assert sc_pb.Response.FromString(ws.recv()).id == i
    assert _peak_rss_mb(proc.pid) - before < 100, "the answers were held, not sent as they were made"
    ws.close()


@pytest.mark.parametrize(
    "path, says",
    [
        (
            "fifo",
            "not a regular file",
        ),  # opening a FIFO waited for a writer: the engine served nobody, for ever
        ("/dev/zero", "not a regular file"),  # read until memory ran out
        ("/", "Is a directory"),
        ("a\x00b", "embedded null byte"),  # an internal error, "please report it"
    ],
)
def test_a_replay_path_that_is_no_file_is_refused_at_once(engine, tmp_path, path, says):
    _, port = engine
    if path == "fifo":
        path = str(tmp_path / "fifo")
        os.mkfifo(path)
    ws = connect(port)
    ws.settimeout(10)
    ws.send_binary(
        sc_pb.Request(id=5, replay_info=sc_pb.RequestReplayInfo(replay_path=path)).SerializeToString()
    )
    answer = sc_pb.Response.FromString(ws.recv())
    assert answer.id == 5 and answer.replay_info.error == sc_pb.ResponseReplayInfo.InvalidReplayPath
    assert says in answer.replay_info.error_details and "internal error" not in str(answer.error)
    ws.close()
    assert still_serves(port)


def test_frames_written_with_the_handshake_are_served(engine):
    # The frame reader took over after websockets had read the first frame's header: the ping that followed
    # the handshake in one write was a protocol error (close 1002).
    _, port = engine
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    ws = websocket.WebSocket()
    try:
        second = frame(ping(2))
        sock.sendall(handshake(port) + frame(ping(1)) + second[:3])
        head = b""
        while b"\r\n\r\n" not in head:
            head += sock.recv(1)
        assert head.startswith(b"HTTP/1.1 101")
        sock.sendall(second[3:])
        ws.sock, ws.connected = sock, True
        assert [sc_pb.Response.FromString(ws.recv()).id for _ in range(2)] == [1, 2]
    finally:
        sock.close()


@pytest.mark.parametrize("request_head", ["/other", "no upgrade"])
def test_frames_after_a_refused_handshake_are_not_served(engine, request_head):
    # A quit frame written right after a handshake the engine refused (404, 426) was run: the engine exited.
    proc, port = engine
    head = (
        handshake(port, request_head)
        if request_head.startswith("/")
        else b"GET /sc2api HTTP/1.1\r\nHost: x\r\n\r\n"
    )
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(head + frame(sc_pb.Request(quit=sc_pb.RequestQuit())))
        assert sock.recv(100).split(b" ")[1] in (b"404", b"426")
    time.sleep(0.3)
    assert proc.poll() is None and still_serves(port)


def test_a_request_written_with_a_close_frame_is_answered_first(engine):
    _, port = engine
    ws = connect(port)
    close = websocket.ABNF.create_frame((1000).to_bytes(2, "big"), websocket.ABNF.OPCODE_CLOSE).format()
    ws.sock.sendall(frame(ping(7)) + close)
    assert sc_pb.Response.FromString(ws.recv()).id == 7
    opcode, data = ws.recv_data(control_frame=True)
    assert (opcode, data[:2]) == (websocket.ABNF.OPCODE_CLOSE, (1000).to_bytes(2, "big"))
    ws.sock.close()
