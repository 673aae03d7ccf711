"""Order lines of the selected units, and markers where the last commands and selections pointed."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import pygame

from sc2env.interface import CoordinateTransforms, Linear2D
from sc2env.viewer.scene import Click, OrderKind, OrderPath, Scene

MARKER_LOOPS = 24
"""Game loops a marker stays (about a second at the game's "faster" speed), fading: 3 frames at step_mul 8."""

COLOURS = {
    OrderKind.MOVE: (90, 235, 110),
    OrderKind.ATTACK: (255, 80, 70),
    OrderKind.HARVEST: (255, 214, 70),
    OrderKind.BUILD: (120, 220, 255),
    OrderKind.RALLY: (120, 220, 255),
    OrderKind.OTHER: (230, 230, 230),
    OrderKind.SELECT: (120, 220, 255),
}
_LINE_ALPHA = 170

Point = tuple[float, float]


@dataclasses.dataclass(frozen=True)
class Marker:
    """Where a command or selection of one step pointed, in world units, and the game loop it was seen at."""

    kind: OrderKind
    point: Point
    corner: Point | None
    loop: int


class MarkerTrail:
    """The markers of the last MARKER_LOOPS game loops: each step's clicks, kept while they fade."""

    def __init__(self, transforms: CoordinateTransforms):
        self.transforms = transforms
        self.markers: list[Marker] = []
        self._loop = -1  # the game loop of the last scene

    def update(self, scene: Scene) -> None:
        """Add the clicks of a new scene (its camera places screen points: a command's step does not move the
        camera) and forget the faded ones; a new episode (the game loop going back) starts afresh. A scene of
        the loop seen last (the same observation rendered again) adds nothing."""
        loop = scene.game_loop
        if loop == self._loop:
            return
        if loop < self._loop:
            self.markers = []
        self._loop = loop
        self.markers = [m for m in self.markers if loop - m.loop < MARKER_LOOPS]
        for click in scene.clicks:
            corner = None if click.corner is None else self._world(click, click.corner, scene.camera)
            self.markers.append(
                Marker(click.kind, self._world(click, click.point, scene.camera), corner, loop)
            )

    def live(self, loop: int) -> list[tuple[Marker, float]]:
        """The markers to draw at `loop`, each with its age as a fraction of its life (0 new, towards 1)."""
        return [
            (m, (loop - m.loop) / MARKER_LOOPS) for m in self.markers if 0 <= loop - m.loop < MARKER_LOOPS
        ]

    def _world(self, click: Click, point: Point, camera: Point) -> Point:
        if click.space == "world":
            return point
        if click.space == "screen":
            x, y = self.transforms.world_to_screen(camera).back(point)
        else:
            x, y = self.transforms.world_to_minimap.back(point)
        return float(x), float(y)


def draw_paths(overlay: pygame.Surface, paths: Sequence[OrderPath], to_frame: Linear2D) -> None:
    """Lines from each selected unit through its orders' targets, a mark at each target (into an SRCALPHA
    `overlay`; `to_frame` maps world points to its pixels)."""
    for path in paths:
        start = _pixel(to_frame, path.start)
        for x, y, kind in path.legs:
            end = _pixel(to_frame, (x, y))
            colour = (*COLOURS[kind], _LINE_ALPHA)
            pygame.draw.line(overlay, colour, start, end, 2)
            _target(overlay, end, kind, colour)
            start = end


def _target(overlay: pygame.Surface, at: Point, kind: OrderKind, colour) -> None:
    x, y = at
    if kind is OrderKind.ATTACK:
        pygame.draw.line(overlay, colour, (x - 4, y - 4), (x + 4, y + 4), 2)
        pygame.draw.line(overlay, colour, (x - 4, y + 4), (x + 4, y - 4), 2)
    else:
        pygame.draw.circle(overlay, colour, at, 4, width=2)


def draw_markers(
    overlay: pygame.Surface,
    markers: Sequence[tuple[Marker, float]],
    to_frame: Linear2D,
    size: float = 1.0,
) -> None:
    """Each marker as the game shows a click: a ring closing in on the point as it fades (a box for a box
    selection); `size` scales it (smaller on the minimap)."""
    for marker, age in markers:
        alpha = int(255 * (1 - age) ** 0.7)
        colour = (*COLOURS[marker.kind], alpha)
        at = _pixel(to_frame, marker.point)
        if marker.corner is not None:
            corner = _pixel(to_frame, marker.corner)
            box = pygame.Rect(min(at[0], corner[0]), min(at[1], corner[1]), 0, 0)
            box.size = (round(abs(corner[0] - at[0])), round(abs(corner[1] - at[1])))
            pygame.draw.rect(overlay, colour, box, width=2)
            continue
        radius = size * (5 + 11 * (1 - age))
        pygame.draw.circle(overlay, colour, at, radius, width=max(1, round(2 * size)))
        arm = size * 5
        if marker.kind is OrderKind.ATTACK:
            pygame.draw.line(overlay, colour, (at[0] - arm, at[1] - arm), (at[0] + arm, at[1] + arm), 2)
            pygame.draw.line(overlay, colour, (at[0] - arm, at[1] + arm), (at[0] + arm, at[1] - arm), 2)
        elif marker.kind is not OrderKind.SELECT:
            pygame.draw.circle(overlay, colour, at, max(1.5, 2 * size))


def _pixel(to_frame: Linear2D, point: Point) -> Point:
    x, y = to_frame.fwd(point)
    return float(x), float(y)
