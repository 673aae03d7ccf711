"""Simple64 over real sockets: two engine processes linked on loopback, and a player against the built-in AI."""

from __future__ import annotations

from collections.abc import Iterator

import portpicker
import pytest
from engine_helpers import Player, connect, interface, start_engine
from s2clientprotocol import common_pb2, debug_pb2, raw_pb2
from s2clientprotocol import sc2api_pb2 as sc_pb

SIMPLE64 = "Melee/Simple64.SC2Map"
SELF, ENEMY = 1, 4  # raw alliance values
COMMAND_CENTER, SCV, SUPPLY_DEPOT, BARRACKS, MARINE = 18, 45, 19, 21, 48


@pytest.fixture
def players() -> Iterator[tuple[Player, Player]]:
    procs = [start_engine() for _ in range(2)]
    pair = tuple(Player(connect(port), proc) for proc, port in procs)
    yield pair  # type: ignore[misc]
    for player in pair:
        player.ws.close()
        player.proc.kill()
        player.proc.wait(10)


def _join(ports: list[int], race: int = common_pb2.Terran) -> sc_pb.RequestJoinGame:
    join = sc_pb.RequestJoinGame(options=interface(screen=16, minimap=16), race=race)
    join.server_ports.game_port, join.server_ports.base_port = ports[:2]
    join.client_ports.add(game_port=ports[2], base_port=ports[3])
    return join


def _start(host: Player, guest: Player, seed: int = 2) -> None:
    create = sc_pb.RequestCreateGame(local_map=sc_pb.LocalMap(map_path=SIMPLE64), random_seed=seed)
    create.player_setup.add(type=sc_pb.Participant)
    create.player_setup.add(type=sc_pb.Participant)
    assert not host.ask(create_game=create).create_game.HasField("error")
    ports = [portpicker.pick_unused_port() for _ in range(4)]
    host.send(join_game=_join(ports), id=11)
    guest.send(join_game=_join(ports), id=12)
    for player in (host, guest):
        answer = player.recv()
        assert answer.status == sc_pb.in_game, answer
        player.player_id = answer.join_game.player_id


def _step_both(host: Player, guest: Player, count: int) -> sc_pb.Status.ValueType:
    guest.send(step=sc_pb.RequestStep(count=count))
    status = host.ask(step=sc_pb.RequestStep(count=count)).status
    guest.recv()
    return status


def test_two_players_each_see_their_own_base_under_fog(players):
    host, guest = players
    _start(host, guest)
    assert (host.player_id, guest.player_id) == (1, 2)
    for player in players:
        obs = player.observe().observation
        own = [u for u in obs.raw_data.units if u.alliance == SELF]
        assert sorted(u.unit_type for u in own) == [COMMAND_CENTER] + [SCV] * 12
        assert [u for u in obs.raw_data.units if u.alliance == ENEMY] == []  # the other base is under fog
        centre = next(u.pos for u in own if u.unit_type == COMMAND_CENTER)
        camera = obs.raw_data.player.camera
        assert (camera.x, camera.y) == pytest.approx((centre.x, centre.y))  # the camera starts on its base
        assert obs.player_common.minerals == 50 and obs.player_common.food_cap == 15
    info = host.ask(game_info=sc_pb.RequestGameInfo()).game_info
    assert info.local_map_path == SIMPLE64 and len(info.start_raw.start_locations) == 2


