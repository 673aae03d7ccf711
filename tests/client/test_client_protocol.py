"""The protocol rules without sockets: status guards, ids, and every check on an answer."""

from __future__ import annotations

import pytest
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env import errors
from sc2env.client import VALID_STATUSES, Protocol

STATUSES = [sc_pb.launched, sc_pb.init_game, sc_pb.in_game, sc_pb.in_replay, sc_pb.ended, sc_pb.quit]

# The status table of sc2-api-notes.md section 1, with the relaxations real clients rely on.
EXPECTED = {
    "ping": set(STATUSES),
    "available_maps": set(STATUSES),
    "replay_info": set(STATUSES),
    "save_map": set(STATUSES),
    "quit": set(STATUSES),
    "create_game": {sc_pb.launched, sc_pb.ended, sc_pb.in_game, sc_pb.in_replay},
    "start_replay": {sc_pb.launched, sc_pb.ended, sc_pb.in_game, sc_pb.in_replay},
    "join_game": {sc_pb.init_game, sc_pb.launched},
    "restart_game": {sc_pb.ended, sc_pb.in_game},
    "game_info": {sc_pb.in_game, sc_pb.in_replay, sc_pb.ended},
    "data": {sc_pb.in_game, sc_pb.in_replay, sc_pb.ended},
    "observation": {sc_pb.in_game, sc_pb.in_replay, sc_pb.ended},
    "query": {sc_pb.in_game, sc_pb.in_replay, sc_pb.ended},
    "step": {sc_pb.in_game, sc_pb.in_replay},
    "action": {sc_pb.in_game},
    "obs_action": {sc_pb.in_game},
    "debug": {sc_pb.in_game},
    "save_replay": {sc_pb.in_game, sc_pb.ended, sc_pb.in_replay},
    "leave_game": {sc_pb.in_game, sc_pb.ended, sc_pb.in_replay},
}


def test_table_covers_every_request_the_controller_sends():
    assert set(VALID_STATUSES) == set(EXPECTED)


@pytest.mark.parametrize("kind", sorted(EXPECTED))
@pytest.mark.parametrize("status", STATUSES, ids=sc_pb.Status.Name)
def test_status_guard(kind, status):
    protocol = Protocol(status)
    if status in EXPECTED[kind]:
        protocol.check_allowed(kind)
    else:
        with pytest.raises(errors.ProtocolError) as raised:
            protocol.check_allowed(kind)
        message = str(raised.value)
        assert f"`{kind}`" in message and sc_pb.Status.Name(status) in message and "not sent" in message


def test_unknown_request_kind():
    with pytest.raises(errors.ProtocolError, match="Unknown SC2 API request `quick_save`"):
        Protocol().check_allowed("quick_save")


def test_ids_count_up_and_wrap():
    protocol = Protocol()
    assert [protocol.make_request("ping", sc_pb.RequestPing()).id for _ in range(3)] == [1, 2, 3]
    protocol._last_id = 0xFFFFFFFF
    assert protocol.make_request("ping", sc_pb.RequestPing()).id == 1


def answer(request, **fields) -> bytes:
    return sc_pb.Response(id=request.id, **fields).SerializeToString()


def test_status_follows_every_answer_even_an_error():
    protocol = Protocol(sc_pb.launched)
    create = protocol.make_request("create_game", sc_pb.RequestCreateGame())
    protocol.read_response(create, answer(create, status=sc_pb.init_game, create_game={}))
    assert protocol.status == sc_pb.init_game
    join = protocol.make_request("join_game", sc_pb.RequestJoinGame())
    with pytest.raises(errors.ProtocolError):
        protocol.read_response(join, answer(join, status=sc_pb.launched, error=["no"]))
    assert protocol.status == sc_pb.launched


def test_answer_is_the_typed_sub_response():
    protocol = Protocol(sc_pb.in_game)
    request = protocol.make_request("observation", sc_pb.RequestObservation())
    observation = sc_pb.ResponseObservation()
    observation.observation.game_loop = 16
    result = protocol.read_response(request, answer(request, status=sc_pb.in_game, observation=observation))
    assert isinstance(result, sc_pb.ResponseObservation) and result.observation.game_loop == 16


def test_missing_sub_response_is_an_empty_one():
    protocol = Protocol(sc_pb.in_game)
    request = protocol.make_request("step", sc_pb.RequestStep(count=8))
    assert protocol.read_response(request, answer(request, status=sc_pb.in_game)) == sc_pb.ResponseStep()


