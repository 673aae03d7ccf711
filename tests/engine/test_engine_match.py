"""A two-player Match between two Sessions, without sockets: lock-step counts, holds, leaving, a lost player."""

from __future__ import annotations

from engine_helpers import interface
from s2clientprotocol import common_pb2
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


def _create(host: Session, observers: int = 1, map_path: str = "duels/DuelMarines.SC2Map", **setup):
    create = sc_pb.RequestCreateGame(local_map=sc_pb.LocalMap(map_path=map_path), random_seed=1)
    for kind in setup.get("kinds", (sc_pb.Participant, sc_pb.Participant)):
        create.player_setup.add(type=kind)
    for _ in range(observers):
        create.player_setup.add(type=sc_pb.Observer)
    answer = _ask(host, create_game=create)
    assert answer is not None
    return answer.create_game


def _join_request(observed: int | None = None) -> sc_pb.RequestJoinGame:
    join = sc_pb.RequestJoinGame(options=interface(screen=8, minimap=8))
    if observed is not None:
        join.observed_player_id = observed
    join.server_ports.game_port, join.server_ports.base_port = 1, 2
    return join


def _watched_duel(observers: int = 1) -> tuple[Session, Session, list[Session]]:
    host = Session()
    assert not _create(host, observers).HasField("error")
    guest = Session(match=host.match)
    watchers = [Session(match=host.match) for _ in range(observers)]
    assert _ask(host, join_game=_join_request()) is None
    for watcher in watchers:
        assert _ask(watcher, join_game=_join_request(0)) is None
    assert _ready(host) == [] and _ready(watchers[0]) == []  # the game waits for player 2 too
    assert _ask(guest, join_game=_join_request()) is None
    joined = [r.join_game.player_id for s in (host, guest, *watchers) for r in _ready(s)]
    assert joined == [1, 2, *range(3, 3 + observers)]
    return host, guest, watchers


def test_a_step_waits_for_the_observer_too():
    host, guest, (watcher,) = _watched_duel()
    assert _ask(host, step=sc_pb.RequestStep(count=4)) is None
    assert _ask(guest, step=sc_pb.RequestStep(count=4)) is None
    assert _ready(host) == [] and _ready(guest) == []
    assert _ask(watcher, step=sc_pb.RequestStep(count=2)) is None
    assert [r.step.simulation_loop for r in _ready(watcher)] == [2]  # the smallest count ran
    assert _ready(host) == [] and host.holding
    assert _ask(watcher, step=sc_pb.RequestStep(count=2)) is None
    assert [r.step.simulation_loop for s in (host, guest, watcher) for r in _ready(s)] == [4, 4, 4]


def test_an_observer_leaving_or_lost_releases_the_players_steps():
    host, guest, (leaver, lost) = _watched_duel(observers=2)
    _ask(host, step=sc_pb.RequestStep(count=4))
    _ask(guest, step=sc_pb.RequestStep(count=4))
    left = _ask(leaver, leave_game=sc_pb.RequestLeaveGame())
    assert left is not None and left.status == sc_pb.launched and not left.error
    assert _ready(host) == []  # still waiting for the other observer
    lost.lost("observer 4's engine is gone")
    assert [r.step.simulation_loop for s in (host, guest) for r in _ready(s)] == [4, 4]
    assert not _ready(host) and not host.holding
    # Nothing was conceded: the players play on, the two of them.
    _ask(host, step=sc_pb.RequestStep(count=4))
    _ask(guest, step=sc_pb.RequestStep(count=4))
    answers = _ready(host) + _ready(guest)
    assert [(r.step.simulation_loop, r.status) for r in answers] == [(8, sc_pb.in_game)] * 2


def test_an_observer_lost_before_the_start_is_not_waited_for():
    host = Session()
    _create(host, observers=1)
    guest, watcher = Session(match=host.match), Session(match=host.match)
    _ask(watcher, join_game=_join_request(1))
    _ask(host, join_game=_join_request())
    watcher.lost("observer 3's engine is gone")
    assert [r.error for r in _ready(watcher)] == [["observer 3's engine is gone"]] and watcher.match is None
    _ask(guest, join_game=_join_request())
    assert [r.join_game.player_id for s in (host, guest) for r in _ready(s)] == [1, 2]


def test_restart_waits_for_the_observer():
    host, guest, (watcher,) = _watched_duel()
    for session in (host, guest, watcher):
        _ask(session, step=sc_pb.RequestStep(count=4))
    for session in (host, guest, watcher):
        _ready(session)
    assert _ask(host, restart_game=sc_pb.RequestRestartGame()) is None
    assert _ask(guest, restart_game=sc_pb.RequestRestartGame()) is None
    assert _ready(host) == []
    assert _ask(watcher, restart_game=sc_pb.RequestRestartGame()) is None
    assert all(r.HasField("restart_game") and not r.error for s in (host, guest, watcher) for r in _ready(s))
    obs = _ask(watcher, observation=sc_pb.RequestObservation())
    assert obs is not None and obs.observation.observation.game_loop == 0


def test_create_game_refuses_observers_it_cannot_seat():
    too_many = _create(Session(), observers=5)
    assert too_many.error == sc_pb.ResponseCreateGame.InvalidPlayerSetup
    assert "at most 4" in too_many.error_details
    single = _create(
        Session(), observers=1, map_path="mini_games/MoveToBeacon.SC2Map", kinds=(sc_pb.Participant,)
    )
    assert single.error == sc_pb.ResponseCreateGame.InvalidPlayerSetup
    assert "single-agent map" in single.error_details
    computer = _create(Session(), observers=1)  # two Participants: accepted
    assert not computer.HasField("error")
    ai = sc_pb.RequestCreateGame(local_map=sc_pb.LocalMap(map_path="duels/DuelMarines.SC2Map"))
    ai.player_setup.add(type=sc_pb.Participant)
    ai.player_setup.add(type=sc_pb.Computer, race=common_pb2.Terran, difficulty=sc_pb.Easy)
    ai.player_setup.add(type=sc_pb.Observer)
    answer = _ask(Session(), create_game=ai)
    assert answer is not None and "Computer, played in one process" in answer.create_game.error_details


def test_join_game_refuses_an_observer_without_a_seat_or_a_player_to_watch():
    host = Session()
    _create(host, observers=1)
    wrong = _ask(Session(match=host.match), join_game=_join_request(3))
    assert wrong is not None and wrong.join_game.error == sc_pb.ResponseJoinGame.InvalidObservedPlayerId
    assert "players are 1, 2" in wrong.join_game.error_details
    plain = Session()
    _create(plain, observers=0)
    full = _ask(Session(match=plain.match), join_game=_join_request(0))
    assert full is not None and full.join_game.error == sc_pb.ResponseJoinGame.GameFull
    assert "no observer seat" in full.join_game.error_details
