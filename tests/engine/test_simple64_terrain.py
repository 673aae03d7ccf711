"""Simple64's ground: raised mains behind cliffs, one ramp each down to the low ground, kept by ground units,
buildings and sight, shown in game_info and the feature layers, and used by the built-in AI."""

from __future__ import annotations

import numpy as np
import pytest
from engine_helpers import interface, join_request, layer
from s2clientprotocol import common_pb2, error_pb2
from s2clientprotocol import sc2api_pb2 as sc_pb
from test_simple64 import new_game

from sc2env.engine.build_order import BARRACKS, SUPPLY_DEPOT
from sc2env.engine.computer import Computer
from sc2env.engine.game import Game
from sc2env.engine.mapdef import find_definition
from sc2env.engine.session import Session
from sc2env.engine.walls import Walls
from sc2env.gamedata import unit_type_by_name

MOVE = 16
SCV, MARINE = unit_type_by_name("SCV"), unit_type_by_name("Marine")
LOW, HIGH = 10.0, 12.0
RAMPS = {1: (20, 32, 24, 38), 2: (40, 26, 44, 32)}  # cells x0, y0, x1, y1 (ends excluded)
MAINS = {1: (2, 36, 26, 62), 2: (38, 2, 62, 28)}


def ground():
    return find_definition("Melee/Simple64.SC2Map").ground


def cells(box) -> tuple[slice, slice]:
    x0, y0, x1, y1 = box
    return slice(y0, y1), slice(x0, x1)


# ---- the map ---------------------------------------------------------------------------------------------
def test_each_main_is_a_plateau_above_the_low_ground_and_the_sides_mirror():
    g = ground()
    for player in (1, 2):
        main = cells(MAINS[player])
        up = g.pathable[main] & g.buildable[main]  # the main's floor, its ramp's top left out
        assert (g.heights[main][up] == HIGH).all() and np.count_nonzero(up) > 500
    assert g.heights[20, 15] == LOW and g.heights[43, 48] == LOW  # the naturals
    assert (g.heights == g.heights[::-1, ::-1]).all()  # player 2's side is player 1's turned
    assert (g.pathable == g.pathable[::-1, ::-1]).all() and (g.buildable == g.buildable[::-1, ::-1]).all()


def test_the_only_way_between_a_main_and_the_low_ground_is_its_ramp():
    g = ground()
    # No two neighbouring pathable cells are a cliff apart: the cliff faces are unpathable.
    for dy, dx in ((0, 1), (1, 0), (1, 1), (1, -1)):
        both = g.pathable & np.roll(g.pathable, (-dy, -dx), axis=(0, 1))
        step = np.abs(g.heights - np.roll(g.heights, (-dy, -dx), axis=(0, 1)))
        assert (step[both] < 1.0).all()  # (the map's unpathable border keeps the roll's wrap out)
    whole = Walls(g.pathable).component
    assert len(np.unique(whole[whole >= 0])) == 1  # every pathable cell reaches every other
    for player, ramp in RAMPS.items():
        cut = g.pathable.copy()
        cut[cells(ramp)] = False
        parts = Walls(cut).component
        main = parts[MAINS[player][1] + 10, MAINS[player][0] + 10]
        assert main >= 0 and main != parts[20, 15]  # without the ramp, the main is cut off


def test_every_base_stands_on_buildable_ground_of_one_level():
    game = new_game()
    w, g = game.world, ground()
    footprints = [i for i in range(w.n) if w.types[i].structure]  # Command Centers, fields, geysers
    assert len(footprints) == 2 + 32 + 8
    for i in footprints:
        x0, y0, x1, y1 = game.building.cells(w.types[i], *w.pos[i])
        assert g.buildable[y0:y1, x0:x1].all() and len(np.unique(g.heights[y0:y1, x0:x1])) == 1
    main_fields = np.flatnonzero(w.type_id == unit_type_by_name("MineralField").unit_id)
    assert (g.heights[w.pos[main_fields, 1].astype(int), w.pos[main_fields, 0].astype(int)] == HIGH).all()