def test_response_error_lists_all_texts():
    protocol = Protocol(sc_pb.in_game)
    request = protocol.make_request("game_info", sc_pb.RequestGameInfo())
    expected = r"refused `game_info` \(status in_game, now in_game\): a; b"
    with pytest.raises(errors.ProtocolError, match=expected):
        protocol.read_response(request, answer(request, status=sc_pb.in_game, error=["a", "b"]))


@pytest.mark.parametrize(
    "kind, message, enum",
    [
        ("create_game", sc_pb.RequestCreateGame(), sc_pb.ResponseCreateGame),
        ("join_game", sc_pb.RequestJoinGame(), sc_pb.ResponseJoinGame),
        ("restart_game", sc_pb.RequestRestartGame(), sc_pb.ResponseRestartGame),
        ("start_replay", sc_pb.RequestStartReplay(), sc_pb.ResponseStartReplay),
        ("replay_info", sc_pb.RequestReplayInfo(), sc_pb.ResponseReplayInfo),
    ],
)
def test_typed_errors_carry_enum_name_and_details(kind, message, enum):
    status = min(EXPECTED[kind])
    protocol = Protocol(status)
    request = protocol.make_request(kind, message)
    error_value = enum.Error.values()[0]
    sub = enum(error=error_value, error_details="what went wrong")
    with pytest.raises(errors.RequestError) as raised:
        protocol.read_response(request, answer(request, status=status, **{kind: sub}))
    assert raised.value.request == kind
    assert raised.value.error == enum.Error.Name(error_value)
    assert raised.value.details == "what went wrong"
    assert enum.Error.Name(error_value) in str(raised.value) and "what went wrong" in str(raised.value)


def test_typed_error_without_details():
    protocol = Protocol()
    request = protocol.make_request("save_map", sc_pb.RequestSaveMap())
    sub = sc_pb.ResponseSaveMap(error=sc_pb.ResponseSaveMap.InvalidMapData)
    with pytest.raises(errors.RequestError) as raised:
        protocol.read_response(request, answer(request, status=sc_pb.launched, save_map=sub))
    assert (raised.value.error, raised.value.details) == ("InvalidMapData", "")


def test_mismatched_id_is_a_connection_error():
    protocol = Protocol()
    request = protocol.make_request("ping", sc_pb.RequestPing())
    data = sc_pb.Response(id=request.id + 1, status=sc_pb.launched, ping={}).SerializeToString()
    with pytest.raises(errors.ConnectionError, match=r"request id 1\) carries id 2"):
        protocol.read_response(request, data)


def test_missing_id_is_tolerated():
    protocol = Protocol()
    request = protocol.make_request("ping", sc_pb.RequestPing())
    data = sc_pb.Response(status=sc_pb.launched, ping={}).SerializeToString()
    assert protocol.read_response(request, data) == sc_pb.ResponsePing()


def test_missing_status_is_a_protocol_error():
    protocol = Protocol()
    request = protocol.make_request("ping", sc_pb.RequestPing())
    with pytest.raises(errors.ProtocolError, match="without a status"):
        protocol.read_response(request, answer(request, ping={}))


def test_answer_to_another_request_is_a_connection_error():
    protocol = Protocol(sc_pb.in_game)
    request = protocol.make_request("step", sc_pb.RequestStep())
    with pytest.raises(errors.ConnectionError, match="answered `step` with `observation`"):
        protocol.read_response(request, answer(request, status=sc_pb.in_game, observation={}))


def test_garbage_is_a_connection_error():
    protocol = Protocol()
    request = protocol.make_request("ping", sc_pb.RequestPing())
    with pytest.raises(errors.ConnectionError, match=r"not an SC2 API Response.*HTTP/1.1"):
        protocol.read_response(request, b"HTTP/1.1 200 OK\r\n\r\n" + b"\xff" * 8)


@pytest.mark.parametrize("kind, message", [("step", sc_pb.RequestStep()), ("action", sc_pb.RequestAction())])
def test_game_already_ended_from_in_game_means_ended(kind, message):
    protocol = Protocol(sc_pb.in_game)
    request = protocol.make_request(kind, message)
    data = answer(request, status=sc_pb.in_game, error=["Game has already ended"])
    assert protocol.read_response(request, data) is None
    assert protocol.status == sc_pb.ended


def test_game_already_ended_elsewhere_is_still_an_error():
    protocol = Protocol(sc_pb.in_game)
    request = protocol.make_request("observation", sc_pb.RequestObservation())
    with pytest.raises(errors.ProtocolError, match="Game has already ended"):
        protocol.read_response(request, answer(request, status=sc_pb.ended, error=["Game has already ended"]))
