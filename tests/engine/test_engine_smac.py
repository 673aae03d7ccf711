"""SMAC's scenarios on the engine: the definitions converted from SMAC's maps, played over the real protocol by
the engine process (spawns, type ids, the enemy's attack, SMAC's reset by debug kill, map files by content)."""

from __future__ import annotations

import hashlib
import json
import pathlib
import subprocess
import sys

import numpy as np
import pytest
from s2clientprotocol import common_pb2, debug_pb2
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env.engine.mapdef import builtin_definitions, find_definition, parse_definition
from sc2env.gamedata import REAL_TYPE_COUNT, UNIT_TYPES, unit_type_by_name
from sc2env.gamedata.unit_ids import Terran
from sc2env.mapfiles import definitions_dir

ROOT = pathlib.Path(__file__).resolve().parents[2]
REAL_MAPS = ROOT.parent / "shared" / "realdata" / "smac_maps"
MARINE_MAPS = {  # name: (agents, enemies)
    "3m": (3, 3),
    "8m": (8, 8),
    "25m": (25, 25),
    "5m_vs_6m": (5, 6),
    "8m_vs_9m": (8, 9),
    "10m_vs_11m": (10, 11),
    "27m_vs_30m": (27, 30),
}
SMACV2_MAPS = ("32x32_flat",)
MARINE_RL = REAL_TYPE_COUNT  # the only own type of the marine maps: the first id after the real ones
TEAM_1, TEAM_2 = (9.0, 16.0), (23.0, 16.0)  # the maps' spawn points


def shipped() -> dict[str, bytes]:
    """SMAC's scenario definitions (SMACv2's 32x32_flat, which spawns nothing, has tests/smac/test_smacv2_*)."""
    paths = sorted((definitions_dir() / "smac").glob("*.json"))
    return {p.stem: p.read_bytes() for p in paths if p.stem not in SMACV2_MAPS}


def create(map_path: str = "", map_data: bytes = b"", seed: int = 3) -> sc_pb.RequestCreateGame:
    request = sc_pb.RequestCreateGame(local_map=sc_pb.LocalMap(map_path=map_path, map_data=map_data))
    request.random_seed = seed
    request.player_setup.add(type=sc_pb.Participant)
    request.player_setup.add(type=sc_pb.Computer, race=common_pb2.Terran, difficulty=sc_pb.VeryHard)
    return request


def play(controller, map_path: str = "SMAC_Maps/3m.SC2Map", map_data: bytes = b"", seed: int = 3):
    """Create and join as SMAC does (raw only, no score); the first observation."""
    answer = controller.create_game(create(map_path, map_data, seed))
    assert not answer.HasField("error"), answer.error_details
    controller.join_game(
        sc_pb.RequestJoinGame(race=common_pb2.Terran, options=sc_pb.InterfaceOptions(raw=True, score=False))
    )
    return controller.observation()


def sides(obs) -> tuple[list, list]:
    units = obs.observation.raw_data.units
    return [u for u in units if u.owner == 1], [u for u in units if u.owner == 2]


def kill_all(controller, obs) -> None:
    tags = [u.tag for u in obs.observation.raw_data.units]
    controller.debug([debug_pb2.DebugCommand(kill_unit=debug_pb2.DebugKillUnit(tag=tags))])


# ---- the definitions ------------------------------------------------------------------------------------
def test_every_shipped_definition_is_the_conversion_of_its_description():
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import smac_engine_maps
    finally:
        sys.path.remove(str(ROOT / "tools"))
    definitions = shipped()
    assert set(MARINE_MAPS) <= set(definitions)
    for name, text in definitions.items():
        source = json.loads((definitions_dir() / "smac" / "source" / f"{name}.json").read_text())
        assert text.decode() == smac_engine_maps.dumps(smac_engine_maps.convert(source)), name
    check = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "smac_engine_maps.py"), "--check"],
        capture_output=True,
        text=True,
    )
    assert check.returncode == 0, check.stderr


def test_the_engine_plays_all_of_smacs_scenarios():
    from sc2env.smac import SMAC_SCENARIOS, get_scenario

    assert {get_scenario(name).map_file for name in SMAC_SCENARIOS} <= set(shipped())


