"""What game_info's grids tell a melee script about its base's ground: its level, its ramp's top, building sites."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from sc2env.interface.transforms import MapInfo

_RAMP_REACH = 20.0  # world units from its start within which its own ramp lies
_RAMP_ROOM = 3  # cells kept between a building and a ramp, so that the army passes beside it
_LEVEL_SLACK = 4  # terrain_height bytes (half a world unit) a site may differ from the start's: a cliff is 16


@dataclass(frozen=True)
class BaseGround:
    """The ground round one start (world units, grids row 0 at y = 0): `level`, the terrain_height byte of the
    start's cell (its sites stay on it: never below its cliff); `ramp_top`, the middle of the highest cells of the nearest ramp (pathable ground no building
    may stand on), None on a map without one; `near_ramp`, the cells within _RAMP_ROOM of a ramp."""

    info: MapInfo
    level: int
    ramp_top: tuple[float, float] | None
    near_ramp: np.ndarray

    @classmethod
    def of(cls, info: MapInfo, start: tuple[float, float]) -> BaseGround:
        height = info.terrain_height
        h, w = info.pathing.shape
        level = int(info.sample(height, np.float64(start[0]), np.float64(start[1])))
        ramp = (
            info.pathing & ~info.placement if info.placement.shape == info.pathing.shape else info.pathing[:0]
        )
        near = np.zeros((h, w), bool)
        top = None
        if ramp.size and ramp.any():
            ys, xs = np.nonzero(ramp)
            close = np.hypot(xs + 0.5 - start[0], ys + 0.5 - start[1]) <= _RAMP_REACH
            if close.any():
                ys, xs = ys[close], xs[close]
                highest = height[ys, xs] == height[ys, xs].max()
                top = (float(xs[highest].mean() + 0.5), float(ys[highest].mean() + 0.5))
            padded = np.pad(ramp, _RAMP_ROOM)
            for dy in range(-_RAMP_ROOM, _RAMP_ROOM + 1):
                for dx in range(-_RAMP_ROOM, _RAMP_ROOM + 1):
                    near |= padded[
                        _RAMP_ROOM + dy : _RAMP_ROOM + dy + h, _RAMP_ROOM + dx : _RAMP_ROOM + dx + w
                    ]
        return cls(info, level, top, near)

    def site_fits(self, centre: tuple[float, float], size: int) -> bool:
        """Whether a `size` square building centred at `centre` (world) stands on buildable ground of the
        start's level, clear of any ramp (True where the map reports no grids: the game then decides)."""
        info = self.info
        if info.placement.size == 0 or info.terrain_height.shape != info.placement.shape:
            return True
        x0, y0 = math.floor(centre[0] + 0.5 - size / 2), math.floor(centre[1] + 0.5 - size / 2)
        h, w = info.placement.shape
        if x0 < 0 or y0 < 0 or x0 + size > w or y0 + size > h:
            return False
        cells = (slice(y0, y0 + size), slice(x0, x0 + size))
        return bool(
            info.placement[cells].all()
            and (np.abs(info.terrain_height[cells].astype(np.int64) - self.level) <= _LEVEL_SLACK).all()
            and not self.near_ramp[cells].any()
        )
