"""Ground units and a map's unpathable cells: clearance from them, pushing units out, and paths round them.

A path is searched on the cells (8 neighbours, a diagonal step only between two pathable side cells) with a
distance field per goal cell, kept for the game; a unit walks to the farthest cell of its path it can reach in
a straight line (the line sampled every 0.2 cells, kept its radius clear of blocked cells), so on an open
field it walks straight and round a wall it cuts the corner as closely as its size allows.
"""

from __future__ import annotations

import heapq
import math

import numpy as np

_NEAR = np.array([(dx, dy) for dy in (-2, -1, 0, 1, 2) for dx in (-2, -1, 0, 1, 2)])  # cells within reach
_PAD = 3  # blocked cells round the map in `_blocked`: the cells off it, up to _NEAR's reach from the next one out
_FAR = 2.0  # clearance reported when no blocked cell lies within two cells (more than any radius needs)
_FINE = 16  # raster points per cell side for line tests
SAMPLED_ERROR = math.sqrt(2) / (2 * _FINE)  # how far `sampled` may be off: half a raster cell's diagonal
_SAMPLE = 0.2  # spacing of the points a straight line is tested at
_SLACK = 0.9  # a line counts as clear while it keeps this share of the unit's radius off every blocked cell
_LOOKAHEAD = 24  # path cells looked along for the farthest one in a straight line
_STEPS = [(1, 0, 1.0), (-1, 0, 1.0), (0, 1, 1.0), (0, -1, 1.0)] + [
    (dx, dy, math.sqrt(2)) for dx in (-1, 1) for dy in (-1, 1)
]


