"""Raw functions (`RAW_FUNCTIONS.Attack_unit`): unit commands by raw_units row, in raw coordinates."""

from __future__ import annotations

import enum
import numbers
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, NamedTuple

import numpy as np

from sc2env.errors import MalformedActionError
from sc2env.interface.abilities import AbilityIndex
from sc2env.interface.arguments import Queued
from sc2env.interface.functions import (
    Functions,
    TableEntry,
    TargetClass,
    floored_point,
    lookup_in,
    one_per_argument,
)
from sc2env.interface.raw_function_table import RAW_FUNCTION_TABLE

MAX_UNIT_TAGS = 512
"""The most units one raw command may name (the game's limit, as PySC2 checks it)."""


class RawFunctionKind(str, enum.Enum):
    """How a raw function becomes an `ActionRaw`."""

    NO_OP = "no_op"
    MOVE_CAMERA = "move_camera"
    QUICK = "quick"
    POINT = "point"
    UNIT = "unit"
    AUTOCAST = "autocast"


@dataclass(frozen=True)
class RawArgumentType:
    """One raw argument type: a point in raw coordinates, queued, the commanded units, or a target unit.

    Units are named by their row in the observation's `raw_units` table (as PySC2's raw functions take them).
    """

    id: int
    name: str
    kind: Literal["point", "enum", "units", "unit"]

    def __str__(self) -> str:
        return self.name


class RawArgumentTypes(NamedTuple):
    """The raw argument types in PySC2's order."""

    world: RawArgumentType
    queued: RawArgumentType
    unit_tags: RawArgumentType
    target_unit_tag: RawArgumentType


RAW_ARGUMENT_TYPES = RawArgumentTypes(
    RawArgumentType(0, "world", "point"),
    RawArgumentType(1, "queued", "enum"),
    RawArgumentType(2, "unit_tags", "units"),
    RawArgumentType(3, "target_unit_tag", "unit"),
)

RAW_KIND_ARGUMENTS: dict[RawFunctionKind, tuple[str, ...]] = {
    RawFunctionKind.NO_OP: (),
    RawFunctionKind.MOVE_CAMERA: ("world",),
    RawFunctionKind.QUICK: ("queued", "unit_tags"),
    RawFunctionKind.POINT: ("queued", "unit_tags", "world"),
    RawFunctionKind.UNIT: ("queued", "unit_tags", "target_unit_tag"),
    RawFunctionKind.AUTOCAST: ("unit_tags",),
}
"""The argument types each raw kind takes, in call order."""


@dataclass(frozen=True, eq=False)
class RawFunction(TableEntry):
    """One raw function; call it for a `RawFunctionCall`: `RAW_FUNCTIONS.Attack_unit("now", [0, 1], 5)`."""

    id: int
    name: str
    kind: RawFunctionKind
    ability_id: int
    general_id: int
    args: tuple[RawArgumentType, ...]
    target: TargetClass | None
    """Where its point or target unit may sensibly be aimed, or None without one."""

    def __call__(self, *arguments: object) -> RawFunctionCall:
        return RawFunctionCall.build(self, arguments)


def _raw_function(row: tuple[int, str, str, int, int, str]) -> RawFunction:
    fid, name, kind, ability_id, general_id, target = row
    kind_ = RawFunctionKind(kind)
    args = tuple(getattr(RAW_ARGUMENT_TYPES, a) for a in RAW_KIND_ARGUMENTS[kind_])
    return RawFunction(
        fid, name, kind_, ability_id, general_id, args, TargetClass[target.upper()] if target else None
    )


RAW_FUNCTIONS: Functions[RawFunction] = Functions([_raw_function(row) for row in RAW_FUNCTION_TABLE])
"""All 564 raw functions: `RAW_FUNCTIONS[3]`, `RAW_FUNCTIONS["Attack_unit"]` or `RAW_FUNCTIONS.Attack_unit`."""

RAW_FUNCTION_TARGETS = np.array([-1 if f.target is None else int(f.target) for f in RAW_FUNCTIONS], np.int8)
RAW_FUNCTION_TARGETS.setflags(write=False)
"""(n_raw_functions,) int8: each raw function's `TargetClass` for its point or target unit, or -1."""

