"""Decoding real and hand-built observations: exact layers, orientation, named access, PySC2 agreement."""

from __future__ import annotations

import logging
import pickle

import numpy as np
import pytest
from interface_helpers import observation, with_layers
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env.errors import ProtocolError
from sc2env.interface import (
    FUNCTIONS,
    SCREEN_LAYERS,
    InterfaceFormat,
    ObservationDecoder,
    PlayerRelative,
    ScoreByCategory,
    ScoreCategories,
    UnitLayer,
    Visibility,
)

PYSC2_FIELDS = [
    "player",
    "control_groups",
    "single_select",
    "multi_select",
    "build_queue",
    "production_queue",
    "cargo",
    "cargo_slots_available",
    "score_cumulative",
    "score_by_category",
    "score_by_vital",
    "last_actions",
    "action_result",
    "alerts",
    "upgrades",
    "feature_screen",
    "feature_minimap",
]


def game_info_for(fmt: InterfaceFormat, map_size: tuple[int, int]) -> sc_pb.ResponseGameInfo:
    """The game_info a game would send after joining with `fmt` (grids left out)."""
    info = sc_pb.ResponseGameInfo(map_name="test")
    info.options.CopyFrom(fmt.to_interface_options())
    info.start_raw.map_size.x, info.start_raw.map_size.y = map_size
    return info


def assert_same_as_pysc2(ours, theirs) -> None:
    for name in PYSC2_FIELDS:
        np.testing.assert_array_equal(np.asarray(getattr(ours, name)), np.asarray(theirs[name]), err_msg=name)
    assert sorted(theirs["available_actions"]) == ours.available_actions.tolist()
    assert ours.game_loop[0] == theirs["game_loop"][0]


def test_real_128x128_observation_decodes_exactly_like_pysc2(realdata, pysc2_features):
    response = realdata("pysc2_obs_data1.observation")
    obs = ObservationDecoder(InterfaceFormat(screen_size=128, minimap_size=128)).decode(response)
    assert obs.feature_screen.shape == (27, 128, 128) and obs.feature_screen.dtype == np.int32
    assert obs.feature_minimap.shape == (11, 128, 128)
    assert_same_as_pysc2(obs, pysc2_features(128, 128).transform_obs(response))


def test_all_three_bit_depths_decode_from_the_raw_bytes(realdata):
    response = realdata("pysc2_obs_data1.observation")
    renders = response.observation.feature_layer_data.renders
    obs = ObservationDecoder(InterfaceFormat(screen_size=128, minimap_size=128)).decode(response)
    assert {
        renders.creep.bits_per_pixel,
        renders.height_map.bits_per_pixel,
        renders.unit_type.bits_per_pixel,
    } == {1, 8, 32}
    creep = np.unpackbits(np.frombuffer(renders.creep.data, np.uint8)).reshape(128, 128)  # MSB first
    np.testing.assert_array_equal(obs.feature_screen.creep, creep)
    np.testing.assert_array_equal(
        obs.feature_screen.height_map, np.frombuffer(renders.height_map.data, np.uint8).reshape(128, 128)
    )
    np.testing.assert_array_equal(
        obs.feature_screen.unit_type, np.frombuffer(renders.unit_type.data, "<i4").reshape(128, 128)
    )
    assert set(np.unique(obs.feature_screen.unit_type)) == {0, 641}
    for absent in ("active", "build_progress", "pathable", "buildable", "placeholder", "buff_duration"):
        assert (
            not renders.HasField(absent)
            and not obs.feature_screen[obs.feature_screen.names().index(absent)].any()
        )


