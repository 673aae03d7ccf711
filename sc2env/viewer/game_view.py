"""GameView: the camera's area alone (terrain, units, orders, the last clicks, fog) as frames of any size."""

from __future__ import annotations

import numpy as np
import pygame

from sc2env.interface import CoordinateTransforms, InterfaceFormat, MapInfo
from sc2env.viewer import style
from sc2env.viewer.draw_map import MapPainter
from sc2env.viewer.layout import Layout
from sc2env.viewer.markers import MarkerTrail
from sc2env.viewer.scene import Scene


class GameView:
    """Draws scenes as the viewer's main view does, into a frame of `size` with nothing around it but a
    margin where the frame's aspect differs from the feature screen's (the view keeps the screen's aspect,
    so that the fog drawn from the screen's visibility layer lies over the units it hides)."""

    def __init__(self, fmt: InterfaceFormat, game_info, size: tuple[int, int] | None = None):
        if not pygame.font.get_init():
            pygame.font.init()
        self.map_name = game_info.map_name
        map_info = MapInfo.from_game_info(game_info)
        self.layout = Layout.game_view(fmt, size)
        self.painter = MapPainter(fmt, map_info, self.layout)
        self.markers = MarkerTrail(CoordinateTransforms(fmt, map_info, rgb=fmt.action_space == "rgb"))
        self.canvas = pygame.Surface(self.layout.size)

    def frame(self, scene: Scene) -> np.ndarray:
        """The (height, width, 3) uint8 frame of `scene` (a new array)."""
        self.markers.update(scene)
        self.canvas.fill(style.BACKGROUND)
        self.painter.draw_view(self.canvas, scene, self.markers.live(scene.game_loop))
        pixels = pygame.surfarray.pixels3d(self.canvas)
        frame = pixels.transpose(1, 0, 2).copy()
        del pixels  # unlocks the canvas
        return frame
