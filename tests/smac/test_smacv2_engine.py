"""SMACv2's map 32x32_flat on the built-in engine: served under SMAC's path, its nine agent types numbered as
SMACv2 expects, DebugCreateUnit for every unit SMACv2 spawns, and the map's periodic attack order."""

from __future__ import annotations

import hashlib
import json
import pathlib
import sys

import numpy as np
import pytest
from s2clientprotocol import common_pb2, debug_pb2
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env.engine.mapdef import find_definition, parse_definition
from sc2env.gamedata import MAP_OWN_TYPES, REAL_TYPE_COUNT, unit_type_by_name
from sc2env.gamedata.unit_ids import Protoss, Terran, Zerg
from sc2env.mapfiles import definitions_dir

ROOT = pathlib.Path(__file__).resolve().parents[2]
MAP_PATH = "SMAC_Maps/32x32_flat.SC2Map"
# SMACv2's agent types in the map's catalog order (alphabetical), numbered after every real type.
RL_TYPES = (
    "Baneling_RL",
    "Colosus_RL",
    "Hydralisk_RL",
    "Marauder_RL",
    "Marine_RL",
    "Medivac_RL",
    "Stalker_RL",
    "Zealot_RL",
    "Zergling_RL",
)
REAL_OF = {
    "Baneling_RL": Zerg.Baneling,
    "Colosus_RL": Protoss.Colossus,
    "Hydralisk_RL": Zerg.Hydralisk,
    "Marauder_RL": Terran.Marauder,
    "Marine_RL": Terran.Marine,
    "Medivac_RL": Terran.Medivac,
    "Stalker_RL": Protoss.Stalker,
    "Zealot_RL": Protoss.Zealot,
    "Zergling_RL": Zerg.Zergling,
}


@pytest.fixture(scope="module")
def engine():
    """A real engine process, started by sc2env's launcher."""
    from sc2env.launch import launch

    process = launch(engine="builtin")
    yield process
    process.close()


@pytest.fixture
def controller(engine):
    from sc2env.client.controller import Controller

    with Controller(engine) as c:
        yield c


def rl_id(name: str) -> int:
    return REAL_TYPE_COUNT + RL_TYPES.index(name)


def plays(name: str) -> bool:
    try:
        unit_type_by_name(name)
    except KeyError:
        return False
    return True


def play(controller, race=common_pb2.Zerg, seed: int = 1):
    """Create and join 32x32_flat as SMACv2 does (raw only, no score, the Computer as player 2)."""
    request = sc_pb.RequestCreateGame(local_map=sc_pb.LocalMap(map_path=MAP_PATH), random_seed=seed)
    request.player_setup.add(type=sc_pb.Participant)
    request.player_setup.add(type=sc_pb.Computer, race=race, difficulty=sc_pb.VeryHard)
    answer = controller.create_game(request)
    assert not answer.HasField("error"), answer.error_details
    controller.join_game(
        sc_pb.RequestJoinGame(race=race, options=sc_pb.InterfaceOptions(raw=True, score=False))
    )
    return controller.observation()


def create(unit_type: int, owner: int, x: float, y: float, quantity: int = 1) -> debug_pb2.DebugCommand:
    command = debug_pb2.DebugCreateUnit(unit_type=unit_type, owner=owner, quantity=quantity)
    command.pos.x, command.pos.y = x, y
    return debug_pb2.DebugCommand(create_unit=command)


def units(controller) -> list:
    return list(controller.observation().observation.raw_data.units)


