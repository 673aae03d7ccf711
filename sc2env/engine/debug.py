"""The debug commands a client may send a game: kill and create units, set their vitals; drawing is ignored."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from s2clientprotocol import debug_pb2

from sc2env.engine.mapdef import RESULTS

if TYPE_CHECKING:
    from sc2env.engine.game import Game

MAX_OWNER = 16  # player ids: 0 neutral, 1-15 players, 16 the game's own neutral
MAX_CREATED = 1000
"""The most units one create_unit command makes (a client asking for millions gets an error, not a hang)."""
_VITALS = {
    debug_pb2.DebugSetUnitValue.Life: ("health", "health_max"),
    debug_pb2.DebugSetUnitValue.Shields: ("shields", "shields_max"),
    debug_pb2.DebugSetUnitValue.Energy: ("energy", "energy_max"),
}
# Commands accepted and left without effect: drawing (SMACv2 draws its agents' view cones each step) and the
# cheats and test hooks the engine has nothing for.
_IGNORED = ("draw", "game_state", "test_process", "score")


def apply(game: Game, commands: Iterable[debug_pb2.DebugCommand]) -> list[str]:
    """Run the commands in order; returns an error message per command that could not run."""
    problems = []
    for n, command in enumerate(commands):
        kind = command.WhichOneof("command")
        if kind is None or kind in _IGNORED:
            continue
        problem = _COMMANDS[kind](game, getattr(command, kind))
        if problem:
            problems.append(f"debug command {n} ({kind}): {problem}")
    return problems


def _kill_unit(game: Game, command: debug_pb2.DebugKillUnit) -> str:
    game.debug_kill(list(command.tag))  # tags of no unit are skipped, as the game does
    return ""


def _create_unit(game: Game, command: debug_pb2.DebugCreateUnit) -> str:
    unit_type = game.type_ids.unit_type(command.unit_type)
    if unit_type is None:
        unplayed = game.type_ids.unplayed.get(command.unit_type)
        if unplayed is not None:
            return f"unit type {command.unit_type} ({unplayed}) is the map's, but the built-in engine does not play it yet"
        own = ", ".join(f"{t.name} {t.unit_id}" for t in game.type_ids.own)
        return (
            f"unit type {command.unit_type} is none the built-in engine plays on this map (see RequestData"
            + (f"; the map's own types: {own})" if own else ")")
        )
    quantity = command.quantity if command.HasField("quantity") else 1
    if not 0 < quantity <= MAX_CREATED:
        return f"quantity must be 1 to {MAX_CREATED}, got {quantity}"
    owner = command.owner if command.HasField("owner") else game.player.player_id
    if not 0 <= owner <= MAX_OWNER:
        return f"owner must be a player id 0 (neutral) to {MAX_OWNER}, got {owner}"
    width, height = game.definition.map_size
    x, y = command.pos.x, command.pos.y
    if not (0 <= x <= width and 0 <= y <= height):
        return f"pos ({x:g}, {y:g}) is off the {width}x{height} map: give a point from (0, 0) to ({width}, {height})"
    # On the map but off the walkable ground: the nearest walkable point, as the game's placement does.
    game.debug_create(unit_type, owner, *game.definition.walkable.clamp(x, y), quantity)
    return ""


def _unit_value(game: Game, command: debug_pb2.DebugSetUnitValue) -> str:
    w = game.world
    if not w.exists(command.unit_tag):
        return ""  # as the game: a tag of no unit is skipped
    i = w.slot(command.unit_tag)
    value, maximum = _VITALS[command.unit_value]
    getattr(w, value)[i] = min(max(float(command.value), 0.0), float(getattr(w, maximum)[i]))
    w.version += 1
    if command.unit_value == debug_pb2.DebugSetUnitValue.Life and w.health[i] <= 0:
        game.debug_kill([command.unit_tag])
    return ""


def _end_game(game: Game, command: debug_pb2.DebugEndGame) -> str:
    won = command.end_result == debug_pb2.DebugEndGame.DeclareVictory
    game.scenario.result = RESULTS["Victory" if won else "Defeat"]
    return ""


_COMMANDS: dict[str, Callable[[Game, Any], str]] = {
    "kill_unit": _kill_unit,
    "create_unit": _create_unit,
    "unit_value": _unit_value,
    "end_game": _end_game,
}
