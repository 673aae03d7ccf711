"""The feature-layer table (name, bits, scale, type, palette) and `ImageData` unpacking."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Literal

import numpy as np

from sc2env.errors import ProtocolError
from sc2env.interface.function_table import BUFF_SCALE, UNIT_TYPE_SCALE

LAYER_DTYPES: dict[int, np.dtype] = {
    1: np.dtype(np.uint8),
    8: np.dtype(np.uint8),
    16: np.dtype("<u2"),
    32: np.dtype("<i4"),
}
"""The dtype of a layer's values by its bits per pixel (1-bit layers are unpacked from these bytes)."""


@dataclass(frozen=True)
class Layer:
    """One feature layer: its index in the stack, its values and how to draw it."""

    index: int
    name: str
    bits: int
    """Bits per pixel the real game sends (the decoder follows each message's own `bits_per_pixel`)."""
    scale: int
    """One more than the largest meaningful value."""
    categorical: bool
    palette: Literal["height", "visibility", "binary", "player_id", "player_relative", "categorical", "hot"]


class LayerTable(tuple):
    """A tuple of Layers, in stack order, that also gives each by name: `SCREEN_LAYERS.player_relative.index`."""

    def __getattr__(self, name: str) -> Layer:
        for layer in self:
            if layer.name == name:
                return layer
        raise AttributeError(f"no layer {name!r}; layers: {', '.join(layer.name for layer in self)}")


class PlayerRelative(enum.IntEnum):
    """Values of the `player_relative` layers and of `feature_units.alliance`."""

    NONE = 0
    SELF = 1
    ALLY = 2
    NEUTRAL = 3
    ENEMY = 4


class Visibility(enum.IntEnum):
    """Values of the `visibility_map` layers."""

    HIDDEN = 0
    SEEN = 1  # fogged: explored, not in sight now
    VISIBLE = 2
    FULL_HIDDEN = 3


def _table(rows: tuple[tuple[str, int, int, bool, str], ...]) -> LayerTable:
    return LayerTable(Layer(i, *row) for i, row in enumerate(rows))  # type: ignore[arg-type]


SCREEN_LAYERS = _table(
    (
        ("height_map", 8, 256, False, "height"),
        ("visibility_map", 8, 4, True, "visibility"),
        ("creep", 1, 2, True, "binary"),
        ("power", 1, 2, True, "binary"),
        ("player_id", 8, 17, True, "player_id"),
        ("player_relative", 8, 5, True, "player_relative"),
        ("unit_type", 32, UNIT_TYPE_SCALE, True, "categorical"),
        ("selected", 1, 2, True, "binary"),
        ("unit_hit_points", 32, 1600, False, "hot"),
        ("unit_hit_points_ratio", 8, 256, False, "hot"),
        ("unit_energy", 32, 1000, False, "hot"),
        ("unit_energy_ratio", 8, 256, False, "hot"),
        ("unit_shields", 32, 1000, False, "hot"),
        ("unit_shields_ratio", 8, 256, False, "hot"),
        ("unit_density", 8, 16, False, "hot"),
        ("unit_density_aa", 8, 256, False, "hot"),
        ("effects", 8, 16, True, "categorical"),
        ("hallucinations", 1, 2, True, "binary"),
        ("cloaked", 1, 2, True, "binary"),
        ("blip", 1, 2, True, "binary"),
        ("buffs", 32, BUFF_SCALE, True, "categorical"),
        ("buff_duration", 8, 256, False, "hot"),
        ("active", 1, 2, True, "binary"),
        ("build_progress", 8, 256, False, "hot"),
        ("pathable", 1, 2, True, "binary"),
        ("buildable", 1, 2, True, "binary"),
        ("placeholder", 1, 2, True, "binary"),
    )
)
"""The 27 screen layers, in PySC2's order (the order of `Observation.feature_screen`)."""