def test_a_map_the_engine_cannot_play_yet_is_refused_with_the_reason():
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import smac_engine_maps
    finally:
        sys.path.remove(str(ROOT / "tools"))
    source = json.loads((definitions_dir() / "smac" / "source" / "3m.json").read_text())
    source["unit_types"]["Marine_RL"]["fields"]["LifeMax"] = 55
    with pytest.raises(smac_engine_maps.ConversionError, match="3m: Marine_RL: LifeMax 55 in the map, 45"):
        smac_engine_maps.convert(source)
    source = json.loads((definitions_dir() / "smac" / "source" / "2m_vs_1z.json").read_text())
    source["triggers"][0]["actions"][-1]["order"]["target"] = {"random_point_in": "Zealot"}
    with pytest.raises(smac_engine_maps.ConversionError, match="random_point_in"):
        smac_engine_maps.convert(source)


@pytest.mark.skipif(not REAL_MAPS.is_dir(), reason="SMAC's map files are not at ../shared/realdata/smac_maps")
@pytest.mark.parametrize("name", sorted(shipped()))
def test_the_real_map_file_is_recognised_by_its_content(name):
    data = (REAL_MAPS / f"{name}.SC2Map").read_bytes()
    assert parse_definition(shipped()[name]).map_files == (hashlib.sha256(data).hexdigest(),)
    assert find_definition("whatever.SC2Map", data).name == name


def test_the_definitions_are_built_in_under_smacs_path():
    definitions = builtin_definitions()
    for name in MARINE_MAPS:
        definition = parse_definition(definitions[name])
        assert definition.path == f"SMAC_Maps/{name}.SC2Map"
        assert definition.map_types == ("Marine_RL",) and definition.vision == "reveal_all"


# ---- playing them ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(MARINE_MAPS))
def test_each_marine_map_spawns_its_sides_with_the_real_ids_and_stats(controller, name):
    obs = play(controller, f"SMAC_Maps/{name}.SC2Map")
    agents, enemies = sides(obs)
    assert (len(agents), len(enemies)) == MARINE_MAPS[name]
    assert {u.unit_type for u in agents} == {MARINE_RL} and {u.unit_type for u in enemies} == {Terran.Marine}
    for u in agents + enemies:
        assert (u.health, u.health_max, u.radius) == (45, 45, 0.375)
    # Spread round their points by the game's placement: no two overlap, all on the pathable rows 8..24.
    for team, (x, y) in ((agents, TEAM_1), (enemies, TEAM_2)):
        pos = np.array([(u.pos.x, u.pos.y) for u in team])
        gaps = np.hypot(*(pos[:, None] - pos[None]).transpose(2, 0, 1))[np.triu_indices(len(pos), 1)]
        assert gaps.min() >= 0.75 - 1e-6
        assert np.hypot(pos[:, 0] - x, pos[:, 1] - y).max() < 5
        assert (pos[:, 1] >= 8).all() and (pos[:, 1] <= 24).all()
    info = controller.game_info()
    assert info.map_name == name and info.local_map_path == f"SMAC_Maps/{name}.SC2Map"
    area = info.start_raw.playable_area
    assert (area.p0.x, area.p0.y, area.p1.x, area.p1.y) == (0, 0, 32, 32)


