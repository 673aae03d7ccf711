"""The websocket endpoint /sc2api: one client at a time, raw protobuf frames in, binary frames out."""

from __future__ import annotations

import contextlib
import os
import select
import socket
import struct
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from websockets.frames import CTRL_OPCODES, DATA_OPCODES, CloseCode, Frame, Opcode, apply_mask
from websockets.http11 import Request
from websockets.protocol import State
from websockets.server import ServerProtocol

from sc2env.engine.limits import ConnectionLimits
from sc2env.spinwait import SpinWait

if TYPE_CHECKING:
    from sc2env.engine.lan import Lan

ENDPOINT = "/sc2api"
_BUSY = b"HTTP/1.1 409 Conflict\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
_RECV_BYTES = 1 << 18  # per read; a bigger buffer costs an allocation per recv()
_SEND_BUFFER = 1 << 22
_DONTWAIT = getattr(socket, "MSG_DONTWAIT", 0)
_IOV_MAX = min(os.sysconf("SC_IOV_MAX") if hasattr(os, "sysconf") else 1024, 1024)
_FLUSH_BYTES = 1 << 23  # answers to pipelined requests read together are sent once this many have piled up
# A connection that has not finished its opening handshake by then (a port probe, a half-open connect) is
# dropped, so it cannot keep the one client slot from a real client.
HANDSHAKE_TIMEOUT_S = 5.0


class _Client:
    """One accepted socket and its websocket protocol state (websockets' sans-I/O ServerProtocol)."""

    def __init__(self, sock: socket.socket):
        self.sock = sock
        self.accepted_at = self.heard_at = time.monotonic()
        # No size cap here: the handshake is all this parser reads (FrameReader caps the frames). Frames are
        # not UTF-8 checked at this layer, which is what SC2 clients need: PySC2 sends raw protobuf in TEXT
        # frames.
        self.protocol = ServerProtocol(max_size=None)
        self.fragments: list[bytes] = []
        self.message_bytes = 0  # of the fragments so far
        self.message_started: float | None = None  # when the request being received began to arrive
        self.closed = False
        self.head_tail = b""  # the handshake's last bytes so far, to find its end across reads
        self.pending = 0  # bytes of the answers not sent yet (_send_binary sends them all)
        # After the opening handshake, frames are parsed here (FrameReader): websockets' general parser costs
        # a few dozen microseconds per step of three small frames, a noticeable share of a 1 ms step.
        self.frames: FrameReader | None = None


Answer = list[
    bytes | bytearray
]  # a response as byte pieces written back to back, valid until the next request is handled


