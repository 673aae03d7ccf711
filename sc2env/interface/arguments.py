"""The 13 argument types of feature-layer functions, their value enums and their sizes under a format."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, NamedTuple

from sc2env.interface.columns import CONTROL_GROUPS, QUEUE_ROWS

if TYPE_CHECKING:
    from sc2env.interface.format import InterfaceFormat


class Queued(enum.IntEnum):
    now = 0
    queued = 1


class ControlGroupAct(enum.IntEnum):
    recall = 0
    set = 1
    append = 2
    set_and_steal = 3
    append_and_steal = 4


class SelectPointAct(enum.IntEnum):
    select = 0
    toggle = 1
    select_all_type = 2
    add_all_type = 3


class SelectAdd(enum.IntEnum):
    select = 0
    add = 1


class SelectUnitAct(enum.IntEnum):
    select = 0
    deselect = 1
    select_all_type = 2
    deselect_all_type = 3


class SelectWorker(enum.IntEnum):
    select = 0
    add = 1
    select_all = 2
    add_all = 3


@dataclass(frozen=True)
class ArgumentType:
    """One argument type. Points are (x, y) pixels; the others are one int in range(size).

    `size` is None where the interface format decides it: the points, select_unit_id and unload_id.
    Enum-valued arguments are sent to the game as `value + 1` (the protocol's enums start at 1),
    except queued and select_add, which are booleans.
    """

    id: int
    name: str
    kind: Literal["point", "enum", "scalar"]
    size: int | None = None
    values: type[enum.IntEnum] | None = None
    space: Literal["screen", "minimap"] | None = None

    def bounds(self, fmt: InterfaceFormat) -> tuple[int, ...]:
        """Exclusive upper bound per dimension: (width, height) for points, (size,) otherwise."""
        if self.space == "screen":
            return fmt.action_screen_size
        if self.space == "minimap":
            return fmt.action_minimap_size
        if self.name == "select_unit_id":
            return (fmt.max_selected_units,)
        if self.name == "unload_id":
            return (fmt.max_cargo,)
        if self.size is None:  # the table sizes every other argument
            raise ValueError(f"argument type {self.name} has no size")
        return (self.size,)

    def n_values(self, fmt: InterfaceFormat) -> int:
        """How many distinct values it takes; points are flattened as y * width + x."""
        n = 1
        for bound in self.bounds(fmt):
            n *= bound
        return n

    def __str__(self) -> str:
        return self.name


class ArgumentTypes(NamedTuple):
    """The argument types in PySC2's order; index by position, or by name as attributes."""

    screen: ArgumentType
    minimap: ArgumentType
    screen2: ArgumentType
    queued: ArgumentType
    control_group_act: ArgumentType
    control_group_id: ArgumentType
    select_point_act: ArgumentType
    select_add: ArgumentType
    select_unit_act: ArgumentType
    select_unit_id: ArgumentType
    select_worker: ArgumentType
    build_queue_id: ArgumentType
    unload_id: ArgumentType

    def sizes(self, fmt: InterfaceFormat) -> tuple[int, ...]:
        """The number of values of each type under `fmt`, points flattened (a MultiDiscrete's nvec tail)."""
        return tuple(t.n_values(fmt) for t in self)


def _enum(i: int, name: str, values: type[enum.IntEnum]) -> ArgumentType:
    return ArgumentType(i, name, "enum", len(values), values)


ARGUMENT_TYPES = ArgumentTypes(
    ArgumentType(0, "screen", "point", space="screen"),
    ArgumentType(1, "minimap", "point", space="minimap"),
    ArgumentType(2, "screen2", "point", space="screen"),
    _enum(3, "queued", Queued),
    _enum(4, "control_group_act", ControlGroupAct),
    ArgumentType(5, "control_group_id", "scalar", CONTROL_GROUPS),
    _enum(6, "select_point_act", SelectPointAct),
    _enum(7, "select_add", SelectAdd),
    _enum(8, "select_unit_act", SelectUnitAct),
    ArgumentType(9, "select_unit_id", "scalar"),
    _enum(10, "select_worker", SelectWorker),
    ArgumentType(11, "build_queue_id", "scalar", QUEUE_ROWS),
    ArgumentType(12, "unload_id", "scalar"),
)
