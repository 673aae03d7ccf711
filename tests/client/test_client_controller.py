"""The controller over a real websocket, against a scripted server: requests, pipelining, every error path."""

from __future__ import annotations

import socket
import time

import pytest
from s2clientprotocol import query_pb2
from s2clientprotocol import sc2api_pb2 as sc_pb
from stub_game import CLOSE, StubGame, reply

from sc2env import errors
from sc2env.client import Controller


def test_connect_pings_and_learns_the_status(serve_game):
    game = StubGame(status=sc_pb.in_game)
    with Controller.connect(serve_game(game)) as ctrl:
        assert ctrl.status == sc_pb.in_game
        assert game.received == ["ping"]
        assert ctrl.ping().base_build == 75689


def test_methods_send_their_request_and_return_the_sub_response(serve_game):
    observation = sc_pb.ResponseObservation()
    observation.observation.game_loop = 24
    game = StubGame(
        status=sc_pb.launched,
        create_game=lambda r: reply(r, sc_pb.init_game),
        join_game=lambda r: reply(r, sc_pb.in_game, join_game={"player_id": 1}),
        observation=lambda r: reply(r, sc_pb.in_game, observation=observation),
    )
    with Controller.connect(serve_game(game)) as ctrl:
        ctrl.create_game(sc_pb.RequestCreateGame())
        assert ctrl.status == sc_pb.init_game
        assert ctrl.join_game(sc_pb.RequestJoinGame()).player_id == 1
        assert ctrl.status == sc_pb.in_game
        assert ctrl.game_info() == sc_pb.ResponseGameInfo()
        assert ctrl.data().ByteSize() == 0
        assert ctrl.observation().observation.game_loop == 24
        assert isinstance(ctrl.action([sc_pb.Action()]), sc_pb.ResponseAction)
        assert isinstance(ctrl.step(8), sc_pb.ResponseStep)
        assert isinstance(ctrl.save_replay(), sc_pb.ResponseSaveReplay)
        assert isinstance(ctrl.available_maps(), sc_pb.ResponseAvailableMaps)
        assert isinstance(ctrl.restart_game(), sc_pb.ResponseRestartGame)
    assert game.received == [
        "ping",
        "create_game",
        "join_game",
        "game_info",
        "data",
        "observation",
        "action",
        "step",
        "save_replay",
        "available_maps",
        "restart_game",
    ]


def test_invalid_request_is_refused_before_sending(serve_game):
    game = StubGame(status=sc_pb.launched)
    with Controller.connect(serve_game(game)) as ctrl:
        with pytest.raises(errors.ProtocolError, match=r"Cannot send `step` while the game is launched"):
            ctrl.step()
        with pytest.raises(errors.ProtocolError, match=r"`action` while the game is launched.*in_game"):
            ctrl.act_step_observe([], 8)
        ctrl.ping()  # the connection is fine, and nothing else was sent
    assert game.received == ["ping", "ping"]


def test_timeout_names_the_request_and_seconds_then_closes(serve_game):
    game = StubGame(observation=lambda r: None)
    ctrl = Controller.connect(serve_game(game), timeout_s=30, timeouts={"observation": 0.3})
    expected = r"`observation` got no answer from .* within 0\.3 s"  # the per-request timeout, not the 30 s
    waits = []
    real_receive = ctrl._connection.receive
    ctrl._connection.receive = lambda timeout_s: (waits.append(timeout_s), real_receive(timeout_s))[1]
    with pytest.raises(errors.RequestTimeoutError, match=expected) as raised:
        ctrl.observation()
    assert waits and max(waits) <= 0.3  # (less when the read began late: the wait counts from the send)
    assert isinstance(raised.value, TimeoutError)
    assert ctrl.closed
    with pytest.raises(errors.ConnectionError, match="closed after `observation` timed out"):
        ctrl.ping()


def test_unknown_timeout_names_are_rejected(serve_game):
    with pytest.raises(ValueError, match=r"unknown requests.*'stepp'"):
        Controller.connect(serve_game(StubGame()), timeouts={"stepp": 1})


def test_dropped_connection_without_a_process(serve_game):
    with Controller.connect(serve_game(StubGame(step=lambda r: CLOSE))) as ctrl:
        with pytest.raises(errors.ConnectionError, match=r"Lost the connection .* during `step`") as raised:
            ctrl.step()
        assert not isinstance(raised.value, errors.GameCrashedError)
        assert ctrl.closed


def test_response_error_becomes_protocol_error(serve_game):
    game = StubGame(game_info=lambda r: reply(r, error=["Not in a game", "really"]))
    with Controller.connect(serve_game(game)) as ctrl:
        with pytest.raises(errors.ProtocolError, match=r"refused `game_info`.*Not in a game; really"):
            ctrl.game_info()
        assert not ctrl.closed  # an error answer leaves the connection usable
        ctrl.ping()


