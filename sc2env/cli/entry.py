"""The `sc2env` entry point: pick the command, parse its options, run it, and turn errors into exit codes."""

from __future__ import annotations

import contextlib
import difflib
import logging
import os
import select
import sys
from collections.abc import Iterator, Sequence
from typing import Any

from gymnasium import error as gym_error

import sc2env
from sc2env.cli import bench, doctor, maps, play, replay, run
from sc2env.cli.options import Command, UsageError, help_text, parse
from sc2env.cli.signals import exit_code, sigterm_as_interrupt, stopped_by
from sc2env.cli.text import one_line
from sc2env.errors import SC2EnvError

COMMANDS: dict[str, Command[Any]] = {
    command.name: command
    for command in (
        run.COMMAND,
        replay.COMMAND,
        play.COMMAND,
        maps.COMMAND,
        doctor.COMMAND,
        bench.COMMAND,
    )
}


def usage() -> str:
    """The help of `sc2env` itself: its commands."""
    lines = [
        "usage: sc2env <command> [--flags]",
        "",
        "StarCraft II mini-games for reinforcement learning: run agents, watch replays, play.",
        "",
        "commands:",
    ]
    lines += [f"  {name:<8} {command.summary}" for name, command in COMMANDS.items()]
    lines += [
        "",
        "flags:",
        "  -h, --help     show this help and exit",
        "  -V, --version  print the version and exit",
        "",
        "sc2env <command> --help (or sc2env help <command>) shows a command's flags.",
    ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; errors are printed as one line (with --verbose, with their traceback).

    A reader of the output that has gone (`sc2env maps | head -1`) ends the command quietly with 141, as
    SIGPIPE would.
    """
    try:
        code = _main(argv)
        if argv is None and sys.stdout is not None:  # a console run: buffered output meets a closed pipe
            sys.stdout.flush()  # here, not at exit (None: started with stdout closed)
        return code
    except BrokenPipeError:
        if not _stdout_gone():
            raise
        if argv is None:  # else Python complains again when it flushes stdout at exit
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            os.close(devnull)
        return 141


def _stdout_gone() -> bool:
    """Whether standard output is a pipe or socket whose reader has closed it."""
    try:
        poll = select.poll()
        poll.register(sys.stdout.fileno(), 0)  # errors and hang-ups are always reported
        return any(events & (select.POLLERR | select.POLLHUP) for _, events in poll.poll(0))
    except (OSError, ValueError, AttributeError):  # no real file (a test's capture), or no poll here
        return False


def _main(argv: Sequence[str] | None) -> int:
    # pygame greets on stdout when first imported; the command's output should be only its own.
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    words = list(sys.argv if argv is None else argv)[1:]
    if len(words) >= 2 and words[0] == "help" and words[1] not in ("-h", "--help"):  # `sc2env help run`
        if words[1] not in COMMANDS:
            print(f"sc2env: no command {words[1]!r}; the commands are {', '.join(COMMANDS)}", file=sys.stderr)
            return 2
        print(help_text(COMMANDS[words[1]]), end="")
        return 0
    if not words or words[0] in ("-h", "--help", "help"):
        print(usage(), file=sys.stdout if words else sys.stderr)  # no command: a usage error
        return 0 if words else 2
    name = words[0]
    if name in ("--version", "-V"):
        print(f"sc2env {sc2env.__version__}")
        return 0
    if name not in COMMANDS:
        close = difflib.get_close_matches(name, COMMANDS, n=1)
        print(
            f"sc2env: unknown command {name!r}"
            + (f": did you mean {close[0]}?" if close else f"; the commands are {', '.join(COMMANDS)}")
            + " (sc2env --help)",
            file=sys.stderr,
        )
        return 2
    command = COMMANDS[name]
    if any(word in ("-h", "--help") for word in words[1:]):
        print(help_text(command), end="")
        return 0
    try:
        options = parse(command, words[1:])
    except UsageError as error:
        print(f"sc2env {name}: {error} (see sc2env {name} --help)", file=sys.stderr)
        return 2
    with _logging(options.verbose), sigterm_as_interrupt():
        try:
            return command.run(options)
        except KeyboardInterrupt as stop:
            print(f"sc2env {name}: {stopped_by(stop)}", file=sys.stderr)
            return exit_code(stop)
        except (SC2EnvError, ValueError, OSError, gym_error.Error) as error:
            if options.verbose or (isinstance(error, BrokenPipeError) and _stdout_gone()):  # main() ends that
                raise
            print(f"sc2env {name}: {one_line(error)}", file=sys.stderr)
            return 2 if isinstance(error, UsageError) else 1


@contextlib.contextmanager
def _logging(verbose: bool) -> Iterator[None]:
    """Warnings on stderr while the command runs, and with --verbose all the library logs (launches, games
    created, games lost). The levels are put back at the end: main() may be called from a program (a test, a
    notebook)."""
    root, ours = logging.getLogger(), logging.getLogger("sc2env")
    levels = (root.level, ours.level)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(levelname).1s %(asctime)s %(name)s] %(message)s", "%H:%M:%S"))
    root.addHandler(handler)
    root.setLevel(logging.WARNING)
    if verbose:
        ours.setLevel(logging.DEBUG)
    try:
        yield
    finally:
        root.removeHandler(handler)
        root.setLevel(levels[0])
        ours.setLevel(levels[1])
