"""Scripted agents for the combat mini-games: focus fire, splitting against splash, search-and-destroy."""

from __future__ import annotations

from collections import deque

import numpy as np

from sc2env.agents.base import ScriptedAgent
from sc2env.agents.screen_reading import (
    FEATURE_UNITS_ENV,
    Alliance,
    ScreenScale,
    minimap,
    nearest,
    screen,
    screen_point,
    screen_size,
    unit_pixel,
    units,
    xy,
)
from sc2env.interface import FUNCTIONS, FunctionCall, Observation
from sc2env.interface.named_array import FeatureUnitTable, MinimapLayers

_F = FUNCTIONS


class FocusFire(ScreenScale, ScriptedAgent):
    """The whole army attacks one enemy at a time until it dies, then the next (`priority` decides which).

    The target is followed from step to step (feature units carry no tags): the enemy nearest to where it was,
    within the distance it can have moved and with no more health than it had. The attack order is repeated
    for a new target, and every `_REPEAT_STEPS` in case the order was lost.
    """

    env_kwargs = FEATURE_UNITS_ENV
    _FOLLOW = 2.25  # world units a target can move between steps (6 pixels at 64)
    _REPEAT_STEPS = 8

    def reset(self) -> None:
        self._target: np.ndarray | None = None
        self._health = 0
        self._since = 0

    def priority(self, enemies: FeatureUnitTable, army_centre: np.ndarray) -> np.ndarray:
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
            if distance.min() <= self._FOLLOW * self._ppu(obs):
                i = int(np.argmin(distance))
                self._target, self._health = positions[i], int(enemies.health[i])
                if self._since < self._REPEAT_STEPS:
                    return _F.no_op()
                return self._attack(obs, int(enemies.unit_type[i]))
        i = int(np.argmin(self.priority(enemies, xy(army).mean(axis=0))))
        self._target, self._health = positions[i], int(enemies.health[i])
        return self._attack(obs, int(enemies.unit_type[i]))

    def _attack(self, obs: Observation, unit_type: int) -> FunctionCall:
        self._since = 0
        return _F.Attack_screen("now", unit_pixel(obs, self._target, unit_type))


class DefeatRoaches(FocusFire):
    """Focus fire: the weakest Roach first (nearest of equals), so Roaches die one by one as fast as possible."""

    def priority(self, enemies: FeatureUnitTable, army_centre: np.ndarray) -> np.ndarray:
        return enemies.health * 1000.0 + super().priority(enemies, army_centre)


