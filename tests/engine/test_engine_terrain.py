"""Cell-by-cell ground: a definition's pathing grid and height map, checked at load, reported in game_info and
the height layers, and kept by ground units (never in an unpathable cell, paths round walls) but not by air
units."""

from __future__ import annotations

import json

import numpy as np
import pytest
from engine_helpers import arena, interface, layer, unit
from s2clientprotocol import error_pb2
from sim_helpers import Sim

from sc2env.engine.ground import encode_heights, encode_pathing
from sc2env.engine.mapdef import MapDefinitionError, parse_definition
from sc2env.engine.walls import Walls
from sc2env.engine.world import Bounds
from sc2env.gamedata import unit_type_by_name

MARINE, MEDIVAC = 48, 54
MOVE = 16
GAP = (26, 30)  # the wall's gap: rows y 26..29


def walled() -> np.ndarray:
    """A 32x32 map with a border of blocked cells and a wall across x 15..16, open only at y 26..29."""
    grid = np.zeros((32, 32), bool)
    grid[2:30, 2:30] = True
    grid[2 : GAP[0], 15:17] = False
    return grid


def definition(setup: list, grid: np.ndarray | None = None, **extra) -> bytes:
    grid = walled() if grid is None else grid
    spec = json.loads(arena(setup, area=(0, 0, 32, 32), vision="reveal_all", time_limit=20000))
    spec.update(map_size=[32, 32], camera_start=[16, 16], pathing_grid=encode_pathing(grid), **extra)
    return json.dumps(spec).encode()


def positions(obs, unit_type: int) -> np.ndarray:
    return np.array([(u.pos.x, u.pos.y) for u in obs.observation.raw_data.units if u.unit_type == unit_type])


def walk(sim: Sim, unit_type: int, loops: int) -> list[np.ndarray]:
    """The positions of the units of `unit_type` after each 4 loops."""
    return [positions(sim.step(4), unit_type) for _ in range(loops // 4)]


# ---- the definition -------------------------------------------------------------------------------------
def test_the_grids_parse_into_pathable_cells_heights_and_the_box_units_stand_in():
    heights = np.where(walled(), 8.0, 0.0)
    heights[20:, :] += 2.0
    d = parse_definition(definition([], height_map=encode_heights(heights)))
    assert (d.ground.pathable == walled()).all()
    assert (d.ground.heights == heights).all()
    assert d.walkable == Bounds(2, 2, 30, 30) and d.ground.walled


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda s: s["pathing_grid"].pop(), "pathing_grid: expected 32 rows"),
        (lambda s: s["pathing_grid"].__setitem__(3, "." * 31), r"pathing_grid\[3\]: expected 32 characters"),
        (lambda s: s["pathing_grid"].__setitem__(4, "x" * 32), r"pathing_grid\[4\]: characters 'x'"),
        (lambda s: s.update(pathing_grid=["#" * 32] * 32), "no cell is pathable"),
        (lambda s: s.update(pathable_area=[0, 0, 8, 8]), "give either pathable_area or pathing_grid"),
        (lambda s: s.update(placement_grid=["." * 32] * 31), "placement_grid: expected 32 rows"),
        (
            lambda s: s.update(placement_grid=["." * 32] * 32),
            r"placement_grid\[0\]: cell 0 is buildable but not pathable",
        ),
        (
            lambda s: s.update(placement_grid=s.pop("pathing_grid")),
            "placement_grid: give a pathing_grid too",
        ),
        (lambda s: s.update(height_map={"levels": [1.0]}), "height_map: expected"),
        (lambda s: s.update(height_map={"levels": [20.0], "rows": ["0" * 32] * 32}), "from -16 to 16"),
        (lambda s: s.update(height_map={"levels": [1.0], "rows": ["1" * 32] * 32}), "characters '1'"),
        (
            lambda s: s.update(terrain_height=3, height_map={"levels": [1.0], "rows": ["0" * 32] * 32}),
            "give either terrain_height",
        ),
    ],
)
def test_a_wrong_grid_is_refused_naming_the_field(edit, message):
    spec = json.loads(definition([]))
    edit(spec)
    with pytest.raises(MapDefinitionError, match=message):
        parse_definition(json.dumps(spec))