def test_on_screen_raw_units_land_on_their_own_unit_type_pixels(realdata, pysc2_features):
    """Row 0 is the top of the screen (the highest world y): a unit's screen position is its type's pixel."""
    response = realdata("pysc2_obs_data1.observation")
    fmt = InterfaceFormat(screen_size=128, minimap_size=128, use_feature_units=True, use_raw_units=True)
    map_size = (
        response.observation.raw_data.map_state.visibility.size.x,
        response.observation.raw_data.map_state.visibility.size.y,
    )
    decoder = ObservationDecoder(fmt, game_info_for(fmt, map_size))
    obs = decoder.decode(response)
    landed = 0
    for unit in obs.feature_units:
        x, y = unit[[12, 13]]
        if 0 <= x < 128 and 0 <= y < 128:
            assert obs.feature_screen.unit_type[y, x] == unit[0]
            assert obs.feature_screen.player_relative[y, x] == unit[1]
            landed += 1
    assert landed >= 1
    # Every pixel well inside an on-screen unit's footprint shows its type; upside down, most would not.
    to_screen = decoder.transforms.world_to_screen(obs.camera_world)
    rows, columns = np.mgrid[0:128, 0:128] + 0.5
    units = [u for u in response.observation.raw_data.units if u.is_on_screen]
    centres = to_screen.fwd([(u.pos.x, u.pos.y) for u in units])
    distance = np.min([np.hypot(columns - cx, rows - cy) for cx, cy in centres], axis=0)
    inside = distance <= units[0].radius * 128 / 24 - 2
    assert inside.sum() > 1000
    assert (obs.feature_screen.unit_type[inside] == 641).all()
    assert (obs.feature_screen.unit_type[::-1][inside] == 641).mean() < 0.9

    theirs = pysc2_features(128, 128, map_size, use_feature_units=True, use_raw_units=True).transform_obs(
        response
    )
    columns = [c for c in range(46) if c not in (27, 28, 38, 39)]  # PySC2 puts raw function ids in orders
    np.testing.assert_array_equal(
        np.asarray(obs.feature_units)[:, columns], theirs["feature_units"][:, columns]
    )
    np.testing.assert_array_equal(np.asarray(obs.raw_units)[:, columns], theirs["raw_units"][:, columns])


@pytest.mark.parametrize("stem", ["ares-sc2_TorchesAIE_v4", "ares-sc2_Oceanborn513AIE"])
def test_newest_layer_names_at_1x1(realdata, pysc2_features, stem):
    response = realdata(f"{stem}.observation")
    fmt = InterfaceFormat(screen_size=1, minimap_size=1)
    fmt.check_game_info(realdata(f"{stem}.game_info"))
    obs = ObservationDecoder(fmt, realdata(f"{stem}.game_info")).decode(response)
    renders = response.observation.feature_layer_data.renders
    assert len(renders.ListFields()) == 27
    assert obs.feature_screen.unit_type[0, 0] == int.from_bytes(renders.unit_type.data, "little")
    assert obs.feature_screen.buildable[0, 0] == renders.buildable.data[0] >> 7
    assert obs.feature_screen.height_map[0, 0] == renders.height_map.data[0]
    assert obs.feature_minimap.unit_type[0, 0] == 0  # not sent without cheating layers
    assert obs.score_cumulative.score == response.observation.score.score > 0
    assert obs.score_by_category.food_used[1] == response.observation.score.score_details.food_used.army
    assert obs.player.army_count == 48
    assert_same_as_pysc2(obs, pysc2_features(1, 1).transform_obs(response))


@pytest.mark.parametrize("stem", ["ares-sc2_TorchesAIE_v4", "ares-sc2_Oceanborn513AIE"])
def test_raw_units_and_camera_on_non_square_maps_are_pysc2s(realdata, pysc2_features, stem):
    # PySC2 scales each axis by its side over the longer side: world units only on square maps.
    response, game_info = realdata(f"{stem}.observation"), realdata(f"{stem}.game_info")
    size = (game_info.start_raw.map_size.x, game_info.start_raw.map_size.y)
    assert size[0] != size[1]
    fmt = InterfaceFormat(screen_size=1, minimap_size=1, use_raw_units=True, use_camera_position=True)
    obs = ObservationDecoder(fmt, game_info).decode(response)
    theirs = pysc2_features(1, 1, size, use_raw_units=True, use_camera_position=True).transform_obs(response)
    columns = [c for c in range(46) if c not in (27, 28, 38, 39)]  # PySC2 puts raw function ids in orders
    assert len(obs.raw_units) > 100
    np.testing.assert_array_equal(np.asarray(obs.raw_units)[:, columns], theirs["raw_units"][:, columns])
    np.testing.assert_array_equal(obs.camera_position, theirs["camera_position"])
    np.testing.assert_array_equal(obs.camera_size, theirs["camera_size"])
    # Without use_camera_position PySC2 leaves both out; sc2env gave them whenever raw data was on.
    without = ObservationDecoder(
        InterfaceFormat(screen_size=1, minimap_size=1, use_raw_units=True), game_info
    )
    theirs = pysc2_features(1, 1, size, use_raw_units=True).transform_obs(response)
    decoded = without.decode(response)
    assert "camera_position" not in theirs and decoded.camera_position is None and decoded.camera_size is None
    assert decoded.camera_world is not None  # sc2env's own camera fields stay


