"""Coordinate transforms, raw map grids (row 0 = bottom) and the interface format's options and checks."""

from __future__ import annotations

import numpy as np
import pytest
from interface_helpers import observation
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env.errors import ProtocolError
from sc2env.interface import (
    FUNCTIONS,
    CoordinateTransforms,
    FeatureUnit,
    InterfaceFormat,
    Linear2D,
    MapInfo,
    ObservationDecoder,
    TargetClass,
)

MAPS = ["python-sc2_AcropolisLE", "python-sc2_2000AtmospheresAIE"]
TOWN_HALLS = {18, 59, 86}


def map_info(size=(64, 64), playable=(0, 0, 64, 64)) -> MapInfo:
    info = sc_pb.ResponseGameInfo(map_name="test")
    info.start_raw.map_size.x, info.start_raw.map_size.y = size
    area = info.start_raw.playable_area
    area.p0.x, area.p0.y, area.p1.x, area.p1.y = playable
    return MapInfo.from_game_info(info)


def test_screen_pixel_centres_follow_the_camera():
    """docs/sc2-api-notes.md §6: x = cx + (i + 0.5 - W/2)·wpp, y = cy - (j + 0.5 - H/2)·wpp."""
    transforms = CoordinateTransforms(
        InterfaceFormat(screen_size=64, minimap_size=64, camera_width=24), map_info()
    )
    camera = (33.0, 25.0)
    to_screen = transforms.world_to_screen(camera)
    wpp = 24 / 64
    for i, j in [(0, 0), (63, 0), (10, 50), (32, 32)]:
        world = to_screen.back_pixel((i, j))
        assert world == pytest.approx((33 + (i + 0.5 - 32) * wpp, 25 - (j + 0.5 - 32) * wpp))
        assert to_screen.fwd_pixel(world).tolist() == [i, j]
    assert to_screen.fwd_pixel(camera).tolist() == [32, 32]
    assert to_screen.fwd_pixel((33.0, 25.0 + 12)).tolist()[1] == 0  # world y up is screen y down


def test_a_point_exactly_on_a_pixel_edge_is_in_the_pixel_it_starts():
    from sc2env.interface.units import unit_rows

    # 25 - 23.5 = 1.5 world units below the camera is exactly 4 pixels: row 36. The affine form gave
    # 35.99999999999999 and row 35, one off PySC2's feature_units for grid-aligned units (DefeatRoaches).
    transforms = CoordinateTransforms(
        InterfaceFormat(screen_size=64, minimap_size=64, camera_width=24), map_info()
    )
    to_screen = transforms.world_to_screen((33.0, 25.0))
    assert to_screen.fwd_pixel((33.0, 23.5)).tolist() == [32, 36]
    unit = sc_pb.ResponseObservation().observation.raw_data.units.add(unit_type=48, alliance=1)
    unit.pos.x, unit.pos.y = 33.0, 23.5
    row = unit_rows([unit], to_screen, with_tags=False, type_of_tag={})[0]
    assert (row[FeatureUnit.x], row[FeatureUnit.y]) == (32, 36)


def test_minimap_covers_the_map_or_the_playable_area_by_its_longer_side():
    full = CoordinateTransforms(InterfaceFormat(screen_size=64, minimap_size=64), map_info((128, 96)))
    assert full.world_to_minimap.fwd_pixel((0.5, 95.5)).tolist() == [0, 0]  # top-left corner
    assert full.world_to_minimap.fwd_pixel((127.9, 0.1)).tolist() == [63, 47]  # 2 world units per pixel
    assert full.world_to_minimap.back_pixel((0, 0)) == pytest.approx((1.0, 95.0))
    cropped = CoordinateTransforms(
        InterfaceFormat(screen_size=64, minimap_size=64, crop_to_playable_area=True),
        map_info((128, 96), playable=(22, 20, 44, 36)),
    )
    assert cropped.world_to_minimap.fwd_pixel((22.1, 35.9)).tolist() == [0, 0]
    assert cropped.world_to_minimap.fwd_pixel((43.9, 20.1)).tolist() == [63, 46]


@pytest.mark.parametrize(
    "minimap, rows, warned", [(64, 64, False), ((64, 32), 64, True), ((32, 64), 32, False)]
)
def test_a_minimap_that_cuts_the_map_off_is_warned_of(minimap, rows, warned):
    # Pixels scale by the minimap's width (as in PySC2): a 64x32 minimap showed the top half of a square map,
    # with the camera and most units outside it, and nothing said so.
    import warnings

    fmt = InterfaceFormat(screen_size=64, minimap_size=minimap)
    assert CoordinateTransforms(fmt, map_info()).minimap_rows_needed == rows
    game_info = sc_pb.ResponseGameInfo()
    game_info.start_raw.map_size.x = game_info.start_raw.map_size.y = 64
    game_info.start_raw.playable_area.p1.x = game_info.start_raw.playable_area.p1.y = 64
    game_info.options.CopyFrom(fmt.to_interface_options())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ObservationDecoder(fmt, game_info)
    messages = [str(w.message) for w in caught]
    assert messages == (
        [
            (
                "the 64×32 minimap shows only the top 32 of the 64 rows this map needs: minimap pixels "
                "are scaled by the minimap's width (as in PySC2), so a minimap less tall than it is wide "
                "cuts the map off; use a square minimap"
            )
        ]
        if warned
        else []
    )


