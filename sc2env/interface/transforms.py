"""Coordinate transforms between world, screen and minimap, and the map facts of `ResponseGameInfo`.

Conventions: points are (x, y); arrays are indexed [y, x]. World coordinates have y pointing up.
Screen and minimap pixels have (0, 0) at the top-left and y pointing down. Raw map grids (pathing,
placement, terrain height) are indexed [world_y, world_x]: their row 0 is the bottom of the map.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env.interface.format import InterfaceFormat
from sc2env.interface.layers import image_array

PIXEL_TOLERANCE = 1e-9
"""A mapped coordinate this close below a pixel edge counts as on it: `p * scale + offset` can land a hair
short of an edge the exact arithmetic reaches (a unit at y 23.5 under a camera at y 25 on 64 px for 24 units
gave 35.99999999999999 for pixel row 36, where PySC2's arithmetic gives 36). Positions in the game's fixed point
are never that close to an edge otherwise."""


@dataclass(frozen=True)
class Linear2D:
    """An axis-aligned affine map `p * scale + offset`, applied to (..., 2) arrays of (x, y) points."""

    scale: tuple[float, float]
    offset: tuple[float, float]

    def fwd(self, points) -> np.ndarray:
        return np.asarray(points, np.float64) * self.scale + self.offset

    def back(self, points) -> np.ndarray:
        return (np.asarray(points, np.float64) - self.offset) / self.scale

    def fwd_pixel(self, points) -> np.ndarray:
        """The pixel (int x, y) containing each forward-mapped point."""
        return np.floor(self.fwd(points) + PIXEL_TOLERANCE).astype(np.int64)

    def back_pixel(self, pixels) -> np.ndarray:
        """The source coordinates of each pixel's centre."""
        return self.back(np.asarray(pixels, np.float64) + 0.5)

    def then(self, other: Linear2D) -> Linear2D:
        """This map followed by `other`."""
        (sx, sy), (ox, oy) = self.scale, self.offset
        (tx, ty), (px, py) = other.scale, other.offset
        return Linear2D((sx * tx, sy * ty), (ox * tx + px, oy * ty + py))

    def inverse(self) -> Linear2D:
        (sx, sy), (ox, oy) = self.scale, self.offset
        return Linear2D((1 / sx, 1 / sy), (-ox / sx, -oy / sy))


def grid_array(image, what: str) -> np.ndarray:
    """A raw map grid (`ImageData`) as an array indexed [world_y, world_x], row 0 at the bottom."""
    array = image_array(image, what)
    return np.zeros((0, 0), np.uint8) if array is None else array


@dataclass(frozen=True)
class MapInfo:
    """The static map facts of a game: size, playable area, start locations and the raw grids."""

    name: str
    size: tuple[int, int]
    """(width, height) in world units."""
    playable_area: tuple[float, float, float, float]
    """(x0, y0, x1, y1) in world units."""
    pathing: np.ndarray
    """bool [world_y, world_x]; the grid at game start (the game marks mineral fields pathable in it)."""
    placement: np.ndarray
    """bool [world_y, world_x]."""
    terrain_height: np.ndarray
    """uint8 [world_y, world_x]; world height is about value * 32 / 255 - 16."""
    start_locations: np.ndarray
    """(n, 2) world (x, y) of the other players' possible start locations."""

    @classmethod
    def from_game_info(cls, game_info: sc_pb.ResponseGameInfo) -> MapInfo:
        raw = game_info.start_raw
        width, height = raw.map_size.x, raw.map_size.y
        if raw.HasField("playable_area"):
            area = raw.playable_area
            playable = (float(area.p0.x), float(area.p0.y), float(area.p1.x), float(area.p1.y))
        else:
            playable = (0.0, 0.0, float(width), float(height))
        return cls(
            name=game_info.map_name,
            size=(width, height),
            playable_area=playable,
            pathing=grid_array(raw.pathing_grid, "pathing_grid") != 0,
            placement=grid_array(raw.placement_grid, "placement_grid") != 0,
            terrain_height=grid_array(raw.terrain_height, "terrain_height"),
            start_locations=np.array([(p.x, p.y) for p in raw.start_locations], np.float64).reshape(-1, 2),
        )

    def sample(self, grid: np.ndarray, world_x: np.ndarray, world_y: np.ndarray) -> np.ndarray:
        """grid values at world positions (broadcast together); positions off the grid read as 0."""
        if grid.size == 0:
            return np.zeros(np.broadcast_shapes(np.shape(world_x), np.shape(world_y)), grid.dtype)
        ix = np.floor(world_x).astype(np.int64)
        iy = np.floor(world_y).astype(np.int64)
        inside = (ix >= 0) & (ix < grid.shape[1]) & (iy >= 0) & (iy < grid.shape[0])
        values = grid[np.clip(iy, 0, grid.shape[0] - 1), np.clip(ix, 0, grid.shape[1] - 1)]
        return np.where(inside, values, np.zeros((), grid.dtype))


class CoordinateTransforms:
    """World <-> screen <-> minimap under one interface format and map.

    The screen shows `camera_width` world units across, centred on the camera, with square pixels.
    The minimap shows the whole map (or the playable area with `crop_to_playable_area`) anchored at its
    top-left corner, scaled by its longer side.
    """

    def __init__(self, fmt: InterfaceFormat, map_info: MapInfo, *, rgb: bool | None = None):
        rgb = fmt.action_space == "rgb" if rgb is None else rgb
        screen, minimap = (
            (fmt.rgb_screen_size, fmt.rgb_minimap_size) if rgb else (fmt.screen_size, fmt.minimap_size)
        )
        if screen is None or minimap is None:
            raise ValueError(
                f"the interface format has no {'RGB' if rgb else 'feature layer'} sizes to map to"
            )
        self.screen_size: tuple[int, int] = screen
        self.minimap_size: tuple[int, int] = minimap
        self.camera_width = float(fmt.camera_width)
        self.map_info = map_info
        if fmt.crop_to_playable_area:
            x0, y0, x1, y1 = map_info.playable_area
        else:
            x0, y0, x1, y1 = 0.0, 0.0, float(map_info.size[0]), float(map_info.size[1])
        units_per_pixel = max(x1 - x0, y1 - y0) / self.minimap_size[0]
        self.minimap_rows_needed = int(np.ceil((y1 - y0) / units_per_pixel - PIXEL_TOLERANCE))
        """Minimap rows the map (or playable area) spans: more than the minimap has cuts its bottom off."""
        self.world_to_minimap = Linear2D(
            (1 / units_per_pixel, -1 / units_per_pixel), (-x0 / units_per_pixel, y1 / units_per_pixel)
        )
        """World -> minimap pixels (continuous; `fwd_pixel` for the pixel index)."""
        width, height = (float(v) for v in map_info.size)
        sx, sy = width / max(width, height), height / max(width, height)
        self.world_to_raw = Linear2D((sx, -sy), (0.0, height * sy))
        """World -> PySC2's default raw coordinates (raw_units, camera_position): from the map's top-left
        corner, each axis scaled by its side over the longer side, so world units on square maps."""
        self.raw_camera_size = np.array((sx, sy)) * self.camera_width
        """The camera's width and height in raw coordinates (PySC2's camera_size)."""
        self.raw_grid_size = (int(np.ceil(width * sx - 1e-9)), int(np.ceil(height * sy - 1e-9)))
        """(width, height) of the raw coordinate grid: the cells raw_units positions and raw points fall in."""

    def world_to_screen(self, camera) -> Linear2D:
        """World -> screen pixels for a camera centred at world (x, y) (`raw_data.player.camera`)."""
        cx, cy = float(camera[0]), float(camera[1])
        width, height = self.screen_size
        pixels_per_unit = width / self.camera_width
        return Linear2D(
            (pixels_per_unit, -pixels_per_unit),
            (width / 2 - cx * pixels_per_unit, height / 2 + cy * pixels_per_unit),
        )

    def screen_to_minimap(self, camera) -> Linear2D:
        return self.world_to_screen(camera).inverse().then(self.world_to_minimap)

    def minimap_to_screen(self, camera) -> Linear2D:
        return self.world_to_minimap.inverse().then(self.world_to_screen(camera))

    def screen_world_axes(self, camera) -> tuple[np.ndarray, np.ndarray]:
        """World x of every screen column centre and world y of every screen row centre."""
        to_world = self.world_to_screen(camera).inverse()
        width, height = self.screen_size
        xs = (np.arange(width) + 0.5) * to_world.scale[0] + to_world.offset[0]
        ys = (np.arange(height) + 0.5) * to_world.scale[1] + to_world.offset[1]
        return xs, ys

    def grid_on_screen(self, grid: np.ndarray, camera) -> np.ndarray:
        """A raw map grid resampled at the screen pixel centres: an array indexed [screen_y, screen_x]."""
        xs, ys = self.screen_world_axes(camera)
        return self.map_info.sample(grid, xs[None, :], ys[:, None])
