"""The env's observation: a Dict of fixed-shape Boxes, and the packing of a decoded Observation into it."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np
from gymnasium import spaces

from sc2env.gamedata import UNIT_TYPES
from sc2env.interface import MINIMAP_LAYERS, SCREEN_LAYERS, ActionSpec, FeatureUnit, Observation, TargetClass
from sc2env.interface.layer_decoder import StackDecoder
from sc2env.interface.observation import QUEUE_ROWS

_I32 = np.iinfo(np.int32)
MAX_REPORTED = 16
"""Rows kept of the short variable-length lists (last_actions, action_result, alerts)."""
MAX_UPGRADES = 64
"""Rows of `upgrades`: more than any race can research in one game."""

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


class _LayerPacker:
    """Picks and converts one stack of layers (screen or minimap) into the env's array."""

    def __init__(self, what: str, table, names: Sequence[str], compact: bool, size: tuple[int, int] | None):
        by_name = {layer.name: layer for layer in table}
        self.what = what
        self.layers = [by_name[name] for name in names]
        self.index = np.array([layer.index for layer in self.layers], np.intp)
        self.all = len(self.index) == len(table)
        self.compact = compact
        # Compact stacks are decoded straight from the message into uint8, no int32 stack on the way.
        self.decoder = StackDecoder(what, size, names) if compact and size is not None else None
        self.unit_type = [i for i, layer in enumerate(self.layers) if layer.name == "unit_type"]
        self.lookup = _unit_type_lookup(max((layer.scale for layer in self.layers), default=1))

    def space(self, size: tuple[int, int]) -> spaces.Box:
        width, height = size
        shape = (len(self.layers), height, width)
        if self.compact:
            return spaces.Box(0, 255, shape, np.uint8)
        # Not the layers' nominal scales: the real game can exceed them (hit points above 1600).
        return spaces.Box(0, _I32.max, shape, np.int32)

    def pack(self, obs: Observation, renders) -> np.ndarray:
        if self.decoder is not None:
            out = np.empty((len(self.layers), self.decoder.height, self.decoder.width), np.uint8)
            self.decoder.decode(renders, out, self._narrow)
            return out
        stack = obs.feature_screen if self.what == "screen" else obs.feature_minimap
        return np.array(stack if self.all else stack[self.index], np.int32)  # a copy: buffers get reused

    def _narrow(self, row: int, values: np.ndarray, out: np.ndarray) -> None:
        """uint8 values of a 32-bit layer: unit types through the compact index, counters saturated."""
        if row in self.unit_type:  # "clip" maps types beyond the table to its last entry (255, "other")
            self.lookup.take(values, out=out, mode="clip")
        else:
            np.minimum(values, 255, out=out, casting="unsafe")


def _box(
    shape: tuple[int, ...], low: int | None = None, high: int | None = None, dtype=np.int32
) -> spaces.Box:
    info = np.iinfo(dtype)
    return spaces.Box(info.min if low is None else low, info.max if high is None else high, shape, dtype)


