"""tools/smac_maps.py: SMAC's real .SC2Map files read into scenario descriptions (maps/smac/source/*.json)."""

from __future__ import annotations

import copy
import json
import pathlib
import struct

import pytest

pytest.importorskip("mpyq")

import smac_maps  # tools/ is on the path: tests/tools/conftest.py
from sc2mapfile import galaxy, layers, scenario, triggers

ROOT = pathlib.Path(__file__).resolve().parents[2]
SOURCE = ROOT / "maps" / "smac" / "source"
SMAC_MAPS = [
    *("3m", "8m", "25m", "5m_vs_6m", "8m_vs_9m", "10m_vs_11m", "27m_vs_30m", "MMM", "MMM2", "2s3z", "3s5z"),
    *("3s5z_vs_3s6z", "3s_vs_3z", "3s_vs_4z", "3s_vs_5z", "1c3s5z", "2m_vs_1z", "corridor", "6h_vs_8z"),
    *("2s_vs_1sc", "so_many_baneling", "bane_vs_bane", "2c_vs_64zg"),
]
ALL_DEAD = {
    "all": [
        {"compare": [{"count": {"units": {"units_of": {"player": p, "region": "entire_map",
                                                      "exclude": ["Dead", "Hidden", "Missile"]}},
                                "which": "alive"}}, "==", 0]}
        for p in (1, 2)
    ]
}  # fmt: skip


@pytest.fixture(scope="module")
def smac_dir(shared_dir) -> pathlib.Path:
    folder = shared_dir / "realdata" / "smac_maps"
    if not folder.is_dir():
        pytest.skip("../shared/realdata/smac_maps is absent")
    return folder


@pytest.fixture(scope="module")
def described(smac_dir):
    """name -> the description read now from the map file (not the committed JSON)."""
    return {name: scenario.read_map(smac_dir / f"{name}.SC2Map") for name in SMAC_MAPS}


def sides(description, event="map_init"):
    """{player: [(count, unit type, point name), ...]} of the spawns on `event`."""
    found: dict[int, list] = {}
    for spawn in scenario.spawned_units(description, event):
        found.setdefault(spawn["player"], []).append(
            (spawn["count"], spawn["unit_type"], spawn["at"]["point"])
        )
    return found


def totals(description, player):
    counted: dict[str, int] = {}
    for count, unit_type, _ in sides(description)[player]:
        counted[unit_type] = counted.get(unit_type, 0) + count
    return counted


def test_the_23_smac_maps_are_all_there(smac_dir):
    assert sorted(p.stem for p in smac_dir.glob("*.SC2Map")) == sorted(SMAC_MAPS)


@pytest.mark.parametrize("name", SMAC_MAPS)
def test_each_committed_description_is_what_the_tool_reads_now(described, name):
    assert (SOURCE / f"{name}.json").read_text() == scenario.dumps(described[name]), (
        f"maps/smac/source/{name}.json is out of date: run python tools/smac_maps.py"
    )


def test_reading_is_deterministic(smac_dir, described):
    again = scenario.read_map(smac_dir / "MMM.SC2Map")
    assert scenario.dumps(again) == scenario.dumps(described["MMM"])


def test_every_map_is_32_by_32_with_whole_map_bounds(described):
    for name, description in described.items():
        info = description["map_info"]
        assert (info["map_size"], info["bounds"]) == ([32, 32], [0, 0, 32, 32]), name
        assert (
            len(description["terrain"]["cell_flags"]) == 32
            and len(description["terrain"]["vertex_height"]) == 33
        )


def test_3m_three_marines_a_side_at_the_team_points(described):
    description = described["3m"]
    assert sides(description) == {1: [(3, "Marine_RL", "Team 1")], 2: [(3, "Marine", "Team 2")]}
    positions = {p["name"]: p["position"] for p in description["points"]}
    assert positions == {"Team 1": [9.0, 16.0, 0.0], "Team 2": [23.0, 16.0, 0.0]}


