"""Observers of a two-player game over real sockets: each its own engine process linked to the host's."""

from __future__ import annotations

import select
import signal
from collections.abc import Iterator

import portpicker
import pytest
from engine_helpers import Player, connect, interface, start_engine
from s2clientprotocol import common_pb2, debug_pb2
from s2clientprotocol import sc2api_pb2 as sc_pb

SELF, ENEMY = 1, 4  # raw alliance values
MOVE = 16


def _ports() -> list[int]:
    return [portpicker.pick_unused_port() for _ in range(4)]


def _join(ports: list[int], observed: int | None = None) -> sc_pb.RequestJoinGame:
    join = sc_pb.RequestJoinGame(options=interface(screen=16, minimap=16))
    if observed is None:
        join.race = common_pb2.Terran
    else:
        join.observed_player_id = observed
    join.server_ports.game_port, join.server_ports.base_port = ports[:2]
    join.client_ports.add(game_port=ports[2], base_port=ports[3])
    return join


def start_watched_duel(host: Player, guest: Player, observers: list[tuple[Player, int]]) -> None:
    """Create DuelMarines with an Observer per watcher, then join everyone at once, as a client would."""
    create = sc_pb.RequestCreateGame(
        local_map=sc_pb.LocalMap(map_path="duels/DuelMarines.SC2Map"), random_seed=3
    )
    create.player_setup.add(type=sc_pb.Participant)
    create.player_setup.add(type=sc_pb.Participant)
    for _ in observers:
        create.player_setup.add(type=sc_pb.Observer)
    answer = host.ask(create_game=create)
    assert not answer.error and not answer.create_game.HasField("error"), answer
    ports = _ports()
    host.send(join_game=_join(ports), id=11)
    guest.send(join_game=_join(ports), id=12)
    for watcher, observed in observers:
        watcher.send(join_game=_join(ports, observed), id=13)
    for member in (host, guest, *(watcher for watcher, _ in observers)):
        answer = member.recv()
        assert answer.status == sc_pb.in_game and not answer.join_game.HasField("error"), answer
        member.player_id = answer.join_game.player_id


def _engines(count: int) -> Iterator[list[Player]]:
    procs = [start_engine()[0:2] for _ in range(count)]
    members = [Player(connect(port), proc) for proc, port in procs]
    yield members
    for member in members:
        member.ws.close()
        member.proc.kill()  # type: ignore[attr-defined]
        member.proc.wait(10)  # type: ignore[attr-defined]


@pytest.fixture
def four() -> Iterator[list[Player]]:
    """Two players' engines and two observers'."""
    yield from _engines(4)


@pytest.fixture
def three() -> Iterator[list[Player]]:
    """Two players' engines and one observer's."""
    yield from _engines(3)


def _step_all(members: list[Player], count: int = 16) -> list[sc_pb.Response]:
    for member in members[1:]:
        member.send(step=sc_pb.RequestStep(count=count))
    first = members[0].ask(step=sc_pb.RequestStep(count=count))
    return [first, *(member.recv() for member in members[1:])]


def _owners(watcher: Player) -> dict[int, int]:
    """Owner -> how many units the watcher's raw data shows (neutral ones left out)."""
    counts: dict[int, int] = {}
    for unit in watcher.observe().observation.raw_data.units:
        if unit.owner in (1, 2):
            counts[unit.owner] = counts.get(unit.owner, 0) + 1
    return counts


def _answered(player: Player, timeout: float = 0.3) -> bool:
    """Whether an answer waits on the player's socket."""
    return bool(select.select([player.ws.sock], [], [], timeout)[0])


def test_an_observer_sees_its_players_fog_and_observer_0_sees_everything(four):
    host, guest, of_player_1, of_all = four
    start_watched_duel(host, guest, [(of_player_1, 1), (of_all, 0)])
    assert {of_player_1.player_id, of_all.player_id} == {3, 4}  # the ids after the map's two slots, as joined
    # The armies stand beyond each other's sight: player 1's observer sees only player 1's army, as player 1
    # does; observer 0 sees both armies.
    assert _owners(of_player_1) == {1: 9} == _owners(host)
    assert _owners(of_all) == {1: 9, 2: 9}
    obs = of_player_1.observe().observation
    assert obs.player_common.player_id == 1
    own = obs.raw_data.map_state.visibility.data
    assert own == host.observe().observation.raw_data.map_state.visibility.data
    assert own != guest.observe().observation.raw_data.map_state.visibility.data
    # Player 1 walks up to player 2's army: its observer sees what it sees of player 2, no more.
    host.command(MOVE, [u.tag for u in host.units(SELF)], 40, 32)
    seen: list[int] = []
    for _ in range(20):
        _step_all(four)
        seen = sorted(u.tag for u in host.units(ENEMY))
        if seen:
            break
    assert 0 < len(seen) <= 9
    watched = [u for u in of_player_1.observe().observation.raw_data.units if u.owner == 2]
    assert sorted(u.tag for u in watched) == seen
    assert _owners(of_all) == {1: 9, 2: 9}