# An available ability with requires_point offers its point and unit forms; without, the quick one.
RAW_OFFERED_KINDS = {
    True: (RawFunctionKind.POINT, RawFunctionKind.UNIT, RawFunctionKind.AUTOCAST),
    False: (RawFunctionKind.QUICK, RawFunctionKind.AUTOCAST),
}
RAW_ABILITY_INDEX = {hide: AbilityIndex(hide, RAW_FUNCTIONS, RAW_OFFERED_KINDS) for hide in (True, False)}
"""Ability lookups of the raw table, by `hide_specific_actions`."""


class RawFunctionCall(NamedTuple):
    """A raw function id with its arguments: (x, y) for the point, (0|1,) for queued, a tuple of raw_units
    rows for unit_tags, (row,) for target_unit_tag."""

    function: int
    arguments: tuple[tuple[int, ...], ...] = ()

    @classmethod
    def build(cls, function: int | str | RawFunction, arguments: Sequence[object] = ()) -> RawFunctionCall:
        """Check and normalise a call: queued by name or 0/1, units as one row or a sequence of rows, the
        point as any (x, y) pair (floored to its raw cell). PySC2's list form (`[[0], [3, 4], [12, 30]]`) too."""
        func = lookup_raw_function(function)
        arguments = one_per_argument(func, arguments)
        return cls(func.id, tuple(_normalise(func, t, v) for t, v in zip(func.args, arguments)))

    @property
    def name(self) -> str:
        return RAW_FUNCTIONS[self.function].name

    def __str__(self) -> str:
        if not 0 <= self.function < len(RAW_FUNCTIONS):
            return f"RawFunctionCall({self.function}, {self.arguments!r})"
        func = RAW_FUNCTIONS[self.function]
        shown = [
            Queued(v[0]).name
            if t.kind == "enum" and v[0] in (0, 1)
            else str(list(v) if t.kind == "units" else v if len(v) > 1 else v[0])
            for t, v in zip(func.args, self.arguments)
        ]
        return f"{func.name}({', '.join(shown)})"


def lookup_raw_function(function: int | str | RawFunction) -> RawFunction:
    """The raw function an id, a name or a RawFunction stands for; MalformedActionError if none."""
    return lookup_in(RAW_FUNCTIONS, function, "raw function", "RAW_FUNCTIONS")


def _row(func: RawFunction, arg: RawArgumentType, value: object) -> int:
    if isinstance(value, np.ndarray) and value.size == 1:
        value = value.reshape(()).item()
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral) or int(value) < 0:
        raise MalformedActionError(
            f"{func.name}: {arg.name} takes rows of raw_units (ints from 0); got {value!r}"
        )
    return int(value)


def _normalise(func: RawFunction, arg: RawArgumentType, value: object) -> tuple[int, ...]:
    if arg.kind == "point":
        return floored_point(func.name, "raw", arg.name, value)
    if arg.kind == "units":
        rows = value.ravel().tolist() if isinstance(value, np.ndarray) else value
        if isinstance(rows, (numbers.Integral, np.integer)):
            rows = [rows]
        try:
            rows = tuple(_row(func, arg, v) for v in rows)  # type: ignore[union-attr]
        except TypeError:
            raise MalformedActionError(
                f"{func.name}: {arg.name} takes a row of raw_units or a sequence of rows; got {value!r}"
            ) from None
        if not 1 <= len(rows) <= MAX_UNIT_TAGS:
            raise MalformedActionError(
                f"{func.name}: {arg.name} names 1 to {MAX_UNIT_TAGS} units; got {len(rows)}"
            )
        return rows
    if isinstance(value, (list, tuple)) and len(value) == 1:
        value = value[0]
    if arg.kind == "unit":
        return (_row(func, arg, value),)
    if isinstance(value, str):
        if value not in Queued.__members__:
            raise MalformedActionError(f"{func.name}: queued must be one of now, queued; got {value!r}")
        return (int(Queued[value]),)
    if isinstance(value, np.ndarray) and value.size == 1:
        value = value.reshape(()).item()
    if isinstance(value, (bool, np.bool_)):
        value = int(value)
    if not isinstance(value, numbers.Integral) or int(value) not in (0, 1):
        raise MalformedActionError(f"{func.name}: queued must be one of 0=now, 1=queued; got {value!r}")
    return (int(value),)
