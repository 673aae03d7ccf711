"""Collision (a base of World): overlapping mobile units pushed apart, out of obstacle boxes and into the
pathable area, at the end of each batch of loops."""

from __future__ import annotations

import math

import numpy as np

from sc2env.engine import paths
from sc2env.engine.fast import count_nonzero as _count
from sc2env.engine.fast import sum_rows as _sum_rows
from sc2env.engine.world_state import WorldState


class Collision(WorldState):
    """Soft collision of a world's units (Motion settles them after each batch; scripts after teleports)."""

    def settle(self) -> None:
        """Push overlapping mobile units apart (soft collision), out of obstacle boxes, and into the
        pathable area."""
        self._push_apart()
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
            if self.walls is not None:
                self._off_walls(mobile[self.grounded[mobile]])

    def _off_walls(self, rows: np.ndarray) -> None:
        """Push ground rows that overlap an unpathable cell out of it."""
        walls = self.walls
        if walls is None or not len(rows):
            return
        radius = self.radius[rows]
        close = walls.clearance(self.pos[rows]) < radius - 1e-9
        if _count(close):
            near = rows[close]
            self.pos[near] = walls.push_out(self.pos[near], self.radius[near])

    def _push_apart(self) -> None:
        """Move each pair of overlapping colliders apart by half their overlap each (soft collision)."""
        clear = not _count(self.ghost) and not _count(self.hidden)  # the per-row sets below hold
        colliders = (
            self.per_rows("colliders", lambda: self.collides.nonzero()[0])
            if clear
            else (self.collides & ~self.ghost & ~self.hidden).nonzero()[0]
        )
        if len(colliders) < 2:
            return
        if clear:
            reach, limit = self.per_rows(
                "collider_reach", lambda: _contact_limits(self.radius[colliders], self.grounded[colliders])
            )
        else:
            reach, limit = _contact_limits(self.radius[colliders], self.grounded[colliders])
        every = len(colliders) == self.n  # then pushed in place, not gathered and scattered back
        pos = self.pos if every else self.pos[colliders]
        if len(colliders) <= FEW_COLLIDERS:
            lists = (
                self.per_rows("collider_reach_lists", lambda: (reach.tolist(), limit.tolist()))
                if clear
                else (reach.tolist(), limit.tolist())
            )
            pushed = push_few(pos, *lists)
        else:
            pushed = None
        if pushed is None:
            pushed = push_many(pos, reach, limit)
        if pushed and not every:
            self.pos[colliders] = pos

    def _mobile_bounds(self, mobile: np.ndarray) -> tuple[np.ndarray, ...]:
        """Rows `mobile`, the lowest and highest centre each may have (inside the pathable area), and how
        far from an obstacle box each must stay."""
        radii = self.radius[mobile, None]
        return mobile, self.low_corner + radii, self.high_corner - radii, radii - 1e-9


FEW_COLLIDERS = 7
"""Up to this many colliders, pairs are pushed apart in Python floats (a few units: cheaper than arrays); numpy
sums a row this short from left to right, so the two ways give the same bits."""


def push_few(pos: np.ndarray, reach: list[list[float]], limit: list[list[float]]) -> bool | None:
    """`push_many` on a few colliders, pair by pair in Python floats with the same operations and the same order
    of each row's sum; None (nothing done) if two of them stand on one point, which `push_many` parts."""
    xs, ys = pos[:, 0].tolist(), pos[:, 1].tolist()
    n = len(xs)
    sum_x, sum_y = [0.0] * n, [0.0] * n
    touched = False
    for i in range(n - 1):
        xi, yi, reach_i, limit_i = xs[i], ys[i], reach[i], limit[i]
        for j in range(i + 1, n):
            # pos_j - pos_i is exactly -(dx, dy): the pair's terms are opposite
            dx, dy = xi - xs[j], yi - ys[j]
            d2 = dx * dx + dy * dy
            if d2 < limit_i[j]:
                dist = math.sqrt(d2)
                if dist < 1e-9:
                    return None
                share = (reach_i[j] - dist) * 0.5 / max(dist, 1e-12)
                # Row i adds partner j's term after those of the partners before j, as numpy's row sum does.
                px, py = share * dx, share * dy
                sum_x[i] += px
                sum_y[i] += py
                sum_x[j] -= px
                sum_y[j] -= py
                touched = True
    if touched:
        pos[:, 0] += sum_x
        pos[:, 1] += sum_y
    return touched


def push_many(pos: np.ndarray, reach: np.ndarray, limit: np.ndarray) -> bool:
    """Push the colliders at `pos` (moved in place) apart: each touching pair (d^2 < limit) by half its overlap
    (reach: the sum of their radii) each. Returns whether any pair touched."""
    x, y = pos[:, 0], pos[:, 1]
    dx, dy = x[:, None] - x, y[:, None] - y  # [i, j] = pos_i - pos_j
    d2 = dx * dx + dy * dy
    touching = d2 < limit
    if not _count(touching):
        return False
    dist = np.sqrt(d2)
    together = touching & (dist < 1e-9)
    if _count(together):  # coincident units split along a direction that differs per pair,
        # opposite for the two units of a pair ([i, j] = -[j, i]) so that they part
        k = np.arange(len(pos))
        angle = (np.minimum.outer(k, k) * len(pos) + np.maximum.outer(k, k)) * 2.399963
        away = np.sign(np.subtract.outer(k, k))
        dx = np.where(together, away * np.cos(angle), dx)
        dy = np.where(together, away * np.sin(angle), dy)
        dist = np.where(together, 1.0, dist)
    share = np.where(touching, (reach - dist) * 0.5 / np.maximum(dist, 1e-12), 0.0)
    pos[:, 0] += _sum_rows(share * dx)
    pos[:, 1] += _sum_rows(share * dy)
    return True


def _contact_limits(r: np.ndarray, grounded: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(reach, limit) of colliders with radii r: pairs touch where d^2 < limit (never a unit with itself, nor
    a ground unit with a cliff walker, which it passes under; cliff walkers keep apart from each other)."""
    reach = r[:, None] + r
    limit = reach * reach - 1e-9
    np.fill_diagonal(limit, -np.inf)
    if not grounded.all():
        limit[grounded[:, None] != grounded[None, :]] = -np.inf
    return reach, limit
