"""GameProcess and launch(): start a game, wait until it answers, and own it until it is closed."""

from __future__ import annotations

import dataclasses
import logging
import os
import pathlib
import signal
import tempfile
import time
import traceback
import weakref
from typing import BinaryIO

import websocket

from sc2env.errors import LaunchError
from sc2env.handshake import open_websocket
from sc2env.launch import workspace
from sc2env.launch.child import Child
from sc2env.launch.command import LaunchPlan, plan_launch
from sc2env.launch.config import LaunchConfig
from sc2env.launch.install import USE_BUILTIN, Sc2Install
from sc2env.launch.listeners import Listener, port_listener
from sc2env.launch.versions import Version

log = logging.getLogger(__name__)
STOP_GRACE_S = 3.0  # SIGTERM first; SIGKILL whatever is still running after this
_TAIL_BYTES = 64 * 1024


def launch(config: LaunchConfig | None = None, **overrides) -> GameProcess:
    """Start a game process and return it once it answers on its websocket.

    `launch(engine="builtin")` is `launch(LaunchConfig(engine="builtin"))`; keyword overrides replace the
    fields of `config`. Raises LaunchError (saying what to do) when no game can be found or started, or
    when it exits or stays silent before it is ready; nothing is left running then.
    """
    return launch_plan(plan_launch(dataclasses.replace(config or LaunchConfig(), **overrides)))


_PORT_TAKEN = "Address already in use"  # what a game that cannot listen says (the built-in engine; Linux)
_PORT_ATTEMPTS = 3
_LOOK_COST_RATIO = 5  # a look at /proc for the listener waits 5 times its cost, at least, before the next


def launch_plan(plan: LaunchPlan) -> GameProcess:
    """launch() for a plan already made with plan_launch() (whose install and engine the caller inspected)."""
    workspace.sweep_orphaned_temp_dirs()
    for attempt in range(1, _PORT_ATTEMPTS + 1):
        process = GameProcess(plan)
        try:
            process.wait_ready(plan.config.readiness_timeout_s(plan.engine))
        except LaunchError:
            # portpicker keeps a port from being handed out twice in this process only: another program can
            # take the one we picked before our game binds it. A port we picked is then picked again.
            taken = plan.config.port is None and (
                process.port_taken or (not process.running and _PORT_TAKEN in process.output_tail())
            )
            if taken:  # not back to portpicker: a portserver would hand the same port out again first
                process._resources.port_is_ours = False
            process.close()
            if not taken or attempt == _PORT_ATTEMPTS:
                raise
            log.warning(
                "%s found port %d taken by another program; starting it on another port",
                process.description,
                process.port,
            )
            continue
        except BaseException:
            process.close()
            raise
        log.info("%s (pid %d) ready at %s", process.description, process.pid, process.url)
        return process
    raise AssertionError("unreachable: the last attempt returns or raises")


def describe_exit(returncode: int) -> str:
    """ "exited with code 3" or "was killed by SIGKILL"."""
    if returncode < 0:
        try:
            return f"was killed by {signal.Signals(-returncode).name}"
        except ValueError:
            return f"was killed by signal {-returncode}"
    return f"exited with code {returncode}"


def _early_exit_advice(engine: str, returncode: int | None) -> str:
    """What to do about a game that exited before it answered, by how it exited."""
    if returncode == -signal.SIGKILL:
        return "something killed it: another process, or the kernel's out-of-memory killer (`dmesg` says so)"
    # The built-in engine exits 0 when stopped by SIGTERM or SIGINT; its flag errors exit 1 or 2.
    if returncode in (-signal.SIGTERM, -signal.SIGINT) or (engine == "builtin" and returncode == 0):
        return "something stopped it (another process, or Ctrl-C); start it again"
    if engine == "sc2":
        return f"check the install and version, {USE_BUILTIN}"
    return "check the flags it was given (LaunchConfig.extra_args)"


class _Resources:
    """What a GameProcess must give back; kept apart so the finalizer holds no reference to the process."""

    def __init__(self) -> None:
        self.owner_pid = os.getpid()
        self.child: Child | None = None
        self.log: BinaryIO | None = None
        self.temp_dir: pathlib.Path | None = None
        self.port: int | None = None
        self.port_is_ours = False
        self.grace_s = STOP_GRACE_S

    def release(self) -> None:
        if os.getpid() != self.owner_pid:  # a forked copy of our process must not stop our games
            return
        # The finalizer runs this once: a Ctrl-C in one step must not skip the others.
        try:
            if self.child is not None:
                self.child.stop(self.grace_s)
        finally:
            if self.temp_dir is not None:
                workspace.remove_temp_dir(self.temp_dir)
            if self.log is not None:
                self.log.close()  # and with it the lock that kept other processes' sweeps off the dir
            if self.port_is_ours and self.port is not None:
                workspace.return_port(self.port)


