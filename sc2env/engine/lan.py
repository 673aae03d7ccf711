"""Two engine processes of one game, linked over their join ports: the host's listener and the guest's relay.

The engine that got `create_game` hosts: it runs the one simulation. Its own player joins with `server_ports`;
it then listens on `server_ports.game_port`. The other player's engine, and each observer's, gets `join_game`
(with the same ports) in status `launched`: it connects to the host there and from then on relays its
client's requests over the link, and the host's answers back. On the host a Session per linked engine answers
its client, sharing the Match. Messages on a link are a 4-byte big-endian length and a serialized Request or
Response.
"""

from __future__ import annotations

import socket
import struct
import time
from collections import deque
from dataclasses import dataclass

from google.protobuf.message import DecodeError
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env.engine.session import DEFERRED, LAUNCHED, Session

_HEADER = struct.Struct(">I")
_RECV_BYTES = 1 << 18
# How long a joining player's engine keeps trying to reach the host (the host listens once its own player
# has joined; PySC2 sends both joins at once).
LINK_TIMEOUT_S = 30.0
_RETRY_S = 0.05
LOOPBACK = "127.0.0.1"


class Link:
    """One TCP connection carrying length-prefixed messages."""

    def __init__(self, sock: socket.socket) -> None:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sock = sock
        self._buffer = bytearray()

    def send(self, messages: list[bytes]) -> bool:
        """Write the messages; False when the other end is gone."""
        try:
            self.sock.sendall(b"".join(_HEADER.pack(len(m)) + m for m in messages))
        except OSError:
            return False
        return True

    def receive(self) -> list[bytes] | None:
        """The messages completed by what the socket has now; None when the other end closed."""
        try:
            data = self.sock.recv(_RECV_BYTES)
        except OSError:
            data = b""
        if not data:
            return None
        buffer = self._buffer
        buffer += data
        messages, start = [], 0
        while len(buffer) - start >= _HEADER.size:
            (size,) = _HEADER.unpack_from(buffer, start)
            if len(buffer) - start - _HEADER.size < size:
                break
            start += _HEADER.size
            messages.append(bytes(buffer[start : start + size]))
            start += size
        del buffer[:start]
        return messages

    def close(self) -> None:
        self.sock.close()


@dataclass
class _Guest:
    """A linked engine's client, as the host answers it: the link and the Session sharing the Match."""

    link: Link
    session: Session


