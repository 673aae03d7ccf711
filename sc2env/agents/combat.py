"""Scripted agents for the combat mini-games: focus fire on screen, and search-and-destroy on the minimap."""

from __future__ import annotations

import numpy as np

from sc2env.agents.base import Agent
from sc2env.agents.features import FEATURE_UNITS_ENV, Alliance, UnitId, nearest, screen_point, units, xy
from sc2env.interface import FUNCTIONS, FunctionCall, Observation

_F = FUNCTIONS


class FocusFire(Agent):
    """The whole army attacks one enemy at a time until it dies, then the next (`priority` decides which).

    The target is followed from step to step (feature units carry no tags): the enemy nearest to where it was,
    within the distance it can have moved and with no more health than it had. The attack order is repeated
    for a new target, and every `_REPEAT_STEPS` in case the order was lost.
    """

    env_kwargs = FEATURE_UNITS_ENV
    _FOLLOW_PX = 6.0
    _REPEAT_STEPS = 8

    def reset(self) -> None:
        self._target: np.ndarray | None = None
        self._health = 0
        self._since = 0

    def priority(self, enemies: np.ndarray, army_centre: np.ndarray) -> np.ndarray:
        """Sort keys per enemy row: the enemy with the smallest key is attacked first (nearest by default)."""
        return np.linalg.norm(xy(enemies) - army_centre, axis=1)

    def step(self, obs: Observation) -> FunctionCall:
        if _F.Attack_screen.id not in obs.available_actions:
            self._target = None
            return _F.select_army("select") if _F.select_army.id in obs.available_actions else _F.no_op()
        enemies = units(obs, Alliance.ENEMY)
        army = units(obs, Alliance.SELF)
        if len(enemies) == 0 or len(army) == 0:
            self._target = None
            return _F.no_op()
        positions = xy(enemies)
        self._since += 1
        if self._target is not None:
            distance = np.linalg.norm(positions - self._target, axis=1)
            distance[enemies.health > self._health] = np.inf
            if distance.min() <= self._FOLLOW_PX:
                i = int(np.argmin(distance))
                self._target, self._health = positions[i], int(enemies.health[i])
                if self._since < self._REPEAT_STEPS:
                    return _F.no_op()
                return self._attack(obs)
        i = int(np.argmin(self.priority(enemies, xy(army).mean(axis=0))))
        self._target, self._health = positions[i], int(enemies.health[i])
        return self._attack(obs)

    def _attack(self, obs: Observation) -> FunctionCall:
        self._since = 0
        return _F.Attack_screen("now", screen_point(self._target, obs.feature_screen.shape[:0:-1]))


class DefeatRoaches(FocusFire):
    """Focus fire: the weakest Roach first (nearest of equals), so Roaches die one by one as fast as possible."""

    def priority(self, enemies, army_centre):
        return enemies.health * 1000.0 + super().priority(enemies, army_centre)


class DefeatZerglingsAndBanelings(FocusFire):
    """Focus fire on the Banelings before they reach the Marines (nearest first), then on the Zerglings."""

    def priority(self, enemies, army_centre):
        not_baneling = enemies.unit_type != UnitId.BANELING
        return not_baneling * 1000.0 + super().priority(enemies, army_centre)


class FindAndDefeatZerglings(Agent):
    """Attack-move the army on the minimap: to the nearest visible enemy, else to explore the nearest unseen
    (then fogged) part of the playable area. Needs no camera moves: Attack_minimap reaches the whole map."""

    _RETARGET_STEPS = 8
    _MIN_DISTANCE_PX = 3.0

    def reset(self) -> None:
        self._target: np.ndarray | None = None
        self._since = 0

    def step(self, obs: Observation) -> FunctionCall:
        if _F.Attack_minimap.id not in obs.available_actions:
            return _F.select_army("select") if _F.select_army.id in obs.available_actions else _F.no_op()
        minimap = obs.feature_minimap
        relative = minimap.player_relative
        ys, xs = np.nonzero(relative == Alliance.SELF)
        if len(xs) == 0:
            return _F.no_op()
        army = np.array([xs.mean(), ys.mean()])
        target = self._enemy(relative, army)
        self._since += 1
        if target is None:
            if self._target is not None and self._since < self._RETARGET_STEPS and \
                    minimap.visibility_map[int(self._target[1]), int(self._target[0])] != 2:
                return _F.no_op()
            target = self._unexplored(minimap, army)
            if target is None:
                return _F.no_op()
        elif self._target is not None and np.linalg.norm(target - self._target) < 1.0:
            return _F.no_op()
        self._target, self._since = target, 0
        return _F.Attack_minimap("now", screen_point(target, minimap.shape[:0:-1]))

    @staticmethod
    def _enemy(relative: np.ndarray, army: np.ndarray) -> np.ndarray | None:
        ys, xs = np.nonzero(relative == Alliance.ENEMY)
        if len(xs) == 0:
            return None
        points = np.stack([xs, ys], axis=1).astype(np.float64)
        return points[nearest(points, army)]

    def _unexplored(self, minimap, army: np.ndarray) -> np.ndarray | None:
        playable = minimap.pathable > 0
        for hidden in (minimap.visibility_map == 0, minimap.visibility_map == 1):
            ys, xs = np.nonzero(playable & hidden)
            if len(xs):
                points = np.stack([xs, ys], axis=1).astype(np.float64)
                far = np.linalg.norm(points - army, axis=1) >= self._MIN_DISTANCE_PX
                if far.any():
                    points = points[far]
                return points[nearest(points, army)]
        return None
