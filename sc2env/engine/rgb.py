"""A clean top-down RGB drawing of the screen and minimap for the render interface (24 bits per pixel)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from s2clientprotocol import spatial_pb2

from sc2env.engine.frame import VALUE_ROW
from sc2env.engine.render import View

if TYPE_CHECKING:
    from sc2env.engine.game import Game

# Index = player_relative (none, self, ally, neutral, enemy); selected units are drawn lighter.
_UNIT_COLOURS = np.array([[0, 0, 0], [40, 170, 60], [60, 120, 220], [80, 200, 220], [210, 50, 40]], np.uint8)
_SELECTED_COLOURS = np.array(
    [[0, 0, 0], [150, 255, 150], [150, 190, 255], [170, 240, 255], [255, 150, 140]], np.uint8
)
_GROUND = np.array([70, 64, 52], np.uint8)
_OFF_MAP = np.array([0, 0, 0], np.uint8)
_CAMERA = np.array([255, 255, 255], np.uint8)


def draw(game: Game, view: View, camera: View | None = None) -> np.ndarray:
    """(height, width, 3) uint8: pathable ground, units coloured by owner, the camera frame on the minimap."""
    terrain = game.terrain
    visibility = terrain.sample(view, game.vision.grid())
    ground = terrain.sample(view, terrain.pathable)
    image = np.where((ground & (visibility > 0))[..., None], _GROUND, _OFF_MAP).astype(np.uint8)
    image[visibility == 1] //= 2  # fogged ground (seen before, not in sight now) is drawn darker
    index, _, _ = game.frames.coverage(view, game.world, game.player)
    if game.world.n:
        values = game.frames.values(game.world, game.player)
        relative = values[VALUE_ROW["player_relative"]][index].astype(np.intp)
        selected = values[VALUE_ROW["selected"]][index].astype(bool)
        palette = np.where(selected[..., None], _SELECTED_COLOURS[relative], _UNIT_COLOURS[relative])
        image = np.where((index > 0)[..., None], palette, image).astype(np.uint8)
    if camera is not None:
        x0, y0 = view.world_to_pixel(camera.left, camera.top)
        x1, y1 = view.world_to_pixel(
            camera.left + camera.width * camera.scale, camera.top - camera.height * camera.scale
        )
        i0, i1 = (int(np.clip(np.rint(v), 0, view.width - 1)) for v in (x0, x1))
        j0, j1 = (int(np.clip(np.rint(v), 0, view.height - 1)) for v in (y0, y1))
        image[j0 : j1 + 1, [i0, i1]] = _CAMERA
        image[[j0, j1], i0 : i1 + 1] = _CAMERA
    return image


def render(game: Game, out: spatial_pb2.ObservationRender) -> None:
    """Fill `render_data.map` (the screen) and `render_data.minimap` as 24-bpp images."""
    screen = game.screen_view(render=True)
    minimap = game.minimap_view(render=True)
    for target, view, camera in ((out.map, screen, None), (out.minimap, minimap, game.camera_view())):
        if view is None:
            continue
        target.bits_per_pixel = 24
        target.size.x, target.size.y = view.width, view.height
        target.data = draw(game, view, camera).tobytes()
