"""Which raw functions each unit of an observation can use now, and which units and cells they may aim at."""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np
from s2clientprotocol import query_pb2

from sc2env.errors import InvalidActionError
from sc2env.interface.columns import FeatureUnit
from sc2env.interface.function_table import RESOURCE_UNIT_TYPES, UNIT_TYPE_SCALE
from sc2env.interface.functions import TargetClass
from sc2env.interface.layers import PlayerRelative
from sc2env.interface.raw_functions import (
    RAW_ABILITY_INDEX,
    RAW_FUNCTION_TARGETS,
    RAW_FUNCTIONS,
    RawFunctionCall,
    RawFunctionKind,
)

K = RawFunctionKind
_UNIT_COMMANDS = (K.QUICK, K.POINT, K.UNIT)
_ALWAYS = (RAW_FUNCTIONS.no_op.id, RAW_FUNCTIONS.raw_move_camera.id)
_GAS_BUILDINGS = ("Build_Assimilator", "Build_Extractor", "Build_Refinery")


def _target_kind(func) -> str | TargetClass | None:
    """Which rows a raw function's target unit may be: its target class, resources split by use (workers
    gather from mineral fields and finished own gas buildings; gas buildings go on geysers: the game refuses
    the other way round, MustBuildRefineryFirst and CantTargetThatUnit), or None without a target unit."""
    if func.kind is not K.UNIT:
        return None
    if func.name.startswith("Harvest_Gather"):
        return "gather"
    if func.name.startswith(_GAS_BUILDINGS):
        return "geyser"
    return TargetClass(int(RAW_FUNCTION_TARGETS[func.id]))


_TARGET_KIND = tuple(_target_kind(f) for f in RAW_FUNCTIONS)


@functools.lru_cache(maxsize=1024)  # units of a type mostly have the same few sets of abilities
def _offered(abilities: tuple[tuple[int, bool], ...], hide_specific_actions: bool) -> np.ndarray:
    """The raw function ids a unit with these (ability id, requires_point) pairs can call."""
    offered = RAW_ABILITY_INDEX[hide_specific_actions].offered
    return np.array(sorted({f for pair in abilities for f in offered.get(pair, ())}), np.intp)


_IS_RESOURCE = np.zeros(UNIT_TYPE_SCALE + 1, bool)  # by unit type id; the last entry: types beyond the table
_IS_RESOURCE[list(RESOURCE_UNIT_TYPES)] = True


class RawActionMasks:
    """Which raw functions each unit of an observation's raw_units can use now, and where they may aim.

    Built from the units table and the game's answer to `abilities_query` of the own units: the functions an
    ability offers (its point and unit forms with requires_point, else its quick form; autocast either way).
    no_op and raw_move_camera are always available.
    """

    def __init__(
        self,
        units: np.ndarray,
        abilities: Sequence[query_pb2.ResponseQueryAvailableAbilities],
        hide_specific_actions: bool = True,
    ):
        units = np.asarray(units).reshape(-1, len(FeatureUnit))
        self.units = units
        """The raw_units rows these masks cover."""
        tags = units[:, FeatureUnit.tag].tolist()
        row_of = {t: r for r, t in enumerate(tags)}
        self.unit_functions = np.zeros((len(units), len(RAW_FUNCTIONS)), bool)
        """(rows, n_raw_functions) bool: the raw functions each row's unit can use now."""
        for answer in abilities:
            row = row_of.get(answer.unit_tag)
            if row is not None:
                pairs = tuple((a.ability_id, a.requires_point) for a in answer.abilities)
                self.unit_functions[row, _offered(pairs, hide_specific_actions)] = True
        self.functions = np.asarray(self.unit_functions.any(axis=0))
        """(n_raw_functions,) bool: the raw functions some unit can use now (and the two always there)."""
        self.functions[list(_ALWAYS)] = True

    @functools.cached_property
    def _targets(self) -> dict[str | TargetClass, np.ndarray]:
        """Target rows by `_TARGET_KIND` (PATHABLE and PLACEABLE aim points: any unit there); made only when
        a target is asked for, which a policy sampling the flat mask never does."""
        units = self.units
        alliance = units[:, FeatureUnit.alliance]
        present = np.ones(len(units), bool)
        resource = _IS_RESOURCE.take(units[:, FeatureUnit.unit_type], mode="clip")
        own = alliance == PlayerRelative.SELF
        return {
            TargetClass.ANY: present,
            TargetClass.PATHABLE: present,
            TargetClass.PLACEABLE: present,
            TargetClass.OWN_UNIT: own,
            TargetClass.ENEMY_UNIT: alliance == PlayerRelative.ENEMY,
            TargetClass.RESOURCE: resource,
            "gather": (units[:, FeatureUnit.mineral_contents] > 0)
            | (resource & own & (units[:, FeatureUnit.build_progress] >= 100)),
            "geyser": (alliance == PlayerRelative.NEUTRAL) & (units[:, FeatureUnit.vespene_contents] > 0),
        }

    def units_for(self, function: int) -> np.ndarray:
        """(rows,) bool: the units that can use `function` now (none for no_op and raw_move_camera, which
        command no unit)."""
        return self.unit_functions[:, int(function)]

    def targets_for(self, function: int, unit: int | None = None) -> np.ndarray:
        """(rows,) bool: the units `function` may target: by its target class (Harvest_Gather: mineral fields
        and finished own gas buildings; gas buildings: geysers); none without a unit argument. With `unit`,
        the one row commanded, that unit itself is left out (no unit targets itself)."""
        kind = _TARGET_KIND[int(function)]
        if kind is None:
            return np.zeros(len(self.units), bool)
        out = self._targets[kind]
        if unit is not None and 0 <= unit < len(out) and out[unit]:
            out = out.copy()
            out[unit] = False
        return out

    def check(self, call: RawFunctionCall) -> None:
        """InvalidActionError unless every named unit can use the function now and the target is allowed."""
        func = RAW_FUNCTIONS[call.function]
        if not self.functions[func.id]:
            raise InvalidActionError(f"{func.name} is not available now: no unit of raw_units can use it")
        args = dict(zip((a.name for a in func.args), call.arguments))
        named = [*args.get("unit_tags", ()), *args.get("target_unit_tag", ())]
        beyond = [r for r in named if r >= len(self.units)]
        if beyond:
            raise InvalidActionError(
                f"{func.name}: row {beyond[0]} is beyond the {len(self.units)} rows of raw_units "
                "these masks cover (the env observes the first max_units)"
            )
        if func.kind in _UNIT_COMMANDS or func.kind is K.AUTOCAST:
            unable = [r for r in args["unit_tags"] if not self.unit_functions[r, func.id]]
            if unable:
                raise InvalidActionError(
                    f"{func.name}: the unit in raw_units row {unable[0]} can't use it now "
                    f"(RawActionMasks.units_for({func.id}) lists the rows that can)"
                )
        if func.kind is K.UNIT:
            (target,) = args["target_unit_tag"]
            if args["unit_tags"] == (target,):
                raise InvalidActionError(
                    f"{func.name}: the unit in raw_units row {target} can't target itself"
                )
            if not self.targets_for(func.id)[target]:
                kind = TargetClass(int(RAW_FUNCTION_TARGETS[func.id])).name.lower()
                raise InvalidActionError(
                    f"{func.name} can't target the unit in raw_units row {target} (it targets "
                    f"{kind} units; RawActionMasks.targets_for({func.id}) lists the rows)"
                )
