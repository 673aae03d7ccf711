"""Scripted agents for the movement mini-games: MoveToBeacon and CollectMineralShards."""

from __future__ import annotations

import numpy as np

from sc2env.agents.base import ScriptedAgent
from sc2env.agents.screen_reading import (
    FEATURE_UNITS_ENV,
    Alliance,
    ScreenScale,
    UnitId,
    centre,
    nearest,
    screen,
    screen_point,
    screen_size,
    units,
    xy,
)
from sc2env.interface import FUNCTIONS, FunctionCall, Observation
from sc2env.interface.named_array import FeatureUnitTable

_F = FUNCTIONS


class MoveToBeacon(ScriptedAgent):
    """Select the marine, then move it to the beacon's centre (from the player_relative layer)."""

    def step(self, obs: Observation) -> FunctionCall:
        if _F.Move_screen.id not in obs.available_actions:
            return _F.select_army("select")
        beacon = centre(screen(obs).player_relative == Alliance.NEUTRAL)
        if beacon is None:
            return _F.no_op()
        return _F.Move_screen("now", screen_point(beacon, screen_size(obs)))


class CollectMineralShards(ScreenScale, ScriptedAgent):
    """Both marines, each in its own control group, each sent to the nearest shard the other isn't after.

    Setup puts marine 0 in control group 1 and marine 1 in group 2 (select_army, then one unit of the
    multi-select panel). From then on, whenever a marine's shard is gone it gets a new one: the nearest shard
    that is closer to it than to the other marine (else the nearest the other isn't heading for).
    """

    env_kwargs = FEATURE_UNITS_ENV
    _SETUP = (
        _F.select_army("select"),
        _F.select_unit("select", 0),
        _F.select_control_group("set", 1),
        _F.select_army("select"),
        _F.select_unit("select", 1),
        _F.select_control_group("set", 2),
    )
    _GONE = 0.5625
    """A target with no shard within this many world units has been collected (1.5 pixels at 64)."""

    def reset(self) -> None:
        self._setup = list(self._SETUP)
        self._targets: list[np.ndarray | None] = [None, None]
        self._selected = 1  # the setup ends with marine 1 selected

    def step(self, obs: Observation) -> FunctionCall:
        if self._setup:
            call = self._setup.pop(0)
            if call.function in obs.available_actions:
                return call
            self._setup.clear()  # fewer than two marines: steer whatever is selected
        marines = units(obs, Alliance.SELF, UnitId.MARINE)
        shards = xy(units(obs, Alliance.NEUTRAL))
        if len(shards) == 0 or len(marines) == 0:
            return _F.no_op()
        gone = self._GONE * self._ppu(obs)
        for i, target in enumerate(self._targets):
            if target is None:
                continue
            # An idle marine has reached its target: on a small screen another shard can share its pixel.
            row = marines[(marines.is_selected > 0) == (i == self._selected)]
            if np.min(np.linalg.norm(shards - target, axis=1)) > gone or (
                len(row) and row.order_length[0] == 0
            ):
                self._targets[i] = None
        needy = [i for i in (self._selected, 1 - self._selected) if self._targets[i] is None]
        if not needy:
            return _F.no_op()
        marine = needy[0]
        if marine != self._selected:
            self._selected = marine
            return _F.select_control_group("recall", marine + 1)
        positions = xy(marines[marines.is_selected > 0]) if (marines.is_selected > 0).any() else xy(marines)
        target = self._choose(shards, positions[0], self._targets[1 - marine], self._other(marines), gone)
        self._targets[marine] = target
        return _F.Move_screen("now", screen_point(target, screen_size(obs)))

    @staticmethod
    def _other(marines: FeatureUnitTable) -> np.ndarray | None:
        others = marines[marines.is_selected == 0]
        return xy(others)[0] if len(others) else None

    @staticmethod
    def _choose(
        shards: np.ndarray, me: np.ndarray, claimed: np.ndarray | None, other: np.ndarray | None, gone: float
    ) -> np.ndarray:
        candidates = shards
        if claimed is not None and len(shards) > 1:
            candidates = shards[np.linalg.norm(shards - claimed, axis=1) > gone]
            if len(candidates) == 0:
                candidates = shards
        if other is not None:
            mine = np.linalg.norm(candidates - me, axis=1) <= np.linalg.norm(candidates - other, axis=1)
            if mine.any():
                candidates = candidates[mine]
        return candidates[nearest(candidates, me)]