class Walls:
    """The unpathable cells of one map (bool grid `blocked`, row 0 at y = 0; off the map counts as blocked)."""

    def __init__(self, pathable: np.ndarray):
        self.h, self.w = pathable.shape
        self.open = pathable.copy()
        # Padded by blocked cells all round, so that the neighbours of any cell next to the map index safely.
        self._blocked = np.pad(~pathable, _PAD, constant_values=True)
        self._fields: dict[tuple[int, int], np.ndarray] = {}
        self.component = self._components()
        # Clearance sampled every 1/_FINE cell (at the corners of a fine raster over the map), for line tests:
        # the exact computation for every point of a long line, for dozens of units each batch, costs too much.
        self._raster = self._rasterise()

    # ---- clearance --------------------------------------------------------------------------------------
    def clearance(self, points: np.ndarray) -> np.ndarray:
        """Distance from each point (n, 2) to the nearest blocked cell, up to 2 (farther ones are not looked for)."""
        cells = np.floor(points).astype(np.int64)
        cells = np.clip(cells, -1, (self.w, self.h))  # off the map: a blocked cell of the padding
        near = cells[:, None, :] + _NEAR  # (n, 25, 2)
        blocked = self._blocked[near[..., 1] + _PAD, near[..., 0] + _PAD]
        gap = np.maximum(np.abs(points[:, None, :] - (near + 0.5)) - 0.5, 0.0)
        dist = np.where(blocked, np.hypot(gap[..., 0], gap[..., 1]), _FAR)
        return np.minimum.reduce(dist, axis=1)

    def _rasterise(self) -> np.ndarray:
        """`clearance` at every raster corner (row k at y = k / _FINE), offset by offset of _NEAR: a corner's
        gap to a cell splits into an x part per column and a y part per row."""
        xs = np.arange(self.w * _FINE + 1) / _FINE
        ys = np.arange(self.h * _FINE + 1) / _FINE
        cx = np.clip(np.floor(xs).astype(np.int64), -1, self.w)
        cy = np.clip(np.floor(ys).astype(np.int64), -1, self.h)
        out = np.full((len(ys), len(xs)), _FAR)
        for dx, dy in _NEAR.tolist():
            gap_x = np.maximum(np.abs(xs - (cx + dx + 0.5)) - 0.5, 0.0)
            gap_y = np.maximum(np.abs(ys - (cy + dy + 0.5)) - 0.5, 0.0)
            blocked = self._blocked[(cy + dy + _PAD)[:, None], (cx + dx + _PAD)[None, :]]
            np.minimum(out, np.where(blocked, np.hypot(gap_y[:, None], gap_x[None, :]), _FAR), out=out)
        return out

    def push_out(self, points: np.ndarray, radii: np.ndarray) -> np.ndarray:
        """The points (n, 2) moved the least so that each keeps its radius off every blocked cell (three
        rounds: a unit in a corner is pushed by two walls in turn)."""
        points = points.copy()
        for _ in range(3):
            cells = np.floor(points).astype(np.int64)
            cells = np.clip(cells, -1, (self.w, self.h))
            near = cells[:, None, :] + _NEAR
            blocked = self._blocked[near[..., 1] + _PAD, near[..., 0] + _PAD]
            lo, hi = near.astype(float), near + 1.0
            closest = np.clip(points[:, None, :], lo, hi)
            away = points[:, None, :] - closest
            dist = np.hypot(away[..., 0], away[..., 1])
            hit = blocked & (dist < radii[:, None] - 1e-9)
            if not hit.any():
                break
            for u, k in np.argwhere(hit).tolist():  # few contacts: one at a time, each from where it is now
                p = points[u]
                cell_lo = lo[u, k]
                q = np.clip(p, cell_lo, cell_lo + 1.0)
                d = p - q
                length = math.hypot(d[0], d[1])
                r = radii[u]
                if length >= r:
                    continue
                if length > 1e-12:
                    points[u] = q + d / length * r
                else:  # the centre inside the cell: out by the nearest face towards open ground
                    points[u] = self._out_of_cell(p, cell_lo, r)
        return points

    def _out_of_cell(self, p: np.ndarray, cell_lo: np.ndarray, r: float) -> np.ndarray:
        faces = []
        cx, cy = int(cell_lo[0]), int(cell_lo[1])
        for axis, side, dx, dy in ((0, 0, -1, 0), (0, 1, 1, 0), (1, 0, 0, -1), (1, 1, 0, 1)):
            if self._blocked[cy + dy + _PAD, cx + dx + _PAD]:
                continue
            edge = cell_lo[axis] + side
            faces.append((abs(p[axis] - edge), axis, edge + (r if side else -r)))
        out = p.copy()
        if faces:
            _, axis, value = min(faces)
            out[axis] = value
        return out

    def sampled(self, points: np.ndarray) -> np.ndarray:
        """About `clearance(points)`: the raster's value at the nearest corner, off by at most SAMPLED_ERROR
        (clearance changes no faster than the distance moved)."""
        ix = np.clip(np.rint(points[:, 0] * _FINE).astype(np.int64), 0, self._raster.shape[1] - 1)
        iy = np.clip(np.rint(points[:, 1] * _FINE).astype(np.int64), 0, self._raster.shape[0] - 1)
        return self._raster[iy, ix]

    def clear(self, starts: np.ndarray, ends: np.ndarray, radii: np.ndarray) -> np.ndarray:
        """Whether each straight line starts[k] -> ends[k] keeps (most of) radii[k] off every blocked cell."""
        if not len(starts):
            return np.zeros(0, bool)
        seg = ends - starts
        length = np.hypot(seg[:, 0], seg[:, 1])
        samples = int(np.ceil(length.max() / _SAMPLE)) + 1
        t = np.linspace(0.0, 1.0, samples)
        points = starts[:, None, :] + t[None, :, None] * seg[:, None, :]
        room = self.sampled(points.reshape(-1, 2)).reshape(len(starts), samples)
        need = np.minimum(radii * _SLACK, 0.5)[:, None]
        # A unit already closer than that (pushed there) may still walk out: only getting closer counts.
        start_room = room[:, :1]
        return np.logical_and.reduce((room >= need) | (room >= start_room - 1e-9), axis=1)

    # ---- paths ------------------------------------------------------------------------------------------
    def _components(self) -> np.ndarray:
        """Label per cell of the pieces of pathable ground one can walk between (-1: blocked)."""
        label = np.full((self.h, self.w), -1, np.int64)
        n = 0
        for y, x in zip(*np.nonzero(self.open)):
            if label[y, x] >= 0:
                continue
            label[y, x] = n
            stack = [(int(x), int(y))]
            while stack:
                cx, cy = stack.pop()
                for nx, ny, _ in self._neighbours(cx, cy):
                    if label[ny, nx] < 0:
                        label[ny, nx] = n
                        stack.append((nx, ny))
            n += 1
        return label

    def _neighbours(self, x: int, y: int):
        o = self.open
        for dx, dy, cost in _STEPS:
            nx, ny = x + dx, y + dy
            if not (0 <= nx < self.w and 0 <= ny < self.h and o[ny, nx]):
                continue
            if dx and dy and not (o[y, nx] and o[ny, x]):  # no squeezing between two diagonal walls
                continue
            yield nx, ny, cost

    def field(self, goal: tuple[int, int]) -> np.ndarray:
        """Path length from every cell to the pathable cell `goal` (inf where it can't be reached)."""
        known = self._fields.get(goal)
        if known is not None:
            return known
        dist = np.full((self.h, self.w), np.inf)
        gx, gy = goal
        dist[gy, gx] = 0.0
        heap = [(0.0, gx, gy)]
        while heap:
            d, x, y = heapq.heappop(heap)
            if d > dist[y, x]:
                continue
            for nx, ny, cost in self._neighbours(x, y):
                nd = d + cost
                if nd < dist[ny, nx]:
                    dist[ny, nx] = nd
                    heapq.heappush(heap, (nd, nx, ny))
        self._fields[goal] = dist
        return dist

    def _cell(self, point: np.ndarray) -> tuple[int, int]:
        x = min(max(math.floor(point[0]), 0), self.w - 1)
        y = min(max(math.floor(point[1]), 0), self.h - 1)
        return x, y

    def reachable_goal(self, start: np.ndarray, goal: np.ndarray) -> np.ndarray:
        """`goal`, or when no path leads there from `start`, the centre of the reachable cell nearest to it."""
        sx, sy = self._nearest_open(self._cell(start), start)
        gx, gy = self._cell(goal)
        piece = self.component[sy, sx]
        if self.component[gy, gx] == piece:
            return goal
        ys, xs = np.nonzero(self.component == piece)
        centres = np.column_stack((xs + 0.5, ys + 0.5))
        k = int(np.argmin(np.hypot(*(centres - goal).T)))
        return centres[k]

    def _nearest_open(self, cell: tuple[int, int], point: np.ndarray) -> tuple[int, int]:
        x, y = cell
        if self.open[y, x]:
            return cell
        ys, xs = np.nonzero(self.open)
        k = int(np.argmin(np.hypot(xs + 0.5 - point[0], ys + 0.5 - point[1])))
        return int(xs[k]), int(ys[k])

    def waypoint(self, start: np.ndarray, goal: np.ndarray, radius: float) -> np.ndarray:
        """Where a ground unit of `radius` at `start` heads for on its way to `goal` (reachable, see
        `reachable_goal`): the goal itself when the straight line is clear, else the farthest cell centre of its
        path it can walk to in a straight line (the next cell when none)."""
        r = np.array([radius])
        if self.clear(start[None], goal[None], r)[0]:
            return goal
        field = self.field(self._nearest_open(self._cell(goal), goal))
        x, y = self._nearest_open(self._cell(start), start)
        if not np.isfinite(field[y, x]):
            return goal
        path = []
        for _ in range(_LOOKAHEAD):
            if field[y, x] == 0.0:
                break
            x, y = min(self._neighbours(x, y), key=lambda n: field[n[1], n[0]] + n[2] * 1e-6)[:2]
            path.append((x + 0.5, y + 0.5))
        if not path:
            return goal
        ends = np.array(path)
        clear = self.clear(np.repeat(start[None], len(ends), axis=0), ends, np.full(len(ends), radius))
        visible = np.nonzero(clear)[0]
        return ends[visible[-1]] if len(visible) else ends[0]
