"""Raw functions: the table, calls, ActionRaw encoding and decoding, and masks from per-unit abilities."""

from __future__ import annotations

import numpy as np
import pytest
from s2clientprotocol import query_pb2
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env.errors import InvalidActionError, MalformedActionError
from sc2env.interface import (
    RAW_FUNCTIONS,
    FeatureUnit,
    InterfaceFormat,
    RawActionMasks,
    RawFunctionCall,
    RawFunctionKind,
    decode_raw_action,
    encode_raw_action,
)
from sc2env.interface.raw_functions import RAW_ARGUMENT_TYPES
from sc2env.interface.transforms import CoordinateTransforms, MapInfo

F = RAW_FUNCTIONS
MARINE, ROACH, MINERAL_FIELD, SCV, GEYSER, REFINERY = 48, 110, 341, 45, 342, 20


def transforms(width: int = 64, height: int = 64) -> CoordinateTransforms:
    grid = np.ones((height, width), bool)
    info = MapInfo(
        name="test",
        size=(width, height),
        playable_area=(0.0, 0.0, float(width), float(height)),
        pathing=grid,
        placement=grid,
        terrain_height=np.zeros((height, width), np.uint8),
        start_locations=np.zeros((0, 2)),
    )
    return CoordinateTransforms(InterfaceFormat(use_raw_units=True), info)


def units(*rows: tuple[int, int, int]) -> np.ndarray:
    """A raw_units table of (unit_type, alliance, tag) rows, finished, resources with something left."""
    table = np.zeros((len(rows), len(FeatureUnit.__members__)), np.int64)
    for i, (unit_type, alliance, tag) in enumerate(rows):
        table[i, [FeatureUnit.unit_type, FeatureUnit.alliance, FeatureUnit.tag]] = unit_type, alliance, tag
        table[i, FeatureUnit.build_progress] = 100
        table[i, FeatureUnit.mineral_contents] = 1800 if unit_type == MINERAL_FIELD else 0
        table[i, FeatureUnit.vespene_contents] = 2250 if unit_type in (GEYSER, REFINERY) else 0
    return table


def abilities(tag: int, *ids: tuple[int, bool]) -> query_pb2.ResponseQueryAvailableAbilities:
    answer = query_pb2.ResponseQueryAvailableAbilities(unit_tag=tag)
    for ability_id, requires_point in ids:
        answer.abilities.add(ability_id=ability_id, requires_point=requires_point)
    return answer


MARINE_BUTTONS = ((1, True), (4, False), (16, True), (17, True), (18, False), (23, True))
TABLE = units((MARINE, 1, 100), (MARINE, 1, 200), (ROACH, 4, 300), (MINERAL_FIELD, 3, 400), (SCV, 1, 500))
TAGS = TABLE[:, FeatureUnit.tag]


def test_table_kinds_and_pysc2_ids():
    kinds = [f.kind for f in F]
    assert len(F) == 564 and [f.id for f in F] == list(range(564))
    assert {k: kinds.count(k) for k in RawFunctionKind} == {
        RawFunctionKind.NO_OP: 1,
        RawFunctionKind.MOVE_CAMERA: 1,
        RawFunctionKind.QUICK: 343,
        RawFunctionKind.POINT: 126,
        RawFunctionKind.UNIT: 72,
        RawFunctionKind.AUTOCAST: 21,
    }
    assert (F[0].name, F[1].name, F[3].name, F[168].name) == (
        "no_op",
        "Smart_pt",
        "Attack_unit",
        "raw_move_camera",
    )
    assert [a.name for a in F.Attack_unit.args] == ["queued", "unit_tags", "target_unit_tag"]
    assert F.Harvest_Gather_unit.target.name == "RESOURCE" and F.Effect_Repair_unit.target.name == "OWN_UNIT"


def test_table_matches_pysc2():
    actions = pytest.importorskip("pysc2_evolved.lib.actions")
    assert len(actions.RAW_FUNCTIONS) == len(F)
    for theirs in actions.RAW_FUNCTIONS:
        ours = F[int(theirs.id)]
        assert (ours.name, ours.ability_id, ours.general_id) == (
            theirs.name,
            theirs.ability_id,
            theirs.general_id,
        )
        assert [a.name for a in ours.args] == [a.name for a in theirs.args], ours.name
    assert [t.name for t in RAW_ARGUMENT_TYPES] == [t.name for t in actions.RAW_TYPES]