def test_the_side_whose_buildings_are_all_destroyed_loses(players):
    host, guest = players
    _start(host, guest)
    # Player 2 mines for a while, then its only building goes: its SCVs are left, the game is lost.
    minerals = next(u.tag for u in guest.observe().observation.raw_data.units if u.unit_type == 341)
    scvs = [u.tag for u in guest.units(SELF) if u.unit_type == SCV]
    gather = raw_pb2.ActionRawUnitCommand(ability_id=295, unit_tags=scvs, target_unit_tag=minerals)
    guest.ask(
        action=sc_pb.RequestAction(actions=[sc_pb.Action(action_raw=raw_pb2.ActionRaw(unit_command=gather))])
    )
    assert _step_both(host, guest, 64) == sc_pb.in_game
    centre = next(u.tag for u in guest.units(SELF) if u.unit_type == COMMAND_CENTER)
    kill = debug_pb2.DebugCommand(kill_unit=debug_pb2.DebugKillUnit(tag=[centre]))
    assert not guest.ask(debug=sc_pb.RequestDebug(debug=[kill])).error
    assert _step_both(host, guest, 16) == sc_pb.ended
    for player in players:
        results = {r.player_id: r.result for r in player.observe().player_result}
        assert results == {1: sc_pb.Victory, 2: sc_pb.Defeat}
    assert len([u for u in guest.units(SELF) if u.unit_type == SCV]) == 12


def test_another_race_is_refused_naming_the_race_it_plays(players):
    host, guest = players
    create = sc_pb.RequestCreateGame(local_map=sc_pb.LocalMap(map_path=SIMPLE64))
    create.player_setup.add(type=sc_pb.Participant)
    create.player_setup.add(type=sc_pb.Participant)
    assert not host.ask(create_game=create).create_game.HasField("error")
    ports = [portpicker.pick_unused_port() for _ in range(4)]
    answer = host.ask(join_game=_join(ports, common_pb2.Zerg)).join_game
    assert answer.error == sc_pb.ResponseJoinGame.FeatureUnsupported
    assert "plays Terran" in answer.error_details and "race Terran or Random" in answer.error_details
    create = sc_pb.RequestCreateGame(local_map=sc_pb.LocalMap(map_path=SIMPLE64))
    create.player_setup.add(type=sc_pb.Participant)
    create.player_setup.add(type=sc_pb.Computer, difficulty=sc_pb.Easy, race=common_pb2.Protoss)
    refused = guest.ask(create_game=create).create_game
    assert refused.error == sc_pb.ResponseCreateGame.InvalidPlayerSetup
    assert "plays Terran" in refused.error_details


def _against_the_ai(player: Player, difficulty: int, seed: int = 6) -> None:
    create = sc_pb.RequestCreateGame(local_map=sc_pb.LocalMap(map_path=SIMPLE64), random_seed=seed)
    create.player_setup.add(type=sc_pb.Participant)
    create.player_setup.add(type=sc_pb.Computer, difficulty=difficulty)
    assert not player.ask(create_game=create).create_game.HasField("error")
    join = sc_pb.RequestJoinGame(options=interface(screen=16, minimap=16), race=common_pb2.Terran)
    assert player.ask(join_game=join).status == sc_pb.in_game


def test_the_ai_builds_a_base_and_destroys_an_idle_players(players):
    host, _ = players
    _against_the_ai(host, sc_pb.Medium)
    seen: set[int] = set()
    while host.ask(step=sc_pb.RequestStep(count=64)).status != sc_pb.ended:
        seen |= {u.unit_type for u in host.units(ENEMY)}
    obs = host.observe()
    assert {r.player_id: r.result for r in obs.player_result} == {1: sc_pb.Defeat, 2: sc_pb.Victory}
    assert obs.observation.game_loop < 16 * 60 * 30  # well before the time limit's tie
    assert MARINE in seen  # its army came
    assert not [
        u for u in obs.observation.raw_data.units if u.alliance == SELF and u.unit_type == COMMAND_CENTER
    ]
    # Its commands are in the replay: the Computer's actions per minute are counted there.
    data = host.ask(save_replay=sc_pb.RequestSaveReplay()).save_replay.data
    info = host.ask(replay_info=sc_pb.RequestReplayInfo(replay_data=data)).replay_info
    assert info.player_info[1].player_info.player_name == "Computer" and info.player_info[1].player_apm > 0
