"""Units on a continuous 2D map as numpy columns, and how they move: goals, steering, collision, placement."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from sc2env.engine import paths
from sc2env.engine.movement import Motion
from sc2env.gamedata import UnitType

_COLUMNS = (  # name, dtype, per-unit shape
    ("tag", np.int64, ()),
    ("type_id", np.int32, ()),
    ("owner", np.int32, ()),
    ("pos", np.float64, (2,)),
    ("facing", np.float64, ()),
    ("radius", np.float64, ()),
    ("health", np.float64, ()),
    ("health_max", np.float64, ()),
    ("shields", np.float64, ()),
    ("shields_max", np.float64, ()),
    ("energy", np.float64, ()),
    ("energy_max", np.float64, ()),
    ("regen", np.float64, ()),  # hit points per loop
    ("speed", np.float64, ()),  # top speed, world units per loop
    ("accel", np.float64, ()),  # per loop squared; inf = instant
    ("velocity", np.float64, ()),  # current speed (units that accelerate)
    ("collides", np.bool_, ()),  # a mobile unit that pushes and is pushed
    ("obstacle", np.bool_, ()),  # a structure or resource: its footprint box blocks movement
    ("half", np.float64, (2,)),  # half width and height of an obstacle's footprint box
    ("ghost", np.bool_, ()),  # passes through other units (harvesting workers)
    ("hidden", np.bool_, ()),  # inside a structure: not drawn, not targetable, no collision
    ("build_progress", np.float64, ()),
    # movement: the leg's goal (a point, or the unit `goal_tag` to come within `reach` of), the steering
    # waypoint `target` on the way, and `leg`, the distance left to travel before the leg ends.
    ("goal", np.float64, (2,)),
    ("goal_tag", np.int64, ()),
    ("reach", np.float64, ()),
    ("target", np.float64, (2,)),
    ("steered", np.float64, (2,)),  # the goal `target` was steered for
    ("steer_stamp", np.int64, ()),  # obstacle layout it was steered in
    ("leg", np.float64, ()),
    ("boost", np.float64, ()),  # distance owed from loops a ghost stood still before its event was handled
    ("moving", np.bool_, ()),
    # behaviour state, owned by combat / economy / building
    ("mode", np.int8, ()),
    ("holding", np.bool_, ()),
    ("cooldown", np.float64, ()),
    ("engaged", np.int64, ()),
    ("firing", np.bool_, ()),  # has fired at `engaged` (keeps it up to the range slop)
    ("leash", np.float64, (2,)),
    ("timer", np.float64, ()),
    ("phase", np.int8, ()),
    ("cargo", np.int32, ()),
    ("cargo_kind", np.int8, ()),
    ("harvest_tag", np.int64, ()),
    ("contents", np.int32, ()),
    ("occupant", np.int64, ()),
    ("link", np.int64, ()),  # builder <-> structure under construction, refinery -> geyser
)


@dataclass(frozen=True)
class Bounds:
    """An axis-aligned rectangle (x0, y0)-(x1, y1) in world units."""

    x0: float
    y0: float
    x1: float
    y1: float

    def clamp(self, x: float, y: float, margin: float | np.ndarray = 0.0) -> tuple:
        """(x, y) moved inside the bounds shrunk by `margin`; an array of margins gives arrays (one point per
        margin), a number gives numbers."""
        if isinstance(margin, np.ndarray):
            return (
                np.minimum(np.maximum(x, self.x0 + margin), self.x1 - margin),
                np.minimum(np.maximum(y, self.y0 + margin), self.y1 - margin),
            )
        return (
            min(max(x, self.x0 + margin), self.x1 - margin),
            min(max(y, self.y0 + margin), self.y1 - margin),
        )


class World(Motion):
    """All units of one game as parallel numpy columns (one row per living unit) plus their order queues.

    Rows are compact and in creation order: removing a unit shifts the rows after it, so `self.<column>`
    views always cover exactly the living units and `tag` stays sorted (`rows()` looks tags up in bulk).
    Everything outside refers to units by tag. `version` changes whenever anything visible changes, so
    renderers can reuse their output for an unchanged world.
    """

    def __init__(self, pathable: Bounds):
        self.pathable = pathable
        self._low = np.array([pathable.x0, pathable.y0])
        self._high = np.array([pathable.x1, pathable.y1])
        self.n = 0
        self._store = {name: np.zeros((8,) + shape, dtype) for name, dtype, shape in _COLUMNS}
        self.orders: list[list] = []
        self.types: list[UnitType] = []
        self._slot: dict[int, int] = {}
        self._next_index = 1
        self.version = 0
        self._obstacle_version = 0
        self._obstacles = 0  # how many obstacles exist (no obstacles: no steering, no waypoints)
        self._accelerating = 0  # how many units accelerate
        self.static_version = 0  # changes when a unit that never moves appears, goes or is teleported
        # Changes when rows come or go, a unit changes type, or a structure starts or finishes construction
        # (for caches of per-row facts).
        self.rows_version = 0
        self._per_rows: dict[str, object] = {}
        self._per_rows_version = -1
        self._bind()

    # ---- rows ---------------------------------------------------------------------------------------
    def _bind(self) -> None:
        for name, _, _ in _COLUMNS:
            setattr(self, name, self._store[name][: self.n])
        self.version += 1

    def slot(self, tag: int) -> int:
        """Row of the unit `tag`; KeyError if it does not exist (any more)."""
        return self._slot[tag]

    def per_rows(self, name: str, build: Callable[[], object]):
        """A value that depends only on the rows' types, owners and spawn-time stats (what `build` returns),
        kept until rows come or go or a unit changes type."""
        if self._per_rows_version != self.rows_version:
            self._per_rows.clear()
            self._per_rows_version = self.rows_version
        value = self._per_rows.get(name)
        if value is None:
            if len(self._per_rows) > 256:  # keys with views: a camera that keeps moving adds new ones
                self._per_rows.clear()
            value = self._per_rows[name] = build()
        return value

    def slots(self, tags) -> list[int]:
        """Rows of those of `tags` that exist, in order."""
        slot = self._slot
        return [slot[t] for t in tags if t in slot]

    def exists(self, tag: int) -> bool:
        return tag in self._slot

    def rows(self, tags: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(rows, found) for an array of tags: row indices (valid where `found`)."""
        idx = np.searchsorted(self.tag, tags)
        idx = np.minimum(idx, max(self.n - 1, 0))
        found = (self.tag[idx] == tags) & (tags != 0) if self.n else np.zeros(len(tags), bool)
        return idx, found

    def spawn(self, unit_type: UnitType, owner: int, x: float, y: float, facing: float = 0.0) -> int:
        """Create a unit with full vitals at (x, y); returns its tag (SC2-style: index << 18 | recycle)."""
        if self.n == len(self._store["tag"]):
            for name in self._store:
                column = self._store[name]
                grown = np.zeros((2 * len(column),) + column.shape[1:], column.dtype)
                grown[: self.n] = column[: self.n]
                self._store[name] = grown
        tag = (self._next_index << 18) | 1
        self._next_index += 1
        i = self.n
        self.n += 1
        s = self._store
        for name, _, _ in _COLUMNS:
            s[name][i] = 0
        s["tag"][i], s["type_id"][i], s["owner"][i] = tag, unit_type.unit_id, owner
        s["pos"][i] = (x, y)
        s["facing"][i], s["radius"][i] = facing, unit_type.radius
        s["health"][i] = s["health_max"][i] = unit_type.health
        s["shields"][i] = s["shields_max"][i] = unit_type.shields
        s["energy_max"][i] = unit_type.energy
        s["regen"][i] = unit_type.life_regen / 16.0
        s["speed"][i] = unit_type.speed_per_loop
        s["accel"][i] = unit_type.acceleration / 256.0 if unit_type.acceleration else np.inf
        mobile = unit_type.speed > 0
        s["collides"][i] = unit_type.collides and mobile
        s["obstacle"][i] = unit_type.collides and unit_type.structure
        s["half"][i] = (
            np.asarray(unit_type.footprint, float) / 2 if unit_type.footprint[0] else unit_type.radius
        )
        s["build_progress"][i] = 1.0
        s["steer_stamp"][i] = -1
        self._obstacle_version += bool(s["obstacle"][i])
        self._obstacles += bool(s["obstacle"][i])
        self._accelerating += bool(np.isfinite(s["accel"][i]))
        self.static_version += not mobile
        s["contents"][i] = unit_type.mineral_contents or unit_type.vespene_contents
        self.orders.append([])
        self.types.append(unit_type)
        self._slot[tag] = i
        self.rows_version += 1
        self._bind()
        return tag

    def remove(self, tag: int) -> None:
        """Delete a unit; later rows shift up by one."""
        i = self._slot.pop(tag)
        self._obstacle_version += bool(self.obstacle[i])
        self._obstacles -= bool(self.obstacle[i])
        self._accelerating -= bool(np.isfinite(self.accel[i]))
        self.static_version += bool(self.speed[i] <= 0)
        for column in self._store.values():
            column[i : self.n - 1] = column[i + 1 : self.n]
        self.n -= 1
        del self.orders[i]
        del self.types[i]
        self.rows_version += 1
        self._bind()
        for j in range(i, self.n):
            self._slot[int(self.tag[j])] = j

    def set_type(self, tag: int, unit_type: UnitType) -> None:
        """Morph a unit into another type (a lowered depot), keeping its tag, vitals and position."""
        i = self._slot[tag]
        self.types[i] = unit_type
        self.type_id[i] = unit_type.unit_id
        self._obstacles -= bool(self.obstacle[i])
        self.obstacle[i] = unit_type.collides and unit_type.structure
        self._obstacles += bool(self.obstacle[i])
        self._obstacle_version += 1
        self.rows_version += 1
        self.version += 1

    def teleport(self, tag: int, x: float, y: float) -> None:
        i = self._slot[tag]
        self.pos[i] = (x, y)
        self.static_version += bool(self.speed[i] <= 0)
        self.version += 1

    def tags_where(self, mask: np.ndarray) -> list[int]:
        return self.tag[mask].tolist()

    # ---- goals --------------------------------------------------------------------------------------
    def move_to(self, i: int | np.ndarray, point=None, tag: int = 0, reach: float = 0.0) -> tuple | None:
        """Start a movement leg of row i: to a point (until within `reach` of it, centre to centre) or to
        the unit `tag` (until within `reach` of it, edge to edge). `i` may be an array of mobile rows.
        Returns the goal point, clamped to where the unit fits (x and y arrays for rows), if one was given."""
        many = isinstance(i, np.ndarray)
        if not many and self.speed[i] <= 0:
            return
        if point is not None:
            goal = self.pathable.clamp(*point, margin=self.radius[i])
            if many:
                self.goal[i, 0], self.goal[i, 1] = goal
            else:
                self.goal[i] = goal
        self.goal_tag[i] = tag
        self.reach[i] = reach
        self.moving[i] = True
        self.steer_stamp[i] = -1
        self.version += 1
        return goal if point is not None else None

    def halt(self, i: int) -> None:
        self.moving[i] = False
        self.goal_tag[i] = 0
        self.velocity[i] = 0.0

    def free_spot(self, x: float, y: float, radius: float) -> tuple[float, float]:
        """The nearest point to (x, y) where a ground unit of `radius` fits (see `paths.free_spot`)."""
        return paths.free_spot(self, x, y, radius)