def test_the_placement_grid_keeps_buildings_off_its_cells_and_is_reported():
    buildable = walled()
    buildable[10:14, 4:8] = False  # a ramp, say: walkable, not buildable
    sim = Sim(definition([unit("Marine", 8, 20)], placement_grid=encode_pathing(buildable)))
    raw = sim.ask(game_info={}).game_info.start_raw
    placement = np.unpackbits(np.frombuffer(raw.placement_grid.data, np.uint8))[: 32 * 32].reshape(32, 32)
    assert (placement.astype(bool) == buildable).all()
    place = sim.game.building.placement_error
    depot = unit_type_by_name("SupplyDepot")
    assert (
        place(depot, 6.0, 12.0) == error_pb2.CantBuildOnThat and place(depot, 6.0, 18.0) == error_pb2.Success
    )
    assert sim.game.terrain.pathable[10:14, 4:8].all()  # units still walk there


def test_game_info_and_the_height_layer_come_from_the_grids():
    heights = np.where(walled(), 8.0, 0.0)
    heights[:, 20:] = 10.0
    sim = Sim(definition([unit("Marine", 8, 10)], height_map=encode_heights(heights)))
    raw = sim.ask(game_info={}).game_info.start_raw
    pathing = np.unpackbits(np.frombuffer(raw.pathing_grid.data, np.uint8))[: 32 * 32].reshape(32, 32)
    assert (pathing.astype(bool) == walled()).all()  # row 0 at y = 0, as the real game sends it
    height = np.frombuffer(raw.terrain_height.data, np.uint8).reshape(32, 32)
    assert (height == np.round((heights + 16) * 255 / 32)).all()
    marine = next(u for u in sim.obs().observation.raw_data.units if u.unit_type == MARINE)
    assert marine.pos.z == 8.0  # the ground under it
    # The feature minimap's height map: the same bytes (row 0 at the top), the wall at 0.
    obs = Sim(
        definition([unit("Marine", 8, 10)], height_map=encode_heights(heights)),
        options=interface(screen=64, minimap=32),
    ).obs()
    minimap = layer(obs, "height_map", minimap=True)
    assert (minimap[::-1] == np.round((heights + 16) * 255 / 32)).all()


# ---- ground units keep off unpathable cells ----------------------------------------------------------------
def test_a_marine_walks_round_the_wall_through_its_gap_and_never_enters_a_blocked_cell():
    sim = Sim(definition([unit("Marine", 8, 10)]))
    (tag,) = [u.tag for u in sim.obs().observation.raw_data.units]
    sim.raw(MOVE, [tag], point=(24, 10))
    track = np.concatenate(walk(sim, MARINE, 480))
    walls = Walls(walled())
    radius = unit_type_by_name("Marine").radius
    assert (walls.clearance(track) >= radius - 1e-6).all()  # never overlapping a blocked cell
    assert track[:, 1].max() >= GAP[0]  # through the gap, not through the wall
    assert np.allclose(track[-1], (24, 10), atol=1e-6)  # and there in the end
    # It took the way round: longer than the straight 16 cells.
    arrived = int(np.argmax(np.hypot(*(track - (24, 10)).T) < 1e-6))
    speed = unit_type_by_name("Marine").speed / 16
    assert 4 * (arrived + 1) * speed > 2 * np.hypot(7, GAP[0] - 10)


def test_an_air_unit_flies_straight_over_the_wall():
    sim = Sim(definition([unit("Medivac", 8, 10)]))
    (tag,) = [u.tag for u in sim.obs().observation.raw_data.units]
    sim.raw(MOVE, [tag], point=(24, 10))
    track = np.concatenate(walk(sim, MEDIVAC, 200))
    assert np.abs(track[:, 1] - 10).max() < 1e-6  # on the straight line
    assert np.allclose(track[-1], (24, 10))


def test_a_goal_no_path_leads_to_is_walked_to_as_near_as_the_ground_allows():
    grid = walled()
    grid[2:30, 15:17] = False  # the wall closed: the right half can't be reached
    sim = Sim(definition([unit("Marine", 8, 10)], grid))
    (tag,) = [u.tag for u in sim.obs().observation.raw_data.units]
    sim.raw(MOVE, [tag], point=(24, 10))
    track = np.concatenate(walk(sim, MARINE, 240))
    assert track[:, 0].max() < 15  # never through
    last = sim.obs().observation.raw_data.units[0]
    assert not last.orders  # the order ended there: the unit does not push at the wall for ever
    assert 14 - 0.5 < last.pos.x < 15 and abs(last.pos.y - 10) < 1


