"""The observation's layout as one table: each entry's name, shape, dtype, value range, source and meaning.

The decoder reads the game's message by it (every `Scalars` entry in one conversion, each a view of it), the
env packs its fixed-shape arrays by it, and the Gymnasium observation space and docs/env.md's table are made
from it. Shapes name the enums that index them (`Player` is 11 entries), `Dim`s for the sizes the settings
choose, and `Rows(...)` for an axis whose decoded length varies (panels, echoed actions), padded in the env.
Adding an entry is one row here, plus its decoding if its source is new.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from sc2env.interface.columns import (
    CONTROL_GROUPS,
    QUEUE_ROWS,
    ControlGroup,
    FeatureUnit,
    Player,
    ProductionQueue,
    ScoreByCategory,
    ScoreByVital,
    ScoreCategories,
    ScoreCumulative,
    ScoreVitals,
    UnitCount,
    UnitLayer,
)
from sc2env.interface.functions import TargetClass
from sc2env.interface.named_array import (
    PlayerArray,
    ScoreByCategoryArray,
    ScoreByVitalArray,
    ScoreCumulativeArray,
)

MAX_REPORTED = 16
"""Rows the env keeps of the short variable-length lists (last_actions, action_result, alerts)."""
MAX_UPGRADES = 64
"""Rows of the env's `upgrades`: more than any race can research in one game."""
MAX_UNIT_TYPES = 64
"""Rows of the env's `unit_type_counts`: more unit types than a player of any race owns at once."""


class Dim(enum.Enum):
    """A size the settings choose (`layout_settings.LayoutSettings.size`); its value is how docs/env.md writes it."""

    SCREEN_LAYERS = "screen layers"
    SCREEN_HEIGHT = "H"
    SCREEN_WIDTH = "W"
    MINIMAP_LAYERS = "minimap layers"
    MINIMAP_HEIGHT = "h"
    MINIMAP_WIDTH = "w"
    RGB_SCREEN_HEIGHT = "RGB H"
    RGB_SCREEN_WIDTH = "RGB W"
    RGB_MINIMAP_HEIGHT = "RGB h"
    RGB_MINIMAP_WIDTH = "RGB w"
    MAX_SELECTED_UNITS = "max_selected_units"
    MAX_CARGO = "max_cargo"
    MAX_UNITS = "max_units"
    ACTION_MASK = "sum(nvec)"


Size = int | type[enum.Enum] | Dim
"""One axis: a number, an enum whose members index it, or a size the settings choose."""


@dataclass(frozen=True)
class Rows:
    """A first axis as long as the message makes it (a panel's units, the echoed actions); the env pads it to
    `size` rows and drops any beyond."""

    size: Size


class Needs(enum.Enum):
    """When an entry is there (else the decoded Observation holds None and the env's dict leaves it out); the
    value is how docs/env.md says it."""

    ALWAYS = ""
    SCREEN_LAYERS = "with feature layers and screen layers chosen"
    MINIMAP_LAYERS = "with feature layers and minimap layers chosen"
    RGB = "with `rgb_screen_size`"
    FEATURE_UNITS = "with `use_feature_units`"
    RAW_UNITS = "with `use_raw_units` (or `actions='raw'`)"
    UNITS = "with either unit table"
    TARGET_MASKS = "with `screen_target_masks`"
    CAMERA_POSITION = "with `use_camera_position`"
    UNIT_COUNTS = "with `use_unit_counts`"


@dataclass(frozen=True)
class Scalars:
    """Integers of the `Observation` message by dotted path, in order: every such entry of the table is read
    in one go into one int32 array, and each is a view of its part."""

    paths: tuple[str, ...]

    @classmethod
    def members(cls, prefix: str, names: Iterable[str]) -> Scalars:
        """The fields `names` of the message at `prefix`."""
        return cls(tuple(f"{prefix}.{name}" for name in names))

    @classmethod
    def table(cls, prefix: str, rows: type[enum.Enum], columns: type[enum.Enum]) -> Scalars:
        """A table of messages: each member of `rows` a message at `prefix`, with the fields `columns`."""
        return cls(
            tuple(f"{prefix}.{row}.{column}" for row in rows.__members__ for column in columns.__members__)
        )