@pytest.mark.parametrize(
    ("name", "agents", "enemies"),
    [
        ("27m_vs_30m", {"Marine_RL": 27}, {"Marine": 30}),
        (
            "MMM",
            {"Marine_RL": 7, "Marauder_RL": 2, "Medivac_RL": 1},
            {"Marine": 7, "Marauder": 2, "Medivac": 1},
        ),
        (
            "MMM2",
            {"Marine_RL": 7, "Marauder_RL": 2, "Medivac_RL": 1},
            {"Marine": 8, "Marauder": 3, "Medivac": 1},
        ),
        (
            "1c3s5z",
            {"Colosus_RL": 1, "Stalker_RL": 3, "Zealot_RL": 5},
            {"Colossus": 1, "Stalker": 3, "Zealot": 5},
        ),
        ("2c_vs_64zg", {"Colossus_RL": 2}, {"Zergling": 64}),
        ("bane_vs_bane", {"Zergling_RL": 20, "Baneling_RL": 4}, {"Zergling": 20, "Baneling": 4}),
        ("corridor", {"Zealot_RL": 6}, {"Zergling": 24}),
        ("so_many_baneling", {"Zealot_RL": 7}, {"Baneling": 32}),
        ("2s_vs_1sc", {"Stalker_RL": 2}, {"SpineCrawler": 1}),
        ("6h_vs_8z", {"Hydralisk_RL": 6}, {"Zealot": 8}),
    ],
)
def test_each_side_spawns_what_smac_plays(described, name, agents, enemies):
    assert totals(described[name], 1) == agents
    assert totals(described[name], 2) == enemies


def test_the_agents_own_types_are_passive_copies_and_the_enemies_are_the_real_ones(described):
    marine = described["3m"]["unit_types"]["Marine_RL"]
    assert marine["kind"] == "new" and "parent" not in marine
    fields = marine["fields"]
    assert (fields["LifeMax"], fields["Speed"], fields["Radius"]) == (45, 2.25, 0.375)
    assert (fields["DefaultAcquireLevel"], fields["Response"]) == ("Passive", "Nothing")
    assert fields["WeaponArray"] == ["GuassRifle"] and fields["ReviveType"] == "Marine"
    assert described["3m"]["unit_types"]["Marine"] == {
        "class": "CUnit",
        "kind": "override",
        "fields": {"Food": 0},
    }
    medivac = described["MMM"]["unit_types"]["Medivac_RL"]["fields"]
    assert (medivac["EnergyStart"], medivac["EnergyMax"], medivac["AbilArray"][0]) == (50, 200, "MedivacHeal")
    stalker = described["3s5z"]["unit_types"]["Stalker_RL"]["fields"]
    assert (stalker["LifeMax"], stalker["ShieldsMax"], stalker["LifeArmor"]) == (80, 80, 1)


def test_player_2_attack_moves_to_the_agents_point_except_where_the_map_says_otherwise(described):
    special = {
        "2c_vs_64zg",
        "2m_vs_1z",
        "2s_vs_1sc",
        "corridor",
        "so_many_baneling",
        "6h_vs_8z",
        "bane_vs_bane",
    }
    for name, description in described.items():
        init = next(t for t in description["triggers"] if {"map_init": {}} in t["events"])
        orders = [a["order"] for a in init["actions"] if "order" in a]
        if name == "2s_vs_1sc":
            assert orders == []  # the Spine Crawler never moves: it is not ordered at all
            continue
        (order,) = orders
        assert (order["ability"], order["queue"], order["units"]["units_of"]["player"]) == (
            "attack",
            "replace",
            2,
        )
        if name not in special:
            assert order["target"] == {"point": "Team 1"}, name
    target = {n: next(a["order"]["target"] for a in d["triggers"][0]["actions"] if "order" in a)
              for n, d in described.items() if n != "2s_vs_1sc"}  # fmt: skip
    assert target["2c_vs_64zg"] == {"units": {"group": "allies"}}
    assert target["2m_vs_1z"] == {"random_point_between": [{"point": "Marine 1"}, {"point": "Marine 2"}]}
    assert target["corridor"] == target["so_many_baneling"] == {"point": "Attack Point"}
    assert target["bane_vs_bane"] == {"point": "Team 1 Banelings"}


