"""The client's websocket reader against a game that breaks the protocol or stalls: clear errors, bounded waits."""

from __future__ import annotations

import socket
import threading
import time

import pytest

from sc2env.client.connection import DEFAULT_MAX_MESSAGE_BYTES, Connection, Dropped, MessageTooBig


class _Socket:
    """The part of websocket-client's WebSocket that Connection uses, over one end of a socket pair."""

    def __init__(self, sock: socket.socket):
        self.sock, self.connected = sock, True

    def gettimeout(self):
        return self.sock.gettimeout()

    def settimeout(self, timeout):
        self.sock.settimeout(timeout)

    def close(self, timeout=None):
        self.shutdown()

    def shutdown(self):
        self.sock.close()


@pytest.fixture
def pair():
    ours, theirs = socket.socketpair()
    connection = Connection(_Socket(ours), "ws://test/sc2api", spin_wait_s=0)
    yield connection, theirs
    theirs.close()
    ours.close()


def test_a_control_frame_longer_than_125_bytes_is_a_protocol_error(pair):
    connection, game = pair
    game.sendall(bytes((0x89, 126)) + (200).to_bytes(2, "big") + b"p" * 200)  # a 200-byte ping
    with pytest.raises(Dropped, match="control frame of 200 bytes"):
        connection.receive(2.0)


def test_an_absurd_length_is_refused_before_allocating(pair):
    connection, game = pair
    game.sendall(bytes((0x82, 127)) + (1 << 62).to_bytes(8, "big"))
    with pytest.raises(MessageTooBig, match=f"{1 << 62} bytes or more, over the limit of {256 << 20} bytes"):
        connection.receive(2.0)


def test_fragments_adding_up_past_the_limit_are_refused_before_they_are_read():
    # Each fragment was checked against the limit alone: a fragmented stream was buffered past 1 GiB.
    ours, game = socket.socketpair()
    try:
        connection = Connection(_Socket(ours), "ws://test/sc2api", spin_wait_s=0, max_message_bytes=1000)
        game.sendall(bytes((0x02, 126)) + (600).to_bytes(2, "big") + bytes(600))  # BINARY, not final
        game.sendall(bytes((0x00, 126)) + (600).to_bytes(2, "big"))  # a continuation's header only
        with pytest.raises(MessageTooBig, match="1200 bytes or more, over the limit of 1000") as refused:
            connection.receive(2.0)
        assert (refused.value.size, refused.value.limit) == (1200, 1000)
    finally:
        game.close()
        ours.close()


# The game below never stops sending: a timeout that bounded each silence only would never end the receive,
# and the test's own timeout (a hang guard) fails it.
@pytest.mark.timeout(60)
@pytest.mark.parametrize("drip", [b"\x82", b"\x89\x00"])  # one byte of a frame at a time; or ping after ping
def test_a_game_that_keeps_sending_without_answering_times_out(pair, drip):
    connection, game = pair
    stop = threading.Event()

    def keep_sending():
        try:
            if drip == b"\x82":
                game.sendall(bytes((0x82, 126)) + (1000).to_bytes(2, "big"))
            while not stop.wait(0.1):
                game.sendall(drip if drip != b"\x82" else b"x")
        except OSError:
            pass

    sender = threading.Thread(target=keep_sending, daemon=True)
    sender.start()
    try:  # the timeout bounds the whole answer, not only each silence
        with pytest.raises(TimeoutError, match=r"no answer within 0.5 s"):
            connection.receive(0.5)
    finally:
        stop.set()
        sender.join(2)


def test_a_send_after_an_answer_that_came_near_its_deadline_gets_the_whole_request_timeout(pair):
    connection, game = pair

    # An answer that trickles in just before its 0.5 s deadline leaves the socket with the few ms that were left.
    def trickle():
        game.sendall(b"\x82\x03a")
        time.sleep(0.25)
        game.sendall(b"b")
        time.sleep(0.2)
        game.sendall(b"c")

    sender = threading.Thread(target=trickle)
    sender.start()
    assert bytes(connection.receive(0.5)) == b"abc"
    sender.join()
    # A request bigger than the socket buffers must wait for the game to read it: the answer's leftover
    # milliseconds are not the request's to wait (it used to be dropped as a failed send).
    reader = threading.Thread(target=lambda: (time.sleep(0.3), _read_all(game, 8 << 20)))
    reader.start()
    connection.send([b"x" * (8 << 20)])
    reader.join()


def _read_all(sock: socket.socket, at_least: int) -> None:
    got = 0
    while got < at_least:
        got += len(sock.recv(1 << 20))


def _rss_mb() -> float:
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS")) / 1024


def test_a_frame_header_alone_costs_neither_the_memory_nor_the_time_it_announces(pair):
    # The buffer was grown to the announced length (up to the then 1 GiB cap) before a byte of it came: 2 GB
    # of memory for a 10-byte header, and a receive(2.0) that took 4.5 s allocating (the time went into the
    # allocation, which the memory shows). Just under the cap.
    connection, game = pair
    before = _rss_mb()
    game.sendall(bytes((0x82, 127)) + (DEFAULT_MAX_MESSAGE_BYTES - 1).to_bytes(8, "big") + b"x" * 1000)
    with pytest.raises(TimeoutError):
        connection.receive(1.0)
    assert _rss_mb() - before < 100  # (the buffer is kept for the next answer)


def test_a_message_longer_than_the_buffer_is_read_whole(pair):
    connection, game = pair
    payload = bytes(range(256)) * (3 << 12)  # 3 MiB: the buffer (1 MiB to start) grows as the bytes come
    game.sendall(bytes((0x82, 127)) + len(payload).to_bytes(8, "big"))
    sender = threading.Thread(target=game.sendall, args=(payload,), daemon=True)
    sender.start()
    assert bytes(connection.receive(10.0)) == payload
    sender.join(5)


@pytest.mark.timeout(60)
def test_a_handshake_answered_a_byte_at_a_time_is_cut_off_at_the_deadline():
    # websocket-client's timeout bounds each read of the handshake: a game trickling its answer held the
    # connect (and a launch's readiness probe) for ever.
    import websocket

    from sc2env.handshake import open_websocket

    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]
    stop = threading.Event()

    def trickle():
        conn, _ = server.accept()
        with conn:
            conn.recv(4096)
            for byte in b"HTTP/1.1 101 Switching Protocols\r\n" * 100:
                if stop.wait(0.1):
                    return
                conn.sendall(bytes((byte,)))

    thread = threading.Thread(target=trickle, daemon=True)
    thread.start()
    try:  # the trickle lasts 6 minutes: bounded per read only, the connect outlasts the test's own timeout
        with pytest.raises(
            websocket.WebSocketTimeoutException, match="did not complete the websocket handshake within 1 s"
        ):
            open_websocket(f"ws://127.0.0.1:{port}/sc2api", 1.0)
    finally:
        stop.set()
        thread.join(5)
        server.close()