def test_transforms_compose_and_invert():
    transforms = CoordinateTransforms(InterfaceFormat(screen_size=84, minimap_size=64), map_info())
    camera = (20.0, 40.0)
    points = np.array([[3.0, 7.0], [80.5, 60.25]])
    to_minimap = transforms.screen_to_minimap(camera)
    np.testing.assert_allclose(transforms.minimap_to_screen(camera).fwd(to_minimap.fwd(points)), points)
    expected = transforms.world_to_minimap.fwd(transforms.world_to_screen(camera).back(points))
    np.testing.assert_allclose(to_minimap.fwd(points), expected)
    linear = Linear2D((2.0, -3.0), (1.0, 5.0))
    np.testing.assert_allclose(linear.inverse().fwd(linear.fwd(points)), points)
    np.testing.assert_allclose(linear.then(linear.inverse()).fwd(points), points)


@pytest.mark.parametrize("stem", MAPS)
def test_raw_grids_have_row_zero_at_the_bottom(realdata, stem):
    info = MapInfo.from_game_info(realdata(f"{stem}.game_info"))
    units = realdata(f"{stem}.observation").observation.raw_data.units
    width, height = info.size
    assert info.terrain_height.shape == info.pathing.shape == info.placement.shape == (height, width)
    # Units stand on the terrain: their z follows terrain_height[y, x], and not the flipped grid.
    x = np.array([u.pos.x for u in units])
    y = np.array([u.pos.y for u in units])
    z = np.array([u.pos.z for u in units])
    heights = info.sample(info.terrain_height, x, y).astype(float)
    flipped = info.terrain_height[height - 1 - np.floor(y).astype(int), np.floor(x).astype(int)].astype(float)
    assert np.corrcoef(z, heights)[0, 1] > 0.99
    assert abs(np.corrcoef(z, flipped)[0, 1]) < 0.5
    # The starting town hall stands on placeable but (under its footprint) unpathable ground.
    hall = next(u for u in units if u.alliance == 1 and u.unit_type in TOWN_HALLS)
    assert info.sample(info.placement, hall.pos.x, hall.pos.y)
    assert not info.sample(info.pathing, hall.pos.x, hall.pos.y)
    assert info.start_locations.shape == (1, 2)
    assert info.sample(info.placement, *info.start_locations[0])
    assert info.sample(info.pathing, -5.0, 3.0) == 0  # off the map


def test_grid_fallback_target_masks_see_the_map_through_the_camera(realdata):
    game_info = realdata("python-sc2_AcropolisLE.game_info")
    fmt = InterfaceFormat(screen_size=64, minimap_size=64, screen_target_masks=True)
    game_info = sc_pb.ResponseGameInfo.FromString(game_info.SerializeToString())
    game_info.options.CopyFrom(fmt.to_interface_options())
    decoder = ObservationDecoder(fmt, game_info)
    hall = next(
        u
        for u in realdata("python-sc2_AcropolisLE.observation").observation.raw_data.units
        if u.alliance == 1 and u.unit_type in TOWN_HALLS
    )
    response = observation(abilities=[(318, True)], panel=("single",))  # an SCV could build a command center
    response.observation.raw_data.player.camera.x, response.observation.raw_data.player.camera.y = (
        hall.pos.x,
        hall.pos.y,
    )
    masks = decoder.decode(response).target_masks
    pathable, placeable = masks[TargetClass.PATHABLE], masks[TargetClass.PLACEABLE]
    transforms = decoder.transforms
    np.testing.assert_array_equal(
        pathable, transforms.grid_on_screen(decoder.map_info.pathing, (hall.pos.x, hall.pos.y))
    )
    assert not pathable[32, 32] and placeable[32, 32]  # under the town hall, at the screen centre
    assert 0 < pathable.mean() < 1 and 0 < placeable.mean() < 1


