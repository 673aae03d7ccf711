"""Units on a continuous 2D map as numpy columns, and how they move: goals, steering, collision, placement."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from sc2env.engine import paths
from sc2env.gamedata import UnitType

# A unit pushed aside this close to its goal counts as arrived (SC2 units stop when crowded at a point).
_CROWDED_ARRIVAL = 1.0
# Longest batch while colliding units may touch (they are pushed apart at the end of each batch).
CONTACT_BATCH = 8
# Longest batch while some unit walks round an obstacle (it may stand at a corner until the batch ends).
WAYPOINT_BATCH = 8
_EPS = 1e-6
# Hot paths test small boolean arrays with np.count_nonzero: on arrays of a few dozen units it costs a
# fraction of ndarray.any(), and batches run many such tests.

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

    def clamp(self, x: float, y: float, margin: float = 0.0) -> tuple[float, float]:
        return (min(max(x, self.x0 + margin), self.x1 - margin), min(max(y, self.y0 + margin), self.y1 - margin))


class World:
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
        self.rows_version = 0  # changes when rows come or go or a unit changes type (per-row caches)
        self._last_travel = np.zeros((0, 0))
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
        s["half"][i] = np.asarray(unit_type.footprint, float) / 2 if unit_type.footprint[0] else unit_type.radius
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
    def move_to(self, i: int, point=None, tag: int = 0, reach: float = 0.0) -> None:
        """Start a movement leg of row i: to a point (until within `reach` of it, centre to centre) or to
        the unit `tag` (until within `reach` of it, edge to edge)."""
        if self.speed[i] <= 0:
            return
        if point is not None:
            self.goal[i] = self.pathable.clamp(*point, margin=self.radius[i])
        self.goal_tag[i] = tag
        self.reach[i] = reach
        self.moving[i] = True
        self.steer_stamp[i] = -1
        self.version += 1

    def halt(self, i: int) -> None:
        self.moving[i] = False
        self.goal_tag[i] = 0
        self.velocity[i] = 0.0

    # ---- movement -----------------------------------------------------------------------------------
    def prepare(self) -> bool:
        """Aim every moving unit for the coming batch: follow unit goals, steer around obstacles, and set
        `leg`. Returns whether some unit follows a moving unit (re-aim it again soon)."""
        moving = self.moving.nonzero()[0]
        if not len(moving):
            return False
        goal_tags = self.goal_tag[moving]
        chasing_mover = False
        rows = found = None
        if np.count_nonzero(goal_tags):
            rows, found = self.rows(goal_tags)
            found &= goal_tags != 0
            lost = (goal_tags != 0) & ~found
            if np.count_nonzero(lost):  # the goal unit is gone: the leg ends here
                self.moving[moving[lost]] = False
                self.goal_tag[moving[lost]] = 0
            self.goal[moving[found]] = self.pos[rows[found]]
            chasing_mover = bool(np.count_nonzero(self.moving[rows[found]]))
            if np.count_nonzero(lost):
                keep = ~lost
                moving, rows, found = moving[keep], rows[keep], found[keep]
                if not len(moving):
                    return chasing_mover
        if self._obstacles:
            # Steering is kept while the goal and the obstacles stay the same and the waypoint is not reached.
            target = self.target[moving]
            goal = self.goal[moving]
            stale = ((goal != self.steered[moving]).any(axis=1) | (self.steer_stamp[moving] != self._obstacle_version)
                     | ((np.abs(target - self.pos[moving]).sum(axis=1) < 1e-9) & (target != goal).any(axis=1)))
            if np.count_nonzero(stale):
                again = moving[stale]
                self.target[again] = self.steered[again] = self.goal[again]
                self.steer_stamp[again] = self._obstacle_version
                paths.steer(self, again)
        else:
            self.target[moving] = self.goal[moving]
        self._legs(moving, rows, found)
        return chasing_mover

    def _legs(self, m: np.ndarray, rows=None, found=None) -> None:
        """Set `leg` of rows m: the distance to their waypoint, or to where they come within reach of their
        goal (rows/found: the goal units' rows, if known)."""
        p, target = self.pos[m], self.target[m]
        delta = target - p
        to_target = np.sqrt((delta * delta).sum(axis=1))
        leg = np.maximum(to_target - self.reach[m], 0.0)
        if rows is None:
            rows, found = self.rows(self.goal_tag[m])
            found &= self.goal_tag[m] != 0
        if np.count_nonzero(found):
            waypoint = (target != self.goal[m]).any(axis=1)
            follows = (found & ~waypoint).nonzero()[0]
            leg[waypoint] = to_target[waypoint]
            if len(follows):
                goal_rows = rows[follows]
                r = self.radius[m[follows]] + self.reach[m[follows]]
                d = to_target[follows]
                circle_leg = d - r - self.radius[goal_rows]
                boxes = self.obstacle[goal_rows]
                if np.count_nonzero(boxes):
                    # Along the line towards a box's centre, the distance to where the box (grown by r) begins.
                    half = self.half[goal_rows] + r[:, None]
                    direction = np.abs(delta[follows]) / np.maximum(d, _EPS)[:, None]
                    with np.errstate(divide="ignore", invalid="ignore"):
                        t = np.where(direction > _EPS, (np.abs(delta[follows]) - half) / direction, -np.inf)
                    circle_leg = np.where(boxes, t.max(axis=1), circle_leg)
                leg[follows] = np.maximum(circle_leg, 0.0)
        elif self._obstacles:
            waypoint = (target != self.goal[m]).any(axis=1)
            leg[waypoint] = to_target[waypoint]
        self.leg[m] = leg

    def free_loops(self, limit: int) -> int:
        """How many loops (1..limit) the world can advance as straight-line motion: until the first leg of a
        non-ghost unit ends, and before two colliding units could touch (at most CONTACT_BATCH loops while
        some may). Ghosts (harvesting workers) don't cut batches: they owe the loops they stood still."""
        if not self.n or not np.count_nonzero(self.moving):
            return limit
        # Chasers (units with a weapon target) stop in range by themselves; combat re-plans every tick.
        # Waypoints don't cut batches either: a unit reaching one early owes the loops it stood still.
        going = self.moving & ~self.ghost & (self.engaged == 0)
        k = limit
        if self._obstacles:
            waypoint = (self.target != self.goal).any(axis=1)
            going &= ~waypoint
            if np.count_nonzero(waypoint & self.moving):
                k = min(limit, WAYPOINT_BATCH)
        i = going.nonzero()[0]
        if len(i):
            k = int(min(limit, max(self._loops_to_travel(i).min(), 1)))
        if k <= CONTACT_BATCH:
            return k  # contact can't shorten the batch further
        c = (self.collides & ~self.ghost & ~self.hidden).nonzero()[0]
        if len(c) > 1 and np.count_nonzero(self.moving[c]):
            p, r, v = self.pos[c], self.radius[c], self.speed[c] * self.moving[c]
            d = np.hypot(p[:, None, 0] - p[None, :, 0], p[:, None, 1] - p[None, :, 1])
            gap = d - r[:, None] - r[None, :]
            closing = v[:, None] + v[None, :]
            np.fill_diagonal(closing, 0.0)
            with np.errstate(divide="ignore", invalid="ignore"):
                safe = np.where(closing > 0, np.floor(gap / closing), np.inf)
            # Units about to touch are pushed apart at the batch's end; short batches keep pushes small.
            if safe.min() < k:
                k = min(k, max(int(safe.min()), CONTACT_BATCH))
        return k

    def _loops_to_travel(self, i: np.ndarray) -> np.ndarray:
        """Loops rows i need to cover their legs, accelerating from their current speed."""
        leg, top = self.leg[i], self.speed[i]
        loops = np.ceil(leg / top)
        accel = self.accel[i]
        slow = np.isfinite(accel) & (self.velocity[i] < top)
        if np.count_nonzero(slow):
            v0, a, L, vmax = self.velocity[i][slow], accel[slow], leg[slow], top[slow]
            ramp = np.ceil((vmax - v0) / a)  # loops until top speed
            ramp_distance = v0 * ramp + a * ramp * (ramp + 1) / 2
            b = v0 + a / 2  # distance after t loops while accelerating: b t + a t^2 / 2
            within = np.ceil((-b + np.sqrt(b * b + 2 * a * L)) / a)
            after = ramp + np.ceil((L - ramp_distance) / vmax)
            loops[slow] = np.where(L <= ramp_distance, within, after)
        return loops

    def trajectory(self, k: int) -> np.ndarray | None:
        """Positions after each of the next k loops, shape (k, n, 2); None if nothing moves."""
        if not self.n or not np.count_nonzero(self.moving):
            return None
        travel = self._travel(k)
        self._last_travel = travel
        delta = self.target - self.pos
        dist = np.hypot(delta[:, 0], delta[:, 1])
        with np.errstate(divide="ignore", invalid="ignore"):
            unit = np.where(dist[:, None] > 0, delta / dist[:, None], 0.0)
        return self.pos + travel[:, :, None] * unit

    def _travel(self, k: int) -> np.ndarray:
        """Distance covered after each of the next k loops, shape (k, n): accelerating, capped at the leg."""
        steps = np.arange(1, k + 1)[:, None]
        if self._accelerating:
            travel = np.cumsum(np.minimum(self.velocity + self.accel * steps, self.speed), axis=0)
        else:
            travel = steps * self.speed
        return np.minimum((travel + self.boost) * self.moving, self.leg)

    def advance(self, trajectory: np.ndarray | None, t: int) -> tuple[list[int], list[int]]:
        """Commit the first t loops of `trajectory`: positions, facing, separation.

        Returns (tags, late): the units whose leg ended (at the goal, or crowded out of reaching it) and
        stopped, with how many loops before the batch's end that happened (only ghosts arrive early)."""
        if trajectory is None:
            return [], []
        m = self.moving.nonzero()[0]
        old = self.pos[m]
        step = trajectory[t - 1, m] - old
        expected = np.sqrt((step * step).sum(axis=1))
        turned = expected > 0
        self.facing[m[turned]] = np.arctan2(step[turned, 1], step[turned, 0]) % (2 * math.pi)
        if self._accelerating:
            self.velocity[m] = np.minimum(self.velocity[m] + self.accel[m] * t, self.speed[m])
        self.pos[m] = trajectory[t - 1, m]
        self.settle()
        self.version += 1
        return self._arrivals(m, old, expected, t)

    def _arrivals(self, m: np.ndarray, old: np.ndarray, expected: np.ndarray, t: int):
        p = self.pos[m]
        target = self.target[m]
        delta = target - p
        left = np.sqrt((delta * delta).sum(axis=1)) - self.reach[m]
        at_waypoint = (target != self.goal[m]).any(axis=1) if self._obstacles else np.zeros(len(m), bool)
        moved = p - old
        blocked = ((moved * moved).sum(axis=1) < 0.25 * expected * expected) & (expected > 0)
        reached = left <= 1e-9
        goal_tags = self.goal_tag[m]
        if np.count_nonzero(goal_tags):
            rows, found = self.rows(goal_tags)
            follows = (found & (goal_tags != 0)).nonzero()[0]
            goal_rows = rows[follows]
            r = self.radius[m[follows]] + self.reach[m[follows]] + 1e-6
            near = left[follows] + self.reach[m[follows]] <= r + self.radius[goal_rows]
            boxes = self.obstacle[goal_rows]
            if np.count_nonzero(boxes):
                # Boxes count as reached inside the box grown by r (square corners), as `_legs` aims.
                in_box = (np.abs(p[follows] - self.pos[goal_rows]) <= self.half[goal_rows] + r[:, None]).all(axis=1)
                near = np.where(boxes, in_box, near)
            reached[follows] = near
        if self._obstacles and np.count_nonzero(blocked):
            # Pushed back by an obstacle: find a way round again next batch.
            stuck = m[blocked]
            o = (self.obstacle & ~self.hidden).nonzero()[0]
            gap = paths.box_distance(self.pos[stuck][:, None], self.pos[o], self.half[o]) - self.radius[stuck][:, None]
            self.steer_stamp[stuck[(gap < 0.05).any(axis=1)]] = -1
        crowded = (left < _CROWDED_ARRIVAL) & blocked
        done = ~at_waypoint & (reached | crowded)
        ghosts = self.ghost[m]
        if not np.count_nonzero(done) and not np.count_nonzero(at_waypoint):
            self.boost[m] = 0.0
            return [], []
        # Loops since each leg ended: the first loop at which its travel reached the leg (and the owed
        # distance it didn't need). Ghosts report them with their arrival; everyone makes them up at waypoints.
        ended = self._last_travel[:t, m] >= self.leg[m] - 1e-9
        spare = np.floor(np.maximum(self.boost[m] - self.leg[m], 0.0) / self.speed[m])
        late = np.where(~crowded & ended.any(axis=0), t - 1 - ended.argmax(axis=0) + spare, 0).astype(np.int64)
        self.boost[m] = 0.0
        tags, lates = self.tag[m[done]].tolist(), np.where(ghosts, late, 0)[done].tolist()
        self.moving[m[done]] = False
        self.velocity[m[done]] = 0.0
        early = ~done & at_waypoint & (late > 0)  # walk on round the obstacle for the loops stood still
        self.boost[m[early]] = late[early] * self.speed[m[early]]
        return tags, lates

    def owe(self, i: int, loops: int) -> None:
        """Row i started its leg `loops` loops ago from standing: it travels that far extra next batch."""
        if loops <= 0:
            return
        v, a, top = 0.0, float(self.accel[i]), float(self.speed[i])
        distance = 0.0
        for _ in range(loops):
            v = min(v + a, top)
            distance += v
        self.boost[i] = distance
        self.velocity[i] = v

    def settle(self) -> None:
        """Push overlapping mobile units apart (soft collision), out of obstacle boxes, and into the
        pathable area."""
        c = (self.collides & ~self.ghost & ~self.hidden).nonzero()[0]
        if len(c) >= 2:
            p, r = self.pos[c], self.radius[c]
            dx = p[:, 0, None] - p[:, 0]
            dy = p[:, 1, None] - p[:, 1]
            d2 = dx * dx + dy * dy
            reach = r[:, None] + r
            touching = d2 < reach * reach - 1e-9
            touching.flat[:: len(c) + 1] = False
            if np.count_nonzero(touching):
                d = np.sqrt(d2)
                together = touching & (d < 1e-9)
                if np.count_nonzero(together):  # coincident units split along a direction that differs per pair
                    angle = np.subtract.outer(np.arange(len(c)), np.arange(len(c))) * 2.399963
                    dx = np.where(together, np.cos(angle), dx)
                    dy = np.where(together, np.sin(angle), dy)
                    d = np.where(together, 1.0, d)
                share = np.where(touching, (reach - d) * 0.5 / np.maximum(d, 1e-12), 0.0)
                p[:, 0] += (share * dx).sum(axis=1)
                p[:, 1] += (share * dy).sum(axis=1)
                self.pos[c] = p
        mobile = ((self.speed > 0) & ~self.hidden).nonzero()[0]
        if len(mobile):
            if self._obstacles:
                paths.push_out_of_boxes(self, mobile)
            r = self.radius[mobile, None]
            self.pos[mobile] = np.minimum(np.maximum(self.pos[mobile], self._low + r), self._high - r)

    def free_spot(self, x: float, y: float, radius: float) -> tuple[float, float]:
        """The nearest point to (x, y) where a ground unit of `radius` fits (see `paths.free_spot`)."""
        return paths.free_spot(self, x, y, radius)