@pytest.mark.parametrize("name", sorted(shipped()))
def test_every_shipped_scenario_spawns_what_its_map_does_and_player_2_attacks(controller, name):
    """Per side, the units the map's start trigger spawns (read from the description, not the definition),
    with the ids the real game gives them and the real stats; then player 2's attack reaches the agents."""
    source = json.loads((definitions_dir() / "smac" / "source" / f"{name}.json").read_text())
    own = [n for n, entry in source["unit_types"].items() if entry["kind"] == "new"]
    expected: dict[tuple[int, int], int] = {}
    for action in source["triggers"][0]["actions"]:
        if "spawn" in action:
            spawn = action["spawn"]
            type_name = spawn["unit_type"]
            type_id = (
                REAL_TYPE_COUNT + own.index(type_name)
                if type_name in own
                else unit_type_by_name(type_name).unit_id
            )
            key = (spawn["player"], type_id)
            expected[key] = expected.get(key, 0) + spawn["count"]
    obs = play(controller, f"SMAC_Maps/{name}.SC2Map")
    units = obs.observation.raw_data.units
    found: dict[tuple[int, int], int] = {}
    for u in units:
        found[(u.owner, u.unit_type)] = found.get((u.owner, u.unit_type), 0) + 1
        # The map's own types have their copies' stats (the converter checked them against the map's fields:
        # Hydralisk_RL's 80 life, not the recorded Hydralisk's 90).
        typed = unit_type_by_name(_name_of(u.unit_type, own))
        assert (u.health_max, u.shield_max) == (typed.health, typed.shields), name
    assert found == expected
    start = {u.tag: u.health + u.shield for u in units if u.owner == 1}
    ordered = any("order" in action for action in source["triggers"][0]["actions"])
    for _ in range(60):
        controller.step(8)
        agents = [u for u in controller.observation().observation.raw_data.units if u.owner == 1]
        if len(agents) < len(start) or any(u.health + u.shield < start[u.tag] for u in agents):
            assert ordered, f"{name}: player 2 has no order, yet an agent was hurt"
            break
    else:
        # 2s_vs_1sc orders nothing: its Spine Crawler waits for the agents to come within its range.
        assert not ordered, f"{name}: no agent was hurt in 480 loops"


def _name_of(type_id: int, own: list[str]) -> str:
    if type_id >= REAL_TYPE_COUNT:
        return own[type_id - REAL_TYPE_COUNT]
    return next(t.name for t in UNIT_TYPES.values() if t.unit_id == type_id)


def test_response_data_lists_the_maps_own_type_after_every_real_one(controller):
    play(controller)
    units = {u.unit_id: u for u in controller.data(ability_id=False, upgrade_id=False, buff_id=False).units}
    assert units[MARINE_RL].name == "Marine_RL" and max(units) == MARINE_RL
    assert units[MARINE_RL].movement_speed == units[Terran.Marine].movement_speed
    assert list(units[MARINE_RL].weapons) == list(units[Terran.Marine].weapons)


def test_a_maps_own_types_are_numbered_in_its_catalogs_order(controller):
    spec = json.loads(shipped()["3m"])
    spec["map_types"] = ["Baneling_RL", "Marine_RL", "Zergling_RL"]
    spec["map_files"] = []
    obs = play(controller, map_data=json.dumps(spec).encode())
    agents, _ = sides(obs)
    assert {u.unit_type for u in agents} == {REAL_TYPE_COUNT + 1}
    units = controller.data(ability_id=False, upgrade_id=False, buff_id=False).units
    own = [(u.unit_id, u.name) for u in units if u.unit_id >= REAL_TYPE_COUNT]
    assert own == [(2057, "Baneling_RL"), (2058, "Marine_RL"), (2059, "Zergling_RL")]


def test_player_2_attacks_and_the_agents_units_never_fight_back(controller):
    """The enemy attack-moves to the agents' point and shoots; the passive Marine_RL neither acquires nor
    responds, so every agent dies and no enemy loses a hit point."""
    obs = play(controller)
    controller.step(16)
    _, enemies = sides(controller.observation())
    assert all(u.pos.x < 23 for u in enemies)  # on their way
    loops = 0
    while sides(obs)[0] and loops < 2000:
        controller.step(8)
        loops += 8
        obs = controller.observation()
    agents, enemies = sides(obs)
    assert not agents and len(enemies) == 3
    assert all(u.health == 45 for u in enemies)
    # 135 hit points at 3 x 6 damage per 0.8608 game s (13.8 loops) of the three Marines: 8 volleys at the
    # least once all three shoot (110 loops), plus the walk of 14 - 5 (range) - 0.75 cells at 2.25/16 a loop.
    assert 110 + 55 <= loops <= 260


def test_smacs_reset_kill_everyone_and_the_map_brings_both_sides_back(controller):
    obs = play(controller)
    before = {u.tag for u in obs.observation.raw_data.units}
    kill_all(controller, obs)
    controller.step(2)
    obs = controller.observation()
    agents, enemies = sides(obs)
    assert (len(agents), len(enemies)) == (3, 3)
    assert not before & {u.tag for u in agents + enemies}
    assert all(u.health == 45 for u in agents + enemies)
    assert np.mean([u.pos.x for u in agents]) < 12 and np.mean([u.pos.x for u in enemies]) > 20


