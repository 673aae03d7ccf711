"""Where sc2env's own files are: its source checkout (if it runs from one) and the mini-game definitions."""

from __future__ import annotations

import functools
import importlib.util
import json
import pathlib
import site
import sysconfig

from sc2env.errors import LaunchError
from sc2env.safefile import MAX_DEFINITION_BYTES, read_regular_file

DEFINITION_FORMAT = "sc2env-minigame/1"
"""The `format` of a mini-game definition (the built-in engine's map files; the client reads their name and
time limit)."""
MAX_GAME_LOOPS = 2**31 - 1
"""The longest time limit a definition may set: game loops are uint32 on the wire, and PySC2 reads 2^32 - 1 as
"no observation"."""


def source_root() -> pathlib.Path | None:
    """The directory holding the imported sc2env when it is not in site-packages (a checkout), else None."""
    root = pathlib.Path(__file__).resolve().parents[1]  # this module is sc2env/mapfiles.py
    # site.getsitepackages is missing in some virtualenvs and embedded Pythons; sysconfig knows the rest.
    places = [
        *getattr(site, "getsitepackages", list)(),
        site.getusersitepackages(),
        sysconfig.get_path("purelib"),
        sysconfig.get_path("platlib"),
    ]
    return None if root in {pathlib.Path(p).resolve() for p in places if p} else root


def definitions_dir() -> pathlib.Path:
    """The folder of the built-in engine's mini-game definitions: a checkout's top-level `maps/` (the
    design's layout, which only an install turns into the package `sc2env.maps`), else that package's."""
    root = source_root()
    if root is not None and (root / "maps" / "MoveToBeacon.json").is_file():
        # The imported checkout's own: an install elsewhere (editable or not) would give another tree's.
        return root / "maps"
    spec = importlib.util.find_spec("sc2env.maps")
    if spec is None or not spec.submodule_search_locations:
        raise LaunchError("sc2env's mini-game definitions (sc2env.maps) are missing: reinstall sc2env-rl.")
    return pathlib.Path(next(iter(spec.submodule_search_locations)))


LIST_ORDER_FILE = "order.txt"
"""The file of the definitions folder that orders the shipped mini-games in lists (the SC2LE paper's order)."""


def minigame_names(folder: pathlib.Path | None = None) -> list[str]:
    """The shipped mini-games' names (their definition files' names, as the built-in engine knows them): those
    the folder's order.txt lists first, in its order, then any others by name. `folder`: `definitions_dir()`."""
    folder = definitions_dir() if folder is None else folder
    names = sorted(path.stem for path in folder.glob("*.json"))
    order = folder / LIST_ORDER_FILE
    listed = order.read_text(encoding="utf-8").splitlines() if order.is_file() else []
    first = [name for name in dict.fromkeys(line.strip() for line in listed) if name in names]
    return first + [name for name in names if name not in first]


@functools.cache
def two_player_definitions() -> dict[str, dict]:
    """The shipped two-player maps' definitions (in a folder of the definitions folder, their second slot a
    player's: `"opponent": "player"`, as the duels'), parsed, by map name, in name order."""
    found: dict[str, dict] = {}
    for file in sorted(definitions_dir().glob("*/*.json")):
        try:
            spec = json.loads(read_regular_file(file, MAX_DEFINITION_BYTES).decode("utf-8-sig"))
        except (OSError, ValueError):
            continue  # not ours to judge here: the engine says what is wrong when it is played
        if isinstance(spec, dict) and spec.get("opponent") == "player":
            found[str(spec.get("name", file.stem))] = {"map_folder": file.parent.name, **spec}
    return dict(sorted(found.items()))