MINIMAP_LAYERS = _table(
    (
        ("height_map", 8, 256, False, "height"),
        ("visibility_map", 8, 4, True, "visibility"),
        ("creep", 1, 2, True, "binary"),
        ("camera", 1, 2, True, "binary"),
        ("player_id", 8, 17, True, "player_id"),
        ("player_relative", 8, 5, True, "player_relative"),
        ("selected", 1, 2, True, "binary"),
        ("unit_type", 32, UNIT_TYPE_SCALE, True, "categorical"),  # sent only with allow_cheating_layers
        ("alerts", 8, 2, True, "binary"),  # spatial.proto says 1 bit; the real game sends 8
        ("pathable", 1, 2, True, "binary"),
        ("buildable", 1, 2, True, "binary"),
    )
)
"""The 11 minimap layers, in PySC2's order (the order of `Observation.feature_minimap`)."""

SCREEN_NAMES = {layer.name: layer.index for layer in SCREEN_LAYERS}
MINIMAP_NAMES = {layer.name: layer.index for layer in MINIMAP_LAYERS}


def image_array(image, what: str) -> np.ndarray | None:
    """An `ImageData` as a (height, width) array viewing the message's bytes; None when it is empty (0×0).

    1-bit images are unpacked most-significant bit first with no row padding; 32-bit ones are little-endian
    int32. Raises `ProtocolError` if the byte count doesn't match the size and bit depth.
    """
    width, height = image.size.x, image.size.y
    if width == 0 or height == 0:
        return None
    bits = image.bits_per_pixel
    dtype = LAYER_DTYPES.get(bits)
    if dtype is None:
        raise ProtocolError(f"{what} has {bits} bits per pixel; feature layers use 1, 8, 16 or 32")
    data = np.frombuffer(image.data, dtype)
    n = width * height
    if bits == 1:
        if len(data) * 8 < n:
            raise ProtocolError(f"{what} is {width}×{height} at 1 bit but has only {len(data)} bytes")
        data = np.unpackbits(data, count=n)
    elif len(data) != n:
        raise ProtocolError(f"{what} is {width}×{height} at {bits} bits but has {len(image.data)} bytes")
    return data.reshape(height, width)


def rgb_array(image, what: str) -> np.ndarray | None:
    """A 24-bit RGB `ImageData` as a (height, width, 3) uint8 array; None when it is empty."""
    width, height = image.size.x, image.size.y
    if width == 0 or height == 0:
        return None
    if image.bits_per_pixel != 24 or len(image.data) != width * height * 3:
        raise ProtocolError(
            f"{what} should be {width}×{height} at 24 bits; got {image.bits_per_pixel} bits "
            f"and {len(image.data)} bytes"
        )
    return np.frombuffer(image.data, np.uint8).reshape(height, width, 3)


def palette(layer: Layer) -> np.ndarray:
    """A (scale, 3) uint8 colour table for drawing a layer: `palette(layer)[values]`."""
    n = layer.scale
    if layer.palette == "binary":
        return np.array([[0, 0, 0], [240, 240, 240]], np.uint8)
    if layer.palette == "visibility":
        return np.array([[0, 0, 0], [90, 90, 90], [220, 220, 220], [0, 0, 0]], np.uint8)
    if layer.palette == "player_relative":  # none, self, ally, neutral, enemy
        return np.array([[0, 0, 0], [0, 200, 70], [60, 120, 255], [210, 190, 60], [230, 40, 40]], np.uint8)
    ramp = np.linspace(0.0, 1.0, n)
    if layer.palette == "height":  # dark blue-green lowlands to pale highlands
        return (np.stack([40 + 180 * ramp, 60 + 160 * ramp, 50 + 120 * ramp], 1)).astype(np.uint8)
    if layer.palette == "hot":  # black, red, yellow, white
        channels = [np.clip(3 * ramp, 0, 1), np.clip(3 * ramp - 1, 0, 1), np.clip(3 * ramp - 2, 0, 1)]
        return (255 * np.stack(channels, 1)).astype(np.uint8)
    # player_id and categorical: fixed pseudo-random bright colours (same on screen and minimap); 0 is black
    colours = np.random.default_rng(n).integers(60, 256, (n, 3)).astype(np.uint8)
    colours[0] = 0
    return colours
