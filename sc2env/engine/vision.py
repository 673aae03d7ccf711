"""Fog of war: what the agent's units see (sight circles) and have seen, as a hidden/fogged/visible grid."""

from __future__ import annotations

import functools

import numpy as np

from sc2env.engine.world import World

HIDDEN, FOGGED, VISIBLE = 0, 1, 2
_CONSTRUCTION_SIGHT = 4.0  # structures under construction see this far


@functools.lru_cache(maxsize=32)
def _disc(radius: float) -> tuple[np.ndarray, np.ndarray]:
    """Cell offsets (dy, dx) whose centres lie within `radius` of a point at a cell centre."""
    r = int(np.ceil(radius))
    dy, dx = np.mgrid[-r:r + 1, -r:r + 1]
    keep = dx * dx + dy * dy <= radius * radius
    return dy[keep], dx[keep]


class Vision:
    """One player's view of the map, one cell per world unit (row 0 at world y = 0, like raw grids).

    `fog=False` (maps that reveal their playable area, or `disable_fog`) makes `revealed` everything the
    player may see; with fog, cells in sight are visible, cells seen before are fogged, the rest hidden.
    Nothing outside `revealed` is ever visible (the area outside the playable rectangle stays black).
    """

    def __init__(self, revealed: np.ndarray, fog: bool):
        self.revealed = revealed
        self.fog = fog
        self.explored = np.zeros_like(revealed) if fog else revealed.copy()
        self.visible = self.explored.copy()
        self.version = 0
        self._static_grid = np.where(revealed, VISIBLE, HIDDEN).astype(np.uint8)

    def update(self, world: World, player_id: int) -> None:
        """Recompute sight from the player's units (call after they move)."""
        if not self.fog:
            return
        visible = np.zeros_like(self.revealed)
        h, w = visible.shape
        mine = np.flatnonzero((world.owner == player_id) & ~world.hidden)
        for i in mine.tolist():
            sight = world.types[i].sight if world.build_progress[i] >= 1 else _CONSTRUCTION_SIGHT
            if sight <= 0:
                continue
            dy, dx = _disc(float(sight))
            cx, cy = int(world.pos[i, 0]), int(world.pos[i, 1])
            ys, xs = cy + dy, cx + dx
            ok = (ys >= 0) & (ys < h) & (xs >= 0) & (xs < w)
            visible[ys[ok], xs[ok]] = True
        visible &= self.revealed
        if not np.array_equal(visible, self.visible):
            self.visible = visible
            self.explored |= visible
            self.version += 1

    def grid(self) -> np.ndarray:
        """The visibility grid: 0 hidden, 1 fogged, 2 visible."""
        if not self.fog:
            return self._static_grid
        return np.where(self.visible, VISIBLE, np.where(self.explored, FOGGED, HIDDEN)).astype(np.uint8)

    def shows(self, world: World, player_id: int) -> np.ndarray | None:
        """Which rows the player can see: own units, enemies in sight, neutral units in explored cells.
        None means all of them (no fog)."""
        if not self.fog:
            return None
        h, w = self.visible.shape
        x = np.clip(world.pos[:, 0].astype(int), 0, w - 1)
        y = np.clip(world.pos[:, 1].astype(int), 0, h - 1)
        seen = np.where(world.owner == 0, self.explored[y, x], self.visible[y, x])
        return ((world.owner == player_id) | seen) & ~world.hidden
