"""SMAC's actions as the raw unit commands it sends: stop, move by a fixed amount, attack or heal a unit."""

from __future__ import annotations

import enum

from s2clientprotocol import raw_pb2
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env.smac.features import EAST, NO_OP, NORTH, SOUTH, STOP, WEST
from sc2env.smac.layout import N_NO_ATTACK_ACTIONS


class Ability(enum.IntEnum):
    """The specific ability ids SMAC commands with (not the general ones)."""

    STOP = 4
    MOVE = 16
    ATTACK = 23
    HEAL = 386  # MedivacHeal, the Medivac's Effect Heal


# (dx, dy) of each move action, in units of the move amount.
MOVES = {NORTH: (0, 1), SOUTH: (0, -1), EAST: (1, 0), WEST: (-1, 0)}


def unit_command(
    action: int, tag: int, x: float, y: float, move_amount: float, target_tag: int, heals: bool
) -> sc_pb.Action | None:
    """The command for one agent's action (None for a no-op): `tag` and (x, y) are the agent's unit, and
    `target_tag` the unit a target action names (an enemy, or an ally for a Medivac that heals)."""
    if action == NO_OP:
        return None
    command = raw_pb2.ActionRawUnitCommand(unit_tags=[tag], queue_command=False)
    if action == STOP:
        command.ability_id = Ability.STOP
    elif action in MOVES:
        dx, dy = MOVES[action]
        command.ability_id = Ability.MOVE
        command.target_world_space_pos.x = x + dx * move_amount
        command.target_world_space_pos.y = y + dy * move_amount
    else:
        command.ability_id = Ability.HEAL if heals else Ability.ATTACK
        command.target_unit_tag = target_tag
    return sc_pb.Action(action_raw=raw_pb2.ActionRaw(unit_command=command))


def target_index(action: int) -> int:
    """The enemy (or, for a Medivac, ally) id a target action names."""
    return action - N_NO_ATTACK_ACTIONS
