"""sc2env: StarCraft II as a Gymnasium reinforcement-learning environment."""

from sc2env.errors import (
    ConnectionError,
    GameCrashedError,
    InvalidActionError,
    LaunchError,
    ProtocolError,
    RequestError,
    RequestTimeoutError,
    SC2EnvError,
)

__version__ = "0.1.0"

__all__ = [
    "ConnectionError",
    "GameCrashedError",
    "InvalidActionError",
    "LaunchError",
    "ProtocolError",
    "RequestError",
    "RequestTimeoutError",
    "SC2EnvError",
    "__version__",
]
