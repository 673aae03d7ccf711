"""Feature-layer functions (`FUNCTIONS.Move_screen`) and the calls built from them (`FunctionCall`)."""

from __future__ import annotations

import enum
import numbers
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, TypeVar, cast, overload

import numpy as np

from sc2env.errors import MalformedActionError
from sc2env.interface.arguments import ARGUMENT_TYPES, ArgumentType
from sc2env.interface.function_table import FUNCTION_TABLE


class FunctionKind(str, enum.Enum):
    """How a function becomes an `Action`: one kind per protocol message shape."""

    NO_OP = "no_op"
    MOVE_CAMERA = "move_camera"
    SELECT_POINT = "select_point"
    SELECT_RECT = "select_rect"
    SELECT_CONTROL_GROUP = "select_control_group"
    SELECT_UNIT = "select_unit"
    SELECT_IDLE_WORKER = "select_idle_worker"
    SELECT_ARMY = "select_army"
    SELECT_WARP_GATES = "select_warp_gates"
    SELECT_LARVA = "select_larva"
    UNLOAD = "unload"
    BUILD_QUEUE = "build_queue"
    QUICK = "quick"
    SCREEN = "screen"
    MINIMAP = "minimap"
    AUTOCAST = "autocast"


KIND_ARGUMENTS: dict[FunctionKind, tuple[str, ...]] = {
    FunctionKind.NO_OP: (),
    FunctionKind.MOVE_CAMERA: ("minimap",),
    FunctionKind.SELECT_POINT: ("select_point_act", "screen"),
    FunctionKind.SELECT_RECT: ("select_add", "screen", "screen2"),
    FunctionKind.SELECT_CONTROL_GROUP: ("control_group_act", "control_group_id"),
    FunctionKind.SELECT_UNIT: ("select_unit_act", "select_unit_id"),
    FunctionKind.SELECT_IDLE_WORKER: ("select_worker",),
    FunctionKind.SELECT_ARMY: ("select_add",),
    FunctionKind.SELECT_WARP_GATES: ("select_add",),
    FunctionKind.SELECT_LARVA: (),
    FunctionKind.UNLOAD: ("unload_id",),
    FunctionKind.BUILD_QUEUE: ("build_queue_id",),
    FunctionKind.QUICK: ("queued",),
    FunctionKind.SCREEN: ("queued", "screen"),
    FunctionKind.MINIMAP: ("queued", "minimap"),
    FunctionKind.AUTOCAST: (),
}
"""The argument types each kind takes, in call order."""

ABILITY_KINDS = frozenset(
    {FunctionKind.QUICK, FunctionKind.SCREEN, FunctionKind.MINIMAP, FunctionKind.AUTOCAST}
)


class TargetClass(enum.IntEnum):
    """Where a screen argument may sensibly point; the index of a screen target mask."""

    ANY = 0
    PATHABLE = 1
    PLACEABLE = 2
    OWN_UNIT = 3
    ENEMY_UNIT = 4
    RESOURCE = 5


class TableEntry:
    """What a function of either table (feature-layer or raw) is besides its fields: an int-like id, hashed
    by it, printed with its arguments."""

    id: int
    name: str
    args: tuple

    def __int__(self) -> int:
        return self.id

    def __index__(self) -> int:
        return self.id

    def __hash__(self) -> int:
        return self.id

    def __str__(self) -> str:
        return f"{self.id}/{self.name} ({', '.join(a.name for a in self.args)})"


@dataclass(frozen=True, eq=False)
class Function(TableEntry):
    """One function of the table; call it for a `FunctionCall`: `FUNCTIONS.Move_screen("now", (3, 4))`."""

    id: int
    name: str
    kind: FunctionKind
    ability_id: int
    """The ability sent to the game (0 for UI functions)."""
    general_id: int
    """The general ability this specific one rolls up to (0 when it is general itself or has none)."""
    args: tuple[ArgumentType, ...]
    target: TargetClass | None
    """Where its screen argument may point, or None without a screen argument."""

    def __call__(self, *arguments: object) -> FunctionCall:
        return FunctionCall.build(self, arguments)


E = TypeVar("E", bound=TableEntry)


