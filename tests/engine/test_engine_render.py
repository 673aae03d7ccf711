"""Feature-layer geometry and encoding, checked against sc2-api-notes §5-7."""

from __future__ import annotations

import numpy as np
import pytest
from s2clientprotocol import common_pb2

from sc2env.engine.coverage import coverage
from sc2env.engine.mapdef import find_definition
from sc2env.engine.players import Player
from sc2env.engine.render import encode, minimap_view, screen_view
from sc2env.engine.world import World
from sc2env.gamedata import unit_type_by_name


def test_screen_pixel_centres_follow_the_camera():
    view = screen_view((33.0, 25.0), 24, (64, 64))
    assert view.pixel_to_world(0, 0) == pytest.approx((33 + (0.5 - 32) * 0.375, 25 - (0.5 - 32) * 0.375))
    assert view.pixel_to_world(63, 63) == pytest.approx((33 + 31.5 * 0.375, 25 - 31.5 * 0.375))


def test_minimap_scale_and_crop():
    d = find_definition("mini_games/MoveToBeacon.SC2Map")
    full = minimap_view(d, (32, 32), crop=False)
    assert full.scale == 2 and full.pixel_to_world(0, 0) == (1, 63)
    crop = minimap_view(d, (64, 64), crop=True)
    assert crop.scale == pytest.approx(22 / 64, abs=1e-5) and crop.pixel_to_world(0, 0)[0] == pytest.approx(
        22.0002 + 11 / 64
    )


def test_one_bit_images_are_msb_first_without_row_padding():
    pixels = np.zeros((3, 5), bool)
    pixels[0, 0] = pixels[1, 2] = True
    image = common_pb2.ImageData.FromString(encode(1, pixels))
    assert (image.bits_per_pixel, image.size.x, image.size.y, len(image.data)) == (1, 5, 3, 2)
    assert (np.unpackbits(np.frombuffer(image.data, np.uint8))[:15].reshape(3, 5) == pixels).all()
    image = common_pb2.ImageData.FromString(encode(32, np.array([[1, -2]])))
    assert np.frombuffer(image.data, "<i4").tolist() == [1, -2]


def test_units_cover_pixels_within_their_radius_and_ground_units_draw_on_top():
    world = World(find_definition("mini_games/MoveToBeacon.SC2Map").playable_area)
    beacon = world.spawn(unit_type_by_name("Beacon_Terran"), 0, 30.0, 30.0)
    marine = world.spawn(unit_type_by_name("Marine"), 1, 30.0, 30.0)
    view = screen_view((30.0, 30.0), 24, (64, 64))
    index, density, density_aa = coverage(view, world)
    covered = {world.tag[r - 1] for r in np.unique(index) if r}
    assert covered == {beacon, marine}
    assert index[32, 32] - 1 == world.slot(marine) and density[32, 32] == 2
    beacon_pixels = (index == world.slot(beacon) + 1).sum() + (index == world.slot(marine) + 1).sum()
    assert beacon_pixels == pytest.approx(np.pi * (1.875 / 0.375) ** 2, rel=0.15)
    # Pixel (32, 32) is 0.707 px from both centres: the beacon covers it fully, the marine (1 px radius) ~79 %.
    assert density_aa[32, 32] == round(16 * (1 + (1 - np.sqrt(0.5) + 0.5)))
    assert Player(1, 1).selection == []