def test_named_access_and_dict_access(realdata):
    obs = ObservationDecoder(InterfaceFormat(screen_size=128, minimap_size=128)).decode(
        realdata("pysc2_obs_data1.observation")
    )
    np.testing.assert_array_equal(obs.feature_screen.player_relative, obs.feature_screen[5])
    np.testing.assert_array_equal(obs.feature_minimap.camera, obs.feature_minimap[3])
    assert obs.player.minerals == 125 and obs["player"] is obs.player
    # As PySC2's dict: membership, keys, get; a name it doesn't hold is a KeyError (it was an AttributeError,
    # and `"feature_units" in obs` a TypeError).
    assert "feature_screen" in obs and "feature_units" not in obs and obs.get("feature_units") is None
    assert obs.keys()[:5] == ["game_loop", "player", "available_actions", "feature_screen", "feature_minimap"]
    with pytest.raises(KeyError, match="'radar': an observation holds game_loop, player"):
        obs["radar"]
    with pytest.raises(KeyError, match="'feature_units': this observation has none; use_feature_units=True"):
        obs["feature_units"]  # was None, so `for unit in obs["feature_units"]` failed on NoneType
    assert obs["masks"] is obs.masks and obs["function_mask"] is not None  # as before the dict methods
    assert (
        list(obs) == obs.keys()
        and len(obs) == len(obs.keys())
        and dict(obs.items()).keys() == set(obs.keys())
    )
    assert obs.feature_screen[0].ndim == 2 and not hasattr(obs.feature_screen[0], "player_relative")
    assert type(np.asarray(obs.feature_screen)) is np.ndarray
    restored = pickle.loads(pickle.dumps(obs.feature_screen))
    np.testing.assert_array_equal(restored.unit_type, obs.feature_screen.unit_type)


def test_rows_and_names_as_pysc2_agents_use_them(realdata):
    # The idioms of PySC2's scripted agents; each raised AttributeError or IndexError.
    response = realdata("pysc2_obs_data1.observation")
    fmt = InterfaceFormat(screen_size=128, minimap_size=128, use_feature_units=True)
    visibility = response.observation.raw_data.map_state.visibility.size
    obs = ObservationDecoder(fmt, game_info_for(fmt, (visibility.x, visibility.y))).decode(response)
    units = obs.feature_units
    assert len(units) > 1
    assert [unit.alliance for unit in units] == units.alliance.tolist()
    assert (
        units[1].x == units[1, "x"] == units.x[1]
        and units[:, "unit_type"].tolist() == units.unit_type.tolist()
    )
    mine = units[units.alliance == 1]
    assert mine.x.tolist() == units.x[units.alliance == 1].tolist()  # a masked table keeps its names
    assert obs.player["minerals"] == obs.player.minerals == 125
    assert obs.score_cumulative["score"] == obs.score_cumulative.score
    row = obs.score_by_category.killed_minerals
    assert row.army == obs.score_by_category[ScoreByCategory.killed_minerals, ScoreCategories.army]
    assert obs.score_by_vital.total_damage_dealt.life == obs.score_by_vital[0, 0]
    with pytest.raises(KeyError, match="no name 'x' on axis 0; names \\(axis 1\\): unit_type, alliance"):
        units["x"]
    # Names on a table's second axis, and assignment by name, as PySC2 allows.
    by_category = obs.score_by_category
    assert by_category["killed_minerals", "army"] == by_category.killed_minerals.army
    assert by_category[:, "army"].tolist() == [row.army for row in by_category]
    copied = units.copy()
    copied[:, "x"] = 7
    assert set(copied.x.tolist()) == {7}
    copied.health = 1  # an attribute write goes into the array, as in PySC2 (it used to hide the column)
    copied[0].alliance = 9
    assert set(copied[:, "health"].tolist()) == {1} and copied[0, "alliance"] == 9
    player = obs.player.copy()
    player.minerals = 0
    assert player["minerals"] == 0 and obs.player.minerals == 125
    with pytest.raises(AttributeError, match="names apply to the 1-D form"):
        player.reshape(1, -1).minerals = 1
    # An index that leaves the named axis whole keeps its names: every layer at one pixel, one column of rows.
    pixel = obs.feature_screen[:, 40, 70]
    assert pixel.unit_type == obs.feature_screen.unit_type[40, 70] and pixel.player_relative == pixel[5]
    assert obs.feature_screen[:, 40][:, 70].height_map == obs.feature_screen.height_map[40, 70]
    assert pickle.loads(pickle.dumps(pixel)).unit_type == pixel.unit_type
    assert by_category[:, "army"].killed_minerals == by_category.killed_minerals.army
    # A reduction is a number (a 0-d named array could not be a dict key); a slice that cuts the named axis has
    # no names left (they pointed at the wrong entries: player[1:3].minerals gave 0).
    total = by_category.food_used.sum()
    assert np.isscalar(total) and hash(total) == hash(int(total))
    for cut in (
        lambda: obs.player[1:3].minerals,
        lambda: units[0][10:].x,
        lambda: obs.feature_screen[5:7].unit_type,
    ):
        with pytest.raises(AttributeError):
            cut()
    # PySC2's constants and layer lookup by name.
    relative = obs.feature_screen[SCREEN_LAYERS.player_relative.index]
    assert (relative == PlayerRelative.NEUTRAL).sum() == (obs.feature_screen.player_relative == 3).sum() > 0
    assert SCREEN_LAYERS.visibility_map.index == 1 and Visibility.VISIBLE == 2