def test_buildings_stand_on_the_plateau_and_the_low_ground_but_not_on_a_ramp_or_a_cliff():
    game = new_game()
    place = game.building.placement_error
    assert place(SUPPLY_DEPOT, 22.0, 35.0, 1) == error_pb2.CantBuildOnThat  # on the ramp
    assert place(SUPPLY_DEPOT, 12.0, 35.0, 1) == error_pb2.CantBuildOnThat  # on the cliff face
    assert place(SUPPLY_DEPOT, 42.0, 29.0, 2) == error_pb2.CantBuildOnThat  # player 2's ramp
    assert place(SUPPLY_DEPOT, 22.0, 45.0, 1) == error_pb2.Success  # up in the main
    assert place(SUPPLY_DEPOT, 30.0, 30.0, 1) == error_pb2.Success  # down on the low ground
    g = ground()
    assert not g.buildable[cells(RAMPS[1])].any() and g.pathable[cells(RAMPS[1])].all()
    assert (g.buildable <= g.pathable).all()


# ---- units and sight ---------------------------------------------------------------------------------------
def _track(game: Game, tag: int, loops: int) -> np.ndarray:
    w, out = game.world, []
    for _ in range(loops // 4):
        game.step(4)
        out.append(w.pos[w.slot(tag)].copy())
    return np.array(out)


def test_an_scv_walks_down_the_ramp_to_the_natural_and_back_up_only_by_it():
    game = new_game()
    w = game.world
    tag = int(w.tag[np.flatnonzero((w.owner == 1) & (w.type_id == SCV.unit_id))[0]])
    with game.viewing(1):
        game.act(_move([tag], (15.5, 28.0)))  # the natural: straight south, over the cliff
    down = _track(game, tag, 16 * 40)
    with game.viewing(1):
        game.act(_move([tag], (23.0, 55.0)))  # back up, past its Command Center
    up = _track(game, tag, 16 * 40)
    g = ground()
    for track in (down, up):
        x0, y0, x1, y1 = RAMPS[1]
        on_cliff = (track[:, 1] > y0 + 2) & (track[:, 1] < y1)  # the cliff's band and the ramp's walls
        assert on_cliff.any()  # it crossed the cliff's line ...
        assert ((track[on_cliff, 0] >= x0) & (track[on_cliff, 0] <= x1)).all()  # ... only on the ramp
        assert g.pathable[track[:, 1].astype(int), track[:, 0].astype(int)].all()
    assert np.hypot(*(down[-1] - (15.5, 28.0))) < 1.0 and np.hypot(*(up[-1] - (23.0, 55.0))) < 1.0


def _move(tags: list[int], point: tuple[float, float]) -> sc_pb.Action:
    action = sc_pb.Action()
    cmd = action.action_raw.unit_command
    cmd.ability_id = MOVE
    cmd.unit_tags.extend(tags)
    cmd.target_world_space_pos.x, cmd.target_world_space_pos.y = point
    return action


def _seen_by_two(game: Game, marine: int, at: tuple[float, float]) -> np.ndarray:
    """Player 2's visibility grid with its `marine` moved to `at` (its other units are in its own main)."""
    w = game.world
    w.pos[w.slot(marine)] = at
    game.step(1)
    with game.viewing(2):
        return game.vision.grid()


def test_the_low_ground_does_not_see_a_main_without_a_unit_up_there():
    game = new_game()
    marine = game.spawn_unit(MARINE, 2, 12.0, 32.0)
    main = cells(MAINS[1])  # its plateau and the ramp's top rows (higher than a unit below sees)
    below = _seen_by_two(game, marine, (12.0, 32.0))  # 2 cells below player 1's cliff
    assert (below[30:34, 10:14] == 2).all() and not (below[main] == 2).any()
    foot = _seen_by_two(game, marine, (22.0, 32.5))  # at the ramp's foot: up the ramp, not over its top
    assert (foot[32:36, 20:24] == 2).all() and not (foot[main] == 2).any()
    top = _seen_by_two(game, marine, (22.0, 39.0))  # up there
    assert (top[40:45, 18:26] == 2).all()


# ---- what the game reports -----------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def against_the_ai() -> sc_pb.ResponseObservation:
    session = Session()

    def ask(**request) -> sc_pb.Response:
        return sc_pb.Response.FromString(session.handle(sc_pb.Request(**request).SerializeToString()))

    create = sc_pb.RequestCreateGame(
        local_map=sc_pb.LocalMap(map_path="Melee/Simple64.SC2Map"), random_seed=1
    )
    create.player_setup.add(type=sc_pb.Participant, race=common_pb2.Terran)
    create.player_setup.add(type=sc_pb.Computer, difficulty=sc_pb.VeryEasy, race=common_pb2.Terran)
    assert not ask(create_game=create).create_game.HasField("error")
    joined = ask(join_game=join_request(interface(screen=64, minimap=64, width=24)))
    assert not joined.join_game.HasField("error")
    info = ask(game_info=sc_pb.RequestGameInfo()).game_info
    obs = ask(observation=sc_pb.RequestObservation()).observation
    return info, obs


def test_game_info_reports_the_cliffs_ramps_and_heights(against_the_ai):
    info, _ = against_the_ai
    raw = info.start_raw
    g = ground()
    pathing = np.unpackbits(np.frombuffer(raw.pathing_grid.data, np.uint8))[: 64 * 64].reshape(64, 64)
    placement = np.unpackbits(np.frombuffer(raw.placement_grid.data, np.uint8))[: 64 * 64].reshape(64, 64)
    assert (pathing.astype(bool) == g.pathable).all() and (placement.astype(bool) == g.buildable).all()
    height = np.frombuffer(raw.terrain_height.data, np.uint8).reshape(64, 64)
    assert height[50, 10] > height[20, 15]  # the main above the natural


def test_the_minimap_shows_the_plateau_the_cliff_and_the_unbuildable_ramp(against_the_ai):
    _, obs = against_the_ai
    flip = slice(None, None, -1)  # feature layers put row 0 at the top: y = 63
    height = layer(obs, "height_map", minimap=True)[flip]
    pathable = layer(obs, "pathable", minimap=True)[flip]
    buildable = layer(obs, "buildable", minimap=True)[flip]
    assert height[50, 10] > height[20, 15]
    assert not pathable[35, 10] and not buildable[35, 10]  # the cliff face
    assert pathable[34, 22] and not buildable[34, 22]  # the ramp
    assert pathable[50, 22] and buildable[50, 22]  # the main


# ---- the built-in AI ---------------------------------------------------------------------------------------
def test_the_ai_gathers_at_its_ramps_top_and_builds_only_up_in_its_main():
    game = new_game(seed=3)
    ai = Computer(1, sc_pb.Medium)
    rally = ai._rally_point(game)
    assert rally == (22.0, 37.5)  # the ramp's highest row, where it meets the main
    assert Computer(2, sc_pb.Medium)._rally_point(game) == (42.0, 26.5)
    w = game.world
    waiting = np.empty(0, int)
    while not len(waiting) and game.game_loop < 16 * 60 * 4:  # the first Marines, before its wave sets off
        ai.step(game, 64)
        marines = np.flatnonzero((w.owner == 1) & (w.type_id == MARINE.unit_id))
        waiting = np.array([i for i in marines.tolist() if not w.orders[i]], int)
    assert len(waiting) and (np.hypot(*(w.pos[waiting] - rally).T) < 3).all()  # at the ramp's top
    ai.step(game, 16 * 60 * 4 - game.game_loop)
    built = np.flatnonzero((w.owner == 1) & np.isin(w.type_id, [SUPPLY_DEPOT.unit_id, BARRACKS.unit_id]))
    assert len(built) >= 4
    g = ground()
    for i in built.tolist():
        x0, y0, x1, y1 = game.building.cells(w.types[i], *w.pos[i])
        assert (g.heights[y0:y1, x0:x1] == HIGH).all()  # up in its main, never below its cliff
