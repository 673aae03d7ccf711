"""`sc2env doctor`: check what is installed, and say how to fix what is missing."""

from __future__ import annotations

import dataclasses
import os
import platform
import sys
import time

import sc2env
from sc2env.cli.options import Command, Options
from sc2env.cli.text import one_line, shown
from sc2env.errors import SC2EnvError
from sc2env.launch import ENGINE_ENV_VAR, ENGINES

Check = tuple[str, str, str | None]
"""A check's status ("ok", "--" optional and missing, "!!" a problem), what it found, and the fix."""


@dataclasses.dataclass(frozen=True)
class DoctorOptions(Options):
    """The options of `sc2env doctor` (only those every command takes)."""


def doctor(options: DoctorOptions) -> int:
    checks = [
        _check_python,
        _check_packages,
        _check_builtin,
        _check_sc2,
        _check_default_engine,
        _check_display,
        _check_video,
    ]
    problems = 0
    print(f"sc2env {sc2env.__version__}")
    for check in checks:
        status, what, fix = check()
        problems += status == "!!"
        print(f"  {status}  {what}")
        if fix:
            print(f"        -> {fix}")
    print(
        "All good (-- marks optional parts)."
        if not problems
        else f"{problems} problem(s) marked !! (see -> for the fix)."
    )
    return 0 if not problems else 1


def _status(ok: bool, optional: bool = False) -> str:
    return "ok" if ok else "--" if optional else "!!"


def _check_python() -> Check:
    version = platform.python_version()
    ok = sys.version_info >= (3, 10)
    return (
        _status(ok),
        f"Python {version} ({platform.python_implementation()})",
        None if ok else "sc2env needs Python 3.10+",
    )


def _check_packages() -> Check:
    import gymnasium
    import numpy
    import pygame
    from google.protobuf import __version__ as protobuf_version
    from google.protobuf.internal import api_implementation

    backend = api_implementation.Type()
    what = (
        f"numpy {numpy.__version__}, protobuf {protobuf_version} ({backend} backend), gymnasium "
        f"{gymnasium.__version__}, pygame {pygame.version.ver}"
    )
    fast = backend == "upb"
    forced = os.environ.get("PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION")
    if fast:
        fix = None
    elif forced:  # the variable, not the version, chose the slow backend
        fix = f"unset PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION (it is {forced!r}) for the fast C (upb) backend"
    else:
        fix = "pip install 'protobuf>=6.31.1' for the fast C (upb) backend"
    return _status(fast), what, fix


_REINSTALL = (
    "reinstall sc2env: pip install --force-reinstall sc2env-rl (in a source checkout: pip install -e .)"
)


def _check_builtin() -> Check:
    from sc2env.game import MINI_GAMES
    from sc2env.launch import launch

    started = time.perf_counter()
    try:
        with launch(engine="builtin"):
            seconds = time.perf_counter() - started
    except SC2EnvError as error:
        lines = [line.strip(" |") for line in str(error).splitlines() if line.strip(" |")]
        cause = lines[-2] if len(lines) > 1 and lines[-1].startswith("It exited") else lines[-1]
        return "!!", f"built-in engine does not start: {cause}", _REINSTALL
    if not MINI_GAMES:  # the list is the definitions folder's: an empty one is a broken install
        return "!!", "built-in engine has no mini-game definitions", _REINSTALL
    return "ok", f"built-in engine starts in {seconds:.2f} s and plays {', '.join(MINI_GAMES)}", None


def _check_sc2() -> Check:
    from sc2env.launch import find_install

    try:
        install = find_install()
    except SC2EnvError as error:
        return (
            "--",
            f"StarCraft II: {one_line(error)}",
            (
                "optional: install Blizzard's Linux package (see docs/quickstart.md) and set SC2PATH; "
                "everything else runs on the built-in engine"
            ),
        )
    maps = install.map_paths()
    minis = sum(1 for p in maps if p.startswith("mini_games/"))
    fix = None if minis else f"put the SC2LE mini-game maps under {install.maps_dir}/mini_games"
    what = (
        f"StarCraft II at {shown(str(install.root), None)}: builds {shown(install.describe_builds(), None)}; "
        f"{len(maps)} maps "
        f"({minis} mini-games)"
    )
    return "ok", what, fix


def _check_default_engine() -> Check:
    """What runs when no engine is named (sc2env run, gym.make): $SC2ENV_ENGINE and SC2PATH can make it fail."""
    from sc2env.launch import LaunchConfig, plan_launch

    try:
        plan = plan_launch(LaunchConfig())
    except SC2EnvError as error:
        chosen = os.environ.get(ENGINE_ENV_VAR) or "auto"
        if chosen not in ENGINES:
            fix = f"set {ENGINE_ENV_VAR} to one of {', '.join(ENGINES)}, or unset it"
        elif chosen == "sc2":
            fix = f"set SC2PATH to a StarCraft II install, or {ENGINE_ENV_VAR} to builtin or auto"
        else:
            fix = "point SC2PATH at a StarCraft II install, or unset it to use the built-in engine"
        return "!!", f"default engine: {one_line(error)}", fix
    chosen = "the built-in engine" if plan.engine == "builtin" else f"StarCraft II {plan.version}"
    return "ok", f"default engine (no --engine / engine=): {chosen}", None


def _check_display() -> Check:
    from sc2env.viewer import display_problem

    problem = display_problem()
    if problem is None:
        return "ok", "display: windows can open (sc2env play, --render)", None
    return (
        "--",
        f"display: {problem}",
        (
            "run headless: sc2env run --save-video out.mp4, or render_mode="
            "'rgb_array'; for windows without a screen: xvfb-run sc2env play"
        ),
    )


def _check_video() -> Check:
    from sc2env.viewer import video_support

    support = video_support()
    ok = [fmt for fmt, problem in support.items() if problem is None]
    missing = [problem for problem in support.values() if problem is not None]
    return (
        _status(not missing, optional=True),
        f"videos: {', '.join(ok) or 'none'} can be written",
        missing[0] if missing else None,
    )


COMMAND = Command("doctor", "check what is installed and how to fix gaps", DoctorOptions, doctor)
