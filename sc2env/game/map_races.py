"""The race a player plays on a shipped map: its definition's player slot, which the race it joins with can't change."""

from __future__ import annotations

import json
import os
import pathlib

from sc2env.game.maps import MINI_GAMES, is_definition_path, two_player_maps
from sc2env.mapfiles import definitions_dir
from sc2env.safefile import MAX_DEFINITION_BYTES, read_regular_file

DEFAULT_SLOT_RACE = "Terran"
"""A definition's player slot without a "race" plays Terran, as the engine reads it."""


def mini_game_definition(map_name: str) -> pathlib.Path | None:
    """The definition file of the mini-game `map_name` names (a definition file itself, or a shipped mini-game
    by name in any case, or by the path of its .SC2Map), or None for any other map."""
    if is_definition_path(map_name):
        return pathlib.Path(map_name)
    stem = pathlib.PurePath(map_name).name
    stem = stem[: -len(".SC2Map")] if stem.lower().endswith(".sc2map") else stem
    for name in MINI_GAMES:
        if name.lower() == stem.lower():
            return definitions_dir() / f"{name}.json"
    return None


def mini_game_race(map_name: str) -> str | None:
    """The race ("Terran", ...) of the agent's slot on the mini-game `map_name` names, or None for other maps
    (or a definition that can't be read: loading it says why)."""
    file = mini_game_definition(map_name)
    if file is None:
        return None
    try:
        spec = json.loads(read_regular_file(file, MAX_DEFINITION_BYTES).decode("utf-8-sig"))
        race = spec["players"][0].get("race", DEFAULT_SLOT_RACE)
    except (OSError, ValueError, KeyError, IndexError, TypeError, AttributeError, RecursionError):
        return None
    return race if isinstance(race, str) else None


def two_player_race(map_name: str, player_id: int) -> str | None:
    """The race ("Terran", ...) of slot `player_id` (1 or 2) on the shipped two-player map `map_name` (any
    case, or the path of its .SC2Map), or None for other maps."""
    stem = pathlib.PurePath(map_name).name
    stem = stem[: -len(".SC2Map")] if stem.lower().endswith(".sc2map") else stem
    for name, spec in two_player_maps().items():
        if name.lower() == stem.lower() and 0 < player_id <= len(spec.races):
            return spec.races[player_id - 1]
    return None


def slot_race(map_name: str, player_id: int = 1) -> str | None:
    """The race the map `map_name` gives player `player_id`'s slot, or None where the map leaves it open."""
    race = mini_game_race(map_name) if player_id == 1 else None
    return race if race is not None else two_player_race(map_name, player_id)


MELEE_FOLDER = "Melee"
"""Where the melee maps live (Simple64): StarCraft II starts each race with its own base on them."""


def is_melee(map_name: str) -> bool:
    """Whether `map_name` is a shipped melee map, whose real game gives any race its own start."""
    stem = pathlib.PurePath(map_name).name
    stem = stem[: -len(".SC2Map")] if stem.lower().endswith(".sc2map") else stem
    spec = {name.lower(): spec for name, spec in two_player_maps().items()}.get(stem.lower())
    return spec is not None and spec.path.startswith(f"{MELEE_FOLDER}/")


def check_race(map_name: str, race: str, player_id: int = 1) -> None:
    """ValueError when `race` is not the race the shipped map `map_name` gives player `player_id` (its units are
    the map's whatever race joins, so another race would be accepted and silently ignored). Melee maps pass:
    StarCraft II starts every race there, and the built-in engine refuses the races it has no start for."""
    if is_melee(map_name):
        return
    slot = slot_race(map_name, player_id)
    if slot is None or slot.lower() == "random" or race.lower() == slot.lower():
        return
    if two_player_race(map_name, player_id) is not None:
        raise ValueError(
            f"{pathlib.PurePath(map_name).stem} gives player {player_id} {slot} units whatever race joins, so "
            f"race={race!r} would not be played; pass race={slot.lower()!r}, or leave race out (the map's race "
            "is the default)"
        )
    file = mini_game_definition(map_name)
    shown = os.path.basename(map_name) if is_definition_path(map_name) or file is None else file.stem
    raise ValueError(
        f"{shown} is a {slot} mini-game: its units are {slot} whatever race joins, so race={race!r} would "
        f"not be played; pass race={slot.lower()!r}, or leave race out (the map's race is the default)"
    )
