"""Decode a `ResponseObservation` into an Observation: named numpy arrays and action masks, once per step.

The scalars and integer lists are read as the observation layout's table says (`message_fields`); the
panels, control groups, layers, images, units and masks each by a routine of their own.
"""

from __future__ import annotations

import logging
import platform
import sys
import warnings
from collections.abc import Sequence
from operator import attrgetter
from typing import Any, TypeVar, cast

import numpy as np
from s2clientprotocol import raw_pb2, spatial_pb2
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env.errors import ProtocolError
from sc2env.interface.abilities import ABILITY_INDEX
from sc2env.interface.actions import action_function_id
from sc2env.interface.columns import CONTROL_GROUPS, ControlGroup
from sc2env.interface.format import InterfaceFormat
from sc2env.interface.functions import Function
from sc2env.interface.layer_decoder import LayerStacks, StackDecoder
from sc2env.interface.layers import rgb_array
from sc2env.interface.masks import MaskBuilder, UiCounts, available_function_ids
from sc2env.interface.message_fields import IntFields, ScalarBlock
from sc2env.interface.named_array import (
    FeatureUnitTable,
    MinimapLayers,
    NamedArray,
    ProductionTable,
    ScreenLayers,
    UnitTable,
)
from sc2env.interface.observation import ATTRIBUTES, Observation
from sc2env.interface.observation_layout import OBSERVATION_LAYOUT, Ints, Scalars
from sc2env.interface.spec import ActionSpec
from sc2env.interface.target_masks import TargetMasker
from sc2env.interface.transforms import CoordinateTransforms, MapInfo
from sc2env.interface.units import unit_rows

_UNIT_INFO = attrgetter(
    "unit_type", "player_relative", "health", "shields", "energy", "transport_slots_taken"
)
# Reference counts tell exactly whether an array is still used only on CPython with the GIL.
_REFCOUNTS_EXACT = (
    platform.python_implementation() == "CPython" and getattr(sys, "_is_gil_enabled", lambda: True)()
)


_SCALARS = ScalarBlock([entry for entry in OBSERVATION_LAYOUT if isinstance(entry.source, Scalars)])
_INTS = IntFields([entry for entry in OBSERVATION_LAYOUT if isinstance(entry.source, Ints)])
_OTHERS = tuple(
    entry.name
    for entry in OBSERVATION_LAYOUT
    if isinstance(entry.source, (Scalars, Ints)) and entry.decoded_as not in ATTRIBUTES
)
"""Entries Observation has no attribute for: they go in its `others`."""


T = TypeVar("T", bound=NamedArray)


def _table(rows: list, kind: type[T]) -> T:
    """Rows as an int32 table of a NamedArray kind, (0, columns) when there are none."""
    table = np.zeros((0, len(kind._names)), np.int32) if not rows else np.array(rows, np.int32)
    return cast(T, table.view(kind))


def _unit_table(units) -> UnitTable:
    """`UnitInfo` messages as (n, 7) rows of `UnitLayer` columns."""
    return _table([(*_UNIT_INFO(u), int(u.build_progress * 100)) for u in units], UnitTable)


