"""Numpy arrays whose entries along one axis have names: `obs.feature_screen.player_relative`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

from sc2env.interface.columns import (
    FeatureUnit,
    Player,
    ProductionQueue,
    ScoreByCategory,
    ScoreByVital,
    ScoreCumulative,
    UnitLayer,
)
from sc2env.interface.layers import MINIMAP_NAMES, SCREEN_NAMES


class NamedArray(np.ndarray):
    """An ndarray with names for the indices of one axis, read as attributes.

    Each subclass fixes its names, axis and number of dimensions as class attributes, so making one is
    a plain `array.view(Subclass)`. Names apply only while the array keeps that number of dimensions:
    a slice such as `feature_screen[0]` is a plain view without names. `np.asarray` gives an ndarray.
    """

    _names: ClassVar[Mapping[str, int]] = {}
    _axis: ClassVar[int] = 0
    _ndim: ClassVar[int] = -1

    def __getattr__(self, name: str) -> np.ndarray:
        cls = type(self)
        if name in cls._names and self.ndim == cls._ndim:
            return np.asarray(self)[(slice(None),) * cls._axis + (cls._names[name],)]
        raise AttributeError(f"{cls.__name__} has no attribute or name {name!r}")

    def __dir__(self) -> list[str]:
        return [*super().__dir__(), *type(self)._names]

    @classmethod
    def names(cls) -> tuple[str, ...]:
        """The names, in index order."""
        return tuple(sorted(cls._names, key=cls._names.__getitem__))


def _index_of(enum: Any) -> dict[str, int]:
    return {member.name: int(member) for member in enum}


class ScreenLayers(NamedArray):
    """(27, y, x) screen feature layers, named as in `SCREEN_LAYERS`."""

    _names, _axis, _ndim = SCREEN_NAMES, 0, 3


class MinimapLayers(NamedArray):
    """(11, y, x) minimap feature layers, named as in `MINIMAP_LAYERS`."""

    _names, _axis, _ndim = MINIMAP_NAMES, 0, 3


class PlayerArray(NamedArray):
    """(11,) `Player` entries."""

    _names, _axis, _ndim = _index_of(Player), 0, 1


class UnitTable(NamedArray):
    """(n, 7) rows with `UnitLayer` columns."""

    _names, _axis, _ndim = _index_of(UnitLayer), 1, 2


class ProductionTable(NamedArray):
    """(n, 2) rows with `ProductionQueue` columns."""

    _names, _axis, _ndim = _index_of(ProductionQueue), 1, 2


class FeatureUnitTable(NamedArray):
    """(n, 46) rows with `FeatureUnit` columns."""

    _names, _axis, _ndim = _index_of(FeatureUnit), 1, 2


class ScoreCumulativeArray(NamedArray):
    """(13,) `ScoreCumulative` entries."""

    _names, _axis, _ndim = _index_of(ScoreCumulative), 0, 1


class ScoreByCategoryArray(NamedArray):
    """(11, 5): `ScoreByCategory` rows (named) by `ScoreCategories` columns."""

    _names, _axis, _ndim = _index_of(ScoreByCategory), 0, 2


class ScoreByVitalArray(NamedArray):
    """(3, 3): `ScoreByVital` rows (named) by `ScoreVitals` columns."""

    _names, _axis, _ndim = _index_of(ScoreByVital), 0, 2
