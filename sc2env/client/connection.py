"""One websocket to a game process: whole binary messages out in one write, whole messages in."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence

import websocket
from websocket import ABNF
from websockets.frames import apply_mask

from sc2env.handshake import open_websocket
from sc2env.spinwait import SpinWait, poller

DEFAULT_SPIN_WAIT_S = 0.002  # a built-in engine step takes 0.5-1.5 ms (see sc2env.spinwait)
DEFAULT_MAX_MESSAGE_BYTES = 256 << 20
"""The longest answer taken by default: every feature layer and an RGB render at 1024x1024 (the built-in
engine's largest) are 50 MB. A longer one is refused before it is read (Controller(max_message_bytes=...))."""
_LONGEST_POLL_S = 3600.0  # poll() takes milliseconds as a C int: wait at most this long per call


class Dropped(Exception):
    """The connection closed or failed; the message says how."""


class MessageTooBig(Dropped):
    """The game's answer is longer than this client takes (`size` bytes announced so far, over `limit`); the
    stream is left mid-message, so the connection is done."""

    def __init__(self, size: int, limit: int):
        super().__init__(f"the game's answer is {size} bytes or more, over the limit of {limit} bytes")
        self.size, self.limit = size, limit


class Connection:
    """A websocket-client socket used synchronously: send a batch of messages, then read answers."""

    def __init__(
        self,
        ws: websocket.WebSocket,
        url: str,
        spin_wait_s: float = DEFAULT_SPIN_WAIT_S,
        max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
    ):
        self.ws = ws
        self.url = url
        self.max_message_bytes = max_message_bytes
        self.spin = SpinWait(spin_wait_s)
        self._timeout_s: float | None = ws.gettimeout()
        self._request_timeout_s = self._timeout_s  # the last receive()'s: also what a send may take
        self._buffer = bytearray(1 << 20)  # grows to the largest message seen
        self._deadline = float("inf")  # of the receive() in progress
        # No part of a frame read yet: an interrupted receive() left the stream where a message starts.
        self.between_messages = True
        self.messages_read = 0  # whole data messages taken off the stream (counted before they are returned)
        self._scratch = bytearray(125)  # frame headers and control payloads

    @classmethod
    def open(
        cls,
        url: str,
        timeout_s: float,
        *,
        gave_up: Callable[[], bool] = lambda: False,
        spin_wait_s: float = DEFAULT_SPIN_WAIT_S,
        max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
    ) -> Connection:
        """Connect, retrying while the game is not listening yet (or still busy with a previous client).

        Raises TimeoutError after `timeout_s`, or Dropped as soon as `gave_up()` is true (the process died).
        """
        deadline = time.monotonic() + timeout_s
        delay = 0.01
        while True:
            remaining = deadline - time.monotonic()
            try:
                ws = open_websocket(
                    url, max(0.05, min(remaining, 10.0)), enable_multithread=False, skip_utf8_validation=True
                )
                return cls(ws, url, spin_wait_s, max_message_bytes)
            except (OSError, websocket.WebSocketException) as error:
                # Refused (not listening yet), 404 (not ready), or a close during the handshake (the real
                # game serves one client at a time and may still be dropping the previous one).
                last_error = error
            if gave_up():
                raise Dropped(f"gave up connecting to {url}: {last_error!r}")
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(f"could not connect to {url} within {timeout_s:g} s: {last_error!r}")
            time.sleep(min(delay, remaining))
            delay = min(delay * 2, 0.25)

    def send(self, payloads: Sequence[bytes], progress: list[int] | None = None) -> None:
        """Write every payload as a BINARY frame, all in one write (pipelining: one round trip).

        `progress` (an empty list) records the bytes to write, then each count written, so that after an
        interruption `sent_state(progress)` tells whether none, part or all of the frames went out.
        """
        frames = memoryview(binary_frames(payloads))
        sock = self.ws.sock
        if sock is None:
            raise Dropped("the connection is closed")
        if self._timeout_s != self._request_timeout_s:  # not what was left of the last answer's deadline
            sock.settimeout(self._request_timeout_s)
            self._timeout_s = self._request_timeout_s
        progress = [] if progress is None else progress
        total = len(frames)
        progress.append(total)
        try:
            while (written := sum(progress) - total) < total:
                # send() and the record of what it wrote, both in C with no Python bytecode in between, where a
                # Ctrl-C could strike: sendall() cannot tell how much it wrote before an interruption.
                progress.extend(map(sock.send, (frames[written:],)))
        except OSError as error:
            raise Dropped(f"sending failed: {error!r}") from None

    def fileno(self) -> int:
        """The socket's file descriptor (-1 once closed). Readable means an answer has started to arrive:
        frames are read straight from the socket, nothing is buffered ahead here."""
        sock = self.ws.sock
        return -1 if sock is None else sock.fileno()

    def receive(self, timeout_s: float) -> memoryview:
        """The next whole message; TimeoutError if it has not arrived within `timeout_s` (a silence that long,
        or a game that keeps sending bits of it, or pings, for longer).

        The answer is a view of a buffer reused by the next receive(): parse it before reading again.
        Frames are read here rather than by websocket-client, straight into that buffer with recv_into:
        for observations of a few hundred kB this takes a third of the time websocket-client does.
        """
        self._request_timeout_s = timeout_s
        if timeout_s != self._timeout_s:
            self.ws.settimeout(timeout_s)
            self._timeout_s = timeout_s
        self._deadline = time.monotonic() + timeout_s
        try:
            return self._read_message()
        except (TimeoutError, websocket.WebSocketTimeoutException):
            raise TimeoutError(f"no answer within {timeout_s:g} s") from None
        except OSError as error:
            raise Dropped(repr(error)) from None
        except MemoryError:
            raise Dropped("no memory for the game's answer") from None

    def _wait_readable(self) -> None:
        """Wait here, not inside recv, for the answer's first bytes: a Ctrl-C during this wait has taken nothing
        off the stream, so the answer can still be read whole later; one just after a recv may have taken bytes
        (see _read_into)."""
        sock = self.ws.sock
        if sock is None or sock.fileno() < 0:
            raise Dropped("the connection is closed")
        if self.spin.wait(sock.fileno()):
            return
        poll = poller((sock.fileno(),)).poll
        while not poll(max(0.0, min(self._deadline - time.monotonic(), _LONGEST_POLL_S)) * 1000):
            if time.monotonic() >= self._deadline:
                raise TimeoutError

    def _read_message(self) -> memoryview:
        """One data message, answering pings and joining continuation frames on the way."""
        size = 0
        while True:
            if self.between_messages:  # also after a ping between two answers
                self._wait_readable()
            fin, opcode, length = self._read_header()
            if opcode >= ABNF.OPCODE_CLOSE:  # control frames: never fragmented, at most 125 bytes
                payload = bytes(self._read_into(0, length, scratch=True))
                if opcode == ABNF.OPCODE_CLOSE:
                    raise Dropped(f"the game closed the websocket{_close_reason(payload)}")
                if opcode == ABNF.OPCODE_PING:
                    self.send_control(ABNF.OPCODE_PONG, payload)
                self.between_messages = size == 0
                continue
            if size + length > self.max_message_bytes:  # fragments adding up past the limit
                raise MessageTooBig(size + length, self.max_message_bytes)
            self._read_into(size, length)
            size += length
            if fin:
                self.messages_read += 1  # first: an interruption between the two then gives the game up
                self.between_messages = True
                return memoryview(self._buffer)[:size]

    def _read_header(self) -> tuple[bool, int, int]:
        head = self._read_into(0, 2, scratch=True)
        fin, opcode, masked, length = head[0] >> 7, head[0] & 0x0F, head[1] >> 7, head[1] & 0x7F
        if length >= 126:
            extended = self._read_into(0, 2 if length == 126 else 8, scratch=True)
            length = int.from_bytes(extended, "big")
        if masked:  # servers never mask their frames (RFC 6455 5.1)
            raise Dropped("the game sent a masked frame, which a websocket server must not do")
        if opcode >= ABNF.OPCODE_CLOSE and (length > 125 or not fin):
            raise Dropped(
                f"the game sent a control frame of {length} bytes{'' if fin else ', fragmented'}: "
                "websocket control frames are whole and at most 125 bytes (RFC 6455 5.5)"
            )
        if length > self.max_message_bytes:
            raise MessageTooBig(length, self.max_message_bytes)
        return bool(fin), opcode, length

    def _read_into(self, start: int, length: int, *, scratch: bool = False) -> memoryview:
        """Read exactly `length` bytes into the message buffer at `start` (or into the scratch buffer).

        The message buffer grows as bytes arrive (doubling), never to a length a frame header only announces:
        a corrupt or hostile header must cost neither the memory nor the time of allocating it.
        """
        buffer = self._scratch if scratch else self._buffer
        got = 0
        sock = self.ws.sock
        if sock is None:
            raise Dropped("the connection is closed")
        while got < length:
            left = (
                self._deadline - time.monotonic()
            )  # a game that drips bytes or pings must not hold us forever
            if left <= 0:
                raise TimeoutError
            if self._timeout_s is None or left < self._timeout_s - 0.01:  # no silence outlasts the deadline
                sock.settimeout(left)  # (by 10 ms at most: a message read in one go never gets here)
                self._timeout_s = left
            if not scratch and start + got >= len(buffer):  # full: room for what comes next, at most double
                grown = min(start + length, 2 * len(buffer))
                buffer = self._buffer = self._buffer + bytearray(grown - len(buffer))
            room = min(length - got, len(buffer) - start - got)
            # Mid-message from before the call: an interruption as it returns may have taken bytes off the stream.
            self.between_messages = False
            n = sock.recv_into(memoryview(buffer)[start + got : start + got + room], room)
            if n == 0:
                raise Dropped("the game closed the connection")
            got += n
        return memoryview(buffer)[start : start + length]

    def send_control(self, opcode: int, payload: bytes = b"") -> None:
        """Send a control frame (a pong, say)."""
        try:
            self.ws.sock.sendall(ABNF.create_frame(payload, opcode).format())  # type: ignore[union-attr]  # None once closed: AttributeError, below
        except (AttributeError, OSError) as error:
            raise Dropped(f"sending failed: {error!r}") from None

    def close(self, graceful: bool = True) -> None:
        """Close; `graceful` sends a websocket close and waits briefly for the game's, else just hangs up."""
        try:
            if graceful and self.ws.connected:
                self.ws.close(timeout=1.0)
        except (OSError, websocket.WebSocketException):
            pass
        finally:
            self.ws.shutdown()


def sent_state(progress: list[int]) -> str:
    """How much of a send() was written, from its `progress`: "none", "part" or "all"."""
    if len(progress) < 2 or not sum(progress[1:]):
        return "none"
    return "all" if sum(progress[1:]) == progress[0] else "part"


def binary_frames(payloads: Sequence[bytes]) -> bytes:
    """Client BINARY frames, each masked with a fresh random key (RFC 6455 5.3), back to back.

    Built here rather than by websocket-client, whose per-frame objects and Python masking cost about
    3 us a frame; `websockets` masks in C.
    """
    keys = os.urandom(4 * len(payloads))
    out: list[bytes] = []
    for i, payload in enumerate(payloads):
        n = len(payload)
        if n < 126:
            head = bytes((0x82, 0x80 | n))
        elif n < 1 << 16:
            head = bytes((0x82, 0xFE)) + n.to_bytes(2, "big")
        else:
            head = bytes((0x82, 0xFF)) + n.to_bytes(8, "big")
        key = keys[4 * i : 4 * i + 4]
        out += (head, key, apply_mask(payload, key))
    return b"".join(out)


def _close_reason(data: bytes) -> str:
    if len(data) < 2:
        return ""
    code = int.from_bytes(data[:2], "big")
    reason = data[2:].decode("utf-8", "replace")
    return f" (code {code}{': ' + reason if reason else ''})"
