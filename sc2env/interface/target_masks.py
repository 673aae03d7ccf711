"""Screen target masks: where on screen each class of function may sensibly be aimed.

They are hints for the policy, not the game's rules: the game still decides (e.g. a building's whole
footprint must fit, and power or creep may be needed).
"""

from __future__ import annotations

import numpy as np

from sc2env.interface.function_table import RESOURCE_UNIT_TYPES, UNIT_TYPE_SCALE
from sc2env.interface.functions import TargetClass
from sc2env.interface.layers import SCREEN_NAMES
from sc2env.interface.transforms import CoordinateTransforms

_PLAYER_RELATIVE = SCREEN_NAMES["player_relative"]
_UNIT_TYPE = SCREEN_NAMES["unit_type"]
_SELF, _ENEMY = 1, 4


class TargetMasker:
    """Computes (classes, height, width) bool masks in `TargetClass` order from decoded screen layers."""

    def __init__(self, transforms: CoordinateTransforms | None):
        self._transforms = transforms
        lut = np.zeros(UNIT_TYPE_SCALE + 1, bool)
        lut[sorted(RESOURCE_UNIT_TYPES)] = True
        self._resource_lut = lut

    def __call__(self, screen: np.ndarray, renders, camera: tuple[float, float] | None) -> np.ndarray:
        """`screen` is the decoded (27, h, w) stack, `renders` the message's screen layers (to tell a
        missing layer from an empty one) and `camera` the world camera centre, if known."""
        _, height, width = screen.shape
        masks = np.empty((len(TargetClass), height, width), bool)
        masks[TargetClass.ANY] = True
        unit_type = screen[_UNIT_TYPE]
        masks[TargetClass.PATHABLE] = self._ground(screen, renders, camera, "pathable")
        masks[TargetClass.PLACEABLE] = self._ground(screen, renders, camera, "buildable")
        relative = screen[_PLAYER_RELATIVE]
        np.equal(relative, _SELF, out=masks[TargetClass.OWN_UNIT])
        np.equal(relative, _ENEMY, out=masks[TargetClass.ENEMY_UNIT])
        masks[TargetClass.RESOURCE] = self._resource_lut[np.clip(unit_type, 0, UNIT_TYPE_SCALE)]
        return masks

    def _ground(self, screen: np.ndarray, renders, camera, layer: str) -> np.ndarray:
        """A pathable/buildable layer as sent; without it, the map's start grid seen through the camera."""
        if getattr(renders, layer).size.x:
            return screen[SCREEN_NAMES[layer]] != 0
        transforms, grid = self._transforms, None
        if transforms is not None:
            grid = transforms.map_info.pathing if layer == "pathable" else transforms.map_info.placement
        if transforms is None or grid is None or grid.size == 0 or camera is None:
            return np.ones(screen.shape[1:], bool)  # nothing known: don't restrict
        seen = transforms.grid_on_screen(grid, camera)
        if layer == "pathable":
            return seen
        # The start grid doesn't know about later buildings; no unit on the pixel stands in for that.
        return seen & (screen[_UNIT_TYPE] == 0)