class Lan:
    """What the server hands each request to: the session, or the host's engine while this one relays.

    `answer(request) -> pieces` (empty: the answer comes later, from `ready()`); `sockets()` and
    `readable(sock)` put the link's sockets in the server's select loop.
    """

    def __init__(self, session: Session) -> None:
        self.session = session
        self.listener: socket.socket | None = None
        self.listen_port = 0
        self.link: Link | None = None  # joined elsewhere: the link to the host
        self.guests: dict[socket.socket, _Guest] = {}  # hosting: the linked engines (a player's, observers')
        self.relaying: deque[tuple[int | None, str]] | None = None  # joined elsewhere: (id, kind) forwarded
        self._relayed: list[bytes] = []  # answers from the host not yet given to the client
        # Why the last linked game ended, for requests that still expect it: the link can close between a
        # client's sending a step and this engine's reading it, and "not valid in status launched" (guest) or
        # "Game has already ended" (host) alone would not say that the other engine is gone.
        self._lost_reason: str | None = None

    # ---- the server's side --------------------------------------------------------------------------
    def answer(self, data: bytes) -> list[bytes | bytearray]:
        if self.relaying is not None:
            return self._forward(data)
        if self.session.status == LAUNCHED:
            request = _request(data)
            if request is not None and request.WhichOneof("request") == "join_game":
                join = request.join_game
                if join.HasField("server_ports"):
                    return self._join_remote(data, request)
        pieces = self.session.answer(data)
        self._sync()
        if self._lost_reason is not None:
            pieces = self._say_lost(data, pieces)
        return pieces

    def _say_lost(self, data: bytes, pieces: list[bytes | bytearray]) -> list[bytes | bytearray]:
        """Put the lost engine first in an answer refused for the status its loss left; a new game forgets it."""
        request = _request(data)
        kind = request.WhichOneof("request") if request is not None else None
        if kind in ("create_game", "join_game", "start_replay", "leave_game"):
            self._lost_reason = None
            return pieces
        if len(pieces) != 1:
            return pieces
        response = sc_pb.Response.FromString(bytes(pieces[0]))
        if not response.error:
            return pieces
        errors = [f"{kind}: {self._lost_reason}", *response.error]
        del response.error[:]
        response.error.extend(errors)
        return [response.SerializeToString()]

    def ready(self) -> list[bytes]:
        """Answers for this engine's client that came in since the last call, in order."""
        out, self._relayed = self._relayed, []
        out += self.session.take_ready()
        for guest in list(self.guests.values()):
            answers = guest.session.take_ready()
            if answers and not guest.link.send(answers):
                self._guest_lost(guest)
        self._sync()
        return out

    @property
    def active(self) -> bool:
        return self.listener is not None or self.link is not None or bool(self.guests)

    def sockets(self) -> list[socket.socket]:
        # The listener is watched only once this engine's player has joined a game it hosts (the slots are
        # taken in joining order): the other player's engine may link before that (a new seed's game, right
        # after both left the last one), and it then waits in the backlog rather than being turned away.
        hosting = self.session.match is not None and self.session.listen_port == self.listen_port
        listener = self.listener if hosting else None
        links = [self.link.sock] if self.link is not None else list(self.guests)
        return [s for s in (listener, *links) if s is not None]

    def readable(self, sock: socket.socket) -> None:
        if sock is self.listener:
            self._accept()
        elif self.link is not None and sock is self.link.sock:
            messages = self.link.receive()
            if messages is None:
                self._host_lost()
            else:
                self._answers_from_host(messages)
        elif sock in self.guests:
            guest = self.guests[sock]
            messages = guest.link.receive()
            if messages is None:
                self._guest_lost(guest)
            else:
                self._requests_from_guest(guest, messages)

    def close(self) -> None:
        self._drop_link()
        for guest in list(self.guests.values()):
            self._drop_guest(guest)
        if self.listener is not None:
            self.listener.close()
            self.listener = None

    def _drop_link(self) -> None:
        if self.link is not None:
            self.link.close()
            self.link = None

    def _drop_guest(self, guest: _Guest) -> None:
        self.guests.pop(guest.link.sock, None)
        guest.link.close()

    # ---- hosting ------------------------------------------------------------------------------------
    def _sync(self) -> None:
        """Listen once this engine hosts a two-player game, and on between its games (the port stays this
        engine's: nothing else can take it, and an early guest waits in the backlog); drop a guest's link once
        it is done with the game and so is this engine's player (a guest that left before is answered from
        the game it left until its engine ends the link)."""
        port = self.session.listen_port if self.session.match is not None else None
        if port and (self.listener is None or port != self.listen_port):
            if self.listener is not None:
                self.listener.close()
                self.listener = None
            try:
                self.listener = socket.create_server((LOOPBACK, port), backlog=8)  # players and observers
                self.listen_port = port
            except OSError as e:
                self.session.lost(
                    f"join_game: this engine hosts the game and cannot listen for the other player's engine "
                    f"on {LOOPBACK}:{port} (server_ports.game_port): {e}; pick free ports"
                )
        if self.session.match is None:
            for guest in list(self.guests.values()):
                if guest.session.match is None:
                    self._drop_guest(guest)

    def _accept(self) -> None:
        assert self.listener is not None
        try:
            sock, _ = self.listener.accept()
        except OSError:
            return
        match = self.session.match
        # Linked engines not yet seated: each will take a free seat (a player's or an observer's).
        unseated = sum(g.session.player_id is None and g.session.match is match for g in self.guests.values())
        if match is None or match.free_slots <= unseated:
            sock.close()  # no seat for it: its join_game gets a clear error from its own engine
            return
        for guest in list(self.guests.values()):  # the last game's, that the host's player left already
            if guest.session.match is None:
                self._drop_guest(guest)
        link = Link(sock)
        self.guests[sock] = _Guest(link, Session(self.session.data_dir, match=match))

    def _requests_from_guest(self, guest: _Guest, messages: list[bytes]) -> None:
        remote, link = guest.session, guest.link
        answers = []
        for message in messages:
            pieces = remote.answer(message)
            if pieces:
                answers.append(b"".join(pieces))
        answers += remote.take_ready()
        if answers and not link.send(answers):
            self._guest_lost(guest)
            return
        self._sync()  # the guest's leave_game: the link goes now, before its engine closes it

    def _guest_lost(self, guest: _Guest) -> None:
        self._drop_guest(guest)
        remote = guest.session
        # Joined and never left: its engine is gone.
        if remote.player_id is not None and remote.match is not None:
            member = remote.player_id
            observer = remote.match.is_observer(member)
            reason = (
                f"{'observer' if observer else 'player'} {member}'s engine process is gone: its link to this "
                f"host closed without leave_game (the process quit, crashed or was killed)"
            )
            if not observer:  # an observer's loss ends nothing: the players go on
                self._lost_reason = reason = f"{reason}; the game has ended undecided"
            remote.lost(reason)
        self._sync()

    # ---- joining another engine's game --------------------------------------------------------------
    def _join_remote(self, data: bytes, request: sc_pb.Request) -> list[bytes | bytearray]:
        join = request.join_game
        host = join.host_ip or LOOPBACK
        port = join.server_ports.game_port
        deadline = time.monotonic() + LINK_TIMEOUT_S
        while True:
            try:
                sock = socket.create_connection((host, port), timeout=LINK_TIMEOUT_S)
                break
            except OSError as e:
                if time.monotonic() >= deadline:
                    return [_error_answer(request, self.session.status, _join_failed(host, port, e))]
                time.sleep(_RETRY_S)
        sock.settimeout(None)
        self.link = Link(sock)
        self.relaying = deque()
        return self._forward(data, request)

    def _forward(self, data: bytes, request: sc_pb.Request | None = None) -> list[bytes | bytearray]:
        assert self.relaying is not None and self.link is not None
        request = request if request is not None else _request(data)
        kind = request.WhichOneof("request") if request is not None else None
        if kind == "quit":  # this engine quits; the host sees the link close
            self._end_relay()
            return self.session.answer(data)
        self.relaying.append(
            (request.id if request is not None and request.HasField("id") else None, kind or "")
        )
        if not self.link.send([data]):
            self._host_lost()
        return DEFERRED

    def _answers_from_host(self, messages: list[bytes]) -> None:
        assert self.relaying is not None
        for message in messages:
            self._relayed.append(message)
            _, kind = self.relaying.popleft() if self.relaying else (None, "")
            if kind == "leave_game" or (kind == "join_game" and _failed_join(message)):
                self._end_relay()
                return

    def _end_relay(self) -> None:
        self.relaying = None
        self._drop_link()

    def _host_lost(self) -> None:
        waiting, self.relaying = self.relaying or deque(), None
        reason = (
            "the engine hosting this two-player game is gone: the link to it closed (its process quit, crashed "
            "or was killed); the game is over here too"
        )
        self._lost_reason = reason
        for request_id, kind in waiting:
            response = sc_pb.Response(status=LAUNCHED)
            if request_id is not None:
                response.id = request_id
            response.error.append(f"{kind}: {reason}" if kind else reason)
            self._relayed.append(response.SerializeToString())
        self._drop_link()


def _request(data: bytes) -> sc_pb.Request | None:
    try:
        return sc_pb.Request.FromString(data)
    except (DecodeError, RuntimeError, ValueError):
        return None


def _failed_join(message: bytes) -> bool:
    try:
        response = sc_pb.Response.FromString(message)
    except (DecodeError, RuntimeError, ValueError):
        return True
    return bool(response.error) or response.join_game.HasField("error") or response.status != sc_pb.in_game


def _join_failed(host: str, port: int, error: OSError) -> str:
    return (
        f"join_game: no engine hosts a game at {host}:{port} (server_ports.game_port): {error}. The host is "
        f"the engine that got create_game; its own player must join with the same server_ports within "
        f"{LINK_TIMEOUT_S:g} s"
    )


def _error_answer(request: sc_pb.Request, status: sc_pb.Status.ValueType, message: str) -> bytes:
    response = sc_pb.Response(status=status)
    if request.HasField("id"):
        response.id = request.id
    response.join_game.error = sc_pb.ResponseJoinGame.NetworkError
    response.join_game.error_details = message
    return response.SerializeToString()
