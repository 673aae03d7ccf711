"""Ability facts (ids, names, targets, general remaps) for the units the mini-games use, from real ResponseData."""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Target(enum.IntEnum):
    """`AbilityData.Target` values of data.proto."""

    NONE = 1
    POINT = 2
    UNIT = 3
    POINT_OR_UNIT = 4
    POINT_OR_NONE = 5


@dataclass(frozen=True)
class Ability:
    """One row of `ResponseData.abilities`; `remaps_to` is the general id (0 when the ability is general)."""

    ability_id: int
    link_name: str
    link_index: int
    button_name: str
    friendly_name: str
    hotkey: str
    remaps_to: int
    target: Target
    allow_minimap: bool
    building: bool = False
    footprint_radius: float = 0.0

    @property
    def requires_point(self) -> bool:
        """`AvailableAbility.requires_point`: true for every ability that takes a target."""
        return self.target is not Target.NONE

    @property
    def general_id(self) -> int:
        return self.remaps_to or self.ability_id


# Rows copied field by field from the python-sc2 `ResponseData` recording of build 4.10+ (../shared/realdata).
_TABLE = (
    Ability(1, "", 255, "Smart", "Smart", "", 0, Target.POINT_OR_UNIT, True),
    Ability(4, "stop", 0, "Stop", "Stop Stop", "W", 3665, Target.NONE, False),
    Ability(16, "move", 0, "Move", "Move Move", "Q", 3794, Target.POINT_OR_UNIT, True),
    Ability(17, "move", 1, "MovePatrol", "Patrol Patrol", "R", 3795, Target.POINT_OR_UNIT, True),
    Ability(18, "move", 2, "MoveHoldPosition", "HoldPosition Hold", "E", 3793, Target.NONE, False),
    Ability(23, "attack", 0, "Attack", "Attack Attack", "T", 3674, Target.POINT_OR_UNIT, True),
    Ability(42, "Explode", 0, "Explode", "Effect Explode", "X", 0, Target.NONE, False),
    Ability(386, "MedivacHeal", 0, "Heal", "Effect Heal", "Y", 0, Target.UNIT, False),
    Ability(195, "Rally", 0, "Rally", "Rally Building", "G", 3673, Target.POINT_OR_UNIT, True),
    Ability(203, "RallyCommand", 0, "Rally", "Rally CommandCenter", "G", 3690, Target.POINT_OR_UNIT, True),
    Ability(295, "SCVHarvest", 0, "Gather", "Harvest Gather SCV", "A", 3666, Target.UNIT, False),
    Ability(296, "SCVHarvest", 1, "ReturnCargo", "Harvest Return SCV", "S", 3667, Target.NONE, False),
    Ability(306, "que5", 0, "Cancel", "Cancel Queue5", "B", 3671, Target.NONE, False),
    Ability(
        308,
        "que5CancelToSelection",
        0,
        "Cancel",
        "Cancel QueueCancelToSelection",
        "B",
        3671,
        Target.NONE,
        False,
    ),
    Ability(314, "BuildInProgress", 0, "Cancel", "Cancel BuildInProgress", "B", 3659, Target.NONE, False),
    Ability(315, "BuildInProgress", 1, "Cancel", "Halt Building", "V", 3660, Target.NONE, False),
    Ability(316, "Repair", 0, "Repair", "Effect Repair SCV", "C", 3685, Target.UNIT, False),
    Ability(
        318,
        "TerranBuild",
        0,
        "CommandCenter",
        "Build CommandCenter",
        "YQ",
        0,
        Target.POINT,
        False,
        building=True,
        footprint_radius=2.5,
    ),
    Ability(
        319,
        "TerranBuild",
        1,
        "SupplyDepot",
        "Build SupplyDepot",
        "YE",
        0,
        Target.POINT,
        False,
        building=True,
        footprint_radius=1.0,
    ),
    Ability(
        320,
        "TerranBuild",
        2,
        "Refinery",
        "Build Refinery",
        "YW",
        0,
        Target.UNIT,
        False,
        building=True,
        footprint_radius=1.5,
    ),
    Ability(
        321,
        "TerranBuild",
        3,
        "Barracks",
        "Build Barracks",
        "YA",
        0,
        Target.POINT,
        False,
        building=True,
        footprint_radius=1.5,
    ),
    Ability(
        322,
        "TerranBuild",
        4,
        "EngineeringBay",
        "Build EngineeringBay",
        "YS",
        0,
        Target.POINT,
        False,
        building=True,
        footprint_radius=1.5,
    ),
    Ability(380, "Stimpack", 0, "Stim", "Effect Stim Marine", "Y", 3675, Target.NONE, False),
    Ability(524, "CommandCenterTrain", 0, "SCV", "Train SCV", "Q", 0, Target.NONE, False),
    Ability(556, "SupplyDepotLower", 0, "Lower", "Morph SupplyDepot Lower", "X", 0, Target.NONE, False),
    Ability(558, "SupplyDepotRaise", 0, "Raise", "Morph SupplyDepot Raise", "Y", 0, Target.NONE, False),
    Ability(560, "BarracksTrain", 0, "Marine", "Train Marine", "Q", 0, Target.NONE, False),
    Ability(3659, "Cancel", 0, "Cancel", "Cancel", "", 0, Target.NONE, False),
    Ability(3660, "Halt", 0, "Halt", "Halt", "", 0, Target.NONE, False),
    Ability(3665, "Stop", 0, "Stop", "Stop", "", 0, Target.NONE, False),
    Ability(3666, "HarvestGather", 0, "HarvestGather", "Harvest Gather", "", 0, Target.UNIT, False),
    Ability(3667, "HarvestReturn", 0, "HarvestReturn", "Harvest Return", "", 0, Target.NONE, False),
    Ability(3671, "CancelLast", 0, "CancelLast", "Cancel Last", "", 0, Target.NONE, False),
    Ability(3673, "GeneralRallyUnits", 0, "Rally Units", "Rally Units", "", 0, Target.POINT_OR_UNIT, True),
    Ability(3674, "GeneralAttack", 0, "Attack", "Attack", "", 0, Target.POINT_OR_UNIT, True),
    Ability(3675, "GeneralStimpack", 0, "Stim", "Effect Stim", "", 0, Target.NONE, False),
    Ability(3685, "RepairGeneral", 0, "Repair", "Effect Repair", "", 0, Target.UNIT, False),
    Ability(
        3690, "GeneralRallyWorkers", 0, "Rally Workers", "Rally Workers", "", 0, Target.POINT_OR_UNIT, True
    ),
    Ability(3793, "GeneralHoldPosition", 0, "HoldPosition", "HoldPosition", "", 0, Target.NONE, False),
    Ability(3794, "GeneralMove", 0, "Move", "Move", "", 0, Target.POINT_OR_UNIT, True),
    Ability(3795, "GeneralPatrol", 0, "Patrol", "Patrol", "", 0, Target.POINT_OR_UNIT, True),
)

ABILITIES: dict[int, Ability] = {a.ability_id: a for a in _TABLE}


def specific_ability(ability_id: int, command_card: tuple[int, ...]) -> int | None:
    """The specific ability a unit with `command_card` runs for `ability_id` (general or specific), or None.

    The game accepts both forms: a general id (Move 3794) resolves to the card's ability that remaps to it
    (Move 16); a specific id is accepted only if it is on the card. Smart (1) is on every command card.
    """
    if ability_id == 1 or ability_id in command_card:
        return ability_id
    for specific in command_card:
        if ABILITIES[specific].remaps_to == ability_id:
            return specific
    return None