class Server:
    """Serve `handle(request bytes) -> response pieces` on ws://host:port/sc2api, single-threaded.

    Requests from one client are answered strictly in order, so pipelined clients (several requests
    written before reading) work. A second client gets HTTP 409 while one is connected. The loop ends
    when `should_stop()` turns true or `handle` asks to quit (`quit_requested()`).
    """

    def __init__(
        self,
        host: str,
        port: int,
        handle: Callable[[bytes], Answer],
        quit_requested: Callable[[], bool],
        spin_wait_s: float = 0.0,
        limits: ConnectionLimits | None = None,
        lan: Lan | None = None,
    ):
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self.listener = socket.create_server((host, port), family=family, backlog=16)
        self.handle = handle
        self.quit_requested = quit_requested
        self.limits = limits or ConnectionLimits()
        self.client: _Client | None = None
        # Between a connected client's requests: a client that asks again at once finds the engine awake.
        self.spin = SpinWait(spin_wait_s)
        # Two-player games: the link to the other player's engine, and the answers that come later.
        self.lan = lan

    def serve(self, should_stop: Callable[[], bool], poll_seconds: float = 0.25) -> None:
        try:
            while not should_stop() and not self.quit_requested():
                client = self.client
                lan = self.lan.sockets() if self.lan is not None else []
                if (
                    client is not None
                    and client.frames is not None
                    and not lan
                    and self.spin.wait(client.sock.fileno())
                ):
                    self._read(client)
                    continue
                watched = [self.listener] + ([self.client.sock] if self.client else []) + lan
                ready, _, _ = select.select(watched, [], [], poll_seconds)
                if lan:
                    self._lan_events(lan, ready)
                if self.client is not None and self._overdue(self.client):
                    continue
                # The client first: a client that hung up just before the next one connected (a port probe,
                # a quick reconnect) must free the slot before that one is judged busy.
                if self.client is not None and self.client.sock in ready:
                    self._read(self.client)
                if self.listener in ready:
                    self._accept()
        finally:
            self.close()

    def close(self) -> None:
        if self.client is not None:
            self._drop(self.client)
        self.listener.close()
        if self.lan is not None:
            self.lan.close()

    def _lan_events(self, sockets: list[socket.socket], ready: list) -> None:
        """Serve the link's traffic, then give this engine's client the answers that became ready."""
        assert self.lan is not None
        for sock in sockets:
            if sock in ready:
                self.lan.readable(sock)
        self._deliver()

    def _deliver(self) -> None:
        """Send the client the answers that came later (lock-step steps, joins, relayed answers)."""
        if self.lan is None:
            return
        answers = self.lan.ready()
        if answers and self.client is not None and self.client.frames is not None:
            self._send_binary(self.client, [[a] for a in answers])
            if self.client.closed:
                self._drop(self.client)

    def client_gone(self) -> bool:
        """Whether the client being served has hung up or lost its connection, so that no one will take the
        answer being worked on (the Session asks this between chunks of a long step)."""
        client = self.client
        return client is None or _peer_closed(client.sock)

    def _overdue(self, client: _Client) -> bool:
        """Drop `client` if it has kept the slot too long without a whole handshake or request, or idle
        (see ConnectionLimits); True if it was dropped."""
        now, limits = time.monotonic(), self.limits
        if client.frames is None:
            late = (
                client.protocol.state is State.CONNECTING and now - client.accepted_at > HANDSHAKE_TIMEOUT_S
            )
            if late:
                self._drop(client)
            return late
        started, why = client.message_started, None
        if started is not None and limits.message_timeout_s is not None:
            if now - started > limits.message_timeout_s:
                why = (
                    CloseCode.POLICY_VIOLATION,
                    (f"a request still incomplete after {limits.message_timeout_s:g} s (--message-timeout)"),
                )
        elif (
            started is None
            and limits.idle_timeout_s is not None
            and now - client.heard_at > limits.idle_timeout_s
        ):
            why = CloseCode.GOING_AWAY, f"no request for {limits.idle_timeout_s:g} s (--idle-timeout)"
        if why is not None:
            self._hang_up(client, *why)
        return why is not None

    def _hang_up(self, client: _Client, code: CloseCode, reason: str) -> None:
        """Send a close frame with `code` and `reason` if the socket takes it at once, and drop the client: it
        is stalled, so nothing may wait on it."""
        with contextlib.suppress(OSError):
            client.sock.send(_frame(Opcode.CLOSE, int(code).to_bytes(2, "big") + reason.encode()), _DONTWAIT)
        self._drop(client)

    def _accept(self) -> None:
        try:
            sock, _ = self.listener.accept()
        except OSError:  # aborted before we got to it (or out of descriptors): nobody to serve
            return
        if self.client is not None and _hung_up(self.client.sock):  # its close may come after select()
            self._drop(self.client)
        try:
            if self.client is not None:
                sock.sendall(_BUSY)
                sock.close()
                return
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            # Room for a whole observation (~170 KiB at 64x64), so sendall rarely waits for the reader.
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, _SEND_BUFFER)
            _send_timeout(sock, self.limits.send_timeout_s)
        except OSError:  # it hung up (reset) while waiting to be accepted
            sock.close()
            return
        self.client = _Client(sock)

    def _read(self, client: _Client) -> None:
        try:
            data = client.sock.recv(_RECV_BYTES)
        except OSError:
            data = b""
        client.heard_at = time.monotonic()
        if client.frames is not None:
            self._read_frames(client, client.frames, data)
            return
        if not data:
            self._drop(client)
            return
        # websockets parses the HTTP request only: the bytes after its blank line are frames for FrameReader.
        seen = client.head_tail + data
        end = seen.find(b"\r\n\r\n")
        cut = len(data) if end < 0 else end + 4 - len(client.head_tail)
        client.head_tail = seen[-3:]
        client.protocol.receive_data(data[:cut])
        for event in client.protocol.events_received():
            if isinstance(event, Request):
                if event.path.split("?")[0] == ENDPOINT:
                    response = client.protocol.accept(event)
                else:
                    response = client.protocol.reject(404, f"Not found: the SC2 API is at {ENDPOINT}\n")
                client.protocol.send_response(response)
        self._flush(client)
        if client.closed or client.protocol.state is not (State.OPEN if end >= 0 else State.CONNECTING):
            self._drop(client)
        elif end >= 0:
            # handshake done: frames from here on
            client.frames = frames = FrameReader(self.limits.max_message_bytes)
            if cut < len(data):
                self._read_frames(client, frames, data[cut:])

    def _read_frames(self, client: _Client, frames: FrameReader, data: bytes) -> None:
        """Serve the requests in `data` (the open connection's next bytes); answer pings and closes."""
        if not data:
            self._drop(client)
            return
        replies: list[Answer] = []
        control: list[bytes] = []
        try:
            for opcode, fin, payload in frames.feed(data):
                if opcode == Opcode.PING:
                    control.append(_frame(Opcode.PONG, payload))
                elif opcode == Opcode.CLOSE:  # echo the status code and hang up
                    if len(payload) == 1:  # RFC 6455 5.5.1: a body starts with a 2-byte code
                        raise ValueError("websocket protocol error: a close frame of one byte")
                    control.append(_frame(Opcode.CLOSE, payload[:2]))
                    client.closed = True
                    break
                elif opcode in DATA_OPCODES:
                    if (opcode == Opcode.CONT) != bool(client.fragments):
                        raise ValueError("websocket protocol error: unexpected continuation or missing one")
                    if self._message(client, payload, fin, replies) or client.closed:
                        break
            else:
                if frames.error is not None:  # a bad frame after the ones just served
                    raise frames.error
        except MessageTooBig as e:  # refused before it is read: 1009, message too big
            control.append(_frame(Opcode.CLOSE, int(CloseCode.MESSAGE_TOO_BIG).to_bytes(2, "big") + e.reason))
            client.closed = True
        except ValueError:  # a frame breaking the protocol: close with 1002, as websockets does
            control.append(_frame(Opcode.CLOSE, int(CloseCode.PROTOCOL_ERROR).to_bytes(2, "big")))
            client.closed = True
        if client.closed or not (frames.buffered or client.fragments):
            client.message_started = None
        elif client.message_started is None:
            client.message_started = time.monotonic()
        closing = client.closed
        if replies and closing:  # before our close frame: they answer requests that came before the client's
            self._send_binary(client, replies)
        if control:
            try:
                client.sock.sendall(b"".join(control))
            except OSError:
                client.closed = True
        if replies and not closing and not client.closed:
            self._send_binary(client, replies)
        if client.closed:
            self._drop(client)
        else:
            if client.message_started is not None:  # a client that drips a request byte by byte
                self._overdue(client)
            self._deliver()

    def _message(self, client: _Client, payload: bytes, fin: bool, replies: list[Answer]) -> bool:
        """Add one data frame's payload to the message being received; a final frame's whole message is
        handled and its answer added to `replies`. True when that request asked the server to quit."""
        client.fragments.append(payload)
        client.message_bytes += len(payload)
        if client.message_bytes > self.limits.max_message_bytes:
            raise MessageTooBig(client.message_bytes, self.limits.max_message_bytes)
        if not fin:
            return False
        message = b"".join(client.fragments) if len(client.fragments) > 1 else payload
        client.fragments, client.message_bytes = [], 0
        _keep(replies)
        answer = self.handle(message)
        if not answer:  # it comes later (a two-player game waiting on the other player): see _deliver
            return self.quit_requested()
        replies.append(answer)
        client.pending += sum(map(len, replies[-1]))
        if len(replies) >= _IOV_MAX // 2 or client.pending > _FLUSH_BYTES:
            self._send_binary(client, replies)  # many pipelined requests: memory stays bounded
            replies.clear()
        return self.quit_requested()

    def _send_binary(self, client: _Client, payloads: list[Answer]) -> None:
        """Write unmasked, unfragmented BINARY frames straight to the socket, all in one gather write.

        Equivalent to `protocol.send_binary` for a server without extensions, but the (often ~170 KiB)
        payloads are not copied into new buffers, and the answers to pipelined requests read together
        leave together.
        """
        buffers: list[bytes | bytearray] = []
        for pieces in payloads:
            n = sum(map(len, pieces))
            if n < 126:
                buffers.append(bytes((0x82, n)))
            elif n < 1 << 16:
                buffers.append(bytes((0x82, 126)) + n.to_bytes(2, "big"))
            else:
                buffers.append(bytes((0x82, 127)) + n.to_bytes(8, "big"))
            buffers += pieces
        client.pending = 0
        try:
            for i in range(0, len(buffers), _IOV_MAX):  # sendmsg takes at most IOV_MAX buffers (EMSGSIZE)
                chunk = buffers[i : i + _IOV_MAX]
                sent = client.sock.sendmsg(chunk)
                if sent < sum(map(len, chunk)):
                    client.sock.sendall(b"".join(chunk)[sent:])
        except OSError:
            client.closed = True

    def _flush(self, client: _Client) -> None:
        for chunk in client.protocol.data_to_send():
            if chunk:
                try:
                    client.sock.sendall(chunk)
                except OSError:
                    client.closed = True
                    return
            else:  # the protocol asks to close the TCP connection
                client.closed = True

    def _drop(self, client: _Client) -> None:
        try:
            client.sock.close()
        finally:
            if self.client is client:
                self.client = None


