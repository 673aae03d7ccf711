"""Protobuf <-> numpy: feature layers, the function table, actions, masks and coordinate transforms."""

from sc2env.interface.actions import decode_action, encode_action, validate_call
from sc2env.interface.arguments import (
    ARGUMENT_TYPES,
    ArgumentType,
    ControlGroupAct,
    Queued,
    SelectAdd,
    SelectPointAct,
    SelectUnitAct,
    SelectWorker,
)
from sc2env.interface.columns import (
    FeatureUnit,
    Player,
    ProductionQueue,
    ScoreByCategory,
    ScoreByVital,
    ScoreCategories,
    ScoreCumulative,
    ScoreVitals,
    UnitLayer,
)
from sc2env.interface.decoder import ObservationDecoder
from sc2env.interface.format import InterfaceFormat
from sc2env.interface.functions import (
    FUNCTION_ARGUMENTS,
    FUNCTION_TARGETS,
    FUNCTIONS,
    Function,
    FunctionCall,
    FunctionKind,
    TargetClass,
)
from sc2env.interface.layers import MINIMAP_LAYERS, SCREEN_LAYERS, Layer, PlayerRelative, Visibility, palette
from sc2env.interface.masks import ActionMasks
from sc2env.interface.named_array import NamedArray
from sc2env.interface.observation import Observation
from sc2env.interface.raw_actions import abilities_query, decode_raw_action, encode_raw_action
from sc2env.interface.raw_functions import RAW_FUNCTIONS, RawFunction, RawFunctionCall, RawFunctionKind
from sc2env.interface.raw_masks import RawActionMasks
from sc2env.interface.raw_space import RawActionSpace
from sc2env.interface.spec import ARGUMENT_NAMES, COMPONENT_NAMES, ActionSpec
from sc2env.interface.transforms import CoordinateTransforms, Linear2D, MapInfo

__all__ = [
    "ARGUMENT_NAMES",
    "ARGUMENT_TYPES",
    "COMPONENT_NAMES",
    "FUNCTIONS",
    "FUNCTION_ARGUMENTS",
    "FUNCTION_TARGETS",
    "MINIMAP_LAYERS",
    "RAW_FUNCTIONS",
    "SCREEN_LAYERS",
    "ActionMasks",
    "ActionSpec",
    "ArgumentType",
    "ControlGroupAct",
    "CoordinateTransforms",
    "FeatureUnit",
    "Function",
    "FunctionCall",
    "FunctionKind",
    "InterfaceFormat",
    "Layer",
    "Linear2D",
    "MapInfo",
    "NamedArray",
    "Observation",
    "ObservationDecoder",
    "Player",
    "PlayerRelative",
    "ProductionQueue",
    "Queued",
    "RawActionMasks",
    "RawActionSpace",
    "RawFunction",
    "RawFunctionCall",
    "RawFunctionKind",
    "ScoreByCategory",
    "ScoreByVital",
    "ScoreCategories",
    "ScoreCumulative",
    "ScoreVitals",
    "SelectAdd",
    "SelectPointAct",
    "SelectUnitAct",
    "SelectWorker",
    "TargetClass",
    "UnitLayer",
    "Visibility",
    "abilities_query",
    "decode_action",
    "decode_raw_action",
    "encode_action",
    "encode_raw_action",
    "palette",
    "validate_call",
]