def test_no_respawn_while_one_side_lives(controller):
    obs = play(controller)
    agents, enemies = sides(obs)
    controller.debug([debug_pb2.DebugCommand(kill_unit=debug_pb2.DebugKillUnit(tag=[u.tag for u in agents]))])
    controller.step(8)
    agents_after, enemies_after = sides(controller.observation())
    assert not agents_after and {u.tag for u in enemies_after} == {u.tag for u in enemies}


def test_debug_create_unit_makes_the_maps_own_type_by_its_reported_id(controller):
    play(controller)
    create = debug_pb2.DebugCreateUnit(unit_type=MARINE_RL, owner=1, quantity=2)
    create.pos.x, create.pos.y = 16, 12
    controller.debug([debug_pb2.DebugCommand(create_unit=create)])  # an error answer would raise
    agents, _ = sides(controller.observation())
    made = [u for u in agents if abs(u.pos.x - 16) < 2 and abs(u.pos.y - 12) < 2]
    assert len(agents) == 5 and len(made) == 2 and {u.unit_type for u in made} == {MARINE_RL}


def test_debug_create_unit_of_a_type_the_map_lacks_is_an_error(session):
    session.handle(_request(create_game=create("SMAC_Maps/3m.SC2Map")))
    session.handle(
        _request(
            join_game=sc_pb.RequestJoinGame(race=common_pb2.Terran, options=sc_pb.InterfaceOptions(raw=True))
        )
    )
    command = debug_pb2.DebugCommand(
        create_unit=debug_pb2.DebugCreateUnit(unit_type=REAL_TYPE_COUNT + 1, owner=1)
    )
    answer = sc_pb.Response.FromString(session.handle(_request(debug=sc_pb.RequestDebug(debug=[command]))))
    assert answer.error and f"unit type {REAL_TYPE_COUNT + 1}" in answer.error[0]
    assert "Marine_RL 2057" in answer.error[0]


def _request(**kind) -> bytes:
    return sc_pb.Request(**kind).SerializeToString()


def test_the_stand_in_and_the_real_files_bytes_play_the_scenario(controller, tmp_path):
    subprocess.run([sys.executable, "-m", "sc2env.engine", "--make-sc2path", str(tmp_path)], check=True)
    stand_in = tmp_path / "Maps" / "SMAC_Maps" / "3m.SC2Map"
    assert stand_in.read_bytes() == shipped()["3m"]
    obs = play(controller, "SMAC_Maps/elsewhere.SC2Map", stand_in.read_bytes())
    assert [len(side) for side in sides(obs)] == [3, 3]
    if REAL_MAPS.is_dir():
        obs = play(controller, "anything.SC2Map", (REAL_MAPS / "8m.SC2Map").read_bytes())
        assert [len(side) for side in sides(obs)] == [8, 8]
        assert controller.game_info().map_name == "8m"


def test_the_same_seed_plays_the_same_battle(controller):
    def run() -> list[bytes]:
        obs = play(controller, "SMAC_Maps/5m_vs_6m.SC2Map", seed=11)
        out = []
        for _ in range(30):
            controller.step(8)
            obs = controller.observation()
            out.append(obs.observation.raw_data.SerializeToString())
        return out

    assert run() == run()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"map_types": ["Marine_XL"]}, "map_types: expected a list of the map's own unit types"),
        ({"map_files": ["not a digest"]}, "map_files: expected a list of SHA-256 hex digests"),
        ({"pathable_area": [0, 8, 40, 24]}, "pathable_area: must lie inside the playable area"),
        ({"map_folder": "../elsewhere"}, "map_folder: expected a folder name"),
        ({"map_types": []}, "'Marine_RL' is a map's own type: list it in map_types"),
        (
            {"triggers": [{"when": {"unit_died": {}}, "do": [{"if": {"unit_count": {"equals": 0}}}]}]},
            "if.unit_count: missing field 'owner'",
        ),
    ],
)
def test_a_broken_scenario_definition_is_refused_naming_the_field(session, change, message):
    spec = {**json.loads(shipped()["3m"]), **change}
    answer = sc_pb.Response.FromString(
        session.handle(_request(create_game=create(map_data=json.dumps(spec).encode())))
    )
    assert answer.create_game.error == sc_pb.ResponseCreateGame.InvalidMapData
    assert message in answer.create_game.error_details
