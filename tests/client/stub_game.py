"""A scripted SC2 API game for controller tests: answers per request kind, served by `serve_game`."""

from __future__ import annotations

import threading

from s2clientprotocol import sc2api_pb2 as sc_pb

CLOSE = object()  # a StubGame answer: close the connection instead of answering


def reply(request: sc_pb.Request, status: int = sc_pb.in_game, **fields) -> sc_pb.Response:
    """The usual answer to `request`: its id, a status, and an empty (or given) sub-response."""
    response = sc_pb.Response(id=request.id, status=status, **fields)
    kind = request.WhichOneof("request")
    if kind not in fields and response.WhichOneof("response") is None:
        getattr(response, kind).SetInParent()
    return response


class StubGame:
    """A websocket handler playing a game: pings get the current status; other requests get
    `answers[kind](request)` (a Response, bytes, None for never, or CLOSE), else `reply(request)` with
    the current status. The status of each Response sent becomes the current one.

    `received` lists the kinds of every request that arrived, in order.
    """

    def __init__(self, status: int = sc_pb.in_game, **answers):
        self.status = status
        self.answers = answers
        self.received: list[str] = []
        self.stop = threading.Event()

    def __call__(self, connection) -> None:
        for message in connection:
            request = sc_pb.Request.FromString(message)
            kind = request.WhichOneof("request")
            self.received.append(kind)
            if kind == "ping" and kind not in self.answers:
                answer = reply(request, self.status, ping=sc_pb.ResponsePing(base_build=75689))
            elif kind in self.answers:
                answer = self.answers[kind](request)
            else:
                answer = reply(request, self.status)
            if answer is CLOSE:
                return
            if answer is None:
                self.stop.wait(30)
                return
            if isinstance(answer, sc_pb.Response):
                self.status = answer.status  # a scripted status change sticks, as in a game
                answer = answer.SerializeToString()
            connection.send(answer)