class Functions(Sequence[E]):
    """A function table: `FUNCTIONS[331]`, `FUNCTIONS["Move_screen"]` or `FUNCTIONS.Move_screen`."""

    def __init__(self, functions: Sequence[E]):
        self._list: tuple[E, ...] = tuple(functions)
        self._by_name = {f.name: f for f in self._list}
        if [f.id for f in self._list] != list(range(len(self._list))):
            raise ValueError("function ids must be 0..n-1 in order")

    def __getattr__(self, name: str) -> E:
        try:
            return self.__dict__["_by_name"][name]
        except KeyError:
            raise AttributeError(f"no function named {name!r}") from None

    @overload
    def __getitem__(self, key: int | str) -> E: ...
    @overload
    def __getitem__(self, key: slice) -> Sequence[E]: ...
    def __getitem__(self, key: int | str | slice) -> E | Sequence[E]:
        if isinstance(key, str):
            try:
                return self._by_name[key]
            except KeyError:
                raise KeyError(f"no function named {key!r}") from None
        if isinstance(key, numbers.Integral) and not 0 <= int(key) < len(
            self._list
        ):  # -1 is none, not the last
            raise IndexError(f"no function id {key}; ids run from 0 to {len(self._list) - 1}")
        return self._list[key]

    def __len__(self) -> int:
        return len(self._list)

    def __iter__(self) -> Iterator[E]:
        return iter(self._list)

    def __contains__(self, item: object) -> bool:
        if isinstance(item, str):
            return item in self._by_name
        return isinstance(item, TableEntry) and 0 <= item.id < len(self._list) and self._list[item.id] is item

    def __dir__(self) -> list[str]:
        return [*super().__dir__(), *self._by_name]

    def __getstate__(self) -> tuple[E, ...]:
        return self._list

    def __setstate__(self, state: tuple[E, ...]) -> None:
        Functions.__init__(self, state)


def _function(row: tuple[int, str, str, int, int, str]) -> Function:
    fid, name, kind, ability_id, general_id, target = row
    kind_ = FunctionKind(kind)
    args = tuple(getattr(ARGUMENT_TYPES, a) for a in KIND_ARGUMENTS[kind_])
    return Function(
        fid, name, kind_, ability_id, general_id, args, TargetClass[target.upper()] if target else None
    )


FUNCTIONS: Functions[Function] = Functions([_function(row) for row in FUNCTION_TABLE])


def _argument_table() -> np.ndarray:
    table = np.zeros((len(FUNCTIONS), len(ARGUMENT_TYPES)), dtype=bool)
    for f in FUNCTIONS:
        table[f.id, [a.id for a in f.args]] = True
    table.setflags(write=False)
    return table


FUNCTION_ARGUMENTS = _argument_table()
"""(n_functions, 13) bool: which argument types each function takes (columns in `ARGUMENT_TYPES` order)."""

FUNCTION_TARGETS = np.array([-1 if f.target is None else int(f.target) for f in FUNCTIONS], np.int8)
FUNCTION_TARGETS.setflags(write=False)
"""(n_functions,) int8: each function's screen `TargetClass`, or -1 without a screen argument."""


class FunctionCall(NamedTuple):
    """A function id with its arguments: each a tuple of ints, (value,) or (x, y) for points.

    A named tuple, like PySC2's, so `function, arguments = call` works in code written for either.
    """

    function: int
    arguments: tuple[tuple[int, ...], ...] = ()

    @classmethod
    def build(cls, function: int | str | Function, arguments: Sequence[object] = ()) -> FunctionCall:
        """Check and normalise a call. Enum values may be given by name, points as any (x, y) pair.

        Also accepts PySC2's form, where every argument is a list: `[[0], [23, 38]]`.
        """
        func = lookup_function(function)
        arguments = one_per_argument(func, arguments)
        return cls(func.id, tuple(_normalise(func, t, v) for t, v in zip(func.args, arguments)))

    @property
    def name(self) -> str:
        return FUNCTIONS[self.function].name

    def __str__(self) -> str:
        if not 0 <= self.function < len(FUNCTIONS):  # made directly with a bad id: still printable
            return f"FunctionCall({self.function}, {self.arguments!r})"
        func = FUNCTIONS[self.function]
        shown = []
        for arg_type, value in zip(func.args, self.arguments):
            if arg_type.values is not None and 0 <= value[0] < len(arg_type.values):
                shown.append(arg_type.values(value[0]).name)
            else:
                shown.append(str(value if len(value) > 1 else value[0]))
        return f"{func.name}({', '.join(shown)})"