class ObservationDecoder:
    """Decodes observations under one interface format (and, with game_info, one map).

    `functions` limits the function component of the action masks to those ids (e.g. a mini-game subset).
    Abilities and actions no function expresses are skipped and logged once per kind per decoder (raw
    commands echoed in raw form only, as a raw client's are, silently).
    """

    def __init__(
        self,
        fmt: InterfaceFormat,
        game_info: sc_pb.ResponseGameInfo | None = None,
        *,
        functions: Sequence[int | str | Function] | None = None,
    ):
        self.fmt = fmt
        self.spec = ActionSpec.from_format(fmt, functions)
        self.map_info: MapInfo | None = None
        self.transforms: CoordinateTransforms | None = None
        if game_info is not None:
            fmt.check_game_info(game_info)
            try:
                self.map_info = MapInfo.from_game_info(game_info)
                self.transforms = CoordinateTransforms(fmt, self.map_info, rgb=fmt.screen_size is None)
            except (ArithmeticError, ValueError, IndexError, TypeError) as error:
                raise ProtocolError(
                    f"the game's game_info describes a map sc2env cannot lay out (map size "
                    f"{game_info.start_raw.map_size.x}×{game_info.start_raw.map_size.y}; {type(error).__name__}: "
                    f"{error}): the game is misbehaving; close it and start a new one"
                ) from error
            width, height = self.transforms.minimap_size
            if self.transforms.minimap_rows_needed > height:
                warnings.warn(
                    f"the {width}×{height} minimap shows only the top {height} of the "
                    f"{self.transforms.minimap_rows_needed} rows this map needs: minimap pixels are "
                    "scaled by the minimap's width (as in PySC2), so a minimap less tall than it is "
                    "wide cuts the map off; use a square minimap",
                    stacklevel=2,
                )
        if (fmt.use_feature_units or fmt.use_raw_units) and self.transforms is None:
            raise ValueError(
                "feature_units and raw_units need the game_info: ObservationDecoder(fmt, game_info)"
            )
        self._index = ABILITY_INDEX[fmt.hide_specific_actions]
        self._targets = TargetMasker(self.transforms) if fmt.screen_target_masks else None
        self._masks = MaskBuilder(self.spec, target_masks=fmt.screen_target_masks)
        self._buffers = _BufferPool()
        if fmt.screen_size is not None and fmt.minimap_size is not None:
            self._stacks = (
                StackDecoder("screen", fmt.screen_size),
                StackDecoder("minimap", fmt.minimap_size),
            )
        self._reported: set[tuple] = set()
        self._log = logging.getLogger(__name__)

    def _report_once(self, key: tuple, message: str, *args: object) -> None:
        if key not in self._reported:
            self._reported.add(key)
            self._log.warning(message, *args)

    def _unmatched_ability(self, ability_id: int, requires_point: bool) -> None:
        self._report_once(
            ("ability", ability_id, requires_point),
            "skipping available ability %d (requires_point=%s): no function matches it",
            ability_id,
            requires_point,
        )

    def available_actions(self, observation: sc_pb.Observation) -> list[int]:
        """PySC2-compatible available function ids (sorted) for an `Observation` message."""
        return available_function_ids(observation, self._index, self._unmatched_ability)

    def last_actions(self, response: sc_pb.ResponseObservation) -> np.ndarray:
        """Function ids of the actions the game reports as performed; inexpressible ones are skipped."""
        ids = []
        for action in response.actions:
            function_id = action_function_id(action, self.fmt)
            if (
                function_id is None
                and action.HasField("action_raw")
                and not action.HasField("action_feature_layer")
                and not action.HasField("action_render")
            ):
                continue  # a raw command in raw form only: sent by a raw client, no feature function's to show
            if function_id is None:
                kind = _action_kind(action)
                self._report_once(
                    ("action", kind), "skipping a reported action no function expresses (%s)", kind
                )
            else:
                ids.append(function_id)
        return np.array(ids, np.int32)

    def decode(self, response: sc_pb.ResponseObservation, *, defer_layers: bool = False) -> Observation:
        """_decode(), with values no array can hold (NaN, infinite or out-of-range numbers in the
        message) reported as ProtocolError rather than numpy's or Python's own errors."""
        try:
            return self._decode(response, defer_layers=defer_layers)
        except (ArithmeticError, ValueError, IndexError, TypeError) as error:
            # Chained, not hidden: the same errors would come from a bug of ours, and the traceback tells.
            raise ProtocolError(
                f"the game's observation at game loop {response.observation.game_loop} could not be decoded "
                f"({type(error).__name__}: {error}): it holds a value no array can take (NaN, an infinite or "
                "out-of-range number), which a real game does not send; start a new game"
            ) from error

    def _decode(self, response: sc_pb.ResponseObservation, *, defer_layers: bool = False) -> Observation:
        """Everything the agent sees in one `ResponseObservation`, with its action masks.

        defer_layers: decode the int32 feature-layer stacks only when `feature_screen` / `feature_minimap` is
        first read (for callers that take the layers in another form, as the Gymnasium env's uint8 ones).
        """
        fmt = self.fmt
        obs = response.observation
        values: dict[str, Any] = {}
        _SCALARS.read(obs, values)
        _INTS.read(response, values)
        ui = obs.ui_data
        panel = ui.WhichOneof("panel")
        values.update(_panels(ui, panel))
        values["control_groups"] = groups = _control_groups(ui)

        layers = None
        if fmt.screen_size is not None:
            layers = LayerStacks(obs.feature_layer_data, self._decode_stacks)
            if not defer_layers or self._targets is not None:
                layers.stacks  # noqa: B018 - decoded now: the target masks read them, or the caller will
        if fmt.rgb_screen_size is not None and fmt.rgb_minimap_size is not None:
            values["rgb_screen"] = _copy(rgb_array(obs.render_data.map, "rgb screen"), fmt.rgb_screen_size)
            values["rgb_minimap"] = _copy(
                rgb_array(obs.render_data.minimap, "rgb minimap"), fmt.rgb_minimap_size
            )

        camera = None
        if obs.raw_data.player.HasField("camera"):
            camera = (obs.raw_data.player.camera.x, obs.raw_data.player.camera.y)
            values["camera_world"] = np.array(camera, np.float64)
            if self.transforms is not None:
                values["camera_minimap"] = self.transforms.world_to_minimap.fwd_pixel(camera).astype(np.int32)
                if fmt.use_camera_position:  # PySC2's keys, only when asked for as in PySC2
                    values["camera_position"] = self.transforms.world_to_raw.fwd_pixel(camera).astype(
                        np.int32
                    )
                    values["camera_size"] = self.transforms.raw_camera_size.astype(np.int32)
        if fmt.use_feature_units:
            values["feature_units"] = self._feature_units(obs.raw_data, camera)
        if fmt.use_raw_units:
            values["raw_units"] = self._raw_units(obs.raw_data)
        if fmt.use_unit_counts:
            values["unit_type_counts"] = unit_type_counts(obs.raw_data.units)

        available = self.available_actions(obs)
        targets = None
        if self._targets is not None and layers is not None:
            targets = self._targets(layers.stacks[0], obs.feature_layer_data.renders, camera)
        counts = UiCounts(
            selection=panel is not None,
            groups=tuple(np.flatnonzero(groups[:, ControlGroup.count]).tolist()) if len(ui.groups) else (),
            multi=len(values["multi_select"]),
            queue=len(values["build_queue"]),
            cargo=len(values["cargo"]),
            idle_workers=obs.player_common.idle_worker_count,
        )
        values["last_actions"] = self.last_actions(response) if response.actions else np.zeros(0, np.int32)
        if _OTHERS:
            values["others"] = {name: values.pop(name) for name in _OTHERS}
        return Observation(
            available_actions=np.array(available, np.int32),
            masks=self._masks(available, counts, targets),
            layers=layers,
            **values,
        )

    def _decode_stacks(
        self, layers: spatial_pb2.ObservationFeatureLayer
    ) -> tuple[ScreenLayers, MinimapLayers]:
        """The int32 screen and minimap stacks of a FeatureLayerData message."""
        out = []
        for decoder, renders in zip(self._stacks, (layers.renders, layers.minimap_renders)):
            stack = self._buffers.array(decoder.what, (len(decoder.layers), decoder.height, decoder.width))
            decoder.decode(renders, stack)
            out.append(stack)
        return out[0].view(ScreenLayers), out[1].view(MinimapLayers)

    def _feature_units(self, raw, camera: tuple[float, float] | None) -> FeatureUnitTable:
        """Units on screen, x and y in screen pixels (none without a camera position)."""
        assert self.transforms is not None  # checked in __init__
        on_screen = [u for u in raw.units if u.is_on_screen] if camera is not None else []
        to_screen = self.transforms.world_to_screen(camera or (0.0, 0.0))
        return unit_rows(on_screen, to_screen, with_tags=False, type_of_tag=_add_on_types(raw)).view(
            FeatureUnitTable
        )

    def _raw_units(self, raw) -> FeatureUnitTable:
        """All units in PySC2's default raw coordinates (`CoordinateTransforms.world_to_raw`)."""
        assert self.transforms is not None  # checked in __init__
        return unit_rows(
            raw.units, self.transforms.world_to_raw, with_tags=True, type_of_tag=_add_on_types(raw)
        ).view(FeatureUnitTable)