def test_typed_error_becomes_request_error(serve_game):
    failed = sc_pb.ResponseCreateGame(
        error=sc_pb.ResponseCreateGame.MissingMap, error_details="no such map: x"
    )
    game = StubGame(status=sc_pb.launched, create_game=lambda r: reply(r, sc_pb.launched, create_game=failed))
    with Controller.connect(serve_game(game)) as ctrl:
        with pytest.raises(errors.RequestError) as raised:
            ctrl.create_game(sc_pb.RequestCreateGame())
        assert (raised.value.request, raised.value.error, raised.value.details) == (
            "create_game",
            "MissingMap",
            "no such map: x",
        )
        assert ctrl.status == sc_pb.launched


def test_mismatched_id_is_a_connection_error_and_closes(serve_game):
    def wrong_id(request):
        response = reply(request)
        response.id = request.id + 5
        return response

    with Controller.connect(serve_game(StubGame(game_info=wrong_id))) as ctrl:
        with pytest.raises(errors.ConnectionError, match="carries id"):
            ctrl.game_info()
        assert ctrl.closed


def test_non_sc2_bytes_are_a_connection_error(serve_game):
    with Controller.connect(serve_game(StubGame(game_info=lambda r: b"\xff\xfe garbage"))) as ctrl:
        with pytest.raises(errors.ConnectionError, match="not an SC2 API Response"):
            ctrl.game_info()
        assert ctrl.closed


def test_connect_to_nothing_fails_after_the_connect_timeout():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    expected = f"could not connect to ws://127.0.0.1:{port}/sc2api within 0.5 s"
    with pytest.raises(errors.ConnectionError, match=expected):
        Controller.connect(f"ws://127.0.0.1:{port}/sc2api", connect_timeout_s=0.5)


def test_act_step_observe_is_one_round_trip(serve_game):
    received = []

    def game(connection):
        ping = sc_pb.Request.FromString(connection.recv())
        connection.send(reply(ping, ping={}).SerializeToString())
        # Read all three before answering any: a client that waited for each answer would hang here.
        batch = [sc_pb.Request.FromString(connection.recv(timeout=5)) for _ in range(3)]
        received.extend(batch)
        observation = sc_pb.ResponseObservation()
        observation.observation.game_loop = 8
        for request in batch:
            kind = request.WhichOneof("request")
            fields = {"observation": observation} if kind == "observation" else {}
            connection.send(reply(request, **fields).SerializeToString())
        for _ in connection:  # until the client hangs up
            pass

    with Controller.connect(serve_game(game), timeout_s=10) as ctrl:
        move = sc_pb.Action()
        move.action_feature_layer.unit_command.ability_id = 16
        observation = ctrl.act_step_observe([move], 8)
    assert observation.observation.game_loop == 8
    assert [r.WhichOneof("request") for r in received] == ["action", "step", "observation"]
    assert [r.id for r in received] == [2, 3, 4]
    assert received[0].action.actions[0].action_feature_layer.unit_command.ability_id == 16
    assert received[1].step.count == 8


def test_a_failure_mid_pipeline_reads_the_rest_and_stays_in_step(serve_game):
    game = StubGame(step=lambda r: reply(r, error=["Step refused"]))
    with Controller.connect(serve_game(game)) as ctrl:
        with pytest.raises(errors.ProtocolError, match=r"refused `step`.*Step refused"):
            ctrl.act_step_observe([], 8)
        # The observation answer was consumed: the next answer matches the next request.
        assert ctrl.game_info() == sc_pb.ResponseGameInfo()
    assert game.received == ["ping", "action", "step", "observation", "game_info"]


def test_game_already_ended_is_an_episode_end_not_an_error(serve_game):
    observation = sc_pb.ResponseObservation()
    observation.player_result.add(player_id=1, result=sc_pb.Victory)
    game = StubGame(
        action=lambda r: reply(r, sc_pb.in_game, error=["Game has already ended"]),
        step=lambda r: reply(r, sc_pb.ended, error=["Game has already ended"]),
        observation=lambda r: reply(r, sc_pb.ended, observation=observation),
    )
    with Controller.connect(serve_game(game)) as ctrl:
        result = ctrl.act_step_observe([], 8)
        assert result.player_result[0].result == sc_pb.Victory
        assert ctrl.status == sc_pb.ended
        with pytest.raises(errors.ProtocolError, match="`action` while the game is ended"):
            ctrl.action([])


def test_requests_behind_the_observation_may_be_refused_without_failing_the_step(serve_game):
    # The step ends the game, and a game that takes no query once it has ended refuses the one sent with it:
    # the step's observation (its player_result) must still come back; the query's answer is None.
    observation = sc_pb.ResponseObservation()
    observation.player_result.add(player_id=1, result=sc_pb.Defeat)
    game = StubGame(
        step=lambda r: reply(r, sc_pb.ended),
        observation=lambda r: reply(r, sc_pb.ended, observation=observation),
        query=lambda r: reply(r, sc_pb.ended, error=["query is not valid in status ended"]),
    )
    with Controller.connect(serve_game(game)) as ctrl:
        answers = ctrl.begin_act_step_observe([], 8, then=[("query", query_pb2.RequestQuery())]).finish()
        assert answers[2].player_result[0].result == sc_pb.Defeat and answers[3] is None
        assert ctrl.status == sc_pb.ended
    assert game.received == ["ping", "action", "step", "observation", "query"]