def one_per_argument(func: TableEntry, arguments: Sequence[object]) -> tuple[object, ...]:
    """`arguments` as a tuple, or MalformedActionError unless it is a sequence of one value per argument."""
    try:
        arguments = tuple(arguments)
    except TypeError:
        raise MalformedActionError(
            f"{func.name}: arguments must be a sequence (one per argument); got {arguments!r}"
        ) from None
    if len(arguments) != len(func.args):
        wanted = ", ".join(a.name for a in func.args) or "no arguments"
        raise MalformedActionError(
            f"{func.name} takes {len(func.args)} argument(s) ({wanted}); got {len(arguments)}: {arguments!r}"
        )
    return arguments


def lookup_in(functions: Functions, function, what: str, where: str):
    """The entry of a function table an id, a name or the entry itself stands for; MalformedActionError naming
    what exists if none (`what`: "function" or "raw function", `where`: the table's name)."""
    if (
        isinstance(function, TableEntry)
        and 0 <= function.id < len(functions)
        and functions[function.id].name == function.name
    ):
        return functions[function.id]  # this table's entry, also for a copy of it (pickled, deep-copied)
    if isinstance(function, str):
        if function not in functions:
            raise MalformedActionError(f"unknown {what} {function!r}; see sc2env.interface.{where}")
        return functions[function]
    if (
        isinstance(function, numbers.Integral)
        and not isinstance(function, (bool, np.bool_))
        and 0 <= int(function) < len(functions)
    ):  # a bool is no id, though Python counts True as 1
        return functions[int(function)]
    raise MalformedActionError(f"unknown {what} id {function!r}; ids run from 0 to {len(functions) - 1}")


def lookup_function(function: int | str | Function) -> Function:
    """The function an id, a name or a Function stands for; MalformedActionError naming what exists if none."""
    return lookup_in(FUNCTIONS, function, "function", "FUNCTIONS")


def floored_point(name: str, space: str, argument: str, value: object) -> tuple[int, int]:
    """An (x, y) pair of finite numbers, floored; MalformedActionError saying function `name` needs a point
    of `space` for `argument` if not."""
    try:
        if isinstance(value, (str, bytes)):
            raise TypeError  # "12" is no point, though it unpacks as two digits
        x, y = (float(v) for v in cast("Iterable[Any]", value))
        return int(np.floor(x)), int(np.floor(y))
    except (TypeError, ValueError, OverflowError):  # not two numbers, or NaN / infinite ones
        raise MalformedActionError(
            f"{name} needs a {space} point (x, y) of finite numbers for {argument}; got {value!r}"
        ) from None


def _normalise(func: Function, arg_type: ArgumentType, value: object) -> tuple[int, ...]:
    """One argument as a tuple of ints, with enum names resolved and points floored."""
    if arg_type.kind == "point":
        return floored_point(func.name, str(arg_type.space), arg_type.name, value)
    if isinstance(value, np.ndarray) and value.size == 1:  # 0-d too, as torch's argmax(...).numpy() gives
        value = value.reshape(()).item()
    elif isinstance(value, (list, tuple)) and len(value) == 1:
        value = value[0]
    if arg_type.values is not None and isinstance(value, str):
        try:
            return (int(arg_type.values[value]),)
        except KeyError:
            names = ", ".join(v.name for v in arg_type.values)
            raise MalformedActionError(
                f"{func.name}: {arg_type.name} must be one of {names}; got {value!r}"
            ) from None
    if isinstance(value, (bool, np.bool_)):
        value = int(value)
    if not isinstance(value, numbers.Integral):
        raise MalformedActionError(
            f"{func.name}: {arg_type.name} must be an int"
            f"{' or a name' if arg_type.values else ''}; got {value!r}"
        )
    value = int(value)
    if arg_type.size is not None and not 0 <= value < arg_type.size:
        if arg_type.values is not None:
            allowed = ", ".join(f"{v.value}={v.name}" for v in arg_type.values)
            raise MalformedActionError(f"{func.name}: {arg_type.name} must be one of {allowed}; got {value}")
        raise MalformedActionError(
            f"{func.name}: {arg_type.name} must be in 0..{arg_type.size - 1}; got {value}"
        )
    if value < 0:
        raise MalformedActionError(f"{func.name}: {arg_type.name} can't be negative; got {value}")
    return (value,)
