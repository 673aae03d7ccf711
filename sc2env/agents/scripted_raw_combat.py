"""RawFocusFire: focus fire with raw commands, the target followed by its tag from step to step."""

from __future__ import annotations

from types import MappingProxyType
from typing import TYPE_CHECKING

import numpy as np

from sc2env.agents.base import Action, ScriptedAgent
from sc2env.agents.screen_reading import minimap
from sc2env.errors import SC2EnvError
from sc2env.interface import RAW_FUNCTIONS, FeatureUnit, Observation

if TYPE_CHECKING:
    from sc2env.env.env import SC2Env

_ENEMY = 4
_BANELING = 9  # they splash whoever stands together: killed first, before they reach the marines
_GAP = 3.4  # world units between split columns (a Baneling burst reaches 2.2), as the feature-layer script


class RawFocusFire(ScriptedAgent):
    """Every own unit that can attack attacks one enemy until it dies: Banelings first, then the enemy with
    the least health left, then the one nearest the army. A wave with Banelings is met by a column split in
    three first. With no enemy in sight the army attack-moves to the
    nearest part of the playable area it has not seen yet (the minimap's visibility layer), then to the
    nearest it no longer sees (FindAndDefeatZerglings' Zerglings wait out there, under the fog).

    The raw action space names units by tag, so unlike the feature-layer agents this one never has to guess
    which blip on the screen was its target a step ago.
    """

    env_kwargs = MappingProxyType({"actions": "raw"})
    actions = ("raw",)
    _REPEAT_STEPS = 8  # the order again now and then, in case a unit dropped it (it was chasing, say)

    def setup(self, env: SC2Env) -> None:
        space, transforms = env.raw_space, env.transforms
        if space is None or transforms is None:
            raise ValueError("RawFocusFire plays with actions='raw', set up after the env's first reset")
        self._env = env
        # The playable raw cells to explore, and the minimap pixel that shows whether each is in sight (kept
        # on the minimap when the observation comes: its size is the layers').
        cells = np.flatnonzero(space.world_mask(transforms))
        self._cells = np.stack([cells % space.resolution, cells // space.resolution], axis=1)
        self._cell_pixels = transforms.world_to_minimap.fwd_pixel(
            transforms.world_to_raw.back(self._cells + 0.5)
        )

    def reset(self) -> None:
        self._target_tag = 0
        self._since = 0
        self._waypoint: tuple[int, int] | None = None
        self._enemies = 0
        self._queue: list[tuple[int, tuple[int, int]]] = []

    def step(self, obs: Observation) -> Action:
        masks = self._env.raw_masks
        if masks is None or obs.raw_units is None:
            raise SC2EnvError("RawFocusFire reads raw units and the raw masks: play it with actions='raw'")
        units = np.asarray(obs.raw_units)
        able = np.flatnonzero(masks.units_for(RAW_FUNCTIONS.Attack_unit.id))
        if not len(able):
            return RAW_FUNCTIONS.no_op()
        enemies = np.flatnonzero(units[:, FeatureUnit.alliance] == _ENEMY) if len(units) else able[:0]
        if not len(enemies):
            self._target_tag = 0
            return self._scout(obs, units, able)
        self._waypoint = None
        if len(enemies) > self._enemies and (units[enemies, FeatureUnit.unit_type] == _BANELING).any():
            self._queue = self._split(units, able, enemies)  # a wave with Banelings: spread out first
        self._enemies = len(enemies)
        tags = units[:, FeatureUnit.tag]
        while self._queue:
            tag, point = self._queue.pop(0)
            rows = np.flatnonzero(tags == tag)  # rows shift as units die: the split's moves name tags
            if tag == 0:
                return RAW_FUNCTIONS.no_op()
            if len(rows):
                return RAW_FUNCTIONS.Move_pt("now", [int(rows[0])], point)
        self._since += 1
        if self._target_tag in tags[enemies] and self._since < self._REPEAT_STEPS:
            return RAW_FUNCTIONS.no_op()
        if self._target_tag not in tags[enemies]:
            self._target_tag = int(tags[self._choose(units, enemies, able)])
        self._since = 0
        target = int(np.flatnonzero(tags == self._target_tag)[0])
        return RAW_FUNCTIONS.Attack_unit("now", able.tolist(), target)

    @staticmethod
    def _split(units: np.ndarray, able: np.ndarray, enemies: np.ndarray) -> list[tuple[int, tuple[int, int]]]:
        """(tag, point) moves that split a column in three, `_GAP` apart (no Baneling burst hits two columns),
        then a pause (tag 0) while the last ones walk."""
        xy = units[:, [FeatureUnit.x, FeatureUnit.y]]
        forward = np.sign(xy[enemies, 0].mean() - xy[able, 0].mean()) or 1.0
        moves = [
            (int(units[i, FeatureUnit.tag]), (int(xy[i, 0] + forward * (rank % 3) * _GAP), int(xy[i, 1])))
            for rank, i in enumerate(able[np.argsort(xy[able, 1])])
            if rank % 3
        ]
        return moves + [(0, (0, 0))] * 3

    @staticmethod
    def _choose(units: np.ndarray, enemies: np.ndarray, army: np.ndarray) -> int:
        """The row of the enemy to attack next."""
        centre = units[army][:, [FeatureUnit.x, FeatureUnit.y]].mean(axis=0)
        distance = np.linalg.norm(units[enemies][:, [FeatureUnit.x, FeatureUnit.y]] - centre, axis=1)
        health = units[enemies, FeatureUnit.health] + units[enemies, FeatureUnit.shield]
        order = np.lexsort((distance, health, units[enemies, FeatureUnit.unit_type] != _BANELING))
        return int(enemies[order[0]])

    def _scout(self, obs: Observation, units: np.ndarray, able: np.ndarray) -> Action:
        """Attack-move to the nearest cell not in sight, least recently seen first; no_op while on the way."""
        visibility = minimap(obs).visibility_map  # 0 never seen, 1 fogged, 2 in sight
        height, width = visibility.shape
        raw, pixels = self._cells, np.clip(self._cell_pixels, 0, (width - 1, height - 1))
        seen = visibility[pixels[:, 1], pixels[:, 0]]
        if self._waypoint is not None:
            row = np.flatnonzero((raw == self._waypoint).all(axis=1))
            if len(row) and seen[row[0]] != 2:
                return RAW_FUNCTIONS.no_op()  # still on the way
        if (seen == 2).all():
            return RAW_FUNCTIONS.no_op()
        centre = units[able][:, [FeatureUnit.x, FeatureUnit.y]].mean(axis=0)
        order = np.lexsort((np.linalg.norm(raw - centre, axis=1), seen))
        self._waypoint = (int(raw[order[0], 0]), int(raw[order[0], 1]))
        return RAW_FUNCTIONS.Attack_pt("now", able.tolist(), self._waypoint)