def test_the_players_do_not_advance_until_the_observer_steps(three):
    host, guest, observer = three
    start_watched_duel(host, guest, [(observer, 0)])
    host.send(step=sc_pb.RequestStep(count=8), id=1)
    guest.send(step=sc_pb.RequestStep(count=8), id=2)
    # Both players asked; the game waits for the observer, whose own view is still at loop 0.
    assert not _answered(host) and not _answered(guest)
    assert observer.observe().observation.game_loop == 0
    answer = observer.ask(step=sc_pb.RequestStep(count=8))
    assert answer.step.simulation_loop == 8
    assert [host.recv().step.simulation_loop, guest.recv().step.simulation_loop] == [8, 8]
    assert observer.observe().observation.game_loop == 8


def test_an_observer_cannot_act_and_moves_only_its_own_camera(three):
    host, guest, observer = three
    start_watched_duel(host, guest, [(observer, 1)])
    refused = observer.command(MOVE, [u.tag for u in host.units(SELF)], 40, 32)
    assert refused.error and "observer has no units of its own" in refused.error[0]
    refused = observer.ask(debug=sc_pb.RequestDebug(debug=[debug_pb2.DebugCommand()]))
    assert refused.error == ["debug commands are for the game's players, not its observers"]
    host_camera = host.observe().observation.raw_data.player.camera
    move = sc_pb.ObserverAction()
    move.camera_move.world_pos.x, move.camera_move.world_pos.y = 44, 30
    answer = observer.ask(obs_action=sc_pb.RequestObserverAction(actions=[move]))
    assert not answer.error and answer.HasField("obs_action"), answer
    camera = observer.observe().observation.raw_data.player.camera
    assert (camera.x, camera.y) == (44, 30)
    assert host.observe().observation.raw_data.player.camera == host_camera  # the player's camera stays
    # Switching perspective: player 2's side and fog, the camera where the observer put it.
    switch = sc_pb.ObserverAction()
    switch.player_perspective.player_id = 2
    assert not observer.ask(obs_action=sc_pb.RequestObserverAction(actions=[switch])).error
    obs = observer.observe().observation
    assert obs.player_common.player_id == 2 and (
        obs.raw_data.player.camera.x,
        obs.raw_data.player.camera.y,
    ) == (
        44,
        30,
    )
    assert _owners(observer) == {2: 9}
    follow = sc_pb.ObserverAction()
    follow.camera_follow_units.unit_tags.append(1)
    assert (
        "camera_follow_units is not supported"
        in observer.ask(obs_action=sc_pb.RequestObserverAction(actions=[follow])).error[0]
    )
    bad = sc_pb.ObserverAction()
    bad.player_perspective.player_id = 5
    assert (
        "observed_player_id 5" in observer.ask(obs_action=sc_pb.RequestObserverAction(actions=[bad])).error[0]
    )
    # A player's obs_action is refused: it acts with action.
    assert (
        "obs_action is for observers"
        in host.ask(obs_action=sc_pb.RequestObserverAction(actions=[move])).error[0]
    )


def test_a_killed_observer_lets_the_players_go_on(three):
    host, guest, observer = three
    start_watched_duel(host, guest, [(observer, 2)])
    _step_all(three, 8)
    host.send(step=sc_pb.RequestStep(count=8), id=5)
    guest.send(step=sc_pb.RequestStep(count=8), id=6)
    assert not _answered(host)  # waiting for the observer
    observer.proc.send_signal(signal.SIGKILL)  # type: ignore[attr-defined]
    observer.proc.wait(10)  # type: ignore[attr-defined]
    first, second = host.recv(), guest.recv()  # the websocket's 10 s timeout would raise if they hung
    assert (first.id, second.id) == (5, 6) and not first.error and not second.error
    assert first.status == second.status == sc_pb.in_game and first.step.simulation_loop == 16
    answers = _step_all([host, guest], 8)
    assert [a.step.simulation_loop for a in answers] == [24, 24]
    assert host.observe().observation.game_loop == 24


def test_the_observer_gets_both_results_and_the_games_replay(three):
    host, guest, observer = three
    start_watched_duel(host, guest, [(observer, 1)])
    _step_all(three, 8)
    # Player 1 kills player 2's army with debug commands: the game ends at the next loop, a Victory for 1.
    enemy = [u.tag for u in guest.units(SELF)]
    kill = debug_pb2.DebugCommand(kill_unit=debug_pb2.DebugKillUnit(tag=enemy))
    assert not host.ask(debug=sc_pb.RequestDebug(debug=[kill])).error
    answers = _step_all(three, 8)
    assert all(a.status == sc_pb.ended for a in answers), answers
    results = observer.observe().player_result
    assert [(r.player_id, r.result) for r in results] == [(1, sc_pb.Victory), (2, sc_pb.Defeat)]
    saved = [m.ask(save_replay=sc_pb.RequestSaveReplay()).save_replay.data for m in three]
    assert saved[0] and saved[0] == saved[1] == saved[2]
    info = observer.ask(replay_info=sc_pb.RequestReplayInfo(replay_data=saved[2])).replay_info
    assert [p.player_info.player_id for p in info.player_info] == [1, 2]