class ObservationPacker:
    """Builds the observation space and packs each decoded Observation into it (new arrays every time)."""

    def __init__(
        self, spec: ActionSpec, layers: LayerSelection, *, max_units: int = 256, mask_size: int | None = None
    ):
        fmt = spec.fmt
        self.spec = spec
        self.fmt = fmt
        self.max_units = max_units
        self._screen = _LayerPacker("screen", SCREEN_LAYERS, layers.screen, layers.compact, fmt.screen_size)
        self._minimap = _LayerPacker(
            "minimap", MINIMAP_LAYERS, layers.minimap, layers.compact, fmt.minimap_size
        )
        n_unit_columns = len(FeatureUnit.__members__)
        rows = {
            "multi_select": fmt.max_selected_units,
            "build_queue": QUEUE_ROWS,
            "production_queue": QUEUE_ROWS,
            "cargo": fmt.max_cargo,
        }
        self._tables = rows
        items: dict[str, spaces.Space] = {}
        if fmt.screen_size is not None:
            if layers.screen:
                items["feature_screen"] = self._screen.space(fmt.screen_size)
            if layers.minimap:
                items["feature_minimap"] = self._minimap.space(fmt.minimap_size)
        if fmt.rgb_screen_size is not None:
            items["rgb_screen"] = spaces.Box(
                0, 255, (fmt.rgb_screen_size[1], fmt.rgb_screen_size[0], 3), np.uint8
            )
            items["rgb_minimap"] = spaces.Box(
                0, 255, (fmt.rgb_minimap_size[1], fmt.rgb_minimap_size[0], 3), np.uint8
            )
        items.update(
            player=_box((11,)),
            game_loop=_box((1,), 0),
            score_cumulative=_box((13,)),
            score_by_category=_box((11, 5)),
            score_by_vital=_box((3, 3)),
            control_groups=_box((10, 2), 0),
            single_select=_box((1, 7)),
            multi_select=_box((rows["multi_select"], 7)),
            build_queue=_box((rows["build_queue"], 7)),
            production_queue=_box((rows["production_queue"], 2)),
            cargo=_box((rows["cargo"], 7)),
            cargo_slots_available=_box((1,), 0),
            counts=_box((len(rows) + 1,), 0),
            last_actions=_box((MAX_REPORTED,), -1),
            action_result=_box((MAX_REPORTED,), 0),
            alerts=_box((MAX_REPORTED,), 0),
            upgrades=_box((MAX_UPGRADES,), 0),
        )
        # int64: the real game's unit tags (a column of these tables) are 2**32 and more.
        if fmt.use_feature_units:
            items["feature_units"] = _box((max_units, n_unit_columns), dtype=np.int64)
        if fmt.use_raw_units:
            items["raw_units"] = _box((max_units, n_unit_columns), dtype=np.int64)
        if fmt.use_feature_units or fmt.use_raw_units:
            items["unit_counts"] = _box((2,), 0)
        # Another action layout (the raw one) brings its own mask size, and the env fills that mask in.
        items["action_mask"] = spaces.Box(0, 1, (mask_size or spec.total,), np.int8)
        self._packs_mask = mask_size is None
        if fmt.screen_target_masks:
            width, height = fmt.screen_size
            items["screen_target_masks"] = spaces.Box(0, 1, (len(TargetClass), height, width), np.int8)
        self.space = spaces.Dict(items)

    COUNT_NAMES = ("single_select", "multi_select", "build_queue", "production_queue", "cargo")
    """The order of the entries of obs["counts"]: real rows in each padded table."""

    @property
    def defers_layers(self) -> bool:
        """Whether pack() reads the layers from the message itself, so the decoder can skip its stacks."""
        return self._screen.decoder is not None or self._minimap.decoder is not None

    def pack(self, obs: Observation, response) -> dict[str, np.ndarray]:
        """The env observation for one decoded Observation (and its ResponseObservation); every array is
        new (safe to keep)."""
        out: dict[str, np.ndarray] = {}
        space = self.space.spaces
        layers = response.observation.feature_layer_data
        if "feature_screen" in space:
            out["feature_screen"] = self._screen.pack(obs, layers.renders)
        if "feature_minimap" in space:
            out["feature_minimap"] = self._minimap.pack(obs, layers.minimap_renders)
        if "rgb_screen" in space:
            out["rgb_screen"] = np.array(obs.rgb_screen, np.uint8)
            out["rgb_minimap"] = np.array(obs.rgb_minimap, np.uint8)
        out["player"] = np.array(obs.player, np.int32)
        out["game_loop"] = np.array(obs.game_loop, np.int32)
        out["score_cumulative"] = np.array(obs.score_cumulative, np.int32)
        out["score_by_category"] = np.array(obs.score_by_category, np.int32)
        out["score_by_vital"] = np.array(obs.score_by_vital, np.int32)
        out["control_groups"] = np.array(obs.control_groups, np.int32)
        out["single_select"] = _pad(obs.single_select, 1)
        counts = [min(len(obs.single_select), 1)]
        for name, rows in self._tables.items():
            out[name] = obs.padded(name)
            counts.append(min(len(getattr(obs, name)), rows))
        out["cargo_slots_available"] = np.array(obs.cargo_slots_available, np.int32)
        out["counts"] = np.array(counts, np.int32)
        out["last_actions"] = _pad_list(obs.last_actions, -1)
        out["action_result"] = _pad_list(obs.action_result, 0)
        out["alerts"] = _pad_list(obs.alerts, 0)
        out["upgrades"] = _pad_list(obs.upgrades, 0, MAX_UPGRADES)
        if "feature_units" in space:
            out["feature_units"] = _pad(obs.feature_units, self.max_units, np.int64)
        if "raw_units" in space:
            out["raw_units"] = _pad(obs.raw_units, self.max_units, np.int64)
        if "unit_counts" in space:
            out["unit_counts"] = np.array(
                [
                    min(len(t), self.max_units) if t is not None else 0
                    for t in (obs.feature_units, obs.raw_units)
                ],
                np.int32,
            )
        if self._packs_mask:
            out["action_mask"] = obs.masks.flat.astype(np.int8)
        if "screen_target_masks" in space:
            out["screen_target_masks"] = obs.target_masks.astype(np.int8)
        return out


def _pad(table, rows: int, dtype=np.int32) -> np.ndarray:
    table = np.asarray(table)
    out = np.zeros((rows, table.shape[1]), dtype)
    n = min(len(table), rows)
    out[:n] = table[:n]
    return out


def _pad_list(values: np.ndarray, fill: int, size: int = MAX_REPORTED) -> np.ndarray:
    out = np.full(size, fill, np.int32)
    n = min(len(values), size)
    out[:n] = values[:n]
    return out
