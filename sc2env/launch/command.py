"""Turn a LaunchConfig into the engine, version, command line and environment of one game process."""

from __future__ import annotations

import ctypes.util
import dataclasses
import logging
import os
import pathlib

from sc2env import mapfiles
from sc2env.errors import LaunchError
from sc2env.launch.config import LaunchConfig
from sc2env.launch.install import Sc2Install, find_install
from sc2env.launch.versions import BUILTIN_VERSION, Version, known_version
from sc2env.run_engine import ENGINE_MODULE, engine_command, engine_pythonpath

# GL back ends StarCraft II can render RGB with, best first (hardware EGL before software OSMesa).
_GL_LIBRARIES = (("-eglpath", "EGL"), ("-osmesapath", "OSMesa"))


@dataclasses.dataclass(frozen=True)
class LaunchPlan:
    """Everything needed to start one game process except its port and temp dir."""

    engine: str  # "builtin" or "sc2"
    version: Version
    program: tuple[str, ...]  # the argv before the flags
    data_dir: pathlib.Path
    data_version_flag: str | None  # passed as -dataVersion; only when a game version was asked for
    env: dict[str, str]
    install: Sc2Install | None
    config: LaunchConfig

    @property
    def description(self) -> str:
        """Names the game in messages: "StarCraft II 4.10.0 (build 75689) at /x/SC2_x64"."""
        if self.engine == "builtin":
            return f"the built-in engine (python -m {ENGINE_MODULE})"
        return f"StarCraft II {self.version} at {self.program[0]}"

    def argv(self, port: int, temp_dir: pathlib.Path | None) -> list[str]:
        """The full command line, with the SC2_x64 Linux flags in the order StarCraft II documents (no
        -tempDir without a `temp_dir`: the built-in engine writes no files)."""
        cfg = self.config
        argv = [*self.program, "-listen", cfg.host, "-port", str(port), "-dataDir", str(self.data_dir)]
        if temp_dir is not None:
            argv += ["-tempDir", str(temp_dir)]
        if ":" in cfg.host:
            argv.append("-ipv6")
        if self.data_version_flag:
            argv += ["-dataVersion", self.data_version_flag]
        if cfg.render and self.engine == "sc2":
            # GL flags name SC2's renderer back end; the built-in engine draws RGB itself.
            argv += gl_flags()
        if not cfg.spin_wait and self.engine == "builtin":
            argv += ["--spin-wait", "0"]
        argv += cfg.extra_args
        return argv


def plan_launch(cfg: LaunchConfig) -> LaunchPlan:
    """Choose the engine (argument, $SC2ENV_ENGINE, else auto) and version, and build the command."""
    engine = cfg.requested_engine()
    if engine == "builtin":
        return _builtin_plan(cfg)
    if engine == "sc2":
        return _sc2_plan(cfg, find_install(cfg.sc2path))
    try:
        install = find_install(cfg.sc2path)
    except LaunchError as error:
        # A named install that is broken is a mistake to report, not a reason to switch engines silently.
        if cfg.sc2path is not None or os.environ.get("SC2PATH"):
            raise LaunchError(
                f"{error} (engine='auto' uses the built-in engine only when no SC2PATH or "
                "sc2path names an install)"
            ) from None
        return _builtin_plan(cfg)
    return _sc2_plan(cfg, install)


def _sc2_plan(cfg: LaunchConfig, install: Sc2Install) -> LaunchPlan:
    version = install.choose_version(cfg.version)
    env = dict(os.environ)
    env["LD_LIBRARY_PATH"] = ":".join(filter(None, [env.get("LD_LIBRARY_PATH"), f"{install.libs_dir}/"]))
    return LaunchPlan(
        engine="sc2",
        version=version,
        program=(str(install.executables[version.build]),),
        data_dir=install.root,
        data_version_flag=version.data_version,
        env=env,
        install=install,
        config=cfg,
    )


def _builtin_plan(cfg: LaunchConfig) -> LaunchPlan:
    requested = cfg.version
    game_version = (
        requested
        if isinstance(requested, str) and not requested.isdigit() and requested != "latest"
        else None
    )
    matches = (
        requested in (None, "latest")
        or str(requested) == str(BUILTIN_VERSION.build)
        or (game_version is not None and known_version(game_version) == BUILTIN_VERSION)
    )
    if not matches:
        raise LaunchError(
            f"The built-in engine provides only StarCraft II {BUILTIN_VERSION}, not version {requested!r}: "
            "install that version and use engine='sc2', or leave version unset."
        )
    env = dict(os.environ)
    # Engine output goes to a log file; unbuffered so a crash leaves its last lines there.
    env["PYTHONUNBUFFERED"] = "1"
    pythonpath = engine_pythonpath(env.get("PYTHONPATH"))
    if pythonpath is not None:
        env["PYTHONPATH"] = pythonpath
    return LaunchPlan(
        engine="builtin",
        version=BUILTIN_VERSION,
        program=tuple(engine_command()),
        data_dir=mapfiles.definitions_dir(),
        data_version_flag=BUILTIN_VERSION.data_version if game_version is not None else None,
        env=env,
        install=None,
        config=cfg,
    )


def gl_flags() -> list[str]:
    """The flag that gives StarCraft II a GL library for RGB, or -headlessNoRender when none exists."""
    for flag, library in _GL_LIBRARIES:
        name = ctypes.util.find_library(library)
        if name:
            return [flag, name]
    logging.getLogger(__name__).warning(
        "No EGL or OSMesa library found, so StarCraft II will not render RGB; install libegl1 or "
        "libosmesa6 for RGB observations."
    )
    return ["-headlessNoRender"]
