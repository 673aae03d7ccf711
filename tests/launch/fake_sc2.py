"""A fake StarCraft II install for tests: `Versions/Base<build>/SC2_x64` scripts that record how they
were started and serve a tiny SC2 API endpoint (ping only).

The script's behaviour comes from environment variables, which the launcher passes through:
  FAKE_SC2_MODE   serve (default) | exit (print, then exit with FAKE_SC2_EXIT_CODE) | hang (never listen)
                  | stubborn (serve, ignoring SIGTERM) | spawn (serve, after starting a grandchild)
                  | killed (SIGKILL itself, as the out-of-memory killer would)
  FAKE_SC2_DELAY_S  seconds to sleep before listening
  FAKE_SC2_FAULT  "<request>:crash" (exit 7), "<request>:hang" (never answer) or "<request>:drop"
                  (close the connection, keep running) when that request arrives
Each start writes `<root>/calls/<pid>.json`: argv, environment, parent pid (and the grandchild pid).
The fixtures at the end are imported by the conftest of each test folder that starts fake games.
"""

from __future__ import annotations

import json
import pathlib
import stat
import sys
import textwrap
import time

import pytest

from sc2env.launch import launch

ENV_VARS = (
    "SC2ENV_ENGINE",
    "SC2PATH",
    "FAKE_SC2_MODE",
    "FAKE_SC2_DELAY_S",
    "FAKE_SC2_FAULT",
    "FAKE_SC2_EXIT_CODE",
)

GAME_SCRIPT = textwrap.dedent("""\
    #!{python}
    import json, os, pathlib, signal, subprocess, sys, time

    exe = pathlib.Path(__file__).resolve()
    build = int(exe.parent.name[4:])
    calls = exe.parents[2] / "calls"
    calls.mkdir(exist_ok=True)
    record = {{"argv": sys.argv, "env": dict(os.environ), "ppid": os.getppid(), "pid": os.getpid()}}
    mode = os.environ.get("FAKE_SC2_MODE", "serve")
    if mode == "spawn":
        record["grandchild"] = subprocess.Popen(["sleep", "600"]).pid
    tmp = calls / f".{{os.getpid()}}.json"
    tmp.write_text(json.dumps(record))
    tmp.rename(calls / f"{{os.getpid()}}.json")

    print(f"fake SC2_x64 build {{build}} starting", flush=True)
    if mode == "exit":
        print("fake SC2_x64: fatal: could not initialise the graphics device", file=sys.stderr, flush=True)
        sys.exit(int(os.environ.get("FAKE_SC2_EXIT_CODE", "3")))
    if mode == "killed":  # as the out-of-memory killer would
        os.kill(os.getpid(), signal.SIGKILL)
    if mode == "hang":
        while True:
            time.sleep(60)
    if mode == "stubborn":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    time.sleep(float(os.environ.get("FAKE_SC2_DELAY_S", "0")))

    from s2clientprotocol import sc2api_pb2 as sc_pb
    from websockets.sync.server import serve

    args = dict(zip(sys.argv[1::2], sys.argv[2::2]))
    fault_request, _, fault = os.environ.get("FAKE_SC2_FAULT", ":").partition(":")

    def handle(connection):
        if connection.request.path != "/sc2api":
            return
        for message in connection:
            request = sc_pb.Request.FromString(message if isinstance(message, bytes) else message.encode())
            kind = request.WhichOneof("request")
            if kind == fault_request:
                print(f"fake SC2_x64: {{fault}} on {{kind}}", flush=True)
                if fault == "crash":
                    os._exit(7)
                if fault == "drop":
                    return
                while True:
                    time.sleep(60)
            response = sc_pb.Response(id=request.id, status=sc_pb.launched)
            if kind == "ping":
                response.ping.game_version = "fake"
                response.ping.base_build = response.ping.data_build = build
            else:
                response.error.append(f"fake SC2_x64 answers only ping, not {{kind}}")
            connection.send(response.SerializeToString())

    with serve(handle, args["-listen"], int(args["-port"]), max_size=None) as server:
        server.serve_forever()
""")


def make_fake_install(
    root: pathlib.Path, builds=(75689,), *, executable: bool = True, script: str | None = None
) -> pathlib.Path:
    """Create an SC2-install-shaped folder with one fake `SC2_x64` per build; returns `root`."""
    for name in ("Libs", "Maps/mini_games", "Replays"):
        (root / name).mkdir(parents=True, exist_ok=True)
    for build in builds:
        exe = root / "Versions" / f"Base{build:05d}" / "SC2_x64"
        exe.parent.mkdir(parents=True, exist_ok=True)
        exe.write_text(script if script is not None else GAME_SCRIPT.format(python=sys.executable))
        mode = exe.stat().st_mode
        exe.chmod(mode | stat.S_IXUSR if executable else mode & ~(stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH))
    return root


def read_call(root: pathlib.Path, pid: int) -> dict:
    """What the fake game started as `pid` recorded about itself."""
    return json.loads((root / "calls" / f"{pid}.json").read_text())


def pid_alive(pid: int) -> bool:
    """True while `pid` is a live process (a zombie awaiting its reaper counts as dead)."""
    try:
        fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError):
        return False
    return fields[0] not in ("Z", "X")


def wait_until(predicate, timeout_s: float = 10.0, interval_s: float = 0.02) -> bool:
    """Poll `predicate` until it is true or `timeout_s` passes; its last value."""
    deadline = time.monotonic() + timeout_s
    while not predicate():
        if time.monotonic() > deadline:
            return bool(predicate())
        time.sleep(interval_s)
    return True


@pytest.fixture(autouse=True)
def clean_env(monkeypatch, tmp_path):
    """No engine choice or install leaks in from the developer's shell; HOME has no ~/StarCraftII."""
    for name in ENV_VARS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


@pytest.fixture
def fake_install(tmp_path):
    """A fake install with build 75689 (4.10.0), at tmp_path/StarCraftII."""
    return make_fake_install(tmp_path / "StarCraftII")


@pytest.fixture
def start():
    """launch(...) that remembers its processes and, at teardown, closes them and checks they are gone."""
    started = []

    def start_game(*args, **kwargs):
        process = launch(*args, **kwargs)
        started.append(process)
        return process

    yield start_game
    for process in started:
        process.close()
    assert all(wait_until(lambda p=p: not pid_alive(p.pid), 5.0) for p in started)
