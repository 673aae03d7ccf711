"""Map names on the command line: the maps --map names, checked before any game, and how output names them."""

from __future__ import annotations

import os
from collections.abc import Sequence


def builtin_maps() -> list[str]:
    """The mini-games the built-in engine has definitions for (the `sc2env.maps` package data)."""
    from sc2env.mapfiles import definitions_dir

    return sorted(p.stem for p in definitions_dir().glob("*.json"))


def resolve_maps(names: Sequence[str], engine: str | None) -> list[str]:
    """Check the engine and the map names before any game starts; 'all' means the seven mini-games.

    The built-in engine knows only the mini-games; with StarCraft II, the install's other maps resolve too.
    """
    from sc2env.game import MINI_GAMES, resolve_map
    from sc2env.game.maps import definition_map, definition_needs_builtin, is_definition_path
    from sc2env.launch import LaunchConfig, plan_launch

    launch = LaunchConfig(engine=engine)
    definitions = [name for name in names if is_definition_path(name)]
    if definitions and launch.requested_engine() == "sc2":  # before StarCraft II is looked for
        raise ValueError(definition_needs_builtin(definitions[0]))
    install = plan_launch(launch).install
    lowered = [n.lower() for n in names]
    if lowered == ["all"]:
        return list(MINI_GAMES)
    if "all" in lowered:
        raise ValueError("'all' stands alone: --map all plays every mini-game; otherwise list mini-games")
    # A definition file is played by its absolute path (the env reads it), once it reads as one; the other maps
    # by the name they resolve to.
    maps_dir = install.maps_dir if install is not None else None
    resolved = [
        str(definition_map(name).file) if is_definition_path(name) else resolve_map(name, maps_dir).name
        for name in names
    ]
    twice = sorted({name for name in resolved if resolved.count(name) > 1})
    if twice:  # --episodes is per map: twice would play it twice, merged into one row
        raise ValueError(
            f"{', '.join(twice)} given more than once in --map; for more episodes use --episodes"
        )
    return resolved


def map_label(map_name: str) -> str:
    """How the output names a map: a definition file by its path from the working directory when it is below
    it, else in full (the env holds the absolute path)."""
    from sc2env.game.maps import is_definition_path

    if not is_definition_path(map_name):
        return map_name
    relative = os.path.relpath(map_name)
    return map_name if relative.startswith(os.pardir) else relative