def _panels(ui: Any, panel: str | None) -> dict[str, NamedArray]:
    """The unit tables of the UI's selection panel: the unit shown alone, and the panel's list of units."""
    single: Sequence[Any] = ()
    multi: Sequence[Any] = ()
    queue: Sequence[Any] = ()
    cargo: Sequence[Any] = ()
    production: Sequence[Any] = ()
    if panel == "single":
        single = (ui.single.unit,)
    elif panel == "multi":
        multi = ui.multi.units
    elif panel == "cargo":
        single, cargo = (ui.cargo.unit,), ui.cargo.passengers
    elif panel == "production":
        single, queue = (ui.production.unit,), ui.production.build_queue
        production = ui.production.production_queue
    return {
        "single_select": _unit_table(single),
        "multi_select": _unit_table(multi),
        "build_queue": _unit_table(queue),
        "production_queue": _table(
            [(q.ability_id, int(q.build_progress * 100)) for q in production], ProductionTable
        ),
        "cargo": _unit_table(cargo),
    }


def _control_groups(ui: Any) -> np.ndarray:
    """(groups, 2): each control group's leader unit type and unit count."""
    groups = np.zeros((CONTROL_GROUPS, len(ControlGroup)), np.int32)
    for group in ui.groups:
        if 0 <= group.control_group_index < CONTROL_GROUPS:
            groups[group.control_group_index] = (group.leader_unit_type, group.count)
    return groups


