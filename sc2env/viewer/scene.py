"""Scene: everything one frame of the viewer shows, gathered from a decoded observation and its raw message."""

from __future__ import annotations

import dataclasses
import enum
import functools

import numpy as np

from sc2env.gamedata import UNIT_TYPES
from sc2env.gamedata.unit_ids import Neutral, Protoss, Terran, Zerg
from sc2env.interface import FUNCTIONS, Observation

_DISPLAY_HIDDEN = 3  # raw.proto DisplayType.Hidden: known to exist, not seen
_SNAPSHOT = 2
_ENEMY = 4  # raw.proto Alliance.Enemy


@functools.cache
def unit_name(unit_type: int) -> str:
    """A unit type's name: the game data's, else the real game's id tables', else "type <id>"."""
    info = UNIT_TYPES.get(unit_type)
    if info is not None:
        return info.name
    for race in (Terran, Protoss, Zerg, Neutral):
        try:
            return race(unit_type).name
        except ValueError:
            pass
    return f"type {unit_type}"


@functools.cache
def abbreviation(unit_type: int) -> str:
    """The short label drawn on a unit: its name's capitals (SCV, CC, M), or its first two letters."""
    name = unit_name(unit_type)
    if name.startswith("type "):
        return ""
    capitals = "".join(c for c in name if c.isupper())
    return capitals if len(capitals) <= 3 else name[:2]


class OrderKind(enum.Enum):
    """What an order or a command does, as the viewer colours its lines and markers."""

    MOVE = "move"
    ATTACK = "attack"
    HARVEST = "harvest"
    BUILD = "build"
    RALLY = "rally"
    OTHER = "other"
    SELECT = "select"
    """A selection click or box (markers only)."""


_KIND_OF_FUNCTION = {
    "Move": OrderKind.MOVE,
    "Patrol": OrderKind.MOVE,
    "Smart": OrderKind.MOVE,
    "Attack": OrderKind.ATTACK,
    "Harvest": OrderKind.HARVEST,
    "Build": OrderKind.BUILD,
    "Rally": OrderKind.RALLY,
}
"""By the first word of the function names an ability has (Attack_Attack_screen: Attack)."""


@functools.cache
def _kinds() -> dict[int, OrderKind]:
    kinds: dict[int, OrderKind] = {}
    for function in FUNCTIONS:
        if function.ability_id:
            kind = _KIND_OF_FUNCTION.get(function.name.split("_")[0], OrderKind.OTHER)
            kinds.setdefault(function.ability_id, kind)
    return kinds


def order_kind(ability_id: int) -> OrderKind:
    """The kind of a specific or general ability (OTHER for ones no function names)."""
    return _kinds().get(ability_id, OrderKind.OTHER)


@dataclasses.dataclass(frozen=True)
class Units:
    """Unit columns (world coordinates, floats) for drawing; one entry per unit, drawing order."""

    x: np.ndarray
    y: np.ndarray
    radius: np.ndarray
    unit_type: np.ndarray
    alliance: np.ndarray
    health: np.ndarray
    """Health as a fraction of its maximum; NaN for units without health (resources, items)."""
    shield: np.ndarray
    """Shield fraction; NaN without shields."""
    selected: np.ndarray
    build_progress: np.ndarray
    snapshot: np.ndarray
    """Remembered under the fog of war rather than seen now."""

    def __len__(self) -> int:
        return len(self.x)

    @classmethod
    def empty(cls) -> Units:
        return cls.from_columns([])

    @classmethod
    def from_columns(cls, rows: list[tuple]) -> Units:
        kinds = (float, float, float, int, int, float, float, bool, float, bool)
        columns: list[tuple] = list(zip(*rows)) if rows else [()] * len(kinds)
        values: list[np.ndarray] = [np.array(c, dtype=k) for c, k in zip(columns, kinds)]
        return cls(*values)

    @classmethod
    def from_raw(cls, raw_units) -> Units:
        """From `raw_data.units`; hidden units are left out, big and neutral ones drawn first."""
        rows = [_row(u) for u in raw_units if u.display_type != _DISPLAY_HIDDEN]
        rows.sort(key=lambda r: (r[4] != 3, -r[2]))  # neutral first, then the biggest under the smallest
        return cls.from_columns(rows)


def _row(u) -> tuple:
    return (
        u.pos.x,
        u.pos.y,
        u.radius,
        u.unit_type,
        u.alliance,
        u.health / u.health_max if u.health_max > 0 else np.nan,
        u.shield / u.shield_max if u.shield_max > 0 else np.nan,
        u.is_selected,
        u.build_progress,
        u.display_type == _SNAPSHOT,
    )


@dataclasses.dataclass(frozen=True)
class OrderPath:
    """A selected unit's orders (or a structure's rally point): legs from `start` through each target."""

    start: tuple[float, float]
    legs: tuple[tuple[float, float, OrderKind], ...]
    """World (x, y) of each target in order, and what the order does there."""


@dataclasses.dataclass(frozen=True)
class Click:
    """A command or selection of the last step, where it pointed: the game's echo of the actions taken."""

    kind: OrderKind
    space: str
    """"world" (raw commands: world units), "screen" or "minimap" (feature-layer pixels)."""
    point: tuple[float, float]
    corner: tuple[float, float] | None = None
    """The opposite corner of a selection box."""


@dataclasses.dataclass(frozen=True)
class Vitals:
    """Maximum health, shields and energy of a unit type (as the game reports them: upgrades included)."""

    health: float
    shields: float
    energy: float

    @classmethod
    def of_type(cls, unit_type: int) -> Vitals:
        """From the game data (0 for types it does not know)."""
        info = UNIT_TYPES.get(unit_type)
        return cls(info.health, info.shields, info.energy) if info else cls(0.0, 0.0, 0.0)


