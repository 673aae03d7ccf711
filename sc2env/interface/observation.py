"""Decode a `ResponseObservation` into named numpy arrays and action masks, once per step."""

from __future__ import annotations

import logging
import platform
import sys
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, fields
from functools import partial
from operator import attrgetter
from typing import Any

import numpy as np
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env.errors import ProtocolError
from sc2env.interface.abilities import ABILITY_INDEX
from sc2env.interface.actions import action_function_id
from sc2env.interface.columns import (
    Player,
    ScoreByCategory,
    ScoreByVital,
    ScoreCategories,
    ScoreCumulative,
    ScoreVitals,
)
from sc2env.interface.format import InterfaceFormat
from sc2env.interface.functions import Function
from sc2env.interface.layer_decoder import StackDecoder
from sc2env.interface.layers import rgb_array
from sc2env.interface.masks import ActionMasks, MaskBuilder, UiCounts, available_function_ids
from sc2env.interface.named_array import (
    FeatureUnitTable,
    MinimapLayers,
    NamedArray,
    PlayerArray,
    ProductionTable,
    ScoreByCategoryArray,
    ScoreByVitalArray,
    ScoreCumulativeArray,
    ScreenLayers,
    UnitTable,
)
from sc2env.interface.spec import ActionSpec
from sc2env.interface.target_masks import TargetMasker
from sc2env.interface.transforms import CoordinateTransforms, MapInfo
from sc2env.interface.units import unit_rows

_PLAYER = attrgetter(*Player.__members__)
_CUMULATIVE = attrgetter(*list(ScoreCumulative.__members__)[1:])  # `score` itself sits one level up
_CATEGORY = attrgetter(*ScoreCategories.__members__)
_VITAL = attrgetter(*ScoreVitals.__members__)
_CATEGORY_ROWS = attrgetter(*ScoreByCategory.__members__)
_VITAL_ROWS = attrgetter(*ScoreByVital.__members__)
_UNIT_INFO = attrgetter(
    "unit_type", "player_relative", "health", "shields", "energy", "transport_slots_taken"
)
# Reference counts tell exactly whether an array is still used only on CPython with the GIL.
_REFCOUNTS_EXACT = (
    platform.python_implementation() == "CPython" and getattr(sys, "_is_gil_enabled", lambda: True)()
)
_NO_SCORE = (0,) * (
    len(ScoreCumulative) + len(ScoreByCategory) * len(ScoreCategories) + len(ScoreByVital) * len(ScoreVitals)
)
_TURNED_ON_BY = {
    "feature_screen": "feature layers come with screen_size",
    "feature_minimap": "feature layers come with screen_size",
    "rgb_screen": "RGB images come with rgb_screen_size",
    "rgb_minimap": "RGB images come with rgb_screen_size",
    "feature_units": "use_feature_units=True turns them on",
    "raw_units": "use_raw_units=True turns them on",
    "target_masks": "screen_target_masks=True turns them on",
}
"""What makes each optional entry of an observation appear (the env's / InterfaceFormat's options); the camera_*
entries need raw data."""
QUEUE_ROWS = 10
"""Rows of the padded build_queue and production_queue arrays (the build_queue_id argument's size)."""


def _table(rows: list, kind: type[NamedArray]) -> NamedArray:
    """Rows as an int32 table of a NamedArray kind, (0, columns) when there are none."""
    if not rows:
        return np.zeros((0, len(kind._names)), np.int32).view(kind)
    return np.array(rows, np.int32).view(kind)


def _ints(values) -> np.ndarray:
    """A repeated int field (or list) as int32; quick when empty, as it usually is."""
    return np.array(values, np.int32) if len(values) else np.zeros(0, np.int32)


def _unit_table(units) -> UnitTable:
    """`UnitInfo` messages as (n, 7) rows of `UnitLayer` columns."""
    return _table([(*_UNIT_INFO(u), int(u.build_progress * 100)) for u in units], UnitTable)


