"""The main view (the camera's area: terrain, units, orders, fog) and the minimap with the camera frame."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pygame
from s2clientprotocol import raw_pb2

from sc2env.interface import CoordinateTransforms, InterfaceFormat, Linear2D, MapInfo
from sc2env.viewer import style
from sc2env.viewer.draw_units import BEACON, GEYSERS, MINERALS, SHARD, draw_units
from sc2env.viewer.layout import Layout
from sc2env.viewer.markers import Marker, draw_markers, draw_paths
from sc2env.viewer.scene import Scene

_MINIMAP_COLOURS = {BEACON: style.BEACON, SHARD: style.SHARD}  # as the main view draws them
_FOG_ALPHA = np.array([190, 120, 0, 190], np.uint8)  # visibility: hidden, fogged, visible, (full hidden)
CONSOLE_SHARE = (0.2, 0.3)
"""The selection panel covers the bottom of the view: the band below the map's playable area (a mini-game's
locked camera leaves 21 to 29 % empty there, where the game's own console sits), within these shares of the
view's height."""


class MapPainter:
    """Draws the map panels of one game: terrain is rendered once, units every frame."""

    def __init__(self, fmt: InterfaceFormat, map_info: MapInfo, layout: Layout):
        self.fmt = fmt
        self.map_info = map_info
        self.layout = layout
        self.transforms = CoordinateTransforms(fmt, map_info, rgb=fmt.action_space == "rgb")
        self.pixels_per_unit = layout.view.w / fmt.camera_width
        self.world_to_minimap_frame = self.transforms.world_to_minimap.then(layout.minimap_transform)
        self._terrain = self._terrain_surface(self.pixels_per_unit, grid=True)
        self._minimap_terrain: pygame.Surface | None = (
            None  # made at the first minimap (the game view has none)
        )

    # --- terrain -----------------------------------------------------------------------------------

    def _terrain_colours(self) -> np.ndarray:
        """(height, width, 3) colours per world cell, row 0 at the top of the map."""
        info = self.map_info
        width, height = info.size
        colours = np.empty((height, width, 3), np.int16)
        colours[:] = style.UNPATHABLE
        pathing = info.pathing if info.pathing.shape == (height, width) else np.ones((height, width), bool)
        colours[pathing] = style.GROUND
        if info.terrain_height.shape == (height, width):  # higher ground a little lighter
            colours += (info.terrain_height.astype(np.int16)[..., None] - 128) // 8
        x0, y0, x1, y1 = info.playable_area
        ys, xs = np.mgrid[0:height, 0:width]
        outside = (xs + 0.5 < x0) | (xs + 0.5 > x1) | (ys + 0.5 < y0) | (ys + 0.5 > y1)
        colours[outside] = style.OUTSIDE
        return np.clip(colours, 0, 255).astype(np.uint8)[::-1]

    def _terrain_surface(self, scale: float, grid: bool) -> pygame.Surface:
        colours = self._terrain_colours()
        height, width = colours.shape[:2]
        base = pygame.surfarray.make_surface(colours.swapaxes(0, 1))
        size = (max(1, round(width * scale)), max(1, round(height * scale)))
        surface = pygame.transform.scale(base, size)
        if grid and scale >= 8:
            x0, y0, x1, y1 = self.map_info.playable_area
            top, bottom = (height - y1) * scale, (height - y0) * scale
            for x in range(int(np.ceil(x0)), int(x1) + 1):
                pygame.draw.line(surface, style.GROUND_GRID, (x * scale, top), (x * scale, bottom))
            for y in range(int(np.ceil(y0)), int(y1) + 1):
                py = (height - y) * scale
                pygame.draw.line(surface, style.GROUND_GRID, (x0 * scale, py), (x1 * scale, py))
        return surface

    def _minimap_background(self) -> pygame.Surface:
        """The whole map's terrain at the minimap's scale, positioned so that the shown region fills the
        minimap rect (its origin is the rect's top-left)."""
        rect = self.layout.minimap
        width, height = self.map_info.size
        left, top = self.world_to_minimap_frame.fwd((0.0, float(height)))
        right, bottom = self.world_to_minimap_frame.fwd((float(width), 0.0))
        terrain = pygame.surfarray.make_surface(self._terrain_colours().swapaxes(0, 1))
        scaled = pygame.transform.smoothscale(
            terrain, (max(1, round(right - left)), max(1, round(bottom - top)))
        )
        surface = pygame.Surface(rect.size)
        surface.fill(style.OUTSIDE)
        surface.blit(scaled, (round(left - rect.x), round(top - rect.y)))
        return surface

    # --- the main view -----------------------------------------------------------------------------

    def world_to_view(self, camera: tuple[float, float]) -> Linear2D:
        """World (x, y) -> frame pixels of the main view under a camera centred at world `camera`."""
        view, k = self.layout.view, self.pixels_per_unit
        return Linear2D((k, -k), (view.centerx - camera[0] * k, view.centery + camera[1] * k))

    def console_rect(self, camera: tuple[float, float]) -> pygame.Rect:
        """Where the selection panel goes: the bottom of the view, over the band below the playable area
        (CONSOLE_SHARE bounds it: a free camera over open ground still gets its smallest share)."""
        view = self.layout.view
        _, playable_bottom = self.world_to_view(camera).fwd((0.0, self.map_info.playable_area[1]))
        low, high = (round(view.h * share) for share in CONSOLE_SHARE)
        height = min(max(round(view.bottom - playable_bottom), low), high)
        return pygame.Rect(view.x, view.bottom - height, view.w, height)

    def draw_view(
        self, surface: pygame.Surface, scene: Scene, markers: Sequence[tuple[Marker, float]] = ()
    ) -> None:
        """Terrain, units, the selected units' orders, the last clicks' markers and the fog of war."""
        view = self.layout.view
        surface.fill(style.OUTSIDE, view)
        k = self.pixels_per_unit
        height = self.map_info.size[1]
        cx, cy = scene.camera
        source = pygame.Rect(
            round((cx * k) - view.w / 2), round((height - cy) * k - view.h / 2), view.w, view.h
        )
        surface.blit(self._terrain, view.topleft, source)
        previous_clip = surface.get_clip()
        surface.set_clip(view)
        to_overlay = self.world_to_view(scene.camera).then(_shift(view))
        if scene.paths:  # on the ground, under the units, as the game draws them; translucent: an overlay
            overlay = pygame.Surface(view.size, pygame.SRCALPHA)
            draw_paths(overlay, scene.paths, to_overlay)
            surface.blit(overlay, view.topleft)
        draw_units(surface, view, scene, k)
        if markers:
            overlay = pygame.Surface(view.size, pygame.SRCALPHA)
            draw_markers(overlay, markers, to_overlay)
            surface.blit(overlay, view.topleft)
        self._draw_fog(surface, scene)
        surface.set_clip(previous_clip)
        pygame.draw.rect(surface, style.BORDER, view, width=1)

    def _draw_fog(self, surface: pygame.Surface, scene: Scene) -> None:
        layers = scene.observation.feature_screen
        if layers is None:
            return
        alpha = _FOG_ALPHA[np.clip(layers.visibility_map, 0, 3)]
        if not alpha.any():
            return
        fog = pygame.Surface(alpha.shape[::-1], pygame.SRCALPHA)
        pygame.surfarray.pixels_alpha(fog)[:] = alpha.T
        surface.blit(pygame.transform.smoothscale(fog, self.layout.view.size), self.layout.view.topleft)

    # --- the minimap -------------------------------------------------------------------------------

    def draw_minimap(
        self, surface: pygame.Surface, scene: Scene, markers: Sequence[tuple[Marker, float]] = ()
    ) -> None:
        """The playable area filling the minimap's box: terrain, units, fog, the last clicks, the camera."""
        box, rect = self.layout.minimap_box, self.layout.minimap
        pygame.draw.rect(surface, style.PANEL, box, border_radius=6)
        pygame.draw.rect(surface, style.BORDER, box, width=1, border_radius=6)
        if self._minimap_terrain is None:
            self._minimap_terrain = self._minimap_background()
        surface.blit(self._minimap_terrain, rect.topleft)
        previous_clip = surface.get_clip()
        surface.set_clip(rect)
        to_frame = self.world_to_minimap_frame
        scale = to_frame.scale[0]  # frame px per world unit
        units = scene.units
        points = to_frame.fwd(np.stack([units.x, units.y], axis=1)) if len(units) else np.zeros((0, 2))
        for i in range(len(units)):
            kind = int(units.unit_type[i])
            colour = _MINIMAP_COLOURS.get(kind)
            if colour is None:
                colour = (
                    style.MINERAL
                    if kind in MINERALS
                    else style.VESPENE
                    if kind in GEYSERS
                    else style.ALLIANCE.get(int(units.alliance[i]), style.TEXT)
                )
            # Players' units at least 5 px across: at 1.5 px a Marine was a speck on the terrain.
            smallest = 1.5 if units.alliance[i] == raw_pb2.Neutral else 2.5
            pygame.draw.circle(surface, colour, points[i], max(smallest, units.radius[i] * scale))
        self._draw_minimap_fog(surface, scene)
        if markers:
            overlay = pygame.Surface(rect.size, pygame.SRCALPHA)
            draw_markers(overlay, markers, to_frame.then(_shift(rect)), size=0.5)
            surface.blit(overlay, rect.topleft)
        self._draw_camera(surface, scene)
        surface.set_clip(previous_clip)
        pygame.draw.rect(surface, style.BORDER, rect, width=1)

    def _draw_minimap_fog(self, surface: pygame.Surface, scene: Scene) -> None:
        layers = scene.observation.feature_minimap
        if layers is None:
            return
        alpha = _FOG_ALPHA[np.clip(layers.visibility_map, 0, 3)]
        # The pixels of the shown region only, scaled to the rect (the whole minimap at this scale would be
        # several times the frame's size).
        x0, y0, x1, y1 = self.layout.minimap_region
        left, top = int(np.floor(x0)), int(np.floor(y0))
        right, bottom = int(np.ceil(x1)), int(np.ceil(y1))
        crop = alpha[top:bottom, left:right]
        if not crop.any():
            return
        fog = pygame.Surface(crop.shape[::-1], pygame.SRCALPHA)
        pygame.surfarray.pixels_alpha(fog)[:] = crop.T
        (fx0, fy0), (fx1, fy1) = self.layout.minimap_transform.fwd([(left, top), (right, bottom)])
        size = (max(1, round(fx1 - fx0)), max(1, round(fy1 - fy0)))
        surface.blit(pygame.transform.smoothscale(fog, size), (round(fx0), round(fy0)))

    def _draw_camera(self, surface, scene: Scene) -> None:
        """The camera's frame, cut to the minimap: a camera wider than the playable area (a mini-game's
        locked one) is framed by the minimap's own edges."""
        cx, cy = scene.camera
        half_w = self.fmt.camera_width / 2
        screen = self.layout.screen_size
        half_h = half_w * screen[1] / screen[0]
        (left, top), (right, bottom) = self.world_to_minimap_frame.fwd(
            [(cx - half_w, cy + half_h), (cx + half_w, cy - half_h)]
        )
        frame = pygame.Rect(round(left), round(top), round(right - left), round(bottom - top))
        frame = frame.clip(self.layout.minimap)
        if frame.w and frame.h:
            pygame.draw.rect(surface, (255, 255, 255), frame, width=2)


def _shift(rect: pygame.Rect) -> Linear2D:
    """Frame pixels -> pixels of a surface covering `rect`."""
    return Linear2D((1.0, 1.0), (-float(rect.x), -float(rect.y)))
