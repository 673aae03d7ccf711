"""The raw map state's grids (visibility, creep) as encoded, kept while each grid stays the same array."""

from __future__ import annotations

import numpy as np

from sc2env.engine.render import encode

Area = tuple[int, int, int, int] | None
"""Cells (x0, y0, x1, y1) a grid is cropped to (raw_crop_to_playable_area), or None for the whole map."""


def crop(grid: np.ndarray, area: Area) -> np.ndarray:
    """A map grid (row 0 at y = 0) as raw data shows it: cropped to `area`, or whole."""
    return grid if area is None else grid[area[1] : area[3], area[0] : area[2]]


class RawGrids:
    """Encoded ImageData of raw map-state grids. A grid is not written in place once shown (the creep never
    changes; a vision's grid is a new array whenever it changes), so the same array, crop and depth give the
    same bytes; a grid that has a version (the vision's) passes it too, should that ever stop holding."""

    KEPT = 8  # grids kept: two per player (visibility, creep)

    def __init__(self) -> None:
        # (id of the grid, its version, bits per pixel, crop) -> (the grid itself, so that its id stays its
        # own; its bytes)
        self._kept: dict[tuple[int, int, int, Area], tuple[np.ndarray, bytes]] = {}

    def encoded(self, bits_per_pixel: int, grid: np.ndarray, area: Area, version: int = 0) -> bytes:
        """`grid` (row 0 at y = 0), cropped to `area`, as a serialized ImageData of `bits_per_pixel`."""
        key = (id(grid), version, bits_per_pixel, area)
        kept = self._kept.get(key)
        if kept is not None and kept[0] is grid:
            return kept[1]
        if len(self._kept) >= self.KEPT:
            self._kept.clear()
        data = encode(bits_per_pixel, crop(grid, area))
        self._kept[key] = (grid, data)
        return data