def test_every_map_respawns_both_sides_when_no_unit_of_either_is_alive(described):
    for name, description in described.items():
        init, died = description["triggers"]
        assert (init["events"], died["events"]) == ([{"map_init": {}}], [{"unit_died": {"unit": "any"}}]), (
            name
        )
        assert died["conditions"] == [ALL_DEAD], name
        not_visibility = [a for a in init["actions"] if "set_visibility" not in a]
        assert died["actions"] == not_visibility, name
        assert init["actions"][:2] == [
            {"set_visibility": {"layer": "fog", "enabled": False}},
            {"set_visibility": {"layer": "mask", "enabled": False}},
        ], name


def test_terrain_pathing_agrees_with_the_points_and_the_cliffs(described):
    for name, description in described.items():
        terrain = description["terrain"]
        flags, cliffs = terrain["cell_flags"], terrain["cliff_level"]
        for point in description["points"]:
            x, y, _ = point["position"]
            assert flags[int(y)][int(x)] & 1 == 0, f"{name}: {point['name']} is on an unpathable cell"
        for y in range(32):
            for x in range(32):
                for ny, nx in ((y, x + 1), (y + 1, x)):
                    if (
                        ny < 32
                        and nx < 32
                        and cliffs[y][x] != cliffs[ny][nx]
                        and cliffs[y][x] % 64 == 0 == cliffs[ny][nx] % 64
                    ):
                        assert flags[y][x] & 1 or flags[ny][nx] & 1, (
                            f"{name}: a cliff edge at {x},{y} is walkable"
                        )


def test_3m_is_a_16_cell_high_strip_at_height_8(described):
    terrain = described["3m"]["terrain"]
    walkable_rows = [y for y, row in enumerate(terrain["cell_flags"]) if all(flag & 1 == 0 for flag in row)]
    assert walkable_rows == list(range(8, 24))
    assert all(abs(terrain["vertex_height"][y][x] - 8) < 0.02 for y in range(9, 24) for x in range(33))


def test_2c_vs_64zg_has_a_ramp_to_the_colossi_high_ground_and_2s_vs_1sc_has_creep_under_the_spine(described):
    cliffs = described["2c_vs_64zg"]["terrain"]["cliff_level"]
    assert {v for row in cliffs for v in row} == {0, 64, 72, 88, 104, 128}
    assert cliffs[16][16] == 128 and cliffs[9][16] == 64  # the Colossi point is a level above the Zerglings'
    creep = described["2s_vs_1sc"]["terrain"]["creep"]
    assert creep[20][13] == 1 and creep[10][11] == 0  # the Spine Crawler's point, a Stalker's point
    assert all("creep" not in d["terrain"] for n, d in described.items() if n != "2s_vs_1sc")


def test_the_cli_check_passes_on_the_committed_files_and_fails_on_a_stale_one(smac_dir, tmp_path, capsys):
    assert smac_maps.main([str(smac_dir), "--check"]) == 0
    assert smac_maps.main([str(smac_dir / "3m.SC2Map"), "--out", str(tmp_path)]) == 0
    written = tmp_path / "3m.json"
    assert written.read_text() == (SOURCE / "3m.json").read_text()
    written.write_text(written.read_text().replace('"Marine_RL"', '"Marine_XL"', 1))
    assert smac_maps.main([str(smac_dir / "3m.SC2Map"), "--out", str(tmp_path), "--check"]) == 1
    assert "out of date" in capsys.readouterr().err


