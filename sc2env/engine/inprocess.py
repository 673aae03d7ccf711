"""The engine served in its caller's process: Request messages in, Response messages out, nothing serialised."""

from __future__ import annotations

from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env import errors
from sc2env.engine import observe
from sc2env.engine.session import Session


class InProcessEngine:
    """One built-in engine, its status machine and the game it hosts, answering in the caller's process.

    `respond(request)` gives the Response the engine process would send for the same request over its websocket
    (same status machine, same errors and limits: both go through `Session.respond`), as a message parsed
    from those bytes would read, without serialising or parsing anything but the feature layers' own message.
    The engine keeps its state to itself: it works on its own copy of each request, and the Response it hands
    back is a new message the caller owns, so that nothing mutable is shared and the engine could as well run
    elsewhere.
    """

    def __init__(self, data_dir: str | None = None) -> None:
        self._session = Session(data_dir)

    @property
    def status(self) -> int:
        """The engine's sc2api_pb2.Status (launched, init_game, in_game, ended, ...)."""
        return self._session.status

    @property
    def quit(self) -> bool:
        """Whether a RequestQuit was answered: the engine serves nothing more."""
        return self._session.quit

    def respond(self, request: sc_pb.Request) -> sc_pb.Response:
        own = sc_pb.Request()
        own.CopyFrom(request)  # the game keeps parts of some requests (join_game's options) for its lifetime
        answered = self._session.respond(own)
        if answered is None:  # only a two-player game's lock-step holds an answer back
            raise errors.ProtocolError(
                "the in-process engine plays one player's games: a two-player game is played over sockets "
                "(direct=False)"
            )
        response, layers = answered
        observe.merge_layers(response, layers)
        return response
