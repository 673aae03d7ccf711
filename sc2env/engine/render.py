"""World -> feature layers: the screen and minimap pixel grids, unit coverage, and every layer's bytes."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sc2env.engine import wire
from sc2env.engine.mapdef import MapDefinition
from sc2env.engine.players import Player
from sc2env.engine.world import World

NEUTRAL_PLAYER_ID = 16
# player_relative values: none 0, self 1, ally 2, neutral 3, enemy 4.
SELF, NEUTRAL, ENEMY = 1, 3, 4


@dataclass(frozen=True)
class View:
    """A pixel grid laid over the world: `scale` world units per pixel, (left, top) the world corner of pixel (0, 0).

    Pixel (i, j) has its centre at x = left + (i + 0.5)·scale, y = top − (j + 0.5)·scale: row 0 is at the top.
    """

    width: int
    height: int
    left: float
    top: float
    scale: float

    def world_to_pixel(self, x, y):
        """Continuous pixel coordinates (pixel centres at integers)."""
        return (np.subtract(x, self.left) / self.scale - 0.5, np.subtract(self.top, y) / self.scale - 0.5)

    def pixel_to_world(self, i: float, j: float) -> tuple[float, float]:
        return (self.left + (i + 0.5) * self.scale, self.top - (j + 0.5) * self.scale)

    def contains(self, x, y):
        return (np.asarray(x) >= self.left) & (np.asarray(x) < self.left + self.width * self.scale) & (
            np.asarray(y) <= self.top) & (np.asarray(y) > self.top - self.height * self.scale)


def screen_view(camera: tuple[float, float], world_width: float, resolution: tuple[int, int]) -> View:
    """The feature screen: `world_width` units across, centred on the camera, square pixels."""
    w, h = resolution
    scale = world_width / w
    return View(w, h, camera[0] - w / 2 * scale, camera[1] + h / 2 * scale, scale)


def minimap_view(definition: MapDefinition, resolution: tuple[int, int], crop: bool) -> View:
    """The minimap: the whole map (or the playable area when cropped), top-left anchored, scaled by its longer side."""
    if crop:
        b = definition.playable_area
        left, bottom, w, h = b.x0, b.y0, b.x1 - b.x0, b.y1 - b.y0
    else:
        left, bottom, (w, h) = 0.0, 0.0, definition.map_size
    scale = max(w, h) / resolution[0]
    return View(resolution[0], resolution[1], left, bottom + h, scale)


class Terrain:
    """The map's static grids, one cell per world unit, row 0 at world y = 0 (the raw-grid convention)."""

    def __init__(self, definition: MapDefinition):
        w, h = definition.map_size
        b = definition.playable_area
        cx = np.arange(w) + 0.5
        cy = np.arange(h) + 0.5
        inside = ((cx[None, :] > b.x0) & (cx[None, :] < b.x1) & (cy[:, None] > b.y0) & (cy[:, None] < b.y1))
        self.size = (w, h)
        self.height = np.full((h, w), round((definition.terrain_height + 16) * 255 / 32), np.uint8)
        self.pathable = inside
        self.buildable = inside.copy()
        revealed = inside if definition.vision == "reveal_playable" else np.ones_like(inside)
        self.visibility = np.where(revealed, 2, 0).astype(np.uint8)
        self.creep = np.zeros((h, w), bool)

    def sample(self, view: View, grid: np.ndarray) -> np.ndarray:
        """`grid` seen through `view`: the cell under each pixel centre, 0 off the map."""
        i = np.arange(view.width)
        j = np.arange(view.height)
        x = np.floor(view.left + (i + 0.5) * view.scale).astype(int)
        y = np.floor(view.top - (j + 0.5) * view.scale).astype(int)
        w, h = self.size
        ok = (x[None, :] >= 0) & (x[None, :] < w) & (y[:, None] >= 0) & (y[:, None] < h)
        out = grid[np.clip(y, 0, h - 1)[:, None], np.clip(x, 0, w - 1)[None, :]]
        return np.where(ok, out, 0).astype(grid.dtype)


