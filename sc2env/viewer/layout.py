"""Where each panel of the viewer sits, and how its pixels map to screen and minimap arguments."""

from __future__ import annotations

import dataclasses
import math

import pygame

from sc2env.interface import CoordinateTransforms, InterfaceFormat, Linear2D

DEFAULT_SIZE = (1280, 720)
"""The viewer's frame (and rgb_array) size: 16:9, and a multiple of 16 for video encoders."""
MIN_SIZE = (960, 540)
MAX_SIZE = (7680, 4320)
LAYER_COLUMNS, LAYER_ROWS = 4, 2


GAME_VIEW_MIN_SIZE = (16, 16)
GAME_VIEW_LONG_SIDE = 512
"""The game view's default frame: the feature screen's aspect, this many pixels along its longer side."""


def check_size(size: tuple[int, int], view: str = "viewer") -> None:
    """Refuse a frame size the viewer (or the game view alone, `view="game"`) can't lay out, or that would not
    fit in memory (ValueError)."""
    width, height = size
    if view == "game":
        if width < GAME_VIEW_MIN_SIZE[0] or height < GAME_VIEW_MIN_SIZE[1]:
            raise ValueError(
                f"the game view needs at least {GAME_VIEW_MIN_SIZE[0]}×{GAME_VIEW_MIN_SIZE[1]} pixels, "
                f"not {width}×{height}"
            )
    elif width < MIN_SIZE[0] or height < MIN_SIZE[1]:  # below, the status bar and function names overlap
        raise ValueError(
            f"the viewer needs at least {MIN_SIZE[0]}×{MIN_SIZE[1]} pixels, not {width}×{height} (for "
            'smaller frames of the game alone, pass render_view="game")'
        )
    if width > MAX_SIZE[0] or height > MAX_SIZE[1]:
        raise ValueError(f"the viewer draws at most {MAX_SIZE[0]}×{MAX_SIZE[1]} pixels, not {width}×{height}")


Region = tuple[float, float, float, float]
"""(x0, y0, x1, y1): a rectangle of minimap pixels (continuous: pixel (i, j) spans i..i+1, j..j+1)."""


def playable_region(transforms: CoordinateTransforms, minimap_size: tuple[int, int]) -> Region:
    """The minimap pixels the map's playable area covers: what the minimap panel shows, as the game's minimap
    does (the feature minimap spans the whole map, of which a mini-game plays in a third)."""
    x0, y0, x1, y1 = transforms.map_info.playable_area
    left, top = transforms.world_to_minimap.fwd((x0, y1))
    right, bottom = transforms.world_to_minimap.fwd((x1, y0))
    width, height = minimap_size
    region = (max(left, 0.0), max(top, 0.0), min(right, float(width)), min(bottom, float(height)))
    if region[2] - region[0] < 1 or region[3] - region[1] < 1:  # no playable area to speak of: all of it
        return (0.0, 0.0, float(width), float(height))
    return region


