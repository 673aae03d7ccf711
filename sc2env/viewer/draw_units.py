"""Units on the main view: bodies, selection outlines, stacks with a count badge, health and shield bars."""

from __future__ import annotations

import numpy as np
import pygame

from sc2env.gamedata import UNIT_TYPES
from sc2env.viewer import style
from sc2env.viewer.scene import Scene, Units, abbreviation
from sc2env.viewer.stacks import BAR_ROOM, OVERLAP, TOUCH, group_labels

MINERALS = frozenset({341, 483, 146, 147, 884, 885, 665, 666, 796, 797, 1960, 1961})
GEYSERS = frozenset({342, 343, 344, 880, 881, 608})
BEACON, SHARD = 317, 1680
_BAR_H = 4
_SHIELD_COLOUR = (90, 160, 255)
_HALO = 3  # px of selection outline around a selected unit's body


def draw_units(surface: pygame.Surface, view: pygame.Rect, scene: Scene, pixels_per_unit: float) -> None:
    """Draw the units of `scene` in `view` (the caller clips to it), `pixels_per_unit` frame pixels per world
    unit. Units of one type and owner keep their own bodies, drawn where they stand inside one selection
    outline; where they overlap (a pile) they get one label and a count badge, and where they touch one bar
    with a segment per unit, instead of labels and bars drawn over each other."""
    units, k = scene.units, pixels_per_unit
    cx, cy = scene.camera
    px = view.centerx + (units.x - cx) * k
    py = view.centery - (units.y - cy) * k
    r = np.maximum(3.0, units.radius * k)
    shown = np.flatnonzero(
        (px + r > view.left) & (px - r < view.right) & (py + r > view.top) & (py - r < view.bottom)
    )
    if not len(shown):
        return
    movable = np.array([_is_mobile(int(t)) for t in units.unit_type[shown]], bool)
    # Only units that move group up; structures, resources and beacons are each drawn on their own.
    key = np.where(movable, units.unit_type[shown] * 8 + units.alliance[shown], -1 - np.arange(len(shown)))
    piles = _members(shown, group_labels(px[shown], py[shown], r[shown], key, OVERLAP))
    touching = _members(shown, group_labels(px[shown], py[shown], r[shown], key, TOUCH, BAR_ROOM))
    # Selection outlines first, all of them: where bodies overlap, only the group's outer edge shows.
    for i in shown[units.selected[shown]]:
        _halo(surface, units, i, px[i], py[i], r[i])
    label_size = max(14, int(k * 0.7))
    for pile in piles:
        for i in pile:
            _draw_body(surface, units, i, px[i], py[i], r[i])
        top = pile[-1]  # drawn last, so whole: it carries the pile's label
        _label(surface, units, top, px[top], py[top], r[top], label_size)
    # Bars and badges after every body, so that no neighbour's body can hide them.
    for group in touching:
        _draw_bars(surface, units, group, px, py, r)
    for pile in piles:
        if len(pile) > 1:
            _badge(
                surface, str(len(pile)), float((px[pile] + r[pile]).max()), float((py[pile] - r[pile]).min())
            )


def _members(shown: np.ndarray, labels: np.ndarray) -> list[list[int]]:
    """The unit indices of each group, in drawing order."""
    groups: list[list[int]] = [[] for _ in range(int(labels.max()) + 1)] if len(labels) else []
    for n, i in enumerate(shown):
        groups[labels[n]].append(int(i))
    return groups


def _halo(surface, units: Units, i: int, x: float, y: float, r: float) -> None:
    """The selection outline: the body's shape, _HALO pixels larger (drawn under the body)."""
    kind = int(units.unit_type[i])
    info = UNIT_TYPES.get(kind)
    if kind in MINERALS:
        box = pygame.Rect(0, 0, 2 * r * 0.95 + 2 * _HALO, r * 0.95 + 2 * _HALO)
    elif info is not None and info.structure:
        box = pygame.Rect(0, 0, 1.8 * r + 2 * _HALO, 1.8 * r + 2 * _HALO)
    else:
        pygame.draw.circle(surface, style.SELECTION, (x, y), r + _HALO)
        return
    box.center = (round(x), round(y))
    pygame.draw.rect(surface, style.SELECTION, box, border_radius=int(r * 0.3) + _HALO)


def _is_mobile(unit_type: int) -> bool:
    info = UNIT_TYPES.get(unit_type)
    return unit_type not in MINERALS and unit_type not in GEYSERS and (info is None or not info.structure)


