"""Where a new ground unit may stand: the nearest free spot, tested against a grid of the units near it."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

import numpy as np

from sc2env.engine.fast import count_nonzero
from sc2env.engine.paths import box_distance
from sc2env.engine.walls import SAMPLED_ERROR

if TYPE_CHECKING:
    from sc2env.engine.world import World

_STEP, _REACH = 0.25, 8.0  # the candidate spiral: a point every 0.25 within 8 of the asked point
_SLACK = 1e-9  # touching is free: a unit may stand this much inside another's radius


@functools.lru_cache(maxsize=1)
def _spiral() -> np.ndarray:
    """Candidate offsets for placing a unit, nearest first."""
    r = np.arange(-_REACH, _REACH + _STEP / 2, _STEP)
    grid = np.stack(np.meshgrid(r, r), -1).reshape(-1, 2)
    d = np.hypot(grid[:, 0], grid[:, 1])
    keep = d <= _REACH
    return grid[keep][np.argsort(d[keep], kind="stable")]


class Spots:
    """Free spots for one world's new units, with what it keeps between calls: the cores (see `Cores`) for
    the last few radii asked, brought up to date at each call by the units that came, went or moved since."""

    KEPT = 4  # radii whose cores are kept (a wave of Zerglings and Banelings asks for two in turn)
    ASKED = 64  # points whose candidates are kept (scripts respawn groups at the same few points)
    # Units in the world from which the cores pay for their upkeep: fewer block only a few runs' worth of
    # candidates, and skipping the cores changes no answer (what they rule out, the exact test rules out too).
    CROWD = 64

    def __init__(self) -> None:
        self._cores: dict[float, Cores] = {}
        self._candidates: dict[tuple[float, float, float], Candidates] = {}

    def free_spot(self, w: World, x: float, y: float, radius: float) -> tuple[float, float]:
        """The nearest point to (x, y) where a ground unit of `radius` overlaps no unit or obstacle (SC2's
        "normal" placement of created units): (x, y), moved into the pathable area if it lies off it, when
        that is free; else the first free candidate of the spiral round it inside the area; that point itself
        if none is free."""
        b = w.pathable
        x, y = b.clamp(x, y, radius)  # a point off the pathable area: start from the nearest one on it
        origin = np.array([x, y])
        walls = w.walls
        if free_here(w, origin, radius) and (
            walls is None or walls.clearance(origin[None])[0] >= radius
        ):  # (x, y) itself first, even in an area narrower than the unit
            return x, y
        key = (x, y, radius)
        asked = self._candidates.get(key)
        if asked is None:
            if len(self._candidates) >= self.ASKED:
                self._candidates.clear()
            asked = self._candidates[key] = Candidates(w, origin, radius)
        # Then the rest of the spiral, nearest first: the candidates inside the area (and, in a crowd, off every
        # core), tested in growing runs (a crowd near (x, y) needs a few hundred tests, not all few thousand).
        candidates = asked.points
        if w.n >= self.CROWD:
            cores = self._cores.pop(radius, None) or Cores(w, radius)
            self._cores[radius] = cores  # the most recent last: the oldest goes first
            if len(self._cores) > self.KEPT:
                del self._cores[next(iter(self._cores))]
            cores.update(w)
            if asked.cells is None:
                asked.cells = cores.cells(asked.points)
            candidates = candidates[~cores.blocked_cells(asked.cells)]
        blockers: Blockers | None = None
        start, run = 0, 64
        while start < len(candidates):
            blockers = blockers or Blockers(w, origin, radius)
            tested = candidates[start : start + run]
            free = blockers.free(tested)
            if count_nonzero(free):
                k = int(np.argmax(free))
                return float(tested[k, 0]), float(tested[k, 1])
            start, run = start + run, 2 * run
        return x, y


def free_here(w: World, point: np.ndarray, radius: float) -> bool:
    """Whether a unit of `radius` at `point` overlaps no unit or obstacle (one point: every unit, at once)."""
    c = (w.collides & ~w.hidden).nonzero()[0]
    rel = point - w.pos[c]
    if not (np.hypot(rel[:, 0], rel[:, 1]) >= radius + w.radius[c] - _SLACK).all():
        return False
    o = (w.obstacle & ~w.hidden).nonzero()[0]
    return bool((box_distance(point, w.pos[o], w.half[o]) >= radius - _SLACK).all())


class Cores:
    """Per cell of a fine raster over the pathable area, how many units each alone block every point of it for
    a new unit of `radius`: a candidate in a cell some unit covers is blocked without a test (in a crowd,
    nearly all are), and the exact test decides the others, so the answers are the same.

    A cell counts for a unit only when its farthest corner lies inside the unit's blocking radius by a margin
    far beyond rounding, so that the exact test says blocked for every point of it. The counts follow the
    world: each update takes off the units that went, moved or were hidden since the last, and adds those
    that came, moved or were shown, so that a setup placing hundreds of units, or a script re-creating a
    group one by one, costs a few stamps a call, not a rebuild.
    """

    CELL = 0.125
    MARGIN = 1e-6

    def __init__(self, w: World, radius: float):
        b = w.pathable
        self.radius = radius
        self.low = np.array([b.x0, b.y0])
        self.shape = (int((b.y1 - b.y0) / self.CELL) + 2, int((b.x1 - b.x0) / self.CELL) + 2)
        self.count = np.zeros(self.shape, np.uint16)  # a cell may lie in the cores of every unit (10,000)
        # The units stamped, by tag (World keeps tags sorted), and how: x, y, radius, whether it blocks
        # (collides, not hidden).
        self.tags: np.ndarray = np.zeros(0, np.int64)
        self.state: np.ndarray = np.zeros((0, 4))

    def update(self, w: World) -> None:
        """Stamp the cores as the units stand now."""
        tags, state = w.tag.copy(), np.column_stack((w.pos, w.radius, w.collides & ~w.hidden))
        old_tags, old_state = self.tags, self.state
        if len(old_tags):
            at = np.minimum(np.searchsorted(old_tags, tags), len(old_tags) - 1)
            same = (old_tags[at] == tags) & (old_state[at] == state).all(axis=1)
        else:
            at, same = np.zeros(len(tags), np.int64), np.zeros(len(tags), bool)
        kept = np.zeros(len(old_tags), bool)
        kept[at[same]] = True
        self._stamp(old_state[~kept], -1)
        self._stamp(state[~same], 1)
        self.tags, self.state = tags, state

    def _stamp(self, rows: np.ndarray, delta: int) -> None:
        """Add `delta` to the count of the cells whose four corners all lie within the blocking radius of one
        of the blocking `rows` (x, y, radius, blocks)."""
        rows = rows[rows[:, 3] > 0]
        if not len(rows):
            return
        centres, reach = rows[:, :2], self.radius + rows[:, 2] - _SLACK - self.MARGIN
        h = self.CELL
        span = int(np.ceil(float(reach.max()) / h)) + 1
        offsets = np.arange(-span, span + 1)
        first = np.floor((centres - self.low) / h).astype(np.int64)
        cx = first[:, 0, None, None] + offsets[None, None, :]  # (units, 1, cols)
        cy = first[:, 1, None, None] + offsets[None, :, None]  # (units, rows, 1)
        # The farthest corner of cell (cx, cy) from the centre, per axis.
        x0 = self.low[0] + cx * h - centres[:, 0, None, None]
        y0 = self.low[1] + cy * h - centres[:, 1, None, None]
        far_x = np.maximum(np.abs(x0), np.abs(x0 + h))
        far_y = np.maximum(np.abs(y0), np.abs(y0 + h))
        height, width = self.shape
        inside = (far_x * far_x + far_y * far_y < (reach * reach)[:, None, None]) & (
            (cx >= 0) & (cx < width) & (cy >= 0) & (cy < height)
        )
        units, ys, xs = np.nonzero(inside)
        flat = cy[units, ys, 0] * width + cx[units, 0, xs]
        counts = self.count.reshape(-1)
        if delta > 0:
            np.add.at(counts, flat, np.uint16(delta))
        else:
            np.subtract.at(counts, flat, np.uint16(-delta))

    def cells(self, points: np.ndarray) -> np.ndarray:
        """The raster cell of each point as a flat index, -1 off the raster (the same for every radius: the
        raster covers the pathable area)."""
        cells = np.floor((points - self.low) / self.CELL).astype(np.int64)
        rows, cols = self.shape
        on = (cells[:, 0] >= 0) & (cells[:, 0] < cols) & (cells[:, 1] >= 0) & (cells[:, 1] < rows)
        return np.where(on, cells[:, 1] * cols + cells[:, 0], -1)

    def blocked_cells(self, cells: np.ndarray) -> np.ndarray:
        """Whether each cell (flat indices from `cells`) is one a unit blocks entirely (False off the raster)."""
        return (self.count.reshape(-1)[cells] > 0) & (cells >= 0)

    def blocked(self, points: np.ndarray) -> np.ndarray:
        """Whether each point lies in a cell one unit blocks entirely (False off the raster)."""
        return self.blocked_cells(self.cells(points))


class Candidates:
    """The spiral round an asked point (after the point itself) as far as units can't change it: the points
    inside the pathable area shrunk by `radius` and, on a walled map, surely clear of its walls, nearest first.
    Kept per asked point: walls and area last the whole game."""

    def __init__(self, w: World, origin: np.ndarray, radius: float):
        b = w.pathable
        points = origin + _spiral()[1:]
        points = points[
            (points[:, 0] >= b.x0 + radius)
            & (points[:, 0] <= b.x1 - radius)
            & (points[:, 1] >= b.y0 + radius)
            & (points[:, 1] <= b.y1 - radius)
        ]
        if w.walls is not None:  # on the pathable cells, surely clear of the unpathable ones
            points = points[w.walls.sampled(points) >= radius + SAMPLED_ERROR]
        self.points = points
        self.cells: np.ndarray | None = None  # their raster cells (Cores.cells), once a crowd asks for them


class Blockers:
    """The units and obstacles that could block a unit of `radius` anywhere on the spiral round `origin`,
    the units binned in a grid of cells as wide as the farthest a unit can block from, so that each
    candidate is tested against the few units of its own and the eight neighbouring cells only.

    Far units can block no candidate and near units are tested with the very expressions of an all-pairs
    test, so the answers are exactly those of testing every unit: placements do not change.
    """

    def __init__(self, w: World, origin: np.ndarray, radius: float):
        self.radius = radius
        shown = ~w.hidden
        units = (w.collides & shown).nonzero()[0]
        reach = _REACH + radius + 1.0  # from the origin, the farthest a blocker can stand, and a margin
        if len(units):
            near = np.abs(w.pos[units] - origin).max(axis=1) < reach + w.radius[units]
            units = units[near]
        self.pos, self.radii = w.pos[units], w.radius[units]
        self.limits = self.radius + self.radii - _SLACK  # a candidate closer than this to a unit is blocked
        self.cell = radius + (float(self.radii.max()) if len(units) else 0.0) + _SLACK
        self.low = origin - (reach + self.cell)
        self.side = int(2 * (reach + self.cell) / self.cell) + 2
        self._grid: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None  # binned once a big test needs it
        obstacles = (w.obstacle & shown).nonzero()[0]
        if len(obstacles):
            near = box_distance(origin, w.pos[obstacles], w.half[obstacles]) < reach
            obstacles = obstacles[near]
        self.box_centres, self.box_halves = w.pos[obstacles][None], w.half[obstacles][None]

    # Up to this many (candidate, unit) pairs, every pair is tested at once: cheaper than finding the few near
    # pairs in the grid, and the pairs the grid would skip are too far apart to block.
    ALL_PAIRS = 1 << 14

    def _cells(self, points: np.ndarray) -> np.ndarray:
        return np.floor((points - self.low) / self.cell).astype(np.int64)

    def _binned(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The units binned in the grid: (their order by cell, units per cell, where each cell's run starts)."""
        if self._grid is None:
            cells = self._cells(self.pos).clip(0, self.side - 1)
            flat = cells[:, 1] * self.side + cells[:, 0]
            counts = np.bincount(flat, minlength=self.side * self.side)
            self._grid = np.argsort(flat, kind="stable"), counts, np.cumsum(counts) - counts
        return self._grid

    def free(self, candidates: np.ndarray) -> np.ndarray:
        """Per candidate point, whether a unit of `radius` standing there overlaps nothing."""
        free = np.ones(len(candidates), bool)
        if len(self.pos) and len(self.pos) * len(candidates) <= self.ALL_PAIRS:
            dx = candidates[:, 0, None] - self.pos[:, 0]
            dy = candidates[:, 1, None] - self.pos[:, 1]
            free &= ~np.logical_or.reduce(np.hypot(dx, dy) < self.limits, axis=1)
        elif len(self.pos):
            which, rows = self._pairs(candidates)
            rel = candidates[which] - self.pos[rows]
            d = np.hypot(rel[:, 0], rel[:, 1])
            free[which[d < self.limits[rows]]] = False
        if self.box_centres.shape[1]:
            d = box_distance(candidates[:, None, :], self.box_centres, self.box_halves)
            free &= (d >= self.radius - _SLACK).all(axis=1)
        return free

    def _pairs(self, candidates: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(candidate index, unit index) of every unit in each candidate's 3x3 block of cells."""
        side = self.side
        order, units_per_cell, starts = self._binned()
        cells = self._cells(candidates)
        cx = cells[:, 0, None] + _NEIGHBOURS[:, 0]
        cy = cells[:, 1, None] + _NEIGHBOURS[:, 1]
        flat = (cy.clip(0, side - 1) * side + cx.clip(0, side - 1)).ravel()
        counts = np.where(
            ((cx >= 0) & (cx < side) & (cy >= 0) & (cy < side)).ravel(), units_per_cell[flat], 0
        )
        total = int(counts.sum())
        which = np.repeat(np.arange(len(candidates)).repeat(9), counts)
        # Entry k of a block's run is unit order[start + k]: offsets within each run, then the runs' starts.
        ends = np.cumsum(counts)
        within = np.arange(total) - np.repeat(ends - counts, counts)
        rows = order[np.repeat(starts[flat], counts) + within]
        return which, rows


_NEIGHBOURS = np.array([(dx, dy) for dy in (-1, 0, 1) for dx in (-1, 0, 1)])
