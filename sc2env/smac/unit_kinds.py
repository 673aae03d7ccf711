"""The unit kinds SMAC knows and how each map family turns unit type ids into kinds and one-hot indices."""

from __future__ import annotations

import dataclasses
import enum

import numpy as np

from sc2env.errors import SC2EnvError
from sc2env.gamedata.unit_ids import Protoss, Terran, Zerg


@dataclasses.dataclass(frozen=True)
class UnitKind:
    """One unit kind.

    name:         SMAC's name for it (its `<name>_id` attribute; PettingZoo's agent names).
    real_id:      the real game's unit type id (the enemy's units are real types).
    catalog:      the names of the agents' copies of it in the maps' data (`Marine_RL`; both spellings of
                  the Colossus's).
    max_cooldown: SMAC's normaliser of the weapon cooldown in the state, in game loops (the Medivac's is
                  its maximum energy: its state column holds energy instead).
    max_shield:   SMAC's normaliser of the shield (0: the kind has none).
    shoot_range:  SMACv2's shooting range of the kind with `use_unit_ranges` (before its minimum applies).
    sight_range:  SMACv2's sight range of the kind with `use_unit_ranges`.
    """

    name: str
    real_id: int
    catalog: tuple[str, ...]
    max_cooldown: float
    max_shield: float
    shoot_range: float
    sight_range: float


KINDS: dict[str, UnitKind] = {
    kind.name: kind
    for kind in (
        UnitKind("marine", Terran.Marine, ("Marine_RL",), 15, 0, 5, 9),
        UnitKind("marauder", Terran.Marauder, ("Marauder_RL",), 25, 0, 6, 10),
        UnitKind("medivac", Terran.Medivac, ("Medivac_RL",), 200, 0, 4, 11),
        UnitKind("stalker", Protoss.Stalker, ("Stalker_RL",), 35, 80, 6, 10),
        UnitKind("zealot", Protoss.Zealot, ("Zealot_RL",), 22, 50, 0.1, 9),
        UnitKind("colossus", Protoss.Colossus, ("Colosus_RL", "Colossus_RL"), 24, 150, 7, 10),
        UnitKind("hydralisk", Zerg.Hydralisk, ("Hydralisk_RL",), 10, 0, 5, 9),
        UnitKind("zergling", Zerg.Zergling, ("Zergling_RL",), 11, 0, 0.1, 8),
        UnitKind("baneling", Zerg.Baneling, ("Baneling_RL",), 1, 0, 0.25, 8),
    )
}
DEFAULT_MAX_COOLDOWN = 15.0
"""SMAC's cooldown normaliser for a unit of no known kind."""

KIND_OF_CATALOG: dict[str, str] = {name: kind.name for kind in KINDS.values() for name in kind.catalog}
KIND_OF_REAL_ID: dict[int, str] = {kind.real_id: kind.name for kind in KINDS.values()}

GENERATED_TYPE_ORDER: tuple[str, ...] = tuple(sorted(KINDS))
"""SMACv2's map defines all nine agent types; their ids follow the last real type in this order (their
catalog names' alphabetical order), so the first is the number of unit types the game lists minus nine."""


class MedivacRule(enum.Enum):
    """What Medivacs change. SMAC's MMM maps: a Medivac's target actions heal allies; a side of Medivacs alone
    has lost, the enemy when one real Medivac is its last unit. SMACv2's Terran teams: the same, except that
    the enemy has lost once it has no unit but Medivacs."""

    NONE = "none"
    SMAC = "smac"
    SMACV2 = "smacv2"


@dataclasses.dataclass(frozen=True)
class MapFamily:
    """How one of SMAC's map types reads unit types.

    allies:        the agents' kinds in type one-hot order; in SMAC's maps also their type ids' order, from
                   the lowest agent type id up.
    enemy_one_hot: the enemy's real type id -> index in the type one-hot; `enemy_other` for any other type
                   (None: no other type may appear). Used only when the scenario has unit type bits.
    """

    allies: tuple[str, ...]
    enemy_one_hot: dict[int, int] = dataclasses.field(default_factory=dict)
    enemy_other: int | None = None
    medivac_rule: MedivacRule = MedivacRule.NONE


def _generated(*kinds: str, medivac_rule: MedivacRule = MedivacRule.NONE) -> MapFamily:
    return MapFamily(kinds, {KINDS[k].real_id: i for i, k in enumerate(kinds)}, medivac_rule=medivac_rule)


