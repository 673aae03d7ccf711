"""Start a child process that cannot outlive us, and stop it (with anything it started) on request."""

from __future__ import annotations

import concurrent.futures
import contextlib
import ctypes
import os
import pathlib
import signal
import subprocess
import sys
import threading
from typing import BinaryIO

from sc2env.errors import LaunchError


def _find_prctl():
    try:
        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):  # not Linux: no parent-death signal, only close()/atexit cleanup
        return None


# Sets the parent-death signal, then becomes the program: `python -I -S -c _GUARD parent_pid report_fd argv...`.
# The signal survives exec. A preexec_fn would set it without a second exec, but CPython forks under the import
# lock when one runs, so a spawn would wait on any import in another thread (for ever, on one a Ctrl-C broke).
# A failed exec is reported on report_fd, as Popen reports its own; a successful one closes it.
_GUARD = """
import ctypes, os, signal, sys
parent, report = int(sys.argv[1]), int(sys.argv[2])
ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
if os.getppid() != parent:
    os._exit(1)  # the parent died before the signal was set
for name in ("SIGPIPE", "SIGXFSZ"):  # ignored by Python at start-up; the program gets the default
    if hasattr(signal, name):
        signal.signal(getattr(signal, name), signal.SIG_DFL)
os.set_inheritable(report, False)
try:
    os.execvp(sys.argv[3], sys.argv[3:])
except OSError as error:
    os.write(report, str(error.errno).encode())
os._exit(127)
"""

SPAWN_TIMEOUT_S = 30.0
"""How long starting the process may take (milliseconds, normally) before the launch gives up."""


def _kill_once_started(started: concurrent.futures.Future) -> None:
    """SIGKILL the process group of the child `started` will hold, now or when its keeper has spawned it."""

    def kill(future: concurrent.futures.Future) -> None:
        if future.exception() is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(future.result().pid, signal.SIGKILL)

    started.add_done_callback(kill)


class Child:
    """One child process in its own session, spawned and reaped by a keeper thread of ours.

    The child asks the kernel (PR_SET_PDEATHSIG) for SIGKILL when its parent goes away, so a SIGKILLed
    Python leaves no game behind. Linux means the parent *thread*: a child forked from a short-lived
    worker thread (a vector env resetting in a pool) would be killed when that thread ends. So every
    child is forked from its own keeper thread, which then waits for it and lives exactly as long as it.
    Its own session keeps terminal Ctrl-C away from the game (we stop it ourselves, in order) and lets us
    signal the whole process group.
    """

    def __init__(self, argv: list[str], env: dict[str, str], log: BinaryIO):
        self.argv = argv
        self.exited = threading.Event()
        started: concurrent.futures.Future[subprocess.Popen[bytes]] = concurrent.futures.Future()
        self._keeper = threading.Thread(
            target=self._keep,
            args=(env, log, started),
            name=f"sc2env-keeper:{pathlib.Path(argv[0]).name}",
            daemon=True,
        )
        try:  # re-raises the spawn error (missing file, no permission, ...)
            # In the try: a Ctrl-C in start()'s wait for the thread to begin leaves it running, and spawning.
            self._keeper.start()
            self.popen = started.result(timeout=SPAWN_TIMEOUT_S)
        except concurrent.futures.TimeoutError:
            _kill_once_started(started)
            raise LaunchError(
                f"could not start {argv[0]} within {SPAWN_TIMEOUT_S:g} s: the thread starting it is stuck; "
                "restart the Python process"
            ) from None
        except (
            BaseException
        ):  # a Ctrl-C while the keeper spawns: the child may still start, and nobody owns it
            _kill_once_started(started)
            raise

    @property
    def pid(self) -> int:
        return self.popen.pid

    @property
    def returncode(self) -> int | None:
        """The exit status once the child has exited (negative: killed by that signal), else None."""
        return self.popen.returncode if self.exited.is_set() else None

    def wait(self, timeout_s: float | None = None) -> int | None:
        """Wait up to `timeout_s` for the child to exit; its return code, or None if still running."""
        self.exited.wait(timeout_s)
        return self.returncode

    def stop(self, grace_s: float) -> int | None:
        """SIGTERM the child's process group, SIGKILL it after `grace_s`; the child's return code.

        Interrupted while it waits (Ctrl-C), it SIGKILLs the group at once: nobody may be left to try again.
        """
        if not self.exited.is_set():
            self._signal_group(signal.SIGTERM)
            self._signal_group(signal.SIGCONT)  # a stopped game (SIGSTOP, a debugger) must run to exit
            try:
                if not self.exited.wait(grace_s):
                    self._signal_group(signal.SIGKILL)
                    self.exited.wait(5.0)
            except BaseException:
                self._signal_group(signal.SIGKILL)
                raise
        # Whatever the child started in its group (a game's helpers) goes with it.
        self._signal_group(signal.SIGKILL)
        self._keeper.join(1.0)
        return self.returncode

    def _signal_group(self, signum: int) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.popen.pid, signum)

    def _keep(self, env, log, started) -> None:
        try:
            popen = self._spawn(env, log)
        except BaseException as error:
            started.set_exception(error)
            return
        started.set_result(popen)
        popen.wait()
        self.exited.set()

    def _spawn(self, env, log) -> subprocess.Popen[bytes]:
        # Output goes to a file, never a pipe that nobody reads and that would block the game when full.
        def popen(argv: list[str], **more) -> subprocess.Popen[bytes]:
            return subprocess.Popen(
                argv,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                **more,
            )

        if not (_find_prctl() and sys.executable) or getattr(sys, "frozen", False):
            return popen(self.argv)  # no Python to run the guard with (a frozen app's executable is itself)
        read_end, write_end = os.pipe()
        with open(read_end, "rb") as report:
            try:
                guard = popen(
                    [sys.executable, "-I", "-S", "-c", _GUARD, str(os.getpid()), str(write_end), *self.argv],
                    pass_fds=(write_end,),
                )
            finally:
                os.close(write_end)
            failed = report.read()  # nothing once the program runs
        if failed:
            guard.wait()
            code = int(failed)
            raise OSError(code, os.strerror(code), self.argv[0])
        return guard
