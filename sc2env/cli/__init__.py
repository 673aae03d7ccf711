"""The `sc2env` command: run agents, play mini-games, watch replays, list maps, check the install, benchmark.

One module per command (run, replay, play, maps, doctor, bench), each declaring its options as a typed
dataclass (see options.py); entry.py picks the command and turns its errors into exit codes.
"""

from sc2env.cli.entry import main

__all__ = ["main"]