def test_single_step_after_the_game_ended_returns_none(serve_game):
    game = StubGame(step=lambda r: reply(r, sc_pb.ended, error=["Game has already ended"]))
    with Controller.connect(serve_game(game)) as ctrl:
        assert ctrl.step(8) is None
        assert ctrl.status == sc_pb.ended


def test_quit_sends_without_waiting_and_closes(serve_game):
    game = StubGame(quit=lambda r: None)  # the stub never answers quit
    ctrl = Controller.connect(serve_game(game), timeout_s=30)
    waits = []
    ctrl._connection.receive = waits.append  # nothing to read: a wait for the answer would be recorded
    ctrl.quit()
    assert waits == [], "quit waited for an answer"
    assert ctrl.status == sc_pb.quit and ctrl.closed
    ctrl.quit()
    ctrl.close()  # both idempotent
    with pytest.raises(errors.ConnectionError, match="closed after quit"):
        ctrl.ping()
    deadline = time.monotonic() + 5  # the server reads on its own thread: wait for the quit to arrive
    while game.received != ["ping", "quit"] and time.monotonic() < deadline:
        time.sleep(0.01)
    assert game.received == ["ping", "quit"]


def test_replay_info_needs_a_replay(serve_game):
    game = StubGame()
    with Controller.connect(serve_game(game)) as ctrl:
        with pytest.raises(ValueError, match="replay_path or replay_data"):
            ctrl.replay_info()
        assert ctrl.replay_info(replay_path="/replays/a.SC2Replay") == sc_pb.ResponseReplayInfo()
    assert game.received == ["ping", "replay_info"]


def test_pings_fragments_and_large_answers_are_read_whole(serve_game):
    big = sc_pb.ResponseObservation()
    big.observation.feature_layer_data.renders.unit_type.data = (
        bytes(range(256)) * 4096
    )  # 1 MiB: the buffer grows
    pongs = []

    def handler(connection):
        for message in connection:
            request = sc_pb.Request.FromString(message)
            kind = request.WhichOneof("request")
            if kind == "observation":
                pongs.append(connection.ping(b"are you there"))  # a control frame before the answer
                data = reply(request, sc_pb.in_game, observation=big).SerializeToString()
                connection.send([data[:1000], data[1000:5000], data[5000:]])  # three fragments
            else:
                connection.send(
                    reply(
                        request, sc_pb.in_game, **({"ping": {"base_build": 1}} if kind == "ping" else {})
                    ).SerializeToString()
                )

    with Controller.connect(serve_game(handler)) as ctrl:
        expected = big.observation.feature_layer_data.renders.unit_type.data
        for _ in range(2):
            assert ctrl.observation().observation.feature_layer_data.renders.unit_type.data == expected
        assert ctrl.ping().base_build == 1
    assert len(pongs) == 2 and all(pong.wait(5) for pong in pongs)  # our pongs arrived


def test_an_answer_over_the_size_limit_is_a_protocol_error_naming_both_sizes(serve_game):
    big = sc_pb.ResponseObservation()
    big.observation.feature_layer_data.renders.unit_type.data = bytes(5000)
    game = StubGame(observation=lambda r: reply(r, sc_pb.in_game, observation=big))
    ctrl = Controller.connect(serve_game(game), max_message_bytes=4000)
    size = len(reply(sc_pb.Request(observation={}), sc_pb.in_game, observation=big).SerializeToString())
    with pytest.raises(errors.ProtocolError) as refused:
        ctrl.observation()
    assert f"is {size} bytes or more, over this client's limit of 4000 bytes" in str(refused.value)
    assert "Controller(..., max_message_bytes=...)" in str(refused.value) and ctrl.closed


def test_a_resumed_finish_whose_answer_a_ctrl_c_lost_has_the_next_request_ask_the_status_first(
    serve_game, monkeypatch
):
    # leave_game's answer was taken off the stream and lost to a Ctrl-C, and with it the status it brought
    # (launched). The caller finished the Pending again; join_game, valid now, was then refused as if the
    # game were still in_game.
    game = StubGame(
        status=sc_pb.in_game,
        leave_game=lambda r: reply(r, sc_pb.launched),
        join_game=lambda r: reply(r, sc_pb.in_game, join_game={"player_id": 2}),
    )
    with Controller.connect(serve_game(game)) as ctrl:
        real_read = ctrl._protocol.read_response

        def lost(*args):
            monkeypatch.setattr(ctrl._protocol, "read_response", real_read)
            raise KeyboardInterrupt

        monkeypatch.setattr(ctrl._protocol, "read_response", lost)
        pending = ctrl.begin([("leave_game", sc_pb.RequestLeaveGame())])
        with pytest.raises(KeyboardInterrupt):
            pending.finish()
        assert pending.finish() == [None]  # resumed: the answer is gone
        assert ctrl.join_game(sc_pb.RequestJoinGame()).player_id == 2
    assert game.received == ["ping", "leave_game", "ping", "join_game"]
