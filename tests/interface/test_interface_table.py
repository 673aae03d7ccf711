"""The function table, argument types and layer tables: complete, PySC2-compatible, true to real game data."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from sc2env.interface import (
    ARGUMENT_TYPES,
    FUNCTION_ARGUMENTS,
    FUNCTION_TARGETS,
    FUNCTIONS,
    MINIMAP_LAYERS,
    SCREEN_LAYERS,
    FunctionKind,
    TargetClass,
    palette,
)
from sc2env.interface.function_table import RESOURCE_UNIT_TYPES

DATA_FILES = [
    "python-sc2_AcropolisLE.data",
    "python-sc2_2000AtmospheresAIE.data",
    "ares-sc2_TorchesAIE_v4.data",
    "ares-sc2_Oceanborn513AIE.data",
]


def test_table_has_every_function_with_contiguous_ids_and_unique_names():
    assert len(FUNCTIONS) == 573
    assert [f.id for f in FUNCTIONS] == list(range(573))
    assert len({f.name for f in FUNCTIONS}) == 573
    assert FUNCTIONS.Move_screen is FUNCTIONS["Move_screen"] is FUNCTIONS[331]
    assert FUNCTIONS.Train_Marine_quick.kind is FunctionKind.QUICK
    assert FUNCTIONS.Build_SupplyDepot_screen.args == (ARGUMENT_TYPES.queued, ARGUMENT_TYPES.screen)
    with pytest.raises(AttributeError, match="Mvoe_screen"):
        getattr(FUNCTIONS, "Mvoe_screen")  # noqa: B009 - the attribute is the point


def test_ids_names_abilities_and_arguments_match_pysc2():
    actions = pytest.importorskip("pysc2_evolved.lib.actions")
    assert len(actions.FUNCTIONS) == len(FUNCTIONS)
    for theirs in actions.FUNCTIONS:
        ours = FUNCTIONS[int(theirs.id)]
        assert (ours.name, ours.ability_id, ours.general_id) == (
            theirs.name,
            theirs.ability_id,
            theirs.general_id,
        )
        assert [a.name for a in ours.args] == [a.name for a in theirs.args], ours.name
    assert [t.name for t in ARGUMENT_TYPES] == [t.name for t in actions.TYPES]
    for ours, theirs in zip(ARGUMENT_TYPES, actions.TYPES):
        if ours.values is not None:
            assert [v.name for v in ours.values] == [v.name for v in theirs.values]


@pytest.mark.parametrize("stem", DATA_FILES)
def test_every_ability_id_exists_in_real_response_data(realdata, stem):
    from s2clientprotocol import data_pb2

    abilities = {a.ability_id: a for a in realdata(stem).abilities}
    targets = data_pb2.AbilityData.Target
    allowed_targets = {
        FunctionKind.QUICK: {targets.Value("None"), targets.Value("PointOrNone")},
        FunctionKind.SCREEN: {targets.Value(n) for n in ("Point", "Unit", "PointOrUnit", "PointOrNone")},
        FunctionKind.MINIMAP: {targets.Value("Point"), targets.Value("PointOrUnit")},
    }
    for f in FUNCTIONS:
        if f.kind not in (
            FunctionKind.QUICK,
            FunctionKind.SCREEN,
            FunctionKind.MINIMAP,
            FunctionKind.AUTOCAST,
        ):
            assert f.ability_id == 0
            continue
        assert f.ability_id in abilities, f"{f.name}: ability {f.ability_id} is not in {stem}"
        ability = abilities[f.ability_id]
        # The general ability a specific one rolls up to is the game's own remap.
        assert ability.remaps_to_ability_id == f.general_id, f.name
        if f.kind is FunctionKind.AUTOCAST:
            assert ability.allow_autocast, f.name
        else:
            assert ability.target in allowed_targets[f.kind], f.name


def test_resource_types_and_layer_scales_cover_real_data(realdata):
    data = realdata("python-sc2_2000AtmospheresAIE.data")
    assert {u.unit_id for u in data.units if u.has_minerals or u.has_vespene} == RESOURCE_UNIT_TYPES
    for stem in DATA_FILES:
        data = realdata(stem)
        unit_type = next(layer for layer in SCREEN_LAYERS if layer.name == "unit_type")
        buffs = next(layer for layer in SCREEN_LAYERS if layer.name == "buffs")
        assert max(u.unit_id for u in data.units) < unit_type.scale
        assert max(b.buff_id for b in data.buffs) < buffs.scale


def test_argument_table_is_the_function_signatures():
    assert FUNCTION_ARGUMENTS.shape == (573, 13) and FUNCTION_ARGUMENTS.dtype == bool
    assert not FUNCTION_ARGUMENTS.flags.writeable
    for f in FUNCTIONS:
        assert set(np.flatnonzero(FUNCTION_ARGUMENTS[f.id])) == {a.id for a in f.args}
    assert FUNCTION_ARGUMENTS[FUNCTIONS.no_op.id].sum() == 0
    assert FUNCTION_ARGUMENTS[FUNCTIONS.select_rect.id].sum() == 3


def test_target_classes():
    assert FUNCTION_TARGETS.shape == (573,)
    has_screen = FUNCTION_ARGUMENTS[:, ARGUMENT_TYPES.screen.id]
    assert ((FUNCTION_TARGETS >= 0) == has_screen).all()
    assert FUNCTIONS.Build_SupplyDepot_screen.target is TargetClass.PLACEABLE
    assert FUNCTIONS.Harvest_Gather_screen.target is TargetClass.RESOURCE
    assert FUNCTIONS.Build_Refinery_screen.target is TargetClass.RESOURCE
    assert FUNCTIONS.Effect_Repair_screen.target is TargetClass.OWN_UNIT
    assert FUNCTIONS.Effect_YamatoGun_screen.target is TargetClass.ENEMY_UNIT
    assert FUNCTIONS.Effect_Blink_screen.target is TargetClass.PATHABLE
    assert FUNCTIONS.Move_screen.target is TargetClass.ANY
    assert FUNCTIONS.Move_minimap.target is None


def test_layer_tables_match_pysc2_names_and_the_protocol():
    features = pytest.importorskip("pysc2_evolved.lib.features")
    from s2clientprotocol import spatial_pb2

    assert [layer.name for layer in SCREEN_LAYERS] == [f.name for f in features.SCREEN_FEATURES]
    assert [layer.name for layer in MINIMAP_LAYERS] == [f.name for f in features.MINIMAP_FEATURES]
    assert {layer.name for layer in SCREEN_LAYERS} == set(spatial_pb2.FeatureLayers.DESCRIPTOR.fields_by_name)
    assert {layer.name for layer in MINIMAP_LAYERS} == set(
        spatial_pb2.FeatureLayersMinimap.DESCRIPTOR.fields_by_name
    )
    for layer in (*SCREEN_LAYERS, *MINIMAP_LAYERS):
        colours = palette(layer)
        assert colours.shape == (layer.scale, 3) and colours.dtype == np.uint8
        assert layer.bits in (1, 8, 32)


def test_library_never_imports_pysc2():
    code = "import sys, sc2env.interface\nbad = [m for m in sys.modules if 'pysc2' in m]\nassert not bad, bad"
    subprocess.run([sys.executable, "-c", code], check=True)