def test_a_layer_of_the_wrong_size_is_a_clear_error():
    decoder = ObservationDecoder(InterfaceFormat(screen_size=64, minimap_size=64))
    with pytest.raises(
        ProtocolError, match="screen layer height_map is 32×32, but the interface format asks for 64×64"
    ):
        decoder.decode(with_layers(observation(), 32))


def test_a_layer_with_the_wrong_byte_count_is_a_clear_error():
    response = with_layers(observation(), 64)
    response.observation.feature_layer_data.minimap_renders.creep.data = b"\x00" * 100
    decoder = ObservationDecoder(InterfaceFormat(screen_size=64, minimap_size=64))
    with pytest.raises(
        ProtocolError, match="minimap layer creep is 64×64 at 1 bits per pixel but has 100 bytes"
    ):
        decoder.decode(response)


@pytest.mark.parametrize(
    "spoil",
    [
        lambda o: setattr(
            o.observation.score.score_details, "collected_minerals", float("nan")
        ),  # ValueError
        lambda o: setattr(o.observation.score.score_details, "collected_minerals", 1e30),  # OverflowError
        lambda o: setattr(o.observation.player_common, "minerals", 2**32 - 1),  # beyond int32
        lambda o: o.observation.raw_data.units.add(tag=1, pos={"x": float("nan"), "y": 1}),
    ],
)
def test_values_no_array_can_hold_are_a_protocol_error_naming_the_loop(spoil):
    response = with_layers(observation(), 64)
    response.observation.game_loop = 77
    spoil(response)
    fmt = InterfaceFormat(screen_size=64, minimap_size=64, use_raw_units=True)
    decoder = ObservationDecoder(fmt, game_info_for(fmt, (64, 64)))
    with pytest.raises(ProtocolError, match="observation at game loop 77 could not be decoded") as raised:
        decoder.decode(response)
    assert isinstance(
        raised.value.__cause__, (ArithmeticError, ValueError)
    )  # kept, should it be a bug of ours


def test_ui_panels_become_padded_unit_tables(fmt64):
    decoder = ObservationDecoder(fmt64)
    multi = decoder.decode(observation(panel=("multi", 3)))
    assert multi.multi_select.shape == (3, 7) and multi.multi_select.health.tolist() == [40, 41, 42]
    assert multi.multi_select[0, UnitLayer.build_progress] == 100
    padded = multi.padded("multi_select")
    assert (
        padded.shape == (64, 7)
        and padded[:3].tolist() == multi.multi_select.tolist()
        and not padded[3:].any()
    )

    cargo = decoder.decode(observation(panel=("cargo", 2)))
    assert cargo.cargo.shape == (2, 7) and cargo.cargo_slots_available[0] == 6
    assert cargo.single_select.unit_type.tolist() == [54]
    assert cargo.padded("cargo").shape == (16, 7)

    production = decoder.decode(observation(panel=("production", 2)))
    assert production.build_queue.build_progress.tolist() == [0, 25]
    assert production.production_queue.tolist() == [[560, 0], [560, 25]]
    assert production.padded("production_queue").shape == (10, 2)

    groups = decoder.decode(observation(groups=[(2, 48, 5)]))
    assert groups.control_groups[2].tolist() == [48, 5] and groups.control_groups.sum() == 53


