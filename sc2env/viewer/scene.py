"""Scene: everything one frame of the viewer shows, gathered from a decoded observation and its raw message."""

from __future__ import annotations

import dataclasses
import functools

import numpy as np

from sc2env.gamedata import UNIT_TYPES
from sc2env.gamedata.unit_ids import Neutral, Protoss, Terran, Zerg
from sc2env.interface import Observation

_DISPLAY_HIDDEN = 3  # raw.proto DisplayType.Hidden: known to exist, not seen


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
        rows = []
        for u in raw_units:
            if u.display_type == _DISPLAY_HIDDEN:
                continue
            rows.append(
                (
                    u.pos.x,
                    u.pos.y,
                    u.radius,
                    u.unit_type,
                    u.alliance,
                    u.health / u.health_max if u.health_max > 0 else np.nan,
                    u.shield / u.shield_max if u.shield_max > 0 else np.nan,
                    u.is_selected,
                    u.build_progress,
                    u.display_type == 2,
                )
            )
        rows.sort(key=lambda r: (r[4] != 3, -r[2]))  # neutral first, then the biggest under the smallest
        return cls.from_columns(rows)


@dataclasses.dataclass(frozen=True)
class Scene:
    """One frame's facts. `observation` gives the feature layers, masks, player and score arrays."""

    observation: Observation
    units: Units
    camera: tuple[float, float]
    """World (x, y) at the centre of the screen."""
    map_name: str = ""
    ended: bool = False
    raw_functions: tuple[int, ...] | None = None
    """Under raw actions: the raw function ids some unit can use (the functions panel lists these)."""

    @property
    def game_loop(self) -> int:
        return int(self.observation.game_loop[0])

    @property
    def score(self) -> int:
        return int(self.observation.score_cumulative[0])

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
        """The scene of an observation; `response` (the raw `ResponseObservation`) supplies the units and the
        exact camera when the game sends raw data."""
        units = Units.empty()
        ended = False
        if response is not None:
            units = Units.from_raw(response.observation.raw_data.units)
            ended = bool(response.player_result)
        camera = default_camera
        if observation.camera_world is not None:
            camera = (float(observation.camera_world[0]), float(observation.camera_world[1]))
        return cls(observation, units, camera, map_name, ended, raw_functions)
