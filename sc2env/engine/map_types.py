"""The unit type ids a game reports: real types as they are, the map's own types after every real type."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from sc2env.engine.type_tables import TYPE_IDS
from sc2env.gamedata import REAL_TYPE_COUNT, UNIT_TYPES, UnitType, unit_type_by_name


@dataclass(frozen=True)
class TypeIds:
    """How one map's game names unit types on the wire.

    The engine keeps one id per type (`sc2env.gamedata`); the real game numbers a map's own new types
    (`Marine_RL`) after its real ones in the order of the map's catalog, so `Marine_RL` is the first new id on
    3m but the second on MMM. `reported[engine id]` is the id a client sees; `engine_id` turns one back.
    """

    reported: np.ndarray
    engine_id: dict[int, int]
    own: tuple[UnitType, ...]  # the map's own types, with their reported ids
    unplayed: dict[int, str] = field(default_factory=dict)
    """The map's own types whose real type the engine does not play yet, by reported id: they keep their
    place in the numbering (and in RequestData), but no unit of them can be made."""

    @classmethod
    def for_map(cls, own_names: tuple[str, ...]) -> TypeIds:
        reported = np.arange(TYPE_IDS, dtype=np.int32)
        engine_id = {t.unit_id: t.unit_id for t in UNIT_TYPES.values() if t.unit_id < REAL_TYPE_COUNT}
        own, unplayed = [], {}
        for index, name in enumerate(own_names):
            try:
                unit_type = unit_type_by_name(name)
            except KeyError:
                unplayed[REAL_TYPE_COUNT + index] = name
                continue
            reported[unit_type.unit_id] = REAL_TYPE_COUNT + index
            engine_id[REAL_TYPE_COUNT + index] = unit_type.unit_id
            own.append(replace(unit_type, unit_id=REAL_TYPE_COUNT + index))
        return cls(reported, engine_id, tuple(own), unplayed)

    def report(self, type_ids: np.ndarray) -> np.ndarray:
        """The reported ids of engine type ids (an array of any shape)."""
        return self.reported[type_ids]

    def unit_type(self, reported_id: int) -> UnitType | None:
        """The engine's type a client means by `reported_id`, None if the game has no such type."""
        engine_id = self.engine_id.get(reported_id)
        return None if engine_id is None else UNIT_TYPES[engine_id]
