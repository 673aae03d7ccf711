"""Controller: one websocket connection to one game process, with a method per SC2 API request."""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from google.protobuf.message import Message
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env import errors
from sc2env.client.connection import (
    DEFAULT_MAX_MESSAGE_BYTES,
    DEFAULT_SPIN_WAIT_S,
    Connection,
    Dropped,
    MessageTooBig,
    sent_state,
)
from sc2env.client.protocol import VALID_STATUSES, Protocol, status_name
from sc2env.client.requests import GameRequests

if TYPE_CHECKING:
    from sc2env.launch import GameProcess

DEFAULT_TIMEOUT_S = 120.0
DEFAULT_CONNECT_TIMEOUT_S = 30.0
# A game that dies closes its socket a moment before the kernel reports its exit.
_DEATH_GRACE_S = 1.0


class Controller(GameRequests):
    """Talks to one game process over one websocket; use from one thread at a time.

    `Controller(process)` connects to a GameProcess from `launch()`; `Controller.connect(url)` to any SC2
    API endpoint. Every request method returns the typed sub-response (`observation()` returns a
    ResponseObservation) and raises, without sending, a ProtocolError if the request is invalid in the
    current `status`. Answers are checked: `Response.error` raises ProtocolError, a typed error such as
    ResponseCreateGame.error raises RequestError, silence beyond the request's timeout raises
    RequestTimeoutError, and a lost connection raises ConnectionError, or GameCrashedError with the exit
    status and last output when the game process died. After a timeout or a lost connection the
    Controller is closed.

    timeout_s: seconds to wait for each answer; `timeouts` overrides it per request ({"create_game": 300}).
    spin_wait_s: poll for each answer this long before sleeping (adaptive, see sc2env.spinwait; 0: never).
    max_message_bytes: the longest answer taken (256 MiB); a longer one raises ProtocolError, unread.
    """

    def __init__(
        self,
        target: GameProcess | str,
        *,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        timeouts: Mapping[str, float] | None = None,
        connect_timeout_s: float = DEFAULT_CONNECT_TIMEOUT_S,
        spin_wait_s: float = DEFAULT_SPIN_WAIT_S,
        max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
    ):
        if isinstance(target, str):
            self.url, self.process = target, None
        else:
            self.url, self.process = target.url, target
        unknown = sorted(set(timeouts or ()) - set(VALID_STATUSES))
        if unknown:
            raise ValueError(f"timeouts names unknown requests {unknown}; known: {', '.join(VALID_STATUSES)}")
        self.timeout_s = timeout_s
        self.timeouts: dict[str, float] = dict(timeouts or {})
        self._protocol = Protocol()
        self._closed_because: str | None = None
        self._connection: Connection | None = None
        # A forked child inherits the socket; its requests (a quit on close, say) would reach our game.
        self._owner_pid = os.getpid()
        self._pending: Pending | None = None
        self._unread: Pending | None = None  # answers a Ctrl-C left unread, read before the next request
        self._status_unknown = False
        process = self.process
        ready = process.claim_connection() if process is not None else None
        try:
            if ready is not None:
                self._connection = Connection(ready, self.url, spin_wait_s, max_message_bytes)
            else:
                self._connection = Connection.open(
                    self.url,
                    connect_timeout_s,
                    gave_up=lambda: process is not None and not process.running,
                    spin_wait_s=spin_wait_s,
                    max_message_bytes=max_message_bytes,
                )
        except Dropped:
            self._closed_because = "a failed connect"
            raise self._lost("connect", "it exited before accepting a connection") from None
        except TimeoutError as error:
            self._closed_because = "a failed connect"
            raise errors.ConnectionError(f"{error}. Is the game running and listening there?") from None
        try:
            self.ping()  # learn the game's status: it may be mid-game if another client set it up
        except BaseException:
            self.close()
            raise

    @classmethod
    def connect(
        cls,
        url: str,
        *,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        timeouts: Mapping[str, float] | None = None,
        connect_timeout_s: float = DEFAULT_CONNECT_TIMEOUT_S,
        spin_wait_s: float = DEFAULT_SPIN_WAIT_S,
        max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
    ) -> Controller:
        """A Controller for the SC2 API endpoint at `url` ("ws://127.0.0.1:5000/sc2api")."""
        return cls(
            url,
            timeout_s=timeout_s,
            timeouts=timeouts,
            connect_timeout_s=connect_timeout_s,
            spin_wait_s=spin_wait_s,
            max_message_bytes=max_message_bytes,
        )

    @property
    def status(self) -> int:
        """The game's last reported sc2api_pb2.Status (launched, init_game, in_game, ended, ...)."""
        return self._protocol.status

    @property
    def closed(self) -> bool:
        return self._closed_because is not None

    def quit(self) -> None:
        """Ask the game to exit and close the connection; the game sends no answer worth waiting for."""
        if self.closed:
            return
        if self._forked():  # the game is our parent's: let go of our copy of the socket, quit nothing
            self._close("quit() in a forked copy of its process", graceful=False)
            return
        request = self._protocol.make_request("quit", sc_pb.RequestQuit())
        connection = self._connection
        assert connection is not None  # open (not closed): connected
        with contextlib.suppress(Dropped):  # already gone: quitting is done
            connection.send([request.SerializeToString()])
        self._protocol.status = sc_pb.quit
        self._close("quit", graceful=False)

    # --- generic ----------------------------------------------------------------------------------

    def begin(self, requests: Sequence[tuple[str, Message]], *, optional: int = 0) -> Pending:
        """The sending half of pipeline(): write the requests now, read the answers with `.finish()`.

        Until then no other request may be sent on this Controller. The last `optional` requests may be
        refused (a query the game no longer takes once the step ended the game): their answer is then None,
        and nothing is raised for them.
        """
        self._require_open()
        if self._pending is not None:
            raise errors.ProtocolError(
                f"{self.url} still has unanswered requests ({', '.join(self._pending.kinds)}): call .finish() "
                "on the Pending that begin() returned before sending more."
            )
        if self._unread is not None or self._status_unknown:  # the answers a Ctrl-C left, or what they did
            self.read_unread()
        made = [self._protocol.make_request(kind, message) for kind, message in requests]
        pending = Pending(self, made, [kind for kind, _ in requests], self._protocol.status, optional)
        if not requests:
            return pending
        payloads = [request.SerializeToString() for request in made]
        progress: list[int] = []
        connection = self._connection
        assert connection is not None  # open (checked above): connected
        try:
            self._pending = (
                pending  # before the write: a Ctrl-C just after it leaves the answers owed, not lost
            )
            connection.send(payloads, progress)
        except Dropped as error:
            raise self._lost(requests[0][0], str(error)) from None
        except BaseException:  # interrupted (Ctrl-C): what the game got decides
            state = sent_state(progress)
            if state == "none":
                self._pending = None
            elif state == "part":  # the stream is cut mid-frame
                self._close("a request interrupted while it was being sent", graceful=False)
            else:  # all written, but the caller never gets the Pending: its answers are read and dropped
                self._interrupted(pending)
            raise
        return pending

    def read_unread(self) -> None:
        """Read and drop the answers a read interrupted by Ctrl-C left on the socket, so that the next
        request's answers are its own (the game acted on those requests; their answers are lost). Every
        request does this first; call it before reading `status` after an interruption."""
        pending = self._unread
        if pending is not None:
            with contextlib.suppress(errors.ProtocolError, errors.RequestError):
                self._finish(pending)
            self._unread = None
        if self._status_unknown:  # an answer was lost unparsed: ask the game
            self._status_unknown = False  # first: the ping goes through begin(), which would ask again
            try:
                self.ping()
            except BaseException:
                self._status_unknown = True
                raise

    def abandon_pending(self) -> None:
        """Give up the answers of a Pending from begin() that was never finished (its caller was interrupted
        in between): they are read and dropped before the next request, so the game stays usable."""
        if self._pending is not None:
            self._pending.abandon()

    def _finish(self, pending: Pending) -> list:
        if pending.answers is not None:
            return pending.answers
        self._require_open()  # a forked copy must not read the parent's answers either
        try:
            self._read_answers(pending)
        except KeyboardInterrupt:  # Ctrl-C, wherever it struck: keep the game if the stream is still whole
            if not self.closed:
                self._interrupted(pending)
            raise
        except BaseException as error:  # anything else unforeseen: the stream's position is unknown
            if not self.closed:
                self._close(f"an error while reading answers ({error!r})", graceful=False)
            raise
        if self._unread is pending:
            self._unread = None
        pending.answers = pending.got
        if pending.failure is not None:
            raise pending.failure
        return pending.answers

    def _read_answers(self, pending: Pending) -> None:
        if self._pending is pending:
            self._pending = None
        got = pending.got  # kept on the Pending: an interrupted read resumes where it stopped
        connection = self._connection
        assert connection is not None  # open (checked by _finish): connected
        pending.read_base = connection.messages_read - len(got)
        # The first answer's wait counts from the send (several games read one after another all time out
        # together), a resumed read's from now, and each later answer's from the one before.
        since, pending.sent_at = pending.sent_at or time.monotonic(), None
        while len(got) < len(pending.made):
            request, kind = pending.made[len(got)], pending.kinds[len(got)]
            timeout_s = self.timeouts.get(kind, self.timeout_s)
            waited = time.monotonic() - since
            try:  # (a wait under a second is not taken off: the socket's timeout then stays as it was)
                data = connection.receive(max(timeout_s - waited, 0.001) if waited > 1.0 else timeout_s)
            except TimeoutError:
                raise self._timed_out(kind, timeout_s) from None
            except MessageTooBig as error:
                raise self._too_big(kind, error) from None
            except Dropped as error:
                raise self._lost(kind, str(error)) from None
            since = time.monotonic()
            try:
                got.append(self._protocol.read_response(request, data, pending.sent_status))
            except (errors.ProtocolError, errors.RequestError) as error:
                if len(got) < len(pending.made) - pending.optional:
                    pending.failure = pending.failure or error
                got.append(None)
            except errors.ConnectionError as error:
                self._close(f"an answer out of step ({error})", graceful=False)
                raise

    # --- lifecycle ---------------------------------------------------------------------------------

    def close(self) -> None:
        """Close the websocket (the game keeps running; see quit() and GameProcess.close()). Idempotent."""
        if not self.closed:
            self._close("close()", graceful=not self._forked())

    def __enter__(self) -> Controller:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def __repr__(self) -> str:
        state = f"closed after {self._closed_because}" if self.closed else status_name(self.status)
        return f"<Controller {self.url} {state}>"

    def _close(self, because: str, graceful: bool) -> None:
        self._closed_because = because
        if self._connection is not None:
            self._connection.close(graceful=graceful)

    def _forked(self) -> bool:
        return os.getpid() != self._owner_pid

    def _require_open(self) -> None:
        if self._forked():
            raise errors.ConnectionError(
                f"This Controller for {self.url} belongs to process {self._owner_pid}; this is a forked copy "
                f"(pid {os.getpid()}), whose requests would mix with the parent's on the same socket. Make a "
                "new env (or Controller and game) in the child instead."
            )
        if self.closed:
            raise errors.ConnectionError(
                f"This Controller for {self.url} was closed after {self._closed_because}; connect a new one "
                "(after a timeout or crash, usually to a new game; an SC2Env does that at its next reset())."
            )

    def _interrupted(self, pending: Pending) -> None:
        connection = self._connection
        assert connection is not None  # answers were owed: it was connected
        if pending.read_base is not None:
            # Answers taken off the stream but not recorded (a Ctrl-C as one was returned or parsed) are
            # lost, and with them what they did to the status.
            while len(pending.got) < connection.messages_read - pending.read_base:
                pending.got.append(None)
                self._status_unknown = True
        if connection.between_messages:
            self._unread = pending
        else:
            self._close("an answer interrupted half-read", graceful=False)
        if (
            self._pending is pending
        ):  # last: a second Ctrl-C before here leaves the answers still accounted for
            self._pending = None

    def _timed_out(self, kind: str, timeout_s: float) -> errors.ConnectionError:
        # A late answer would arrive for the wrong request: this connection is finished.
        self._close(f"`{kind}` timed out", graceful=False)
        process = self.process
        if process is not None and process.wait(0) is not None:
            return errors.GameCrashedError(f"`{kind}` got no answer: {process.exit_summary()}")
        where = f"; {process.description} (pid {process.pid}) is still running" if process else ""
        return errors.RequestTimeoutError(
            f"`{kind}` got no answer from {self.url} within {timeout_s:g} s{where}. The game may be hung or "
            "overloaded: close it, or raise the timeout (SC2Env / gym.make(..., request_timeout_s=...); "
            f"Controller(timeout_s=..., timeouts={{'{kind}': ...}}))."
        )

    def _too_big(self, kind: str, error: MessageTooBig) -> errors.ProtocolError:
        # The rest of the answer is still on the stream: this connection is finished.
        self._close(f"an answer to `{kind}` over the size limit", graceful=False)
        return errors.ProtocolError(
            f"The answer to `{kind}` from {self.url} is {error.size} bytes or more, over this client's limit "
            f"of {error.limit} bytes, and was not read; the connection is closed. If answers that big are "
            "meant (feature layers or renders at a high resolution), raise the limit: "
            "Controller(..., max_message_bytes=...)."
        )

    def _lost(self, kind: str, how: str) -> errors.ConnectionError:
        if not self.closed:
            self._close(f"the connection dropped during `{kind}`", graceful=False)
        process = self.process
        if process is not None and process.wait(_DEATH_GRACE_S) is not None:
            return errors.GameCrashedError(f"The game died during `{kind}` ({how}): {process.exit_summary()}")
        if process is not None:
            state = f"{process.description} (pid {process.pid}) is still running; close it and start anew"
        else:
            state = "the game may have crashed or closed the connection"
        return errors.ConnectionError(f"Lost the connection to {self.url} during `{kind}` ({how}); {state}.")


