"""How units move (a base of World): legs towards goals, batch lengths, trajectories, braking, arrivals.

Hot path: each batch of loops runs every method here once, on a few dozen units, so the code keeps the
count of numpy calls low (reductions as ufunc methods, per-row constants kept in `World.per_rows`). Every
result is computed with the same floating-point operations as the straightforward formulas in the comments.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from sc2env.engine import paths, straight
from sc2env.engine.collision import Collision
from sc2env.engine.fast import any_xy, sum_xy
from sc2env.engine.fast import count_nonzero as _count

# A unit pushed aside this close to its goal counts as arrived (SC2 units stop when crowded at a point).
_CROWDED_ARRIVAL = 1.0
# Longest batch while colliding units may touch (they are pushed apart at the end of each batch).
CONTACT_BATCH = 8
# Longest batch while some unit walks round an obstacle (it may stand at a corner until the batch ends).
WAYPOINT_BATCH = 8
_EPS = 1e-6


def _corner_entry(
    offset: np.ndarray, direction: np.ndarray, half: np.ndarray, grown: np.ndarray, square: np.ndarray
) -> np.ndarray:
    """How far a unit walks towards a box's centre before it is within `grown` of the box (range is measured
    to the box's nearest point, so the reachable region's corners are round): `square` is where the box grown
    as a square begins along the line; where the line meets that square in a corner, it goes on to the round
    corner, or to where it leaves the corner (offset, direction: per row, |unit - centre| and its unit vector
    towards the centre, both positive)."""
    beyond = offset - half  # how far past each half-side the unit stands
    at_square = beyond - square[:, None] * direction
    corner = (at_square > _EPS).all(axis=1)
    if not _count(corner):
        return square
    toward = sum_xy(beyond * direction)
    disc = toward * toward - sum_xy(beyond * beyond) + grown * grown
    with np.errstate(divide="ignore", invalid="ignore"):
        leave = np.where(direction > _EPS, beyond / direction, np.inf).min(axis=1)
        round_in = np.where(disc >= 0.0, toward - np.sqrt(np.maximum(disc, 0.0)), np.inf)
    return np.where(corner, np.maximum(square, np.minimum(round_in, leave)), square)


@functools.lru_cache(maxsize=64)
def _steps(k: int) -> np.ndarray:
    """1..k as a column: loops after which each trajectory row is taken."""
    steps = np.arange(1, k + 1)[:, None]
    steps.flags.writeable = False
    return steps


class Trajectory:
    """Where the moving `rows` are after each of the next k loops: start + travel[loop - 1] x unit.

    `braking`: position in rows -> its speed after each loop, for the rows that slow down to stop in the batch.
    """

    def __init__(
        self,
        world: Motion,
        rows: np.ndarray,
        travel: np.ndarray,
        unit: np.ndarray,
        braking: dict[int, list[float]] | None = None,
        start: np.ndarray | None = None,
    ):
        self.world, self.rows, self.travel, self.unit = world, rows, travel, unit
        self.start = world.pos[rows] if start is None else start  # (a copy: the world's rows move on)
        self.braking = braking or {}

    def at(self, t: int) -> np.ndarray:
        """Positions of the rows after t loops."""
        return self.start + self.travel[t - 1][:, None] * self.unit

    def positions(self) -> np.ndarray:
        """Positions of all rows of the world after each loop, shape (k, n, 2)."""
        out = np.repeat(self.world.pos[None], len(self.travel), axis=0)
        out[:, self.rows] = self.start + self.travel[:, :, None] * self.unit
        return out


AnyTrajectory = Trajectory | straight.StraightTrajectory
"""A batch's motion: the arrays' general one, or a few units' straight legs in Python floats."""


