"""Static StarCraft II game facts shared by the engine and the client side: version, clock, unit types, abilities."""

from sc2env.gamedata.abilities import ABILITIES, Ability, Target, specific_ability
from sc2env.gamedata.clock import LOOPS_PER_GAME_SECOND, LOOPS_PER_REAL_MINUTE, LOOPS_PER_REAL_SECOND
from sc2env.gamedata.units import (
    MAP_OWN_TYPES,
    REAL_TYPE_COUNT,
    UNIT_TYPES,
    Burst,
    Harvest,
    Heal,
    UnitType,
    Weapon,
    unit_type_by_name,
)
from sc2env.gamedata.version import BASE_BUILD, DATA_BUILD, DATA_VERSION, GAME_VERSION

__all__ = [
    "ABILITIES",
    "BASE_BUILD",
    "DATA_BUILD",
    "DATA_VERSION",
    "GAME_VERSION",
    "LOOPS_PER_GAME_SECOND",
    "LOOPS_PER_REAL_MINUTE",
    "LOOPS_PER_REAL_SECOND",
    "MAP_OWN_TYPES",
    "REAL_TYPE_COUNT",
    "UNIT_TYPES",
    "Ability",
    "Burst",
    "Harvest",
    "Heal",
    "Target",
    "UnitType",
    "Weapon",
    "specific_ability",
    "unit_type_by_name",
]