class GameProcess:
    """A running game (StarCraft II or the built-in engine) that sc2env started and owns.

    Stopped, with its temp dir (StarCraft II only) removed and its port returned, by close(), by leaving a
    `with` block, when garbage-collected, at interpreter exit, and by the kernel if our process dies (Linux;
    a real game's temp dir is then removed by the next launch). Use launch() to get a ready one.
    """

    def __init__(self, plan: LaunchPlan):
        self.plan = plan
        self.host = plan.config.host
        self._ready_connection: websocket.WebSocket | None = None
        self.port_taken = False  # wait_ready() found another program listening on our port
        resources = _Resources()
        self._resources = resources
        # Registered before anything is acquired, so a failure half-way still releases what was.
        self._finalizer = weakref.finalize(self, resources.release)
        if plan.config.port is None:
            resources.port, resources.port_is_ours = workspace.pick_port(), True
        elif not workspace.port_is_free(plan.config.port):
            # Checked first: a game that cannot listen exits, but a probe would reach whatever serves the port
            # (another game, which the Controller would then drive) and call it ready.
            raise LaunchError(
                f"port {plan.config.port} is in use (another game or program holds it): pass a "
                "free port, or none to have one picked"
            )
        else:
            resources.port = plan.config.port
        self.port: int = resources.port
        # StarCraft II writes into its -tempDir; the built-in engine writes nothing, so it gets no dir and its
        # output goes to an unlinked file: nothing is left on disk even if our process is SIGKILLed.
        self.temp_dir: pathlib.Path | None
        if plan.engine == "sc2":
            self.temp_dir, resources.log = workspace.make_temp_dir()  # the log is closed by release()
            resources.temp_dir = self.temp_dir
        else:
            self.temp_dir = None
            resources.log = tempfile.TemporaryFile()  # noqa: SIM115 - closed by release()
        self._log = resources.log
        self.argv = plan.argv(self.port, self.temp_dir)
        try:
            resources.child = Child(self.argv, plan.env, resources.log)
        except (OSError, ValueError) as error:  # ValueError: an argument Popen refuses (a NUL byte)
            self.close()
            advice = (
                f"Check that it is an executable file for this machine, {USE_BUILTIN}"
                if plan.engine == "sc2"
                else "Check the Python it runs and extra_args"
            )
            raise LaunchError(f"Could not start {plan.description}: {error}. {advice}.") from None
        self._child = resources.child

    @property
    def engine(self) -> str:
        """ "builtin" or "sc2"."""
        return self.plan.engine

    @property
    def version(self) -> Version:
        return self.plan.version

    @property
    def description(self) -> str:
        """Names the game in messages: "StarCraft II 4.10.0 (build 75689) at /x/SC2_x64"."""
        return self.plan.description

    @property
    def install(self) -> Sc2Install | None:
        """The StarCraft II install it runs from (None for the built-in engine)."""
        return self.plan.install

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"ws://{host}:{self.port}/sc2api"

    @property
    def pid(self) -> int:
        return self._child.pid

    @property
    def running(self) -> bool:
        return self._child.returncode is None

    @property
    def returncode(self) -> int | None:
        """The exit status once it has exited (negative: killed by that signal), else None."""
        return self._child.returncode

    @property
    def closed(self) -> bool:
        return not self._finalizer.alive

    def wait(self, timeout_s: float | None = None) -> int | None:
        """Wait up to `timeout_s` seconds for the process to exit; its return code, or None if running."""
        return self._child.wait(timeout_s)

    def output_tail(self, n_lines: int = 20) -> str:
        """The last `n_lines` lines the process wrote to stdout/stderr ("" once closed)."""
        try:
            fd = self._log.fileno()
            size = os.fstat(fd).st_size
            data = os.pread(fd, _TAIL_BYTES, max(0, size - _TAIL_BYTES))
        except (OSError, ValueError):  # ValueError: closed
            return ""
        lines = data.decode("utf-8", "replace").splitlines()
        return "\n".join(lines[-n_lines:]) if n_lines > 0 else ""

    def exit_summary(self, n_lines: int = 20) -> str:
        """How the process ended (or that it is running), with its last output lines, for error messages."""
        returncode = self.returncode
        state = "is still running" if returncode is None else describe_exit(returncode)
        return f"{self.description} (pid {self.pid}) {state}. {self._last_output(n_lines)}"

    def _last_output(self, n_lines: int) -> str:
        tail = self.output_tail(n_lines)
        shown = "\n".join("  | " + line for line in tail.splitlines()) if tail else "  | (no output)"
        return f"Its last output lines:\n{shown}"

    def wait_ready(self, timeout_s: float) -> None:
        """Poll the websocket until the game answers; LaunchError at once if it exits, or at the deadline."""
        start = time.monotonic()
        deadline = start + timeout_s
        delay = 0.01
        last_error = "none"
        while True:
            if not self.running:
                advice = _early_exit_advice(self.engine, self.returncode)
                raise LaunchError(
                    f"{self.exit_summary()}\nIt exited {time.monotonic() - start:.1f} s after start, before "
                    f"answering on {self.url}. Its output should say why; {advice}."
                )
            looked = time.monotonic()
            listener = port_listener(self.port, self.pid)
            look_s = time.monotonic() - looked
            if listener is Listener.FOREIGN:
                self.port_taken = True
                raise LaunchError(
                    f"port {self.port} was taken by another program before {self.description} (pid {self.pid}) "
                    "could listen on it; sc2env stops it now. Pass a free port, or none to have one picked."
                )
            if listener is Listener.NONE:  # not listening yet: a probe could only be refused
                last_error = f"nothing listened on port {self.port}"
                # Looking costs a read of /proc, not a connection: often while a game starts (the built-in
                # engine listens within ~0.3 s), less often once it is a slow one (StarCraft II). The kernel
                # writes out every socket of the machine for it: 18 ms of CPU with 700 of them, so a look is
                # followed by a wait of at least 5 times its cost (else polling every 10 ms took most of a
                # core from the game that is starting).
                wait = max(0.01 if time.monotonic() - start < 1.0 else 0.1, _LOOK_COST_RATIO * look_s)
            else:
                probe, last_error = self._probe(deadline)
                if probe is not None:
                    # The real game serves one connection at a time, and whether it accepts another after the
                    # first closes is undocumented: keep this one for the Controller (claim_connection()).
                    self._ready_connection = probe
                    return
                wait, delay = delay, min(delay * 2, 0.25)
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise LaunchError(
                    f"{self.description} (pid {self.pid}) did not answer on {self.url} within {timeout_s:g} s "
                    f"(last attempt: {last_error}); sc2env stops it now. {self._last_output(20)}\n"
                    "A slow or busy machine may need a longer start-up timeout: launch_timeout_s= of gym.make / "
                    "SC2Env, or LaunchConfig.timeout_s."
                )
            self._child.exited.wait(min(wait, remaining))

    def _probe(self, deadline: float) -> tuple[websocket.WebSocket | None, str]:
        """One websocket connection attempt: the connection, or None and why not."""
        remaining = deadline - time.monotonic()
        try:
            probe = open_websocket(self.url, min(2.0, max(0.05, remaining)), enable_multithread=False)
        except (OSError, websocket.WebSocketException) as error:
            # websocket-client keeps the error in a local of the frame that raised it: a reference cycle
            # that, through the frames' callers, would hold our caller (an env and its game) until the
            # cycle collector ran, instead of letting a dropped env stop its game at once.
            traceback.clear_frames(error.__traceback__)
            return None, repr(error)
        if not self.running:  # whatever answered, it was not our game (which could not listen there)
            probe.close()
            return None, "an answer that came after our game had exited"
        return probe, ""

    def claim_connection(self) -> websocket.WebSocket | None:
        """The websocket that proved the game ready, handed over once (Controller(process) takes it), else None.

        The game serves one client at a time: while this connection is unclaimed, other clients wait.
        """
        connection, self._ready_connection = self._ready_connection, None
        return connection

    def close(self, grace_s: float = STOP_GRACE_S) -> None:
        """Stop the process (SIGTERM, then SIGKILL after `grace_s`), remove its temp dir, return its port.

        Idempotent. To let the game exit by itself first, send it `quit` (Controller.quit()).
        """
        unclaimed = self.claim_connection()
        if unclaimed is not None:
            unclaimed.shutdown()
        self._resources.grace_s = grace_s
        self._finalizer()

    def __enter__(self) -> GameProcess:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def __repr__(self) -> str:
        code = self.returncode
        state = (
            "closed" if self.closed else ("running" if self.running or code is None else describe_exit(code))
        )
        return f"<GameProcess {self.engine} {self.version} pid={self.pid} {self.url} {state}>"
