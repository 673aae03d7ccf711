"""The env's feature layers: which ones it keeps, and their compact uint8 form (straight from the message)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np

from sc2env.gamedata import UNIT_TYPES
from sc2env.interface import MINIMAP_LAYERS, SCREEN_LAYERS, Observation
from sc2env.interface.layer_decoder import StackDecoder
from sc2env.interface.layers import Layer

COMPACT_UNIT_TYPES: tuple[int, ...] = tuple(sorted(UNIT_TYPES))
"""Unit type ids that keep their own value (1 + position here) in compact uint8 layers; others become 255."""


def _unit_type_lookup(scale: int) -> np.ndarray:
    lookup = np.full(max(scale, max(COMPACT_UNIT_TYPES) + 1), 255, np.uint8)
    lookup[0] = 0
    lookup[list(COMPACT_UNIT_TYPES)] = np.arange(1, len(COMPACT_UNIT_TYPES) + 1)
    return lookup


@dataclasses.dataclass(frozen=True)
class LayerSelection:
    """Which feature layers the observation carries, and in what value range.

    compact: uint8 layers (0..255), the form CNN policies expect (SB3 picks NatureCNN by itself): unit_type
             becomes an index into COMPACT_UNIT_TYPES (others 255) and counters (hit points, energy, shields,
             buffs) saturate at 255; the *_ratio layers keep the full resolution of those. False keeps the
             game's int32 values, exactly as PySC2 reports them.
    """

    screen: tuple[str, ...] = tuple(layer.name for layer in SCREEN_LAYERS)
    minimap: tuple[str, ...] = tuple(layer.name for layer in MINIMAP_LAYERS)
    compact: bool = True

    def __post_init__(self) -> None:
        for given, table, what in (
            (self.screen, SCREEN_LAYERS, "screen"),
            (self.minimap, MINIMAP_LAYERS, "minimap"),
        ):
            known = [layer.name for layer in table]
            unknown = [name for name in given if name not in known]
            if unknown:
                raise ValueError(f"unknown {what} layers {unknown}; known: {', '.join(known)}")
            if len(set(given)) != len(given):
                raise ValueError(f"{what} layers repeat: {list(given)}")


class LayerPacker:
    """Picks and converts one stack of layers (screen or minimap) into the env's array."""

    def __init__(
        self,
        what: str,
        table: Sequence[Layer],
        names: Sequence[str],
        compact: bool,
        size: tuple[int, int] | None,
    ):
        by_name = {layer.name: layer for layer in table}
        self.what = what
        self.layers = [by_name[name] for name in names]
        self.index = np.array([layer.index for layer in self.layers], np.intp)
        self.all = len(self.index) == len(table)
        # Compact stacks are decoded straight from the message into uint8, no int32 stack on the way.
        self.decoder = StackDecoder(what, size, names) if compact and size is not None else None
        self.unit_type = [i for i, layer in enumerate(self.layers) if layer.name == "unit_type"]
        self.lookup = _unit_type_lookup(max((layer.scale for layer in self.layers), default=1))

    def pack(self, obs: Observation) -> np.ndarray:
        if self.decoder is not None and obs.layers is not None:
            out = np.empty((len(self.layers), self.decoder.height, self.decoder.width), np.uint8)
            self.decode(obs, out)
            return out
        stack = obs.feature_screen if self.what == "screen" else obs.feature_minimap
        return np.array(
            stack if self.all else np.asarray(stack)[self.index], np.int32
        )  # a copy: buffers get reused

    def decode(self, obs: Observation, out: np.ndarray) -> None:
        """The compact stack decoded from the message into `out` (layers, height, width) uint8."""
        assert self.decoder is not None and obs.layers is not None  # compact, and a message to decode
        obs.layers.decode_into(self.decoder, out, self._narrow)

    def _narrow(self, row: int, values: np.ndarray, out: np.ndarray) -> None:
        """uint8 values of a 32-bit layer: unit types through the compact index, counters saturated."""
        if row in self.unit_type:  # "clip" maps types beyond the table to its last entry (255, "other")
            self.lookup.take(values, out=out, mode="clip")
        else:
            np.minimum(values, 255, out=out, casting="unsafe")
