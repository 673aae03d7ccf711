"""Straight legs of a few units committed in Python floats: the common batch of a small battle, bit for bit as
Motion's array code commits it."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from sc2env.engine.fast import count_nonzero as _count

if TYPE_CHECKING:
    from sc2env.engine.movement import Motion

FEW_ROWS = 7
"""Up to this many moving rows, Python floats cost less than numpy's fixed cost per call (a 3m battle has 6)."""


Rows = slice | np.ndarray
"""Where the moving rows are: every row (a slice: no gathering), or their indices."""


def _index(world: Motion, rows: np.ndarray) -> Rows:
    return slice(None) if len(rows) == world.n else rows


def applies(world: Motion, rows: int) -> bool:
    """Whether `rows` moving rows of `world` move the simple way: a few, in straight legs (no obstacle, wall
    or waypoint), at their top speed from the first loop, with no distance owed and no ghost among them."""
    return (
        rows <= FEW_ROWS
        and not world.steers
        and not world.accelerating_count
        and not _count(world.ghost)
        and not _count(world.boost)
    )


def prepare(world: Motion, moving: np.ndarray) -> bool:
    """Motion.prepare for the simple case (`applies`) on its `moving` rows: followers aim at their goal unit
    (those whose goal is gone stop), everyone's leg is set; returns whether some follows a moving unit."""
    rows = moving.tolist()
    index = _index(world, moving)
    tags = world.goal_tag[index].tolist()
    slot = world._slot
    goals = [slot.get(tag) if tag else None for tag in tags]
    lost = [i for i, tag, j in zip(rows, tags, goals) if tag and j is None]
    if lost:  # the goal unit is gone: the leg ends here
        world.moving[lost] = False
        world.goal_tag[lost] = 0
        kept = [(i, j) for i, tag, j in zip(rows, tags, goals) if not tag or j is not None]
        rows, goals = [i for i, _ in kept], [j for _, j in kept]
        index = np.array(rows, np.intp)
    followers = [i for i, j in zip(rows, goals) if j is not None]
    chasing_mover = False
    if followers:
        followed = [j for j in goals if j is not None]
        world.goal[followers] = world.pos[followed]
        chasing_mover = bool(_count(world.moving[followed]))
    if not rows:
        return chasing_mover
    aim = world.goal[index]
    world.target[index] = aim
    radius = world.radius.tolist()
    legs = []
    for (x, y), (tx, ty), reach, i, j in zip(
        world.pos[index].tolist(), aim.tolist(), world.reach[index].tolist(), rows, goals
    ):
        dx, dy = tx - x, ty - y
        to_target = math.sqrt(dx * dx + dy * dy)
        # To within reach of the goal point, or of the goal unit's edge (as Motion._legs, np.maximum's order).
        leg = to_target - reach if j is None else to_target - (radius[i] + reach) - radius[j]
        legs.append(leg if leg >= 0.0 else 0.0)
    world.leg[index] = legs
    return chasing_mover


def free_loops(world: Motion, limit: int) -> int:
    """Motion's loops until the first leg ends, for the simple case (`applies`): of the units without a weapon
    target, the least ceil(leg / speed), at least 1 and at most `limit`."""
    going = (world.moving & (world.engaged == 0)).nonzero()[0]
    if not len(going):
        return limit
    index = _index(world, going)
    # math.ceil gives as an int the whole float np.ceil gives (legs are finite and speeds positive).
    loops = min(
        math.ceil(leg / speed) for leg, speed in zip(world.leg[index].tolist(), world.speed[index].tolist())
    )
    return min(limit, max(loops, 1))


