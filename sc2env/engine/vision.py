"""Fog of war: what the agent's units see (sight circles) and have seen, as a hidden/fogged/visible grid."""

from __future__ import annotations

import numpy as np

from sc2env.engine.fast import count_nonzero, sum_xy
from sc2env.engine.world import World

HIDDEN, FOGGED, VISIBLE = 0, 1, 2
_CONSTRUCTION_SIGHT = 4.0  # structures under construction see this far
# How much higher than its own cell a ground unit still sees: less than a cliff level (2), more than a ramp's
# rise between neighbouring cells, so a unit sees up a ramp it stands on but not up a cliff.
_HIGH_GROUND_STEP = 1.0


class Vision:
    """One player's view of the map, one cell per world unit (row 0 at world y = 0, like raw grids).

    `fog=False` (maps that reveal their playable area, or `disable_fog`) makes `revealed` everything the
    player may see; with fog, cells in sight are visible, cells seen before are fogged, the rest hidden.
    Nothing outside `revealed` is ever visible (the area outside the playable rectangle stays black).
    """

    def __init__(self, revealed: np.ndarray, fog: bool, heights: np.ndarray | None = None):
        self.revealed = revealed
        self.fog = fog
        # A map's height map, when it has one: a ground unit does not see cells higher than its own (high
        # ground), air units and cliff walkers see them.
        self.heights = heights
        self.explored = np.zeros_like(revealed) if fog else revealed.copy()
        self.visible = self.explored.copy()
        self.version = 0
        self._static_grid = np.where(revealed, VISIBLE, HIDDEN).astype(np.uint8)
        self._grid, self._grid_version = self._static_grid, -1
        self._centres = np.arange(max(revealed.shape)) + 0.5

    def update(self, world: World, player_id: int) -> None:
        """Recompute sight from the player's units (call after they move)."""
        if not self.fog:
            return
        visible = np.zeros(self.revealed.shape, bool)
        h, w = self.revealed.shape
        eyes, sight = self._eyes(world, player_id)
        reach = self._eye_heights(world, player_id, eyes)
        centres = self._centres  # cell index + 0.5
        for k, ((x, y), r) in enumerate(zip(eyes.tolist(), sight.tolist())):
            x0, x1 = max(int(x - r), 0), min(int(x + r) + 1, w)
            y0, y1 = max(int(y - r), 0), min(int(y + r) + 1, h)
            if x0 >= x1 or y0 >= y1:
                continue
            dx = centres[x0:x1] - x
            dy = centres[y0:y1] - y
            seen = dy[:, None] ** 2 + dx[None, :] ** 2 <= r * r
            if reach is not None and self.heights is not None:
                seen &= self.heights[y0:y1, x0:x1] <= reach[k]
            visible[y0:y1, x0:x1] |= seen
        visible &= self.revealed
        if visible.tobytes() != self.visible.tobytes():
            self.visible = visible
            self.explored |= visible
            self.version += 1

    def _eye_heights(self, world: World, player_id: int, eyes: np.ndarray) -> np.ndarray | None:
        """The highest ground each eye sees (None without a height map): its own cell's height plus
        _HIGH_GROUND_STEP for a ground unit, anything for air units and cliff walkers."""
        if self.heights is None:
            return None
        h, w = self.heights.shape
        rows = self._eye_rows(world, player_id)
        x = np.clip(eyes[:, 0].astype(int), 0, w - 1)
        y = np.clip(eyes[:, 1].astype(int), 0, h - 1)
        return np.where(world.grounded[rows], self.heights[y, x] + _HIGH_GROUND_STEP, np.inf)

    @staticmethod
    def _eye_rows(world: World, player_id: int) -> np.ndarray:
        if count_nonzero(world.hidden):
            mine = ((world.owner == player_id) & ~world.hidden).nonzero()[0]
            return Vision._seeing(world, player_id, mine)[0]
        return world.per_rows(
            ("eyes", player_id),
            lambda: Vision._seeing(world, player_id, (world.owner == player_id).nonzero()[0]),
        )[0]

    @staticmethod
    def _eyes(world: World, player_id: int) -> tuple[np.ndarray, np.ndarray]:
        """Positions and sight ranges of the player's units that see."""
        if count_nonzero(world.hidden):
            rows, sight = Vision._seeing(
                world, player_id, ((world.owner == player_id) & ~world.hidden).nonzero()[0]
            )
        else:  # which units see how far is a per-row fact
            rows, sight = world.per_rows(
                ("eyes", player_id),
                lambda: Vision._seeing(world, player_id, (world.owner == player_id).nonzero()[0]),
            )
        return world.pos[rows], sight

    @staticmethod
    def _seeing(world: World, player_id: int, mine: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        sight = np.array(
            [
                world.types[i].sight if world.build_progress[i] >= 1 else _CONSTRUCTION_SIGHT
                for i in mine.tolist()
            ]
        )
        keep = sight > 0
        return mine[keep], sight[keep]

    def grid(self) -> np.ndarray:
        """The visibility grid: 0 hidden, 1 fogged, 2 visible."""
        if not self.fog:
            return self._static_grid
        if self._grid_version != self.version:
            self._grid = self.visible.astype(np.uint8) + self.explored  # visible cells are explored too
            self._grid_version = self.version
        return self._grid

    def shows(self, world: World, player_id: int) -> np.ndarray | None:
        """Which rows the player can see: own units, other players' units within sight of one of its units
        (centre to centre), neutral units in explored cells. None means all of them (no fog)."""
        if not self.fog:
            return None
        h, w = self.visible.shape
        cells = world.pos.astype(int)
        x = np.minimum(np.maximum(cells[:, 0], 0), w - 1)
        y = np.minimum(np.maximum(cells[:, 1], 0), h - 1)
        eyes, sight = self._eyes(world, player_id)
        seen = np.zeros(world.n, bool)
        if len(eyes):
            d2 = sum_xy((world.pos[:, None, :] - eyes[None]) ** 2)
            in_sight = d2 <= sight[None] ** 2
            reach = self._eye_heights(world, player_id, eyes)
            if reach is not None and self.heights is not None:  # not up a cliff from the ground
                in_sight &= self.heights[y, x][:, None] <= reach[None]
            seen = np.logical_or.reduce(in_sight, axis=1) & self.revealed[y, x]
        seen = np.where(world.owner == 0, self.explored[y, x], seen)
        return ((world.owner == player_id) | seen) & ~world.hidden
