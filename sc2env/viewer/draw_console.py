"""The selection panel at the bottom of the view: the selected units with their bars, and the control groups."""

from __future__ import annotations

import collections
import dataclasses

import numpy as np
import pygame

from sc2env.interface import FUNCTIONS
from sc2env.viewer import style
from sc2env.viewer.scene import Scene, abbreviation, unit_name

_PAD = 8
_HEADER = 24
_TILE_SIZES = ((56, 62), (48, 54), (40, 44))
"""Tile (width, height) choices, largest first: the largest that shows every selected unit."""
_TILE_GAP = 4
_GROUP_ROW = 19
_SHIELDS = (90, 160, 255)
_ENERGY = (200, 120, 255)
_TILE_BACK = (40, 44, 53)


@dataclasses.dataclass(frozen=True)
class Button:
    """A clickable part of the panel: `function` (select_unit, build_queue, unload or select_control_group)
    with `index` (a selected unit, a queue slot, a passenger or a control group); the modifier keys choose its
    act (controls.py)."""

    rect: pygame.Rect
    function: int
    index: int


@dataclasses.dataclass(frozen=True)
class Console:
    """The panel as last drawn: its rect (clicks there are the panel's) and its buttons."""

    rect: pygame.Rect
    buttons: tuple[Button, ...] = ()