class _BufferPool:
    """Hands back a layer stack from an earlier step for reuse once nothing but the pool refers to it.

    Fresh multi-hundred-kB arrays each step cost more in page faults than decoding itself. Reuse is
    decided by CPython reference counts: while any observation (or view, or copy holder such as
    torch.from_numpy) still refers to an array, it is left alone. A few arrays per key are kept, because a
    caller usually still holds the previous observation while the next one is decoded.
    """

    KEEP = 3

    def __init__(self) -> None:
        self._arrays: dict[str, list[np.ndarray]] = {}
        self._free_count = self._probe_free_count()

    def array(self, key: str, shape: tuple[int, ...]) -> np.ndarray:
        """An int32 array of `shape`: a free one from an earlier step, else a new one."""
        kept = self._arrays.setdefault(key, [])
        if self._free_count is not None:
            for array in kept:
                if array.shape == shape and sys.getrefcount(array) == self._free_count:
                    return array
        array = np.empty(shape, np.int32)
        kept.append(array)
        if len(kept) > self.KEEP:
            del kept[0]
        return array

    def _probe_free_count(self) -> int | None:
        """The reference count `array()` sees for an array only the pool holds, measured with the very loop
        `array()` runs (counts differ between interpreter versions); None turns reuse off where the count
        cannot tell a free array from a held one."""
        if not _REFCOUNTS_EXACT:
            return None
        kept = [np.empty(1, np.int32)]
        counts = []
        for array in kept:
            counts.append(sys.getrefcount(array))
        held = kept[0]  # a reference from outside, as an observation the caller keeps
        for array in kept:
            counts.append(sys.getrefcount(array))
        del held
        free, busy = counts
        return free if busy > free else None


def _add_on_types(raw) -> dict[int, int]:
    """Unit type by tag, built only when some unit has an add-on to look up."""
    if any(u.add_on_tag for u in raw.units):
        return {u.tag: u.unit_type for u in raw.units}
    return {}


def _copy(image: np.ndarray | None, size: tuple[int, int]) -> np.ndarray:
    """An owned copy of an RGB image, or black when the game sent none."""
    if image is None:
        return np.zeros((size[1], size[0], 3), np.uint8)
    return image.copy()


def _action_kind(action: sc_pb.Action) -> str:
    """A short description of an action for log messages: which fields it has and its ability, if any."""
    fields = [f.name for f, _ in action.ListFields() if f.name != "game_loop"]
    ability = None
    for spatial in (action.action_feature_layer, action.action_render, action.action_raw):
        if spatial.HasField("unit_command"):
            ability = spatial.unit_command.ability_id
    if action.action_ui.HasField("toggle_autocast"):
        ability = action.action_ui.toggle_autocast.ability_id
    return "+".join(fields) + (f" ability {ability}" if ability is not None else "")


def unit_type_counts(units: Sequence[Any]) -> np.ndarray:
    """(types, 2) int32 rows (unit type, count) of the player's own units (alliance Self), by type."""
    kinds = np.fromiter((u.unit_type for u in units if u.alliance == raw_pb2.Self), np.int32)
    types, counts = np.unique(kinds, return_counts=True)
    return np.stack([types, counts.astype(np.int32)], axis=1).astype(np.int32).reshape(-1, 2)