class Motion(Collision):
    """How the units of a world move (World adds how they get their goals)."""

    # ---- aiming -------------------------------------------------------------------------------------
    def prepare(self) -> bool:
        """Aim every moving unit for the coming batch: follow unit goals, steer around obstacles, and set
        `leg`. Returns whether some unit follows a moving unit (re-aim it again soon)."""
        moving = self.moving.nonzero()[0]
        if not len(moving):
            return False
        if straight.applies(self, len(moving)):
            return straight.prepare(self, moving)
        goal_tags = self.goal_tag[moving]
        chasing_mover = False
        goal_rows = found = None
        if _count(goal_tags):
            goal_rows, found = self.rows(goal_tags)  # found implies a tag: rows() never finds tag 0
            lost = (goal_tags != 0) & ~found
            if _count(lost):  # the goal unit is gone: the leg ends here
                self.moving[moving[lost]] = False
                self.goal_tag[moving[lost]] = 0
            followed = goal_rows[found]
            self.goal[moving[found]] = self.pos[followed]
            chasing_mover = bool(_count(self.moving[followed]))
            if _count(lost):
                keep = ~lost
                moving, goal_rows, found = moving[keep], goal_rows[keep], found[keep]
                if not len(moving):
                    return chasing_mover
        aim = None
        if self.steers:
            self._steer(moving)
        else:
            aim = self.target[moving] = self.goal[moving]
        self._legs(moving, goal_rows, found, aim)
        return chasing_mover

    def _steer(self, moving: np.ndarray) -> None:
        """Aim the moving rows whose steering is stale at their goal, or round the obstacle in the way.

        Steering is kept while the goal and the obstacles stay the same and the waypoint is not reached.
        Within a radius of it counts as reached: units rounding one corner together push each other off its
        point, and would wait for it for ever."""
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
            if self.obstacle_count:
                paths.steer(self, again)
            if self.walls is not None:
                self._steer_round_walls(again[self.grounded[again]])

    def _steer_round_walls(self, rows: np.ndarray) -> None:
        """Aim ground rows whose straight way to their target runs into a wall at a cell of their path round it;
        a point goal no path leads to becomes the nearest reachable cell (as the game walks as near as it can)."""
        walls = self.walls
        if walls is None or not len(rows):
            return
        pos, target, radius = self.pos[rows], self.target[rows], self.radius[rows]
        blocked = ~walls.clear(pos, target, radius)
        if not _count(blocked):
            return
        for i in rows[blocked].tolist():
            if not self.goal_tag[i] and (self.target[i] == self.goal[i]).all():
                goal = walls.reachable_goal(self.pos[i], self.goal[i])
                self.goal[i] = self.steered[i] = self.target[i] = goal
            self.target[i] = walls.waypoint(self.pos[i], self.target[i], float(self.radius[i]))

    def _legs(
        self,
        rows: np.ndarray,
        goal_rows: np.ndarray | None = None,
        found: np.ndarray | None = None,
        target: np.ndarray | None = None,
    ) -> None:
        """Set `leg` of `rows`: the distance to their waypoint, or to where they come within reach of their
        goal (goal_rows / found: the goal units' rows and which exist; None when none of them follows a unit;
        `target`: the rows' targets, if at hand)."""
        pos = self.pos[rows]
        if target is None:
            target = self.target[rows]
        delta = target - pos
        to_target = np.sqrt(sum_xy(delta * delta))
        leg = np.maximum(to_target - self.reach[rows], 0.0)
        if goal_rows is not None and found is not None and _count(found):
            if self.steers:
                waypoint = any_xy(target != self.goal[rows])
                follows = (found & ~waypoint).nonzero()[0]
                leg[waypoint] = to_target[waypoint]
            else:  # no waypoints: `prepare` aimed every row at its goal
                follows = found.nonzero()[0]
            if len(follows):
                followed, followers = goal_rows[follows], rows[follows]
                grown = self.radius[followers] + self.reach[followers]  # how far from the goal's edge
                dist = to_target[follows]
                circle_leg = dist - grown - self.radius[followed]
                boxes = self.obstacle[followed]
                if self.obstacle_count and _count(boxes):
                    # Along the line towards a box's centre, the distance to where the box (grown by `grown`) begins.
                    half = self.half[followed] + grown[:, None]
                    direction = np.abs(delta[follows]) / np.maximum(dist, _EPS)[:, None]
                    with np.errstate(divide="ignore", invalid="ignore"):
                        to_box = np.where(
                            direction > _EPS, (np.abs(delta[follows]) - half) / direction, -np.inf
                        )
                    # A chase ends where the weapon reaches (its range is measured to the box's nearest point);
                    # workers walking to a resource keep the square's edge, which their gathering is tuned to.
                    square = to_box.max(axis=1)
                    chasing = self.engaged[followers] != 0
                    box_leg = np.where(
                        chasing,
                        _corner_entry(np.abs(delta[follows]), direction, self.half[followed], grown, square),
                        square,
                    )
                    circle_leg = np.where(boxes, box_leg, circle_leg)
                leg[follows] = np.maximum(circle_leg, 0.0)
        elif self.steers:
            waypoint = any_xy(target != self.goal[rows])
            leg[waypoint] = to_target[waypoint]
        self.leg[rows] = leg

    # ---- batch length -------------------------------------------------------------------------------
    def free_loops(self, limit: int) -> int:
        """How many loops (1..limit) the world can advance as straight-line motion: until the first leg of a
        non-ghost unit ends, and before two colliding units could touch (at most CONTACT_BATCH loops while
        some may). Ghosts (harvesting workers) don't cut batches: they owe the loops they stood still."""
        moving = int(_count(self.moving))
        if not moving:
            return limit
        simple = straight.applies(self, moving)
        loops = straight.free_loops(self, limit) if simple else self._leg_loops(limit)
        if loops <= CONTACT_BATCH:
            return loops  # contact can't shorten the batch further
        return self._before_contact(loops)

    def _leg_loops(self, limit: int) -> int:
        """Loops (1..limit) until the first leg of a non-ghost unit without a weapon target ends."""
        # Chasers (units with a weapon target) stop in range by themselves; combat re-plans every tick.
        # Waypoints don't cut batches either: a unit reaching one early owes the loops it stood still.
        going = self.moving & (self.engaged == 0)
        if _count(self.ghost):
            going &= ~self.ghost
        loops = limit
        if self.steers:
            waypoint = any_xy(self.target != self.goal)
            going &= ~waypoint
            if _count(waypoint & self.moving):
                loops = min(limit, WAYPOINT_BATCH)
        going_rows = going.nonzero()[0]
        if len(going_rows):
            # (the least of a few Python floats: cheaper than a numpy reduction; no leg is NaN)
            loops = int(min(limit, max(min(self._loops_to_travel(going_rows).tolist()), 1)))
        return loops

    def _before_contact(self, loops: int) -> int:
        """`loops`, shortened (to no less than CONTACT_BATCH) to end before two colliding units could touch:
        units about to touch are pushed apart at the batch's end, and short batches keep pushes small."""
        colliders = (self.collides & ~self.ghost & ~self.hidden).nonzero()[0]
        if len(colliders) > 1 and _count(self.moving[colliders]):
            pos, radii = self.pos[colliders], self.radius[colliders]
            speeds = self.speed[colliders] * self.moving[colliders]
            dist = np.hypot(pos[:, None, 0] - pos[None, :, 0], pos[:, None, 1] - pos[None, :, 1])
            gap = dist - radii[:, None] - radii[None, :]
            closing = speeds[:, None] + speeds[None, :]
            np.fill_diagonal(closing, 0.0)
            with np.errstate(divide="ignore", invalid="ignore"):
                safe = np.where(closing > 0, np.floor(gap / closing), np.inf)
            if safe.min() < loops:
                loops = min(loops, max(int(safe.min()), CONTACT_BATCH))
        return loops

    def _loops_to_travel(self, rows: np.ndarray) -> np.ndarray:
        """Loops `rows` need to cover their legs, accelerating from their current speed."""
        leg, top = self.leg[rows], self.speed[rows]
        loops = np.ceil(leg / top)
        if not self.accelerating_count:
            return loops
        accel = self.accel[rows]
        slow = np.isfinite(accel) & (self.velocity[rows] < top)
        if _count(slow):
            # v0 the speed now, a the acceleration, L the leg, vmax the top speed (per loop).
            v0, a, L, vmax = self.velocity[rows][slow], accel[slow], leg[slow], top[slow]
            ramp = np.ceil((vmax - v0) / a)  # loops until top speed
            ramp_distance = v0 * ramp + a * ramp * (ramp + 1) / 2
            b = v0 + a / 2  # distance after t loops while accelerating: b t + a t^2 / 2
            within = np.ceil((-b + np.sqrt(b * b + 2 * a * L)) / a)
            after = ramp + np.ceil((L - ramp_distance) / vmax)
            loops[slow] = np.where(ramp_distance >= L, within, after)
        return loops

    # ---- moving -------------------------------------------------------------------------------------
    def trajectory(self, k: int) -> AnyTrajectory | None:
        """The moving rows' positions over the next k loops; None if nothing moves."""
        if not self.n or not _count(self.moving):
            return None
        rows = self.moving.nonzero()[0]
        if straight.applies(self, len(rows)):
            return straight.StraightTrajectory(self, rows, k)
        # Distance covered after each loop (accelerating, plus distance owed), capped at the leg.
        steps = _steps(k)
        speed = self.speed[rows]
        if self.accelerating_count:
            travel = np.add.accumulate(
                np.minimum(self.velocity[rows] + self.accel[rows] * steps, speed), axis=0
            )
        else:
            travel = steps * speed
        if _count(self.boost):  # distance owed (else adding zeros changes nothing: travel is never -0.0)
            travel += self.boost[rows]
        braking = self._brake(rows, travel) if self.accelerating_count else None
        np.minimum(travel, self.leg[rows], out=travel)
        start = self.pos[rows]
        delta = self.target[rows] - start
        dist = np.hypot(delta[:, 0], delta[:, 1])[:, None]
        unit = delta / np.where(dist > 0, dist, 1.0)  # at the target, delta is (0, 0): no direction
        return Trajectory(self, rows, travel, unit, braking, start)

    def _brake(self, rows: np.ndarray, travel: np.ndarray) -> dict[int, list[float]] | None:
        """Slow down, in `travel`, the units of `rows` that accelerate and stop in this batch: SC2 brakes them
        at their acceleration (an SCV sent 4 cells arrives after 37 loops instead of 32, as measured in the game
        by sc2math.wordpress.com, "SCV Acceleration"; here after 38, its profile starting a loop later).
        Units walking round a corner don't brake there, nor units closing on a goal that is moving now
        (following, chasing, repairing a moving unit): they keep up instead of trailing behind it.
        Returns position in rows -> speed after each loop for the rows it changed.

        `_loops_to_travel` leaves braking out, so a batch may end a few loops before such a unit stops: the
        next batch carries on from its speed; that costs a short batch, never a wrong position.
        """
        accel, leg = self.accel[rows], self.leg[rows]
        # The braking distance from top speed is v^2 / 2a: only rows ending closer than that (plus a loop's
        # travel) can need it.
        braking_distance = self.speed[rows] ** 2 / (2 * accel) + self.speed[rows]
        near = np.isfinite(accel) & (leg - travel[-1] < braking_distance)
        if self.steers:
            near &= ~any_xy(self.target[rows] != self.goal[rows])
        if not _count(near):
            return None
        out = {}
        for j in near.nonzero()[0].tolist():
            goal = int(self.goal_tag[rows[j]])
            if goal and self.exists(goal) and self.moving[self.slot(goal)]:
                continue
            out[j] = self._braking_profile(j, rows[j], float(accel[j]), float(leg[j]), travel)
        return out

    def _braking_profile(self, j: int, i: int, a: float, leg: float, travel: np.ndarray) -> list[float]:
        """Write into travel[:, j] row i's distance after each loop as it accelerates (a per loop) and brakes
        to stop at `leg`; returns its speed after each loop."""
        top = float(self.speed[i])
        v, covered = float(self.velocity[i]), float(self.boost[i])
        speeds: list[float] = []
        for loop in range(len(travel)):
            if covered >= leg:  # stopped: it stays there
                travel[loop:, j] = covered
                speeds += [0.0] * (len(travel) - loop)
                break
            # Slow down by a while stopping from v (v - a + v - 2a + ...) would overshoot what is left, else
            # speed up to the top: the game's profile to within a loop.
            n = math.ceil(v / a) - 1
            v = max(v - a, min(a, top)) if n * v - a * n * (n + 1) / 2 > leg - covered else min(v + a, top)
            covered += v
            travel[loop, j] = covered
            speeds.append(v)
        return speeds

    def advance(self, trajectory: AnyTrajectory | None, t: int) -> tuple[list[int], list[int]]:
        """Commit the first t loops of `trajectory`: positions, facing, separation.

        Returns (tags, late): the units whose leg ended (at the goal, or crowded out of reaching it) and
        stopped, with how many loops before the batch's end that happened (only ghosts arrive early)."""
        if trajectory is None:
            return [], []
        if isinstance(trajectory, straight.StraightTrajectory):
            return straight.advance(self, trajectory, t)
        rows = trajectory.rows
        start = trajectory.start
        end = trajectory.at(t)
        step = end - start
        expected = np.sqrt(sum_xy(step * step))
        turned = expected > 0
        if _count(turned) < len(rows):
            rows_turned, step_turned = rows[turned], step[turned]
        else:
            rows_turned, step_turned = rows, step
        self.facing[rows_turned] = np.arctan2(step_turned[:, 1], step_turned[:, 0]) % (2 * math.pi)
        if self.accelerating_count:
            self.velocity[rows] = np.minimum(self.velocity[rows] + self.accel[rows] * t, self.speed[rows])
            for j, speeds in trajectory.braking.items():
                self.velocity[rows[j]] = speeds[t - 1]
        self.pos[rows] = end
        self.settle()
        self.version += 1
        return self._arrivals(rows, start, expected, trajectory.travel[:t], t, trajectory.unit)

    def _arrivals(
        self,
        rows: np.ndarray,
        start: np.ndarray,
        expected: np.ndarray,
        travel: np.ndarray,
        t: int,
        unit: np.ndarray,
    ) -> tuple[list[int], list[int]]:
        """End the legs of the moving `rows` that reached their goal (or were crowded out of reaching it) in the
        t loops just committed, from `start`, `expected` to cover that far along `unit` (`travel`: their
        distance after each loop). Returns (tags, late) as `advance` does."""
        pos = self.pos[rows]
        target = self.target[rows]
        delta = target - pos
        left = np.sqrt(sum_xy(delta * delta)) - self.reach[rows]
        steers = self.steers  # else no unit walks to a waypoint: its target is its goal
        at_waypoint = any_xy(target != self.goal[rows]) if steers else np.zeros(len(rows), bool)
        moved = pos - start
        blocked = (sum_xy(moved * moved) < 0.25 * expected * expected) & (expected > 0)
        reached = left <= 1e-9
        arrived: np.ndarray | None = (
            None  # rows that touch their goal unit while still walking round an obstacle
        )
        touched: dict[
            int, int
        ] = {}  # position in rows -> the batch's first loop at which it touched its goal
        if _count(self.goal_tag[rows]):
            arrived = self._reach_goal_units(
                rows, pos, left, at_waypoint, reached, start, travel, t, unit, touched
            )
        if self.obstacle_count and _count(blocked):
            self._steer_again(rows[blocked])
        if self.walls is not None and _count(blocked):  # pushed back by a wall: find the way again
            self.steer_stamp[rows[blocked]] = -1
        crowded = (left < _CROWDED_ARRIVAL) & blocked
        done = ~at_waypoint & (reached | crowded) if steers else reached | crowded
        if arrived is not None:
            done |= arrived
        if not _count(done) and not (steers and _count(at_waypoint)):
            if _count(self.boost):
                self.boost[rows] = 0.0
            return [], []
        late = self._late_loops(rows, travel, t, crowded, touched)
        if _count(self.boost):
            self.boost[rows] = 0.0
        tags, lates = self.tag[rows[done]].tolist(), np.where(self.ghost[rows], late, 0)[done].tolist()
        self.moving[rows[done]] = False
        self.velocity[rows[done]] = 0.0
        if steers:  # walk on round the obstacle for the loops stood still
            early = ~done & at_waypoint & (late > 0)
            self.boost[rows[early]] = late[early] * self.speed[rows[early]]
        return tags, lates

    def _reach_goal_units(
        self,
        rows: np.ndarray,
        pos: np.ndarray,
        left: np.ndarray,
        at_waypoint: np.ndarray,
        reached: np.ndarray,
        start: np.ndarray,
        travel: np.ndarray,
        t: int,
        unit: np.ndarray,
        touched: dict[int, int],
    ) -> np.ndarray | None:
        """For the rows following a unit: whether they reached it (into `reached`: within reach of its edge,
        or inside its box grown by that reach, as `_legs` aims), and which touched it while still walking round
        an obstacle (returned; None if no follower is rounding one), with the first loop they did (into
        `touched`). A corner to walk round can lie where the goal itself blocks the way (a worker between two
        mineral fields): touching the goal ends the walk there, as it would at the corner."""
        goal_rows, found = self.rows(self.goal_tag[rows])
        follows = found.nonzero()[0]
        followed = goal_rows[follows]
        grown = self.radius[rows[follows]] + self.reach[rows[follows]] + 1e-6
        near = left[follows] + self.reach[rows[follows]] <= grown + self.radius[followed]
        boxes = self.obstacle[followed]
        rounding = at_waypoint[follows]
        touching = (
            self._touching(pos[follows], followed, grown) if _count(boxes) or _count(rounding) else None
        )
        if touching is not None and _count(boxes):
            near = np.where(boxes, touching, near)
        reached[follows] = near
        if touching is None or not _count(rounding):
            return None
        arrived = np.zeros(len(rows), bool)
        arrived[follows] = rounding & touching
        for k in (rounding & touching).nonzero()[0].tolist():
            j = int(follows[k])
            path = start[j] + travel[:, j, None] * unit[j]
            touch = self._touching(path, int(followed[k]), grown[k])
            touched[j] = int(touch.argmax()) if touch.any() else t - 1
        return arrived

    def _steer_again(self, blocked: np.ndarray) -> None:
        """Blocked rows pushed back by an obstacle find a way round it again next batch."""
        _, centres, halves = paths.obstacle_boxes(self)
        gap = paths.box_distance(self.pos[blocked][:, None], centres, halves) - self.radius[blocked][:, None]
        self.steer_stamp[blocked[np.logical_or.reduce(gap < 0.05, axis=1)]] = -1

    def _late_loops(
        self, rows: np.ndarray, travel: np.ndarray, t: int, crowded: np.ndarray, touched: dict[int, int]
    ) -> np.ndarray:
        """Loops since each leg ended: from the first loop at which its travel reached the leg (and the owed
        distance it didn't need), or at which it touched its goal. Ghosts report them with their arrival;
        everyone makes them up at waypoints."""
        leg = self.leg[rows]
        ended = travel >= leg - 1e-9
        spare = np.floor(np.maximum(self.boost[rows] - leg, 0.0) / self.speed[rows])
        late = np.where(
            ~crowded & np.logical_or.reduce(ended, axis=0), t - 1 - ended.argmax(axis=0) + spare, 0
        ).astype(np.int64)
        for j, first in touched.items():  # they touched their goal before the batch's end
            late[j] = t - 1 - first
        return late

    def _touching(self, points: np.ndarray, goals, grown) -> np.ndarray:
        """Whether points (..., 2) are within `grown` of their goal rows: inside an obstacle's box grown by it
        (square corners), else within it of the goal's edge. `goals` and `grown` broadcast against the points."""
        offset = np.abs(points - self.pos[goals])
        obstacle = self.obstacle[goals]
        box = (offset <= self.half[goals] + np.asarray(grown)[..., None]).all(axis=-1)
        if np.all(obstacle):  # the usual case (workers at fields and halls): no circle test to pay for
            return box
        return np.where(obstacle, box, np.sqrt(sum_xy(offset * offset)) <= grown + self.radius[goals])

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
