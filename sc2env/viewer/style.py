"""Colours, fonts and text helpers shared by the viewer's panels."""

from __future__ import annotations

import functools

import pygame

BACKGROUND = (17, 19, 23)
PANEL = (27, 30, 36)
BORDER = (58, 63, 74)
TEXT = (222, 226, 232)
DIM = (138, 145, 156)
ACCENT = (255, 196, 64)
WARN = (255, 110, 90)
SELECTION = (90, 255, 120)
PROGRESS = (200, 205, 215)  # a structure's build progress bar

ALLIANCE = {1: (64, 196, 96), 2: (84, 144, 255), 3: (196, 186, 120), 4: (232, 64, 64)}
"""Self, ally, neutral, enemy (raw `Alliance` values)."""
MINERAL = (86, 170, 255)
VESPENE = (70, 206, 150)
BEACON = (255, 214, 70)
SHARD = (130, 226, 255)

GROUND = (58, 66, 56)
GROUND_GRID = (72, 82, 68)
UNPATHABLE = (30, 33, 36)
OUTSIDE = (12, 13, 16)


@functools.cache
def font(size: int) -> pygame.font.Font:
    """pygame's bundled font at `size` (no system fonts needed, so it looks the same everywhere)."""
    if not pygame.font.get_init():
        pygame.font.init()
    return pygame.font.Font(None, size)


def text(
    surface: pygame.Surface,
    value: str,
    pos: tuple[float, float],
    size: int = 18,
    colour=TEXT,
    anchor: str = "topleft",
) -> pygame.Rect:
    """Draw one line of text anchored at `pos` ("topleft", "center", "midtop", ...); returns its rect."""
    image = font(size).render(value, True, colour)
    rect = image.get_rect(**{anchor: (round(pos[0]), round(pos[1]))})
    surface.blit(image, rect)
    return rect


def fit_text(
    surface: pygame.Surface,
    value: str,
    pos: tuple[float, float],
    width: int,
    size: int = 18,
    colour=TEXT,
    anchor: str = "topleft",
    smallest: int = 13,
) -> pygame.Rect:
    """Like text(), shrinking the font (down to `smallest`) and then cutting the text to fit `width` pixels."""
    while size > smallest and font(size).size(value)[0] > width:
        size -= 1
    if font(size).size(value)[0] > width:
        while len(value) > 1 and font(size).size(value + "..")[0] > width:
            value = value[:-1]
        value += ".."
    return text(surface, value, pos, size, colour, anchor)


def panel(surface: pygame.Surface, rect: pygame.Rect, title: str | None = None) -> pygame.Rect:
    """A framed panel background; returns the inner area below its title."""
    pygame.draw.rect(surface, PANEL, rect, border_radius=6)
    pygame.draw.rect(surface, BORDER, rect, width=1, border_radius=6)
    if title is None:
        return rect.inflate(-12, -12)
    text(surface, title, (rect.x + 10, rect.y + 7), 18, DIM)
    return pygame.Rect(rect.x + 8, rect.y + 26, rect.w - 16, rect.h - 32)


def health_colour(fraction: float) -> tuple[int, int, int]:
    """Green at full health through yellow to red."""
    fraction = min(max(fraction, 0.0), 1.0)
    if fraction > 0.5:
        return int(255 * (1 - fraction) * 2), 220, 60
    return 240, int(220 * fraction * 2), 60