@dataclass(frozen=True)
class Ints:
    """An integer field of the `ResponseObservation` by dotted path: a repeated one as it is, or (`item`) one
    field of each of its messages; a single value as a 1-element array."""

    path: str
    item: str | None = None
    dtype: Any = np.int32


class Computed(enum.Enum):
    """Values worked out by a routine of their own: the decoder's, or the env's from other entries."""

    FEATURE_LAYERS = "the feature layer stacks"
    RGB = "the RGB images"
    UI_PANELS = "the selection panel (the unit shown; the multi-select, production or cargo panel)"
    CONTROL_GROUPS = "the control groups of the UI"
    LAST_ACTIONS = "the function ids of the actions the game echoed"
    UNITS = "the unit tables"
    TARGET_MASKS = "the screen target masks"
    CAMERA = "the camera's position, from raw data"
    UNIT_COUNTS = "the player's units counted by type, from raw data"
    ACTION_MASK = "the action layout's flat mask (the env's action mode)"


@dataclass(frozen=True)
class RowCounts:
    """The env's count of the rows it filled in other entries (0 for one that is not there)."""

    of: tuple[str, ...]


Source = Scalars | Ints | Computed | RowCounts


@dataclass(frozen=True)
class Entry:
    """One entry of the observation.

    shape:    its axes (see `Size`, `Rows`). dtype: the env's (decoded tables are int32, units int64).
    low, high: the Box's bounds in the env (None: the dtype's). fill: the padding value of unfilled rows.
    by_action_mode: the env's action mode fills it (its action layout's ids, or mask).
    attribute: the decoded Observation's attribute holding it, when named otherwise.
    view:     the named-array class of a `Scalars` entry in the decoded Observation (`obs.player.minerals`).
    widens:   int32 instead of `dtype` when the env keeps the game's values (compact_layers=False).
    """

    name: str
    shape: tuple[Size | Rows, ...]
    dtype: Any
    source: Source
    doc: str
    low: int | None = None
    high: int | None = None
    fill: int = 0
    needs: Needs = Needs.ALWAYS
    by_action_mode: bool = False
    attribute: str | None = None
    widens: bool = False
    view: type[np.ndarray] = np.ndarray

    @property
    def padded(self) -> bool:
        """Whether its first axis varies in the decoded Observation and is padded in the env."""
        return isinstance(self.shape[0], Rows)

    @property
    def decoded_as(self) -> str:
        return self.attribute or self.name


_UNIT_PANEL = "`UnitLayer` columns (build_progress in percent)"
_I32 = np.int32

