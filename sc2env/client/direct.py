"""DirectController: the built-in engine in this process, behind the same requests as a game over a socket."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from google.protobuf.message import Message
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env import errors
from sc2env.client.protocol import Protocol, status_name
from sc2env.client.requests import GameRequests

if TYPE_CHECKING:
    from sc2env.engine.inprocess import InProcessEngine

IN_PROCESS = "the in-process built-in engine"


class DirectController(GameRequests):
    """Plays sc2env's built-in engine in the caller's process: no game process, socket or serialisation.

    Every request is checked against the status and every answer checked and typed by the same Protocol as a
    Controller's, and the engine answers exactly as its process would over a websocket (sc2env.engine's
    InProcessEngine): the observations, errors (ProtocolError, RequestError) and statuses are the same. A
    request runs to its end when it is sent, so `begin()` hands back answers already read and there is no
    timeout to apply or connection to lose. An interruption (Ctrl-C) while the engine works leaves its game
    half-updated: the controller is then closed, its next request raises ConnectionError, and a Match starts a
    new game at its next reset(), as it does for a game process that died.

    data_dir: a folder of mini-game definitions to offer instead of the shipped ones (the engine's -dataDir).
    """

    process = None  # no game process: for code that asks a controller for its process
    url = IN_PROCESS

    def __init__(self, data_dir: str | None = None):
        # Imported here: a program that plays over sockets (or the real game) never loads the engine.
        from sc2env.engine.inprocess import InProcessEngine

        self._engine: InProcessEngine | None = InProcessEngine(data_dir)
        self._protocol = Protocol()
        self._closed_because: str | None = None
        self.ping()  # as Controller does on connecting: the engine's status, and a first check that it answers

    @property
    def status(self) -> int:
        return self._protocol.status

    @property
    def closed(self) -> bool:
        return self._closed_because is not None

    def begin(self, requests: Sequence[tuple[str, Message]], *, optional: int = 0) -> Answered:
        """Answer the requests in order, now; `.finish()` on the result returns the answers, or raises the
        first failure of a request that is not among the last `optional` ones, as Controller's Pending does."""
        engine = self._require_open()
        made = [self._protocol.make_request(kind, message) for kind, message in requests]  # all checked first
        sent_status = self._protocol.status
        answers: list = []
        failure: errors.SC2EnvError | None = None
        try:
            for request in made:
                response = engine.respond(request)
                try:
                    answers.append(self._protocol.check_response(request, response, sent_status))
                except (errors.ProtocolError, errors.RequestError) as error:
                    if len(answers) < len(made) - optional:
                        failure = failure or error
                    answers.append(None)
        except BaseException as error:  # a Ctrl-C (or an unforeseen error) in the engine's work
            self._close(
                f"{type(error).__name__} while the engine worked on `{request.WhichOneof('request')}`"
            )
            raise
        return Answered(answers, failure)

    def quit(self) -> None:
        """Ask the engine to quit and let go of it (its game is freed). Idempotent."""
        if self._engine is not None and not self.closed:
            self._engine.respond(self._protocol.make_request("quit", sc_pb.RequestQuit()))
            self._protocol.status = sc_pb.quit
        self._close("quit")

    def close(self) -> None:
        """Let go of the engine and its game. Idempotent."""
        if not self.closed:
            self._close("close()")

    def abandon_pending(self) -> None:
        """Nothing to do: answers are read as requests are sent."""

    def read_unread(self) -> None:
        """Nothing to do: answers are read as requests are sent."""

    def __enter__(self) -> DirectController:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def __repr__(self) -> str:
        state = f"closed after {self._closed_because}" if self.closed else status_name(self.status)
        return f"<DirectController {state}>"

    def _close(self, because: str) -> None:
        if self._closed_because is None:
            self._closed_because = because
        self._engine = None

    def _require_open(self) -> InProcessEngine:
        if self._engine is None:
            raise errors.ConnectionError(
                f"This DirectController was closed after {self._closed_because}: make a new one (an SC2Env "
                "or Match does that at its next reset())."
            )
        return self._engine


class Answered:
    """The answers of DirectController.begin(), read already; `finish()` raises the first failure once."""

    def __init__(self, answers: list, failure: errors.SC2EnvError | None) -> None:
        self.answers = answers
        self._failure = failure

    def finish(self) -> list:
        failure, self._failure = self._failure, None
        if failure is not None:
            raise failure
        return self.answers

    def abandon(self) -> None:
        """Nothing to give up: the answers were read when sent."""

    def fileno(self) -> int:
        """-1: nothing to wait for (see Controller's Pending.fileno)."""
        return -1