def _keep(replies: list[Answer]) -> None:
    """Join the last answer's pieces (they may be reused by the next request handled before sending)."""
    if replies and len(replies[-1]) > 1:
        replies[-1] = [b"".join(replies[-1])]


class MessageTooBig(ValueError):
    """A request longer than the engine takes (close code 1009); `reason` is the close frame's text."""

    def __init__(self, size: int, limit: int) -> None:
        super().__init__(f"a message of {size} bytes is more than the engine takes ({limit})")
        self.reason = f"message of {size} bytes is over the limit of {limit} (--max-message-bytes)".encode()


class FrameReader:
    """Incremental parser of a client's websocket frames (RFC 6455: masked, no extensions negotiated).

    `feed(bytes)` returns the frames completed so far as (opcode, fin, unmasked payload); a frame that breaks
    the protocol (unmasked, reserved bits or opcodes, a fragmented or oversized control frame) raises
    ValueError, one whose header announces more than `max_bytes` MessageTooBig (before its payload is read).
    """

    def __init__(self, max_bytes: int | None = None) -> None:
        self._buffer = bytearray()
        self.max_bytes = max_bytes
        self.error: ValueError | None = None  # a bad frame found after good ones, raised by the next feed

    @property
    def buffered(self) -> int:
        """Bytes of a frame not whole yet."""
        return len(self._buffer)

    def feed(self, data: bytes) -> list[tuple[int, bool, bytes]]:
        if self.error is not None:
            raise self.error
        buffer = self._buffer
        buffer += data
        frames: list[tuple[int, bool, bytes]] = []
        start, error = _parse(buffer, frames, self.max_bytes)
        del buffer[:start]
        if error is not None:
            if not frames:
                raise error
            self.error = error  # the frames before the bad one are served first; the next feed raises
        return frames