class Pending:
    """Requests written by Controller.begin() whose answers are still to be read."""

    def __init__(
        self, controller: Controller, made: list, kinds: list[str], sent_status: int, optional: int = 0
    ):
        self.controller = controller
        self.made = made
        self.kinds = kinds
        self.sent_status = sent_status
        self.optional = optional  # the last requests whose refusal is no failure (their answer: None)
        self.answers: list | None = None if made else []
        self.got: list = []  # answers read so far (None for refused or lost ones)
        self.read_base: int | None = None  # the connection's messages_read before this Pending's first answer
        self.failure: errors.SC2EnvError | None = None
        self.sent_at: float | None = time.monotonic()  # until the first read starts

    def finish(self) -> list:
        """Read the answers in order (once; later calls return them again); raises like pipeline()."""
        return self.controller._finish(self)

    def abandon(self) -> None:
        """Never mind the answers (the caller was interrupted before reading them): the Controller reads and
        drops them before its next request, so the game stays usable."""
        controller = self.controller
        if self.answers is None and controller._pending is self:
            controller._interrupted(self)

    def fileno(self) -> int:
        """The socket the answers arrive on, for `select` over several games (finish() the first ready);
        -1 when nothing is left to read (answered, nothing sent, or the connection is closed)."""
        connection = self.controller._connection
        if self.answers is not None or connection is None:
            return -1
        return connection.fileno()
