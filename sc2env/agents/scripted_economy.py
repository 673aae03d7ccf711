"""Scripted economy for CollectMineralsAndGas and BuildMarines: mine, train SCVs, build depots, gas, Marines."""

from __future__ import annotations

import dataclasses
from collections import deque

import numpy as np

from sc2env.agents.base import ScriptedAgent
from sc2env.agents.screen_reading import (
    FEATURE_UNITS_ENV,
    Alliance,
    ScreenScale,
    UnitId,
    building_site,
    nearest,
    screen_point,
    screen_size,
    unit_pixel,
    units,
    xy,
)
from sc2env.gamedata import UNIT_TYPES
from sc2env.interface import FUNCTIONS, FunctionCall, Observation
from sc2env.interface.function_table import RESOURCE_UNIT_TYPES
from sc2env.interface.named_array import FeatureUnitTable

_F = FUNCTIONS
_RESOURCE_TYPES = sorted(RESOURCE_UNIT_TYPES)
_HOLDING = {
    kind: sorted(t.unit_id for t in UNIT_TYPES.values() if getattr(t, f"{kind}_contents") > 0)
    for kind in ("mineral", "vespene")
}
"""The unit types whose game data says they hold minerals, or vespene."""
_BUILD_TIMEOUT_STEPS = 40
"""Steps an SCV gets to start a building before the order is forgotten."""
_PLACEMENT_ERRORS = {41, 42, 43, 44, 47}
"""ActionResult codes that mean "can't build there": CantFindPlacementLocation ... CantBuildTooCloseToResources."""
_BUILD_ABILITIES = sorted({f.ability_id for f in FUNCTIONS if f.name.startswith("Build_")})
"""An SCV whose first order is one of these is on its way to build or building: it is not picked for more."""
_STALL_STEPS = 12
"""Steps an unfinished structure may go without progress before an SCV is sent to resume it (a Barracks gains
1 % every 10 game loops, so 96 loops without a change means nobody is building it)."""
# Distances in world units (the scripts were tuned at 64 pixels across 24 units: 2.67 pixels per unit).
_CLEAR = 0.5625
"""An SCV with no unit this close can be clicked without picking up another."""
_FAILED_SITE = 1.125
"""Radius kept clear around a site the game refused."""
_SAME_SPOT = 0.75
"""A refinery this close to a geyser stands on it; a building this close to its site is the one ordered."""


def _cost(kind: int) -> int:
    """Minerals a unit or building of type `kind` costs."""
    return UNIT_TYPES[kind].mineral_cost


@dataclasses.dataclass(frozen=True)
class EconomyPlan:
    """What the economy script aims for."""

    workers: int = 20
    refineries: int = 0
    workers_per_refinery: int = 3
    barracks: int = 0
    supply_margin: int = 3
    """Build a depot when fewer than this many supply (plus two per Barracks) are free."""


