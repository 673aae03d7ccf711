"""The env's observation: a Dict of fixed-shape Boxes made from the observation layout, and each decoded
Observation packed into it by that same table."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from operator import attrgetter, itemgetter
from typing import Any

import numpy as np
from gymnasium import spaces

from sc2env.env.compact_layers import LayerPacker, LayerSelection
from sc2env.interface import MINIMAP_LAYERS, SCREEN_LAYERS, InterfaceFormat, Observation
from sc2env.interface.layout_settings import LayoutSettings
from sc2env.interface.observation import ATTRIBUTES
from sc2env.interface.observation_layout import (
    ENTRIES,
    OBSERVATION_LAYOUT,
    Computed,
    Entry,
    RowCounts,
)

Pack = Callable[[Observation, Mapping[str, np.ndarray]], np.ndarray]
"""Makes one entry's array from the decoded observation and the action mode's entries."""
PackInto = Callable[[Observation, Mapping[str, np.ndarray], np.ndarray], None]
"""Writes one entry into an array of its shape and dtype (no array made on the way)."""


class ObservationPacker:
    """Builds the observation space and packs each decoded Observation into it (new arrays every time).

    Every entry of `OBSERVATION_LAYOUT` the settings turn on is there, with the shape and dtype the table
    gives; `pack` fills it from the decoded Observation's attribute of that name (padding the tables and lists
    to their rows), or from the action mode's own entries (`action_mask`, and `last_actions` in its ids).
    """

    def __init__(
        self,
        fmt: InterfaceFormat,
        layers: LayerSelection,
        *,
        max_units: int = 256,
        mask_size: int,
        camera_position: bool = False,
    ):
        self.fmt = fmt
        self.max_units = max_units
        self.settings = LayoutSettings(
            fmt,
            screen_layers=len(layers.screen),
            minimap_layers=len(layers.minimap),
            compact=layers.compact,
            max_units=max_units,
            action_mask=mask_size,
            camera_position=camera_position,
        )
        self._layers = {
            "feature_screen": LayerPacker(
                "screen", SCREEN_LAYERS, layers.screen, layers.compact, fmt.screen_size
            ),
            "feature_minimap": LayerPacker(
                "minimap", MINIMAP_LAYERS, layers.minimap, layers.compact, fmt.minimap_size
            ),
        }
        self.entries: tuple[Entry, ...] = tuple(e for e in OBSERVATION_LAYOUT if self.settings.holds(e))
        """The layout's entries this observation has, in the table's order."""
        settings = self.settings
        self.space = spaces.Dict(
            {
                entry.name: spaces.Box(*settings.bounds(entry), settings.shape(entry), settings.dtype(entry))
                for entry in self.entries
            }
        )
        self._packs: list[tuple[str, Pack]] = [(entry.name, self._packer(entry)) for entry in self.entries]
        self._packs_into: list[tuple[str, PackInto]] = [
            (entry.name, self._packer_into(entry)) for entry in self.entries
        ]

    @property
    def defers_layers(self) -> bool:
        """Whether pack() decodes the layers from the message in its own form, so the decoder can skip its
        int32 stacks."""
        return any(packer.decoder is not None for packer in self._layers.values())

    def pack(
        self,
        obs: Observation,
        by_mode: Mapping[str, np.ndarray],
        out: Mapping[str, np.ndarray] | None = None,
    ) -> dict[str, np.ndarray]:
        """The env observation for one decoded Observation and the action mode's entries (`action_mask`,
        `last_actions`); every array is new (safe to keep), or with `out` (an array per entry, of the space's
        shape and dtype) written into those arrays, which are returned."""
        if out is None:
            return {name: pack(obs, by_mode) for name, pack in self._packs}
        for name, pack_into in self._packs_into:
            pack_into(obs, by_mode, out[name])
        return dict(out)

    def _packer_into(self, entry: Entry) -> PackInto:
        """How `pack` writes one entry into a given array: layers straight from the message, padded tables and
        lists straight into their rows, the rest through `_packer`'s array."""
        layers = self._layers.get(entry.name)
        if layers is not None:

            def layers_into(obs: Observation, mode: Mapping[str, np.ndarray], out: np.ndarray) -> None:
                if layers.decoder is not None and obs.layers is not None:
                    layers.decode(obs, out)  # straight from the message: no array on the way
                else:
                    out[...] = layers.pack(obs)

            return layers_into
        pack = self._packer(entry)
        if not entry.padded:

            def copied(obs: Observation, mode: Mapping[str, np.ndarray], out: np.ndarray) -> None:
                out[...] = pack(obs, mode)

            return copied
        get = self._getter(entry)
        fill = entry.fill
        if entry.by_action_mode:
            return lambda _, mode, out: _pad_into(get(mode), out, fill)
        return lambda obs, _, out: _pad_into(get(obs), out, fill)

    def _getter(self, entry: Entry) -> Callable[[Any], Any]:
        """How an entry's values are read: from the action mode's entries, or the decoded Observation."""
        name, attribute = entry.name, entry.decoded_as
        if entry.by_action_mode:
            return itemgetter(name)
        if attribute in ATTRIBUTES:
            return attrgetter(attribute)
        return lambda obs: obs.others[name]

    def _packer(self, entry: Entry) -> Pack:
        """How `pack` makes one entry's array, worked out once."""
        settings, name = self.settings, entry.name
        dtype, shape = settings.dtype(entry), settings.shape(entry)
        if entry.source is Computed.FEATURE_LAYERS:
            layers = self._layers[name]
            return lambda obs, _: layers.pack(obs)
        if isinstance(entry.source, RowCounts):
            counted = [
                (other.decoded_as, settings.size(other.shape[0]))
                for other in (ENTRIES[of] for of in entry.source.of)
            ]
            return lambda obs, _: _row_counts(obs, counted)
        get = self._getter(entry)
        fill = entry.fill
        if entry.by_action_mode:
            if entry.padded:
                return lambda _, mode: _pad(get(mode), shape, dtype, fill)
            return lambda _, mode: np.array(get(mode), dtype)
        if entry.padded:
            return lambda obs, _: _pad(get(obs), shape, dtype, fill)
        return lambda obs, _: np.array(get(obs), dtype)


def _pad(values: np.ndarray, shape: tuple[int, ...], dtype: np.dtype, fill: int) -> np.ndarray:
    """`values` in an array of `shape`: its first rows, `fill` after them."""
    values = np.asarray(values)
    out = np.zeros(shape, dtype) if fill == 0 else np.full(shape, fill, dtype)
    n = min(len(values), shape[0])
    out[:n] = values[:n]
    return out


def _pad_into(values: np.ndarray, out: np.ndarray, fill: int) -> None:
    """`values` written into `out`: its first rows, `fill` after them (as `_pad` makes them)."""
    values = np.asarray(values)
    n = min(len(values), len(out))
    out[:n] = values[:n]
    out[n:] = fill


def _row_counts(obs: Observation, counted: list[tuple[str, int]]) -> np.ndarray:
    """How many rows of each named table the env filled (0 for one the observation does not have)."""
    counts = []
    for attribute, rows in counted:
        table = getattr(obs, attribute)
        counts.append(0 if table is None else min(len(table), rows))
    return np.array(counts, np.int32)
