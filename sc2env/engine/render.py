"""World -> feature layers: the screen and minimap pixel grids, the layer tables, and every layer's bytes."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from sc2env.engine import wire
from sc2env.engine.frame import VALUE_ROW, FrameCache
from sc2env.engine.mapdef import MapDefinition
from sc2env.engine.players import Player
from sc2env.engine.world import World


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
    _hash: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # Views key a dozen cache lookups per step: hash the fields once, not at every lookup.
        object.__setattr__(self, "_hash", hash((self.width, self.height, self.left, self.top, self.scale)))

    def __hash__(self) -> int:
        return self._hash

    def world_to_pixel(self, x, y):
        """Continuous pixel coordinates (pixel centres at integers)."""
        return (np.subtract(x, self.left) / self.scale - 0.5, np.subtract(self.top, y) / self.scale - 0.5)

    def pixel_to_world(self, i: float, j: float) -> tuple[float, float]:
        return (self.left + (i + 0.5) * self.scale, self.top - (j + 0.5) * self.scale)

    def edges(self) -> tuple[float, float, float, float]:
        """(left, right, bottom, top): a point is inside when left <= x < right and bottom < y <= top."""
        left, top = float(self.left), float(self.top)
        return left, left + self.width * float(self.scale), top - self.height * float(self.scale), top

    def contains(self, x, y):
        return (
            (np.asarray(x) >= self.left)
            & (np.asarray(x) < self.left + self.width * self.scale)
            & (np.asarray(y) <= self.top)
            & (np.asarray(y) > self.top - self.height * self.scale)
        )


@functools.lru_cache(maxsize=256)  # views are asked for several times per step, and are immutable
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
        b = definition.walkable
        cx = np.arange(w) + 0.5
        cy = np.arange(h) + 0.5
        inside = (cx[None, :] > b.x0) & (cx[None, :] < b.x1) & (cy[:, None] > b.y0) & (cy[:, None] < b.y1)
        ground = definition.ground
        if ground.pathable is not None:  # the map's own grid: cell by cell
            inside = ground.pathable.copy()
        self.size = (w, h)
        # World heights: the map's height map, else its one height everywhere.
        self.heights = (
            ground.heights if ground.heights is not None else np.full((h, w), definition.terrain_height)
        )
        # The raw grid's bytes: -16 to 16 over 0 to 255.
        self.height = np.round((self.heights + 16) * 255 / 32).astype(np.uint8)
        self.pathable = inside
        self.buildable = ground.buildable.copy() if ground.buildable is not None else inside.copy()
        # What a player may ever see: the playable area (vision rules of the map), or the whole map.
        self.revealed = np.ones_like(inside) if definition.vision == "reveal_all" else inside
        self.creep = np.zeros((h, w), bool)

    def sample(self, view: View, grid: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """`grid` seen through `view`: the cell under each pixel centre, 0 off the map (written into the flat
        `out` when given)."""
        cells = self.cells(view)
        if out is None:
            return self.padded(grid).take(cells)
        return self.padded(grid).take(cells.ravel(), out=out, mode="clip")

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


# Layer tables in spatial.proto field order: (name, field number, bits per pixel, source).
# Sources: "terrain:<grid>", "visibility" (fog of war), "unit:<value>", "density", "density_aa", "camera",
# or "zero" for what the engine does not model (a mechanic adds its source here).
SCREEN_LAYERS = (
    ("height_map", 1, 8, "terrain:height"),
    ("visibility_map", 2, 8, "visibility"),
    ("creep", 3, 1, "terrain:creep"),
    ("power", 4, 1, "zero"),
    ("player_id", 5, 8, "unit:player_id"),
    ("unit_type", 6, 32, "unit:unit_type"),
    ("selected", 7, 1, "unit:selected"),
    ("unit_hit_points", 8, 32, "unit:health"),
    ("unit_energy", 9, 32, "unit:energy"),
    ("unit_shields", 10, 32, "unit:shields"),
    ("player_relative", 11, 8, "unit:player_relative"),
    ("unit_density_aa", 14, 8, "density_aa"),
    ("unit_density", 15, 8, "density"),
    ("unit_hit_points_ratio", 17, 8, "unit:health_ratio"),
    ("unit_energy_ratio", 18, 8, "unit:energy_ratio"),
    ("unit_shields_ratio", 19, 8, "unit:shields_ratio"),
    ("effects", 20, 8, "zero"),
    ("hallucinations", 21, 1, "zero"),
    ("cloaked", 22, 1, "zero"),
    ("blip", 23, 1, "zero"),
    ("buffs", 24, 32, "unit:buff"),
    ("active", 25, 1, "unit:active"),
    ("buff_duration", 26, 8, "zero"),
    ("build_progress", 27, 8, "unit:build_progress"),
    ("buildable", 28, 1, "terrain:buildable"),
    ("pathable", 29, 1, "terrain:pathable"),
    ("placeholder", 30, 1, "zero"),
)
MINIMAP_LAYERS = (
    ("height_map", 1, 8, "terrain:height"),
    ("visibility_map", 2, 8, "visibility"),
    ("creep", 3, 1, "terrain:creep"),
    ("camera", 4, 1, "camera"),
    ("player_id", 5, 8, "unit:player_id"),
    ("player_relative", 6, 8, "unit:player_relative"),
    ("selected", 7, 1, "unit:selected"),
    ("unit_type", 8, 32, "unit:unit_type"),
    ("alerts", 9, 1, "zero"),
    ("buildable", 10, 1, "terrain:buildable"),
    ("pathable", 11, 1, "terrain:pathable"),
)
MINIMAP_LAYERS_FAIR = tuple(layer for layer in MINIMAP_LAYERS if layer[0] != "unit_type")
"""The minimap without its cheating layer (unit types under the fog): what a client gets unless it joins with
feature_layer.allow_cheating_layers."""


_DTYPES: dict[int, npt.DTypeLike] = {1: np.bool_, 8: np.uint8, 32: np.dtype("<i4")}


def _data(bits_per_pixel: int, pixels: np.ndarray) -> bytes:
    if bits_per_pixel == 1:
        return np.packbits(pixels.ravel() != 0).tobytes()
    return pixels.astype(_DTYPES[bits_per_pixel], copy=False).tobytes()


def encode(bits_per_pixel: int, pixels: np.ndarray) -> bytes:
    """A serialized ImageData for a (height, width) array; 1-bpp images are packed MSB first, unpadded."""
    h, w = pixels.shape
    return wire.image_data(bits_per_pixel, w, h, _data(bits_per_pixel, pixels))


_NOTHING = np.zeros(0, np.intp)
_EVERYWHERE = np.zeros(1, np.intp)  # marks a layer gathered whole (any pixel may be non-zero)


@dataclass
class _Frame:
    """One view's encoded message, kept between frames: a buffer holding every field, the static ones encoded
    once, and per redrawn layer a numpy view of its pixel data inside the buffer (written in place).

    Units cover a small part of a view, so unit layers are written sparsely: a layer's pixels are zero except
    at `drawn[n]`, the pixels written last time, which are cleared before the covered ones are written.
    """

    buffer: bytearray
    pixels: dict[int, np.ndarray]  # layer position -> its flat data (uint8, or <i4 for 32 bpp; packed for 1)
    drawn: dict[int, np.ndarray]  # unit layer position -> flat pixels that may be non-zero
    # (the Vision, its version) drawn last: a restart brings a new Vision whose versions count from 0 again,
    # so the version alone could match the last episode's.
    visibility: tuple = ()


class _Shown(NamedTuple):
    """The pixels of a view that show a unit, that unit's row + 1 on each, whether units fill so much of the
    view that gathering every pixel is cheaper (`dense`), the view's pixel count, and (when dense) every
    pixel's row + 1."""

    covered: np.ndarray
    rows: np.ndarray
    dense: bool
    size: int
    flat: np.ndarray

    @classmethod
    def of(cls, index: np.ndarray) -> _Shown:
        """From a coverage index (row + 1 per pixel)."""
        flat = index.ravel()
        size = len(flat)
        covered = (flat != 0).nonzero()[0]  # (bool nonzero: the fast one)
        return cls(covered, flat.take(covered), len(covered) * 4 > size, size, flat)


