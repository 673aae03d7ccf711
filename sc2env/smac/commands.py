"""SMAC's actions as the raw unit commands it sends: stop, move by a fixed amount, attack or heal a unit."""

from __future__ import annotations

import enum

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


def add_command(
    request: sc_pb.RequestAction,
    action: int,
    tag: int,
    x: float,
    y: float,
    move_amount: float,
    target_tag: int,
    heals: bool,
) -> None:
    """Append the raw unit command one agent's action stands for (nothing for a no-op), as SMAC sends it: one
    command per agent, never queued. `tag` and (x, y) are the agent's unit; `target_tag` the unit a target
    action names (an enemy, or an ally for a Medivac that heals)."""
    if action == NO_OP:
        return
    # Filled in place: building the nested messages and copying them in costs several times more.
    command = request.actions.add().action_raw.unit_command
    command.unit_tags.append(tag)
    command.queue_command = False
    if action == STOP:
        command.ability_id = Ability.STOP
    elif action in MOVES:
        dx, dy = MOVES[action]
        command.ability_id = Ability.MOVE
        point = command.target_world_space_pos
        point.x = x + dx * move_amount
        point.y = y + dy * move_amount
    else:
        command.ability_id = Ability.HEAL if heals else Ability.ATTACK
        command.target_unit_tag = target_tag


def target_index(action: int) -> int:
    """The enemy (or, for a Medivac, ally) id a target action names."""
    return action - N_NO_ATTACK_ACTIONS
