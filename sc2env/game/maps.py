"""The map registry: the shipped mini-games (the definitions in maps/), definition files and an install's maps."""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import pathlib
from collections.abc import Iterator, Mapping

from sc2env.errors import UnknownMapError
from sc2env.gamedata.clock import LOOPS_PER_GAME_SECOND
from sc2env.mapfiles import (
    DEFINITION_FORMAT,
    MAX_GAME_LOOPS,
    definitions_dir,
    minigame_names,
    two_player_definitions,
)
from sc2env.safefile import MAX_DEFINITION_BYTES, MAX_MAP_BYTES, read_regular_file


def game_time(loops: int) -> str:
    """Game loops as the game clock shows them, M:SS at 16 loops a game second (the mini-games' timers)."""
    seconds = loops // LOOPS_PER_GAME_SECOND
    return f"{seconds // 60}:{seconds % 60:02d}"


@dataclasses.dataclass(frozen=True)
class MapSpec:
    """One playable map.

    path:        relative to the install's `Maps/` folder, as `RequestCreateGame.local_map.map_path` takes it.
    players:     1 for the mini-games (the agent alone), 2 for melee and ladder maps (the agent vs a bot).
    game_loops:  the map's own time limit in game loops (mini-games), or None when the map has none.
    file:        the `.SC2Map` on disk (real installs) or a mini-game definition (`.json`, the built-in
                 engine's format), sent as `map_data`; None for the maps the built-in engine ships.
    races:       the race of each player slot where the map fixes them (the shipped two-player maps), else ().
    versus:      two agents may play each other on it (the shipped two-player maps: each slot a player's).
    """

    name: str
    path: str
    players: int = 2
    game_loops: int | None = None
    file: pathlib.Path | None = None
    races: tuple[str, ...] = ()
    versus: bool = False

    @property
    def mini_game(self) -> bool:
        return self.players == 1

    @property
    def definition(self) -> bool:
        """Whether the map is a mini-game definition file, which only the built-in engine plays."""
        return self.file is not None and is_definition_path(self.file)

    def read_data(self) -> bytes | None:
        """The map file's bytes for `local_map.map_data`, or None when there is no file to send.

        Raises UnknownMapError when the file can't be read (gone, a FIFO or device now, too large).
        """
        if self.file is None:
            return None
        try:
            return read_regular_file(self.file, MAX_DEFINITION_BYTES if self.definition else MAX_MAP_BYTES)
        except OSError as error:
            raise UnknownMapError(
                f"Cannot read the map file {self.file}: {error.strerror or error}."
            ) from None


class _ShippedMiniGames(Mapping[str, MapSpec]):
    """The mini-games shipped with sc2env, by name: one per definition in the maps folder (`definitions_dir()`),
    in the order its `order.txt` gives (others after, by name), each with the time limit its definition sets.
    The folder is listed at first use and each definition read when its map is first asked for."""

    def __getitem__(self, name: str) -> MapSpec:
        if name not in _shipped_files():
            raise KeyError(name)
        return _shipped(name)

    def __iter__(self) -> Iterator[str]:
        return iter(_shipped_files())

    def __len__(self) -> int:
        return len(_shipped_files())

    def __repr__(self) -> str:
        return f"MINI_GAMES({', '.join(self)})"


@functools.cache
def _shipped_files() -> dict[str, pathlib.Path]:
    folder = definitions_dir()
    return {name: folder / f"{name}.json" for name in minigame_names(folder)}


@functools.cache
def _shipped(name: str) -> MapSpec:
    # Played by name (the engine finds the definition itself, the real game the map file of that name),
    # so no file is sent: only the timer is read here.
    timer = definition_map(_shipped_files()[name]).game_loops
    return MapSpec(name, f"mini_games/{name}.SC2Map", players=1, game_loops=timer)


MINI_GAMES: Mapping[str, MapSpec] = _ShippedMiniGames()
"""The SC2LE mini-games, as the definitions shipped in maps/ describe them (name, timer), by name."""


def two_player_maps() -> dict[str, MapSpec]:
    """The two-player maps shipped with sc2env (definitions in a folder of maps/ whose second slot is a
    player's, as the duels), by name: two agents, or an agent and the built-in AI, play them."""
    return {
        name: MapSpec(
            name,
            f"{spec['map_folder']}/{name}.SC2Map",
            players=2,
            game_loops=spec.get("time_limit"),
            races=tuple(str(slot.get("race", "Terran")) for slot in spec.get("players", ())),
            versus=True,
        )
        for name, spec in two_player_definitions().items()
    }


SMAC_MAPS_FOLDER = "SMAC_Maps"
"""Where SMAC's scenario maps live under an install's `Maps/` (SMAC's own layout)."""


def smac_maps() -> dict[str, MapSpec]:
    """SMAC's (and SMACv2's) scenario maps, by file stem, at SMAC's paths; the built-in engine plays them by
    path, StarCraft II from the install's `Maps/SMAC_Maps/` (install_maps). Two players: the agent's units
    against the game's built-in AI, and no time limit of the map's own. The names come from the scenario
    descriptions shipped in `maps/smac/source/` (docs/smac.md)."""
    folder = definitions_dir() / "smac" / "source"
    stems = sorted(path.stem for path in folder.glob("*.json"))
    return {stem: MapSpec(stem, f"{SMAC_MAPS_FOLDER}/{stem}.SC2Map") for stem in stems}


def _definition_help() -> str:
    return (
        f"docs/engine.md#map-definitions describes the format, and the shipped mini-games in {definitions_dir()} "
        "are examples to start from"
    )


