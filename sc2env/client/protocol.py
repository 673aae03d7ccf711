"""The SC2 API rules of one connection, without I/O: valid statuses, request ids, response checks."""

from __future__ import annotations

from google.protobuf.descriptor import EnumDescriptor
from google.protobuf.message import DecodeError, Message
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env import errors

Status = sc_pb.Status

_VIEWING = frozenset({sc_pb.in_game, sc_pb.in_replay, sc_pb.ended})

# The statuses in which each request may be sent (None: any). Mirrors s2client-proto's rules with the
# relaxations real clients rely on and the game accepts, noted where they differ.
VALID_STATUSES: dict[str, frozenset[int] | None] = {
    "ping": None,
    "available_maps": None,
    "replay_info": None,
    "save_map": None,
    "quit": None,
    # Proto: launched or ended. Single-agent clients also re-create from in_game/in_replay, no leave_game.
    "create_game": frozenset({sc_pb.launched, sc_pb.ended, sc_pb.in_game, sc_pb.in_replay}),
    "start_replay": frozenset({sc_pb.launched, sc_pb.ended, sc_pb.in_game, sc_pb.in_replay}),
    "join_game": frozenset({sc_pb.init_game, sc_pb.launched}),  # init_game (host), launched (other players)
    # Proto: ended. Also from in_game, to end an episode cut short by a step limit.
    "restart_game": frozenset({sc_pb.ended, sc_pb.in_game}),
    "game_info": _VIEWING,
    "data": _VIEWING,
    "observation": _VIEWING,  # must work in `ended`: it carries the final player_result
    "query": _VIEWING,
    "step": frozenset({sc_pb.in_game, sc_pb.in_replay}),
    "action": frozenset({sc_pb.in_game}),
    "obs_action": frozenset({sc_pb.in_game}),  # an observer's camera and perspective
    "debug": frozenset({sc_pb.in_game}),
    "save_replay": frozenset({sc_pb.in_game, sc_pb.ended, sc_pb.in_replay}),  # in_replay: with record_replay
    # Proto: in_game. Leaving a finished game, or a replay being watched, is fine too.
    "leave_game": frozenset({sc_pb.in_game, sc_pb.ended, sc_pb.in_replay}),
}

IN_A_GAME = frozenset({sc_pb.in_game, sc_pb.ended})
"""A client that joined a game, under way or over: it can leave or restart it."""

# The game can finish between our last status update and a step/action (realtime, or a race in the real
# binary); it then answers with this error although we last saw in_game. That is an episode end, not a bug.
GAME_ENDED_TEXT = "Game has already ended"
_ENDABLE = frozenset({"step", "action"})


def _typed_error_enums() -> dict[str, EnumDescriptor]:
    """Request kind -> the enum of its sub-response's `error` field, e.g. ResponseCreateGame.Error."""
    table = {}
    for field in sc_pb.Response.DESCRIPTOR.oneofs_by_name["response"].fields:
        message = field.message_type
        error = message.fields_by_name.get("error") if message is not None else None
        if error is not None and error.enum_type is not None:
            table[field.name] = error.enum_type
    return table


_TYPED_ERRORS = _typed_error_enums()


def _sent_kind(request: sc_pb.Request) -> str:
    """The kind of a request that was sent (its Request field's name)."""
    kind = request.WhichOneof("request")
    if kind is None:
        raise errors.ProtocolError("an answer is read for the request that was sent: this one is empty")
    return kind


def status_name(status: int) -> str:
    try:
        return Status.Name(Status.ValueType(status))
    except ValueError:
        return f"status {status}"