class LayerRenderer:
    """Draws one layer table through one view; static layers are encoded once per view and reused."""

    def __init__(self, layers: tuple, terrain: Terrain):
        self.layers = layers
        self.terrain = terrain
        self._frames: dict[tuple, _Frame] = {}
        self._densities = any(source.startswith("density") for _, _, _, source in layers)
        # The unit layers: (layer position, bits per pixel, row of unit_values).
        self._unit_layers = [
            (n, bpp, VALUE_ROW[source[5:]])
            for n, (_, _, bpp, source) in enumerate(layers)
            if source.startswith("unit:")
        ]
        # The other layers redrawn every frame: (position, source); the rest of the table stays as encoded.
        self._redrawn = [
            (n, source)
            for n, (_, _, _, source) in enumerate(layers)
            if source in ("density", "density_aa", "visibility")
        ]

    def render(
        self, view: View, world: World, player: Player, frames: FrameCache, camera: View | None = None
    ) -> bytearray:
        """The serialized FeatureLayers (or FeatureLayersMinimap) message for this frame.

        The buffer is reused by the next call: copy it (bytes(...)) before rendering again.
        """
        vision = frames.vision
        fog = vision is not None and vision.fog
        frame = self._frame(view, camera, fog)
        points = None if self._densities else frames.points(view, world, player)
        density = density_aa = None
        if points is not None:  # units are single pixels: (pixel, row + 1) pairs, later ones on top
            shown = _Shown(points[0], points[1], False, view.width * view.height, _NOTHING)
        else:
            index, density, density_aa = frames.coverage(view, world, player, self._densities)
            shown = _Shown.of(index)
        self._draw_units(frame, shown, frames.tables(world, player))
        for n, source in self._redrawn:
            if source == "density" and density is not None:
                frame.pixels[n][:] = density.ravel()
            elif source == "density_aa" and density_aa is not None:
                frame.pixels[n][:] = density_aa.ravel()
            elif (
                source == "visibility"
                and vision is not None
                and fog
                and frame.visibility != (vision, vision.version)
            ):
                self.terrain.sample(view, vision.grid(), out=frame.pixels[n])
                frame.visibility = (vision, vision.version)
        return frame.buffer

    def _draw_units(self, frame: _Frame, shown: _Shown, tables: dict) -> None:
        """Write every unit layer's pixels: gathered whole where units fill much of the view, else only where
        they are (after clearing where they were)."""
        covered, rows, dense, size = shown.covered, shown.rows, shown.dense, shown.size
        lit, pixels, drawn = tables["lit"], frame.pixels, frame.drawn
        for n, bpp, row in self._unit_layers:
            out, before = pixels[n], drawn[n]
            if bpp == 1:  # packed bits: drawn whole (512 bytes at 64x64)
                if lit[row]:
                    if dense:
                        out[:] = np.packbits(tables[1][row].take(shown.flat))
                    else:
                        bits = np.zeros(size, bool)
                        bits[covered] = tables[1][row].take(rows)
                        out[:] = np.packbits(bits)
                elif len(before):
                    out.fill(0)
            elif lit[row] and dense:  # mode="clip" writes straight into `out` (indices are always valid)
                tables[bpp][row].take(shown.flat, out=out, mode="clip")
            else:
                if before is _EVERYWHERE:
                    out.fill(0)
                elif len(before):
                    out[before] = 0
                if lit[row]:  # else all its units have value 0
                    out[covered] = tables[bpp][row].take(rows)
            drawn[n] = (_EVERYWHERE if dense else covered) if lit[row] else _NOTHING

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
            block = data[start : start + size]
            pixels[n] = block.view("<i4") if self.layers[n][2] == 32 else block
        if len(self._frames) > 64:
            self._frames.clear()
        frame = self._frames[key] = _Frame(buffer, pixels, dict.fromkeys(slots, _NOTHING))
        return frame

    def _static_layer(self, source: str, bpp: int, view: View, camera: View | None) -> bytes | None:
        shape = (view.height, view.width)
        if source == "zero":
            return encode(bpp, np.zeros(shape, np.uint8))
        if source.startswith("terrain:"):
            return encode(bpp, self.terrain.sample(view, getattr(self.terrain, source[8:])))
        if source == "visibility":  # without fog: the revealed area is always visible
            return encode(
                bpp, self.terrain.sample(view, np.where(self.terrain.revealed, 2, 0).astype(np.uint8))
            )
        if source == "camera":
            if camera is None:
                raise ValueError("the camera layer needs the camera's view")
            i = np.arange(view.width)
            j = np.arange(view.height)
            x = view.left + (i + 0.5) * view.scale
            y = view.top - (j + 0.5) * view.scale
            cam_r = camera.left + camera.width * camera.scale
            cam_b = camera.top - camera.height * camera.scale
            inside = (
                (x[None, :] >= camera.left)
                & (x[None, :] <= cam_r)
                & (y[:, None] <= camera.top)
                & (y[:, None] >= cam_b)
            )
            return encode(bpp, inside)
        return None
