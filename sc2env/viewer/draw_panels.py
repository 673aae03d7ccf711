"""The text and feature-layer panels: status bar, available functions, the feature-layer page, hints."""

from __future__ import annotations

import dataclasses
import functools

import numpy as np
import pygame

from sc2env.game.maps import MINI_GAMES, game_time
from sc2env.interface import FUNCTIONS, MINIMAP_LAYERS, RAW_FUNCTIONS, SCREEN_LAYERS, Layer, palette
from sc2env.viewer import style
from sc2env.viewer.hotkeys import key_label
from sc2env.viewer.layout import LAYER_COLUMNS, LAYER_ROWS
from sc2env.viewer.scene import Scene


@dataclasses.dataclass(frozen=True)
class LayerPage:
    """One page of the feature-layer panel: some layers of the screen or the minimap stack."""

    stack: str
    layers: tuple[Layer, ...]
    number: int
    of: int


def layer_pages() -> tuple[LayerPage, ...]:
    """All 27 screen and 11 minimap layers, eight to a page, screen first."""
    per_page = LAYER_COLUMNS * LAYER_ROWS
    pages = []
    for stack, table in (("screen", SCREEN_LAYERS), ("minimap", MINIMAP_LAYERS)):
        chunks = [table[i : i + per_page] for i in range(0, len(table), per_page)]
        pages += [LayerPage(stack, tuple(chunk), n + 1, len(chunks)) for n, chunk in enumerate(chunks)]
    return tuple(pages)


@functools.cache
def _palette(layer: Layer) -> np.ndarray:
    return palette(layer)


def draw_status(
    surface: pygame.Surface, rect: pygame.Rect, scene: Scene, *, paused: bool, speed: str, episode: int = 0
) -> None:
    """Map, score, game time against the map's limit, minerals, vespene, supply, and the playback state."""
    surface.fill(style.PANEL, rect)
    pygame.draw.line(surface, style.BORDER, (rect.left, rect.bottom - 1), (rect.right - 1, rect.bottom - 1))
    player = scene.observation.player
    spec = MINI_GAMES.get(scene.map_name)
    clock = game_time(scene.game_loop) + (
        f" / {game_time(spec.game_loops)}" if spec and spec.game_loops else ""
    )
    items = [
        (scene.map_name or "sc2env", style.ACCENT),
        (f"Score {scene.score}", style.TEXT),
        (f"Time {clock}", style.TEXT),
        (f"Loop {scene.game_loop}", style.DIM),
        (f"Minerals {player.minerals}", style.MINERAL),
        (f"Vespene {player.vespene}", style.VESPENE),
        (f"Supply {player.food_used}/{player.food_cap}", style.TEXT),
    ]
    if episode:
        items.insert(1, (f"Episode {episode}", style.DIM))
    size = max(18, rect.h - 8)
    x = rect.x + 12
    for value, colour in items:
        x = style.text(surface, value, (x, rect.centery), size, colour, anchor="midleft").right + 22
    state = f"PAUSED (speed {speed})" if paused else ("GAME OVER" if scene.ended else f"speed {speed}")
    style.text(
        surface,
        state,
        (rect.right - 12, rect.centery),
        size,
        style.WARN if paused or scene.ended else style.DIM,
        anchor="midright",
    )


_SIZES = range(
    20, 10, -1
)  # font sizes, largest first (pygame's font draws letters about 0.7 of its size tall)
_ROW_SPACE = 6  # pixels a row may have beyond its font's size; rows need no less than the size
_MIN_COLUMN_W = 96  # narrower columns leave a name only a few letters
_KEY_GAP = 6