def test_available_actions_match_the_real_games_selected_marine(fmt64, pysc2_features):
    """The list docs/sc2-api-notes.md records for a selected marine in the real game."""
    marine = [(1, True), (4, False), (16, True), (17, True), (18, False), (23, True)]
    response = observation(abilities=marine, army=1, panel=("single",))
    obs = ObservationDecoder(fmt64).decode(response)
    expected = [0, 1, 2, 3, 4, 7, 12, 13, 274, 331, 332, 333, 334, 451, 452, 453]
    assert obs.available_actions.tolist() == expected
    assert sorted(pysc2_features(64, 64).available_actions(response.observation)) == expected
    specific = ObservationDecoder(InterfaceFormat(hide_specific_actions=False)).decode(response)
    assert {FUNCTIONS.Attack_Attack_screen.id, FUNCTIONS.Move_Move_screen.id} < set(
        specific.available_actions
    )


def test_unmatched_abilities_are_skipped_and_logged_once_per_decoder(fmt64, caplog):
    """PySC2 raises ValueError on Smart without a point; the real game sends it."""
    response = observation(abilities=[(1, False), (999999, False), (4, False)])
    decoder = ObservationDecoder(fmt64)
    with caplog.at_level(logging.WARNING, logger="sc2env.interface.decoder"):
        for _ in range(3):
            obs = decoder.decode(response)
    assert FUNCTIONS.Stop_quick.id in obs.available_actions
    assert len(caplog.records) == 2
    assert "ability 1 (requires_point=False)" in caplog.records[0].getMessage()
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="sc2env.interface.decoder"):
        ObservationDecoder(fmt64).decode(response)
    assert len(caplog.records) == 2  # a new decoder reports again: no global state


def test_last_actions_skip_actions_no_function_expresses(fmt64, caplog):
    dance = sc_pb.Action()
    dance.action_feature_layer.unit_command.ability_id = 99_999  # no function has it
    raw_only = sc_pb.Action()  # a raw client's command, echoed in raw form: skipped without a word
    raw_only.action_raw.unit_command.ability_id = 16
    army = sc_pb.Action()
    army.action_ui.select_army.selection_add = True
    with caplog.at_level(logging.WARNING, logger="sc2env.interface.decoder"):
        obs = ObservationDecoder(fmt64).decode(observation(actions=[dance, raw_only, army, dance]))
    assert obs.last_actions.tolist() == [FUNCTIONS.select_army.id]
    assert len(caplog.records) == 1 and "ability 99999" in caplog.records[0].getMessage()


def test_observations_never_share_memory_while_held():
    decoder = ObservationDecoder(InterfaceFormat(screen_size=32, minimap_size=32))
    response = with_layers(observation(), 32)
    first = decoder.decode(response)
    snapshot = first.feature_screen.copy()
    second = decoder.decode(observation(game_loop=1))  # no layers: all zeros
    assert not np.shares_memory(first.feature_screen, second.feature_screen)
    np.testing.assert_array_equal(first.feature_screen, snapshot)
    assert not second.feature_screen.any()
    # Once released, the decoder may reuse the memory; the new contents are complete.
    reused_address = second.feature_screen.__array_interface__["data"][0]
    del second
    third = decoder.decode(response)
    assert third.feature_screen.__array_interface__["data"][0] == reused_address
    np.testing.assert_array_equal(third.feature_screen, snapshot)
    held_view = third.feature_minimap[2:4]
    del third
    fourth = decoder.decode(response)
    assert not np.shares_memory(held_view, fourth.feature_minimap)


def test_rgb_observations_and_camera(fmt64):
    fmt = InterfaceFormat(
        screen_size=None,
        minimap_size=None,
        rgb_screen_size=(8, 6),
        rgb_minimap_size=4,
        use_camera_position=True,
    )
    response = observation()
    response.observation.render_data.map.bits_per_pixel = 24
    response.observation.render_data.map.size.x, response.observation.render_data.map.size.y = 8, 6
    response.observation.render_data.map.data = bytes(range(8 * 6 * 3))
    response.observation.raw_data.player.camera.x, response.observation.raw_data.player.camera.y = 20.0, 30.0
    obs = ObservationDecoder(fmt, game_info_for(fmt, (64, 64))).decode(response)
    assert obs.rgb_screen.shape == (6, 8, 3) and obs.rgb_screen[0, 1].tolist() == [3, 4, 5]
    assert obs.rgb_minimap.shape == (4, 4, 3) and not obs.rgb_minimap.any()  # not sent: black
    assert obs.feature_screen is None
    assert obs.camera_world.tolist() == [20.0, 30.0]
    assert obs.camera_minimap.tolist() == [1, 2]  # 16 world units per minimap pixel, y from the top
