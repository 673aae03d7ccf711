"""sc2env: StarCraft II as a Gymnasium reinforcement-learning environment."""

from sc2env.errors import (
    ConnectionError,
    GameCrashedError,
    InvalidActionError,
    LaunchError,
    MalformedActionError,
    ProtocolError,
    RequestError,
    RequestTimeoutError,
    SC2EnvError,
    UnknownMapError,
)

__version__ = "0.1.0"


def _register() -> None:
    # Registering ids is what `import sc2env` is for (gymnasium.make("sc2env/MoveToBeacon-v0")); the env
    # modules themselves load only when an env is made.
    from sc2env.env.registration import register_envs

    register_envs()


_register()

__all__ = [
    "ConnectionError",
    "GameCrashedError",
    "InvalidActionError",
    "LaunchError",
    "MalformedActionError",
    "ProtocolError",
    "RequestError",
    "RequestTimeoutError",
    "SC2EnvError",
    "UnknownMapError",
    "__version__",
]
