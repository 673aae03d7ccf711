"""Write an SC2-install-shaped folder whose `SC2_x64` starts this engine, for unmodified SC2 API clients."""

from __future__ import annotations

import os
import pathlib
import shlex
import stat
import sys

from sc2env.engine.mapdef import builtin_definitions, parse_definition
from sc2env.gamedata import BASE_BUILD
from sc2env.run_engine import engine_command, engine_pythonpath


def make_sc2path(root: str | os.PathLike, python: str = sys.executable) -> pathlib.Path:
    """Create `root/Versions/Base<build>/SC2_x64`, `root/Maps/mini_games/<Name>.SC2Map` and SMAC's
    `root/Maps/SMAC_Maps/<name>.SC2Map`; returns the binary.

    The binary is a shell script that execs `python -m sc2env.engine` with the argv it was given, so the
    client's own process handling (signals, parent death, quit) reaches the engine directly. It runs this
    sc2env whatever the client's working folder holds (see sc2env.run_engine): a checkout it runs from
    goes first on PYTHONPATH. Each map file holds the engine's definition of that map (a stand-in: never the
    real file), which clients send back as `map_data`.
    """
    root = pathlib.Path(root).expanduser().resolve()
    binary = root / "Versions" / f"Base{BASE_BUILD:05d}" / "SC2_x64"
    binary.parent.mkdir(parents=True, exist_ok=True)
    lines = ["#!/bin/sh"]
    checkout = engine_pythonpath(None)
    if checkout is not None:
        lines.append(f'PYTHONPATH={shlex.quote(checkout)}"${{PYTHONPATH:+:$PYTHONPATH}}"')
        lines.append("export PYTHONPATH")
    lines.append(f'exec {shlex.join(engine_command(python))} "$@"')
    binary.write_text("\n".join(lines) + "\n")
    binary.chmod(binary.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    for source in builtin_definitions().values():
        path = root / "Maps" / parse_definition(source).path  # mini_games/<Name>, SMAC_Maps/<name>
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(source)
    (root / "Replays").mkdir(exist_ok=True)
    return binary
