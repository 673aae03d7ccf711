"""sc2env: StarCraft II as a Gymnasium reinforcement-learning environment."""

from sc2env._version import __version__
from sc2env.env_ids import register_envs
from sc2env.errors import (
    ConnectionError,
    GameCrashedError,
    InvalidActionError,
    LaunchError,
    MalformedActionError,
    PlayerJoinError,
    ProtocolError,
    RequestError,
    RequestTimeoutError,
    SC2EnvError,
    UnknownMapError,
)

# Registering the ids is what `import sc2env` is for (gymnasium.make("sc2env/MoveToBeacon-v0")); it loads
# gymnasium's registry only: the env modules load when an env is made (see sc2env.env_ids).
register_envs()

__all__ = [
    "ConnectionError",
    "GameCrashedError",
    "InvalidActionError",
    "LaunchError",
    "MalformedActionError",
    "PlayerJoinError",
    "ProtocolError",
    "RequestError",
    "RequestTimeoutError",
    "SC2EnvError",
    "UnknownMapError",
    "__version__",
]
