"""Mini-game definitions: parse and validate the JSON files in `maps/`, and find one by name, path or content."""

from __future__ import annotations

import codecs
import difflib
import hashlib
import json
import math
import os
import pathlib
import posixpath
from dataclasses import dataclass, field

import numpy as np
from s2clientprotocol import common_pb2
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env.engine.ground import Ground, GroundError, parse_ground
from sc2env.engine.limits import MAX_MAP_SIDE
from sc2env.engine.world import Bounds
from sc2env.gamedata import MAP_OWN_TYPES
from sc2env.mapfiles import DEFINITION_FORMAT as FORMAT
from sc2env.mapfiles import MAX_GAME_LOOPS, definitions_dir

RACES = {name: common_pb2.Race.Value(name) for name in ("Terran", "Zerg", "Protoss", "Random")}
"""The races a player slot may have, as common.proto's Race values."""
VISION = ("reveal_playable", "reveal_all", "fog")
RESULTS = dict(sc_pb.Result.items())
"""Game results a definition may end with, as sc2api.proto's Result values."""


class MapDefinitionError(ValueError):
    """A definition that can't be used; the message names the field and what is expected."""


class ScriptError(MapDefinitionError):
    """A map script that failed as it ran (no room left to place a unit, an anchor not set yet, too many units),
    which no check at load can foresee; `where` is the failing action's path (`setup[1].spawn`) once known."""

    def __init__(self, reason: str, where: str | None = None):
        super().__init__(reason if where is None else f"{where}: {reason}")
        self.where = where


