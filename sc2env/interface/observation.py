"""One decoded observation: named numpy arrays and action masks, with PySC2's dict-style access."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, fields
from typing import Any, cast

import numpy as np

from sc2env.interface.layer_decoder import LayerStacks
from sc2env.interface.layout_settings import LayoutSettings
from sc2env.interface.masks import ActionMasks
from sc2env.interface.named_array import (
    FeatureUnitTable,
    MinimapLayers,
    PlayerArray,
    ProductionTable,
    ScoreByCategoryArray,
    ScoreByVitalArray,
    ScoreCumulativeArray,
    ScreenLayers,
    UnitTable,
)
from sc2env.interface.observation_layout import ENTRIES, OBSERVATION_LAYOUT, Computed

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
    layers: LayerStacks | None = None
    """The feature layers (feature_screen and feature_minimap decode from them on first use), or None without."""
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
    unit_type_counts: np.ndarray | None = None
    """(types, 2) int32 `UnitCount` rows: each unit type the player owns and how many, by type; with
    `use_unit_counts` (PySC2's `unit_counts`)."""
    others: dict[str, np.ndarray] = field(default_factory=dict)
    """Entries of the observation layout this class declares no attribute for (a row added to the table):
    `obs["name"]` reads them, as the env's observation dict has them."""

    @property
    def feature_screen(self) -> ScreenLayers | None:
        """The 27 screen layers, (layers, y, x) int32, named; None without feature layers."""
        return None if self.layers is None else cast(ScreenLayers, self.layers.stacks[0])

    @property
    def feature_minimap(self) -> MinimapLayers | None:
        """The 11 minimap layers, (layers, y, x) int32, named; None without feature layers."""
        return None if self.layers is None else cast(MinimapLayers, self.layers.stacks[1])

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
            if f.name not in ("layers", "masks", "others") and getattr(self, f.name) is not None
        ]
        layers = ("feature_screen", "feature_minimap") if self.layers is not None else ()
        return [*held[:3], *layers, *held[3:], *self.others]

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
        if name in self.others:
            return self.others[name]
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
        return [(name, self[name]) for name in self.keys()]

    def values(self) -> list[Any]:
        return [self[name] for name in self.keys()]

    def padded(self, name: str) -> np.ndarray:
        """multi_select, cargo, build_queue or production_queue as a fixed-size array, zero rows after the
        real ones (more rows than fit are dropped): max_selected_units, max_cargo or 10 rows, as the env has
        them."""
        entry = ENTRIES.get(name)
        if entry is None or not entry.padded or entry.source is not Computed.UI_PANELS:
            panels = [e.name for e in OBSERVATION_LAYOUT if e.padded and e.source is Computed.UI_PANELS]
            raise KeyError(f"{name!r}: padded() takes one of {', '.join(panels)}")
        rows = LayoutSettings(self.masks.spec.fmt).size(entry.shape[0])
        table = np.asarray(getattr(self, name))
        out = np.zeros((rows, table.shape[1]), table.dtype)
        out[: len(table)] = table[:rows]
        return out


_ITEM_NAMES = frozenset(
    {f.name for f in fields(Observation)} - {"layers", "others"}
    | {"feature_screen", "feature_minimap", "function_mask", "argument_masks", "target_masks"}
)
"""What `obs[name]` gives: every field and layer stack, and the masks."""

ATTRIBUTES = frozenset(
    {f.name for f in fields(Observation)}
    | {name for name, value in vars(Observation).items() if isinstance(value, property)}
)
"""The names an Observation has attributes for (others live in `others`)."""
