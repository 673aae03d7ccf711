"""The state of a world's units: numpy columns declared once (name, dtype, per-unit shape), rows kept compact."""

from __future__ import annotations

import typing
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import numpy as np
import numpy.typing as npt

from sc2env.gamedata import UnitType

if TYPE_CHECKING:
    from sc2env.engine.orders import Order
    from sc2env.engine.walls import Walls
    from sc2env.engine.world import Bounds

_T = TypeVar("_T")


@dataclass(frozen=True)
class Column:
    """How one column is stored: its dtype and the shape of one unit's entry (() for a number)."""

    dtype: type[np.generic]
    shape: tuple[int, ...] = ()


# The column types: each says to a reader and to mypy what the column holds, and carries how it is stored.
Int8s = Annotated[npt.NDArray[np.int8], Column(np.int8)]
Int32s = Annotated[npt.NDArray[np.int32], Column(np.int32)]
Tags = Annotated[npt.NDArray[np.int64], Column(np.int64)]
"""Unit tags (0 for none), or other 64-bit integers."""
Floats = Annotated[npt.NDArray[np.float64], Column(np.float64)]
Flags = Annotated[npt.NDArray[np.bool_], Column(np.bool_)]
Points = Annotated[npt.NDArray[np.float64], Column(np.float64, (2,))]
"""An (x, y) pair per unit: shape (n, 2)."""


class UnitColumns:
    """The per-unit columns of a world, one declaration each; every one is an array with a row per living unit.

    This class body is the table: the store that holds the columns, grows them and shifts their rows is
    derived from it (`COLUMNS`), so a new column is one line here.
    """

    tag: Tags
    type_id: Int32s
    owner: Int32s
    pos: Points
    facing: Floats
    radius: Floats
    health: Floats
    health_max: Floats
    shields: Floats
    shields_max: Floats
    energy: Floats
    energy_max: Floats
    energy_regen: Floats  # per loop
    regen: Floats  # hit points per loop
    shield_regen: Floats  # shield points per loop, from game loop `shields_from` on
    shields_from: Floats  # the loop shields start regenerating (each damage puts it off)
    speed: Floats  # top speed, world units per loop
    accel: Floats  # per loop squared; inf = instant
    velocity: Floats  # current speed (units that accelerate)
    collides: Flags  # a mobile unit that pushes and is pushed
    grounded: Flags  # kept off a map's unpathable cells (not air units, not cliff walkers)
    obstacle: Flags  # a structure or resource: its footprint box blocks movement
    half: Points  # half width and height of an obstacle's footprint box
    ghost: Flags  # passes through other units (harvesting workers)
    hidden: Flags  # inside a structure: not drawn, not targetable, no collision
    build_progress: Floats
    # movement: the leg's goal (a point, or the unit `goal_tag` to come within `reach` of), the steering
    # waypoint `target` on the way, and `leg`, the distance left to travel before the leg ends.
    goal: Points
    goal_tag: Tags
    reach: Floats
    target: Points
    steered: Points  # the goal `target` was steered for
    steer_stamp: Tags  # obstacle layout it was steered in (WorldState.obstacle_version)
    leg: Floats
    boost: Floats  # distance owed from loops a ghost stood still before its event was handled
    moving: Flags
    # behaviour state, owned by combat / economy / building
    mode: Int8s  # what the current order lets the weapon do (unit_states.CombatMode)
    holding: Flags
    cooldown: Floats
    engaged: Tags  # the unit its weapon is on
    firing: Flags  # has fired at `engaged` (keeps it up to the range slop)
    leash: Points
    timer: Floats
    phase: Int8s  # a worker's step in its harvest, repair or construction (unit_states.Phase)
    cargo: Int32s
    cargo_kind: Int8s  # unit_states.Cargo
    harvest_tag: Tags
    contents: Int32s
    occupant: Tags
    link: Tags  # builder <-> structure under construction, refinery -> geyser


def columns_of(declarations: type) -> tuple[tuple[str, Column], ...]:
    """(name, Column) of every annotated attribute of `declarations`, in declaration order."""
    out = []
    for name, hint in typing.get_type_hints(declarations, include_extras=True).items():
        stored = [meta for meta in getattr(hint, "__metadata__", ()) if isinstance(meta, Column)]
        if len(stored) != 1:
            raise TypeError(
                f"{declarations.__name__}.{name}: declare it with a column type (Floats, Points, ...)"
            )
        out.append((name, stored[0]))
    return tuple(out)


COLUMNS = columns_of(UnitColumns)
"""(name, Column) of each per-unit column, in declaration order."""

_GROUPS: tuple[Column, ...] = tuple(dict.fromkeys(column for _, column in COLUMNS))
"""The distinct ways columns are stored: the columns of one are kept as the rows of one block, so that adding,
removing or shifting a unit's row is one numpy call per block, not one per column."""
_PLACES = tuple(
    (name, _GROUPS.index(column), [c for _, c in COLUMNS[:k]].count(column))
    for k, (name, column) in enumerate(COLUMNS)
)
"""Each column's (name, block, row of the block)."""


_BLOCK_SIZES = tuple(sum(1 for _, column in COLUMNS if column == group) for group in _GROUPS)
"""How many columns each block holds."""


def _blocks(capacity: int) -> list[np.ndarray]:
    """Zeroed blocks for `capacity` units: per group, (its columns, capacity, *the entry's shape)."""
    return [
        np.zeros((size, capacity, *group.shape), group.dtype) for size, group in zip(_BLOCK_SIZES, _GROUPS)
    ]


