"""SMAC's actions as the raw unit commands it sends: stop, move by a fixed amount, attack or heal a unit."""

from __future__ import annotations

import enum
from collections.abc import Sequence

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


def add_commands(
    request: sc_pb.RequestAction,
    actions: Sequence[int],
    tags: Sequence[int],
    x: Sequence[float],
    y: Sequence[float],
    move_amount: float,
    target_tags: Sequence[int],
    heals: Sequence[bool],
    unit_types: Sequence[int],
) -> None:
    """`add_command` for every agent (lists by agent id; a dead agent's action is a no-op), with the agents
    given the same stop, or the same attack or heal target with units of the same type, sharing one command
    that names all their units, in id order.

    A command of several units gives each unit the very order it would have had alone (a unit target is no
    point: no formation, no shared path; and units of one type can all do the same to it), so the game plays
    the same; it only reads fewer commands. Each move stays its own: its point is its unit's own.
    """
    shared: dict[tuple[int, int, int], raw_pb2.ActionRawUnitCommand] = {}
    for i, action in enumerate(actions):
        if action == NO_OP:
            continue
        if action in MOVES:
            add_command(request, action, tags[i], x[i], y[i], move_amount, 0, False)
            continue
        if action == STOP:
            key = (Ability.STOP, 0, 0)
        else:
            key = (Ability.HEAL if heals[i] else Ability.ATTACK, target_tags[i], unit_types[i])
        command = shared.get(key)
        if command is None:
            command = shared[key] = request.actions.add().action_raw.unit_command
            command.ability_id, target, _ = key
            command.queue_command = False
            if target:
                command.target_unit_tag = target
        command.unit_tags.append(tags[i])


def target_index(action: int) -> int:
    """The enemy (or, for a Medivac, ally) id a target action names."""
    return action - N_NO_ATTACK_ACTIONS
