"""One match on one map: the game process, create/join/restart, lock-step stepping, episode end, reward."""

from sc2env.game.maps import MINI_GAMES, MapSpec, available_maps, install_maps, resolve_map
from sc2env.game.match import BUILDS, DIFFICULTIES, RACES, Bot, Match, MatchConfig, StepResult

__all__ = [
    "BUILDS", "DIFFICULTIES", "MINI_GAMES", "RACES", "Bot", "MapSpec", "Match", "MatchConfig", "StepResult",
    "available_maps", "install_maps", "resolve_map",
]