@dataclass(eq=False)
class Observation:
    """One decoded observation. Layer stacks are (layers, y, x) int32 with named layers
    (`obs.feature_screen.player_relative`); tables have named columns (`obs.multi_select.health`)."""

    game_loop: np.ndarray
    player: PlayerArray
    available_actions: np.ndarray
    """PySC2-compatible ids of the functions the game offers now (sorted)."""
    masks: ActionMasks
    single_select: UnitTable
    multi_select: UnitTable
    build_queue: UnitTable
    production_queue: ProductionTable
    cargo: UnitTable
    cargo_slots_available: np.ndarray
    control_groups: np.ndarray
    """(10, 2): leader unit type and unit count of each control group."""
    score_cumulative: ScoreCumulativeArray
    score_by_category: ScoreByCategoryArray
    score_by_vital: ScoreByVitalArray
    last_actions: np.ndarray
    action_result: np.ndarray
    alerts: np.ndarray
    upgrades: np.ndarray
    layers: tuple[ScreenLayers | None, MinimapLayers | None] | Callable[[], tuple] = (None, None)
    """(feature_screen, feature_minimap), or a function that decodes them on first use (see decode())."""
    rgb_screen: np.ndarray | None = None
    rgb_minimap: np.ndarray | None = None
    feature_units: FeatureUnitTable | None = None
    raw_units: FeatureUnitTable | None = None
    camera_world: np.ndarray | None = None
    """World (x, y) of the camera centre; needs raw data."""
    camera_minimap: np.ndarray | None = None
    """Minimap pixel (x, y) of the camera centre; needs raw data and game_info."""
    camera_position: np.ndarray | None = None
    """(2,) int32 camera centre in raw_units' coordinates, as PySC2's `camera_position`; with
    `use_camera_position`, raw data and game_info."""
    camera_size: np.ndarray | None = None
    """(2,) int32 camera width and height in raw_units' coordinates, as PySC2's `camera_size` (as above)."""

    @property
    def feature_screen(self) -> ScreenLayers | None:
        """The 27 screen layers, (layers, y, x) int32, named; None without feature layers."""
        return self._layers()[0]

    @property
    def feature_minimap(self) -> MinimapLayers | None:
        """The 11 minimap layers, (layers, y, x) int32, named; None without feature layers."""
        return self._layers()[1]

    def _layers(self) -> tuple:
        if callable(self.layers):
            self.layers = self.layers()
        return self.layers

    def __getstate__(self) -> dict:
        self._layers()  # pickle the decoded stacks, not the decoder that would make them
        return self.__dict__

    @property
    def function_mask(self) -> np.ndarray:
        return self.masks.function

    @property
    def argument_masks(self) -> dict[str, np.ndarray]:
        return self.masks.arguments

    @property
    def target_masks(self) -> np.ndarray | None:
        return self.masks.target_masks

    def keys(self) -> list[str]:
        """The names of the arrays this observation holds (None ones left out), as PySC2's dict has them."""
        held = [
            f.name
            for f in fields(self)
            if f.name not in ("layers", "masks") and getattr(self, f.name) is not None
        ]
        # Without decoding deferred layers: they are there if a decoder waits for them.
        layers = (
            ("feature_screen", "feature_minimap")
            if callable(self.layers) or self.layers[0] is not None
            else ()
        )
        return [*held[:3], *layers, *held[3:]]

    def __getitem__(self, name: str):
        """Dict-style access, as PySC2's observations allow: `obs["feature_screen"]` (also `obs["masks"]` and
        the mask properties); KeyError for a name an observation never has."""
        if isinstance(name, str) and name in _ITEM_NAMES:
            value = getattr(self, name)
            if value is None:  # as PySC2's dict: no key for what the interface leaves out
                raise KeyError(
                    f"{name!r}: this observation has none; "
                    f"{_TURNED_ON_BY.get(name, 'it needs raw data (use_feature_units or use_raw_units)')}"
                )
            return value
        raise KeyError(f"{name!r}: an observation holds {', '.join(self.keys())}")

    def __contains__(self, name: object) -> bool:
        return name in self.keys()

    def __iter__(self) -> Iterator[str]:
        return iter(self.keys())

    def __len__(self) -> int:
        return len(self.keys())

    def get(self, name: str, default=None):
        return self[name] if name in self else default  # noqa: SIM401 - this is get()

    def items(self) -> list[tuple[str, Any]]:
        return [(name, getattr(self, name)) for name in self.keys()]

    def values(self) -> list[Any]:
        return [getattr(self, name) for name in self.keys()]

    def padded(self, name: str) -> np.ndarray:
        """multi_select, cargo, build_queue or production_queue as a fixed-size array, zero rows after the
        real ones (more rows than fit are dropped): max_selected_units, max_cargo or 10 rows."""
        fmt = self.masks.spec.fmt
        rows = {
            "multi_select": fmt.max_selected_units,
            "cargo": fmt.max_cargo,
            "build_queue": QUEUE_ROWS,
            "production_queue": QUEUE_ROWS,
        }[name]
        table = np.asarray(getattr(self, name))
        out = np.zeros((rows, table.shape[1]), table.dtype)
        out[: len(table)] = table[:rows]
        return out


