"""A top-down picture of a SMAC battle: pathable ground, each unit a disc in its side's colour, health bars."""

from __future__ import annotations

from typing import Any

import numpy as np

from sc2env.smac.features import Frame
from sc2env.smac.grids import MapGrids

MODES = ("human", "rgb_array")
PIXELS_PER_CELL = 16
UNIT_RADIUS = 0.45  # cells: SMAC's raw units do not carry their radius, so every unit is drawn alike
GROUND, BLOCKED = (205, 200, 180), (60, 60, 70)
AGENT, ENEMY, DEAD = (40, 110, 230), (220, 50, 40), (120, 120, 120)
BAR_BACK, BAR_HEALTH, BAR_SHIELD = (30, 30, 30), (60, 200, 60), (80, 200, 230)


def _discs(
    image: np.ndarray, xs: np.ndarray, ys: np.ndarray, colour: tuple[int, int, int], radius: float
) -> None:
    """Filled discs of `radius` pixels centred on pixel coordinates (xs, ys)."""
    height, width, _ = image.shape
    r = int(np.ceil(radius))
    oy, ox = np.mgrid[-r : r + 1, -r : r + 1]
    inside = ox**2 + oy**2 <= radius**2
    for x, y in zip(np.round(xs).astype(int), np.round(ys).astype(int)):
        px, py = (x + ox)[inside], (y + oy)[inside]
        keep = (px >= 0) & (px < width) & (py >= 0) & (py < height)
        image[py[keep], px[keep]] = colour


def _bars(
    image: np.ndarray,
    xs: np.ndarray,
    ys: np.ndarray,
    fraction: np.ndarray,
    colour: tuple[int, int, int],
    row: int,
) -> None:
    """Bars above each unit, filled to `fraction`, `row` bars up."""
    height, width, _ = image.shape
    half = PIXELS_PER_CELL // 2
    for x, y, f in zip(np.round(xs).astype(int), np.round(ys).astype(int), fraction):
        top = y - int(UNIT_RADIUS * PIXELS_PER_CELL) - 4 - 3 * row
        if not 0 <= top < height - 2:
            continue
        left, right = max(x - half, 0), min(x + half, width)
        image[top : top + 2, left:right] = BAR_BACK
        image[top : top + 2, left : left + max(0, round((right - left) * float(f)))] = colour


def draw(grids: MapGrids, frame: Frame) -> np.ndarray:
    """(height, width, 3) uint8 of one step: north up, 16 pixels a cell."""
    pathing = grids.pathing.T[::-1]  # rows from the top
    cells = np.where(pathing[..., None], np.array(GROUND, np.uint8), np.array(BLOCKED, np.uint8))
    image = np.repeat(np.repeat(cells, PIXELS_PER_CELL, 0), PIXELS_PER_CELL, 1)
    to_px = lambda x, y: (x * PIXELS_PER_CELL, (grids.map_y - y) * PIXELS_PER_CELL)  # noqa: E731
    radius = UNIT_RADIUS * PIXELS_PER_CELL
    for xs, ys, alive, health, shield, colour in (
        (frame.ax, frame.ay, frame.a_alive, frame.a_health, frame.a_shield, AGENT),
        (frame.ex, frame.ey, frame.e_alive, frame.e_health, frame.e_shield, ENEMY),
    ):
        px, py = to_px(xs, ys)
        _discs(image, px[~alive], py[~alive], DEAD, radius * 0.5)
        _discs(image, px[alive], py[alive], colour, radius)
        _bars(image, px[alive], py[alive], health[alive], BAR_HEALTH, 0)
        shielded = alive & (shield > 0)
        _bars(image, px[shielded], py[shielded], shield[shielded], BAR_SHIELD, 1)
    return image


class SmacRenderer:
    """Renders into an array ("rgb_array") or a pygame window ("human"), in one mode for its lifetime."""

    def __init__(self, mode: str) -> None:
        if mode not in MODES:
            raise ValueError(f"render mode must be one of {', '.join(MODES)}, not {mode!r}")
        self.mode = mode
        self._window: Any = None

    def render(self, grids: MapGrids, frame: Frame, title: str, mode: str) -> np.ndarray | None:
        if mode != self.mode:
            raise ValueError(
                f"render mode {mode!r} differs from this env's first one, {self.mode!r}; keep one mode"
            )
        image = draw(grids, frame)
        if mode == "rgb_array":
            return image
        import pygame

        if self._window is None:
            pygame.init()
            self._window = pygame.display.set_mode((image.shape[1], image.shape[0]))
            pygame.display.set_caption(title)
        pygame.event.pump()
        self._window.blit(pygame.surfarray.make_surface(image.swapaxes(0, 1)), (0, 0))
        pygame.display.flip()
        return None

    def close(self) -> None:
        if self._window is not None:
            import pygame

            pygame.display.quit()
            self._window = None