def draw_functions(
    surface: pygame.Surface,
    rect: pygame.Rect,
    scene: Scene,
    *,
    pending: int | None = None,
    menu: str | None = None,
) -> list[tuple[pygame.Rect, int]]:
    """The available functions with their keys; returns each row's rect and function id (rows are clickable).
    Under raw actions, the raw functions some unit can use (no keys, nothing to click)."""
    raw = scene.raw_functions is not None
    table = RAW_FUNCTIONS if raw else FUNCTIONS
    title = ("Available raw functions" if raw else "Available functions") + (
        f"  ({menu} menu)" if menu else ""
    )
    inner = style.panel(surface, rect, title)
    offered = scene.observation.available_actions if scene.raw_functions is None else scene.raw_functions
    ids = [int(i) for i in offered]
    labels = {fid: "" if raw else key_label(FUNCTIONS[fid]) for fid in ids}
    grid = _function_grid(inner, [table[fid].name for fid in ids], list(labels.values()))
    hidden = max(0, len(ids) - grid.columns * grid.rows)
    if hidden:
        hidden += 1  # the last row says how many are not shown
        ids = ids[:-hidden]
    row_h, column_w, size, label_w = grid.row_h, inner.w // grid.columns, grid.size, grid.label_w
    rows = []
    for n, fid in enumerate(ids):
        col, row = divmod(n, grid.rows)
        cell = pygame.Rect(inner.x + col * column_w, inner.y + row * row_h, column_w - 4, row_h)
        function = table[fid]
        highlighted = fid == pending and not raw
        if highlighted:
            pygame.draw.rect(surface, (70, 60, 25), cell, border_radius=3)
        name_x = cell.x + label_w
        style.text(surface, labels[fid], (cell.x + 2, cell.centery), size, style.ACCENT, anchor="midleft")
        style.text(
            surface,
            _elided(function.name, cell.right - name_x, size),
            (name_x, cell.centery),
            size,
            style.ACCENT if highlighted else style.TEXT,
            anchor="midleft",
        )
        if not raw:
            rows.append((cell, fid))
    if hidden:
        col, row = divmod(len(ids), grid.rows)
        style.text(
            surface,
            f"+{hidden} more (keys work)",
            (inner.x + col * column_w + 2, inner.y + row * row_h + row_h // 2),
            size,
            style.DIM,
            anchor="midleft",
        )
    return rows


@dataclasses.dataclass(frozen=True)
class _Grid:
    columns: int
    rows: int
    row_h: int
    size: int
    label_w: int


def _function_grid(inner: pygame.Rect, names: list[str], labels: list[str]) -> _Grid:
    """How to lay out the function rows: the column count whose text can be largest with every row shown and
    every name whole (ties: fewer columns). A list too long for any column count at the smallest size shows
    what fits in the most columns of at least _MIN_COLUMN_W."""
    most_columns = max(1, inner.w // _MIN_COLUMN_W)
    best: _Grid | None = None
    for columns in range(1, most_columns + 1):
        rows = -(-len(names) // columns) if names else 1
        column_w = inner.w // columns
        for size in _SIZES:
            label_w = _label_width(labels, size)
            room = column_w - 4 - label_w
            if rows * size <= inner.h and all(style.font(size).size(n)[0] <= room for n in names):
                if best is None or size > best.size:
                    best = _Grid(columns, rows, min(inner.h // rows, size + _ROW_SPACE), size, label_w)
                break
    if best is not None:
        return best
    size = _SIZES[-1]  # no layout keeps every name whole: the smallest size, names cut in the middle
    row_h = size
    columns = min(most_columns, max(1, -(-len(names) // max(1, inner.h // row_h))))
    return _Grid(columns, max(1, inner.h // row_h), row_h, size, _label_width(labels, size))


def _label_width(labels: list[str], size: int) -> int:
    return max((style.font(size).size(label)[0] for label in labels), default=0) + _KEY_GAP


def _elided(name: str, width: int, size: int) -> str:
    """`name` cut in the middle to fit `width` pixels, keeping its kind (Build_Comma.._screen)."""
    font = style.font(size)
    if font.size(name)[0] <= width:
        return name
    head, _, kind = name.rpartition("_")
    tail = f".._{kind}" if head else ".."
    head = head or name
    while len(head) > 1 and font.size(head + tail)[0] > width:
        head = head[:-1]
    return head + tail


def draw_layers(surface: pygame.Surface, rect: pygame.Rect, scene: Scene, page: LayerPage) -> None:
    """One page of feature layers, each coloured by its palette and named, in a grid."""
    inner = style.panel(
        surface, rect, f"Feature layers: {page.stack} {page.number}/{page.of}   (Tab: next page)"
    )
    stack = scene.observation.feature_screen if page.stack == "screen" else scene.observation.feature_minimap
    if stack is None:
        style.text(surface, "no feature layers in this observation", inner.topleft, 18, style.DIM)
        return
    cell_w = inner.w // LAYER_COLUMNS
    cell_h = inner.h // LAYER_ROWS
    label_h = 18
    for n, layer in enumerate(page.layers):
        col, row = n % LAYER_COLUMNS, n // LAYER_COLUMNS
        cell = pygame.Rect(inner.x + col * cell_w, inner.y + row * cell_h, cell_w, cell_h)
        values = np.asarray(stack[layer.index])
        side = min(cell.w - 8, cell.h - label_h - 6)
        height, width = values.shape
        image_rect = (
            pygame.Rect(0, 0, side, int(side * height / width))
            if width >= height
            else pygame.Rect(0, 0, int(side * width / height), side)
        )
        image_rect.midtop = (cell.centerx, cell.y + 2)
        surface.blit(pygame.transform.scale(_layer_surface(layer, values), image_rect.size), image_rect)
        pygame.draw.rect(surface, style.BORDER, image_rect, width=1)
        top = int(values.max()) if values.size else 0
        style.fit_text(
            surface,
            layer.name + (f"  max {top}" if not layer.categorical else ""),
            (cell.centerx, image_rect.bottom + 3),
            cell.w - 6,
            16,
            style.TEXT if top else style.DIM,
            anchor="midtop",
        )


def _layer_surface(layer: Layer, values: np.ndarray) -> pygame.Surface:
    colours = _palette(layer)
    if layer.categorical:
        index = np.clip(values, 0, len(colours) - 1)
    else:  # stretch continuous layers to their current maximum, so small values (45 HP of 1600) still show
        top = max(int(values.max()), 1)
        index = np.clip(values.astype(np.int64) * (len(colours) - 1) // top, 0, len(colours) - 1)
    return pygame.surfarray.make_surface(colours[index].swapaxes(0, 1))


def draw_hints(
    surface: pygame.Surface, rect: pygame.Rect, message: str, warning: bool, help_text: str
) -> None:
    """The bottom bar: the current prompt or problem on the left, the controls on the right."""
    surface.fill(style.PANEL, rect)
    pygame.draw.line(surface, style.BORDER, rect.topleft, rect.topright)
    size = max(16, rect.h - 10)
    used = rect.x + 12
    if message:
        used = (
            style.fit_text(
                surface,
                message,
                (used, rect.centery),
                rect.w - 24,
                size,
                style.WARN if warning else style.ACCENT,
                anchor="midleft",
            ).right
            + 24
        )
    if style.font(size).size(help_text)[0] <= rect.right - 12 - used:  # the controls only where they fit
        style.text(surface, help_text, (rect.right - 12, rect.centery), size, style.DIM, anchor="midright")