def test_calls_normalise_their_arguments_and_name_what_is_wrong():
    assert F.Attack_unit("now", [0, 1], 2) == RawFunctionCall(3, ((0,), (0, 1), (2,)))
    assert F.Move_pt("queued", np.int64(4), (2.7, 3.1)) == RawFunctionCall(F.Move_pt.id, ((1,), (4,), (2, 3)))
    assert F.Attack_unit([0], [0, 1], [2]) == F.Attack_unit(0, (0, 1), 2)  # PySC2's list form
    assert str(F.Attack_unit("now", [0, 1], 2)) == "Attack_unit(now, [0, 1], 2)"
    with pytest.raises(MalformedActionError, match="Attack_unit takes 3 argument"):
        F.Attack_unit("now", [0])
    with pytest.raises(MalformedActionError, match="names 1 to 512 units; got 0"):
        F.Stop_quick("now", [])
    with pytest.raises(MalformedActionError, match="rows of raw_units"):
        F.Stop_quick("now", [-1])
    with pytest.raises(MalformedActionError, match="queued must be one of now, queued"):
        F.Stop_quick("later", [0])
    with pytest.raises(MalformedActionError, match="finite numbers"):
        F.Move_pt("now", [0], (float("nan"), 1))
    with pytest.raises(MalformedActionError, match="unknown raw function 'Fly'"):
        RawFunctionCall.build("Fly")
    with pytest.raises(MalformedActionError, match="unknown raw function id True"):
        RawFunctionCall.build(True)  # a bool is no id, though Python counts it as 1
    with pytest.raises(MalformedActionError, match="needs a raw point"):
        F.Move_pt("now", [0], "12")


def test_copies_of_table_entries_are_the_tables_own():
    import copy
    import pickle

    from sc2env.interface import FUNCTIONS

    for entry in (F.Attack_unit, FUNCTIONS.Move_screen):
        for twin in (pickle.loads(pickle.dumps(entry)), copy.deepcopy(entry)):
            assert twin("now", *([[0], 1] if entry is F.Attack_unit else [(3, 4)])).function == entry.id


def test_encoding_sets_the_unit_command_and_the_cell_centre():
    t = transforms()
    action = encode_raw_action(F.Attack_unit("queued", [0, 1], 2), TAGS, t)
    command = action.action_raw.unit_command
    assert (command.ability_id, list(command.unit_tags), command.target_unit_tag, command.queue_command) == (
        3674,
        [100, 200],
        300,
        True,
    )
    point = encode_raw_action(F.Move_pt("now", [4], (10, 20)), TAGS, t).action_raw.unit_command
    # Raw coordinates count from the top-left: cell (10, 20) is world (10.5, 64 - 20.5).
    assert (point.target_world_space_pos.x, point.target_world_space_pos.y) == (10.5, 43.5)
    assert not point.HasField("target_unit_tag")
    camera = encode_raw_action(F.raw_move_camera((32, 8)), TAGS, t).action_raw.camera_move.center_world_space
    assert (camera.x, camera.y) == (32.5, 55.5)
    autocast = encode_raw_action(F.Build_Interceptors_autocast([1]), TAGS, t).action_raw.toggle_autocast
    assert (autocast.ability_id, list(autocast.unit_tags)) == (1042, [200])
    assert encode_raw_action(F.no_op(), TAGS, t) == sc_pb.Action()


def test_non_square_maps_scale_as_pysc2_does():
    # PySC2's raw frame on a 184x176 map: cell (10, 20) is world (10.5, 176 - 20.5 * 184 / 176).
    t = transforms(184, 176)
    assert t.raw_grid_size == (184, 169)
    pos = encode_raw_action(
        F.Move_pt("now", [0], (10, 20)), TAGS, t
    ).action_raw.unit_command.target_world_space_pos
    assert (pos.x, pos.y) == pytest.approx((10.5, 154.5682), abs=1e-4)


def test_rows_and_points_outside_are_refused():
    t = transforms()
    with pytest.raises(InvalidActionError, match="unit_tags row 5 names no unit: there are 5 rows"):
        encode_raw_action(F.Stop_quick("now", [0, 5]), TAGS, t)
    with pytest.raises(InvalidActionError, match="target_unit_tag row 9"):
        encode_raw_action(F.Attack_unit("now", [0], 9), TAGS, t)
    with pytest.raises(InvalidActionError, match=r"\(64, 3\) is off the map: raw points lie in 64×64"):
        encode_raw_action(F.Move_pt("now", [0], (64, 3)), TAGS, t)


def test_decoding_reads_rows_back_and_drops_units_that_are_gone():
    t = transforms()
    for call in (
        F.Attack_unit("queued", [0, 1], 2),
        F.Move_pt("now", [4], (10, 20)),
        F.Stop_quick("now", [1]),
        F.raw_move_camera((32, 8)),
        F.Build_Interceptors_autocast([1]),
        F.no_op(),
    ):
        assert decode_raw_action(encode_raw_action(call, TAGS, t), TAGS, t) == call
    action = encode_raw_action(F.Attack_unit("now", [0, 1], 2), TAGS, t)
    assert decode_raw_action(action, TAGS[1:], t) == F.Attack_unit("now", [0], 1)  # row 0 died: rows shift
    assert decode_raw_action(action, TAGS[:2], t) is None  # its target is gone
    specific = sc_pb.Action()
    specific.action_raw.unit_command.ability_id = 23  # Attack_Attack, read back as the general Attack
    specific.action_raw.unit_command.unit_tags.append(100)
    specific.action_raw.unit_command.target_world_space_pos.x = 5
    assert decode_raw_action(specific, TAGS, t).function == F.Attack_pt.id
    assert decode_raw_action(specific, TAGS, t, hide_specific_actions=False).function == F.Attack_Attack_pt.id
    feature = sc_pb.Action()
    feature.action_feature_layer.camera_move.center_minimap.x = 3
    assert decode_raw_action(feature, TAGS, t) is None