MAP_FAMILIES: dict[str, MapFamily] = {
    "marines": MapFamily(("marine",)),
    # Zealot 0, Stalker 1: the reverse of the agents' one-hot (SMAC's enemy index is `unit_type - 73`).
    "stalkers_and_zealots": MapFamily(("stalker", "zealot"), {Protoss.Zealot: 0, Protoss.Stalker: 1}),
    "colossi_stalkers_zealots": MapFamily(
        ("colossus", "stalker", "zealot"), {Protoss.Colossus: 0, Protoss.Stalker: 1}, 2
    ),
    "MMM": MapFamily(
        ("marauder", "marine", "medivac"), {Terran.Marauder: 0, Terran.Marine: 1}, 2, MedivacRule.SMAC
    ),
    "zealots": MapFamily(("zealot",)),
    "hydralisks": MapFamily(("hydralisk",)),
    "stalkers": MapFamily(("stalker",)),
    "colossus": MapFamily(("colossus",)),
    "bane": MapFamily(("baneling", "zergling"), {Zerg.Baneling: 0}, 1),
    # SMACv2's generated teams: the one-hot order is per race, the same for both sides.
    "protoss_gen": _generated("stalker", "zealot", "colossus"),
    "terran_gen": _generated("marine", "marauder", "medivac", medivac_rule=MedivacRule.SMACV2),
    "zerg_gen": _generated("zergling", "hydralisk", "baneling"),
}


class UnitTypeError(SC2EnvError):
    """The game reported unit types that do not fit the scenario's map family."""


@dataclasses.dataclass(frozen=True)
class UnitTypes:
    """A map family resolved against the game's type ids.

    ally_kinds: the game's type id of each agent kind the map defines.
    """

    family: MapFamily
    ally_kinds: dict[int, str]

    @classmethod
    def from_first_ally_type(cls, family: MapFamily, first_ally_type: int) -> UnitTypes:
        """SMAC's maps: the agents' types are the map's own, numbered from the lowest id the agents have."""
        return cls(family, {first_ally_type + i: kind for i, kind in enumerate(family.allies)})

    @classmethod
    def from_type_count(cls, family: MapFamily, n_types: int) -> UnitTypes:
        """SMACv2's map: the nine agent types are the last of the `n_types` the game lists (RequestData)."""
        first = n_types - len(GENERATED_TYPE_ORDER)
        return cls(family, {first + i: kind for i, kind in enumerate(GENERATED_TYPE_ORDER)})

    def type_id(self, kind: str) -> int:
        """The game's type id of the agents' `kind` (SMAC's `marine_id` ...), 0 if the map has none."""
        return next((t for t, k in self.ally_kinds.items() if k == kind), 0)

    def ally_kinds_of(self, unit_type: np.ndarray) -> list[str]:
        """Each agent's kind, from its type id; raises on an id that is none of the map's agent types."""
        types = [int(t) for t in np.asarray(unit_type).ravel()]
        unknown = sorted({t for t in types if t not in self.ally_kinds})
        if unknown:
            known = ", ".join(f"{kind} {t}" for t, kind in self.ally_kinds.items())
            raise UnitTypeError(
                f"the agents' unit types {unknown} are none of this map's agent types ({known}): the "
                "game's type ids do not follow the map's data"
            )
        return [self.ally_kinds[t] for t in types]

    def enemy_kinds_of(self, unit_type: np.ndarray) -> list[str | None]:
        """Each enemy's kind, from its real type id (None for a type SMAC has no kind for: a Spine Crawler)."""
        return [KIND_OF_REAL_ID.get(int(t)) for t in np.asarray(unit_type).ravel()]

    def ally_one_hot_index(self, kinds: list[str]) -> np.ndarray:
        """Each agent's index in the type one-hot."""
        allies = self.family.allies
        missing = sorted({k for k in kinds if k not in allies})
        if missing:
            raise UnitTypeError(f"agents of kinds {missing} have no place in this map family's type one-hot")
        return np.array([allies.index(k) for k in kinds], np.int64)

    def enemy_one_hot_index(self, unit_type: np.ndarray) -> np.ndarray:
        """Each enemy's index in the type one-hot."""
        family = self.family
        types = [int(t) for t in np.asarray(unit_type).ravel()]
        index = [family.enemy_one_hot.get(t, family.enemy_other) for t in types]
        missing = sorted({t for t, i in zip(types, index) if i is None})
        if missing:
            raise UnitTypeError(
                f"enemy unit types {missing} have no place in this map family's type one-hot "
                f"(it knows {sorted(family.enemy_one_hot)})"
            )
        return np.array(index, np.int64)


def max_shield(kinds: list[str | None]) -> np.ndarray:
    """SMAC's shield normaliser of each unit (0 for a kind without shields)."""
    return np.array([KINDS[k].max_shield if k else 0.0 for k in kinds], np.float64)


def max_cooldown(kinds: list[str | None]) -> np.ndarray:
    """SMAC's cooldown normaliser of each unit (the Medivac's: its maximum energy)."""
    return np.array([KINDS[k].max_cooldown if k else DEFAULT_MAX_COOLDOWN for k in kinds], np.float64)