def draw_console(surface: pygame.Surface, rect: pygame.Rect, scene: Scene, *, interactive: bool) -> Console:
    """Draw the panel in `rect` (over the view, translucent so ground a free camera shows there still shows)."""
    back = pygame.Surface(rect.size, pygame.SRCALPHA)
    back.fill((*style.PANEL, 232))
    surface.blit(back, rect.topleft)
    pygame.draw.line(surface, style.BORDER, rect.topleft, (rect.right - 1, rect.top))
    inner = rect.inflate(-2 * _PAD, -2 * _PAD)
    groups_w = max(150, inner.w * 28 // 100)
    selection = pygame.Rect(inner.x, inner.y, inner.w - groups_w - _PAD, inner.h)
    groups = pygame.Rect(selection.right + _PAD, inner.y, groups_w, inner.h)
    pygame.draw.line(
        surface, style.BORDER, (groups.x - _PAD // 2, inner.y), (groups.x - _PAD // 2, inner.bottom)
    )
    buttons = _draw_selection(surface, selection, scene, interactive)
    buttons += _draw_groups(surface, groups, scene, interactive)
    return Console(rect, tuple(buttons))


def _draw_selection(surface, area: pygame.Rect, scene: Scene, interactive: bool) -> list[Button]:
    obs = scene.observation
    single, multi, cargo = np.asarray(obs.single_select), np.asarray(obs.multi_select), np.asarray(obs.cargo)
    units = multi if len(multi) else single
    header = pygame.Rect(area.x, area.y, area.w, _HEADER)
    body = pygame.Rect(area.x, header.bottom, area.w, area.h - _HEADER)
    if not len(units):
        style.text(surface, "Nothing selected", header.midleft, 18, style.DIM, anchor="midleft")
        if interactive:
            hint = "click or drag a box to select; F2 selects the army, F1 an idle worker"
            style.fit_text(surface, hint, (body.x, body.y + 4), body.w, 16, style.DIM)
        return []
    x = style.text(surface, "Selection:", header.midleft, 18, style.SELECTION, anchor="midleft").right + 6
    style.fit_text(surface, summary(units[:, 0]), (x, header.centery), header.right - x, 18, anchor="midleft")
    if len(multi):
        return _tiles(surface, body, scene, multi, FUNCTIONS.select_unit.id)
    used = _single(surface, body, scene, single[0])
    rest = pygame.Rect(used + 2 * _PAD, body.y, body.right - used - 2 * _PAD, body.h)
    if len(cargo):
        return _tiles(surface, rest, scene, cargo, FUNCTIONS.unload.id, "Cargo")
    queue = np.asarray(obs.build_queue)
    if len(queue):
        return _tiles(surface, rest, scene, queue, FUNCTIONS.build_queue.id, "Queue")
    return []


def summary(unit_types: np.ndarray) -> str:
    """ "9 Marine" or "6 Marine, 3 Marauder": the most numerous first."""
    counts = collections.Counter(unit_name(int(t)) for t in unit_types)
    return ", ".join(
        f"{n} {name}" for name, n in sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    )


def _single(surface, area: pygame.Rect, scene: Scene, unit: np.ndarray) -> int:
    """One unit's card: its glyph, name, vitals with bars and build progress; returns the card's right edge."""
    unit_type, relative, health, shields, energy = (int(v) for v in unit[:5])
    progress = int(unit[6])
    radius = max(10, min(26, area.h // 2 - 6))
    glyph = (area.x + radius + 2, area.y + area.h // 2)
    _glyph(surface, glyph, radius, unit_type, relative)
    x = glyph[0] + radius + 12
    vitals = scene.vitals_of(unit_type)
    lines: list[tuple[str, float, tuple[int, int, int] | None]] = []
    if vitals.health:
        lines.append((f"Health {health} / {vitals.health:g}", health / vitals.health, None))
    if vitals.shields:
        lines.append((f"Shields {shields} / {vitals.shields:g}", shields / vitals.shields, _SHIELDS))
    if vitals.energy:
        lines.append((f"Energy {energy} / {vitals.energy:g}", energy / vitals.energy, _ENERGY))
    if 0 < progress < 100:
        lines.append((f"Building {progress}%", progress / 100, style.PROGRESS))
    row = max(16, min(22, area.h // max(1, len(lines))))
    y = area.y + (area.h - row * len(lines)) // 2
    right = x
    for label, fraction, colour in lines:
        text = style.text(surface, label, (x, y + row // 2), 16, style.TEXT, anchor="midleft")
        bar = pygame.Rect(x + 120, y + row // 2 - 3, 110, 6)
        _bar(surface, bar, fraction, colour)
        right = max(right, text.right, bar.right)
        y += row
    return right


def _tiles(
    surface, area: pygame.Rect, scene: Scene, units: np.ndarray, function: int, title: str = ""
) -> list[Button]:
    """A tile per unit (glyph, shield and health bars), left to right and top to bottom; each is a button.
    Units beyond the room are counted on the last tile."""
    if title:
        style.text(surface, title, (area.x, area.y), 16, style.DIM)
        area = pygame.Rect(area.x, area.y + 18, area.w, area.h - 18)
    for w, h in _TILE_SIZES:
        columns = max(1, (area.w + _TILE_GAP) // (w + _TILE_GAP))
        rows = max(1, (area.h + _TILE_GAP) // (h + _TILE_GAP))
        room = columns * rows
        if room >= len(units):
            break
    shown = len(units) if len(units) <= room else room - 1
    buttons = []
    for n in range(shown):
        row, col = divmod(n, columns)
        tile = pygame.Rect(area.x + col * (w + _TILE_GAP), area.y + row * (h + _TILE_GAP), w, h)
        _tile(surface, tile, scene, units[n])
        buttons.append(Button(tile, function, n))
    if shown < len(units):
        row, col = divmod(shown, columns)
        tile = pygame.Rect(area.x + col * (w + _TILE_GAP), area.y + row * (h + _TILE_GAP), w, h)
        pygame.draw.rect(surface, _TILE_BACK, tile, border_radius=4)
        style.text(surface, f"+{len(units) - shown}", tile.center, 17, style.DIM, anchor="center")
    return buttons


def _tile(surface, tile: pygame.Rect, scene: Scene, unit: np.ndarray) -> None:
    unit_type, relative, health, shields = (int(v) for v in unit[:4])
    progress = int(unit[6])
    pygame.draw.rect(surface, _TILE_BACK, tile, border_radius=4)
    radius = (tile.h - 14) * 3 // 8
    _glyph(surface, (tile.centerx, tile.y + 3 + radius), radius, unit_type, relative)
    vitals = scene.vitals_of(unit_type)
    bar = pygame.Rect(tile.x + 4, tile.bottom - 8, tile.w - 8, 4)
    if 0 < progress < 100:  # in a queue: how far its training is
        _bar(surface, bar, progress / 100, style.PROGRESS)
    elif vitals.health:
        _bar(surface, bar, health / vitals.health, None)
    if vitals.shields:
        _bar(surface, bar.move(0, -6), shields / vitals.shields, _SHIELDS)


def _glyph(surface, centre: tuple[int, int], radius: int, unit_type: int, relative: int) -> None:
    colour = style.ALLIANCE.get(relative, style.TEXT)
    pygame.draw.circle(surface, colour, centre, radius)
    pygame.draw.circle(surface, tuple(c // 3 for c in colour), centre, radius, width=2)
    label = abbreviation(unit_type)
    if label:
        size = max(12, int(radius * 1.1))
        style.fit_text(
            surface, label, centre, 2 * radius - 4, size, (15, 18, 20), anchor="center", smallest=9
        )


def _bar(surface, rect: pygame.Rect, fraction: float, colour) -> None:
    fraction = min(max(fraction, 0.0), 1.0)
    pygame.draw.rect(surface, (10, 10, 10), rect.inflate(2, 2))
    fill = colour or style.health_colour(fraction)
    pygame.draw.rect(surface, fill, (rect.x, rect.y, max(1, round(rect.w * fraction)), rect.h))


def _draw_groups(surface, area: pygame.Rect, scene: Scene, interactive: bool) -> list[Button]:
    """The set control groups: key, count and leading unit type; a click recalls one."""
    style.text(surface, "Control groups", (area.x, area.y + _HEADER // 2), 18, style.DIM, anchor="midleft")
    groups = np.asarray(scene.observation.control_groups)
    set_groups = [(i, int(groups[i, 0]), int(groups[i, 1])) for i in range(len(groups)) if groups[i, 1] > 0]
    body = pygame.Rect(area.x, area.y + _HEADER, area.w, area.h - _HEADER)
    if not set_groups:
        style.fit_text(
            surface,
            "none" + (": Ctrl+digit sets one" if interactive else ""),
            body.topleft,
            body.w,
            16,
            style.DIM,
        )
        return []
    rows = max(1, body.h // _GROUP_ROW)
    columns = -(-len(set_groups) // rows)
    column_w = body.w // columns
    buttons = []
    for n, (index, leader, count) in enumerate(set_groups):
        col, row = divmod(n, rows)
        cell = pygame.Rect(body.x + col * column_w, body.y + row * _GROUP_ROW, column_w - 4, _GROUP_ROW - 2)
        key = style.text(surface, str(index), (cell.x + 2, cell.centery), 17, style.ACCENT, anchor="midleft")
        name = unit_name(leader) if columns == 1 else abbreviation(leader) or unit_name(leader)
        style.fit_text(
            surface,
            f"{count} {name}",
            (key.right + 6, cell.centery),
            cell.right - key.right - 6,
            17,
            anchor="midleft",
        )
        buttons.append(Button(cell, FUNCTIONS.select_control_group.id, index))
    return buttons