class Economy(ScreenScale, ScriptedAgent):
    """An economy driven by a small priority list, one function call per step.

    Each step either continues the current plan (a short sequence of calls, e.g. select an SCV, then order a
    building) or makes a new one: idle SCVs back to the minerals, a supply depot when supply runs short, more
    SCVs, refineries and their workers, Barracks, Marines. A plan whose next call is not available is dropped.
    """

    env_kwargs = FEATURE_UNITS_ENV
    plan = EconomyPlan()

    def reset(self) -> None:
        self._queue: deque[FunctionCall] = deque()
        self._sent: dict[tuple[int, int], int] = {}  # resource position -> workers we sent there
        self._building: tuple[int, tuple[int, int], int] | None = None  # (unit type, site, step ordered)
        self._failed: list[tuple[float, float, float]] = []
        self._step = 0
        self._rally_set = False
        self._progress: dict[
            tuple[int, int], tuple[int, int]
        ] = {}  # site -> (build progress, step it changed)

    # --- the policy ------------------------------------------------------------------------------------

    def step(self, obs: Observation) -> FunctionCall:
        self._step += 1
        self._check_building(obs)
        while self._queue:
            call = self._queue.popleft()
            if call.function in obs.available_actions:
                return call
            self._queue.clear()
        for make_plan in (
            self._idle_workers,
            self._resume,
            self._supply,
            self._workers,
            self._refinery,
            self._gas_workers,
            self._barracks,
            self._marines,
        ):
            calls = make_plan(obs)
            if calls:
                self._queue.extend(calls[1:])
                return calls[0]
        return _F.no_op()

    def _idle_workers(self, obs: Observation) -> list[FunctionCall]:
        if obs.player.idle_worker_count == 0 or _F.select_idle_worker.id not in obs.available_actions:
            return []
        mineral = self._least_served(obs, self._minerals(obs))
        if mineral is None:
            return []
        return [_F.select_idle_worker("select"), _F.Harvest_Gather_screen("now", mineral)]

    def _resume(self, obs: Observation) -> list[FunctionCall]:
        """An SCV to an unfinished structure whose builder left it (a Smart click resumes construction)."""
        mine = units(obs, Alliance.SELF)
        unfinished = mine[mine.build_progress < 100]
        progress, stalled = {}, None
        for row, point in zip(unfinished, xy(unfinished)):
            key = screen_point(point, screen_size(obs))
            before, since = self._progress.get(key, (-1, self._step))
            since = since if row.build_progress == before else self._step
            if self._step - since >= _STALL_STEPS and stalled is None:
                stalled, since = (point, int(row.unit_type)), self._step  # try again only after another wait
            progress[key] = (int(row.build_progress), since)
        self._progress = progress
        if stalled is None:
            return []
        return self._order_scv(obs, _F.Smart_screen("now", unit_pixel(obs, *stalled)))

    def _supply(self, obs: Observation) -> list[FunctionCall]:
        player = obs.player
        free = player.food_cap - player.food_used
        wanted = self.plan.supply_margin + 2 * len(self._own(obs, UnitId.BARRACKS))
        if (
            player.food_cap >= 200
            or free >= wanted
            or player.minerals < _cost(UnitId.SUPPLY_DEPOT)
            or self._building is not None
        ):
            return []
        depots = self._own(obs, UnitId.SUPPLY_DEPOT)
        at_once = 1 if len(self._own(obs, UnitId.BARRACKS)) < 3 else min(4, 1 + player.minerals // 200)
        if (depots.build_progress < 100).sum() >= at_once:
            return []
        return self._build(obs, UnitId.SUPPLY_DEPOT, _F.Build_SupplyDepot_screen, size=2.0)

    def _workers(self, obs: Observation) -> list[FunctionCall]:
        player = obs.player
        if (
            player.food_workers >= self.plan.workers
            or self._spendable(obs) < _cost(UnitId.SCV)
            or player.food_used >= player.food_cap
        ):
            return []
        centres = self._own(obs, UnitId.COMMAND_CENTER)
        centres = centres[(centres.build_progress >= 100) & (centres.order_length < 2)]
        if len(centres) == 0:
            return []
        calls = (
            []
            if self._selected(obs, UnitId.COMMAND_CENTER)
            else [self._click(obs, xy(centres)[0], UnitId.COMMAND_CENTER)]
        )
        if not self._rally_set:
            mineral = self._least_served(obs, self._minerals(obs), count=False)
            if mineral is not None:
                calls.append(_F.Rally_Workers_screen("now", mineral))
                self._rally_set = True
        return calls + [_F.Train_SCV_quick("now")]

    def _refinery(self, obs: Observation) -> list[FunctionCall]:
        refineries = len(self._own(obs, UnitId.REFINERY))
        if (
            refineries >= self.plan.refineries
            or obs.player.minerals < _cost(UnitId.REFINERY)
            or self._building is not None
        ):
            return []
        if obs.player.food_workers < 14:
            return []
        geysers = self._geysers(obs)
        taken = xy(self._own(obs, UnitId.REFINERY))
        if len(taken):  # a geyser under a refinery is still reported
            near = _SAME_SPOT * self._ppu(obs)
            geysers = geysers[[np.min(np.linalg.norm(taken - g, axis=1)) > near for g in geysers]]
        centre = self._own(obs, UnitId.COMMAND_CENTER)
        if len(geysers) == 0 or len(centre) == 0:
            return []
        site = unit_pixel(obs, geysers[nearest(geysers, xy(centre)[0])], _HOLDING["vespene"])
        return self._order_scv(obs, _F.Build_Refinery_screen("now", site), (UnitId.REFINERY, site))

    def _gas_workers(self, obs: Observation) -> list[FunctionCall]:
        done = self._own(obs, UnitId.REFINERY)
        done = done[done.build_progress >= 100]
        for refinery in xy(done):
            key = screen_point(refinery, screen_size(obs))
            if self._sent.get(key, 0) < self.plan.workers_per_refinery:
                self._sent[key] = self._sent.get(key, 0) + 1
                target = unit_pixel(obs, refinery, UnitId.REFINERY)
                return self._order_scv(obs, _F.Harvest_Gather_screen("now", target))
        return []

    def _barracks(self, obs: Observation) -> list[FunctionCall]:
        player = obs.player
        if len(self._own(obs, UnitId.BARRACKS)) >= self.plan.barracks or player.minerals < _cost(
            UnitId.BARRACKS
        ):
            return []
        depots = self._own(obs, UnitId.SUPPLY_DEPOT)
        if self._building is not None or not (depots.build_progress >= 100).any():
            return []
        return self._build(obs, UnitId.BARRACKS, _F.Build_Barracks_screen, size=3.0)

    def _marines(self, obs: Observation) -> list[FunctionCall]:
        player = obs.player
        barracks = self._own(obs, UnitId.BARRACKS)
        barracks = barracks[(barracks.build_progress >= 100) & (barracks.order_length < 2)]
        if (
            len(barracks) == 0
            or self._spendable(obs) < _cost(UnitId.MARINE)
            or player.food_used >= player.food_cap
        ):
            return []
        idlest = int(np.argmin(barracks.order_length))
        return [self._click(obs, xy(barracks)[idlest], UnitId.BARRACKS), _F.Train_Marine_quick("now")]

    # --- helpers ---------------------------------------------------------------------------------------

    def _build(self, obs: Observation, kind: int, function, size: float) -> list[FunctionCall]:
        centre = self._own(obs, UnitId.COMMAND_CENTER)
        minerals = self._minerals(obs)
        if len(centre) == 0:
            return []
        ppu = self._ppu(obs)
        cc = xy(centre)[0]
        away = cc - (minerals.mean(axis=0) if len(minerals) else cc + (1, 0))
        prefer = cc + away / max(np.linalg.norm(away), 1e-6) * 6 * ppu
        keep_clear = [(cc[0], cc[1], 4.0 * ppu)]
        keep_clear += [(x, y, 2.5 * ppu) for x, y in minerals]
        keep_clear += [(x, y, 3.0 * ppu) for x, y in self._geysers(obs)]
        keep_clear += [((cc[0] + x) / 2, (cc[1] + y) / 2, 2.0 * ppu) for x, y in minerals]
        site = building_site(obs, size * ppu, prefer, margin_px=ppu * 0.5, exclude=keep_clear + self._failed)
        if site is None:
            return []
        return self._order_scv(obs, function("now", site), (kind, site))

    def _order_scv(
        self, obs: Observation, order: FunctionCall, building: tuple[int, tuple[int, int]] | None = None
    ) -> list[FunctionCall]:
        """Select one SCV and give it `order` (a builder then goes back to mining).

        The SCV is the one farthest from the order's target among those standing clear of other units (so the
        click can't pick something else): SCVs already sent there are on their way and are not taken again,
        and builders are left to build.
        """
        rows = self._own(obs, UnitId.SCV)
        free = ~np.isin(rows.order_id_0, _BUILD_ABILITIES)
        scvs = xy(rows[free] if free.any() else rows)
        if len(scvs) == 0:
            return []
        everyone = xy(units(obs))
        gaps = np.array(
            [np.sort(np.linalg.norm(everyone - p, axis=1))[1] if len(everyone) > 1 else np.inf for p in scvs]
        )
        target = np.asarray(order.arguments[-1], np.float64)
        clear = gaps >= _CLEAR * self._ppu(obs)
        choice = np.where(clear, np.linalg.norm(scvs - target, axis=1), -np.inf) if clear.any() else gaps
        scv = scvs[int(np.argmax(choice))]
        calls = [self._click(obs, scv, UnitId.SCV), order]
        if building is not None:
            self._building = (building[0], building[1], self._step)
            mineral = self._least_served(obs, self._minerals(obs), count=False)
            if mineral is not None:
                calls.append(_F.Harvest_Gather_screen("queued", mineral))
        return calls

    def _check_building(self, obs: Observation) -> None:
        """Forget an ordered building once it stands or the order is given up; a site the game refused is
        not tried again."""
        if self._building is None:
            return
        kind, site, ordered = self._building
        placed = self._own(obs, kind)
        if len(placed) and np.min(np.linalg.norm(xy(placed) - site, axis=1)) < 2 * _SAME_SPOT * self._ppu(
            obs
        ):
            self._building = None
        elif _PLACEMENT_ERRORS & set(obs.action_result.tolist()):
            self._failed.append((site[0], site[1], _FAILED_SITE * self._ppu(obs)))
            self._building = None
        elif self._step - ordered > _BUILD_TIMEOUT_STEPS:
            self._building = None

    def _spendable(self, obs: Observation) -> int:
        """Minerals left after the cost of a building an SCV is on its way to place."""
        reserved = _cost(self._building[0]) if self._building is not None else 0
        return int(obs.player.minerals) - reserved

    def _least_served(
        self, obs: Observation, resources: np.ndarray, count: bool = True
    ) -> tuple[int, int] | None:
        """The resource we sent fewest workers to (nearest the Command Center among equals)."""
        if len(resources) == 0:
            return None
        centre = self._own(obs, UnitId.COMMAND_CENTER)
        home = xy(centre)[0] if len(centre) else resources.mean(axis=0)
        keys = [screen_point(p, screen_size(obs)) for p in resources]
        load = np.array([self._sent.get(k, 0) for k in keys], np.float64)
        distance = np.linalg.norm(resources - home, axis=1)
        best = int(np.argmin(load * 1000 + distance))
        if count:
            self._sent[keys[best]] = self._sent.get(keys[best], 0) + 1
        return unit_pixel(obs, resources[best], _RESOURCE_TYPES)

    @staticmethod
    def _own(obs: Observation, kind: int) -> FeatureUnitTable:
        return units(obs, Alliance.SELF, kind)

    @staticmethod
    def _selected(obs: Observation, kind: int) -> bool:
        return len(obs.single_select) == 1 and obs.single_select.unit_type[0] == kind

    @staticmethod
    def _resources(obs: Observation, kind: str) -> np.ndarray:
        """Screen positions of the resource fields holding `kind` ("mineral" or "vespene"): by their contents,
        or by their type's game data (a field seen only in its last snapshot reports no contents)."""
        neutral = units(obs, Alliance.NEUTRAL)
        neutral = neutral[np.isin(neutral.unit_type, _RESOURCE_TYPES)]
        holds = (getattr(neutral, f"{kind}_contents") > 0) | np.isin(neutral.unit_type, _HOLDING[kind])
        return xy(neutral[holds])

    def _minerals(self, obs: Observation) -> np.ndarray:
        return self._resources(obs, "mineral")

    def _geysers(self, obs: Observation) -> np.ndarray:
        return self._resources(obs, "vespene")

    def _click(self, obs: Observation, point, kind: int) -> FunctionCall:
        return _F.select_point("select", unit_pixel(obs, point, kind))


class CollectMineralsAndGas(Economy):
    """Mine with every SCV, train SCVs to 30 (the far mineral line too), take the two nearest geysers with three
    SCVs each."""

    plan = EconomyPlan(workers=30, refineries=2)


class BuildMarines(Economy):
    """Mine, train SCVs to 20, build supply depots ahead of need and eight Barracks, and train Marines."""

    plan = EconomyPlan(workers=20, barracks=8)