def test_interface_options_and_the_echo_check():
    fmt = InterfaceFormat(
        screen_size=(84, 64),
        minimap_size=64,
        camera_width=32,
        use_feature_units=True,
        crop_to_playable_area=True,
    )
    options = fmt.to_interface_options()
    assert options.raw and options.score and not options.HasField("render")
    layer = options.feature_layer
    assert (layer.width, layer.resolution.x, layer.resolution.y) == (32, 84, 64)
    assert (layer.minimap_resolution.x, layer.crop_to_playable_area) == (64, True)
    echo = sc_pb.ResponseGameInfo()
    echo.options.CopyFrom(options)
    fmt.check_game_info(echo)
    echo.options.feature_layer.resolution.x = 64
    echo.options.raw = False
    with pytest.raises(ProtocolError, match=r"screen size: asked for 84×64, the game uses 64×64; raw data"):
        fmt.check_game_info(echo)
    # The proto's width is a float32: a width float32 can't hold exactly still matches its own echo.
    odd = InterfaceFormat(camera_width=24.3)
    odd_echo = sc_pb.ResponseGameInfo()
    odd_echo.options.CopyFrom(odd.to_interface_options())
    assert odd_echo.options.feature_layer.width != 24.3
    odd.check_game_info(odd_echo)
    odd_echo.options.feature_layer.width = 24.4
    with pytest.raises(ProtocolError, match="camera width"):
        odd.check_game_info(odd_echo)
    rgb = InterfaceFormat(
        screen_size=None, minimap_size=None, rgb_screen_size=(128, 96), rgb_minimap_size=64, camera_width=30
    )
    assert rgb.action_space == "rgb" and rgb.to_interface_options().render.resolution.y == 96
    assert not rgb.to_interface_options().HasField("feature_layer")
    # The render camera's width was never sent: an RGB-only game showed 24 world units while the transforms
    # (and feature_units' screen x, y) assumed 30.
    assert rgb.to_interface_options().render.width == 30
    rgb_echo = sc_pb.ResponseGameInfo()
    rgb_echo.options.CopyFrom(rgb.to_interface_options())
    rgb.check_game_info(rgb_echo)
    rgb_echo.options.render.width = 24
    with pytest.raises(ProtocolError, match="RGB camera width: asked for 30"):
        rgb.check_game_info(rgb_echo)


def test_the_echo_check_on_a_real_game_info(realdata):
    with pytest.raises(ProtocolError, match="to_interface_options"):
        InterfaceFormat().check_game_info(realdata("ares-sc2_TorchesAIE_v4.game_info"))  # the game used 1×1


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"screen_size": 0}, "screen_size must be positive"),
        ({"screen_size": None}, "set both screen_size and minimap_size"),
        ({"screen_size": None, "minimap_size": None}, "needs feature layers"),
        ({"rgb_screen_size": 64, "rgb_minimap_size": 32}, "choose action_space"),
        ({"action_space": "rgb"}, "action_space='rgb' needs that observation"),
        ({"rgb_screen_size": 16, "rgb_minimap_size": 32, "action_space": "features"}, "can't be smaller"),
        ({"screen_size": "big"}, "must be an int or a"),
        ({"max_selected_units": 0}, "at least 1"),
    ],
)
def test_bad_formats_are_refused_with_a_reason(kwargs, message):
    with pytest.raises(ValueError, match=message):
        InterfaceFormat(**kwargs)


def test_target_masks_by_class_and_their_effect_on_masks():
    fmt = InterfaceFormat(screen_size=8, minimap_size=8, screen_target_masks=True)
    response = observation(abilities=[(295, True), (319, True)], panel=("single",))  # SCV: gather, depot
    renders = response.observation.feature_layer_data.renders
    player_relative = np.zeros((8, 8), np.uint8)
    unit_type = np.zeros((8, 8), "<i4")
    player_relative[1, 2], unit_type[1, 2] = 1, 45  # an SCV
    player_relative[5, 6], unit_type[5, 6] = 4, 105  # an enemy zergling
    for name, values, bits in (("player_relative", player_relative, 8), ("unit_type", unit_type, 32)):
        image = getattr(renders, name)
        image.bits_per_pixel, image.size.x, image.size.y, image.data = bits, 8, 8, values.tobytes()
    buildable = np.zeros((8, 8), np.uint8)
    buildable[4:, :4] = 1
    renders.buildable.bits_per_pixel, renders.buildable.size.x, renders.buildable.size.y = 1, 8, 8
    renders.buildable.data = np.packbits(buildable).tobytes()
    decoder = ObservationDecoder(fmt)
    obs = decoder.decode(response)
    targets = obs.target_masks
    assert targets.shape == (6, 8, 8) and targets[TargetClass.ANY].all()
    assert np.argwhere(targets[TargetClass.OWN_UNIT]).tolist() == [[1, 2]]
    assert np.argwhere(targets[TargetClass.ENEMY_UNIT]).tolist() == [[5, 6]]
    np.testing.assert_array_equal(targets[TargetClass.PLACEABLE], buildable == 1)
    assert targets[TargetClass.PATHABLE].all()  # no pathable layer and no map: unrestricted
    assert not targets[TargetClass.RESOURCE].any()
    available = set(obs.masks.available_function_ids)
    assert FUNCTIONS.Build_SupplyDepot_screen.id in available
    assert FUNCTIONS.Harvest_Gather_screen.id not in available  # no resource on screen to gather from
    depot = obs.masks.for_function(FUNCTIONS.Build_SupplyDepot_screen.id)[obs.masks.spec.segment("screen")]
    np.testing.assert_array_equal(depot.reshape(8, 8), buildable == 1)
    assert obs.masks.argument("screen").all()  # select_point may aim anywhere

    unit_type[2, 3] = 341  # a mineral field comes into view
    renders.unit_type.data = unit_type.tobytes()
    obs = decoder.decode(response)
    assert FUNCTIONS.Harvest_Gather_screen.id in obs.masks.available_function_ids
    gather = obs.masks.for_function(FUNCTIONS.Harvest_Gather_screen.id)[obs.masks.spec.segment("screen")]
    assert np.argwhere(gather.reshape(8, 8)).tolist() == [[2, 3]]
