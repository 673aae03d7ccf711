"""The units of one game on a continuous 2D map: spawn, remove, morph and teleport them, and give them goals."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, overload

import numpy as np

from sc2env.engine import spots
from sc2env.engine.movement import Motion
from sc2env.gamedata import UnitType

if TYPE_CHECKING:
    from sc2env.engine.walls import Walls

Point = tuple[float, float]


@dataclass(frozen=True)
class Bounds:
    """An axis-aligned rectangle (x0, y0)-(x1, y1) in world units."""

    x0: float
    y0: float
    x1: float
    y1: float

    @overload
    def clamp(self, x: float, y: float, margin: float = 0.0) -> tuple[float, float]: ...
    @overload
    def clamp(self, x: float, y: float, margin: np.ndarray) -> tuple[np.ndarray, np.ndarray]: ...
    def clamp(self, x: float, y: float, margin: float | np.ndarray = 0.0) -> tuple:
        """(x, y) moved inside the bounds shrunk by `margin`; an array of margins gives arrays (one point per
        margin), a number gives numbers."""
        if isinstance(margin, np.ndarray):
            return (
                np.minimum(np.maximum(x, self.x0 + margin), self.x1 - margin),
                np.minimum(np.maximum(y, self.y0 + margin), self.y1 - margin),
            )
        return (
            min(max(x, self.x0 + margin), self.x1 - margin),
            min(max(y, self.y0 + margin), self.y1 - margin),
        )


class World(Motion):
    """The units of one game: they appear, go, change type, are moved by scripts, and are sent to goals.

    Its bases each do one job: WorldState keeps the units (columns, rows, tags), Collision keeps them apart,
    Motion moves them towards their goals.
    """

    def __init__(self, pathable: Bounds, type_report: np.ndarray | None = None, walls: Walls | None = None):
        super().__init__(pathable, type_report, walls)
        self._spots = spots.Spots()  # what placing units keeps between calls

    def spawn(self, unit_type: UnitType, owner: int, x: float, y: float, facing: float = 0.0) -> int:
        """Create a unit with full vitals at (x, y); returns its tag (SC2-style: index << 18 | recycle)."""
        tag = (self._next_index << 18) | 1
        self._next_index += 1
        i = self._add_row(tag, unit_type)
        self.type_id[i], self.owner[i] = unit_type.unit_id, owner
        self.pos[i] = (x, y)
        self.facing[i], self.radius[i] = facing, unit_type.radius
        self.health[i] = self.health_max[i] = unit_type.health
        self.shields[i] = self.shields_max[i] = unit_type.shields
        self.energy_max[i] = unit_type.energy
        self.energy[i] = unit_type.energy_start
        self.energy_regen[i] = unit_type.energy_regen_per_loop
        self.regen[i] = unit_type.regen_per_loop
        self.shield_regen[i] = unit_type.shield_regen_per_loop
        self.speed[i] = unit_type.speed_per_loop
        self.accel[i] = unit_type.acceleration_per_loop or np.inf
        mobile = unit_type.speed > 0
        self.collides[i] = unit_type.collides and mobile
        self.grounded[i] = mobile and not (unit_type.flying or unit_type.cliff_walker)
        self.obstacle[i] = unit_type.collides and unit_type.structure
        self.half[i] = (
            np.asarray(unit_type.footprint, float) / 2 if unit_type.footprint[0] else unit_type.radius
        )
        self.build_progress[i] = 1.0
        self.steer_stamp[i] = -1
        self.obstacle_version += bool(self.obstacle[i])
        self.obstacle_count += bool(self.obstacle[i])
        self.accelerating_count += bool(np.isfinite(self.accel[i]))
        self.static_version += not mobile
        self.contents[i] = unit_type.mineral_contents or unit_type.vespene_contents
        return tag

    def remove(self, tag: int) -> None:
        """Delete a unit; later rows shift up by one."""
        i = self._slot[tag]
        self.obstacle_version += bool(self.obstacle[i])
        self.obstacle_count -= bool(self.obstacle[i])
        self.accelerating_count -= bool(np.isfinite(self.accel[i]))
        self.static_version += bool(self.speed[i] <= 0)
        self._delete_row(tag)

    def set_type(self, tag: int, unit_type: UnitType) -> None:
        """Morph a unit into another type (a lowered depot), keeping its tag, vitals and position."""
        i = self._slot[tag]
        self.types[i] = unit_type
        self.type_id[i] = unit_type.unit_id
        self.grounded[i] = unit_type.speed > 0 and not (unit_type.flying or unit_type.cliff_walker)
        self.obstacle_count -= bool(self.obstacle[i])
        self.obstacle[i] = unit_type.collides and unit_type.structure
        self.obstacle_count += bool(self.obstacle[i])
        self.obstacle_version += 1
        self.rows_version += 1
        self.version += 1

    def teleport(self, tag: int, x: float, y: float) -> None:
        i = self._slot[tag]
        self.pos[i] = (x, y)
        self.static_version += bool(self.speed[i] <= 0)
        self.version += 1

    # ---- goals --------------------------------------------------------------------------------------
    def move_to(self, i: int, point: Point | None = None, tag: int = 0, reach: float = 0.0) -> None:
        """Start a movement leg of row i: to a point (until within `reach` of it, centre to centre; clamped to
        where the unit fits) or to the unit `tag` (until within `reach` of it, edge to edge)."""
        if self.speed[i] <= 0:
            return
        if point is not None:
            self.goal[i] = self.pathable.clamp(point[0], point[1], margin=self.radius[i])
        self._start_leg(i, tag, reach)

    def move_rows_to(self, rows: np.ndarray, point: Point) -> list[Point]:
        """`move_to` a point for many mobile rows at once; returns each one's goal (the point clamped to where
        that unit fits)."""
        x, y = self.pathable.clamp(point[0], point[1], margin=self.radius[rows])
        self.goal[rows, 0], self.goal[rows, 1] = x, y
        self._start_leg(rows, 0, 0.0)
        return list(zip(x.tolist(), y.tolist()))

    def _start_leg(self, i: int | np.ndarray, tag: int, reach: float) -> None:
        self.goal_tag[i] = tag
        self.reach[i] = reach
        self.moving[i] = True
        self.steer_stamp[i] = -1
        self.version += 1

    def halt(self, i: int) -> None:
        self.moving[i] = False
        self.goal_tag[i] = 0
        self.velocity[i] = 0.0

    def free_spot(self, x: float, y: float, radius: float) -> tuple[float, float]:
        """The nearest point to (x, y) where a ground unit of `radius` fits (see `spots.free_spot`)."""
        return self._spots.free_spot(self, x, y, radius)