@dataclass(frozen=True)
class Shape:
    """A rectangle (x0, y0, x1, y1) or a circle (cx, cy, r)."""

    kind: str
    values: tuple[float, ...]

    def contains(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        if self.kind == "rect":
            x0, y0, x1, y1 = self.values
            return (x >= x0) & (x <= x1) & (y >= y0) & (y <= y1)
        cx, cy, r = self.values
        return (x - cx) ** 2 + (y - cy) ** 2 <= r * r

    def box(self) -> tuple[float, float, float, float]:
        if self.kind == "rect":
            return self.values  # type: ignore[return-value]
        cx, cy, r = self.values
        return (cx - r, cy - r, cx + r, cy + r)


@dataclass(frozen=True)
class Region:
    """The union of `shapes` minus the union of `minus`, as in SC2 map regions (negative shapes)."""

    shapes: tuple[Shape, ...]
    minus: tuple[Shape, ...] = ()

    def contains(self, x, y) -> np.ndarray:
        x, y = np.asarray(x, float), np.asarray(y, float)
        inside = np.zeros(np.broadcast(x, y).shape, bool)
        for s in self.shapes:
            inside |= s.contains(x, y)
        for s in self.minus:
            inside &= ~s.contains(x, y)
        return inside

    def area(self) -> float:
        """About how much area it covers: its share of a 256 x 256 grid of points over its box (0 only when
        no point of that grid lies in it)."""
        x0, y0, x1, y1 = self.bounds()
        xs = x0 + (np.arange(256) + 0.5) * (x1 - x0) / 256
        ys = y0 + (np.arange(256) + 0.5) * (y1 - y0) / 256
        inside = self.contains(xs[None, :], ys[:, None])
        return float(np.count_nonzero(inside)) / inside.size * (x1 - x0) * (y1 - y0)

    def bounds(self) -> tuple[float, float, float, float]:
        """(x0, y0, x1, y1): the box round all its shapes."""
        boxes = np.array([s.box() for s in self.shapes])
        return boxes[:, 0].min(), boxes[:, 1].min(), boxes[:, 2].max(), boxes[:, 3].max()

    def sample(self, rng: np.random.Generator, count: int) -> np.ndarray:
        """`count` uniform random points of the region, shape (count, 2)."""
        x0, y0, x1, y1 = self.bounds()
        out = np.empty((0, 2))
        for _ in range(1000):
            pts = rng.uniform((x0, y0), (x1, y1), size=(max(16, 2 * count), 2))
            out = np.concatenate([out, pts[self.contains(pts[:, 0], pts[:, 1])]])
            if len(out) >= count:
                return out[:count]
        raise ScriptError("the region has (almost) no area to place units in")

    def centre(self) -> tuple[float, float]:
        x0, y0, x1, y1 = self.shapes[0].box()
        return ((x0 + x1) / 2, (y0 + y1) / 2)


MAX_PLAYERS = 2  # the engine plays single-agent maps and two-player duels


def _slot_point(value, where: str) -> tuple[float, float]:
    """A finite [x, y] pair, or MapDefinitionError naming `where`."""
    point = _point(value)
    if point is None:
        raise MapDefinitionError(f"{where}: expected a finite [x, y], got {value!r}")
    return point


@dataclass(frozen=True)
class PlayerSlot:
    """A player's place on the map: its id, race and name, and where its camera starts (None: the map's)."""

    player_id: int
    race: int
    name: str
    camera_start: tuple[float, float] | None = None


@dataclass(frozen=True)
class MapDefinition:
    """One mini-game: terrain and bounds, players, regions, the setup script and the triggers.

    `setup`, `procedures`, `placements` and `triggers` stay as parsed JSON; `sc2env.engine.scenario` interprets them.
    """

    name: str
    description: str
    map_size: tuple[int, int]
    playable_area: Bounds
    camera_bounds: Bounds
    camera_start: tuple[float, float]
    camera_locked: bool
    vision: str
    terrain_height: float
    time_limit: int
    timeout_result: str
    players: tuple[PlayerSlot, ...]
    start_locations: tuple[tuple[float, float], ...]
    regions: dict[str, Region]
    setup: list
    triggers: list
    procedures: dict = field(default_factory=dict)
    placements: dict = field(default_factory=dict)
    command_cards: dict = field(default_factory=dict)
    source: bytes = b""
    map_folder: str = "mini_games"
    opponent: str = "script"  # who plays the second slot: "script" (the map's triggers) or "player"
    pathable_area: Bounds | None = None  # where units may stand; None: the playable area
    map_types: tuple[str, ...] = ()  # the map's own unit types (`Marine_RL`), in its catalog's order
    map_files: tuple[str, ...] = ()  # SHA-256 (hex) of real map files that play as this definition
    ground: Ground = field(default_factory=Ground)  # cell-by-cell pathing and heights, when the map has them

    @property
    def path(self) -> str:
        """The path clients ask for: `<map_folder>/<Name>.SC2Map` (`mini_games/MoveToBeacon.SC2Map`)."""
        return f"{self.map_folder}/{self.name}.SC2Map"

    @property
    def walkable(self) -> Bounds:
        """The rectangle units stand in: `pathable_area`, else the box round the pathing grid's pathable cells,
        else the playable area."""
        return self.pathable_area or self.ground.bounds or self.playable_area


def _shape(spec, where: str) -> Shape:
    if isinstance(spec, dict) and len(spec) == 1:
        ((kind, values),) = spec.items()
        if (
            kind in ("rect", "circle")
            and isinstance(values, list)
            and len(values) == (4 if kind == "rect" else 3)
            and all(is_number(v) and abs(v) <= _FAR for v in values)
        ):
            shape = Shape(kind, tuple(float(v) for v in values))
            x0, y0, x1, y1 = shape.box()
            if x1 > x0 and y1 > y0:
                return shape
    raise MapDefinitionError(
        f"{where}: expected {{'rect': [x0, y0, x1, y1]}} or {{'circle': [x, y, r]}} of some size, its numbers "
        f"within +-{_FAR:g}, got {spec!r}"[:400]
    )


_FAR = 1e6  # no shape reaches further than this from the origin (a minus shape off the map does nothing)


def is_number(value) -> bool:
    """Whether `value` is a JSON number a float holds (not true, NaN, infinity or 10**400)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:  # an int too big for a float
        return False


def _point(value) -> tuple[float, float] | None:
    """`value` as (x, y) if it is a pair of finite numbers, else None."""
    if isinstance(value, (list, tuple)) and len(value) == 2 and all(map(is_number, value)):
        return float(value[0]), float(value[1])
    return None


def _region(spec, where: str) -> Region:
    if not isinstance(spec, dict):
        raise MapDefinitionError(f"{where}: a region is an object, got {spec!r}")
    check_fields(spec, _REGION_FIELDS, where)
    for key in ("any", "minus"):
        if not isinstance(spec.get(key, []), list):
            raise MapDefinitionError(f"{where}.{key}: expected a list of shapes, got {spec[key]!r}"[:400])
    shapes = [_shape({k: v}, where) for k, v in spec.items() if k in ("rect", "circle")]
    shapes += [_shape(s, f"{where}.any[{n}]") for n, s in enumerate(spec.get("any", []))]
    if not shapes:
        raise MapDefinitionError(f"{where}: a region needs 'rect', 'circle' or 'any'")
    minus = tuple(_shape(s, f"{where}.minus[{n}]") for n, s in enumerate(spec.get("minus", [])))
    return Region(tuple(shapes), minus)


# The fields of a definition and of its players and regions: a misspelt optional one ("vison") is refused,
# not left at its default.
_FIELDS = frozenset(
    {
        "format",
        "name",
        "description",
        "map_size",
        "playable_area",
        "camera_bounds",
        "camera_start",
        "camera_locked",
        "vision",
        "terrain_height",
        "time_limit",
        "timeout_result",
        "players",
        "start_locations",
        "regions",
        "setup",
        "triggers",
        "procedures",
        "placements",
        "command_cards",
        "map_folder",
        "opponent",
        "pathable_area",
        "map_types",
        "map_files",
        "pathing_grid",
        "placement_grid",
        "height_map",
    }
)
OPPONENTS = ("script", "player")
"""Who plays a map's second slot: its script (SMAC's scenarios, the mini-games' enemies; a Computer in
player_setup is taken and plays no part) or a player (a second Participant, or the built-in AI)."""
_PLAYER_FIELDS = frozenset({"player_id", "race", "name", "camera_start"})
_REGION_FIELDS = frozenset({"rect", "circle", "any", "minus"})


def check_fields(spec, known, where: str) -> None:
    """MapDefinitionError naming the first field of the object `spec` that is not in `known` (with the nearest
    known names); anything but an object is left to the checks of its kind."""
    if not isinstance(spec, dict):
        return
    for key in spec:
        if key not in known:
            near = difflib.get_close_matches(str(key), known, n=1)
            hint = f"; did you mean {near[0]!r}?" if near else ""
            raise MapDefinitionError(
                f"{where}: unknown field {key!r}{hint} (known: {', '.join(sorted(known))})"
            )


def _whole(value, where: str) -> int:
    """`value` as an int if it is a whole number (16 or 16.0; not 16.7, true, infinity or NaN)."""
    whole = (isinstance(value, int) and not isinstance(value, bool)) or (
        is_number(value) and float(value).is_integer()
    )
    if not whole:
        raise MapDefinitionError(f"{where}: expected a whole number, got {value!r}")
    return int(value)


def _bounds(values, where: str) -> Bounds:
    if not (isinstance(values, list) and len(values) == 4):
        raise MapDefinitionError(f"{where}: expected [x0, y0, x1, y1], got {values!r}")
    if not all(map(is_number, values)):
        raise MapDefinitionError(f"{where}: expected finite numbers, got {values!r}")
    x0, y0, x1, y1 = (float(v) for v in values)
    if not (x1 > x0 and y1 > y0):
        raise MapDefinitionError(f"{where}: empty rectangle {values!r}")
    return Bounds(x0, y0, x1, y1)


def parse_definition(data: bytes | str) -> MapDefinition:
    """Parse a definition from JSON text; MapDefinitionError says which field is wrong."""
    try:
        spec = json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise MapDefinitionError(f"not an sc2env mini-game definition (invalid JSON: {e})") from None
    except RecursionError:
        raise MapDefinitionError("not an sc2env mini-game definition (JSON nested too deeply)") from None
    if not isinstance(spec, dict) or spec.get("format") != FORMAT:
        raise MapDefinitionError(f'not an sc2env mini-game definition (needs "format": "{FORMAT}")')
    check_fields(spec, _FIELDS, "the definition")
    try:
        name = spec["name"]
        if not (isinstance(name, str) and name):
            raise MapDefinitionError(f"name: expected a non-empty string, got {name!r}")
        width, height = (_whole(v, "map_size") for v in spec["map_size"])
        if not (0 < width <= MAX_MAP_SIDE and 0 < height <= MAX_MAP_SIDE):
            raise MapDefinitionError(f"map_size: 1 to {MAX_MAP_SIDE} cells a side, got {spec['map_size']!r}")
        playable = _bounds(spec["playable_area"], "playable_area")
        for key in ("regions", "procedures", "placements", "command_cards"):
            if not isinstance(spec.get(key, {}), dict):
                raise MapDefinitionError(f"{key}: expected an object (name: ...), got {spec[key]!r}"[:400])
        regions = {
            "playable_area": Region((Shape("rect", (playable.x0, playable.y0, playable.x1, playable.y1)),))
        }
        regions.update({k: _region(v, f"regions.{k}") for k, v in spec.get("regions", {}).items()})
        if not isinstance(spec["players"], list):
            raise MapDefinitionError(f"players: expected a list of player slots, got {spec['players']!r}")
        for i, p in enumerate(spec["players"]):
            if not isinstance(p, dict):
                raise MapDefinitionError(
                    f'players[{i}]: expected an object like {{"player_id": 1}}, got {p!r}'
                )
            check_fields(p, _PLAYER_FIELDS, f"players[{i}]")
            player_id = _whole(p["player_id"], f"players[{i}].player_id")
            if not 1 <= player_id <= 15 or player_id in (int(q["player_id"]) for q in spec["players"][:i]):
                raise MapDefinitionError(
                    f"players[{i}].player_id: a player id from 1 to 15 no other slot has"
                )
            if not isinstance(p.get("name", ""), str):
                raise MapDefinitionError(f"players[{i}].name: expected a string, got {p['name']!r}")
            race = p.get("race", "Terran")
            if not (isinstance(race, str) and race in RACES):  # not a KeyError: that reads as a missing field
                raise MapDefinitionError(f"players[{i}].race: expected one of {sorted(RACES)}, got {race!r}")
        players = tuple(
            PlayerSlot(
                int(p["player_id"]),
                RACES[p.get("race", "Terran")],
                str(p.get("name", f"Player {i + 1}")),
                _slot_point(p["camera_start"], f"players[{i}].camera_start") if "camera_start" in p else None,
            )
            for i, p in enumerate(spec["players"])
        )
        if not 1 <= len(players) <= MAX_PLAYERS:
            raise MapDefinitionError(
                f"players: at least one player slot and at most {MAX_PLAYERS}, got {len(players)}"
            )
        if len({p.player_id for p in players}) != len(players) or not all(p.player_id > 0 for p in players):
            raise MapDefinitionError("players: each slot needs its own player_id, 1 or more")
        vision = spec.get("vision", "reveal_playable")
        if vision not in VISION:
            raise MapDefinitionError(f"vision: expected one of {VISION}, got {vision!r}")
        camera = _point(spec.get("camera_start", regions["playable_area"].centre()))
        if camera is None:
            raise MapDefinitionError(
                f"camera_start: expected a finite [x, y], got {spec.get('camera_start')!r}"
            )
        cards = spec.get("command_cards", {})
        for unit_name, card in cards.items():
            if not (isinstance(card, list) and all(isinstance(a, int) for a in card)):
                raise MapDefinitionError(f"command_cards.{unit_name}: expected a list of ability ids")
        time_limit = _whole(spec["time_limit"], "time_limit")
        if not 0 < time_limit <= MAX_GAME_LOOPS:
            raise MapDefinitionError(
                f"time_limit: a positive number of game loops up to {MAX_GAME_LOOPS}, got {time_limit}"
            )
        timeout_result = spec.get("timeout_result", "Tie")
        if not (isinstance(timeout_result, str) and timeout_result in RESULTS):
            raise MapDefinitionError(
                f"timeout_result: expected one of {tuple(RESULTS)}, got {timeout_result!r}"
            )
        terrain_height = spec.get("terrain_height", 10.0)
        if not is_number(terrain_height):
            raise MapDefinitionError(f"terrain_height: expected a finite number, got {terrain_height}")
        listed = spec.get("start_locations", [])
        starts = tuple(map(_point, listed)) if isinstance(listed, list) else (None,)
        if None in starts:
            raise MapDefinitionError(
                f"start_locations: expected finite [x, y] pairs, got {spec['start_locations']!r}"
            )
        map_folder = spec.get("map_folder", "mini_games")
        if not (
            isinstance(map_folder, str) and map_folder and "/" not in map_folder and "\\" not in map_folder
        ):
            raise MapDefinitionError(
                f"map_folder: expected a folder name like 'SMAC_Maps', got {map_folder!r}"
            )
        opponent = spec.get("opponent", "script")
        if opponent not in OPPONENTS:
            raise MapDefinitionError(f"opponent: expected one of {OPPONENTS}, got {opponent!r}")
        if opponent == "player" and len(spec["players"]) != 2:
            raise MapDefinitionError(
                f'opponent: "player" needs two player slots, the map has {len(spec["players"])}'
            )
        pathable = _bounds(spec["pathable_area"], "pathable_area") if "pathable_area" in spec else None
        if pathable is not None and not (
            playable.x0 <= pathable.x0
            and playable.y0 <= pathable.y0
            and pathable.x1 <= playable.x1
            and pathable.y1 <= playable.y1
        ):
            raise MapDefinitionError(
                f"pathable_area: must lie inside the playable area, got {spec['pathable_area']!r}"
            )
        try:
            ground = parse_ground(spec, (width, height))
        except GroundError as e:
            raise MapDefinitionError(str(e)) from None
        box = ground.bounds
        if box is not None and not (
            playable.x0 <= box.x0
            and playable.y0 <= box.y0
            and box.x1 <= playable.x1
            and box.y1 <= playable.y1
        ):
            raise MapDefinitionError(
                f"pathing_grid: its pathable cells must lie inside the playable area, they span "
                f"{[box.x0, box.y0, box.x1, box.y1]}"
            )
        map_types = spec.get("map_types", [])
        if not (isinstance(map_types, list) and all(name in MAP_OWN_TYPES for name in map_types)):
            raise MapDefinitionError(
                f"map_types: expected a list of the map's own unit types ({', '.join(MAP_OWN_TYPES)}), "
                f"got {map_types!r}"[:300]
            )
        map_files = spec.get("map_files", [])
        if not (isinstance(map_files, list) and all(_is_sha256(h) for h in map_files)):
            raise MapDefinitionError(
                f"map_files: expected a list of SHA-256 hex digests, got {map_files!r}"[:300]
            )
        for key in ("setup", "triggers"):
            items = spec.get(key, [])
            if not (isinstance(items, list) and all(isinstance(item, dict) for item in items)):
                raise MapDefinitionError(f"{key}: expected a list of objects, got {items!r}"[:300])
        return MapDefinition(
            name=name,
            description=spec.get("description", ""),
            map_size=(width, height),
            playable_area=playable,
            camera_bounds=_bounds(spec.get("camera_bounds", [0, 0, width, height]), "camera_bounds"),
            camera_start=camera,
            camera_locked=bool(spec.get("camera_locked", False)),
            vision=vision,
            terrain_height=float(terrain_height),
            time_limit=time_limit,
            timeout_result=timeout_result,
            players=players,
            start_locations=tuple(p for p in starts if p is not None),  # all pairs, as checked above
            regions=regions,
            setup=list(spec.get("setup", [])),
            triggers=list(spec.get("triggers", [])),
            procedures=dict(spec.get("procedures", {})),
            placements=dict(spec.get("placements", {})),
            command_cards=dict(cards),
            source=data.encode() if isinstance(data, str) else bytes(data),
            map_folder=map_folder,
            opponent=opponent,
            pathable_area=pathable,
            map_types=tuple(map_types),
            map_files=tuple(map_files),
            ground=ground,
        )
    except KeyError as e:
        raise MapDefinitionError(f"missing field {e.args[0]!r}") from None
    except (TypeError, ValueError, AttributeError) as e:  # a part of the wrong kind where no check names it
        if isinstance(e, MapDefinitionError):
            raise
        raise MapDefinitionError(f"malformed definition: {e}") from None


def _is_sha256(value) -> bool:
    return isinstance(value, str) and len(value) == 64 and all(c in "0123456789abcdef" for c in value)


SCENARIO_FOLDERS = ("", "smac", "duels", "melee")
"""Where definitions sit under a definitions folder: the mini-games at its top, SMAC's scenarios in `smac/`, the
two-player duels in `duels/`, the melee maps (Simple64) in `melee/`."""


def builtin_definitions(directory: str | os.PathLike | None = None) -> dict[str, bytes]:
    """Name -> JSON bytes of every definition in `directory` (the engine's -dataDir) when it holds any,
    else of those shipped in `sc2env.maps` (both: the top level and SCENARIO_FOLDERS)."""
    for root in (directory, definitions_dir()):
        if root is None or not os.path.isdir(root):
            continue
        found = {
            f.stem: f.read_bytes()
            for folder in SCENARIO_FOLDERS
            for f in sorted(pathlib.Path(root, folder).glob("*.json"))
        }
        if found:
            return found
    return {}


def definition_by_map_file(data: bytes, directory: str | os.PathLike | None = None) -> MapDefinition | None:
    """The built-in definition that plays the real map file `data` (by its SHA-256), if one does."""
    digest = hashlib.sha256(data).hexdigest()
    for source in builtin_definitions(directory).values():
        if digest.encode() in source:  # cheap test before parsing: the digest is written in the definition
            definition = parse_definition(source)
            if digest in definition.map_files:
                return definition
    return None


def find_definition(
    map_path: str = "", map_data: bytes = b"", directory: str | os.PathLike | None = None
) -> MapDefinition:
    """The definition a create_game asks for: `map_data` holding a definition, or a real map file a built-in
    plays (SMAC's maps, by content), else a built-in by file name (from `directory` when it holds
    definitions, see `builtin_definitions`).

    Raises KeyError when no built-in matches the path, MapDefinitionError when given data is a broken
    definition.
    """
    if (
        map_data.removeprefix(codecs.BOM_UTF8).lstrip()[:1] == b"{"
    ):  # a BOM from an editor is UTF-8 all the same
        return parse_definition(map_data)
    if map_data:
        known = definition_by_map_file(map_data, directory)
        if known is not None:
            return known
    stem = posixpath.basename(map_path.replace("\\", "/"))
    stem = stem.removesuffix(".SC2Map")
    builtins = builtin_definitions(directory)
    if stem not in builtins:
        raise KeyError(stem)
    return parse_definition(builtins[stem])
