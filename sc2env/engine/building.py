"""Structures: the placement grid, footprints, SCV construction (build, halt, resume, cancel) and refineries."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
from s2clientprotocol import error_pb2

from sc2env.engine.fast import count_nonzero
from sc2env.engine.orders import SUCCESS, Order
from sc2env.engine.unit_states import Phase
from sc2env.gamedata import UNIT_TYPES, UnitType

if TYPE_CHECKING:
    from sc2env.engine.game import Game

_START_LIFE = 0.1  # a new structure starts at 10 % of its hit points (VitalStartFactor)
_CANCEL_REFUND = 0.75
_SITE_MARGIN = 0.5  # how close (edge to edge) a worker walks to a building site
_RESOURCE_ZONE = 3  # cells around resources where town halls may not stand (NearResources)
_NEW_STRUCTURE_FACING = 4.71238898  # radians: 3/2 pi, facing down the map, as the game places structures
# What each build ability makes, and which types meet each tech requirement (a lowered depot is a depot).
BUILT_BY: dict[int, UnitType] = {
    t.build_ability: t for t in UNIT_TYPES.values() if t.structure and t.build_ability and t.build_time
}
TECH_ALIASES = {
    t.unit_id: (t.unit_id, *(a.unit_id for a in UNIT_TYPES.values() if t.unit_id in a.tech_alias))
    for t in UNIT_TYPES.values()
}


def is_resource(t: UnitType) -> bool:
    """Mineral fields and vespene geysers (not the refineries players build on geysers)."""
    return (t.harvest is not None and t.harvest.kind == "minerals") or (
        t.vespene_contents > 0 and t.harvest is None
    )


class Building:
    """Placement and construction of one game's structures."""

    def __init__(self, game: Game):
        self.game = game
        self.world = game.world
        self.buildable = game.terrain.buildable
        self.occupied = np.zeros(self.buildable.shape, np.int16)
        self.geyser_of: dict[int, int] = {}  # refinery tag -> geyser tag
        self._near_resources: np.ndarray | None = None

    # ---- footprints ---------------------------------------------------------------------------------
    @staticmethod
    def snap(t: UnitType, x: float, y: float) -> tuple[float, float]:
        """The centre a footprint snaps to: .5 for odd sizes, whole numbers for even ones."""
        w, h = t.footprint
        return (
            math.floor(x) + 0.5 if w % 2 else float(round(x)),
            math.floor(y) + 0.5 if h % 2 else float(round(y)),
        )

    @staticmethod
    def cells(t: UnitType, cx: float, cy: float) -> tuple[int, int, int, int]:
        w, h = t.footprint
        x0, y0 = round(cx - w / 2), round(cy - h / 2)
        return x0, y0, x0 + w, y0 + h

    def placement_error(self, t: UnitType, cx: float, cy: float, owner: int | None = None) -> int:
        """SUCCESS, or why a structure of type t can't stand with its centre at (cx, cy); `owner`: whose
        structure (other players' units standing there block it; default the player being served)."""
        x0, y0, x1, y1 = self.cells(t, cx, cy)
        rows, cols = self.buildable.shape
        if x0 < 0 or y0 < 0 or x1 > cols or y1 > rows:
            return error_pb2.CantBuildLocationInvalid
        if not self.buildable[y0:y1, x0:x1].all() or self.occupied[y0:y1, x0:x1].any():
            return error_pb2.CantBuildOnThat
        if t.dropoff and self._resource_zone()[y0:y1, x0:x1].any():
            return error_pb2.CantBuildTooCloseToResources
        w = self.world
        owner = self.game.player.player_id if owner is None else owner
        blockers = np.flatnonzero((w.speed > 0) & ~w.hidden & (w.owner != owner))
        if len(blockers):
            lo, hi = np.array([x0, y0]), np.array([x1, y1])
            near = np.clip(w.pos[blockers], lo, hi) - w.pos[blockers]
            if (np.hypot(near[:, 0], near[:, 1]) < w.radius[blockers]).any():
                return error_pb2.CantBuildOnThat  # other players' units stand there
        return SUCCESS

    def _resource_zone(self) -> np.ndarray:
        """Cells within 3 of a mineral field or geyser footprint (corners cut), where town halls can't go."""
        if self._near_resources is None:
            zone = np.zeros(self.buildable.shape, bool)
            w = self.world
            for i in range(w.n):
                t = w.types[i]
                if not is_resource(t):
                    continue
                x0, y0, x1, y1 = self.cells(t, *w.pos[i])
                block = np.ones((y1 - y0 + 2 * _RESOURCE_ZONE, x1 - x0 + 2 * _RESOURCE_ZONE), bool)
                block[[0, 0, -1, -1], [0, -1, 0, -1]] = False
                ys, xs = y0 - _RESOURCE_ZONE, x0 - _RESOURCE_ZONE
                sy, sx = max(ys, 0), max(xs, 0)
                ey, ex = min(ys + block.shape[0], zone.shape[0]), min(xs + block.shape[1], zone.shape[1])
                zone[sy:ey, sx:ex] |= block[sy - ys : ey - ys, sx - xs : ex - xs]
            self._near_resources = zone
        return self._near_resources

    def on_spawn(self, i: int) -> None:
        self._mark(i, 1)

    def on_remove(self, i: int) -> None:
        self._mark(i, -1)
        self.geyser_of.pop(int(self.world.tag[i]), None)

    def _mark(self, i: int, delta: int) -> None:
        t = self.world.types[i]
        if not (t.structure and t.footprint[0]):
            return
        x0, y0, x1, y1 = self.cells(t, *self.world.pos[i])
        rows, cols = self.occupied.shape
        self.occupied[max(y0, 0) : min(y1, rows), max(x0, 0) : min(x1, cols)] += delta
        if is_resource(t):
            self._near_resources = None

    # ---- costs --------------------------------------------------------------------------------------
    def has_tech(self, owner: int, type_id: int) -> bool:
        w = self.world
        kinds = TECH_ALIASES.get(type_id, (type_id,))
        match = w.type_id == kinds[0]
        for kind in kinds[1:]:
            match |= w.type_id == kind
        return bool((match & (w.owner == owner) & (w.build_progress >= 1)).any())

    def can_afford(self, owner: int, ability: int) -> int:
        t = BUILT_BY.get(ability)
        if t is None:
            return error_pb2.Error
        if t.tech_requirement and not self.has_tech(owner, t.tech_requirement):
            return error_pb2.BuildTechRequirementsNotMet
        return self.game.cost_error(owner, t)

    # ---- orders -------------------------------------------------------------------------------------
    def order(self, i: int, ability: int, point, target: int | None) -> Order | int:
        """The build order for row i (a site, a geyser, or an unfinished structure to resume)."""
        w = self.world
        t = BUILT_BY[ability]
        if target is not None:
            j = w.slot(target)
            other = w.types[j]
            if other is t and w.build_progress[j] < 1 and w.owner[j] == w.owner[i]:
                return Order(ability, target_tag=target)  # resume construction
            if t.harvest is not None and other.vespene_contents and not other.harvest:
                if target in self.geyser_of.values():
                    return error_pb2.CantBuildOnThat
                return Order(ability, target_tag=target)
            if t.harvest is not None:
                return error_pb2.CantTargetThatUnit
            point = tuple(w.pos[j])
        if point is None or t.harvest is not None:
            return error_pb2.CantTargetThatUnit
        cx, cy = self.snap(t, *point)
        error = self.placement_error(t, cx, cy)
        return error if error != SUCCESS else Order(ability, point=(cx, cy))

    def start(self, i: int, order: Order) -> bool:
        w = self.world
        if order.target_tag:
            if not w.exists(order.target_tag):
                return False
            w.move_to(i, tag=order.target_tag, reach=_SITE_MARGIN)
        else:
            t = BUILT_BY[order.ability_id]
            reach = float(np.hypot(*(np.asarray(t.footprint) / 2))) + w.radius[i] + _SITE_MARGIN - 1.0
            w.move_to(i, point=order.point, reach=max(reach, 0.5))
        return True

    def arrived(self, i: int) -> None:
        """The worker reached its site: check it again, pay, and start (or resume) the structure."""
        w, g = self.world, self.game
        order = w.orders[i][0]
        t = BUILT_BY[order.ability_id]
        owner = int(w.owner[i])
        if order.target_tag and w.exists(order.target_tag) and w.types[w.slot(order.target_tag)] is t:
            j = w.slot(order.target_tag)
            if w.build_progress[j] < 1 and not self._builder(j):
                self._construct(i, j)
            else:
                g.orders.complete(i)
            return
        if order.target_tag:  # a refinery on a geyser
            if not w.exists(order.target_tag) or order.target_tag in self.geyser_of.values():
                return self._fail(i, order, error_pb2.CantBuildOnThat)
            x, y = w.pos[w.slot(order.target_tag)]
        else:
            if order.point is None:
                raise ValueError(f"a build order without a target or a site: {order}")
            x, y = order.point
            error = self.placement_error(t, x, y, owner)
            if error != SUCCESS:
                return self._fail(i, order, error)
        error = self.can_afford(owner, order.ability_id)
        if error != SUCCESS:
            return self._fail(i, order, error)
        g.pay(owner, t)
        tag = g.spawn_unit(t, owner, float(x), float(y), facing=_NEW_STRUCTURE_FACING)
        j = w.slot(tag)
        if order.target_tag:
            geyser = w.slot(order.target_tag)
            self.geyser_of[tag] = order.target_tag
            w.contents[j] = w.contents[geyser]
        w.build_progress[j] = 0.0
        w.rows_version += 1  # unfinished: it provides no supply or tech (per-row facts change)
        w.health[j] = w.health_max[j] * _START_LIFE
        self._construct(w.slot(int(w.tag[i])), j)

    def _fail(self, i: int, order: Order, error: int) -> None:
        self.game.report_error(int(self.world.owner[i]), order.ability_id, error)
        self.game.orders.complete(i)

    def _construct(self, i: int, j: int) -> None:
        w = self.world
        w.link[i], w.link[j] = w.tag[j], w.tag[i]
        w.phase[i] = Phase.CONSTRUCTING
        w.halt(i)
        w.version += 1

    def _builder(self, j: int) -> int | None:
        """Row of the worker constructing structure j, if one is."""
        w = self.world
        builder = int(w.link[j])
        if builder and w.exists(builder):
            b = w.slot(builder)
            if w.phase[b] == Phase.CONSTRUCTING and w.link[b] == w.tag[j]:
                return b
        return None

    def constructing(self, i: int) -> bool:
        return self.world.phase[i] == Phase.CONSTRUCTING

    def constructing_rows(self, rows: np.ndarray) -> np.ndarray:
        return self.world.phase[rows] == Phase.CONSTRUCTING

    def halt(self, i: int) -> None:
        """The worker stops building (Halt, or another order); the structure waits unfinished."""
        w = self.world
        if w.phase[i] != Phase.CONSTRUCTING:
            return
        structure = int(w.link[i])
        if w.exists(structure):
            w.link[w.slot(structure)] = 0
        w.link[i] = 0
        w.phase[i] = Phase.NONE

    def cancel(self, j: int) -> int:
        """Cancel a structure under construction: 75 % back, the structure goes, its worker stops."""
        w, g = self.world, self.game
        if w.build_progress[j] >= 1:
            return error_pb2.Error
        builder = self._builder(j)
        g.refund(int(w.owner[j]), w.types[j], _CANCEL_REFUND)
        tag = int(w.tag[j])
        builder_tag = int(w.tag[builder]) if builder is not None else 0
        g.remove_unit(tag)
        if builder_tag and w.exists(builder_tag):
            g.orders.complete(w.slot(builder_tag))  # which halts the construction
        return SUCCESS

    def drain_geyser(self, refinery: int, amount: int) -> None:
        """A refinery's gas comes out of its geyser: keep the geyser's count in step."""
        geyser = self.geyser_of.get(refinery)
        if geyser and self.world.exists(geyser):
            j = self.world.slot(geyser)
            self.world.contents[j] = max(0, self.world.contents[j] - amount)

    # ---- time ---------------------------------------------------------------------------------------
    def _active(self) -> list[tuple[int, int]]:
        """(structure row, builder row) of every structure being built right now."""
        w = self.world
        out: list[tuple[int, int]] = []
        if not count_nonzero(w.build_progress < 1):  # everything is built (a count: cheaper than a min)
            return out
        for j in np.flatnonzero((w.build_progress < 1) & (w.link != 0)).tolist():
            b = self._builder(j)
            if b is not None:
                out.append((j, b))
        return out

    def free_loops(self, limit: int) -> int:
        w = self.world
        for j, _ in self._active():
            left = (1.0 - w.build_progress[j]) * w.types[j].build_time
            limit = min(limit, max(1, math.ceil(left - 1e-9)))
        return limit

    def advance(self, elapsed: int) -> None:
        w, g = self.world, self.game
        for j, b in self._active():
            build_time = w.types[j].build_time
            step = min(elapsed / build_time, 1.0 - w.build_progress[j])
            w.build_progress[j] += step
            w.health[j] = min(w.health_max[j], w.health[j] + (1 - _START_LIFE) * w.health_max[j] * step)
            w.version += 1
            if w.build_progress[j] >= 1 - 1e-9:
                w.build_progress[j] = 1.0
                w.link[j] = 0
                g.structure_done(j)
                g.orders.complete(b)  # which halts the construction