OBSERVATION_LAYOUT: tuple[Entry, ...] = (
    Entry(
        "feature_screen",
        (Dim.SCREEN_LAYERS, Dim.SCREEN_HEIGHT, Dim.SCREEN_WIDTH),
        np.uint8,
        Computed.FEATURE_LAYERS,
        "the chosen screen layers, channel-first",
        low=0,
        needs=Needs.SCREEN_LAYERS,
        widens=True,
    ),
    Entry(
        "feature_minimap",
        (Dim.MINIMAP_LAYERS, Dim.MINIMAP_HEIGHT, Dim.MINIMAP_WIDTH),
        np.uint8,
        Computed.FEATURE_LAYERS,
        "the chosen minimap layers, channel-first",
        low=0,
        needs=Needs.MINIMAP_LAYERS,
        widens=True,
    ),
    Entry(
        "rgb_screen",
        (Dim.RGB_SCREEN_HEIGHT, Dim.RGB_SCREEN_WIDTH, 3),
        np.uint8,
        Computed.RGB,
        "the screen as RGB (black when the game sent none)",
        needs=Needs.RGB,
    ),
    Entry(
        "rgb_minimap",
        (Dim.RGB_MINIMAP_HEIGHT, Dim.RGB_MINIMAP_WIDTH, 3),
        np.uint8,
        Computed.RGB,
        "the minimap as RGB",
        needs=Needs.RGB,
    ),
    Entry(
        "player",
        (Player,),
        _I32,
        Scalars.members("player_common", Player.__members__),
        "`Player`: player_id, minerals, vespene, food used/cap/army/workers, idle workers, army count, warp "
        "gates, larva",
        view=PlayerArray,
    ),
    Entry(
        "game_loop",
        (1,),
        _I32,
        Ints("observation.game_loop", dtype=np.int64),
        "the game loop the observation shows (int64 in the decoded Observation)",
        low=0,
    ),
    Entry(
        "score_cumulative",
        (ScoreCumulative,),
        _I32,
        Scalars(
            (
                "score.score",
                *Scalars.members("score.score_details", list(ScoreCumulative.__members__)[1:]).paths,
            )
        ),
        "`ScoreCumulative`: the score and its parts, as PySC2's",
        view=ScoreCumulativeArray,
    ),
    Entry(
        "score_by_category",
        (ScoreByCategory, ScoreCategories),
        _I32,
        Scalars.table("score.score_details", ScoreByCategory, ScoreCategories),
        "rows `ScoreByCategory`, columns `ScoreCategories`",
        view=ScoreByCategoryArray,
    ),
    Entry(
        "score_by_vital",
        (ScoreByVital, ScoreVitals),
        _I32,
        Scalars.table("score.score_details", ScoreByVital, ScoreVitals),
        "rows `ScoreByVital`, columns `ScoreVitals`",
        view=ScoreByVitalArray,
    ),
    Entry(
        "control_groups",
        (CONTROL_GROUPS, ControlGroup),
        _I32,
        Computed.CONTROL_GROUPS,
        "leader unit type and unit count of each control group",
        low=0,
    ),
    Entry(
        "single_select",
        (Rows(1), UnitLayer),
        _I32,
        Computed.UI_PANELS,
        f"the unit shown alone; {_UNIT_PANEL}",
    ),
    Entry(
        "multi_select",
        (Rows(Dim.MAX_SELECTED_UNITS), UnitLayer),
        _I32,
        Computed.UI_PANELS,
        f"the multi-select panel's units; {_UNIT_PANEL}",
    ),
    Entry(
        "build_queue",
        (Rows(QUEUE_ROWS), UnitLayer),
        _I32,
        Computed.UI_PANELS,
        f"the production panel's queue; {_UNIT_PANEL}",
    ),
    Entry(
        "production_queue",
        (Rows(QUEUE_ROWS), ProductionQueue),
        _I32,
        Computed.UI_PANELS,
        "`ProductionQueue`: ability id and progress (percent) of queued production",
    ),
    Entry(
        "cargo",
        (Rows(Dim.MAX_CARGO), UnitLayer),
        _I32,
        Computed.UI_PANELS,
        f"the cargo panel's passengers; {_UNIT_PANEL}",
    ),
    Entry(
        "cargo_slots_available",
        (1,),
        _I32,
        Scalars(("ui_data.cargo.slots_available",)),
        "free transport slots of the cargo panel's unit",
        low=0,
    ),
    Entry(
        "counts",
        (5,),
        _I32,
        RowCounts(("single_select", "multi_select", "build_queue", "production_queue", "cargo")),
        "",
        low=0,
    ),
    Entry(
        "last_actions",
        (Rows(MAX_REPORTED),),
        _I32,
        Computed.LAST_ACTIONS,
        "function ids of the actions the game echoed (raw function ids with `actions='raw'`)",
        low=-1,
        fill=-1,
        by_action_mode=True,
    ),
    Entry(
        "action_result",
        (Rows(MAX_REPORTED),),
        _I32,
        Ints("action_errors", item="result"),
        "`ActionResult` codes of the actions the game refused",
        low=0,
    ),
    Entry("alerts", (Rows(MAX_REPORTED),), _I32, Ints("observation.alerts"), "`Alert` codes", low=0),
    Entry(
        "upgrades",
        (Rows(MAX_UPGRADES),),
        _I32,
        Ints("observation.raw_data.player.upgrade_ids"),
        "researched upgrade ids",
        low=0,
    ),
    Entry(
        "feature_units",
        (Rows(Dim.MAX_UNITS), FeatureUnit),
        np.int64,
        Computed.UNITS,
        "units on screen, `FeatureUnit` columns (x, y in screen pixels); int64, as the real game's tags pass 2³²",
        needs=Needs.FEATURE_UNITS,
    ),
    Entry(
        "raw_units",
        (Rows(Dim.MAX_UNITS), FeatureUnit),
        np.int64,
        Computed.UNITS,
        "every unit, `FeatureUnit` columns (x, y in raw coordinates)",
        needs=Needs.RAW_UNITS,
    ),
    Entry("unit_counts", (2,), _I32, RowCounts(("feature_units", "raw_units")), "", low=0, needs=Needs.UNITS),
    Entry(
        "unit_type_counts",
        (Rows(MAX_UNIT_TYPES), UnitCount),
        _I32,
        Computed.UNIT_COUNTS,
        "`UnitCount` rows: each unit type the player owns and how many, by type (PySC2's `unit_counts`)",
        low=0,
        needs=Needs.UNIT_COUNTS,
    ),
    Entry(
        "camera_position",
        (2,),
        _I32,
        Computed.CAMERA,
        "the camera's centre in raw coordinates (those of `raw_units`), as PySC2's",
        needs=Needs.CAMERA_POSITION,
    ),
    Entry(
        "action_mask",
        (Dim.ACTION_MASK,),
        np.int8,
        Computed.ACTION_MASK,
        "the flat action mask: every component's allowed values, concatenated (see Masks)",
        low=0,
        high=1,
        by_action_mode=True,
    ),
    Entry(
        "screen_target_masks",
        (TargetClass, Dim.SCREEN_HEIGHT, Dim.SCREEN_WIDTH),
        np.int8,
        Computed.TARGET_MASKS,
        "per `TargetClass`, the screen pixels a function of that class may aim at",
        low=0,
        high=1,
        needs=Needs.TARGET_MASKS,
        attribute="target_masks",
    ),
)
"""Every entry of the env's observation (and of the decoded Observation: the Rows entries, with their rows as the
message holds them), in the order docs/env.md lists them."""

