"""World -> feature layers: the screen and minimap pixel grids, unit coverage, and every layer's bytes."""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from sc2env.engine import wire
from sc2env.engine.mapdef import MapDefinition
from sc2env.engine.players import Player
from sc2env.engine.vision import Vision
from sc2env.engine.world import World

NEUTRAL_PLAYER_ID = 16
# player_relative values: none 0, self 1, ally 2, neutral 3, enemy 4.
SELF, NEUTRAL, ENEMY = 1, 3, 4
# Buff ids of a worker carrying minerals / gas (CarryMineralFieldMinerals, CarryHarvestableVespeneGeyserGas).
CARRY_MINERALS, CARRY_GAS = 271, 273


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
        # What a player may ever see: the playable area (vision rules of the map), or the whole map.
        self.revealed = np.ones_like(inside) if definition.vision == "reveal_all" else inside
        self.creep = np.zeros((h, w), bool)

    def sample(self, view: View, grid: np.ndarray) -> np.ndarray:
        """`grid` seen through `view`: the cell under each pixel centre, 0 off the map."""
        return self.padded(grid).take(self.cells(view))

    @staticmethod
    def padded(grid: np.ndarray) -> np.ndarray:
        """`grid` flattened, with a last entry 0 that stands for "off the map" (see `cells`)."""
        padded = np.zeros(grid.size + 1, grid.dtype)
        padded[:-1] = grid.ravel()
        return padded

    @functools.lru_cache(maxsize=32)  # noqa: B019 - one Terrain per game, a handful of views
    def cells(self, view: View) -> np.ndarray:
        """Per pixel of `view`: the flat index of the grid cell under its centre (grid size when off the map)."""
        i = np.arange(view.width)
        j = np.arange(view.height)
        x = np.floor(view.left + (i + 0.5) * view.scale).astype(int)
        y = np.floor(view.top - (j + 0.5) * view.scale).astype(int)
        w, h = self.size
        ok = (x[None, :] >= 0) & (x[None, :] < w) & (y[:, None] >= 0) & (y[:, None] < h)
        return np.where(ok, y[:, None] * w + x[None, :], w * h)


