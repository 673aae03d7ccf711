"""LaunchConfig: what game process to start and how; and the engine-selection rule."""

from __future__ import annotations

import dataclasses
import numbers
import os
from collections.abc import Iterable

from sc2env.errors import LaunchError

ENGINES = ("auto", "builtin", "sc2")
ENGINE_ENV_VAR = "SC2ENV_ENGINE"
DIRECT_ENV_VAR = "SC2ENV_DIRECT"
_SAYS = {
    "1": True,
    "true": True,
    "yes": True,
    "on": True,
    "0": False,
    "false": False,
    "no": False,
    "off": False,
}

# Readiness deadlines: the built-in engine is up in about a second, StarCraft II can take tens of seconds
# on a cold disk cache.
DEFAULT_TIMEOUT_S = {"builtin": 30.0, "sc2": 120.0}


# (field, accepted types, what to say when it is something else); None too where it is the default.
_FIELD_TYPES = (
    ("engine", (str,), "one of " + ", ".join(ENGINES)),
    ("sc2path", (str, os.PathLike), "a path (str or pathlib.Path)"),
    ("version", (str, numbers.Integral), 'a version ("4.10.0") or a build number (75689)'),
    ("host", (str,), "a host name or address"),
    ("port", (numbers.Integral,), "a port number"),
    ("render", (bool,), "True or False"),
    ("timeout_s", (numbers.Real,), "a number of seconds"),
    ("spin_wait", (bool,), "True or False"),
    ("direct", (bool,), "True or False"),
)


@dataclasses.dataclass(frozen=True)
class LaunchConfig:
    """How to start one game process.

    engine:     "sc2" (Blizzard's SC2_x64), "builtin" (sc2env's engine) or "auto" (a real install when one
                exists, else the built-in engine). None reads $SC2ENV_ENGINE, else "auto".
    sc2path:    the StarCraft II install root; None reads $SC2PATH, else ~/StarCraftII.
    version:    a game version ("4.10.0"), a build number (75689), or None for the newest installed.
    host, port: where the game listens; port None picks a free one (returned on close).
    render:     ask StarCraft II for RGB rendering (it needs an EGL or OSMesa library).
    timeout_s:  how long to wait for the game to answer; None means 30 s (builtin) or 120 s (sc2).
    extra_args: more command-line flags, passed through as they are.
    spin_wait:  the game's client (a Match's Controller) and the built-in engine poll briefly for each
                other's next message before sleeping (adaptive, see sc2env.spinwait); False: never.
    direct:     play the built-in engine inside this process ("direct mode": no game process, socket or
                serialisation; the same observations, rewards and errors) when nothing asks for its process:
                no `port` and no `extra_args`. False: start it as a process, as the real game is started.
                None reads $SC2ENV_DIRECT (0 or 1), else True.
    """

    engine: str | None = None
    sc2path: str | os.PathLike[str] | None = None
    version: str | int | None = None
    host: str = "127.0.0.1"
    port: int | None = None
    render: bool = False
    timeout_s: float | None = None
    extra_args: tuple[str, ...] = ()
    spin_wait: bool = True
    direct: bool | None = None

    def __post_init__(self) -> None:
        defaults = {field.name: field.default for field in dataclasses.fields(self)}
        for name, kinds, what in _FIELD_TYPES:
            value = getattr(self, name)
            if value is None and defaults[name] is None:
                continue
            if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
                raise LaunchError(f"{name} must be {what}, not {value!r}")
        if isinstance(self.extra_args, (str, bytes)) or not isinstance(self.extra_args, Iterable):
            raise LaunchError(f"extra_args must be a sequence of flags, not {self.extra_args!r}")
        object.__setattr__(self, "extra_args", tuple(str(a) for a in self.extra_args))
        for name, kind in (
            ("port", int),
            ("timeout_s", float),
            ("version", int),
        ):  # numpy numbers as Python's
            value = getattr(self, name)
            if isinstance(value, numbers.Real):
                object.__setattr__(self, name, kind(float(value)) if kind is int else float(value))
        if self.timeout_s is not None and not self.timeout_s > 0:
            raise LaunchError(f"timeout_s must be positive, not {self.timeout_s!r}")
        if self.port is not None and not 0 < self.port < 65536:
            raise LaunchError(f"port must be in 1..65535, not {self.port!r}")
        if (
            self.engine is not None
        ):  # a misspelt engine fails here, not at the first launch ($SC2ENV_ENGINE: there)
            self.requested_engine()

    def requested_engine(self) -> str:
        """The engine asked for: the argument, else $SC2ENV_ENGINE, else "auto" (validated)."""
        if self.engine is not None:
            engine, source = self.engine, "engine="
        else:
            # A shell setting, written by hand: BUILTIN and " sc2" mean what they say.
            engine, source = (os.environ.get(ENGINE_ENV_VAR) or "auto").strip().lower(), f"${ENGINE_ENV_VAR}="
        if engine not in ENGINES:
            raise LaunchError(f"Unknown engine {source}{engine!r}: choose one of {', '.join(ENGINES)}.")
        return engine

    def runs_direct(self, engine: str) -> bool:
        """Whether `engine` (the one plan_launch chose) is played in this process rather than started."""
        if engine != "builtin" or self.port is not None or self.extra_args:
            return False
        if self.direct is not None:
            return self.direct
        setting = os.environ.get(DIRECT_ENV_VAR, "").strip().lower()
        if setting and setting not in _SAYS:
            raise LaunchError(f"${DIRECT_ENV_VAR}={setting!r} must be 1 or 0 (or true/false, yes/no, on/off)")
        return _SAYS.get(setting, True)

    def readiness_timeout_s(self, engine: str) -> float:
        return self.timeout_s if self.timeout_s is not None else DEFAULT_TIMEOUT_S[engine]
