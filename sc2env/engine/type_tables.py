"""Facts of the unit types as lookup arrays indexed by type id (index one with World.type_id for every row)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from sc2env.gamedata import UNIT_TYPES, UnitType

TYPE_IDS = max(UNIT_TYPES) + 1
"""The length of a per-type array: one entry per type id up to the largest known."""


def per_type(value: Callable[[UnitType], float], dtype: npt.DTypeLike = np.float64) -> np.ndarray:
    """An array indexed by unit type id: `value(t)` for each known type t, 0 for ids no type has."""
    out = np.zeros(TYPE_IDS, dtype)
    for t in UNIT_TYPES.values():
        out[t.unit_id] = value(t)
    return out


def type_mask(test: Callable[[UnitType], bool]) -> np.ndarray:
    """By unit type id: whether `test(unit type)` holds."""
    return per_type(test, bool)


WORKER_TYPES = type_mask(lambda t: t.worker)
DROPOFF_TYPES = type_mask(lambda t: t.dropoff)
HARVESTED_TYPES = type_mask(lambda t: t.harvest is not None)
"""Mineral fields, geysers and refineries: what workers gather from."""
MINERAL_FIELD_TYPES = type_mask(lambda t: t.harvest is not None and t.harvest.kind == "minerals")
PRODUCER_TYPES = type_mask(lambda t: t.queue_size > 0)
"""Structures that train units."""
FOOD_REQUIRED = per_type(lambda t: 0.0 if t.structure else t.food_required)
"""The supply a unit takes (structures take none)."""
FOOD_PROVIDED = per_type(lambda t: t.food_provided)
STRUCTURE_TYPES = type_mask(lambda t: t.structure)
"""Structures: a player's buildings (Refineries too), and the neutral mineral fields and geysers."""
