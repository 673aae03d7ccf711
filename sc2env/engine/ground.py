"""A map's cell-by-cell ground as a definition carries it: the pathing grid, the placement grid and the height
map, one compact text encoding each (rows of characters, row 0 at world y = 0), parsed and checked into numpy
grids."""

from __future__ import annotations

import functools
import string
from dataclasses import dataclass

import numpy as np

from sc2env.engine.world import Bounds

PATHABLE, BLOCKED = ".", "#"
BUILDABLE = PATHABLE  # a placement grid's buildable cell; BLOCKED the others
LEVEL_CHARS = string.digits + string.ascii_letters
"""The characters of a height map's rows: character k is the map's k-th height level (62 at most)."""
HEIGHT_RANGE = (-16.0, 16.0)  # what the raw terrain_height grid's 8 bits span (render.Terrain)


class GroundError(ValueError):
    """A pathing grid or height map that does not fit its map; the message names the field."""


@dataclass(frozen=True)
class Ground:
    """The rows of a definition's `pathing_grid`, `placement_grid` and `height_map` (empty: the map has none)."""

    pathing_rows: tuple[str, ...] = ()
    height_levels: tuple[float, ...] = ()
    height_rows: tuple[str, ...] = ()
    placement_rows: tuple[str, ...] = ()

    @functools.cached_property
    def pathable(self) -> np.ndarray | None:
        """bool (h, w): whether ground units may stand in each cell, row 0 at y = 0; None without a grid."""
        if not self.pathing_rows:
            return None
        return np.array([[c == PATHABLE for c in row] for row in self.pathing_rows], bool)

    @functools.cached_property
    def buildable(self) -> np.ndarray | None:
        """bool (h, w): whether buildings may stand on each cell (not on ramps and cliffs), row 0 at y = 0;
        None without a placement grid (then the pathable cells are)."""
        if not self.placement_rows:
            return None
        return np.array([[c == BUILDABLE for c in row] for row in self.placement_rows], bool)

    @functools.cached_property
    def heights(self) -> np.ndarray | None:
        """float (h, w): each cell's ground height, row 0 at y = 0; None without a height map."""
        if not self.height_rows:
            return None
        levels = np.array(self.height_levels, float)
        index = np.array([[LEVEL_CHARS.index(c) for c in row] for row in self.height_rows], np.int64)
        return levels[index]

    @functools.cached_property
    def bounds(self) -> Bounds | None:
        """The rectangle round the pathable cells (where units may ever stand); None without a grid."""
        grid = self.pathable
        if grid is None:
            return None
        ys, xs = np.nonzero(grid)
        return Bounds(float(xs.min()), float(ys.min()), float(xs.max() + 1), float(ys.max() + 1))

    @functools.cached_property
    def walled(self) -> bool:
        """Whether some cell inside `bounds` is blocked: only then do ground units need more than the rectangle."""
        grid = self.pathable
        if grid is None:
            return False
        ys, xs = np.nonzero(grid)
        return not grid[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1].all()


def parse_ground(spec: dict, size: tuple[int, int]) -> Ground:
    """The `pathing_grid` and `height_map` fields of a definition, checked against its map size."""
    w, h = size
    pathing = spec.get("pathing_grid")
    rows: tuple[str, ...] = ()
    if pathing is not None:
        rows = _rows(pathing, "pathing_grid", w, h, PATHABLE + BLOCKED)
        if PATHABLE not in "".join(rows):
            raise GroundError("pathing_grid: no cell is pathable ('.'): units would have nowhere to stand")
        if "pathable_area" in spec:
            raise GroundError(
                "pathable_area: give either pathable_area or pathing_grid (the grid's pathable cells bound it)"
            )
    placement = spec.get("placement_grid")
    placement_rows: tuple[str, ...] = ()
    if placement is not None:
        if not rows:
            raise GroundError(
                "placement_grid: give a pathing_grid too (buildable cells must be pathable ones)"
            )
        placement_rows = _rows(placement, "placement_grid", w, h, BUILDABLE + BLOCKED)
        for y, (built, walked) in enumerate(zip(placement_rows, rows)):
            x = next(
                (x for x, (b, p) in enumerate(zip(built, walked)) if b == BUILDABLE and p != PATHABLE), None
            )
            if x is not None:
                raise GroundError(
                    f"placement_grid[{y}]: cell {x} is buildable but not pathable in pathing_grid; mark it '#'"
                )
    height = spec.get("height_map")
    levels: tuple[float, ...] = ()
    height_rows: tuple[str, ...] = ()
    if height is not None:
        if "terrain_height" in spec:
            raise GroundError(
                "terrain_height: give either terrain_height (one height) or height_map, not both"
            )
        if not (isinstance(height, dict) and set(height) == {"levels", "rows"}):
            raise GroundError(
                f'height_map: expected {{"levels": [heights], "rows": [rows of level characters]}}, got '
                f"{height!r}"[:300]
            )
        raw_levels = height["levels"]
        lo, hi = HEIGHT_RANGE
        if not (
            isinstance(raw_levels, list)
            and 0 < len(raw_levels) <= len(LEVEL_CHARS)
            and all(
                isinstance(v, (int, float)) and not isinstance(v, bool) and lo <= v <= hi for v in raw_levels
            )
        ):
            raise GroundError(
                f"height_map.levels: expected 1 to {len(LEVEL_CHARS)} heights from {lo:g} to {hi:g}, "
                f"got {raw_levels!r}"[:300]
            )
        levels = tuple(float(v) for v in raw_levels)
        height_rows = _rows(height["rows"], "height_map.rows", w, h, LEVEL_CHARS[: len(levels)])
    return Ground(rows, levels, height_rows, placement_rows)


def _rows(value, where: str, w: int, h: int, alphabet: str) -> tuple[str, ...]:
    if not (isinstance(value, list) and len(value) == h and all(isinstance(r, str) for r in value)):
        raise GroundError(
            f"{where}: expected {h} rows (one per cell row, the first at y = 0) of {w} characters, got "
            f"{value!r}"[:300]
        )
    for y, row in enumerate(value):
        if len(row) != w:
            raise GroundError(f"{where}[{y}]: expected {w} characters (one per cell), got {len(row)}")
        wrong = set(row) - set(alphabet)
        if wrong:
            raise GroundError(
                f"{where}[{y}]: characters {''.join(sorted(wrong))!r} are none of {alphabet!r}"[:300]
            )
    return tuple(value)


def encode_pathing(grid: np.ndarray) -> list[str]:
    """A bool (h, w) grid as `pathing_grid` rows (or `placement_grid` ones: the same characters)."""
    return ["".join(PATHABLE if c else BLOCKED for c in row) for row in grid.tolist()]


def encode_heights(heights: np.ndarray) -> dict:
    """A float (h, w) grid as a `height_map` (levels in increasing order)."""
    levels = sorted(set(heights.ravel().tolist()))
    if len(levels) > len(LEVEL_CHARS):
        raise GroundError(f"height_map: {len(levels)} distinct heights, at most {len(LEVEL_CHARS)} fit")
    char = {v: LEVEL_CHARS[k] for k, v in enumerate(levels)}
    return {"levels": levels, "rows": ["".join(char[v] for v in row) for row in heights.tolist()]}