def _draw_body(surface, units: Units, i: int, x: float, y: float, r: float) -> None:
    kind = int(units.unit_type[i])
    colour = style.ALLIANCE.get(int(units.alliance[i]), style.TEXT)
    if units.snapshot[i]:
        colour = (colour[0] // 2, colour[1] // 2, colour[2] // 2)
    if kind in MINERALS:
        box = pygame.Rect(0, 0, 2 * r * 0.95, r * 0.95)
        box.center = (round(x), round(y))
        pygame.draw.rect(surface, style.MINERAL, box, border_radius=int(r * 0.3))
        pygame.draw.rect(surface, (30, 80, 140), box, width=2, border_radius=int(r * 0.3))
    elif kind in GEYSERS:
        pygame.draw.circle(surface, (38, 96, 76), (x, y), r)
        pygame.draw.circle(surface, style.VESPENE, (x, y), r * 0.55)
    elif kind == BEACON:
        glow = pygame.Surface((2 * r + 4, 2 * r + 4), pygame.SRCALPHA)
        pygame.draw.circle(glow, (*style.BEACON, 70), (r + 2, r + 2), r)
        pygame.draw.circle(glow, (*style.BEACON, 230), (r + 2, r + 2), r, width=3)
        surface.blit(glow, (x - r - 2, y - r - 2))
    elif kind == SHARD:
        points = [(x, y - r), (x + r * 0.75, y), (x, y + r), (x - r * 0.75, y)]
        pygame.draw.polygon(surface, style.SHARD, points)
        pygame.draw.polygon(surface, (40, 110, 150), points, width=2)
    else:
        dark = tuple(c // 3 for c in colour)
        info = UNIT_TYPES.get(kind)
        if info is not None and info.structure:
            box = pygame.Rect(0, 0, 1.8 * r, 1.8 * r)
            box.center = (round(x), round(y))
            radius = int(r * 0.25)
            pygame.draw.rect(surface, dark, box, border_radius=radius)
            filled = box.copy()
            filled.height = max(1, int(box.height * units.build_progress[i]))
            filled.bottom = box.bottom
            pygame.draw.rect(surface, colour, filled, border_radius=radius)
            pygame.draw.rect(surface, colour, box, width=2, border_radius=radius)
        else:
            pygame.draw.circle(surface, colour, (x, y), r)
            pygame.draw.circle(surface, dark, (x, y), r, width=2)  # each body's edge shows inside a pile


def _label(surface, units: Units, i: int, x: float, y: float, r: float, size: int) -> None:
    kind = int(units.unit_type[i])
    if kind in MINERALS or kind in GEYSERS or kind in (BEACON, SHARD):  # told apart by their shapes
        return
    label = abbreviation(kind)
    if label and r >= 9:
        style.fit_text(
            surface, label, (x, y + 1), int(2 * r - 2), size, (15, 18, 20), anchor="center", smallest=8
        )


def _draw_bars(surface, units: Units, group: list[int], px, py, r) -> None:
    """The health (or, while building, progress) bar above a unit, or one bar with a segment per unit above
    touching units (in their order along the group's longer side), and a shield bar above that. Shown for
    the selected and the damaged."""
    index = np.array(group)
    health, progress = units.health[index], units.build_progress[index]
    building = progress < 1.0  # hit points grow with the build: a progress bar, not a "damaged" red one
    wanted = units.selected[index] | (~building & (health < 1.0))
    if not wanted.any() or np.isnan(health).all():
        return
    left, right = float((px[index] - r[index]).min()), float((px[index] + r[index]).max())
    top, bottom = float((py[index] - r[index]).min()), float((py[index] + r[index]).max())
    centre = (left + right) / 2
    if len(group) == 1 and building[0]:
        _bar(surface, centre, top - 7, max(right - left, 18), progress, style.PROGRESS)
        return
    order = np.argsort(px[index] if right - left >= bottom - top else py[index], kind="stable")
    width = max(right - left, 18, 4 * len(group))
    _bar(surface, centre, top - 7, width, health[order], None)
    shields = units.shield[index][order]
    if not np.isnan(shields).all():
        _bar(surface, centre, top - 7 - _BAR_H - 2, width, np.nan_to_num(shields), _SHIELD_COLOUR)


def _bar(surface, x: float, y: float, width: float, fractions, colour) -> None:
    """A bar of one segment per value, each filled by its fraction (colour None: by health)."""
    back = pygame.Rect(0, 0, round(width), _BAR_H)
    back.center = (round(x), round(y))
    pygame.draw.rect(surface, (10, 10, 10), back.inflate(2, 2))
    n = len(fractions)
    for s, fraction in enumerate(fractions):
        if np.isnan(fraction):
            continue
        x0 = back.x + round(s * back.w / n)
        x1 = back.x + round((s + 1) * back.w / n) - (1 if n > 1 else 0)  # a 1 px gap between segments
        fill = colour or style.health_colour(float(fraction))
        pygame.draw.rect(surface, fill, (x0, back.y, max(1, round((x1 - x0) * float(fraction))), _BAR_H))


def _badge(surface, value: str, right: float, top: float) -> None:
    """A count in a pill at the top-right corner of a stack."""
    image = style.font(15).render(value, True, (15, 18, 20))
    pill = image.get_rect().inflate(8, 2)
    pill.center = (round(right), round(top + 2))
    pygame.draw.rect(surface, style.TEXT, pill, border_radius=pill.h // 2)
    pygame.draw.rect(surface, (15, 18, 20), pill, width=1, border_radius=pill.h // 2)
    surface.blit(image, image.get_rect(center=pill.center))