def test_units_created_at_a_wall_are_placed_on_pathable_ground():
    sim = Sim(
        definition([{"spawn": {"type": "Marine", "owner": 1, "count": 12, "at": {"point": [15.5, 10]}}}])
    )
    pos = positions(sim.obs(), MARINE)
    assert len(pos) == 12
    assert (Walls(walled()).clearance(pos) >= unit_type_by_name("Marine").radius - 1e-6).all()


def test_a_crowd_pushed_into_a_corner_stays_on_pathable_ground():
    spawn = {"spawn": {"type": "Zergling", "owner": 1, "count": 20, "at": {"point": [10, 10]}}}
    sim = Sim(definition([spawn]))
    tags = [u.tag for u in sim.obs().observation.raw_data.units]
    sim.raw(MOVE, tags, point=(14.6, 3))  # the corner of the wall and the border
    zergling = unit_type_by_name("Zergling")
    track = np.concatenate(walk(sim, zergling.unit_id, 160))
    assert (Walls(walled()).clearance(track) >= zergling.radius - 1e-6).all()


# ---- the search -----------------------------------------------------------------------------------------
def test_the_waypoint_is_the_farthest_cell_of_the_path_in_a_straight_line():
    walls = Walls(walled())
    start, goal = np.array([8.0, 10.0]), np.array([24.0, 10.0])
    point = walls.waypoint(start, goal, 0.375)
    assert point[1] >= GAP[0]  # up to the gap first
    assert walls.clear(start[None], point[None], np.array([0.375]))[0]
    assert (walls.waypoint(start, np.array([8.0, 20.0]), 0.375) == (8, 20)).all()  # open: straight there
    assert walls.field((23, 10))[10, 8] > 2 * np.hypot(
        7, GAP[0] - 10
    )  # the way round: up to the gap and back


def test_clearance_is_the_distance_to_the_nearest_blocked_cell():
    walls = Walls(walled())
    assert walls.clearance(np.array([[14.5, 10.0], [14.0, 10.0], [8.0, 10.0], [15.5, 27.0]])).tolist() == [
        0.5,
        1.0,
        2.0,  # none within two cells
        pytest.approx(1.0),  # in the gap: the wall's end below it
    ]


# ---- high ground ----------------------------------------------------------------------------------------
def high_ground(watcher: str, watcher_at: tuple[float, float]) -> bytes:
    """A fogged map, high ground (10) from y = 16 up, low ground (8) below: `watcher` of player 1 and a
    passive enemy Marine 3 cells across the edge, on the other level."""
    heights = np.where(np.arange(32)[:, None] >= 16, 10.0, 8.0) * np.ones((1, 32))
    enemy_y = 18.5 if watcher_at[1] < 16 else 13.5
    spec = json.loads(
        definition(
            [unit(watcher, *watcher_at), unit("Marine_RL", 8, enemy_y, owner=2)],
            np.ones((32, 32), bool),
            height_map=encode_heights(heights),
            map_types=["Marine_RL"],
        )
    )
    spec.update(
        vision="fog", players=[{"player_id": 1, "race": "Terran"}, {"player_id": 2, "race": "Terran"}]
    )
    return json.dumps(spec).encode()


def enemies_seen(data: bytes) -> int:
    return sum(u.owner == 2 for u in Sim(data).step(1).observation.raw_data.units)


def test_low_ground_does_not_see_up_a_cliff_but_high_ground_and_air_units_see_down():
    assert enemies_seen(high_ground("Marine", (8, 15.5))) == 0  # 3 cells below: hidden up there
    assert enemies_seen(high_ground("Marine", (8, 16.5))) == 1  # from the high ground, down
    assert enemies_seen(high_ground("Medivac", (8, 15.5))) == 1  # from the air
    sim = Sim(high_ground("Marine", (8, 15.5)), options=interface(screen=32, minimap=32, width=32))
    visibility = layer(sim.step(1), "visibility_map", minimap=True)[::-1]  # row 0 at y = 0
    assert visibility[14, 8] == 2 and visibility[17, 8] != 2  # sight stops at the cliff
