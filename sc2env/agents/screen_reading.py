"""What scripted agents read from an observation: units on screen, positions, nearest targets, building sites."""

from __future__ import annotations

import enum
from collections.abc import Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING

import numpy as np

from sc2env.errors import SC2EnvError
from sc2env.gamedata import unit_type_by_name
from sc2env.interface import Observation, PlayerRelative
from sc2env.interface.named_array import FeatureUnitTable, MinimapLayers, ScreenLayers

if TYPE_CHECKING:
    from sc2env.env.env import SC2Env

Alliance = PlayerRelative
"""`feature_units.alliance` and the `player_relative` layer values (the interface's `PlayerRelative`)."""


class UnitId(enum.IntEnum):
    """Unit type ids the scripts look for (the real game's, from `sc2env.gamedata`)."""

    MARINE = unit_type_by_name("Marine").unit_id
    SCV = unit_type_by_name("SCV").unit_id
    COMMAND_CENTER = unit_type_by_name("CommandCenter").unit_id
    SUPPLY_DEPOT = unit_type_by_name("SupplyDepot").unit_id
    REFINERY = unit_type_by_name("Refinery").unit_id
    BARRACKS = unit_type_by_name("Barracks").unit_id


FEATURE_UNITS_ENV = MappingProxyType({"use_feature_units": True})
"""The env option `units()` needs: agents that read units say `env_kwargs = FEATURE_UNITS_ENV`."""


def screen(obs: Observation) -> ScreenLayers:
    """The feature screen layers; SC2EnvError when the env makes none (screen_size=None)."""
    layers = obs.feature_screen
    if layers is None:
        raise SC2EnvError("this agent reads the feature screen: make the env with a screen_size")
    return layers


def minimap(obs: Observation) -> MinimapLayers:
    """The feature minimap layers; SC2EnvError when the env makes none (minimap_size=None)."""
    layers = obs.feature_minimap
    if layers is None:
        raise SC2EnvError("this agent reads the feature minimap: make the env with a minimap_size")
    return layers


def units(obs: Observation, alliance: Alliance | None = None, *types: int) -> FeatureUnitTable:
    """The on-screen units (`feature_units` rows) of one alliance and, if given, of those unit types."""
    table = obs.feature_units
    if table is None:
        raise SC2EnvError(
            "this agent reads feature units: make the env with use_feature_units=True "
            "(the agent's env_kwargs say so)"
        )
    keep = np.ones(len(table), bool)
    if alliance is not None:
        keep &= table.alliance == alliance
    if types:
        keep &= np.isin(table.unit_type, types)
    return table[keep]


def xy(table: FeatureUnitTable) -> np.ndarray:
    """(n, 2) float screen positions of unit rows."""
    return np.stack([table.x, table.y], axis=1).astype(np.float64) if len(table) else np.zeros((0, 2))


def nearest(points: np.ndarray, target) -> int:
    """Index of the point nearest to `target` (points must not be empty)."""
    return int(
        np.argmin(np.linalg.norm(np.asarray(points, np.float64) - np.asarray(target, np.float64), axis=1))
    )


def centre(mask: np.ndarray) -> tuple[float, float] | None:
    """The centre (x, y) of a boolean layer's true pixels, or None when there are none."""
    ys, xs = np.nonzero(mask)
    if len(xs) == 0:
        return None
    return float(xs.mean()), float(ys.mean())


def screen_point(point, size: tuple[int, int]) -> tuple[int, int]:
    """A point rounded into the screen (width, height)."""
    x, y = np.asarray(point, np.float64)
    return int(np.clip(round(x), 0, size[0] - 1)), int(np.clip(round(y), 0, size[1] - 1))


def screen_size(obs: Observation) -> tuple[int, int]:
    """The feature screen's (width, height) in pixels, as `screen_point` takes it."""
    layers = screen(obs)
    return layers.shape[2], layers.shape[1]


def unit_pixel(obs: Observation, point, unit_types) -> tuple[int, int]:
    """The screen pixel nearest to a unit's position `point` that the unit_type layer shows as one of
    `unit_types` (an id or a collection of ids): a click there hits a unit of that type even where the position
    itself falls on a neighbour or on a pixel the unit doesn't cover (small screens). `screen_point(point)`
    when no pixel shows such a unit."""
    shown = np.isin(screen(obs).unit_type, np.atleast_1d(unit_types))
    ys, xs = np.nonzero(shown)
    if len(xs) == 0:
        return screen_point(point, screen_size(obs))
    pixels = np.stack([xs, ys], axis=1)
    x, y = pixels[nearest(pixels, point)]
    return int(x), int(y)


def pixels_per_unit(obs: Observation, camera_width: float) -> float:
    """Screen pixels per world unit for a screen `camera_width` world units across."""
    return screen(obs).shape[2] / camera_width


class ScreenScale:
    """For scripts that measure the screen in world units, so they play alike at every screen size: reads the
    env's camera width at setup (mix in before `Agent`)."""

    _camera_width = 24.0  # world units across the screen until setup() reads the env's

    def setup(self, env: SC2Env) -> None:
        self._camera_width = float(env.config.camera_width)

    def _ppu(self, obs: Observation) -> float:
        """Screen pixels per world unit."""
        return pixels_per_unit(obs, self._camera_width)


def building_site(
    obs: Observation,
    size_px: float,
    prefer,
    *,
    margin_px: float = 1.0,
    exclude: Sequence[tuple[float, float, float]] = (),
) -> tuple[int, int] | None:
    """The free screen point nearest to `prefer` where a square building `size_px` across fits.

    Free means buildable and empty of units with `margin_px` to spare on every side. `exclude` lists circles
    (x, y, radius) to keep clear, such as the path between a town hall and its minerals, or sites that failed.
    """
    layers = screen(obs)
    height, width = layers.shape[1:]
    free = (layers.buildable > 0) & (layers.unit_type == 0)
    ys, xs = np.mgrid[0:height, 0:width]
    for x, y, radius in exclude:
        free &= (xs - x) ** 2 + (ys - y) ** 2 > radius**2
    side = int(np.ceil(size_px + 2 * margin_px))
    if side > min(width, height):
        return None
    # A summed-area table answers "is this whole square free?" for every top-left corner at once.
    blocked = np.pad((~free).astype(np.int32).cumsum(0).cumsum(1), ((1, 0), (1, 0)))
    inside = blocked[side:, side:] - blocked[:-side, side:] - blocked[side:, :-side] + blocked[:-side, :-side]
    top, left = np.nonzero(inside == 0)
    if len(top) == 0:
        return None
    centres = np.stack([left + side / 2, top + side / 2], axis=1)
    best = centres[nearest(centres, prefer)]
    return int(best[0]), int(best[1])
