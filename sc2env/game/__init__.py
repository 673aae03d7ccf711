"""One match on one map: the game process, create/join/restart, lock-step stepping, episode end, reward."""

from __future__ import annotations

import importlib

# Loaded on first use: the map registry alone must not pull in the client (see sc2env.env.registration).
_EXPORTS = dict.fromkeys(
    ("MINI_GAMES", "MapSpec", "available_maps", "definition_map", "install_maps", "resolve_map"),
    "sc2env.game.maps",
)
_EXPORTS.update(
    dict.fromkeys(("BUILDS", "DIFFICULTIES", "RACES", "Bot", "MatchConfig"), "sc2env.game.match_config")
)
_EXPORTS.update(dict.fromkeys(("Match", "MatchState", "StepResult"), "sc2env.game.match"))
_EXPORTS.update(dict.fromkeys(("ObserverConfig", "ObserverSeat"), "sc2env.game.observer"))
_EXPORTS.update(
    dict.fromkeys(("REPLAY_SUFFIX", "ReplayError", "read_replay", "write_replay"), "sc2env.game.replay_files")
)
_EXPORTS.update(
    dict.fromkeys(
        ("ReplayConfig", "ReplayInfo", "ReplayMatch", "ReplayPlayer", "ReplayReader", "replay_info"),
        "sc2env.game.replay_match",
    )
)
__all__ = [
    "BUILDS",
    "DIFFICULTIES",
    "MINI_GAMES",
    "RACES",
    "REPLAY_SUFFIX",
    "Bot",
    "MapSpec",
    "Match",
    "MatchConfig",
    "MatchState",
    "ObserverConfig",
    "ObserverSeat",
    "ReplayConfig",
    "ReplayError",
    "ReplayInfo",
    "ReplayMatch",
    "ReplayPlayer",
    "ReplayReader",
    "StepResult",
    "available_maps",
    "definition_map",
    "install_maps",
    "read_replay",
    "replay_info",
    "resolve_map",
    "write_replay",
]


def __getattr__(name: str):
    if name not in _EXPORTS:
        raise AttributeError(f"module 'sc2env.game' has no attribute {name!r}")
    return getattr(importlib.import_module(_EXPORTS[name]), name)