@dataclasses.dataclass(frozen=True)
class Layout:
    """Panel rectangles of one frame size and one interface format.

    status (top bar), view (the camera's area, same aspect as the feature screen), minimap (the shown
    `minimap_region` scaled to fill `minimap_box`, aspect kept), functions (the available functions), layers
    (the feature-layer page) and hints (bottom bar).
    """

    size: tuple[int, int]
    screen_size: tuple[int, int]
    minimap_size: tuple[int, int]
    status: pygame.Rect
    view: pygame.Rect
    minimap_box: pygame.Rect
    minimap: pygame.Rect
    minimap_region: Region
    functions: pygame.Rect
    layers: pygame.Rect
    hints: pygame.Rect

    @classmethod
    def build(
        cls, fmt: InterfaceFormat, size: tuple[int, int] = DEFAULT_SIZE, minimap_region: Region | None = None
    ) -> Layout:
        """The layout of frames of `size`; the minimap panel shows `minimap_region` (default: all of it)."""
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
        box = pygame.Rect(right, body_top + gap, mini_side, mini_side)
        region = minimap_region or (0.0, 0.0, float(minimap[0]), float(minimap[1]))
        region_w, region_h = region[2] - region[0], region[3] - region[1]
        mscale = min((box.w - 2) / region_w, (box.h - 2) / region_h)  # inside the box's 1 px frame
        minimap_rect = pygame.Rect(0, 0, round(region_w * mscale), round(region_h * mscale))
        minimap_rect.center = box.center
        functions = pygame.Rect(right + mini_side + gap, body_top + gap, right_w - mini_side - gap, mini_side)
        layers_top = box.bottom + 2 * gap
        layers = pygame.Rect(right, layers_top, right_w, body_top + body_height - gap - layers_top)
        return cls(
            size=size,
            screen_size=screen,
            minimap_size=minimap,
            status=pygame.Rect(0, 0, width, bar),
            view=view,
            minimap_box=box,
            minimap=minimap_rect,
            minimap_region=region,
            functions=functions,
            layers=layers,
            hints=pygame.Rect(0, height - bar, width, bar),
        )

    @classmethod
    def game_view(cls, fmt: InterfaceFormat, size: tuple[int, int] | None = None) -> Layout:
        """The layout of frames showing the camera's area alone: the largest rectangle of the feature
        screen's aspect that fits in `size` (default: GAME_VIEW_LONG_SIDE along its longer side), centred;
        the other panels are empty."""
        screen = fmt.action_screen_size
        if size is None:
            scale = GAME_VIEW_LONG_SIDE / max(screen)
            size = (max(1, round(screen[0] * scale)), max(1, round(screen[1] * scale)))
        check_size(size, "game")
        width, height = size
        scale = min(width / screen[0], height / screen[1])
        view = pygame.Rect(0, 0, max(1, round(screen[0] * scale)), max(1, round(screen[1] * scale)))
        view.center = (width // 2, height // 2)
        minimap = fmt.action_minimap_size
        empty = pygame.Rect(0, 0, 0, 0)
        return cls(
            size=size,
            screen_size=screen,
            minimap_size=minimap,
            status=empty,
            view=view,
            minimap_box=empty,
            minimap=empty,
            minimap_region=(0.0, 0.0, float(minimap[0]), float(minimap[1])),
            functions=empty,
            layers=empty,
            hints=empty,
        )

    def to_screen(self, pos, clamp: bool = False) -> tuple[int, int] | None:
        """The feature-screen pixel under a frame position in the main view, or None outside it (unless
        `clamp`: then the nearest edge pixel)."""
        width, height = self.screen_size
        return _to_grid(self.view, (0.0, 0.0, float(width), float(height)), self.screen_size, pos, clamp)

    def to_minimap(self, pos, clamp: bool = False) -> tuple[int, int] | None:
        """The minimap pixel under a frame position, or None outside the minimap (unless `clamp`: then the
        nearest pixel the minimap shows)."""
        return _to_grid(self.minimap, self.minimap_region, self.minimap_size, pos, clamp)

    def from_screen(self, point) -> tuple[float, float]:
        """The frame position of the centre of a feature-screen pixel (the inverse of to_screen)."""
        return self.screen_to_frame((point[0] + 0.5, point[1] + 0.5))

    def from_minimap(self, point) -> tuple[float, float]:
        """The frame position of the centre of a minimap pixel (the inverse of to_minimap)."""
        return self.minimap_to_frame((point[0] + 0.5, point[1] + 0.5))

    def screen_to_frame(self, point) -> tuple[float, float]:
        """Continuous feature-screen coordinates to frame pixels."""
        width, height = self.screen_size
        x, y = _region_to_rect(self.view, (0.0, 0.0, float(width), float(height))).fwd(point)
        return float(x), float(y)

    def minimap_to_frame(self, point) -> tuple[float, float]:
        """Continuous minimap coordinates to frame pixels (outside the shown region: outside the rect)."""
        x, y = self.minimap_transform.fwd(point)
        return float(x), float(y)

    @property
    def minimap_transform(self) -> Linear2D:
        """Continuous minimap coordinates -> frame pixels."""
        return _region_to_rect(self.minimap, self.minimap_region)


def _region_to_rect(rect: pygame.Rect, region: Region) -> Linear2D:
    x0, y0, x1, y1 = region
    scale = (rect.w / (x1 - x0), rect.h / (y1 - y0))
    return Linear2D(scale, (rect.x - x0 * scale[0], rect.y - y0 * scale[1]))


def _to_grid(
    rect: pygame.Rect, region: Region, grid: tuple[int, int], pos, clamp: bool = False
) -> tuple[int, int] | None:
    x, y = pos
    if not clamp and not rect.collidepoint(x, y):
        return None
    x0, y0, x1, y1 = region
    gx = math.floor(x0 + (x - rect.x) * (x1 - x0) / rect.w)
    gy = math.floor(y0 + (y - rect.y) * (y1 - y0) / rect.h)
    # Never a pixel outside the region shown (a click on its edge, or clamped from afar).
    low_x, low_y = max(math.floor(x0), 0), max(math.floor(y0), 0)
    high_x, high_y = min(math.ceil(x1), grid[0]) - 1, min(math.ceil(y1), grid[1]) - 1
    return min(max(gx, low_x), high_x), min(max(gy, low_y), high_y)
