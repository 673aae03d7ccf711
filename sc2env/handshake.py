"""Open a websocket whose whole opening handshake, not each read of it, is bounded by one deadline."""

from __future__ import annotations

import contextlib
import socket
import threading
import urllib.parse

import websocket


def open_websocket(url: str, timeout_s: float, **options) -> websocket.WebSocket:
    """websocket.create_connection with the whole handshake bounded by `timeout_s`.

    websocket-client's timeout bounds each read only: a game that answered the handshake a byte at a time
    would hold it for ever. At the deadline the socket is shut down, which ends the read in progress.
    Redirects are not followed: a game's port answers for that game only.
    """
    parts = urllib.parse.urlsplit(url)
    sock = socket.create_connection((parts.hostname, parts.port or 80), timeout=timeout_s)
    for (
        option
    ) in websocket.DEFAULT_SOCKET_OPTION:  # what websocket-client sets on sockets it opens (TCP_NODELAY)
        sock.setsockopt(*option)
    lock, cut = threading.Lock(), []

    def cut_off() -> None:
        with lock:
            cut.append(True)
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    timer = threading.Timer(timeout_s, cut_off)
    timer.daemon = True
    try:
        timer.start()
        try:
            ws = websocket.create_connection(url, timeout=timeout_s, socket=sock, redirect_limit=0, **options)
        finally:
            timer.cancel()
        with lock:  # from here on the timer has cut the socket, or never will
            if not cut:
                return ws
    except (OSError, websocket.WebSocketException):
        if not cut:  # refused, a bad status, a close: the caller's to judge
            sock.close()
            raise
    except BaseException:
        sock.close()
        raise
    sock.close()
    raise websocket.WebSocketTimeoutException(
        f"the game accepted the connection but did not complete the websocket handshake within {timeout_s:g} s"
    )