@functools.lru_cache(maxsize=16)
def _offsets(reach: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r = np.arange(-reach, reach + 1)
    ox, oy = (a.ravel() for a in np.meshgrid(r, r))
    return ox, oy, (ox == 0) & (oy == 0)


def coverage(view: View, world: World, densities: bool = True,
             shown: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
    """Which unit each pixel shows, and how many units cover it.

    A unit covers the pixels whose centres lie within its radius, and always the pixel holding its centre.
    Ground units are drawn over structures, items and beacons. Only rows in `shown` are drawn (all if None).
    Returns (index, density, density_aa): `index` holds the world row + 1 of the top unit (0 = none);
    `density_aa` is coverage in 1/16ths of a unit, an anti-aliased density. The densities are None unless
    asked for (the minimap has none).
    """
    h, w = view.height, view.width
    order = np.arange(world.n) if shown is None else shown.nonzero()[0]
    if len(order) and not (world.speed[order] > 0).all() and np.count_nonzero(world.speed[order] > 0):
        # Draw order: mobile (ground) units above the rest, later units above earlier ones.
        order = order[np.argsort(world.speed[order] > 0, kind="stable")]
    fx = (world.pos[order, 0] - view.left) / view.scale - 0.5
    fy = (view.top - world.pos[order, 1]) / view.scale - 0.5
    rp = world.radius[order] / view.scale
    visible = (fx + rp > -1) & (fx - rp < w) & (fy + rp > -1) & (fy - rp < h)
    if not visible.all():  # off-screen units cover nothing
        order, fx, fy, rp = order[visible], fx[visible], fy[visible], rp[visible]
    n = len(order)
    if not n:
        zero8 = np.zeros((h, w), np.uint8)
        return np.zeros((h, w), np.int32), zero8, zero8
    if not densities and rp.max() <= 0.5:
        # Units no bigger than half a pixel (the minimap) cover just the pixel holding their centre.
        pixels = np.rint(fy).astype(np.int64) * w + np.rint(fx).astype(np.int64)
        inside = (pixels >= 0) & (pixels < h * w)
        top = np.zeros(h * w, np.int32)
        top[pixels[inside]] = order[inside] + 1  # later rows win a shared pixel, as in the general case
        return top.reshape(h, w), None, None
    # Units are stamped with a square of candidate pixels sized to their radius; big and small units in
    # separate groups, so a Command Center on screen doesn't make every Marine test a 19x19 square.
    # A pixel centre within rp of a unit is at most rp + 0.5 from the pixel the unit's centre rounds to.
    reach = np.minimum(np.ceil(rp + 0.5).astype(np.int64), 64)
    parts = []
    sizes = [int(reach[0])] if reach.min() == reach.max() else np.unique(reach).tolist()
    for size in sizes:
        group = (reach == size).nonzero()[0] if len(sizes) > 1 else np.arange(n)
        ox, oy, centre = _offsets(size)
        gi = np.rint(fx[group]).astype(np.int64)[:, None] + ox
        gj = np.rint(fy[group]).astype(np.int64)[:, None] + oy
        dx = gi - fx[group, None]
        dy = gj - fy[group, None]
        d2 = dx * dx
        d2 += dy * dy
        # Unsigned views turn negative pixel coordinates into huge ones: one comparison checks both bounds.
        covered = ((d2 <= (rp[group] * rp[group])[:, None]) | centre) & (gi.view(np.uint64) < w) & (
            gj.view(np.uint64) < h)
        r, k = np.nonzero(covered)
        parts.append((group[r], gj[r, k] * w + gi[r, k], d2[r, k]))
    ranks = np.concatenate([p[0] for p in parts]) if len(parts) > 1 else parts[0][0]
    pixels = np.concatenate([p[1] for p in parts]) if len(parts) > 1 else parts[0][1]
    dist2 = np.concatenate([p[2] for p in parts]) if len(parts) > 1 else parts[0][2]
    top = np.zeros(h * w, np.int32)
    np.maximum.at(top, pixels, ranks + 1)
    rows = np.zeros(n + 1, np.int32)
    rows[1:] = order + 1
    index = rows.take(top).reshape(h, w)
    if not densities:
        return index, None, None
    density = np.bincount(pixels, minlength=h * w).clip(0, 255).astype(np.uint8).reshape(h, w)
    aa = np.clip(rp[ranks] - np.sqrt(dist2) + 0.5, 0.0, 1.0)
    density_aa = np.rint(np.bincount(pixels, weights=aa, minlength=h * w) * 16).clip(0, 255)
    return index, density, density_aa.astype(np.uint8).reshape(h, w)


class FrameCache:
    """Coverage and per-unit values of the current frame, reused until the world or the selection changes.

    One observation draws the screen and the minimap from the same values, and the next action's clicks
    hit-test against the same coverage the agent was shown.
    """

    def __init__(self) -> None:
        self._key: tuple = ()
        self._coverage: dict[View, tuple] = {}
        self._values: np.ndarray | None = None
        self._tables: dict | None = None
        self.vision: Vision | None = None
        self._shown: np.ndarray | None = None
        self._still: dict[tuple, tuple] = {}

    def _check(self, world: World, player: Player) -> None:
        vision = self.vision
        key = (id(world), world.version, tuple(player.selection), id(vision), vision and vision.version)
        if key != self._key:
            self._key, self._coverage, self._values = key, {}, None
            shown = vision.shows(world, player.player_id) if vision is not None else None
            if shown is None and np.count_nonzero(world.hidden):
                shown = ~world.hidden
            self._shown = shown

    def shown(self, world: World, player: Player) -> np.ndarray | None:
        """Which rows the player sees now (None: all)."""
        self._check(world, player)
        return self._shown

    def coverage(self, view: View, world: World, player: Player, densities: bool = True) -> tuple:
        self._check(world, player)
        cached = self._coverage.get(view)
        if cached is None or (densities and cached[1] is None):
            cached = self._coverage[view] = self._layered(view, world, densities)
        return cached

    def _layered(self, view: View, world: World, densities: bool) -> tuple:
        """`coverage`, with units that never move (structures, resources, items) drawn once per layout and
        view and kept by tag; only moving units are drawn every frame (on top, as the game draws them)."""
        still = world.speed <= 0
        if not np.count_nonzero(still) or still.all():
            return coverage(view, world, densities, self._shown)
        shown = self._shown if self._shown is not None else np.ones(world.n, bool)
        fog = self.vision is not None and self.vision.fog
        key = (view, densities, id(world), world.static_version, self.vision.version if fog else 0)
        base = self._still.get(key)
        if base is None:
            index, density, density_aa = coverage(view, world, densities, shown & still)
            tags = np.concatenate(([0], world.tag))[index]
            if len(self._still) > 16:
                self._still.clear()
            base = self._still[key] = (tags, density, density_aa)
        tags, density, density_aa = base
        index, moving_density, moving_aa = coverage(view, world, densities, shown & ~still)
        drawn = tags != 0
        rows = np.zeros_like(index)
        rows[drawn] = np.searchsorted(world.tag, tags[drawn]) + 1
        index = np.where(index > 0, index, rows)
        if not densities:
            return index, None, None
        return (index, np.minimum(density.astype(np.uint16) + moving_density, 255).astype(np.uint8),
                np.minimum(density_aa.astype(np.uint16) + moving_aa, 255).astype(np.uint8))

    def values(self, world: World, player: Player) -> np.ndarray:
        self._check(world, player)
        if self._values is None:
            self._values = unit_values(world, player)
            self._tables = None
        return self._values

    def tables(self, world: World, player: Player) -> dict:
        """`values` cast once per frame to what each bits-per-pixel stores: {32: int32, 8: uint8, 1: bool},
        plus "lit": per row, whether any unit has a value other than 0 (else the layer is all zeros)."""
        values = self.values(world, player)
        if self._tables is None:
            v32 = values.astype(np.int32)  # the 8-bit values wrap like the int32 image they used to be cut from
            self._tables = {32: v32, 8: values.astype(np.uint8), 1: v32 != 0, "lit": values.any(axis=1).tolist()}
        return self._tables


# Layer tables in spatial.proto field order: (name, field number, bits per pixel, source).
# Sources: "terrain:<grid>", "visibility" (fog of war), "unit:<value>", "density", "density_aa", "camera",
# or "zero" for what the engine does not model (a mechanic adds its source here).
SCREEN_LAYERS = (
    ("height_map", 1, 8, "terrain:height"), ("visibility_map", 2, 8, "visibility"),
    ("creep", 3, 1, "terrain:creep"), ("power", 4, 1, "zero"), ("player_id", 5, 8, "unit:player_id"),
    ("unit_type", 6, 32, "unit:unit_type"), ("selected", 7, 1, "unit:selected"),
    ("unit_hit_points", 8, 32, "unit:health"), ("unit_energy", 9, 32, "unit:energy"),
    ("unit_shields", 10, 32, "unit:shields"), ("player_relative", 11, 8, "unit:player_relative"),
    ("unit_density_aa", 14, 8, "density_aa"), ("unit_density", 15, 8, "density"),
    ("unit_hit_points_ratio", 17, 8, "unit:health_ratio"), ("unit_energy_ratio", 18, 8, "unit:energy_ratio"),
    ("unit_shields_ratio", 19, 8, "unit:shields_ratio"), ("effects", 20, 8, "zero"),
    ("hallucinations", 21, 1, "zero"), ("cloaked", 22, 1, "zero"), ("blip", 23, 1, "zero"),
    ("buffs", 24, 32, "unit:buff"), ("active", 25, 1, "unit:active"), ("buff_duration", 26, 8, "zero"),
    ("build_progress", 27, 8, "unit:build_progress"), ("buildable", 28, 1, "terrain:buildable"),
    ("pathable", 29, 1, "terrain:pathable"), ("placeholder", 30, 1, "zero"),
)
MINIMAP_LAYERS = (
    ("height_map", 1, 8, "terrain:height"), ("visibility_map", 2, 8, "visibility"),
    ("creep", 3, 1, "terrain:creep"), ("camera", 4, 1, "camera"), ("player_id", 5, 8, "unit:player_id"),
    ("player_relative", 6, 8, "unit:player_relative"), ("selected", 7, 1, "unit:selected"),
    ("unit_type", 8, 32, "unit:unit_type"), ("alerts", 9, 1, "zero"), ("buildable", 10, 1, "terrain:buildable"),
    ("pathable", 11, 1, "terrain:pathable"),
)


UNIT_VALUES = ("player_id", "unit_type", "selected", "health", "energy", "shields", "player_relative", "health_ratio",
               "energy_ratio", "shields_ratio", "active", "build_progress", "buff")
VALUE_ROW = {name: k for k, name in enumerate(UNIT_VALUES)}


def unit_values(world: World, player: Player) -> np.ndarray:
    """Per-unit layer values, shape (len(UNIT_VALUES), n + 1) with a leading column 0 for "no unit", so that
    `values[row][index]` draws a layer."""
    n = world.n
    out = np.zeros((len(UNIT_VALUES), n + 1), np.int64)
    o = out[:, 1:]
    owner = world.owner
    o[0] = np.where(owner == 0, NEUTRAL_PLAYER_ID, owner)
    o[1] = world.type_id
    if player.selection and n:
        rows, found = world.rows(np.asarray(player.selection, np.int64))
        o[2, rows[found]] = 1
    vitals = np.stack((world.health, world.energy, world.shields))
    maxima = np.stack((world.health_max, world.energy_max, world.shields_max))
    o[3:6] = vitals  # whole hit points (truncated, as the game shows them)
    with np.errstate(divide="ignore", invalid="ignore"):
        o[7:10] = np.where(maxima > 0, vitals * 255 / maxima, 0.0)
    o[6] = np.where(owner == player.player_id, SELF, np.where(owner == 0, NEUTRAL, ENEMY))
    o[10] = [bool(orders) for orders in world.orders]
    progress = world.build_progress
    o[11] = progress * 255 * (progress < 1)
    o[12] = np.where(world.cargo_kind == 1, CARRY_MINERALS, np.where(world.cargo_kind == 2, CARRY_GAS, 0))
    return out


_DTYPES = {1: np.bool_, 8: np.uint8, 32: np.dtype("<i4")}


def _data(bits_per_pixel: int, pixels: np.ndarray) -> bytes:
    if bits_per_pixel == 1:
        return np.packbits(pixels.ravel() != 0).tobytes()
    return pixels.astype(_DTYPES[bits_per_pixel], copy=False).tobytes()


@functools.lru_cache(maxsize=64)
def _zero_data(bits_per_pixel: int, width: int, height: int) -> bytes:
    return _data(bits_per_pixel, np.zeros((height, width), np.uint8))


def encode(bits_per_pixel: int, pixels: np.ndarray) -> bytes:
    """A serialized ImageData for a (height, width) array; 1-bpp images are packed MSB first, unpadded."""
    h, w = pixels.shape
    return wire.image_data(bits_per_pixel, w, h, _data(bits_per_pixel, pixels))


@dataclass
class _Frame:
    """One view's encoded message, kept between frames: a buffer holding every field, the static ones encoded
    once, and per redrawn layer a numpy view of its pixel data inside the buffer (written in place)."""

    buffer: bytearray
    pixels: dict[int, np.ndarray]  # layer position -> its data bytes (uint8, or <i4 for 32 bpp)
    zeroed: set[int]  # layers whose data is all zeros now (not rewritten while they stay so)
    visibility_version: int = -1


class LayerRenderer:
    """Draws one layer table through one view; static layers are encoded once per view and reused."""

    def __init__(self, layers: tuple, terrain: Terrain):
        self.layers = layers
        self.terrain = terrain
        self._frames: dict[tuple, _Frame] = {}
        self._densities = any(source.startswith("density") for _, _, _, source in layers)
        # The unit layers: (layer position, bits per pixel, row of unit_values).
        self._unit_layers = [(n, bpp, VALUE_ROW[source[5:]]) for n, (_, _, bpp, source) in enumerate(layers)
                             if source.startswith("unit:")]

    def render(self, view: View, world: World, player: Player, frames: FrameCache,
               camera: View | None = None) -> list[bytes | bytearray]:
        """The serialized FeatureLayers (or FeatureLayersMinimap) message for this frame, as byte pieces.

        The pieces are reused by the next call: copy them (b"".join) before rendering again.
        """
        vision = frames.vision
        fog = vision is not None and vision.fog
        frame = self._frame(view, camera, fog)
        index, density, density_aa = frames.coverage(view, world, player, self._densities)
        tables = frames.tables(world, player)
        lit, pixels, zeroed = tables["lit"], frame.pixels, frame.zeroed
        for n, bpp, row in self._unit_layers:
            out = pixels[n]
            if not lit[row]:  # all its units have value 0
                if n not in zeroed:
                    out.fill(0)
                    zeroed.add(n)
                continue
            zeroed.discard(n)
            if bpp == 1:
                out[:] = np.packbits(tables[1][row].take(index))
            else:  # mode="clip" writes straight into `out` (indices are always valid)
                np.take(tables[bpp][row], index, out=out, mode="clip")
        for n, (_, _, _, source) in enumerate(self.layers):
            if source == "density":
                pixels[n][:] = density
            elif source == "density_aa":
                pixels[n][:] = density_aa
            elif source == "visibility" and fog and frame.visibility_version != vision.version:
                np.take(self.terrain.padded(vision.grid()), self.terrain.cells(view), out=pixels[n], mode="clip")
                frame.visibility_version = vision.version
        return [frame.buffer]

    def _frame(self, view: View, camera: View | None, fog: bool) -> _Frame:
        """The buffer of this view, with the fields that don't depend on units encoded in place."""
        key = (view, camera, fog)
        frame = self._frames.get(key)
        if frame is not None:
            return frame
        pieces: list[bytes] = []
        slots: dict[int, tuple[int, int]] = {}
        offset = 0
        for n, (_, number, bpp, source) in enumerate(self.layers):
            image = None if source == "visibility" and fog else self._static_layer(source, bpp, view, camera)
            size = 0
            if image is None:  # redrawn every frame: the data (zeros for now) ends the field
                size = (view.width * view.height * bpp + 7) // 8
                image = wire.image_data(bpp, view.width, view.height, bytes(size))
            pieces.append(wire.message_field(number, image))
            offset += len(pieces[-1])
            if size:
                slots[n] = (offset - size, size)
        buffer = bytearray(b"".join(pieces))
        data = np.frombuffer(buffer, np.uint8)
        pixels = {}
        for n, (start, size) in slots.items():
            block = data[start:start + size]
            bpp = self.layers[n][2]
            pixels[n] = block.view("<i4").reshape(view.height, view.width) if bpp == 32 else (
                block.reshape(view.height, view.width) if bpp == 8 else block)
        if len(self._frames) > 64:
            self._frames.clear()
        frame = self._frames[key] = _Frame(buffer, pixels, set(slots))
        return frame

    def _static_layer(self, source: str, bpp: int, view: View, camera: View | None) -> bytes | None:
        shape = (view.height, view.width)
        if source == "zero":
            return encode(bpp, np.zeros(shape, np.uint8))
        if source.startswith("terrain:"):
            return encode(bpp, self.terrain.sample(view, getattr(self.terrain, source[8:])))
        if source == "visibility":  # without fog: the revealed area is always visible
            return encode(bpp, self.terrain.sample(view, np.where(self.terrain.revealed, 2, 0).astype(np.uint8)))
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