def coverage(view: View, world: World) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Which unit each pixel shows, and how many units cover it.

    A unit covers the pixels whose centres lie within its radius, and always the pixel holding its centre.
    Ground units are drawn over items and beacons. Returns (index, density, density_aa): `index` holds the
    world row + 1 of the top unit (0 = none); `density_aa` is coverage in 1/16ths of a unit, an
    anti-aliased density.
    """
    h, w = view.height, view.width
    n = world.n
    if not n:
        zero8 = np.zeros((h, w), np.uint8)
        return np.zeros((h, w), np.int32), zero8, zero8
    fx, fy = view.world_to_pixel(world.pos[:, 0], world.pos[:, 1])
    rp = world.radius / view.scale
    reach = int(np.ceil(rp.max())) + 1
    offsets = np.arange(-reach, reach + 1)
    ox, oy = np.meshgrid(offsets, offsets)
    ox, oy = ox.ravel(), oy.ravel()
    ci = np.rint(fx)[:, None].astype(np.int64) + ox[None, :]
    cj = np.rint(fy)[:, None].astype(np.int64) + oy[None, :]
    d = np.sqrt((ci - fx[:, None]) ** 2 + (cj - fy[:, None]) ** 2)
    covered = (d <= rp[:, None]) | ((ox == 0) & (oy == 0))[None, :]
    covered &= (ci >= 0) & (ci < w) & (cj >= 0) & (cj < h)
    unit_rows = np.broadcast_to(np.arange(n)[:, None], ci.shape)[covered]
    pixels = (cj * w + ci)[covered]
    density = np.bincount(pixels, minlength=h * w)
    aa = np.clip(rp[:, None] - d + 0.5, 0.0, 1.0)[covered]
    density_aa = np.bincount(pixels, weights=aa, minlength=h * w) * 16
    priority = world.collides[unit_rows].astype(np.int64) * (n + 1) + unit_rows
    order = np.lexsort((priority, pixels))
    last = np.ones(len(order), bool)
    last[:-1] = pixels[order][1:] != pixels[order][:-1]
    index = np.zeros(h * w, np.int32)
    index[pixels[order][last]] = unit_rows[order][last] + 1
    return (index.reshape(h, w), np.minimum(density, 255).astype(np.uint8).reshape(h, w),
            np.minimum(np.rint(density_aa), 255).astype(np.uint8).reshape(h, w))


# Layer tables in spatial.proto field order: (name, field number, bits per pixel, source).
# Sources: "terrain:<grid>", "unit:<value>", "density", "density_aa", "camera", or "zero" for what the
# engine does not model (a mechanic adds its source here).
SCREEN_LAYERS = (
    ("height_map", 1, 8, "terrain:height"), ("visibility_map", 2, 8, "terrain:visibility"),
    ("creep", 3, 1, "terrain:creep"), ("power", 4, 1, "zero"), ("player_id", 5, 8, "unit:player_id"),
    ("unit_type", 6, 32, "unit:unit_type"), ("selected", 7, 1, "unit:selected"),
    ("unit_hit_points", 8, 32, "unit:health"), ("unit_energy", 9, 32, "unit:energy"),
    ("unit_shields", 10, 32, "unit:shields"), ("player_relative", 11, 8, "unit:player_relative"),
    ("unit_density_aa", 14, 8, "density_aa"), ("unit_density", 15, 8, "density"),
    ("unit_hit_points_ratio", 17, 8, "unit:health_ratio"), ("unit_energy_ratio", 18, 8, "unit:energy_ratio"),
    ("unit_shields_ratio", 19, 8, "unit:shields_ratio"), ("effects", 20, 8, "zero"),
    ("hallucinations", 21, 1, "zero"), ("cloaked", 22, 1, "zero"), ("blip", 23, 1, "zero"),
    ("buffs", 24, 32, "zero"), ("active", 25, 1, "unit:active"), ("buff_duration", 26, 8, "zero"),
    ("build_progress", 27, 8, "unit:build_progress"), ("buildable", 28, 1, "terrain:buildable"),
    ("pathable", 29, 1, "terrain:pathable"), ("placeholder", 30, 1, "zero"),
)
MINIMAP_LAYERS = (
    ("height_map", 1, 8, "terrain:height"), ("visibility_map", 2, 8, "terrain:visibility"),
    ("creep", 3, 1, "terrain:creep"), ("camera", 4, 1, "camera"), ("player_id", 5, 8, "unit:player_id"),
    ("player_relative", 6, 8, "unit:player_relative"), ("selected", 7, 1, "unit:selected"),
    ("unit_type", 8, 32, "unit:unit_type"), ("alerts", 9, 1, "zero"), ("buildable", 10, 1, "terrain:buildable"),
    ("pathable", 11, 1, "terrain:pathable"),
)


def unit_values(world: World, player: Player) -> dict[str, np.ndarray]:
    """Per-unit layer values, each with a leading 0 for "no unit" so that `values[index]` draws a layer."""
    owner = world.owner
    selected = np.isin(world.tag, player.selection) if player.selection else np.zeros(world.n, bool)

    def ratio(value, maximum):
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(maximum > 0, np.floor(value / maximum * 255), 0)

    relative = np.where(owner == player.player_id, SELF, np.where(owner == 0, NEUTRAL, ENEMY))
    values = {
        "player_id": np.where(owner == 0, NEUTRAL_PLAYER_ID, owner),
        "unit_type": world.type_id,
        "selected": selected,
        "health": np.floor(world.health),
        "energy": np.floor(world.energy),
        "shields": np.floor(world.shields),
        "player_relative": relative,
        "health_ratio": ratio(world.health, world.health_max),
        "energy_ratio": ratio(world.energy, world.energy_max),
        "shields_ratio": ratio(world.shields, world.shields_max),
        "active": np.array([bool(o) for o in world.orders], bool),
        "build_progress": np.where(world.build_progress < 1, np.floor(world.build_progress * 255), 0),
    }
    return {k: np.concatenate([[0], v]) for k, v in values.items()}


_DTYPES = {8: np.uint8, 32: np.dtype("<i4")}


def encode(bits_per_pixel: int, pixels: np.ndarray) -> bytes:
    """A serialized ImageData for a (height, width) array; 1-bpp images are packed MSB first, unpadded."""
    h, w = pixels.shape
    if bits_per_pixel == 1:
        data = np.packbits(pixels.ravel() != 0).tobytes()
    else:
        data = pixels.astype(_DTYPES[bits_per_pixel], copy=False).tobytes()
    return wire.image_data(bits_per_pixel, w, h, data)


class LayerRenderer:
    """Draws one layer table through one view; static layers are encoded once per view and reused."""

    def __init__(self, layers: tuple, terrain: Terrain):
        self.layers = layers
        self.terrain = terrain
        self._static: dict[tuple, list[bytes | None]] = {}

    def render(self, view: View, world: World, player: Player, camera: View | None = None) -> bytes:
        """The serialized FeatureLayers (or FeatureLayersMinimap) message for this frame."""
        static = self._static.get((view, camera))
        if static is None:
            static = [self._static_layer(source, bpp, view, camera) for _, _, bpp, source in self.layers]
            if len(self._static) > 64:
                self._static.clear()
            self._static[(view, camera)] = static
        index, density, density_aa = coverage(view, world)
        values = unit_values(world, player) if world.n else None
        parts = []
        for (_, number, bpp, source), cached in zip(self.layers, static):
            if cached is None:
                if source == "density":
                    image = encode(bpp, density)
                elif source == "density_aa":
                    image = encode(bpp, density_aa)
                elif values is None:
                    image = encode(bpp, np.zeros((view.height, view.width), np.uint8))
                else:
                    image = encode(bpp, np.take(values[source[5:]], index))
                cached = image
            parts.append(wire.field_header(number, len(cached)))
            parts.append(cached)
        return b"".join(parts)

    def _static_layer(self, source: str, bpp: int, view: View, camera: View | None) -> bytes | None:
        shape = (view.height, view.width)
        if source == "zero":
            return encode(bpp, np.zeros(shape, np.uint8))
        if source.startswith("terrain:"):
            return encode(bpp, self.terrain.sample(view, getattr(self.terrain, source[8:])))
        if source == "camera":
            i = np.arange(view.width)
            j = np.arange(view.height)
            x = view.left + (i + 0.5) * view.scale
            y = view.top - (j + 0.5) * view.scale
            cam_r = camera.left + camera.width * camera.scale
            cam_b = camera.top - camera.height * camera.scale
            inside = (x[None, :] >= camera.left) & (x[None, :] <= cam_r) & (y[:, None] <= camera.top) & (
                y[:, None] >= cam_b)
            return encode(bpp, inside)
        return None
