"""The engine process against clients that misbehave: it answers, refuses or hangs up, and keeps serving."""

from __future__ import annotations

import base64
import os
import select
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


# ---- connection limits (issue 28) ---------------------------------------------------------------------
@pytest.fixture
def strict_engine():
    """An engine with small connection limits, so that tests reach them quickly."""
    proc, port = start_engine(
        "--max-message-bytes", "100000", "--message-timeout", "1", "--send-timeout", "1"
    )
    connect(port).close()
    yield proc, port
    proc.terminate()
    proc.wait(5)


def close_frame(ws: websocket.WebSocket) -> tuple[int, str]:
    """The code and reason of the close frame the engine sent, skipping any answers before it."""
    while True:
        opcode, data = ws.recv_data(control_frame=True)
        if opcode == websocket.ABNF.OPCODE_CLOSE:
            return int.from_bytes(data[:2], "big"), data[2:].decode()


def header(length: int) -> bytes:
    """A masked BINARY frame's header announcing `length` bytes (64-bit length form), with its mask key."""
    return bytes((0x82, 0xFF)) + length.to_bytes(8, "big") + os.urandom(4)


@pytest.mark.parametrize("length", [2**62, 100_001])
def test_a_frame_announced_over_the_limit_is_refused_with_1009_before_it_is_read(strict_engine, length):
    # A header announcing 2^62 bytes held the slot while the engine waited for them; 256 MiB frames peaked at
    # 817 MB in the engine.
    proc, port = strict_engine
    ws = connect(port)
    ws.sock.sendall(frame(ping(1)) + header(length))
    assert sc_pb.Response.FromString(ws.recv()).id == 1, "the request before it is answered"
    code, reason = close_frame(ws)
    assert code == 1009 and f"message of {length} bytes is over the limit of 100000" in reason
    assert still_serves(port) and proc.poll() is None


def test_a_fragmented_message_over_the_limit_is_refused_with_1009(strict_engine):
    # Fragments of 60,000 bytes each, each under the limit: the message they make is not.
    _, port = strict_engine
    ws = connect(port)
    first = websocket.ABNF(fin=0, opcode=websocket.ABNF.OPCODE_BINARY, data=bytes(60_000)).format()
    more = websocket.ABNF(fin=0, opcode=websocket.ABNF.OPCODE_CONT, data=bytes(60_000)).format()
    ws.sock.sendall(first + more)
    code, reason = close_frame(ws)
    assert code == 1009 and "message of 120000 bytes is over the limit of 100000" in reason
    assert still_serves(port)


@pytest.mark.parametrize("stall", ["half-frame", "half-header", "fragment"])
def test_a_client_that_stalls_mid_request_loses_the_slot(strict_engine, stall):
    # Half a frame, then silence: the slot was held for ever and every other client got 409.
    _, port = strict_engine
    ws = connect(port)
    whole = frame(ping(1))
    begun = {
        "half-frame": whole[: len(whole) // 2],
        "half-header": header(50_000)[:5],
        "fragment": websocket.ABNF(fin=0, opcode=websocket.ABNF.OPCODE_BINARY, data=b"\x08").format(),
    }[stall]
    ws.sock.sendall(begun)
    code, reason = close_frame(ws)  # after the 1 s --message-timeout
    assert code == 1008 and "a request still incomplete after 1 s (--message-timeout)" in reason
    assert still_serves(port)


def test_a_client_that_drips_a_request_loses_the_slot(strict_engine):
    _, port = strict_engine
    ws = connect(port)
    data = websocket.ABNF.create_frame(bytes(300), BINARY).format()
    dropped = None
    try:
        for k in range(len(data)):  # a byte every 0.1 s: 30 s for the request, which gets 1 s
            ws.sock.sendall(data[k : k + 1])
            if select.select([ws.sock], [], [], 0.1)[0]:
                dropped = close_frame(ws)[0]
                break
    except ConnectionResetError:  # a byte sent just after the engine hung up: its close frame is lost
        dropped = "reset"
    assert dropped in (1008, "reset"), dropped
    assert still_serves(port)


def test_a_client_that_stops_reading_is_dropped_when_an_answer_cannot_be_sent(strict_engine):
    # The engine waited in sendall() for ever for a client that sent requests and never read the answers.
    proc, port = strict_engine
    ws = connect(port)
    ws.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    ws.send_binary(sc_pb.Request(create_game=create_request("MoveToBeacon")).SerializeToString())
    ws.recv()
    ws.send_binary(sc_pb.Request(join_game=join_request()).SerializeToString())
    ws.recv()
    # ~170 kB answers, far beyond what the socket buffers hold, written in pieces under the message limit.
    for _ in range(40):
        ws.sock.sendall(
            b"".join(frame(sc_pb.Request(observation=sc_pb.RequestObservation())) for _ in range(10))
        )
    assert still_serves(port) and proc.poll() is None  # after the 1 s --send-timeout
    ws.sock.close()


def test_an_idle_client_is_dropped_only_when_asked():
    proc, port = start_engine("--idle-timeout", "1")
    try:
        ws = connect(port)
        assert still_serves_on(ws)
        code, reason = close_frame(ws)  # after a second of silence
        assert code == 1001 and "no request for 1 s (--idle-timeout)" in reason
        assert still_serves(port)
    finally:
        proc.terminate()
        proc.wait(5)


def still_serves_on(ws: websocket.WebSocket) -> bool:
    ws.send_binary(ping(5).SerializeToString())
    return sc_pb.Response.FromString(ws.recv()).id == 5


def test_the_frame_reader_refuses_an_announced_length_over_its_limit_before_the_payload():
    from sc2env.engine.server import FrameReader, MessageTooBig

    reader = FrameReader(max_bytes=10)
    assert [body for _, _, body in reader.feed(frame(ping(1))[:0])] == []
    with pytest.raises(MessageTooBig, match="a message of 11 bytes is more than the engine takes \\(10\\)"):
        reader.feed(header(11))
    small = FrameReader(max_bytes=10).feed(websocket.ABNF.create_frame(b"0123456789", BINARY).format())
    assert [bytes(body) for _, _, body in small] == [b"0123456789"]
