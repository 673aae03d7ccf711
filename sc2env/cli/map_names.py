"""Map names on the command line: the maps --map names, checked before any game, and how output names them."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

from sc2env.cli.text import shown

if TYPE_CHECKING:
    from sc2env.game.maps import MapSpec


@dataclasses.dataclass(frozen=True)
class PlannedMap:
    """A map the command line names: as the env is made with it, and as the output names it."""

    name: str
    """What the env is made with: a mini-game's or an install map's name, a definition file's absolute path."""
    spec: MapSpec
    label: str
    """How the output names it: its name (a definition's own "name"), with the file where that alone could be
    mistaken for another map (a shipped mini-game's name, or another file's of the same run)."""


def resolve_maps(names: Sequence[str], engine: str | None) -> list[PlannedMap]:
    """Check the engine and the map names before any game starts; 'all' means every shipped mini-game.

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
        specs = list(MINI_GAMES.values())
    elif "all" in lowered:
        raise ValueError("'all' stands alone: --map all plays every mini-game; otherwise list mini-games")
    else:
        maps_dir = install.maps_dir if install is not None else None
        specs = [definition_map(n) if is_definition_path(n) else resolve_map(n, maps_dir) for n in names]
    # A definition file is played by its absolute path (the env reads it); the other maps by the name they
    # resolve to.
    played = [str(spec.file) if spec.definition else spec.name for spec in specs]
    twice = sorted(
        {
            shown(file_label(name) if spec.definition else name, None)
            for name, spec in zip(played, specs)
            if played.count(name) > 1
        }
    )
    if twice:  # --episodes is per map: twice would play it twice, merged into one row
        raise ValueError(
            f"{', '.join(twice)} given more than once in --map; for more episodes use --episodes"
        )
    return [PlannedMap(*planned) for planned in zip(played, specs, _labels(specs))]


_FILE_LIMIT = 60
"""The most characters a definition file's path takes in a map's label."""


def _labels(specs: Sequence[MapSpec]) -> list[str]:
    from sc2env.game import MINI_GAMES

    taken = [spec.name.lower() for spec in specs]
    shipped = {name.lower() for name in MINI_GAMES}
    return [
        f"{shown(spec.name)} ({shown(file_label(spec.file), _FILE_LIMIT)})"
        if spec.file is not None
        and spec.definition
        and (spec.name.lower() in shipped or taken.count(spec.name.lower()) > 1)
        else shown(spec.name)
        for spec in specs
    ]


def file_label(path: str | os.PathLike[str]) -> str:
    """A file as the output names it: by its path from the working directory when it is below it, else in
    full."""
    relative = os.path.relpath(path)
    return os.fspath(path) if relative.startswith(os.pardir) else relative