def _parse(buffer: bytearray, frames: list, max_bytes: int | None) -> tuple[int, ValueError | None]:
    """Append the whole frames at the start of `buffer` to `frames`; how many bytes they took, and the
    protocol error that stopped the parse, if one did."""
    start, end = 0, len(buffer)
    while end - start >= 2:
        head, size = buffer[start], buffer[start + 1]
        opcode, fin = head & 0x0F, bool(head & 0x80)
        if head & 0x70 or not size & 0x80 or opcode not in _OPCODES:
            return start, ValueError(
                "websocket protocol error: reserved bits, unmasked frame or unknown opcode"
            )
        length, offset = size & 0x7F, start + 2
        if length >= 126:
            width = 2 if length == 126 else 8
            if end - offset < width:
                break
            length = int.from_bytes(buffer[offset : offset + width], "big")
            offset += width
            if length >> 63:
                return start, ValueError("websocket protocol error: a 64-bit length with its high bit set")
        if max_bytes is not None and length > max_bytes:
            return start, MessageTooBig(length, max_bytes)
        if opcode >= 0x8 and (length > 125 or not fin):
            return start, ValueError("websocket protocol error: control frames are short and unfragmented")
        if end - offset < 4 + length:
            break
        frames.append(
            (opcode, fin, apply_mask(buffer[offset + 4 : offset + 4 + length], buffer[offset : offset + 4]))
        )
        start = offset + 4 + length
    return start, None


_OPCODES = frozenset(int(op) for op in DATA_OPCODES + CTRL_OPCODES)


def _frame(opcode: Opcode, payload: bytes) -> bytes:
    """An unmasked, final server frame."""
    return Frame(opcode, payload).serialize(mask=False)


def _send_timeout(sock: socket.socket, seconds: float | None) -> None:
    """Make blocking writes to `sock` give up after `seconds` (a client that stops reading) with an OSError.

    SO_SNDTIMEO, not settimeout(): a Python timeout would make every call wait for readiness first, the
    non-blocking peeks and the best-effort close frames included.
    """
    if seconds is None or not hasattr(socket, "SO_SNDTIMEO"):
        return
    whole = int(seconds)
    with contextlib.suppress(OSError):  # a platform with another timeval layout: no send timeout there
        sock.setsockopt(
            socket.SOL_SOCKET, socket.SO_SNDTIMEO, struct.pack("ll", whole, int((seconds - whole) * 1e6))
        )


def _peer_closed(sock: socket.socket) -> bool:
    """Whether the peer has shut down its end or the connection failed, even with unread data pending (a
    client that timed out sends a close frame, then hangs up)."""
    if not hasattr(select, "POLLRDHUP"):  # Linux only: elsewhere, end of file with nothing pending
        return _hung_up(sock)
    poll = select.poll()
    poll.register(sock, select.POLLRDHUP | select.POLLHUP | select.POLLERR)
    return bool(poll.poll(0))


def _hung_up(sock: socket.socket) -> bool:
    """Whether the peer has closed its end (the next read would give end of file), without reading."""
    if not hasattr(socket, "MSG_DONTWAIT"):  # no non-blocking peek (Windows): its next read will tell
        return False
    try:
        return sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b""
    except (BlockingIOError, InterruptedError):
        return False
    except OSError:  # reset: gone too
        return True