class DefeatZerglingsAndBanelings(ScreenScale, ScriptedAgent):
    """Split against splash: spread the Marines, hold position, and let one Marine draw the Zerg in.

    A wave starts with the Marines in a column one world unit apart, where one Baneling's burst (radius 2.2)
    hits five of them. So the column is first split in three: every third Marine stays, the others step one or
    two `GAP`s towards the enemy, leaving no two Marines inside one burst. Once they stand, the army holds
    position, and the healthiest Marine at its front attacks the nearest Zerg; when the Zerg react it runs back
    behind the army, drawing them through the army's fire, where each Baneling bursts on one Marine at most.
    When the fight goes quiet with Zerg left, another Marine draws them again.
    """

    env_kwargs = FEATURE_UNITS_ENV
    GAP = 3.4
    """World units between the three columns."""
    _QUIET_STEPS = 6  # steps without any change in a hold before another Marine goes to draw the Zerg
    _PHASE_STEPS = 16  # the longest the split, the draw or the run back may take before the script moves on

    def reset(self) -> None:
        self._calls: deque[FunctionCall] = deque()
        self._enemies = 0
        self._phase = "hold"
        self._since = 0
        self._seen: tuple = ()  # what the phase watches for a change (positions, health)
        self._retreat_to = np.zeros(2)

    def step(self, obs: Observation) -> FunctionCall:
        marines, enemies = units(obs, Alliance.SELF), units(obs, Alliance.ENEMY)
        new_wave = len(enemies) > self._enemies
        self._enemies = len(enemies)
        if len(marines) == 0 or len(enemies) == 0:
            return _F.no_op()
        if new_wave:
            self._calls = deque(self._split(obs, marines, enemies))
            self._enter("split", ())
        if not self._calls:
            self._since += 1
            self._calls.extend(self._next(obs, marines, enemies))
        while self._calls:
            call = self._calls.popleft()
            if call.function in obs.available_actions:
                return call
        return _F.no_op()

    def _next(
        self, obs: Observation, marines: FeatureUnitTable, enemies: FeatureUnitTable
    ) -> list[FunctionCall]:
        """The calls that end the current phase, when it is over."""
        late = self._since > self._PHASE_STEPS
        if self._phase == "split":  # over when the Marines stand still
            standing = (np.round(xy(marines)).tobytes(),)
            if standing != self._seen and not late:
                self._seen = standing
                return []
            return [_F.HoldPosition_quick("now"), *self._draw(obs, marines, enemies)]
        if self._phase == "bait":  # over when the Zerg react
            if not _stirred(self._seen, _zerg(enemies)) and not late:
                return []
            self._enter("retreat", ())
            return [_F.Move_screen("now", screen_point(self._retreat_to, screen_size(obs)))]
        if self._phase == "retreat":  # over when the bait is back (or dead)
            bait = xy(marines[marines.is_selected > 0])
            if len(bait) and np.linalg.norm(bait[0] - self._retreat_to) >= self._ppu(obs) and not late:
                return []
            self._enter("hold", ())
            return [_F.HoldPosition_quick("now")]
        fight = (*_zerg(enemies), marines.health.tobytes())  # hold: over when nothing happens for a while
        self._since = 0 if _stirred(self._seen, fight) else self._since
        self._seen = fight
        return self._draw(obs, marines, enemies) if self._since >= self._QUIET_STEPS else []

    def _split(
        self, obs: Observation, marines: FeatureUnitTable, enemies: FeatureUnitTable
    ) -> list[FunctionCall]:
        """Select and move each Marine that steps forward, then select the army."""
        m = xy(marines)
        forward = np.sign(xy(enemies)[:, 0].mean() - m[:, 0].mean()) or 1.0
        left, right = self._playable_x(obs)
        calls = []
        for rank, i in enumerate(np.argsort(m[:, 1])):
            if rank % 3:
                x = np.clip(m[i, 0] + forward * (rank % 3) * self.GAP * self._ppu(obs), left, right)
                calls += [
                    _F.select_point("select", screen_point(m[i], screen_size(obs))),
                    _F.Move_screen("now", screen_point((x, m[i, 1]), screen_size(obs))),
                ]
        return [*calls, _F.select_army("select")]

    def _draw(
        self, obs: Observation, marines: FeatureUnitTable, enemies: FeatureUnitTable
    ) -> list[FunctionCall]:
        """The healthiest Marine nearest the enemy attacks the nearest Zerg; it will run back behind the army."""
        m, e = xy(marines), xy(enemies)
        forward = np.sign(e[:, 0].mean() - m[:, 0].mean()) or 1.0
        healthy = m[marines.health >= marines.health.max() - 5]
        bait = healthy[nearest(healthy, e.mean(axis=0))]
        rear = m[:, 0].min() if forward > 0 else m[:, 0].max()
        self._retreat_to = np.array(
            [np.clip(rear - forward * self.GAP * self._ppu(obs), *self._playable_x(obs)), m[:, 1].mean()]
        )
        self._enter("bait", _zerg(enemies))
        return [
            _F.select_point("select", screen_point(bait, screen_size(obs))),
            _F.Attack_screen("now", screen_point(e[nearest(e, bait)], screen_size(obs))),
        ]

    def _enter(self, phase: str, seen: tuple) -> None:
        self._phase, self._since, self._seen = phase, 0, seen

    def _playable_x(self, obs: Observation) -> tuple[float, float]:
        """The leftmost and rightmost screen x a Marine can stand on (a world unit inside the playable area)."""
        xs = np.nonzero(screen(obs).pathable.any(axis=0))[0]
        return xs.min() + self._ppu(obs), xs.max() - self._ppu(obs)


def _zerg(enemies: FeatureUnitTable) -> tuple[bytes, int]:
    """The enemies' positions and total health, to tell when they move or take damage."""
    return np.round(np.sort(xy(enemies), axis=0)).tobytes(), int(enemies.health.sum())


def _stirred(before: tuple, now: tuple) -> bool:
    """Whether the fight moved on from `before` to `now` (both start with `_zerg`'s pair): the Zerg moved, took
    damage, or (when given) the Marines' health changed. Zerg regenerating health is no news."""
    return not before or now[0] != before[0] or now[1] < before[1] or now[2:] != before[2:]


class FindAndDefeatZerglings(ScriptedAgent):
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
        layers = minimap(obs)
        relative = layers.player_relative
        ys, xs = np.nonzero(relative == Alliance.SELF)
        if len(xs) == 0:
            return _F.no_op()
        army = np.array([xs.mean(), ys.mean()])
        target = self._enemy(relative, army)
        self._since += 1
        if target is None:
            if (
                self._target is not None
                and self._since < self._RETARGET_STEPS
                and layers.visibility_map[int(self._target[1]), int(self._target[0])] != 2
            ):
                return _F.no_op()
            target = self._unexplored(layers, army)
            if target is None:
                return _F.no_op()
        elif self._target is not None and np.linalg.norm(target - self._target) < 1.0:
            return _F.no_op()
        self._target, self._since = target, 0
        return _F.Attack_minimap("now", screen_point(target, (layers.shape[2], layers.shape[1])))

    @staticmethod
    def _enemy(relative: np.ndarray, army: np.ndarray) -> np.ndarray | None:
        ys, xs = np.nonzero(relative == Alliance.ENEMY)
        if len(xs) == 0:
            return None
        points = np.stack([xs, ys], axis=1).astype(np.float64)
        return points[nearest(points, army)]

    def _unexplored(self, layers: MinimapLayers, army: np.ndarray) -> np.ndarray | None:
        playable = layers.pathable > 0
        for hidden in (layers.visibility_map == 0, layers.visibility_map == 1):
            ys, xs = np.nonzero(playable & hidden)
            if len(xs):
                points = np.stack([xs, ys], axis=1).astype(np.float64)
                far = np.linalg.norm(points - army, axis=1) >= self._MIN_DISTANCE_PX
                if far.any():
                    points = points[far]
                return points[nearest(points, army)]
        return None
