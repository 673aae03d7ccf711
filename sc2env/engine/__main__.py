"""Command line of the built-in engine: SC2_x64's Linux flags (`-listen -port -dataDir -tempDir ...`), or
`--make-sc2path DIR` to write an SC2-install-shaped folder that runs it."""

from __future__ import annotations

import argparse
import ctypes
import dataclasses
import os
import signal
import sys
from collections.abc import Callable
from typing import Any

from sc2env.engine.limits import ConnectionLimits
from sc2env.shadowed import check_package

_PR_SET_PDEATHSIG = 1
_PR_GET_PDEATHSIG = 2
DEFAULT_SPIN_WAIT_S = 0.001  # a fast client's next request comes within ~0.5 ms (see sc2env.spinwait)
# The flags that set ConnectionLimits: flag, field, what it bounds. A timeout of 0 waits for ever.
_LIMIT_FLAGS = (
    ("--max-message-bytes", "max_message_bytes", "the largest request; a bigger one is refused (close 1009)"),
    ("--message-timeout", "message_timeout_s", "seconds a request may take to arrive once it has begun"),
    ("--idle-timeout", "idle_timeout_s", "seconds a client may send nothing before it is dropped"),
    ("--send-timeout", "send_timeout_s", "seconds an answer may wait for a client that does not read it"),
)


def _parse(argv: list[str]) -> argparse.Namespace:
    # No -h: argparse would read SC2_x64's -headlessNoRender as -h with "eadlessNoRender" attached.
    parser = argparse.ArgumentParser(
        prog="python -m sc2env.engine",
        allow_abbrev=False,
        add_help=False,
        description="sc2env's built-in StarCraft II API server. Accepts SC2_x64's command line; "
        "flags it does not use (-dataVersion, -eglpath, -headlessNoRender, -verbose, ...) are ignored.",
    )
    parser.add_argument("--help", action="help", help="show this help and exit")
    parser.add_argument("-listen", default="127.0.0.1", help="address to listen on (default loopback only)")
    parser.add_argument("-port", type=int, help="port of the websocket endpoint ws://<listen>:<port>/sc2api")
    parser.add_argument(
        "-dataDir",
        help="a folder of mini-game definitions (*.json) to play instead of the "
        "shipped ones; a folder without any (e.g. an install root) is ignored",
    )
    parser.add_argument("-tempDir", help="accepted for compatibility; the engine writes no temp files")
    parser.add_argument(
        "--spin-wait",
        type=float,
        default=DEFAULT_SPIN_WAIT_S,
        metavar="SECONDS",
        help="after each answer, poll for the client's next request this long before sleeping "
        f"(adaptive; 0 turns it off; default {DEFAULT_SPIN_WAIT_S:g})",
    )
    defaults = ConnectionLimits()
    for flag, field, bounds in _LIMIT_FLAGS:
        default = getattr(defaults, field)
        kind: type[int] | type[float]
        if field == "max_message_bytes":
            kind, metavar, shown = int, "BYTES", f"{default} = {default >> 20} MiB"
        else:
            kind, metavar, shown = float, "SECONDS", f"{'0: never' if default is None else f'{default:g}'}"
            bounds += "; 0 waits for ever"
        parser.add_argument(
            flag,
            dest=field,
            type=kind,
            default=default or 0,
            metavar=metavar,
            help=f"{bounds} (default {shown})",
        )
    parser.add_argument(
        "--make-sc2path",
        metavar="DIR",
        help="write DIR/Versions/Base75689/SC2_x64, DIR/Maps/mini_games/*.SC2Map and DIR/Maps/SMAC_Maps/*.SC2Map, then exit",
    )
    args, _unknown = parser.parse_known_args(argv)
    if args.make_sc2path is None and args.port is None:
        parser.error("-port is required (or use --make-sc2path DIR)")
    if not args.spin_wait >= 0:
        parser.error(f"--spin-wait must be >= 0 seconds, not {args.spin_wait}")
    for flag, field, _ in _LIMIT_FLAGS:
        value = getattr(args, field)
        if not value >= (1 if field == "max_message_bytes" else 0) or value == float("inf"):
            parser.error(
                f"{flag} must be a finite number >= {1 if field == 'max_message_bytes' else 0}, not {value}"
            )
    return args


def connection_limits(args: argparse.Namespace) -> ConnectionLimits:
    """The ConnectionLimits the command line asks for (a timeout of 0: none)."""
    values: dict[str, Any] = {field: getattr(args, field) or None for _, field, _ in _LIMIT_FLAGS}
    return dataclasses.replace(ConnectionLimits(), **values)


def _die_with_parent() -> Callable[[], bool]:
    """Ask Linux for SIGTERM when the parent dies, unless our launcher already asked for a signal (it asks
    for SIGKILL, which must not be weakened); also return a check for platforms without prctl."""
    parent = os.getppid()
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
        current = ctypes.c_int(0)
        if prctl(_PR_GET_PDEATHSIG, ctypes.byref(current)) != 0 or current.value == 0:
            prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
    except (OSError, AttributeError):
        pass
    return lambda: os.getppid() != parent


def main(argv: list[str] | None = None) -> int:
    check_package()  # `python -m sc2env.engine` in a folder holding a clone named sc2env: say so, by name
    args = _parse(sys.argv[1:] if argv is None else argv)
    if args.make_sc2path is not None:
        from sc2env.engine.sc2path import make_sc2path

        binary = make_sc2path(args.make_sc2path)
        print(f"wrote {binary}\nuse it with: SC2PATH={binary.parents[2]}")
        return 0

    def terminate(signum, frame):
        # Once: clients such as PySC2 repeat SIGTERM while waiting for the exit, and a second SystemExit
        # raised during interpreter shutdown prints a traceback.
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        # The client sees only the lost connection and an exit code of 0: say what stopped the game.
        print(f"sc2env.engine: stopped by {signal.Signals(signum).name}", file=sys.stderr, flush=True)
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, terminate)
    signal.signal(signal.SIGINT, terminate)
    parent_died = _die_with_parent()
    from sc2env.engine.lan import Lan
    from sc2env.engine.server import Server
    from sc2env.engine.session import Session

    session = Session(args.dataDir, client_gone=lambda: server.client_gone())
    lan = Lan(session)
    try:
        server = Server(
            args.listen,
            args.port,
            lan.answer,
            lambda: session.quit,
            args.spin_wait,
            connection_limits(args),
            lan,
        )
    except OSError as e:
        print(f"sc2env.engine: cannot listen on {args.listen}:{args.port}: {e}", file=sys.stderr)
        return 1
    server.serve(should_stop=parent_died)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # leaving anyway: a late SIGTERM must not interrupt that
    return 0


if __name__ == "__main__":
    sys.exit(main())
