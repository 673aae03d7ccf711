"""`sc2env maps`: the mini-games with their time limits, SMAC's maps, and the maps of a StarCraft II install."""

from __future__ import annotations

import dataclasses
import os
import sys

from sc2env.cli.options import Command, Options
from sc2env.cli.text import in_columns, shown
from sc2env.errors import SC2EnvError
from sc2env.gamedata.clock import LOOPS_PER_GAME_SECOND


@dataclasses.dataclass(frozen=True)
class MapsOptions(Options):
    """The options of `sc2env maps` (only those every command takes)."""


def maps(options: MapsOptions) -> int:
    from sc2env.game import MINI_GAMES, install_maps
    from sc2env.game.maps import smac_maps
    from sc2env.launch import find_install
    from sc2env.mapfiles import definitions_dir

    problem = None
    try:
        install = find_install()
    except SC2EnvError as error:
        install, problem = None, str(error).splitlines()[0]
    installed = install_maps(install.maps_dir) if install is not None else {}
    print(f"{'mini-game':<28} {'time limit':>10}  StarCraft II")
    for name, spec in MINI_GAMES.items():
        limit = f"{(spec.game_loops or 0) // LOOPS_PER_GAME_SECOND} s"
        print(f"{name:<28} {limit:>10}  {'installed' if name in installed else '-'}")
    print(
        f"\nThe built-in engine plays all of them (their definitions are in {definitions_dir()}), and "
        "mini-games of your own: --map path/to/Name.json, see docs/engine.md#playing-your-own."
    )
    smac = smac_maps()
    engine_plays = {path.stem for path in (definitions_dir() / "smac").glob("*.json")}
    print(f"\n{'SMAC scenario map':<28} {'built-in':>10}  StarCraft II")
    for name, spec in smac.items():
        here = installed.get(name)
        print(
            f"{name:<28} {'plays' if name in engine_plays else '-':>10}  "
            f"{'installed' if here is not None and here.path == spec.path else '-'}"
        )
    print(
        f"\nSMAC's maps play with sc2env.smac (docs/smac.md); the built-in engine's are in "
        f"{definitions_dir() / 'smac'}."
    )
    others = sorted(n for n, s in installed.items() if not s.mini_game and n not in smac)
    if install is None:
        # Where SC2PATH names a folder, why it is no install; else, how to point at one.
        print(
            problem
            if os.environ.get("SC2PATH")
            else "No StarCraft II install found (set SC2PATH to use one)."
        )
    elif others:
        print(
            f"\nOther maps of the StarCraft II install at {shown(str(install.root), None)} (play against the "
            "built-in AI):"
        )
        for line in in_columns([shown(name) for name in others], 4, sys.stdout):
            print("  " + line)
    return 0


COMMAND = Command("maps", "list the mini-games, SMAC's maps and installed maps", MapsOptions, maps)