def is_definition_path(name: str | os.PathLike[str]) -> bool:
    """Whether a map name is the path of a mini-game definition file (it ends in .json)."""
    return os.fspath(name).lower().endswith(".json")


def definition_needs_builtin(name: str) -> str:
    """What to say when a definition file is to be played by StarCraft II."""
    return (
        f"{name} is a mini-game definition, which only the built-in engine plays, but engine='sc2' was asked "
        "for (or $SC2ENV_ENGINE): use engine='builtin' or 'auto' (on the command line: --engine builtin)"
    )


def definition_map(path: str | os.PathLike[str]) -> MapSpec:
    """The mini-game a definition file (JSON, the built-in engine's map format) describes.

    Only what the client needs is read here (the name and the time limit); the engine validates the rest when
    the game is created, and a broken definition fails create_game with InvalidMapData naming the field.
    Raises UnknownMapError when the file can't be read or is no definition.
    """
    # Absolute, not resolved: a link keeps its own name (the map's label and its replays' prefix).
    file = pathlib.Path(os.path.abspath(pathlib.Path(path).expanduser()))
    try:
        data = read_regular_file(file, MAX_DEFINITION_BYTES)
    except OSError as error:
        raise UnknownMapError(
            f"Cannot read the mini-game definition {os.fspath(path)!r}: "
            f"{error.strerror or error}. Give the path of a .json definition "
            f"(relative to {os.getcwd()}, or absolute); {_definition_help()}."
        ) from None
    try:  # UTF-8, as the engine reads it (a byte order mark is allowed)
        spec = json.loads(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise UnknownMapError(
            f"{file} is no mini-game definition: it is not JSON in UTF-8 ({error}); {_definition_help()}."
        ) from None
    except RecursionError:  # no definition nests more than a few levels
        raise UnknownMapError(
            f"{file} is no mini-game definition: its JSON nests arrays and objects too deeply to read; "
            f"{_definition_help()}."
        ) from None
    if not isinstance(spec, dict) or spec.get("format") != DEFINITION_FORMAT:
        found = spec.get("format") if isinstance(spec, dict) else type(spec).__name__
        raise UnknownMapError(
            f'{file} is no mini-game definition: its "format" must be "{DEFINITION_FORMAT}", '
            f"not {found!r}; {_definition_help()}."
        )
    name, limit = spec.get("name"), spec.get("time_limit")
    if not isinstance(name, str) or not name:
        raise UnknownMapError(f'{file}: "name" must be the mini-game\'s name, not {name!r}')
    if (
        isinstance(limit, bool)
        or not isinstance(limit, (int, float))
        or not float(limit).is_integer()
        or not 0 < limit <= MAX_GAME_LOOPS
    ):
        raise UnknownMapError(
            f'{file}: "time_limit" must be a whole number of game loops from 1 to '
            f"{MAX_GAME_LOOPS}, not {limit!r}"
        )
    # The path is only a label (the engine takes the definition from map_data), and a protobuf string: a file
    # name that is no UTF-8 gets replacement characters there.
    label = os.fsencode(file.name).decode("utf-8", "replace")
    return MapSpec(name, label, players=1, game_loops=int(limit), file=file)


def install_maps(maps_dir: pathlib.Path | None) -> dict[str, MapSpec]:
    """Every `.SC2Map` under a real install's `Maps/`, by name (its file stem)."""
    if maps_dir is None or not maps_dir.is_dir():
        return {}
    found: dict[str, MapSpec] = {}
    for file in sorted(maps_dir.rglob("*.SC2Map")):
        relative = file.relative_to(maps_dir).as_posix()
        known = MINI_GAMES.get(file.stem)
        if known is not None and relative == known.path:
            found[file.stem] = dataclasses.replace(known, file=file)
        else:
            found.setdefault(file.stem, MapSpec(file.stem, relative, players=2, file=file))
    return found


def available_maps(maps_dir: pathlib.Path | None = None) -> dict[str, MapSpec]:
    """The mini-games, the two-player maps and SMAC's maps (the built-in engine plays them) plus the maps of a real install, by
    name (an installed map of the same name replaces SMAC's entry: it has the file to send)."""
    return {**MINI_GAMES, **two_player_maps(), **smac_maps(), **install_maps(maps_dir)}


def resolve_map(name: str, maps_dir: pathlib.Path | None = None) -> MapSpec:
    """The map called `name` (a mini-game, a map file's stem, a path under `Maps/`, or the path of a mini-game
    definition file, see `definition_map`).

    Names match case-insensitively; an unknown name raises UnknownMapError (a LaunchError) listing the known ones.
    """
    if is_definition_path(name):
        return definition_map(name)
    maps = available_maps(maps_dir)
    if name in maps:
        return maps[name]
    wanted = name.lower().removesuffix(".sc2map")
    for spec in maps.values():
        if wanted in (spec.name.lower(), spec.path.lower().removesuffix(".sc2map")):
            return spec
    where = f" or under {maps_dir}" if maps_dir is not None else ""
    smac = sorted(n for n, spec in maps.items() if spec.path.startswith(f"{SMAC_MAPS_FOLDER}/"))
    others = sorted(set(maps) - set(smac))
    raise UnknownMapError(
        f"Unknown map {name!r}: not a mini-game, nor one of SMAC's maps{where}, nor a definition file "
        f"(.json). Known maps: {', '.join(others)}; SMAC's: {', '.join(smac)}."
    )
