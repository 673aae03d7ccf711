"""SMAC's scenarios with walls, cliffs, a Spine Crawler and their own kinds of order, played in-process from the
shipped definitions: each map's own rule against what the map does, and the Spine Crawler against its numbers."""

from __future__ import annotations

import numpy as np
import pytest
from engine_helpers import arena, unit
from s2clientprotocol import common_pb2
from s2clientprotocol import sc2api_pb2 as sc_pb
from sim_helpers import Sim

from sc2env.engine.mapdef import builtin_definitions, parse_definition
from sc2env.engine.session import Session
from sc2env.engine.walls import Walls
from sc2env.gamedata import unit_type_by_name

ATTACK = 23
SPINE = unit_type_by_name("SpineCrawler")
WALLED = ("corridor", "so_many_baneling", "bane_vs_bane", "6h_vs_8z", "2s_vs_1sc", "2m_vs_1z", "2c_vs_64zg")


def scenario(name: str, seed: int = 1) -> Sim:
    """The shipped scenario, created as SMAC does (a Computer in the second slot)."""
    sim = Sim.__new__(Sim)  # Sim's own create_game has one slot: this one has SMAC's two
    sim.session = Session()
    create = sc_pb.RequestCreateGame(local_map=sc_pb.LocalMap(map_path=f"SMAC_Maps/{name}.SC2Map"))
    create.random_seed = seed
    create.player_setup.add(type=sc_pb.Participant)
    create.player_setup.add(type=sc_pb.Computer, race=common_pb2.Zerg, difficulty=sc_pb.VeryHard)
    assert not sim.ask(create_game=create).create_game.HasField("error")
    join = sc_pb.RequestJoinGame(
        race=common_pb2.Protoss, options=sc_pb.InterfaceOptions(raw=True, score=False)
    )
    assert not sim.ask(join_game=join).join_game.HasField("error")
    return sim


def walls_of(name: str) -> Walls:
    definition = parse_definition(builtin_definitions()[name])
    assert definition.ground.pathable is not None
    return Walls(definition.ground.pathable)


def orders_of(sim: Sim, owner: int) -> list:
    w = sim.game.world
    return [w.orders[i][0] if w.orders[i] else None for i in range(w.n) if w.owner[i] == owner]


@pytest.mark.parametrize("name", WALLED)
def test_every_ground_unit_stays_on_the_maps_pathable_cells(name):
    """The whole battle (player 2 attacking, the agents idle), checked every 8 loops: no ground unit overlaps an
    unpathable cell (the Colossi walk where they like)."""
    sim = scenario(name)
    walls = walls_of(name)
    w = sim.game.world
    for _ in range(60):
        sim.step(8)
        ground = w.grounded.nonzero()[0]
        if len(ground):
            assert (walls.clearance(w.pos[ground]) >= w.radius[ground] - 1e-6).all(), name


def test_corridors_zerglings_come_down_the_corridor_to_the_zealots():
    """corridor: the Zerglings spawn at the far end (27.9, 28.2) and attack-move to the corner behind the
    Zealots: they reach them (the corridor is the only way) and hurt one."""
    sim = scenario("corridor")
    w = sim.game.world
    start = {int(t): float(w.health[i] + w.shields[i]) for i, t in enumerate(w.tag) if w.owner[i] == 1}
    for _ in range(80):
        sim.step(8)
        if any(w.health[i] + w.shields[i] < start[int(t)] for i, t in enumerate(w.tag) if w.owner[i] == 1):
            break
    else:
        pytest.fail("no Zealot was hurt in 640 loops")


def test_2m_vs_1z_sends_the_zealot_to_a_random_point_between_the_marines_drawn_from_the_seed():
    points = []
    for seed in (1, 2, 3, 4, 1):
        (order,) = orders_of(scenario("2m_vs_1z", seed), 2)
        assert order.ability_id == ATTACK and order.target_tag == 0
        x, y = order.point
        assert 13 <= x <= 19 and y == 12  # on the line from Marine 1 (13, 12) to Marine 2 (19, 12)
        points.append(x)
    assert points[0] == points[-1]  # the same seed, the same point
    assert len(set(points)) == 4


def test_2c_vs_64zg_sends_every_zergling_at_the_colossi():
    sim = scenario("2c_vs_64zg")
    w = sim.game.world
    colossi = {int(t) for i, t in enumerate(w.tag) if w.owner[i] == 1}
    orders = orders_of(sim, 2)
    assert len(orders) == 64 and len(colossi) == 2
    assert all(o.ability_id == ATTACK and o.target_tag in colossi for o in orders)
    # The Colossi stand on the high ground, the Zerglings below it: their heights from the map's height map.
    units = sim.obs().observation.raw_data.units
    assert {round(u.pos.z) for u in units if u.owner == 1} == {10}
    assert {round(u.pos.z) for u in units if u.owner == 2} == {8}


def test_2s_vs_1sc_gives_the_spine_crawler_no_order_and_it_never_moves():
    sim = scenario("2s_vs_1sc")
    w = sim.game.world
    (spine,) = [i for i in range(w.n) if w.owner[i] == 2]
    assert w.type_id[spine] == SPINE.unit_id and not w.orders[spine]
    where = w.pos[spine].copy()
    assert np.hypot(*(where - (13.92, 20.04))) < 1.5  # on its point (placed on the 2x2 footprint grid)
    sim.step(200)
    assert (w.pos[w.slot(int(w.tag[spine]))] == where).all()


def test_a_spine_crawler_fires_25_plus_5_vs_armored_every_1_85_game_seconds_within_7():
    """Against a passive Stalker 6 away (Armored, armor 1): 30 on the shields a shot (shields take no armor),
    shots 29.6 loops apart (plus the game's random delay of -1 to 2); then the rest through the armor."""
    sim = Sim(
        arena([unit("Stalker_RL", 36, 30), unit("SpineCrawler", 30, 30, owner=2)], map_types=["Stalker_RL"])
    )
    vitals, drops = [], []
    for loop in range(1, 100):
        stalker = next(u for u in sim.step(1).observation.raw_data.units if u.owner == 1)
        vitals.append((stalker.shield, stalker.health))
        if len(vitals) > 1 and vitals[-1] != vitals[-2]:
            drops.append(loop)
    assert vitals[0] == (50, 80) and vitals[drops[0] - 1] == (20, 80)
    assert vitals[drops[1] - 1] == (0, 80 - (30 - 20 - 1))  # 20 left on the shields, 10 - 1 armor on the life
    assert all(28 <= b - a <= 32 for a, b in zip([1, *drops], drops))  # one shot every 1.85 game s
    # Out of its range (7 from its edge): no shot.
    far = Sim(
        arena([unit("Stalker_RL", 38.7, 30), unit("SpineCrawler", 30, 30, owner=2)], map_types=["Stalker_RL"])
    )
    far.step(100)
    assert next(u for u in far.obs().observation.raw_data.units if u.owner == 1).shield == 80


def test_the_spine_crawler_carries_its_stats():
    s = SPINE
    assert (s.unit_id, s.health, s.armor, s.radius, s.speed, s.sight, s.structure) == (
        98,
        300,
        2,
        1.0,
        0,
        11,
        True,
    )
    assert s.weapon is not None and (s.weapon.damage, s.weapon.range, s.weapon.bonus) == (
        25,
        7,
        (("Armored", 5),),
    )
