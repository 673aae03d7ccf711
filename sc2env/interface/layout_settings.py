"""What the observation layout's entries come to under one interface format and env: which are there, and
their shapes, dtypes and bounds."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sc2env.interface.format import InterfaceFormat
from sc2env.interface.layers import MINIMAP_LAYERS, SCREEN_LAYERS
from sc2env.interface.observation_layout import Dim, Entry, Needs, Rows, Size


@dataclass(frozen=True)
class LayoutSettings:
    """What the layout's sizes and entries depend on: the interface format, and the env's own choices."""

    fmt: InterfaceFormat
    screen_layers: int = len(SCREEN_LAYERS)
    minimap_layers: int = len(MINIMAP_LAYERS)
    compact: bool = False
    """uint8 layers (see `Entry.widens`)."""
    max_units: int = 256
    action_mask: int = 0
    """The action layout's flat mask length."""
    camera_position: bool = False
    """Observe the camera's position (the env's `use_camera_position`; the format may ask the game for it for
    other reasons, the viewer's)."""

    def holds(self, entry: Entry) -> bool:
        """Whether the entry is there under these settings."""
        fmt = self.fmt
        feature_layers = fmt.screen_size is not None
        return {
            Needs.ALWAYS: True,
            Needs.SCREEN_LAYERS: feature_layers and self.screen_layers > 0,
            Needs.MINIMAP_LAYERS: feature_layers and self.minimap_layers > 0,
            Needs.RGB: fmt.rgb_screen_size is not None,
            Needs.FEATURE_UNITS: fmt.use_feature_units,
            Needs.RAW_UNITS: fmt.use_raw_units,
            Needs.UNITS: fmt.use_feature_units or fmt.use_raw_units,
            Needs.TARGET_MASKS: fmt.screen_target_masks,
            Needs.CAMERA_POSITION: self.camera_position,
            Needs.UNIT_COUNTS: fmt.use_unit_counts,
        }[entry.needs]

    def size(self, size: Size | Rows) -> int:
        """The number an axis stands for (a `Rows` axis: the rows the env keeps)."""
        if isinstance(size, Rows):
            size = size.size
        if isinstance(size, Dim):
            return self._dim(size)
        if isinstance(size, int):
            return size
        return len(size)

    def shape(self, entry: Entry) -> tuple[int, ...]:
        return tuple(self.size(axis) for axis in entry.shape)

    def dtype(self, entry: Entry) -> np.dtype:
        return np.dtype(np.int32 if entry.widens and not self.compact else entry.dtype)

    def bounds(self, entry: Entry) -> tuple[int, int]:
        """The lowest and highest value the env's array holds (the Box's bounds)."""
        info = np.iinfo(self.dtype(entry))
        return (
            int(info.min) if entry.low is None else entry.low,
            int(info.max) if entry.high is None else entry.high,
        )

    def _dim(self, dim: Dim) -> int:
        fmt = self.fmt
        sizes = {
            Dim.SCREEN_LAYERS: lambda: self.screen_layers,
            Dim.MINIMAP_LAYERS: lambda: self.minimap_layers,
            Dim.SCREEN_HEIGHT: lambda: _side(fmt.screen_size, 1, dim),
            Dim.SCREEN_WIDTH: lambda: _side(fmt.screen_size, 0, dim),
            Dim.MINIMAP_HEIGHT: lambda: _side(fmt.minimap_size, 1, dim),
            Dim.MINIMAP_WIDTH: lambda: _side(fmt.minimap_size, 0, dim),
            Dim.RGB_SCREEN_HEIGHT: lambda: _side(fmt.rgb_screen_size, 1, dim),
            Dim.RGB_SCREEN_WIDTH: lambda: _side(fmt.rgb_screen_size, 0, dim),
            Dim.RGB_MINIMAP_HEIGHT: lambda: _side(fmt.rgb_minimap_size, 1, dim),
            Dim.RGB_MINIMAP_WIDTH: lambda: _side(fmt.rgb_minimap_size, 0, dim),
            Dim.MAX_SELECTED_UNITS: lambda: fmt.max_selected_units,
            Dim.MAX_CARGO: lambda: fmt.max_cargo,
            Dim.MAX_UNITS: lambda: self.max_units,
            Dim.ACTION_MASK: lambda: self.action_mask,
        }
        return sizes[dim]()


def _side(size: tuple[int, int] | None, axis: int, dim: Dim) -> int:
    if size is None:
        raise ValueError(f"the layout's {dim.value} needs a size the interface format does not set")
    return size[axis]