def test_the_cli_names_a_missing_map(smac_dir, capsys):
    with pytest.raises(SystemExit):
        smac_maps.main([str(smac_dir), "--only", "4m"])
    assert "no map file for 4m" in capsys.readouterr().err


def test_smacv2_maps_read_when_its_repository_is_unpacked(smacv2_maps):
    read = {path.stem: scenario.read_map(path) for path in sorted(smacv2_maps.glob("*.SC2Map"))}
    assert {"32x32_flat", "10gen_terran", "10gen_protoss", "10gen_zerg"} <= set(read)
    flat = read["32x32_flat"]
    assert (SOURCE / "32x32_flat.json").read_text() == scenario.dumps(flat)
    assert scenario.spawned_units(flat) == [] and flat["points"] == []
    attack = next(t for t in flat["triggers"] if t["name"] == "Attack")
    assert attack["events"] == [{"periodic": {"seconds": 0.5, "clock": "game"}}]
    loop = attack["actions"][0]["for_each_unit"]
    (branch,) = loop["do"]
    assert branch["if"]["condition"] == {"compare": [{"order_count": "each_unit"}, "==", 0]}
    target = branch["if"]["then"][0]["order"]["target"]["unit"]["closest"]
    assert target["of"]["units_of"]["player"] == 1 and target["to"] == {"position_of": "each_unit"}
    assert {v for row in flat["terrain"]["cell_flags"] for v in row} <= {0, 2}  # every cell walkable


def test_galaxy_errors_name_the_line():
    with pytest.raises(galaxy.GalaxyError, match="line 2"):
        galaxy.parse('include "x"\nvoid f () { a = ; }')


def test_an_unknown_call_is_an_error_not_a_dropped_action():
    script = galaxy.parse(
        "void gt_T_Func (bool testConds, bool runActions) { UnitKill(null); return true; }\n"
        'void gt_T_Init () { gt_T = TriggerCreate("gt_T_Func"); TriggerAddEventMapInit(gt_T); }\n'
        "void InitTriggers () { gt_T_Init(); }\n"
    )
    with pytest.raises(triggers.ScriptError, match=r"UnitKill\(...\) is not an action"):
        triggers.read_triggers(script, {})


def test_an_early_return_is_an_error_not_a_skipped_rest():
    script = galaxy.parse(
        "void gt_T_Func (bool testConds, bool runActions) {\n"
        "  if ((UnitGroupCount(gv_g, c_unitCountAlive) == 0)) { return true; }\n"
        "  VisEnable(c_visTypeFog, false);\n"
        "  return true;\n"
        "}\n"
        'void gt_T_Init () { gt_T = TriggerCreate("gt_T_Func"); TriggerAddEventMapInit(gt_T); }\n'
        "void InitTriggers () { gt_T_Init(); }\n"
        "unitgroup gv_g;\n"
    )
    with pytest.raises(triggers.ScriptError, match="line 2: a return before the end"):
        triggers.read_triggers(script, {})


def test_layers_check_their_magic_and_sizes(described, smac_dir):
    with pytest.raises(layers.LayerError, match="not b'CLIF'"):
        layers.read_cliff_levels(b"XXXX" + bytes(60))
    with pytest.raises(layers.LayerError, match="too short"):
        layers.read_cell_flags(b"LFCT" + bytes(20) + struct.pack("<II", 32, 32) + bytes(10))
    info = bytearray(b"IpaM" + struct.pack("<IIIII", 40, 0, 0, 32, 32))
    with pytest.raises(layers.LayerError, match="version 40"):
        layers.read_map_info(bytes(info))


def test_a_changed_description_no_longer_matches(described):
    changed = copy.deepcopy(described["8m"])
    changed["triggers"][0]["actions"][2]["spawn"]["count"] = 9
    assert scenario.dumps(changed) != (SOURCE / "8m.json").read_text()
    assert json.loads(scenario.dumps(changed))["triggers"][0]["actions"][2]["spawn"]["count"] == 9
