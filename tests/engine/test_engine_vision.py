"""Fog of war: sight circles, hidden / fogged / visible, enemies hidden outside vision, disable_fog."""

from __future__ import annotations

import numpy as np
from engine_helpers import arena, layer, screen_pixel, spatial, unit
from s2clientprotocol import sc2api_pb2 as sc_pb
from sim_helpers import Sim

MARINE, ZERGLING = 48, 105


def fog_arena() -> bytes:
    return arena(
        [unit("Marine", 20, 30), unit("Zergling", 26, 30, owner=2), unit("Zergling", 40, 30, owner=2)],
        vision="fog",
    )


def test_units_see_their_sight_range_and_remember_what_they_saw():
    sim = Sim(fog_arena())
    obs = sim.obs()
    grid = np.frombuffer(obs.observation.raw_data.map_state.visibility.data, np.uint8).reshape(64, 64)
    ys, xs = np.nonzero(grid == 2)
    # Marine sight 9 around (20, 30): the cells whose centres (x + 0.5, y + 0.5) are within 9 of it.
    assert (xs.min(), xs.max(), ys.min(), ys.max()) == (11, 28, 21, 38)
    assert np.all((xs + 0.5 - 20) ** 2 + (ys + 0.5 - 30) ** 2 <= 81)
    assert not (grid == 1).any() and (grid == 0).sum() == 64 * 64 - len(xs)
    assert {u.unit_type for u in obs.observation.raw_data.units} == {MARINE, ZERGLING}
    assert len(obs.observation.raw_data.units) == 2, "the far Zergling is hidden"
    marine = next(u for u in obs.observation.raw_data.units if u.unit_type == MARINE)
    sim.raw(16, marine.tag, point=(20, 45))  # walk north, out of sight of the near Zergling
    sim.step(120)
    obs = sim.obs()
    grid = np.frombuffer(obs.observation.raw_data.map_state.visibility.data, np.uint8).reshape(64, 64)
    assert grid[30 - 9, 20] == 1, "seen before, not now: fogged"
    assert [u.unit_type for u in obs.observation.raw_data.units] == [MARINE]


def test_feature_layers_follow_the_fog():
    sim = Sim(fog_arena())
    obs = sim.obs()
    camera = (32, 32)
    i, j = screen_pixel(40, 30, camera=camera)
    assert layer(obs, "visibility_map")[j, i] == 0 and layer(obs, "unit_type")[j, i] == 0
    i, j = screen_pixel(26, 30, camera=camera)
    assert layer(obs, "visibility_map")[j, i] == 2 and layer(obs, "unit_type")[j, i] == ZERGLING
    minimap = layer(obs, "visibility_map", minimap=True)
    assert set(np.unique(minimap)) == {0, 2}
    # A hidden enemy can't be clicked: Attack there is an attack-move, not an attack on the unit.
    sim.select(sim.units(MARINE)[0].tag)
    sim.act(spatial("unit_command", ability_id=3674, target_screen_coord=screen_pixel(40, 30, camera=camera)))
    order = sim.units(MARINE)[0].orders[0]
    assert order.ability_id == 23 and not order.target_unit_tag


def test_disable_fog_shows_everything():
    sim = Sim(fog_arena(), disable_fog=True)
    obs = sim.obs()
    assert len(obs.observation.raw_data.units) == 3
    grid = np.frombuffer(obs.observation.raw_data.map_state.visibility.data, np.uint8).reshape(64, 64)
    assert (grid[10:54, 10:54] == 2).all()


def test_find_and_defeat_zerglings_starts_with_two_zerglings_in_sight():
    for seed in range(1, 6):
        sim = Sim(map_name="FindAndDefeatZerglings", seed=seed)
        world = sim.game.world
        assert int((world.type_id == ZERGLING).sum()) == 25
        seen = list(sim.units(ZERGLING))
        assert len(seen) == 2, "only the two placed within sight range are visible"
        zerglings = world.pos[world.type_id == ZERGLING]
        d = np.hypot(
            zerglings[:, None, 0] - zerglings[None, :, 0], zerglings[:, None, 1] - zerglings[None, :, 1]
        )
        assert (d + np.eye(25) * 99).min() >= 5.0
        assert len(sim.obs().observation.abilities) == 6, "the Marines start selected"


def test_visibility_layer_is_redrawn_after_a_restart_that_reaches_the_same_vision_version():
    # A restart brings a new fog state whose change counter starts again: a cached layer of the last episode
    # must not be served because the counters happen to match.
    sim = Sim(map_name="FindAndDefeatZerglings", seed=1)
    game = sim.game

    def minimap_visibility():
        image = sim.obs().observation.feature_layer_data.minimap_renders.visibility_map
        return np.frombuffer(image.data, np.uint8).reshape(image.size.y, image.size.x)

    def march(dx):
        w = game.world
        rows = [i for i in range(w.n) if w.owner[i] == 1]
        x, y = w.pos[rows[0]]
        sim.raw(3794, [int(w.tag[i]) for i in rows], point=(float(x) + dx, float(y)))
        version = game.vision.version
        while game.vision.version == version:
            sim.step(1)
        return game.vision.version

    minimap_visibility()
    first = march(10)
    assert np.array_equal(minimap_visibility(), game.terrain.sample(game.minimap_view(), game.vision.grid()))
    sim.ask(restart_game=sc_pb.RequestRestartGame())
    assert march(-10) == first
    assert np.array_equal(minimap_visibility(), game.terrain.sample(game.minimap_view(), game.vision.grid()))


def test_raw_map_state_grids_are_encoded_once_per_grid_and_crop():
    from sc2env.engine.raw_grids import RawGrids
    from sc2env.engine.render import encode

    grids = RawGrids()
    grid = np.arange(48, dtype=np.uint8).reshape(6, 8)
    whole = grids.encoded(8, grid, None)
    assert whole == encode(8, grid)
    assert grids.encoded(8, grid, None) is whole, "the same grid again: the kept bytes"
    assert grids.encoded(8, grid, (1, 2, 5, 6)) == encode(8, grid[2:6, 1:5]), "cropped to x 1..5, y 2..6"
    assert grids.encoded(1, grid, None) == encode(1, grid)
    changed = grid + 1  # a vision's grid is a new array whenever it changes
    assert grids.encoded(8, changed, None) == encode(8, changed) != whole