class Protocol:
    """Status, ids and response checks for one connection; feed it requests and the bytes answered."""

    def __init__(self, status: int = sc_pb.launched):
        self.status = status
        self._last_id = 0

    def check_allowed(self, kind: str) -> None:
        """ProtocolError unless a `kind` request is valid in the current status."""
        if kind not in VALID_STATUSES:
            known = ", ".join(VALID_STATUSES)
            raise errors.ProtocolError(f"Unknown SC2 API request `{kind}`; known: {known}.")
        valid = VALID_STATUSES[kind]
        if valid is not None and self.status not in valid:
            names = ", ".join(sorted(status_name(s) for s in valid))
            raise errors.ProtocolError(
                f"Cannot send `{kind}` while the game is {status_name(self.status)}: it is valid only in "
                f"{names}. It was not sent."
            )

    def make_request(self, kind: str, message: Message) -> sc_pb.Request:
        """A Request carrying `message` as its `kind` field and the next id; checked against the status."""
        self.check_allowed(kind)
        self._last_id = self._last_id % 0xFFFFFFFF + 1  # `id` is a uint32; wrap rather than overflow
        request = sc_pb.Request(id=self._last_id)
        getattr(request, kind).CopyFrom(message)
        return request

    def read_response(
        self, request: sc_pb.Request, data: bytes | memoryview, sent_status: int | None = None
    ) -> Message | None:
        """The typed sub-response to `request` from the bytes the game sent, after every check.

        Updates the status. Returns None for a step/action answered "Game has already ended" when it was
        sent in in_game (`sent_status`, by default the status before this answer); the status becomes
        `ended`. Raises errors.ConnectionError when the answer does not belong
        to this request (the stream is out of step), ProtocolError for `Response.error` or a missing status,
        and RequestError for a typed error such as ResponseCreateGame.error.
        """
        kind = _sent_kind(request)
        try:
            response = sc_pb.Response.FromString(data)  # type: ignore[arg-type]  # a memoryview parses as is, uncopied
        except DecodeError:
            raise errors.ConnectionError(
                f"The answer to `{kind}` is not an SC2 API Response ({len(data)} bytes starting "
                f"{bytes(data[:16])!r}): is something other than StarCraft II on this port?"
            ) from None
        return self.check_response(request, response, sent_status)

    def check_response(
        self, request: sc_pb.Request, response: sc_pb.Response, sent_status: int | None = None
    ) -> Message | None:
        """read_response() for an answer already parsed (an in-process game's): the same checks and status."""
        kind = _sent_kind(request)
        if response.HasField("id") and response.id != request.id:
            raise errors.ConnectionError(
                f"The answer to `{kind}` (request id {request.id}) carries id {response.id}: requests and "
                "answers are out of step. Close this connection and the game."
            )
        if not response.HasField("status"):
            raise errors.ProtocolError(
                f"The game answered `{kind}` without a status, which the SC2 API requires on every response."
            )
        previous, self.status = self.status, response.status
        if response.error:
            text = "; ".join(response.error)
            sent_in = previous if sent_status is None else sent_status
            if kind in _ENDABLE and sent_in == sc_pb.in_game and GAME_ENDED_TEXT in text:
                self.status = sc_pb.ended
                return None
            raise errors.ProtocolError(
                f"The game refused `{kind}` (status {status_name(previous)}, now "
                f"{status_name(self.status)}): {text}"
            )
        answered = response.WhichOneof("response")
        if answered is not None and answered != kind:
            raise errors.ConnectionError(
                f"The game answered `{kind}` with `{answered}`: requests and answers are out of step."
            )
        # A game may omit an empty sub-response; the default message stands in for it.
        sub_response = getattr(response, kind)
        enum = _TYPED_ERRORS.get(kind)
        if enum is not None and sub_response.HasField("error"):
            name = enum.values_by_number.get(sub_response.error)
            error = name.name if name is not None else str(sub_response.error)
            details = getattr(sub_response, "error_details", "")  # ResponseSaveMap has none
            raise errors.RequestError(
                f"`{kind}` failed: {error}{': ' + details if details else ''}",
                request=kind,
                error=error,
                details=details,
            )
        return sub_response
