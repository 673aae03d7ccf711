"""Where each panel of the viewer sits, and how its pixels map to screen and minimap arguments."""

from __future__ import annotations

import dataclasses
import math

import pygame

from sc2env.interface import InterfaceFormat

DEFAULT_SIZE = (1280, 720)
"""The viewer's frame (and rgb_array) size: 16:9, and a multiple of 16 for video encoders."""
MIN_SIZE = (960, 540)
MAX_SIZE = (7680, 4320)
LAYER_COLUMNS, LAYER_ROWS = 4, 2


def check_size(size: tuple[int, int]) -> None:
    """Refuse a frame size the viewer can't lay out, or that would not fit in memory (ValueError)."""
    width, height = size
    if width < MIN_SIZE[0] or height < MIN_SIZE[1]:  # below, the status bar and function names overlap
        raise ValueError(
            f"the viewer needs at least {MIN_SIZE[0]}×{MIN_SIZE[1]} pixels, not {width}×{height}"
        )
    if width > MAX_SIZE[0] or height > MAX_SIZE[1]:
        raise ValueError(f"the viewer draws at most {MAX_SIZE[0]}×{MAX_SIZE[1]} pixels, not {width}×{height}")


@dataclasses.dataclass(frozen=True)
class Layout:
    """Panel rectangles of one frame size and one interface format.

    status (top bar), view (the camera's area, same aspect as the feature screen), minimap, functions (the
    available functions), layers (the feature-layer page) and hints (bottom bar).
    """

    size: tuple[int, int]
    screen_size: tuple[int, int]
    minimap_size: tuple[int, int]
    status: pygame.Rect
    view: pygame.Rect
    minimap: pygame.Rect
    functions: pygame.Rect
    layers: pygame.Rect
    hints: pygame.Rect

    @classmethod
    def build(cls, fmt: InterfaceFormat, size: tuple[int, int] = DEFAULT_SIZE) -> Layout:
        check_size(size)
        width, height = size
        screen = fmt.action_screen_size
        minimap = fmt.action_minimap_size
        bar = max(24, height // 26)
        gap = 8
        body_top, body_height = bar, height - 2 * bar
        # The main view: as big as fits in the left ~52 % with the feature screen's aspect.
        box_w, box_h = int(width * 0.52), body_height - 2 * gap
        scale = min(box_w / screen[0], box_h / screen[1])
        view_w, view_h = int(screen[0] * scale), int(screen[1] * scale)
        view = pygame.Rect(gap, body_top + gap + (box_h - view_h) // 2, view_w, view_h)
        right = view.right + 2 * gap
        right_w = width - right - gap
        mini_side = min(int(body_height * 0.34), right_w // 2)
        mscale = mini_side / max(minimap)
        minimap_rect = pygame.Rect(right, body_top + gap, int(minimap[0] * mscale), int(minimap[1] * mscale))
        functions = pygame.Rect(right + mini_side + gap, body_top + gap, right_w - mini_side - gap, mini_side)
        layers_top = minimap_rect.top + mini_side + 2 * gap
        layers = pygame.Rect(right, layers_top, right_w, body_top + body_height - gap - layers_top)
        return cls(
            size=size,
            screen_size=screen,
            minimap_size=minimap,
            status=pygame.Rect(0, 0, width, bar),
            view=view,
            minimap=minimap_rect,
            functions=functions,
            layers=layers,
            hints=pygame.Rect(0, height - bar, width, bar),
        )

    def to_screen(self, pos, clamp: bool = False) -> tuple[int, int] | None:
        """The feature-screen pixel under a frame position in the main view, or None outside it (unless
        `clamp`: then the nearest edge pixel)."""
        return _to_grid(self.view, self.screen_size, pos, clamp)

    def to_minimap(self, pos, clamp: bool = False) -> tuple[int, int] | None:
        """The minimap pixel under a frame position, or None outside the minimap (unless `clamp`)."""
        return _to_grid(self.minimap, self.minimap_size, pos, clamp)

    def from_screen(self, point) -> tuple[float, float]:
        """The frame position of the centre of a feature-screen pixel (the inverse of to_screen)."""
        return _from_grid(self.view, self.screen_size, point)

    def from_minimap(self, point) -> tuple[float, float]:
        return _from_grid(self.minimap, self.minimap_size, point)


def _to_grid(rect: pygame.Rect, grid: tuple[int, int], pos, clamp: bool = False) -> tuple[int, int] | None:
    x, y = pos
    if not clamp and not rect.collidepoint(x, y):
        return None
    gx = math.floor((x - rect.x) * grid[0] / rect.w)
    gy = math.floor((y - rect.y) * grid[1] / rect.h)
    return min(max(gx, 0), grid[0] - 1), min(max(gy, 0), grid[1] - 1)


def _from_grid(rect: pygame.Rect, grid: tuple[int, int], point) -> tuple[float, float]:
    return rect.x + (point[0] + 0.5) * rect.w / grid[0], rect.y + (point[1] + 0.5) * rect.h / grid[1]