@dataclasses.dataclass(frozen=True)
class Scene:
    """One frame's facts. `observation` gives the feature layers, masks, player, selection and score arrays."""

    observation: Observation
    units: Units
    camera: tuple[float, float]
    """World (x, y) at the centre of the screen."""
    map_name: str = ""
    ended: bool = False
    raw_functions: tuple[int, ...] | None = None
    """Under raw actions: the raw function ids some unit can use (the functions panel lists these)."""
    paths: tuple[OrderPath, ...] = ()
    """The orders of the selected own units and the rally points of selected structures."""
    clicks: tuple[Click, ...] = ()
    vitals: dict[int, Vitals] = dataclasses.field(default_factory=dict)
    """Per unit type on the map, the largest maxima its units have (for the selection panel's bars)."""

    @property
    def game_loop(self) -> int:
        return int(self.observation.game_loop[0])

    @property
    def score(self) -> int:
        return int(self.observation.score_cumulative[0])

    def vitals_of(self, unit_type: int) -> Vitals:
        """Maximum health, shields and energy of a unit type: as its units on the map have them, else the
        game data's."""
        return self.vitals.get(unit_type) or Vitals.of_type(unit_type)

    @classmethod
    def from_observation(
        cls,
        observation: Observation,
        response=None,
        *,
        map_name: str = "",
        default_camera: tuple[float, float] = (0.0, 0.0),
        raw_functions: tuple[int, ...] | None = None,
    ) -> Scene:
        """The scene of an observation; `response` (the raw `ResponseObservation`) supplies the units, their
        orders, the last step's clicks and the exact camera when the game sends raw data."""
        units = Units.empty()
        paths: tuple[OrderPath, ...] = ()
        clicks: tuple[Click, ...] = ()
        vitals: dict[int, Vitals] = {}
        ended = False
        if response is not None:
            raw_units = response.observation.raw_data.units
            units = Units.from_raw(raw_units)
            paths = _paths(raw_units)
            clicks = tuple(c for action in response.actions if (c := _click(action)) is not None)
            vitals = _vitals(raw_units)
            ended = bool(response.player_result)
        camera = default_camera
        if observation.camera_world is not None:
            camera = (float(observation.camera_world[0]), float(observation.camera_world[1]))
        return cls(observation, units, camera, map_name, ended, raw_functions, paths, clicks, vitals)


def _paths(raw_units) -> tuple[OrderPath, ...]:
    selected = [u for u in raw_units if u.is_selected and u.alliance == 1 and (u.orders or u.rally_targets)]
    if not selected:
        return ()
    where = {u.tag: (u.pos.x, u.pos.y, u.alliance) for u in raw_units}
    paths = []
    for u in selected:
        legs = []
        for order in u.orders:
            kind = order_kind(order.ability_id)
            if order.HasField("target_world_space_pos"):
                legs.append((order.target_world_space_pos.x, order.target_world_space_pos.y, kind))
            elif order.target_unit_tag in where:
                x, y, alliance = where[order.target_unit_tag]
                # A smart click on an enemy attacks it; on a mineral field, gathers (told by the ability).
                legs.append(
                    (x, y, OrderKind.ATTACK if kind is OrderKind.MOVE and alliance == _ENEMY else kind)
                )
            else:
                break  # a target out of sight: the path is known only up to here
        if legs:
            paths.append(OrderPath((u.pos.x, u.pos.y), tuple(legs)))
        for rally in u.rally_targets:
            if rally.HasField("point"):
                x, y = rally.point.x, rally.point.y
            elif rally.tag in where:
                x, y, _ = where[rally.tag]
            else:
                continue
            paths.append(OrderPath((u.pos.x, u.pos.y), ((x, y, OrderKind.RALLY),)))
    return tuple(paths)


def _click(action) -> Click | None:
    """Where one echoed action pointed: its raw form's world point when it has one (exact, and camera-free),
    else its feature-layer form's screen or minimap pixel; None for actions without a point."""
    if action.HasField("action_raw") and action.action_raw.HasField("unit_command"):
        command = action.action_raw.unit_command
        if command.HasField("target_world_space_pos"):
            point = command.target_world_space_pos
            return Click(order_kind(command.ability_id), "world", (point.x, point.y))
    if action.HasField("action_feature_layer"):
        layer = action.action_feature_layer
        if layer.HasField("unit_command"):
            command = layer.unit_command
            kind = order_kind(command.ability_id)
            if command.HasField("target_screen_coord"):
                return Click(kind, "screen", _centre(command.target_screen_coord))
            if command.HasField("target_minimap_coord"):
                return Click(kind, "minimap", _centre(command.target_minimap_coord))
        if layer.HasField("unit_selection_point"):
            return Click(
                OrderKind.SELECT, "screen", _centre(layer.unit_selection_point.selection_screen_coord)
            )
        if layer.HasField("unit_selection_rect") and layer.unit_selection_rect.selection_screen_coord:
            box = layer.unit_selection_rect.selection_screen_coord[0]
            return Click(OrderKind.SELECT, "screen", _centre(box.p0), _centre(box.p1))
    return None


def _centre(point) -> tuple[float, float]:
    return point.x + 0.5, point.y + 0.5


def _vitals(raw_units) -> dict[int, Vitals]:
    out: dict[int, Vitals] = {}
    for u in raw_units:
        seen = out.get(u.unit_type)
        if seen is None or u.health_max > seen.health:
            out[u.unit_type] = Vitals(u.health_max, u.shield_max, u.energy_max)
    return out