class StraightTrajectory:
    """Motion's Trajectory for the simple case (`applies`), kept as Python floats: the moving `rows`, where each
    started, its top speed, its leg and its unit direction; arrays only when asked for (`positions`)."""

    def __init__(self, world: Motion, rows: np.ndarray, k: int):
        self.world, self.rows, self.k = world, rows, k
        self.index = index = _index(world, rows)
        self.starts = world.pos[index].tolist()  # (a copy: the world's rows move on)
        self.speeds = world.speed[index].tolist()
        self.legs = world.leg[index].tolist()
        dx, dy = [], []
        for (x, y), (tx, ty) in zip(self.starts, world.target[index].tolist()):
            dx.append(tx - x)
            dy.append(ty - y)
        # As Trajectory: delta / hypot(delta), by 1 where delta is (0, 0); numpy's hypot, not math's (they
        # differ in the last bit for some inputs).
        self.units = [
            (x / d, y / d) if d > 0 else (x / 1.0, y / 1.0)
            for x, y, d in zip(dx, dy, np.hypot(dx, dy).tolist())
        ]

    def travel(self, t: int) -> list[float]:
        """Each row's distance covered after t loops (1..k): t times its speed, capped at its leg."""
        # numpy takes steps * speed with the step as a float and np.minimum keeps the first of equals: the same.
        return [min(t * speed, leg) for speed, leg in zip(self.speeds, self.legs)]

    def positions(self) -> np.ndarray:
        """Positions of all rows of the world after each of the k loops, shape (k, n, 2)."""
        out = np.repeat(self.world.pos[None], self.k, axis=0)
        for t in range(1, self.k + 1):
            out[t - 1, self.rows] = [
                (x + d * ux, y + d * uy)
                for (x, y), d, (ux, uy) in zip(self.starts, self.travel(t), self.units)
            ]
        return out


def advance(world: Motion, trajectory: StraightTrajectory, t: int) -> tuple[list[int], list[int]]:
    """Motion.advance for the simple case (`applies`): the same operations on Python floats, in the same order
    (numpy's elementwise arithmetic and sqrt are IEEE's; the arctangent stays numpy's own)."""
    rows, index = trajectory.rows.tolist(), trajectory.index
    starts = trajectory.starts
    ends, expected = [], []
    turned, turn_x, turn_y = [], [], []
    for i, (x0, y0), distance, (ux, uy) in zip(rows, starts, trajectory.travel(t), trajectory.units):
        x, y = x0 + distance * ux, y0 + distance * uy
        step_x, step_y = x - x0, y - y0
        length = math.sqrt(step_x * step_x + step_y * step_y)
        if length > 0:
            turned.append(i)
            turn_x.append(step_x)
            turn_y.append(step_y)
        ends.append((x, y))
        expected.append(length)
    if turned:
        facing = np.arctan2(turn_y, turn_x) % (2 * math.pi)
        world.facing[index if len(turned) == len(rows) else turned] = facing
    world.pos[index] = ends
    world.settle()
    world.version += 1
    return _arrivals(world, rows, index, starts, expected)


def _arrivals(
    world: Motion, rows: list[int], index: Rows, starts: list[list[float]], expected: list[float]
) -> tuple[list[int], list[int]]:
    """Motion._arrivals for the simple case: no waypoint, no ghost (so no loops late to report), no owed
    distance; a follower has arrived within reach of its goal unit's edge."""
    slot = world._slot
    radius = world.radius.tolist()
    done = []
    for k, ((x, y), (tx, ty), reach, goal, (x0, y0), length) in enumerate(
        zip(
            world.pos[index].tolist(),
            world.target[index].tolist(),
            world.reach[index].tolist(),
            world.goal_tag[index].tolist(),
            starts,
            expected,
        )
    ):
        dx, dy = tx - x, ty - y
        left = math.sqrt(dx * dx + dy * dy) - reach
        mx, my = x - x0, y - y0
        blocked = mx * mx + my * my < 0.25 * length * length and length > 0
        j = slot.get(goal) if goal else None
        # A follower arrives within reach of its goal unit's edge.
        reached = left <= 1e-9 if j is None else left + reach <= radius[rows[k]] + reach + 1e-6 + radius[j]
        if reached or (left < 1.0 and blocked):  # arrived, or crowded out of reaching its goal
            done.append(rows[k])
    if not done:
        return [], []
    world.moving[done] = False
    world.velocity[done] = 0.0
    return world.tag[done].tolist(), [0] * len(done)