ENTRIES = {entry.name: entry for entry in OBSERVATION_LAYOUT}


def fixed_size(axis: Size | Rows) -> int:
    """The number an axis stands for when no setting decides it (a number, or an enum's members)."""
    if isinstance(axis, int):
        return axis
    if isinstance(axis, type) and issubclass(axis, enum.Enum):
        return len(axis)
    raise ValueError(f"the axis {axis!r} depends on the settings: LayoutSettings.size() says its size")


def markdown_table() -> str:
    """docs/env.md's table of the env's observation, from OBSERVATION_LAYOUT (a test keeps the page in step)."""
    lines = ["| key | shape, dtype | what |", "|---|---|---|"]
    for entry in OBSERVATION_LAYOUT:
        shape = ", ".join(_label(axis) for axis in entry.shape)
        shape = f"({shape},)" if len(entry.shape) == 1 else f"({shape})"
        dtype = np.dtype(entry.dtype).name + (" (int32 with `compact_layers=False`)" if entry.widens else "")
        what = [entry.doc] if entry.doc else []
        if isinstance(entry.source, RowCounts):
            what.insert(0, f"the rows filled in {', '.join(f'`{name}`' for name in entry.source.of)}")
        if entry.padded:
            what.append(f"{'zero' if entry.fill == 0 else str(entry.fill).replace('-', '−')}-padded")
        if entry.needs is not Needs.ALWAYS:
            what.append(entry.needs.value)
        lines.append(f"| `{entry.name}` | {shape} {dtype} | {'; '.join(what)} |")
    return "\n".join(lines) + "\n"


def _label(axis: Size | Rows) -> str:
    if isinstance(axis, Rows):
        return _label(axis.size)
    if isinstance(axis, Dim):
        return axis.value
    if isinstance(axis, int):
        return str(axis)
    return str(len(axis))
