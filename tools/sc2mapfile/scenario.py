"""One .SC2Map read into a scenario description (JSON-ready), and that description written deterministically."""

from __future__ import annotations

import hashlib
import json
import pathlib
from typing import Any

import mpyq

from . import catalog, galaxy, layers, triggers

FORMAT = "sc2env-smac-source/1"
_LINE = 120  # a JSON value that fits in this many characters (indent included) is written on one line
UNIT_DATA = "Base.SC2Data\\GameData\\UnitData.xml"
# Members read into the description, and the ones left out on purpose (what they hold, for the reader).
_NOT_READ = {
    "Base.SC2Data\\GameData\\ActorData.xml": "actors: models, sounds and art of the unit types (no gameplay)",
    "Triggers": "the trigger editor's XML, from which MapScript.galaxy (read) was generated",
    "t3HeightMap": "render mesh heights (t3SyncHeightMap, read, holds the gameplay heights)",
    "t3Terrain.xml": "terrain textures, cliff sets and render settings",
    "t3TextureMasks": "texture blend masks",
    "t3SyncTextureInfo": "texture info",
    "t3VertCol": "vertex colours",
    "t3HardTile": "empty in these maps",
    "t3FluffDoodad": "empty in these maps",
    "t3Water": "empty in these maps",
    "Minimap.tga": "the minimap picture",
    "PreloadAssetDB.txt": "asset preload list",
    "Preload.xml": "asset preload list",
    "ComponentList.SC2Components": "the list of members",
    "DocumentHeader": "editor document header",
    "DocumentInfo": "editor document info",
    "CustomAI": "empty custom AI settings",
}
_READ = {
    "MapInfo",
    "Objects",
    "MapScript.galaxy",
    UNIT_DATA,
    "t3CellFlags",
    "t3SyncCliffLevel",
    "t3SyncHeightMap",
    "CellAttribute_Cpl",
}


class MapFileError(ValueError):
    """A map file could not be read into a scenario; the message names the file and what was wrong."""


def _real_unit_names() -> set[str]:
    from sc2env.gamedata import unit_ids

    return {member.name for race in unit_ids.__all__ for member in getattr(unit_ids, race)}


def _member_is_text(name: str) -> bool:
    return name.endswith((".version", ".txt", ".xml")) or name in ("Objects", "Triggers", "MapScript.galaxy")


def read_map(path: pathlib.Path) -> dict[str, Any]:
    """The scenario an .SC2Map file defines: map info, points, unit types, triggers and terrain."""
    try:
        return _read(path)
    except (ValueError, KeyError, OSError) as error:
        raise MapFileError(f"{path}: {error}") from error


def _read(path: pathlib.Path) -> dict[str, Any]:
    data = path.read_bytes()
    archive = mpyq.MPQArchive(str(path))
    members = {name.decode(): archive.read_file(name.decode()) for name in archive.files}
    unknown = sorted(
        name
        for name in members
        if name not in _READ
        and name not in _NOT_READ
        and not name.endswith(".version")
        and not name.startswith("enUS.SC2Data")
    )
    if unknown:
        raise MapFileError(f"members this reader does not know: {', '.join(unknown)}")
    missing = sorted(name for name in _READ - {"CellAttribute_Cpl"} if members.get(name) is None)
    if missing:
        raise MapFileError(f"missing members: {', '.join(missing)}")

    info = layers.read_map_info(members["MapInfo"])
    points = catalog.read_points(members["Objects"])
    script = galaxy.parse(members["MapScript.galaxy"].decode("utf-8"))
    point_names = {point["id"]: point["name"] for point in points}
    cell_flags = layers.read_cell_flags(members["t3CellFlags"])
    cliffs = layers.read_cliff_levels(members["t3SyncCliffLevel"])
    heights, vertex_levels = layers.read_sync_heights(members["t3SyncHeightMap"])
    size = info.map_size
    for name, grid, (width, height) in (
        ("t3CellFlags", cell_flags, size),
        ("t3SyncCliffLevel", cliffs, size),
        ("t3SyncHeightMap", heights, (size[0] + 1, size[1] + 1)),
    ):
        if (len(grid[0]), len(grid)) != (width, height):
            raise MapFileError(f"{name} is {len(grid[0])}x{len(grid)}, the map {size[0]}x{size[1]}")
    terrain: dict[str, Any] = {
        "cell_flags": cell_flags,
        "cliff_level": cliffs,
        "vertex_height": heights,
        "vertex_cliff_level": vertex_levels,
    }
    if members.get("CellAttribute_Cpl") is not None:
        terrain["creep"] = layers.read_creep(members["CellAttribute_Cpl"], size)
    strings = members.get("enUS.SC2Data\\LocalizedData\\GameStrings.txt") or b""
    return {
        "format": FORMAT,
        "name": path.stem,
        "source": {"file": path.name, "sha256": hashlib.sha256(data).hexdigest()},
        "map_info": info.to_json(),
        "points": points,
        "unit_types": catalog.read_catalog(members[UNIT_DATA], UNIT_DATA, _real_unit_names()),
        "unit_names": _unit_names(strings.decode("utf-8-sig")),
        "groups": triggers.read_groups(script),
        "triggers": [trigger.to_json() for trigger in triggers.read_triggers(script, point_names)],
        "terrain": terrain,
    }


def _unit_names(game_strings: str) -> dict[str, str]:
    """`Unit/Name/Marine_RL=Marine` lines of GameStrings.txt: the names the map shows for its unit types."""
    names = {}
    for line in game_strings.splitlines():
        key, _, text = line.partition("=")
        if key.startswith("Unit/Name/"):
            names[key.removeprefix("Unit/Name/")] = text
    return dict(sorted(names.items()))


def spawned_units(description: dict[str, Any], event: str = "map_init") -> list[dict[str, Any]]:
    """The `spawn` actions of the triggers that run on `event`, in order (nested blocks included)."""
    found: list[dict[str, Any]] = []

    def walk(actions: list[Any]) -> None:
        for action in actions:
            kind, body = next(iter(action.items()))
            if kind == "spawn":
                found.append(body)
            elif kind == "if":
                walk(body["then"] + body.get("else", []))
            elif kind == "for_each_unit":
                walk(body["do"])

    for trigger in description["triggers"]:
        if any(event in e for e in trigger["events"]):
            walk(trigger["actions"])
    return found


def dumps(description: dict[str, Any]) -> str:
    """JSON text, two-space indented, each value on one line where it fits (a grid row, a spawn, a point)."""

    def render(value: Any, indent: str) -> str:
        inner = indent + "  "
        flat = json.dumps(value)
        if len(indent) + len(flat) <= _LINE or not isinstance(value, dict | list):
            return flat
        if isinstance(value, dict):
            items = [f"{inner}{json.dumps(key)}: {render(item, inner)}" for key, item in value.items()]
            return "{\n" + ",\n".join(items) + "\n" + indent + "}"
        if isinstance(value, list) and any(isinstance(item, dict | list) for item in value):
            return "[\n" + ",\n".join(inner + render(item, inner) for item in value) + "\n" + indent + "]"
        return flat

    return render(description, "") + "\n"