class WorldState(UnitColumns):
    """All units of one game as parallel numpy columns (one row per living unit) plus their order queues.

    Rows are compact and in creation order: removing a unit shifts the rows after it, so `self.<column>`
    views always cover exactly the living units and `tag` stays sorted (`rows()` looks tags up in bulk).
    Everything outside refers to units by tag. `version` changes whenever anything visible changes, so
    renderers can reuse their output for an unchanged world.
    """

    def __init__(self, pathable: Bounds, type_report: np.ndarray | None = None, walls: Walls | None = None):
        self.pathable = pathable
        self.walls = walls  # the map's unpathable cells inside `pathable`, if it has any
        # By engine type id: the id the game reports (a map's own types are numbered per map, see map_types).
        self.type_report = type_report
        self.low_corner = np.array([pathable.x0, pathable.y0])
        self.high_corner = np.array([pathable.x1, pathable.y1])
        self.n = 0
        self._blocks = _blocks(8)
        self._columns = self._full_columns()
        self.orders: list[list[Order]] = []
        self.types: list[UnitType] = []
        self._slot: dict[int, int] = {}
        self._next_index = 1  # of the next tag
        self.version = 0
        self.obstacle_version = 0  # changes when an obstacle appears, goes or changes (steering is redone)
        self.obstacle_count = 0  # how many obstacles exist (no obstacles: no steering, no waypoints)
        self.accelerating_count = 0  # how many units accelerate
        self.static_version = 0  # changes when a unit that never moves appears, goes or is teleported
        # Changes when rows come or go, a unit changes type, or a structure starts or finishes construction
        # (for caches of per-row facts).
        self.rows_version = 0
        self._per_rows: dict[Hashable, Any] = {}  # values of any type: per_rows types each by its `build`
        self._per_rows_version = -1
        self._bind()

    # ---- rows ---------------------------------------------------------------------------------------
    def _full_columns(self) -> list[tuple[str, np.ndarray]]:
        """Each column's name and its whole store (every row the blocks have room for)."""
        return [(name, self._blocks[b][k]) for name, b, k in _PLACES]

    def _bind(self) -> None:
        """Point each column attribute at the living rows of its store."""
        n = self.n
        attributes = self.__dict__  # (plain instance attributes: a dict store skips setattr's lookups)
        for name, column in self._columns:
            attributes[name] = column[:n]
        self.version += 1

    def _add_row(self, tag: int, unit_type: UnitType) -> int:
        """Append a row for a new unit (all columns 0 but `tag`, no orders), growing the store when it is
        full; returns its index."""
        blocks = self._blocks
        if self.n == blocks[0].shape[1]:
            grown = _blocks(2 * self.n)
            for new, old in zip(grown, blocks):
                new[:, : self.n] = old[:, : self.n]
            self._blocks = blocks = grown
            self._columns = self._full_columns()
        i = self.n
        self.n += 1
        for block in blocks:
            block[:, i] = 0
        self.orders.append([])
        self.types.append(unit_type)
        self._slot[tag] = i
        self.rows_version += 1
        self._bind()
        self.tag[i] = tag
        return i

    def _delete_row(self, tag: int) -> None:
        """Remove the row of `tag`; the rows after it shift up by one."""
        i = self._slot.pop(tag)
        n = self.n
        for block in self._blocks:
            block[:, i : n - 1] = block[:, i + 1 : n]
        self.n -= 1
        del self.orders[i]
        del self.types[i]
        self.rows_version += 1
        self._bind()
        slot = self._slot
        for j, tag in enumerate(self.tag[i:].tolist(), i):  # the rows after it, one up
            slot[tag] = j

    def slot(self, tag: int) -> int:
        """Row of the unit `tag`; KeyError if it does not exist (any more)."""
        return self._slot[tag]

    def slots(self, tags: Iterable[int]) -> list[int]:
        """Rows of those of `tags` that exist, in order."""
        slot = self._slot
        return [slot[t] for t in tags if t in slot]

    def exists(self, tag: int) -> bool:
        return tag in self._slot

    def rows(self, tags: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(rows, found) for an array of tags: row indices (valid where `found`)."""
        idx = self.tag.searchsorted(tags)  # (np.searchsorted is this method behind a Python wrapper)
        idx = np.minimum(idx, max(self.n - 1, 0))
        found = (self.tag[idx] == tags) & (tags != 0) if self.n else np.zeros(len(tags), bool)
        return idx, found

    def tags_where(self, mask: np.ndarray) -> list[int]:
        return self.tag[mask].tolist()

    @property
    def steers(self) -> bool:
        """Whether units may need to walk round something: an obstacle box or a wall of unpathable cells."""
        return self.obstacle_count > 0 or self.walls is not None

    def per_rows(self, key: Hashable, build: Callable[[], _T]) -> _T:
        """A value that depends only on the rows' types, owners and spawn-time stats (what `build` returns),
        kept until rows come or go or a unit changes type."""
        if self._per_rows_version != self.rows_version:
            self._per_rows.clear()
            self._per_rows_version = self.rows_version
        value = self._per_rows.get(key)
        if value is None:
            if len(self._per_rows) > 256:  # keys with views: a camera that keeps moving adds new ones
                self._per_rows.clear()
            value = self._per_rows[key] = build()
        return value
