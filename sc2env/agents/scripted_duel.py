"""A scripted agent for the duel maps: find the enemy army with the camera and minimap, then focus fire."""

from __future__ import annotations

import numpy as np

from sc2env.agents.screen_reading import Alliance, centre, minimap, units
from sc2env.agents.scripted_combat import FocusFire
from sc2env.interface import FUNCTIONS, FunctionCall, Observation, PlayerRelative

_F = FUNCTIONS


class DuelArmy(FocusFire):
    """The whole army fights as one: it attack-moves (on the minimap) towards the enemies it sees there, or to
    the far side of the map when it sees none, keeps the camera over itself, and once enemies are on the screen
    focuses fire on the weakest (nearest of equals), as a DefeatRoaches player would.

    Plays either slot (it reads its side from where its army starts) and every duel map; feature layers only.
    """

    _MOVE_EVERY = 6  # steps between attack-move orders while no enemy is on the screen
    _CAMERA_SLACK = 0.2  # the camera moves when the army's centre is this far (of the minimap) from its own

    def reset(self) -> None:
        super().reset()
        self._moved = self._MOVE_EVERY
        self._far_x: float | None = None  # the minimap column of the side the army does not start on

    def priority(self, enemies, army_centre: np.ndarray) -> np.ndarray:
        return enemies.health * 1000.0 + super().priority(enemies, army_centre)

    def step(self, obs: Observation) -> FunctionCall:
        if _F.Attack_minimap.id not in obs.available_actions:
            self._target = None
            return _F.select_army("select") if _F.select_army.id in obs.available_actions else _F.no_op()
        if len(units(obs, Alliance.ENEMY)):
            return super().step(obs)
        layers = minimap(obs)
        relative = layers.player_relative
        army = centre(relative == PlayerRelative.SELF)
        if army is None:
            return _F.no_op()
        height, width = relative.shape
        camera = centre(layers.camera > 0)
        if camera is None or np.hypot(army[0] - camera[0], army[1] - camera[1]) > self._CAMERA_SLACK * width:
            return _F.move_camera((round(army[0]), round(army[1])))
        self._moved += 1
        if self._moved < self._MOVE_EVERY:
            return _F.no_op()
        self._moved = 0
        if self._far_x is None:  # the duels' armies start on opposite sides, facing each other
            self._far_x = 0.0 if army[0] > (width - 1) / 2 else float(width - 1)
        enemy = centre(relative == PlayerRelative.ENEMY)
        # No enemy in sight: the far side of the map, level with the army.
        goal = enemy if enemy is not None else (self._far_x, army[1])
        x = int(np.clip(round(goal[0]), 0, width - 1))
        y = int(np.clip(round(goal[1]), 0, height - 1))
        return _F.Attack_minimap("now", (x, y))