# ---- the definition -------------------------------------------------------------------------------------
def test_the_definition_is_the_conversion_of_smacv2s_map_description():
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import smac_engine_maps
    finally:
        sys.path.remove(str(ROOT / "tools"))
    source = json.loads((definitions_dir() / "smac" / "source" / "32x32_flat.json").read_text())
    text = (definitions_dir() / "smac" / "32x32_flat.json").read_text()
    assert text == smac_engine_maps.dumps(smac_engine_maps.convert(source))
    definition = parse_definition(text.encode())
    assert definition.path == MAP_PATH and definition.map_types == RL_TYPES
    assert definition.vision == "reveal_all" and not definition.setup
    # The map's only rule: every 0.5 game seconds (8 loops) each idle unit of player 2 attacks the closest
    # unit of player 1.
    (trigger,) = definition.triggers
    assert trigger["when"] == {"every": {"loops": 8}}
    assert trigger["do"] == [
        {"order": {"units": {"owner": 2}, "idle_only": True, "ability": 23, "closest": {"owner": 1}}}
    ]


def test_smacv2s_real_map_file_is_recognised_by_its_content(smacv2_maps):
    data = (smacv2_maps / "32x32_flat.SC2Map").read_bytes()
    definition = find_definition("anywhere/else.SC2Map", data)
    assert definition.name == "32x32_flat"
    assert definition.map_files == (hashlib.sha256(data).hexdigest(),)


# ---- playing it -----------------------------------------------------------------------------------------
def test_the_map_starts_empty_and_lists_smacv2s_nine_types_last(controller):
    obs = play(controller)
    assert len(obs.observation.raw_data.units) == 0
    data = controller.data(ability_id=False, upgrade_id=False, buff_id=False, effect_id=False)
    # SMACv2's own arithmetic: the first agent type is the number of types listed minus nine.
    first = len(data.units) - 9
    assert first == REAL_TYPE_COUNT
    assert [(u.unit_id, u.name) for u in data.units[first:]] == [(rl_id(n), n) for n in RL_TYPES]
    assert [u.unit_id for u in data.units] == list(range(len(data.units)))
    info = controller.game_info()
    area = info.start_raw.playable_area
    assert (area.p0.x, area.p0.y, area.p1.x, area.p1.y) == (0, 0, 32, 32)
    grid = np.unpackbits(np.frombuffer(info.start_raw.pathing_grid.data, np.uint8))
    assert grid.all(), "the whole map is pathable"


@pytest.mark.parametrize("race", [common_pb2.Terran, common_pb2.Zerg, common_pb2.Protoss])
def test_any_race_joins_the_map_that_spawns_nothing(controller, race):
    play(controller, race)
    assert controller.game_info().player_info[0].race_requested == race


@pytest.mark.parametrize("name", [n for n in RL_TYPES if plays(n)])
def test_debug_create_unit_makes_each_agent_type_and_its_real_enemy_twin(controller, name):
    play(controller)
    real = unit_type_by_name(MAP_OWN_TYPES[name]).unit_id  # (Colosus_RL, sic, copies the Colossus)
    controller.debug([create(rl_id(name), 1, 8, 16, quantity=2), create(REAL_OF[name], 2, 24, 16)])
    controller.step(1)
    made = units(controller)
    agents = [u for u in made if u.owner == 1]
    (enemy,) = [u for u in made if u.owner == 2]
    assert [u.unit_type for u in agents] == [rl_id(name)] * 2 and enemy.unit_type == real == REAL_OF[name]
    assert {u.health for u in agents} == {unit_type_by_name(name).health}
    # Two ground units made at one point are spread apart by the game's placement (Colossi collide with one
    # another too); air units may overlap.
    a, b = agents
    if name != "Medivac_RL":
        assert np.hypot(a.pos.x - b.pos.x, a.pos.y - b.pos.y) >= a.radius + b.radius - 1e-4


def test_debug_create_unit_refuses_bad_input_naming_it(controller):
    play(controller)
    cases = [
        (create(99999, 1, 8, 16), "unit type 99999 is none the built-in engine plays"),
        (create(Terran.Marine, 1, 40, 16), r"pos \(40, 16\) is off the 32x32 map"),
        (create(Terran.Marine, 1, 8, -0.5), r"pos \(8, -0.5\) is off the 32x32 map"),
        (create(Terran.Marine, 17, 8, 16), "owner must be a player id 0 .neutral. to 16, got 17"),
        (create(Terran.Marine, 1, 8, 16, quantity=0), "quantity must be 1 to 1000, got 0"),
    ]
    if not plays("Colosus_RL"):
        cases.append(
            (create(rl_id("Colosus_RL"), 1, 8, 16), r"\(Colosus_RL\) is the map's, but .* not play it")
        )
    for command, message in cases:
        with pytest.raises(Exception, match=message):
            controller.debug([command])
    assert units(controller) == [], "nothing was made"


