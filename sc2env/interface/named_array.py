"""Numpy arrays whose entries along one axis have names: `obs.feature_screen.player_relative`."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

from sc2env.interface.columns import (
    FeatureUnit,
    Player,
    ProductionQueue,
    ScoreByCategory,
    ScoreByVital,
    ScoreCategories,
    ScoreCumulative,
    ScoreVitals,
    UnitLayer,
)
from sc2env.interface.layers import MINIMAP_NAMES, SCREEN_NAMES


class NamedArray(np.ndarray):
    """An ndarray with names for the indices of one axis, read as attributes or used as indices.

    Each subclass fixes its names, axis and number of dimensions as class attributes, so making one is
    a plain `array.view(Subclass)`. Names apply while the array keeps that number of dimensions:
    `table.x`, `table[:, "x"]`, `player["minerals"]`. A row of a table (an int index on its first axis, or
    iterating over it) is a `_row` array with names of its own (`feature_units[0].x`, `for u in feature_units:
    u.alliance`, `score_by_category.killed_minerals.army`). A selection of rows keeps the names, and so does an
    index that takes other axes away but leaves the named one whole (`feature_screen[:, y, x].unit_type`, the
    layers at one pixel: an array of a `_fewer_axes` class). A slice that cuts the named axis is a plain array
    (the names would point at the wrong entries). Setting a name writes into the array (`player.minerals = 0`).
    `np.asarray` gives an ndarray.
    """

    _names: ClassVar[Mapping[str, int]] = {}
    _axis: ClassVar[int] = 0
    _ndim: ClassVar[int] = -1
    _row: ClassVar[type[NamedArray] | None] = None
    _fewer_axes: ClassVar[dict[int, type[NamedArray]]] = {}
    """The same names with only ndim axes (for the named one and those before it): made with each class."""

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        if "_fewer_axes" in cls.__dict__:  # itself one of those
            return
        cls._fewer_axes = {}
        module = sys.modules[cls.__module__]
        for ndim in range(cls._axis + 1, cls._ndim):
            name = f"{cls.__name__}{ndim}D"
            fewer: type[NamedArray] = type(
                name,
                (cls,),
                {
                    "_ndim": ndim,
                    "_row": None,
                    "_fewer_axes": cls._fewer_axes,
                    "__module__": cls.__module__,
                    "__qualname__": name,
                },
            )
            setattr(module, name, fewer)  # where pickle looks for it
            cls._fewer_axes[ndim] = fewer

    def __getattr__(self, name: str) -> np.ndarray:
        cls = type(self)
        if name in cls._names and self.ndim == cls._ndim:
            index = cls._names[name]
            if cls._axis == 0:
                return self[index]
            return np.asarray(self)[(slice(None),) * cls._axis + (index,)]
        raise AttributeError(
            f"{cls.__name__} has no attribute or name {name!r}"
            + ("" if self.ndim == cls._ndim else f" (names apply to its {cls._ndim}-D form)")
        )

    def __getitem__(self, key):
        cls = type(self)
        if self.ndim != cls._ndim:
            return np.asarray(self)[key]
        key = cls._by_name(key)
        parts = key if isinstance(key, tuple) else (key,)
        named = parts[cls._axis] if len(parts) > cls._axis else slice(None)
        if parts and isinstance(parts[0], (int, np.integer)) and cls._row is not None:
            return np.asarray(self)[key].view(cls._row) if len(parts) == 1 else np.asarray(self)[key]
        whole = isinstance(named, slice) and named == slice(None)
        if not whole or any(part is Ellipsis or part is None for part in parts):
            return np.asarray(self)[key]  # the named axis is cut or moved: its names no longer fit
        result = super().__getitem__(key)  # rows chosen (a slice, a mask): the names still fit
        if isinstance(result, NamedArray) and result.ndim != cls._ndim:  # axes after the named one taken away
            fewer = cls._fewer_axes.get(result.ndim)
            return np.asarray(result) if fewer is None else result.view(fewer)
        return result

    def __setitem__(self, key, value) -> None:
        super().__setitem__(type(self)._by_name(key), value)

    def __setattr__(self, name: str, value) -> None:
        cls = type(self)
        if name not in cls._names:
            super().__setattr__(name, value)
        elif self.ndim != cls._ndim:
            raise AttributeError(
                f"cannot set {name!r}: names apply to the {cls._ndim}-D form of {cls.__name__}"
            )
        else:
            self[(slice(None),) * cls._axis + (cls._names[name],)] = value

    def __array_wrap__(self, array, context=None, return_scalar=False):
        # A reduction (row.sum()) gives a number, as on a plain array, not a 0-d named array.
        result = super().__array_wrap__(array, context)  # numpy 1.x takes no return_scalar
        return result[()] if result.ndim == 0 else result

    @classmethod
    def _axis_names(cls, axis: int) -> Mapping[str, int]:
        if axis == cls._axis:
            return cls._names
        if axis == 1 and cls._axis == 0 and cls._row is not None:  # a table named by rows: its columns
            return cls._row._names
        return {}

    @classmethod
    def _by_name(cls, key):
        """`key` with names turned into their indices, on whichever axis has names."""
        if not (isinstance(key, str) or (isinstance(key, tuple) and any(isinstance(k, str) for k in key))):
            return key
        parts = key if isinstance(key, tuple) else (key,)
        resolved = []
        for axis, part in enumerate(parts):
            if isinstance(part, str):
                names = cls._axis_names(axis)
                if part not in names:
                    raise KeyError(
                        f"{cls.__name__} has no name {part!r} on axis {axis}; names (axis "
                        f"{cls._axis}): {', '.join(cls.names())}"
                    )
                part = names[part]
            resolved.append(part)
        return tuple(resolved) if isinstance(key, tuple) else resolved[0]

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


class UnitRow(NamedArray):
    """One row of a `UnitTable`: (7,) `UnitLayer` entries."""

    _names, _axis, _ndim = _index_of(UnitLayer), 0, 1


class UnitTable(NamedArray):
    """(n, 7) rows with `UnitLayer` columns."""

    _names, _axis, _ndim, _row = _index_of(UnitLayer), 1, 2, UnitRow


class ProductionRow(NamedArray):
    """One row of a `ProductionTable`: (2,) `ProductionQueue` entries."""

    _names, _axis, _ndim = _index_of(ProductionQueue), 0, 1


class ProductionTable(NamedArray):
    """(n, 2) rows with `ProductionQueue` columns."""

    _names, _axis, _ndim, _row = _index_of(ProductionQueue), 1, 2, ProductionRow


class FeatureUnitRow(NamedArray):
    """One unit of a `FeatureUnitTable`: (46,) `FeatureUnit` entries (`unit.x`, `unit.alliance`)."""

    _names, _axis, _ndim = _index_of(FeatureUnit), 0, 1


class FeatureUnitTable(NamedArray):
    """(n, 46) rows with `FeatureUnit` columns."""

    _names, _axis, _ndim, _row = _index_of(FeatureUnit), 1, 2, FeatureUnitRow


class ScoreCumulativeArray(NamedArray):
    """(13,) `ScoreCumulative` entries."""

    _names, _axis, _ndim = _index_of(ScoreCumulative), 0, 1


class ScoreCategoriesRow(NamedArray):
    """One row of `ScoreByCategoryArray`: (5,) `ScoreCategories` entries (`none`, `army`, `economy`, ...)."""

    _names, _axis, _ndim = _index_of(ScoreCategories), 0, 1


class ScoreByCategoryArray(NamedArray):
    """(11, 5): `ScoreByCategory` rows (named) by `ScoreCategories` columns."""

    _names, _axis, _ndim, _row = _index_of(ScoreByCategory), 0, 2, ScoreCategoriesRow


class ScoreVitalsRow(NamedArray):
    """One row of `ScoreByVitalArray`: (3,) `ScoreVitals` entries (`life`, `shields`, `energy`)."""

    _names, _axis, _ndim = _index_of(ScoreVitals), 0, 1


class ScoreByVitalArray(NamedArray):
    """(3, 3): `ScoreByVital` rows (named) by `ScoreVitals` columns."""

    _names, _axis, _ndim, _row = _index_of(ScoreByVital), 0, 2, ScoreVitalsRow