def test_encoding_and_decoding_agree_with_pysc2():
    features = pytest.importorskip("pysc2_evolved.lib.features")
    actions = pytest.importorskip("pysc2_evolved.lib.actions")
    t = transforms()
    size = sc_pb.ResponseGameInfo().start_raw.map_size
    size.x = size.y = 64
    theirs = features.Features(
        features.AgentInterfaceFormat(action_space=actions.ActionSpace.RAW, use_raw_units=True), map_size=size
    )
    obs = sc_pb.Observation()
    for tag in TAGS:
        obs.raw_data.units.add(tag=int(tag), unit_type=MARINE, owner=1, alliance=1)
    transformed = theirs.transform_obs(sc_pb.ResponseObservation(observation=obs))  # its rows -> tags
    for call in (
        F.Attack_unit("queued", [0, 1], 2),
        F.Move_pt("now", [4], (10, 20)),
        F.Stop_quick("now", [1]),
        F.raw_move_camera((32, 8)),
        F.Smart_pt("now", [0, 3], (63, 0)),
        F.Build_Interceptors_autocast([1]),
    ):
        ours = encode_raw_action(call, TAGS, t)
        pysc2_call = actions.FunctionCall(call.function, [list(a) for a in call.arguments])
        assert ours == theirs.transform_action(obs, pysc2_call, skip_available=True), call
        back = theirs.reverse_raw_action(ours, transformed)
        assert decode_raw_action(ours, TAGS, t) == RawFunctionCall.build(back.function, back.arguments)


def test_masks_come_from_each_units_abilities():
    answers = [
        abilities(100, *MARINE_BUTTONS),
        abilities(200, *MARINE_BUTTONS),
        abilities(500, (295, True)),
        abilities(999, (4, False)),
    ]  # a tag no longer in the table is skipped
    masks = RawActionMasks(TABLE, answers)
    offered = {F[i].name for i in np.flatnonzero(masks.functions)}
    assert offered == {
        "no_op",
        "raw_move_camera",
        "Smart_pt",
        "Smart_unit",
        "Stop_quick",
        "Move_pt",
        "Move_unit",
        "Patrol_pt",
        "Patrol_unit",
        "HoldPosition_quick",
        "Attack_pt",
        "Attack_unit",
        "Harvest_Gather_unit",
    }
    assert masks.units_for(F.Attack_unit.id).tolist() == [True, True, False, False, False]
    assert masks.units_for(F.Harvest_Gather_unit.id).tolist() == [False, False, False, False, True]
    assert masks.targets_for(F.Harvest_Gather_unit.id).tolist() == [False, False, False, True, False]
    assert masks.targets_for(F.Attack_unit.id).all() and not masks.targets_for(F.Move_pt.id).any()
    t = transforms()
    encode_raw_action(F.Harvest_Gather_unit("now", [4], 3), TAGS, t, masks)
    with pytest.raises(InvalidActionError, match="row 0 can't use it now"):
        encode_raw_action(F.Harvest_Gather_unit("now", [0], 3), TAGS, t, masks)
    with pytest.raises(
        InvalidActionError, match=r"can.t target the unit in raw_units row 2 \(it targets resource"
    ):
        encode_raw_action(F.Harvest_Gather_unit("now", [4], 2), TAGS, t, masks)
    with pytest.raises(InvalidActionError, match="Build_Barracks_pt is not available now"):
        encode_raw_action(F.Build_Barracks_pt("now", [4], (3, 3)), TAGS, t, masks)
    with pytest.raises(InvalidActionError, match="row 1 can't target itself"):
        encode_raw_action(F.Attack_unit("now", [1], 1), TAGS, t, masks)
    encode_raw_action(F.Attack_unit("now", [0, 1], 1), TAGS, t, masks)  # the others attack it
    assert masks.targets_for(F.Attack_unit.id, unit=1).tolist() == [True, False, True, True, True]
    with pytest.raises(InvalidActionError, match="row 5 is beyond the 5 rows of raw_units these masks cover"):
        masks.check(F.Stop_quick("now", [5]))


def test_resources_are_targets_by_use():
    table = units((SCV, 1, 1), (MINERAL_FIELD, 3, 2), (GEYSER, 3, 3), (REFINERY, 1, 4), (GEYSER, 3, 5))
    table[4, FeatureUnit.vespene_contents] = 0  # a geyser run dry
    masks = RawActionMasks(table, [abilities(1, (295, True), (1, True))])
    # Workers gather minerals and gas from a refinery, never from a bare geyser; refineries go on geysers.
    assert masks.targets_for(F.Harvest_Gather_unit.id).tolist() == [False, True, False, True, False]
    assert masks.targets_for(F.Build_Assimilator_unit.id).tolist() == [False, False, True, False, False]
    table[3, FeatureUnit.build_progress] = 40  # a refinery still being built takes no workers
    assert not RawActionMasks(table, []).targets_for(F.Harvest_Gather_unit.id)[3]