_ITEM_NAMES = frozenset(
    {f.name for f in fields(Observation)} - {"layers"}
    | {"feature_screen", "feature_minimap", "function_mask", "argument_masks", "target_masks"}
)
"""What `obs[name]` gives: every field and layer stack, and the masks."""


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
        if fmt.screen_size is not None:
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
        ui = obs.ui_data
        panel = ui.WhichOneof("panel")
        single = multi = queue = cargo = production = ()
        cargo_slots = 0
        if panel == "single":
            single = (ui.single.unit,)
        elif panel == "multi":
            multi = ui.multi.units
        elif panel == "cargo":
            single, cargo, cargo_slots = (ui.cargo.unit,), ui.cargo.passengers, ui.cargo.slots_available
        elif panel == "production":
            single, queue = (ui.production.unit,), ui.production.build_queue
            production = ui.production.production_queue
        groups = np.zeros((10, 2), np.int32)
        for group in ui.groups:
            if 0 <= group.control_group_index < 10:
                groups[group.control_group_index] = (group.leader_unit_type, group.count)

        # Every scalar in one array (one conversion), handed out as views: player, then the scores.
        values = list(_PLAYER(obs.player_common))
        if obs.HasField("score"):
            score = obs.score
            details = score.score_details
            values += (score.score, *_CUMULATIVE(details))
            for row in _CATEGORY_ROWS(details):
                values.extend(_CATEGORY(row))
            for row in _VITAL_ROWS(details):
                values.extend(_VITAL(row))
        else:
            values += _NO_SCORE
        scalars = np.array(values, np.int32)

        rgb_screen = rgb_minimap = None
        layers = obs.feature_layer_data
        stacks: tuple | Callable[[], tuple] = (None, None)
        if fmt.screen_size is not None:
            stacks = partial(self._decode_stacks, layers)
            if not defer_layers or self._targets is not None:
                stacks = stacks()
        if fmt.rgb_screen_size is not None:
            rgb_screen = _copy(rgb_array(obs.render_data.map, "rgb screen"), fmt.rgb_screen_size)
            rgb_minimap = _copy(rgb_array(obs.render_data.minimap, "rgb minimap"), fmt.rgb_minimap_size)

        camera = camera_world = camera_minimap = camera_position = camera_size = None
        if obs.raw_data.player.HasField("camera"):
            camera = (obs.raw_data.player.camera.x, obs.raw_data.player.camera.y)
            camera_world = np.array(camera, np.float64)
            if self.transforms is not None:
                camera_minimap = self.transforms.world_to_minimap.fwd_pixel(camera).astype(np.int32)
                if fmt.use_camera_position:  # PySC2's keys, only when asked for as in PySC2
                    camera_position = self.transforms.world_to_raw.fwd_pixel(camera).astype(np.int32)
                    camera_size = self.transforms.raw_camera_size.astype(np.int32)

        available = self.available_actions(obs)
        targets = None if self._targets is None else self._targets(stacks[0], layers.renders, camera)
        counts = UiCounts(
            selection=panel is not None,
            groups=tuple(np.flatnonzero(groups[:, 1]).tolist()) if len(ui.groups) else (),
            multi=len(multi),
            queue=len(queue),
            cargo=len(cargo),
            idle_workers=obs.player_common.idle_worker_count,
        )
        return Observation(
            game_loop=np.array((obs.game_loop,), np.int64),
            player=scalars[:11].view(PlayerArray),
            available_actions=np.array(available, np.int32),
            masks=self._masks(available, counts, targets),
            single_select=_unit_table(single),
            multi_select=_unit_table(multi),
            build_queue=_unit_table(queue),
            production_queue=_table(
                [(q.ability_id, int(q.build_progress * 100)) for q in production], ProductionTable
            ),
            cargo=_unit_table(cargo),
            cargo_slots_available=np.array((cargo_slots,), np.int32),
            control_groups=groups,
            score_cumulative=scalars[11:24].view(ScoreCumulativeArray),
            score_by_category=scalars[24:79].reshape(11, 5).view(ScoreByCategoryArray),
            score_by_vital=scalars[79:88].reshape(3, 3).view(ScoreByVitalArray),
            last_actions=self.last_actions(response) if response.actions else np.zeros(0, np.int32),
            action_result=_ints([e.result for e in response.action_errors]),
            alerts=_ints(obs.alerts),
            upgrades=_ints(obs.raw_data.player.upgrade_ids),
            layers=stacks,
            rgb_screen=rgb_screen,
            rgb_minimap=rgb_minimap,
            feature_units=self._feature_units(obs.raw_data, camera) if fmt.use_feature_units else None,
            raw_units=self._raw_units(obs.raw_data) if fmt.use_raw_units else None,
            camera_world=camera_world,
            camera_minimap=camera_minimap,
            camera_position=camera_position,
            camera_size=camera_size,
        )

    def _decode_stacks(self, layers) -> tuple[ScreenLayers, MinimapLayers]:
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
