"""How units move (a base of World): legs towards goals, batch lengths, trajectories, arrivals, collision.

Hot path: each batch of loops runs every method here once, on a few dozen units, so the code keeps the
count of numpy calls low (reductions as ufunc methods, per-row constants kept in `World.per_rows`). Every
result is computed with the same floating-point operations as the straightforward formulas in the comments.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from sc2env.engine import paths
from sc2env.engine.fast import any_xy, sum_xy
from sc2env.engine.fast import count_nonzero as _count
from sc2env.engine.fast import sum_rows as _sum_rows
from sc2env.engine.world_state import WorldState

# A unit pushed aside this close to its goal counts as arrived (SC2 units stop when crowded at a point).
_CROWDED_ARRIVAL = 1.0
# Longest batch while colliding units may touch (they are pushed apart at the end of each batch).
CONTACT_BATCH = 8
# Longest batch while some unit walks round an obstacle (it may stand at a corner until the batch ends).
WAYPOINT_BATCH = 8
_EPS = 1e-6


@functools.lru_cache(maxsize=64)
def _steps(k: int) -> np.ndarray:
    """1..k as a column: loops after which each trajectory row is taken."""
    steps = np.arange(1, k + 1)[:, None]
    steps.flags.writeable = False
    return steps


class Trajectory:
    """Where the moving rows `m` are after each of the next k loops: pos[m] + travel[loop - 1] x unit.

    `braking`: column of m -> its speed after each loop, for the rows that slow down to stop in the batch.
    """

    def __init__(
        self,
        world,
        m: np.ndarray,
        travel: np.ndarray,
        unit: np.ndarray,
        braking: dict[int, list[float]] | None = None,
    ):
        self.world, self.m, self.travel, self.unit = world, m, travel, unit
        self.start = world.pos[m]
        self.braking = braking or {}

    def at(self, t: int) -> np.ndarray:
        """Positions of rows m after t loops."""
        return self.start + self.travel[t - 1][:, None] * self.unit

    def positions(self) -> np.ndarray:
        """Positions of all rows after each loop, shape (k, n, 2)."""
        out = np.repeat(self.world.pos[None], len(self.travel), axis=0)
        out[:, self.m] = self.start + self.travel[:, :, None] * self.unit
        return out


class Motion(WorldState):
    """How the units of a world move (World adds how they get their goals)."""

    # ---- aiming -------------------------------------------------------------------------------------
    def prepare(self) -> bool:
        """Aim every moving unit for the coming batch: follow unit goals, steer around obstacles, and set
        `leg`. Returns whether some unit follows a moving unit (re-aim it again soon)."""
        moving = self.moving.nonzero()[0]
        if not len(moving):
            return False
        goal_tags = self.goal_tag[moving]
        chasing_mover = False
        rows = found = None
        if _count(goal_tags):
            rows, found = self.rows(goal_tags)  # found implies a tag: rows() never finds tag 0
            lost = (goal_tags != 0) & ~found
            if _count(lost):  # the goal unit is gone: the leg ends here
                self.moving[moving[lost]] = False
                self.goal_tag[moving[lost]] = 0
            self.goal[moving[found]] = self.pos[rows[found]]
            chasing_mover = bool(_count(self.moving[rows[found]]))
            if _count(lost):
                keep = ~lost
                moving, rows, found = moving[keep], rows[keep], found[keep]
                if not len(moving):
                    return chasing_mover
        if self.obstacle_count:
            # Steering is kept while the goal and the obstacles stay the same and the waypoint is not reached.
            # Within a radius of it counts as reached: units rounding one corner together push each other off
            # its point, and would wait for it for ever.
            target, goal, pos = self.target[moving], self.goal[moving], self.pos[moving]
            near = sum_xy(np.abs(target - pos)) < np.maximum(self.radius[moving], 1e-9)
            stale = (
                any_xy(goal != self.steered[moving])
                | (self.steer_stamp[moving] != self.obstacle_version)
                | (near & any_xy(target != goal))
            )
            if _count(stale):
                again = moving[stale]
                self.target[again] = self.steered[again] = self.goal[again]
                self.steer_stamp[again] = self.obstacle_version
                paths.steer(self, again)
        else:
            self.target[moving] = self.goal[moving]
        self._legs(moving, rows, found)
        return chasing_mover

    def _legs(self, m: np.ndarray, rows=None, found=None) -> None:
        """Set `leg` of rows m: the distance to their waypoint, or to where they come within reach of their
        goal (rows/found: the goal units' rows and which exist; None when no row of m follows a unit)."""
        p, target = self.pos[m], self.target[m]
        delta = target - p
        to_target = np.sqrt(sum_xy(delta * delta))
        leg = np.maximum(to_target - self.reach[m], 0.0)
        if found is not None and _count(found):
            waypoint = any_xy(target != self.goal[m])
            follows = (found & ~waypoint).nonzero()[0]
            leg[waypoint] = to_target[waypoint]
            if len(follows):
                goal_rows = rows[follows]
                r = self.radius[m[follows]] + self.reach[m[follows]]
                d = to_target[follows]
                circle_leg = d - r - self.radius[goal_rows]
                boxes = self.obstacle[goal_rows]
                if _count(boxes):
                    # Along the line towards a box's centre, the distance to where the box (grown by r) begins.
                    half = self.half[goal_rows] + r[:, None]
                    direction = np.abs(delta[follows]) / np.maximum(d, _EPS)[:, None]
                    with np.errstate(divide="ignore", invalid="ignore"):
                        t = np.where(direction > _EPS, (np.abs(delta[follows]) - half) / direction, -np.inf)
                    circle_leg = np.where(boxes, t.max(axis=1), circle_leg)
                leg[follows] = np.maximum(circle_leg, 0.0)
        elif self.obstacle_count:
            waypoint = any_xy(target != self.goal[m])
            leg[waypoint] = to_target[waypoint]
        self.leg[m] = leg

    # ---- batch length -------------------------------------------------------------------------------
    def free_loops(self, limit: int) -> int:
        """How many loops (1..limit) the world can advance as straight-line motion: until the first leg of a
        non-ghost unit ends, and before two colliding units could touch (at most CONTACT_BATCH loops while
        some may). Ghosts (harvesting workers) don't cut batches: they owe the loops they stood still."""
        if not self.n or not _count(self.moving):
            return limit
        # Chasers (units with a weapon target) stop in range by themselves; combat re-plans every tick.
        # Waypoints don't cut batches either: a unit reaching one early owes the loops it stood still.
        going = self.moving & ~self.ghost & (self.engaged == 0)
        k = limit
        if self.obstacle_count:
            waypoint = any_xy(self.target != self.goal)
            going &= ~waypoint
            if _count(waypoint & self.moving):
                k = min(limit, WAYPOINT_BATCH)
        i = going.nonzero()[0]
        if len(i):
            k = int(min(limit, max(np.minimum.reduce(self._loops_to_travel(i)), 1)))
        if k <= CONTACT_BATCH:
            return k  # contact can't shorten the batch further
        c = (self.collides & ~self.ghost & ~self.hidden).nonzero()[0]
        if len(c) > 1 and _count(self.moving[c]):
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
        if not self.accelerating_count:
            return loops
        accel = self.accel[i]
        slow = np.isfinite(accel) & (self.velocity[i] < top)
        if _count(slow):
            v0, a, L, vmax = self.velocity[i][slow], accel[slow], leg[slow], top[slow]
            ramp = np.ceil((vmax - v0) / a)  # loops until top speed
            ramp_distance = v0 * ramp + a * ramp * (ramp + 1) / 2
            b = v0 + a / 2  # distance after t loops while accelerating: b t + a t^2 / 2
            within = np.ceil((-b + np.sqrt(b * b + 2 * a * L)) / a)
            after = ramp + np.ceil((L - ramp_distance) / vmax)
            loops[slow] = np.where(ramp_distance >= L, within, after)
        return loops

    # ---- moving -------------------------------------------------------------------------------------
    def trajectory(self, k: int) -> Trajectory | None:
        """The moving rows' positions over the next k loops; None if nothing moves."""
        if not self.n or not _count(self.moving):
            return None
        m = self.moving.nonzero()[0]
        # Distance covered after each loop (accelerating, plus distance owed), capped at the leg.
        steps = _steps(k)
        speed = self.speed[m]
        if self.accelerating_count:
            travel = np.add.accumulate(np.minimum(self.velocity[m] + self.accel[m] * steps, speed), axis=0)
        else:
            travel = steps * speed
        travel += self.boost[m]
        braking = self._brake(m, travel) if self.accelerating_count else None
        np.minimum(travel, self.leg[m], out=travel)
        delta = self.target[m] - self.pos[m]
        dist = np.hypot(delta[:, 0], delta[:, 1])[:, None]
        unit = delta / np.where(dist > 0, dist, 1.0)  # at the target, delta is (0, 0): no direction
        return Trajectory(self, m, travel, unit, braking)

    def _brake(self, m: np.ndarray, travel: np.ndarray) -> dict[int, list[float]] | None:
        """Slow down, in `travel`, the units of m that accelerate and stop in this batch: SC2 brakes them at
        their acceleration (an SCV sent 4 cells arrives after 37 loops instead of 32, as measured in the game
        by sc2math.wordpress.com, "SCV Acceleration"; here after 38, its profile starting a loop later).
        Units walking round a corner don't brake there, nor units closing on a goal that is moving now
        (following, chasing, repairing a moving unit): they keep up instead of trailing behind it.
        Returns column -> speed after each loop for the rows it changed.

        `_loops_to_travel` leaves braking out, so a batch may end a few loops before such a unit stops: the
        next batch carries on from its speed; that costs a short batch, never a wrong position.
        """
        accel, leg = self.accel[m], self.leg[m]
        # The braking distance from top speed is v^2 / 2a: only rows ending closer than that (plus a loop's
        # travel) can need it.
        braking_distance = self.speed[m] ** 2 / (2 * accel) + self.speed[m]
        near = np.isfinite(accel) & (leg - travel[-1] < braking_distance)
        if self.obstacle_count:
            near &= ~any_xy(self.target[m] != self.goal[m])
        if not _count(near):
            return None
        out = {}
        for j in near.nonzero()[0].tolist():
            goal = int(self.goal_tag[m[j]])
            if goal and self.exists(goal) and self.moving[self.slot(goal)]:
                continue
            a, top, end = float(accel[j]), float(self.speed[m[j]]), float(leg[j])
            v, d = float(self.velocity[m[j]]), float(self.boost[m[j]])
            speeds = []
            for loop in range(len(travel)):
                if d >= end:  # stopped: it stays there
                    travel[loop:, j] = d
                    speeds += [0.0] * (len(travel) - loop)
                    break
                # Slow down by a while stopping from v (v - a + v - 2a + ...) would overshoot what is left,
                # else speed up to the top: the game's profile to within a loop.
                n = math.ceil(v / a) - 1
                v = max(v - a, min(a, top)) if n * v - a * n * (n + 1) / 2 > end - d else min(v + a, top)
                d += v
                travel[loop, j] = d
                speeds.append(v)
            out[j] = speeds
        return out

    def advance(self, trajectory: Trajectory | None, t: int) -> tuple[list[int], list[int]]:
        """Commit the first t loops of `trajectory`: positions, facing, separation.

        Returns (tags, late): the units whose leg ended (at the goal, or crowded out of reaching it) and
        stopped, with how many loops before the batch's end that happened (only ghosts arrive early)."""
        if trajectory is None:
            return [], []
        m = trajectory.m
        old = trajectory.start
        new = trajectory.at(t)
        step = new - old
        expected = np.sqrt(sum_xy(step * step))
        turned = expected > 0
        if _count(turned) < len(m):
            m_turned, step_turned = m[turned], step[turned]
        else:
            m_turned, step_turned = m, step
        self.facing[m_turned] = np.arctan2(step_turned[:, 1], step_turned[:, 0]) % (2 * math.pi)
        if self.accelerating_count:
            self.velocity[m] = np.minimum(self.velocity[m] + self.accel[m] * t, self.speed[m])
            for j, speeds in trajectory.braking.items():
                self.velocity[m[j]] = speeds[t - 1]
        self.pos[m] = new
        self.settle()
        self.version += 1
        return self._arrivals(m, old, expected, trajectory.travel[:t], t, trajectory.unit)

    def _arrivals(
        self,
        m: np.ndarray,
        old: np.ndarray,
        expected: np.ndarray,
        travel: np.ndarray,
        t: int,
        unit: np.ndarray,
    ):
        p = self.pos[m]
        target = self.target[m]
        delta = target - p
        left = np.sqrt(sum_xy(delta * delta)) - self.reach[m]
        at_waypoint = any_xy(target != self.goal[m]) if self.obstacle_count else np.zeros(len(m), bool)
        moved = p - old
        blocked = (sum_xy(moved * moved) < 0.25 * expected * expected) & (expected > 0)
        reached = left <= 1e-9
        arrived = None  # rows that touch their goal unit while still walking round an obstacle
        goal_tags = self.goal_tag[m]
        if _count(goal_tags):
            rows, found = self.rows(goal_tags)
            follows = found.nonzero()[0]
            goal_rows = rows[follows]
            r = self.radius[m[follows]] + self.reach[m[follows]] + 1e-6
            near = left[follows] + self.reach[m[follows]] <= r + self.radius[goal_rows]
            boxes = self.obstacle[goal_rows]
            rounding = at_waypoint[follows]
            touching = self._touching(p[follows], goal_rows, r) if _count(boxes) or _count(rounding) else None
            if _count(boxes):  # boxes count as reached inside the box grown by r, as `_legs` aims
                near = np.where(boxes, touching, near)
            reached[follows] = near
            if _count(rounding):
                # A corner to walk round can lie where the goal itself blocks the way (a worker between two
                # mineral fields): touching the goal ends the walk there, as it would at the corner.
                arrived = np.zeros(len(m), bool)
                arrived[follows] = rounding & touching
                touched = {}  # row of m -> the batch's first loop at which it touched its goal
                for k in (rounding & touching).nonzero()[0].tolist():
                    j = int(follows[k])
                    path = old[j] + travel[:, j, None] * unit[j]
                    touch = self._touching(path, int(goal_rows[k]), r[k])
                    touched[j] = int(touch.argmax()) if touch.any() else t - 1
        if self.obstacle_count and _count(blocked):
            # Pushed back by an obstacle: find a way round again next batch.
            stuck = m[blocked]
            _, centres, halves = paths.obstacle_boxes(self)
            gap = paths.box_distance(self.pos[stuck][:, None], centres, halves) - self.radius[stuck][:, None]
            self.steer_stamp[stuck[np.logical_or.reduce(gap < 0.05, axis=1)]] = -1
        crowded = (left < _CROWDED_ARRIVAL) & blocked
        done = ~at_waypoint & (reached | crowded)
        if arrived is not None:
            done |= arrived
        if not _count(done) and not _count(at_waypoint):
            self.boost[m] = 0.0
            return [], []
        # Loops since each leg ended: the first loop at which its travel reached the leg (and the owed
        # distance it didn't need). Ghosts report them with their arrival; everyone makes them up at waypoints.
        leg = self.leg[m]
        ended = travel >= leg - 1e-9
        spare = np.floor(np.maximum(self.boost[m] - leg, 0.0) / self.speed[m])
        late = np.where(
            ~crowded & np.logical_or.reduce(ended, axis=0), t - 1 - ended.argmax(axis=0) + spare, 0
        ).astype(np.int64)
        if arrived is not None:
            for j, first in touched.items():  # they touched their goal before the batch's end
                late[j] = t - 1 - first
        self.boost[m] = 0.0
        tags, lates = self.tag[m[done]].tolist(), np.where(self.ghost[m], late, 0)[done].tolist()
        self.moving[m[done]] = False
        self.velocity[m[done]] = 0.0
        early = ~done & at_waypoint & (late > 0)  # walk on round the obstacle for the loops stood still
        self.boost[m[early]] = late[early] * self.speed[m[early]]
        return tags, lates

    def _touching(self, points: np.ndarray, goals, r) -> np.ndarray:
        """Whether points (..., 2) are within r of their goal rows: inside an obstacle's box grown by r
        (square corners), else within r of the goal's edge. `goals` and `r` broadcast against the points."""
        offset = np.abs(points - self.pos[goals])
        obstacle = self.obstacle[goals]
        box = (offset <= self.half[goals] + np.asarray(r)[..., None]).all(axis=-1)
        if np.all(obstacle):  # the usual case (workers at fields and halls): no circle test to pay for
            return box
        return np.where(obstacle, box, np.sqrt(sum_xy(offset * offset)) <= r + self.radius[goals])

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

    # ---- collision ----------------------------------------------------------------------------------
    def settle(self) -> None:
        """Push overlapping mobile units apart (soft collision), out of obstacle boxes, and into the
        pathable area."""
        clear = not _count(self.ghost) and not _count(self.hidden)  # the per-row sets below hold
        c = (
            self.per_rows("colliders", lambda: self.collides.nonzero()[0])
            if clear
            else (self.collides & ~self.ghost & ~self.hidden).nonzero()[0]
        )
        if len(c) >= 2:
            if clear:
                reach, limit = self.per_rows("collider_reach", lambda: _contact_limits(self.radius[c]))
            else:
                reach, limit = _contact_limits(self.radius[c])
            p = self.pos[c]
            x, y = p[:, 0], p[:, 1]
            dx, dy = x[:, None] - x, y[:, None] - y  # [i, j] = p_i - p_j
            d2 = dx * dx + dy * dy
            touching = d2 < limit
            if _count(touching):
                d = np.sqrt(d2)
                together = touching & (d < 1e-9)
                if _count(together):  # coincident units split along a direction that differs per pair,
                    # opposite for the two units of a pair ([i, j] = -[j, i]) so that they part
                    k = np.arange(len(c))
                    angle = (np.minimum.outer(k, k) * len(c) + np.maximum.outer(k, k)) * 2.399963
                    away = np.sign(np.subtract.outer(k, k))
                    dx = np.where(together, away * np.cos(angle), dx)
                    dy = np.where(together, away * np.sin(angle), dy)
                    d = np.where(together, 1.0, d)
                share = np.where(touching, (reach - d) * 0.5 / np.maximum(d, 1e-12), 0.0)
                p[:, 0] += _sum_rows(share * dx)
                p[:, 1] += _sum_rows(share * dy)
                self.pos[c] = p
        if _count(self.hidden):
            mobile, low, high, reach = self._mobile_bounds(((self.speed > 0) & ~self.hidden).nonzero()[0])
        else:
            mobile, low, high, reach = self.per_rows(
                "mobile", lambda: self._mobile_bounds((self.speed > 0).nonzero()[0])
            )
        if len(mobile):
            if self.obstacle_count:
                paths.push_out_of_boxes(self, mobile, reach)
            if len(mobile) == self.n:  # everyone: clamp in place
                np.maximum(self.pos, low, out=self.pos)
                np.minimum(self.pos, high, out=self.pos)
            else:
                self.pos[mobile] = np.minimum(np.maximum(self.pos[mobile], low), high)

    def _mobile_bounds(self, mobile: np.ndarray) -> tuple[np.ndarray, ...]:
        """Rows `mobile`, the lowest and highest centre each may have (inside the pathable area), and how
        far from an obstacle box each must stay."""
        r = self.radius[mobile, None]
        return mobile, self.low_corner + r, self.high_corner - r, r - 1e-9


def _contact_limits(r: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(reach, limit) of colliders with radii r: pairs touch where d^2 < limit (never a unit with itself)."""
    reach = r[:, None] + r
    limit = reach * reach - 1e-9
    np.fill_diagonal(limit, -np.inf)
    return reach, limit