def test_idle_enemies_attack_the_closest_agent_every_half_game_second(controller):
    play(controller)
    near, far = rl_id("Marine_RL"), rl_id("Marauder_RL")
    controller.debug([create(near, 1, 20, 16), create(far, 1, 28, 26), create(Terran.Marine, 2, 25, 16)])
    controller.step(1)
    first = {u.unit_type: u.tag for u in units(controller)}
    assert len(first) == 3
    # Within 8 loops the map orders the enemy Marine at the closer agent (the Marine_RL, 5 away; the
    # Marauder_RL is 10.4 away); the passive agents never shoot back.
    controller.step(8 * 12)
    by_type = {u.unit_type: u for u in units(controller)}
    assert by_type[near].health < 45 and by_type[far].health == by_type[far].health_max
    assert by_type[Terran.Marine].health == 45
    # Once the Marine_RL is dead, the idle Marine is sent at the next closest one.
    controller.step(8 * 40)
    left = {u.unit_type: u for u in units(controller)}
    assert near not in left and left[far].health < left[far].health_max


def test_an_enemy_with_an_order_keeps_it_when_a_closer_agent_appears(controller):
    play(controller)
    first, second = rl_id("Marine_RL"), rl_id("Marauder_RL")
    controller.debug([create(first, 1, 20, 16), create(Terran.Marine, 2, 24, 16)])
    controller.step(16)  # ordered at loop 8 to attack the only agent
    controller.debug([create(second, 1, 25, 17)])  # now the closest, 1.4 away
    controller.step(8 * 6)
    by_type = {u.unit_type: u for u in units(controller)}
    assert by_type[first].health < 45 and by_type[second].health == by_type[second].health_max


def test_smacv2s_restart_kills_every_unit_and_creates_the_next_team(controller):
    play(controller)
    marine, ling = rl_id("Marine_RL"), rl_id("Zergling_RL")
    controller.debug([create(marine, 1, 8, 16, 5), create(Terran.Marine, 2, 24, 16, 5)])
    controller.step(1)
    tags = [u.tag for u in units(controller)]
    assert len(tags) == 10
    controller.debug([debug_pb2.DebugCommand(kill_unit=debug_pb2.DebugKillUnit(tag=tags))])
    controller.step(2)
    assert units(controller) == []
    controller.debug([create(ling, 1, 16, 16, 3), create(Zerg.Zergling, 2, 4, 4, 3)])
    controller.step(1)
    made = units(controller)
    assert sorted(u.unit_type for u in made) == [Zerg.Zergling] * 3 + [ling] * 3
    assert not {u.tag for u in made} & set(tags)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda t: t["when"]["every"].update(loops=0),
            r"triggers\[0\].when.every.loops: expected a whole number",
        ),
        (
            lambda t: t["do"][0]["order"].update(point=[3, 3]),
            r"triggers\[0\].do\[0\].order: give one of target, closest, point, not closest and point",
        ),
        (lambda t: t["do"][0]["order"].update(idle_only="yes"), r"idle_only: expected"),
    ],
)
def test_a_broken_periodic_trigger_is_refused_at_load_naming_the_field(change, message):
    from sc2env.engine.mapdef import MapDefinitionError
    from sc2env.engine.scenario import Scenario

    spec = json.loads((definitions_dir() / "smac" / "32x32_flat.json").read_text())
    change(spec["triggers"][0])
    with pytest.raises(MapDefinitionError, match=message):
        Scenario.validate(parse_definition(json.dumps(spec).encode()))
