"""A two-player Match between two Sessions, without sockets: lock-step counts, holds, leaving, a lost player."""

from __future__ import annotations

from engine_helpers import interface
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env.engine.session import Session


def _ask(session: Session, **request) -> sc_pb.Response | None:
    """The answer, or None while it is held."""
    pieces = session.answer(sc_pb.Request(**request).SerializeToString())
    return sc_pb.Response.FromString(b"".join(pieces)) if pieces else None


def _ready(session: Session) -> list[sc_pb.Response]:
    return [sc_pb.Response.FromString(data) for data in session.take_ready()]


def _duel() -> tuple[Session, Session]:
    host = Session()
    create = sc_pb.RequestCreateGame(
        local_map=sc_pb.LocalMap(map_path="duels/DuelMarines.SC2Map"), random_seed=1
    )
    create.player_setup.add(type=sc_pb.Participant)
    create.player_setup.add(type=sc_pb.Participant)
    assert not _ask(host, create_game=create).create_game.HasField("error")
    guest = Session(match=host.match)
    join = sc_pb.RequestJoinGame(options=interface(screen=8, minimap=8))
    join.server_ports.game_port, join.server_ports.base_port = 1, 2
    assert _ask(host, join_game=join) is None and _ready(host) == []  # waits for the other player
    assert host.listen_port == 1
    assert _ask(guest, join_game=join) is None
    assert [r.join_game.player_id for r in _ready(host) + _ready(guest)] == [1, 2]
    return host, guest


def test_the_game_runs_the_smaller_count_left_and_answers_whose_count_is_used():
    host, guest = _duel()
    assert _ask(host, step=sc_pb.RequestStep(count=5)) is None
    assert _ready(host) == []
    assert _ask(guest, step=sc_pb.RequestStep(count=3)) is None
    assert [r.step.simulation_loop for r in _ready(guest)] == [3]
    assert _ready(host) == [] and host.holding
    # A request behind the held step waits for it, then is answered after it.
    assert _ask(host, observation=sc_pb.RequestObservation()) is None
    _ask(guest, step=sc_pb.RequestStep(count=2))
    answers = _ready(host)
    assert answers[0].step.simulation_loop == 5 and answers[1].observation.observation.game_loop == 5
    assert [r.step.simulation_loop for r in _ready(guest)] == [5]


def test_a_lost_player_ends_the_game_undecided_and_frees_the_waiting_one():
    host, guest = _duel()
    _ask(host, step=sc_pb.RequestStep(count=8))
    guest.lost("player 2's engine is gone")
    (answer,) = _ready(host)
    assert answer.error == ["player 2's engine is gone"] and answer.status == sc_pb.ended
    obs = _ask(host, observation=sc_pb.RequestObservation())
    assert obs is not None and [r.result for r in obs.observation.player_result] == [sc_pb.Undecided] * 2


def test_leaving_concedes():
    host, guest = _duel()
    left = _ask(host, leave_game=sc_pb.RequestLeaveGame())
    assert left is not None and left.status == sc_pb.launched
    obs = _ask(guest, observation=sc_pb.RequestObservation())
    assert obs is not None and obs.status == sc_pb.ended
    assert {r.player_id: r.result for r in obs.observation.player_result} == {
        1: sc_pb.Defeat,
        2: sc_pb.Victory,
    }


def test_leaving_while_a_step_waits_does_not_wait_for_the_other_player():
    host, guest = _duel()
    assert _ask(host, step=sc_pb.RequestStep(count=8)) is None
    assert _ask(host, leave_game=sc_pb.RequestLeaveGame()) is None  # queued behind the step, but it concedes
    step, left = _ready(host)
    assert step.HasField("step") and left.HasField("leave_game") and left.status == sc_pb.launched
    obs = _ask(guest, observation=sc_pb.RequestObservation())
    assert obs is not None and obs.status == sc_pb.ended
    assert {r.player_id: r.result for r in obs.observation.player_result} == {
        1: sc_pb.Defeat,
        2: sc_pb.Victory,
    }
