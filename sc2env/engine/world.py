"""Units on a continuous 2D map, their orders and movement: numpy columns, no protocol."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from sc2env.gamedata import UnitType

# Order kinds the movement model knows; everything else is an instant command.
MOVE, ATTACK, PATROL = 16, 23, 17
_MOVING_ORDERS = (MOVE, ATTACK, PATROL)
# A unit pushed aside this close to its goal counts as arrived (SC2 units stop when crowded at a point).
_CROWDED_ARRIVAL = 1.0

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
    ("speed", np.float64, ()),  # world units per loop
    ("collides", np.bool_, ()),
    ("build_progress", np.float64, ()),
    ("target", np.float64, (2,)),  # current movement goal, valid where `moving`
    ("moving", np.bool_, ()),
)


@dataclass
class Order:
    """One queued command: a specific ability id with a point or unit target (`origin` is a patrol's start)."""

    ability_id: int
    point: tuple[float, float] | None = None
    target_tag: int = 0
    origin: tuple[float, float] | None = None
    progress: float = 0.0


@dataclass(frozen=True)
class Bounds:
    """An axis-aligned rectangle (x0, y0)-(x1, y1) in world units."""

    x0: float
    y0: float
    x1: float
    y1: float

    def clamp(self, x: float, y: float, margin: float = 0.0) -> tuple[float, float]:
        return (min(max(x, self.x0 + margin), self.x1 - margin), min(max(y, self.y0 + margin), self.y1 - margin))


class World:
    """All units of one game as parallel numpy columns (one row per living unit) plus their order queues.

    Rows are compact: removing a unit shifts the rows after it, so `self.<column>` views always cover exactly
    the living units. Everything outside refers to units by tag. `version` changes whenever anything visible
    changes, so renderers can reuse their output for an unchanged world.
    """

    def __init__(self, pathable: Bounds):
        self.pathable = pathable
        self.n = 0
        self._store = {name: np.zeros((8,) + shape, dtype) for name, dtype, shape in _COLUMNS}
        self.orders: list[list[Order]] = []
        self.types: list[UnitType] = []
        self._slot: dict[int, int] = {}
        self._next_index = 1
        self.version = 0
        self._bind()

    # ---- rows ---------------------------------------------------------------------------------------
    def _bind(self) -> None:
        for name, _, _ in _COLUMNS:
            setattr(self, name, self._store[name][: self.n])
        self.version += 1

    def slot(self, tag: int) -> int:
        """Row of the unit `tag`; KeyError if it does not exist (any more)."""
        return self._slot[tag]

    def exists(self, tag: int) -> bool:
        return tag in self._slot

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
        s["tag"][i], s["type_id"][i], s["owner"][i] = tag, unit_type.unit_id, owner
        s["pos"][i] = (x, y)
        s["facing"][i], s["radius"][i] = facing, unit_type.radius
        s["health"][i] = s["health_max"][i] = unit_type.health
        s["shields"][i] = s["shields_max"][i] = unit_type.shields
        s["energy"][i], s["energy_max"][i] = 0.0, unit_type.energy
        s["speed"][i] = unit_type.speed_per_loop
        s["collides"][i] = unit_type.collides and unit_type.speed > 0
        s["build_progress"][i] = 1.0
        s["moving"][i] = False
        self.orders.append([])
        self.types.append(unit_type)
        self._slot[tag] = i
        self._bind()
        return tag

    def remove(self, tag: int) -> None:
        """Delete a unit; later rows shift up by one."""
        i = self._slot.pop(tag)
        for column in self._store.values():
            column[i : self.n - 1] = column[i + 1 : self.n]
        self.n -= 1
        del self.orders[i]
        del self.types[i]
        self._bind()
        for j in range(i, self.n):
            self._slot[int(self.tag[j])] = j

    def clear(self) -> None:
        for tag in list(self._slot):
            self.remove(tag)

    def teleport(self, tag: int, x: float, y: float) -> None:
        i = self._slot[tag]
        self.pos[i] = (x, y)
        self.version += 1

    def tags_where(self, mask: np.ndarray) -> list[int]:
        return self.tag[mask].tolist()

    # ---- orders -------------------------------------------------------------------------------------
    def issue(self, tag: int, order: Order, queued: bool) -> None:
        """Give an order: replace the queue, or append to it with `queued` (shift)."""
        i = self._slot[tag]
        if order.point is not None:
            order.point = self.pathable.clamp(*order.point, margin=self.radius[i])
        if order.ability_id == PATROL and order.origin is None:
            order.origin = (float(self.pos[i, 0]), float(self.pos[i, 1]))
        if queued and self.orders[i]:
            self.orders[i].append(order)
        else:
            self.orders[i] = [order]
            self._start_order(i)
        self.version += 1

    def stop(self, tag: int) -> None:
        i = self._slot[tag]
        self.orders[i] = []
        self.moving[i] = False
        self.version += 1

    def _start_order(self, i: int) -> None:
        """Point the movement goal of row `i` at its first order, or make it idle."""
        while self.orders[i]:
            order = self.orders[i][0]
            if order.ability_id in _MOVING_ORDERS and self.speed[i] > 0:
                goal = self._goal(order)
                if goal is not None:
                    self.target[i] = goal
                    self.moving[i] = True
                    return
            self.orders[i].pop(0)
        self.moving[i] = False

    def _goal(self, order: Order) -> tuple[float, float] | None:
        if order.target_tag:
            j = self._slot.get(order.target_tag)
            return None if j is None else (float(self.pos[j, 0]), float(self.pos[j, 1]))
        return order.point

    # ---- movement -----------------------------------------------------------------------------------
    def free_loops(self, limit: int) -> int:
        """How many loops (1..limit) the world can advance as straight-line motion without interactions.

        A batch ends at the first arrival (the next order may turn the unit) and before two colliding units
        could touch; following a moving unit or crowding forces single loops.
        """
        if not self.n or not self.moving.any():
            return limit
        moving = self.moving
        i = np.flatnonzero(moving)
        dist = np.hypot(*(self.target[i] - self.pos[i]).T)
        arrival = np.ceil(dist / self.speed[i]).min()
        k = int(min(limit, max(arrival, 1)))
        if any(self.orders[j][0].target_tag for j in i.tolist()):
            return 1
        c = np.flatnonzero(self.collides)
        if len(c) > 1 and k > 1:
            p, r, v = self.pos[c], self.radius[c], self.speed[c] * moving[c]
            d = np.hypot(p[:, None, 0] - p[None, :, 0], p[:, None, 1] - p[None, :, 1])
            gap = d - r[:, None] - r[None, :]
            closing = v[:, None] + v[None, :]
            np.fill_diagonal(closing, 0.0)
            with np.errstate(divide="ignore", invalid="ignore"):
                safe = np.where(closing > 0, np.floor(gap / closing), np.inf)
            k = int(max(1, min(k, safe.min())))
        return k

    def trajectory(self, k: int) -> np.ndarray | None:
        """Positions after each of the next k loops, shape (k, n, 2); None if nothing moves."""
        if not self.n or not self.moving.any():
            return None
        delta = self.target - self.pos
        dist = np.hypot(delta[:, 0], delta[:, 1])
        travel = np.minimum(np.arange(1, k + 1)[:, None] * (self.speed * self.moving), dist)
        with np.errstate(divide="ignore", invalid="ignore"):
            unit = np.where(dist[:, None] > 0, delta / dist[:, None], 0.0)
        return self.pos + travel[:, :, None] * unit

    def advance(self, trajectory: np.ndarray | None, t: int) -> None:
        """Commit the first t loops of `trajectory`: positions, facing, arrivals, then separation."""
        if trajectory is None:
            return
        old = self.pos.copy()
        new = trajectory[t - 1]
        moved = self.moving.copy()
        step = new - old
        facing = np.arctan2(step[:, 1], step[:, 0]) % (2 * math.pi)
        self.facing[moved] = facing[moved]
        self.pos[:] = new
        self.settle()
        self._arrivals(old, moved, t)
        self.version += 1

    def _arrivals(self, old: np.ndarray, moved: np.ndarray, t: int) -> None:
        dist = np.hypot(*(self.target - self.pos).T)
        progress = np.hypot(*(self.pos - old).T)
        done = moved & ((dist <= 1e-9) | ((dist < _CROWDED_ARRIVAL) & (progress < 0.5 * self.speed * t)))
        for i in np.flatnonzero(done).tolist():
            order = self.orders[i][0]
            if order.ability_id == PATROL and order.point is not None and order.origin is not None:
                order.point, order.origin = order.origin, order.point
            else:
                self.orders[i].pop(0)
            self._start_order(i)
        for i in np.flatnonzero(moved & ~done).tolist():
            if self.orders[i] and self.orders[i][0].target_tag:
                goal = self._goal(self.orders[i][0])
                if goal is None:
                    self.orders[i].pop(0)
                    self._start_order(i)
                else:
                    self.target[i] = goal

    def settle(self) -> None:
        """Push overlapping colliding units apart (soft collision), then keep them inside the pathable area."""
        c = np.flatnonzero(self.collides)
        if len(c) < 2:
            return
        p, r = self.pos[c], self.radius[c]
        dx = p[:, None, 0] - p[None, :, 0]
        dy = p[:, None, 1] - p[None, :, 1]
        d = np.hypot(dx, dy)
        overlap = r[:, None] + r[None, :] - d
        np.fill_diagonal(overlap, 0.0)
        if not (overlap > 1e-9).any():
            return
        overlap = np.clip(overlap, 0.0, None) * 0.5
        with np.errstate(divide="ignore", invalid="ignore"):
            ux = np.where(d > 1e-9, dx / d, 1.0)
            uy = np.where(d > 1e-9, dy / d, 0.0)
        push = np.stack([(overlap * ux).sum(1), (overlap * uy).sum(1)], axis=1)
        p = p + push
        b = self.pathable
        p[:, 0] = np.clip(p[:, 0], b.x0 + r, b.x1 - r)
        p[:, 1] = np.clip(p[:, 1], b.y0 + r, b.y1 - r)
        self.pos[c] = p
