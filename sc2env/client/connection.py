"""One websocket to a game process: whole binary messages out in one write, whole messages in."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

import websocket
from websocket import ABNF


class Dropped(Exception):
    """The connection closed or failed; the message says how."""


class Connection:
    """A websocket-client socket used synchronously: send a batch of messages, then read answers."""

    def __init__(self, ws: websocket.WebSocket, url: str):
        self.ws = ws
        self.url = url
        self._timeout_s: float | None = ws.gettimeout()

    @classmethod
    def open(cls, url: str, timeout_s: float, *, gave_up: Callable[[], bool] = lambda: False) -> Connection:
        """Connect, retrying while the game is not listening yet (or still busy with a previous client).

        Raises TimeoutError after `timeout_s`, or Dropped as soon as `gave_up()` is true (the process died).
        """
        deadline = time.monotonic() + timeout_s
        delay = 0.01
        while True:
            remaining = deadline - time.monotonic()
            try:
                ws = websocket.create_connection(
                    url, timeout=max(0.05, min(remaining, 10.0)), enable_multithread=False,
                    skip_utf8_validation=True)
                return cls(ws, url)
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

    def send(self, payloads: Sequence[bytes]) -> None:
        """Write every payload as a BINARY frame, all in one write (pipelining: one round trip)."""
        frames = b"".join(ABNF.create_frame(p, ABNF.OPCODE_BINARY).format() for p in payloads)
        try:
            self.ws.sock.sendall(frames)
        except AttributeError:  # sock is None: closed
            raise Dropped("the connection is closed") from None
        except OSError as error:
            raise Dropped(f"sending failed: {error!r}") from None

    def receive(self, timeout_s: float) -> bytes:
        """The next whole message; TimeoutError if nothing complete arrives within `timeout_s` of silence."""
        if timeout_s != self._timeout_s:
            self.ws.settimeout(timeout_s)
            self._timeout_s = timeout_s
        try:
            opcode, data = self.ws.recv_data()
        except (TimeoutError, websocket.WebSocketTimeoutException):
            raise TimeoutError(f"no answer within {timeout_s:g} s") from None
        except (OSError, websocket.WebSocketException) as error:
            raise Dropped(repr(error)) from None
        if opcode == ABNF.OPCODE_CLOSE:
            raise Dropped(f"the game closed the websocket{_close_reason(data)}")
        return data

    def close(self, graceful: bool = True) -> None:
        """Close; `graceful` sends a websocket close and waits briefly for the game's, else just hangs up."""
        try:
            if graceful and self.ws.connected:
                self.ws.close(timeout=1.0)
        except (OSError, websocket.WebSocketException):
            pass
        finally:
            self.ws.shutdown()


def _close_reason(data: bytes) -> str:
    if len(data) < 2:
        return ""
    code = int.from_bytes(data[:2], "big")
    reason = data[2:].decode("utf-8", "replace")
    return f" (code {code}{': ' + reason if reason else ''})"
