"""BaseGround: a melee script's reading of game_info's grids round its start (its level, ramp, sites)."""

from __future__ import annotations

import numpy as np

from sc2env.agents.base_ground import BaseGround
from sc2env.engine.mapdef import find_definition
from sc2env.interface.transforms import MapInfo


def info(pathing: np.ndarray, placement: np.ndarray, heights: np.ndarray) -> MapInfo:
    h, w = pathing.shape
    byte = np.round((heights + 16) * 255 / 32).astype(np.uint8)  # as game_info's terrain_height carries it
    return MapInfo("m", (w, h), (0.0, 0.0, float(w), float(h)), pathing, placement, byte, np.zeros((0, 2)))


def simple64() -> MapInfo:
    g = find_definition("Melee/Simple64.SC2Map").ground
    return info(g.pathable, g.buildable, g.heights)


def test_on_simple64_its_ramps_top_is_the_highest_row_of_its_own_ramp():
    assert BaseGround.of(simple64(), (15.5, 46.5)).ramp_top == (22.0, 37.5)
    assert BaseGround.of(simple64(), (48.5, 17.5)).ramp_top == (42.0, 26.5)


def test_sites_fit_on_its_level_only_and_clear_of_the_ramp():
    ground = BaseGround.of(simple64(), (15.5, 46.5))
    assert ground.site_fits((21.0, 50.0), 2)  # up in the main
    assert not ground.site_fits((22.0, 41.0), 2)  # on the main, but beside its ramp's top
    assert not ground.site_fits((12.0, 35.0), 2)  # on the cliff face
    assert not ground.site_fits((15.0, 29.0), 2)  # below the cliff: another level
    assert not ground.site_fits((1.0, 1.0), 3)  # off the map's edge


def test_a_flat_map_has_no_ramp_and_every_buildable_site_fits():
    grid = np.ones((16, 16), bool)
    ground = BaseGround.of(info(grid, grid, np.full((16, 16), 8.0)), (8.0, 8.0))
    assert ground.ramp_top is None and not ground.near_ramp.any()
    assert ground.site_fits((5.5, 5.5), 3)
