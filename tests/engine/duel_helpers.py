"""Helpers for the built-in AI's tests: a duel map's game with both seats joined, armies set face to face."""

from __future__ import annotations

import numpy as np

from sc2env.engine.computer import INTERFACE
from sc2env.engine.game import Game, Joining
from sc2env.engine.mapdef import builtin_definitions, parse_definition


def duel(map_name: str, seed: int = 1) -> Game:
    definition = parse_definition(builtin_definitions()[map_name])
    game = Game(definition, seed)
    slots = [slot.player_id for slot in definition.players]
    game.join_all([Joining(p, INTERFACE, s.race, f"AI {p}") for p, s in zip(slots, definition.players)])
    return game


def face_off(game: Game, gap: float = 4.0) -> None:
    """Both armies in two facing lines `gap` apart across the map's middle (every unit in a Marine's range)."""
    w = game.world
    for owner, x in ((1, 32.0 - gap / 2), (2, 32.0 + gap / 2)):
        rows = np.flatnonzero(w.owner == owner)
        w.pos[rows] = np.column_stack((np.full(len(rows), x), 30.0 + 0.8 * np.arange(len(rows))))


def targets(game: Game, owner: int) -> dict[int, int]:
    """Unit row -> the tag its first order targets, for `owner`'s units ordered onto a unit."""
    w = game.world
    rows = np.flatnonzero(w.owner == owner).tolist()
    return {i: w.orders[i][0].target_tag for i in rows if w.orders[i] and w.orders[i][0].target_tag}
