"""Starting, watching and stopping real (fake StarCraft II) game processes."""

from __future__ import annotations

import concurrent.futures
import gc
import json
import os
import pathlib
import signal
import subprocess
import sys
import tempfile
import textwrap
import threading
import time

import portpicker
import pytest
from fake_sc2 import make_fake_install, pid_alive, read_call, wait_until
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env.errors import LaunchError
from sc2env.launch import launch, sweep_orphaned_temp_dirs
from sc2env.mapfiles import definitions_dir
from sc2env.run_engine import engine_command

TESTS_DIR = pathlib.Path(__file__).resolve().parent


def raw_ping(process) -> sc_pb.ResponsePing:
    """A ping over the plain websocket that proved the game ready, independent of sc2env's controller."""
    ws = process.claim_connection()
    assert ws is not None and process.claim_connection() is None  # handed over once
    try:
        ws.send_binary(sc_pb.Request(id=1, ping=sc_pb.RequestPing()).SerializeToString())
        return sc_pb.Response.FromString(ws.recv()).ping
    finally:
        ws.close()


def test_starts_sc2_x64_with_its_flags_env_and_a_ready_endpoint(start, fake_install, monkeypatch):
    monkeypatch.setenv("LD_LIBRARY_PATH", "/opt/gl")
    process = start(engine="sc2", sc2path=fake_install)
    # Ready means answering now, with no retry on our side.
    assert raw_ping(process).base_build == 75689
    call = read_call(fake_install, process.pid)
    assert call["argv"] == [
        str(fake_install / "Versions/Base75689/SC2_x64"),
        "-listen",
        "127.0.0.1",
        "-port",
        str(process.port),
        "-dataDir",
        str(fake_install),
        "-tempDir",
        str(process.temp_dir),
    ]
    assert call["env"]["LD_LIBRARY_PATH"] == f"/opt/gl:{fake_install}/Libs/"
    assert call["ppid"] == os.getpid()
    assert process.url == f"ws://127.0.0.1:{process.port}/sc2api"
    assert (process.engine, process.host, process.version.build) == ("sc2", "127.0.0.1", 75689)
    assert process.install.root == fake_install and process.running and process.returncode is None
    assert process.temp_dir.is_dir() and process.temp_dir.name.startswith(f"sc2env-{os.getpid()}-")
    assert "fake SC2_x64 build 75689 starting" in process.output_tail()


def test_starts_the_newest_or_the_requested_version(start, tmp_path):
    root = make_fake_install(tmp_path / "sc2", builds=(75689, 81009))
    newest = start(engine="sc2", sc2path=root)
    assert raw_ping(newest).base_build == 81009
    assert read_call(root, newest.pid)["argv"][0].endswith("Base81009/SC2_x64")
    by_build = start(engine="sc2", sc2path=root, version=75689)
    assert raw_ping(by_build).base_build == 75689
    by_version = start(engine="sc2", sc2path=root, version="4.10.0")
    argv = read_call(root, by_version.pid)["argv"]
    assert argv[0].endswith("Base75689/SC2_x64")
    assert argv[argv.index("-dataVersion") + 1] == "B89B5D6FA7CBF6452E721311BFBC6CB2"


def test_waits_for_a_slow_game(start, fake_install, monkeypatch):
    monkeypatch.setenv("FAKE_SC2_DELAY_S", "1.0")
    process = start(engine="sc2", sc2path=fake_install)
    assert raw_ping(process).base_build == 75689


def test_early_exit_raises_at_once_with_code_and_output(fake_install, monkeypatch):
    monkeypatch.setenv("FAKE_SC2_MODE", "exit")
    monkeypatch.setenv("FAKE_SC2_EXIT_CODE", "3")
    ours = f"sc2env-{os.getpid()}-*"
    before = set(pathlib.Path(tempfile.gettempdir()).glob(ours))
    with pytest.raises(LaunchError) as raised:
        launch(engine="sc2", sc2path=fake_install, timeout_s=60)
    message = str(raised.value)
    # Raised when the process exited, not when the 60 s deadline passed: that error says "did not answer".
    assert "exited with code 3" in message and "did not answer" not in message
    assert "fatal: could not initialise the graphics device" in message
    assert "fake SC2_x64 build 75689 starting" in message
    pid = next(int(p.stem) for p in (fake_install / "calls").glob("*.json"))
    assert not pid_alive(pid)
    after = set(pathlib.Path(tempfile.gettempdir()).glob(ours))
    assert after <= before  # its temp dir is gone


def test_silent_game_times_out_and_is_stopped(fake_install, monkeypatch):
    monkeypatch.setenv("FAKE_SC2_MODE", "hang")
    expected = r"did not answer on ws://127\.0\.0\.1:\d+/sc2api within 1 s"
    with pytest.raises(LaunchError, match=expected) as raised:
        launch(engine="sc2", sc2path=fake_install, timeout_s=1)
    assert "timeout_s" in str(raised.value) and "fake SC2_x64 build 75689 starting" in str(raised.value)
    pid = next(int(p.stem) for p in (fake_install / "calls").glob("*.json"))
    assert wait_until(lambda: not pid_alive(pid), 5)


def test_binary_that_cannot_be_executed(tmp_path):
    root = make_fake_install(tmp_path / "sc2", script="this is not a program\n")
    with pytest.raises(LaunchError, match=r"Could not start StarCraft II.*Exec format error"):
        launch(engine="sc2", sc2path=root)


def test_close_stops_the_game_removes_its_dir_and_returns_its_port(fake_install):
    process = launch(engine="sc2", sc2path=fake_install)
    pid, temp_dir, port = process.pid, process.temp_dir, process.port
    process.close()
    assert not pid_alive(pid) and not temp_dir.exists()
    assert process.returncode == -signal.SIGTERM and not process.running and process.closed
    assert port not in portpicker._random_ports  # returned for reuse
    assert portpicker.is_port_free(port)
    process.close()  # idempotent
    assert "closed" in repr(process)


def test_close_kills_a_game_that_ignores_sigterm(fake_install, monkeypatch):
    monkeypatch.setenv("FAKE_SC2_MODE", "stubborn")
    process = launch(engine="sc2", sc2path=fake_install)
    process.close(grace_s=0.3)
    assert process.returncode == -signal.SIGKILL and not pid_alive(process.pid)


def test_a_ctrl_c_while_close_waits_still_kills_the_game_and_removes_its_dir(
    fake_install, monkeypatch, ctrl_c
):
    monkeypatch.setenv("FAKE_SC2_MODE", "stubborn")
    process = launch(engine="sc2", sc2path=fake_install)
    temp_dir, port = process.temp_dir, process.port
    ctrl_c(0.3)
    with pytest.raises(KeyboardInterrupt):
        process.close(grace_s=30)  # the game ignores SIGTERM: close() waits out the grace
    # The finalizer ran once, so nobody would ever try again: the game must be gone now, and its dir too.
    assert wait_until(lambda: not pid_alive(process.pid), 5) and process.closed
    assert not temp_dir.exists() and portpicker.is_port_free(port)


def test_close_stops_what_the_game_started(fake_install, monkeypatch):
    monkeypatch.setenv("FAKE_SC2_MODE", "spawn")
    process = launch(engine="sc2", sc2path=fake_install)
    grandchild = read_call(fake_install, process.pid)["grandchild"]
    assert pid_alive(grandchild)
    process.close()
    assert wait_until(lambda: not pid_alive(grandchild), 5)


def test_context_manager_stops_the_game_even_on_an_exception(fake_install):
    with pytest.raises(RuntimeError), launch(engine="sc2", sc2path=fake_install) as process:
        pid, temp_dir = process.pid, process.temp_dir
        raise RuntimeError("agent crashed")
    assert not pid_alive(pid) and not temp_dir.exists()


def test_a_forgotten_process_is_stopped_when_collected(fake_install):
    process = launch(engine="sc2", sc2path=fake_install)
    pid, temp_dir = process.pid, process.temp_dir
    del process
    gc.collect()
    assert not pid_alive(pid) and not temp_dir.exists()


def test_a_game_that_dies_is_reported(start, fake_install):
    process = start(engine="sc2", sc2path=fake_install)
    os.kill(process.pid, signal.SIGKILL)
    assert process.wait(5) == -signal.SIGKILL
    assert not process.running and "was killed by SIGKILL" in process.exit_summary()
    assert "was killed by SIGKILL" in repr(process)


def test_many_games_side_by_side(start, fake_install):
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        processes = list(pool.map(lambda _: start(engine="sc2", sc2path=fake_install), range(4)))
    assert len({p.port for p in processes}) == 4
    assert len({p.temp_dir for p in processes}) == 4
    assert all(raw_ping(p).base_build == 75689 for p in processes)
    # Launched from pool threads that have now exited: the games must not have died with them.
    assert all(p.running for p in processes)


def test_a_forked_copy_of_us_does_not_stop_our_game(start, fake_install):
    process = start(engine="sc2", sc2path=fake_install)
    child = os.fork()
    if child == 0:  # the copy: closing its view of the game must not touch the real one
        process.close()
        os._exit(0)
    assert os.waitpid(child, 0)[1] == 0
    assert process.running and process.temp_dir.is_dir()
    assert raw_ping(process).base_build == 75689


PARENT_SCRIPT = textwrap.dedent("""
    import json, sys, threading, time
    from sc2env.launch import launch
    box = []
    # Launch from a short-lived thread, as a vector env's worker pool might.
    worker = threading.Thread(target=lambda: box.append(launch(engine=sys.argv[3], sc2path=sys.argv[1])))
    worker.start()
    worker.join()
    process = box[0]
    print(json.dumps({"pid": process.pid, "temp_dir": str(process.temp_dir)}), flush=True)
    if sys.argv[2] == "sleep":
        time.sleep(600)
""")


def run_parent(fake_install, then: str, engine: str = "sc2", env=None) -> tuple[subprocess.Popen, dict]:
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT_SCRIPT, str(fake_install), then, engine],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    line = parent.stdout.readline()
    assert line, "the parent process failed to launch the game"
    return parent, json.loads(line)


def sigkill_parent(parent: subprocess.Popen, game: dict) -> None:
    """SIGKILL the process that launched `game`; the game must die with it."""
    try:
        time.sleep(0.3)  # the launching thread is gone; the game must not have followed it
        assert pid_alive(game["pid"])
        parent.send_signal(signal.SIGKILL)
        parent.wait(10)
        assert wait_until(lambda: not pid_alive(game["pid"]), 10), "the game outlived its SIGKILLed parent"
    finally:
        parent.kill()
        parent.wait()
        if pid_alive(game["pid"]):
            os.kill(game["pid"], signal.SIGKILL)


def test_sigkill_of_our_process_leaves_no_game(fake_install, tmp_path):
    # A temp dir of its own: another test's launch would sweep the orphan first.
    parent, game = run_parent(fake_install, "sleep", env=dict(os.environ, TMPDIR=str(tmp_path)))
    sigkill_parent(parent, game)
    # Its temp dir could not be removed by a killed owner; the next launch (or a sweep) removes it.
    temp_dir = pathlib.Path(game["temp_dir"])
    assert temp_dir.is_dir()
    # The game's main thread is reaped first; until its last thread has gone, its log is still locked.
    removed: list = []

    def swept() -> bool:
        removed.extend(sweep_orphaned_temp_dirs(tmp_path))
        return temp_dir in removed

    assert wait_until(swept, 5) and not temp_dir.exists()


def test_interpreter_exit_stops_the_game(fake_install):
    parent, game = run_parent(fake_install, "exit")
    assert parent.wait(30) == 0
    assert wait_until(lambda: not pid_alive(game["pid"]), 5)
    assert not pathlib.Path(game["temp_dir"]).exists()


def test_sweep_keeps_live_owners_dirs(tmp_path):
    child = subprocess.Popen(["true"])
    child.wait()  # a pid that no longer exists
    (tmp_path / f"sc2env-{child.pid}-abc").mkdir()
    (tmp_path / f"sc2env-{os.getpid()}-def").mkdir()
    (tmp_path / "sc2env-notapid").mkdir()
    assert sweep_orphaned_temp_dirs(tmp_path) == [tmp_path / f"sc2env-{child.pid}-abc"]
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"sc2env-{os.getpid()}-def", "sc2env-notapid"]


def test_sweep_keeps_a_dir_whose_log_is_locked_whatever_its_pid_says(tmp_path):
    # An owner in another pid namespace (a container sharing /tmp) has a pid that is free, or someone else's,
    # here: its lock on the dir's log says it is alive.
    import fcntl

    child = subprocess.Popen(["true"])
    child.wait()
    used = tmp_path / f"sc2env-{child.pid}-live"
    used.mkdir()
    with open(used / "output.log", "ab") as log:
        fcntl.flock(log, fcntl.LOCK_EX | fcntl.LOCK_NB)
        assert sweep_orphaned_temp_dirs(tmp_path) == [] and used.is_dir()
    assert sweep_orphaned_temp_dirs(tmp_path) == [used]  # the lock went with its holder


def test_a_file_system_without_locks_still_gives_a_temp_dir_and_leaves_no_staging_dir(tmp_path, monkeypatch):
    import errno
    import fcntl

    from sc2env.launch import workspace

    def no_locks(*args):
        raise OSError(errno.ENOLCK, "No locks available")

    monkeypatch.setattr(fcntl, "flock", no_locks)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    path, log = workspace.make_temp_dir()  # owned by pid alone, as before locks
    log.close()
    assert [p.name for p in tmp_path.iterdir()] == [path.name] and path.name.startswith(
        f"sc2env-{os.getpid()}-"
    )
    monkeypatch.setattr(
        workspace.pathlib.Path, "rename", lambda *args: (_ for _ in ()).throw(OSError("full"))
    )
    with pytest.raises(OSError, match="full"):
        workspace.make_temp_dir()
    assert [p.name for p in tmp_path.iterdir()] == [path.name]  # the failed one's staging dir is gone


def test_builtin_engine_runs_with_the_sc2_flags(start, monkeypatch):
    monkeypatch.setenv("SC2ENV_ENGINE", "builtin")
    process = start()
    cmdline = pathlib.Path(f"/proc/{process.pid}/cmdline").read_bytes().decode().split("\0")[:-1]
    assert cmdline == process.argv
    assert cmdline[:3] == engine_command(sys.executable)
    maps_dir = str(definitions_dir())  # the imported checkout's maps/, or the installed package's
    # No -tempDir: the built-in engine writes no files, so it gets no dir that a SIGKILL could leave behind.
    assert cmdline[3:] == ["-listen", "127.0.0.1", "-port", str(process.port), "-dataDir", maps_dir]
    assert process.temp_dir is None
    ping = raw_ping(process)
    assert (ping.game_version, ping.base_build) == ("4.10.0", 75689)
    process.close()
    assert not pid_alive(process.pid)


def test_sigkill_of_our_process_leaves_nothing_of_a_builtin_engine(fake_install, tmp_path):
    tmp = tmp_path / "tmp"  # where a temp dir, if any, would go
    tmp.mkdir()
    parent, game = run_parent(fake_install, "sleep", engine="builtin", env=dict(os.environ, TMPDIR=str(tmp)))
    assert game["temp_dir"] == "None"
    sigkill_parent(parent, game)
    assert not list(tmp.iterdir()), "no temp dir or log file left on disk"


def test_a_builtin_engine_that_fails_shows_its_output(monkeypatch):
    monkeypatch.setenv("SC2ENV_ENGINE", "builtin")
    with pytest.raises(
        LaunchError, match=r"(?s)exited with code 2.*\| .*invalid int value: 'not-a-number'"
    ) as info:
        launch(extra_args=("-port", "not-a-number"))  # read back from its unlinked log file
    assert "use the built-in engine" not in str(info.value) and "extra_args" in str(info.value)


def test_a_game_killed_while_starting_is_not_blamed_on_its_flags(fake_install, monkeypatch):
    monkeypatch.setenv("FAKE_SC2_MODE", "killed")
    with pytest.raises(
        LaunchError,
        match=r"(?s)was killed by SIGKILL.*something killed it: another process, or "
        r"the kernel's out-of-memory killer",
    ) as info:
        launch(engine="sc2", sc2path=fake_install, timeout_s=60)
    assert "check the install" not in str(info.value)


@pytest.mark.parametrize(
    "engine, returncode, advice",
    [
        ("sc2", -signal.SIGKILL, "something killed it"),
        ("sc2", -signal.SIGSEGV, "check the install and version"),  # a game that crashes by itself
        ("sc2", 3, "check the install and version"),
        ("sc2", -signal.SIGTERM, "something stopped it"),
        ("builtin", 0, "something stopped it"),  # the engine's own exit on SIGTERM or SIGINT
        ("builtin", 2, "check the flags it was given"),
    ],
)
def test_the_advice_for_a_game_that_exits_while_starting_fits_how_it_exited(engine, returncode, advice):
    from sc2env.launch.process import _early_exit_advice

    assert _early_exit_advice(engine, returncode).startswith(advice)


def test_a_port_in_use_is_refused_before_anything_starts(start, monkeypatch):
    # It used to launch a game that could not listen, while the readiness probe reached the other game and
    # called ours ready: the Controller then drove someone else's game.
    monkeypatch.setenv("SC2ENV_ENGINE", "builtin")
    other = start()
    with pytest.raises(LaunchError, match=rf"port {other.port} is in use .*: pass a free port, or none"):
        launch(port=other.port)


def test_an_unclaimed_ready_connection_is_closed_with_the_game(start, monkeypatch):
    monkeypatch.setenv("SC2ENV_ENGINE", "builtin")
    process = start()
    held = process._ready_connection
    assert held is not None and held.connected  # the readiness probe, kept for the first client
    process.close()
    assert not held.connected and process.claim_connection() is None


def _spawned_after(delay_s: float, spawned: list, monkeypatch) -> None:
    """Make the keeper thread start its child `delay_s` late, and note each Popen it makes in `spawned`."""
    from sc2env.launch import child

    real_popen = subprocess.Popen

    def slow_popen(*args, **kwargs):
        time.sleep(delay_s)
        spawned.append(real_popen(*args, **kwargs))
        return spawned[-1]

    monkeypatch.setattr(child.subprocess, "Popen", slow_popen)


def test_a_ctrl_c_while_the_game_is_spawned_leaves_no_game(monkeypatch):
    from sc2env.launch import child

    spawned: list = []
    _spawned_after(0.2, spawned, monkeypatch)
    real_result = concurrent.futures.Future.result

    def interrupted(self, timeout=None):  # Ctrl-C lands in the launching thread's wait
        if threading.current_thread() is threading.main_thread():
            raise KeyboardInterrupt
        return real_result(self, timeout)

    monkeypatch.setattr(concurrent.futures.Future, "result", interrupted)
    with tempfile.TemporaryFile() as log:  # open until the late child has started
        with pytest.raises(KeyboardInterrupt):
            child.Child([sys.executable, "-c", "import time; time.sleep(60)"], dict(os.environ), log)
        assert wait_until(lambda: spawned and spawned[0].poll() is not None, 10), "the late child was killed"
    assert spawned[0].returncode == -signal.SIGKILL


def test_a_stuck_spawn_is_an_error_not_a_hang(monkeypatch):
    from sc2env.launch import child

    spawned: list = []
    _spawned_after(1.0, spawned, monkeypatch)
    monkeypatch.setattr(child, "SPAWN_TIMEOUT_S", 0.1)
    with tempfile.TemporaryFile() as log:  # open until the late child has started
        with pytest.raises(LaunchError, match=r"within 0.1 s: the thread starting it is stuck"):
            child.Child([sys.executable, "-c", "import time; time.sleep(60)"], dict(os.environ), log)
        assert wait_until(lambda: spawned and spawned[0].poll() is not None, 10), "the late child was killed"


def test_an_import_in_another_thread_does_not_hold_up_a_spawn(monkeypatch):
    # CPython forks under the import lock when a preexec_fn runs in the child: a spawn would wait for any import
    # in another thread, and for ever for one a Ctrl-C interrupted. The parent-death signal is set without one.
    import _imp

    from sc2env.launch import child

    monkeypatch.setattr(child, "SPAWN_TIMEOUT_S", 5.0)
    with tempfile.TemporaryFile() as log:
        _imp.acquire_lock()
        try:
            started = child.Child([sys.executable, "-c", "print('started')"], dict(os.environ), log)
        finally:
            _imp.release_lock()
        assert started.wait(10) == 0
        log.seek(0)
        assert log.read() == b"started\n"


def test_a_picked_port_another_program_took_first_is_picked_again(monkeypatch, caplog):
    # portpicker keeps a port from being handed out twice in one process only: another training process could
    # bind ours before our game did, which then exited with "Address already in use" and failed the launch.
    import socket

    from sc2env.launch import workspace

    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    busy = taken.getsockname()[1]
    picks = iter([busy])
    real_pick = workspace.pick_port
    monkeypatch.setattr(workspace, "pick_port", lambda: next(picks, None) or real_pick())
    monkeypatch.setattr(workspace, "return_port", lambda port: None)  # the busy port is not portpicker's
    try:
        with launch(engine="builtin") as process:
            assert process.port != busy and process.running
        assert f"found port {busy} taken by another program" in caplog.text
    finally:
        taken.close()


def test_a_game_listening_on_our_picked_port_is_never_taken_for_ours(monkeypatch, caplog):
    # Two training processes can pick the same free port within the fraction of a second before either game
    # binds it. The other one's game then answered our readiness probe while ours was still starting, and we
    # drove it (and quit it, failing the other process's launch: "exited with code 0 ... before answering").
    from sc2env.launch import workspace

    busy = portpicker.pick_unused_port()
    other = subprocess.Popen(
        [sys.executable, "-m", "sc2env.engine", "-port", str(busy)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        assert wait_until(lambda: not workspace.port_is_free(busy), timeout_s=30)
        picks = iter([busy])
        real_pick = workspace.pick_port
        monkeypatch.setattr(workspace, "pick_port", lambda: next(picks, None) or real_pick())
        monkeypatch.setattr(workspace, "return_port", lambda port: None)  # the busy port is not portpicker's
        with launch(engine="builtin") as process:
            assert process.port != busy
            assert raw_ping(process).game_version  # our own game answers
        assert f"found port {busy} taken by another program" in caplog.text
        # The other game was never spoken to: its one client slot is free, and it answers its own client.
        import websocket

        ws = websocket.create_connection(f"ws://127.0.0.1:{busy}/sc2api", timeout=10)
        try:
            ws.send_binary(sc_pb.Request(id=3, ping=sc_pb.RequestPing()).SerializeToString())
            assert sc_pb.Response.FromString(ws.recv()).id == 3
        finally:
            ws.close()
        assert other.poll() is None
    finally:
        other.kill()
        other.wait()


def test_a_given_port_another_program_takes_before_our_game_listens_fails_the_launch(monkeypatch):
    import socket

    from sc2env.launch import workspace

    taken = socket.create_server(("127.0.0.1", 0))
    busy = taken.getsockname()[1]
    monkeypatch.setattr(workspace, "port_is_free", lambda port: True)  # it was free when checked
    try:
        with pytest.raises(
            LaunchError, match=f"port {busy} was taken by another program .* Pass a free port"
        ):
            launch(engine="builtin", port=busy)
    finally:
        taken.close()


def test_a_ctrl_c_while_the_keeper_thread_starts_leaves_no_game(monkeypatch, marked_games):
    # Thread.start() waits for the new thread to run: a Ctrl-C there came once the keeper was spawning the
    # game, which then ran unowned (nothing to stop it, its port given back) until the interpreter exited.
    real_start = threading.Thread.start

    def start(thread):
        real_start(thread)
        if thread.name.startswith("sc2env-keeper"):
            monkeypatch.setattr(threading.Thread, "start", real_start)
            time.sleep(0.05)  # the keeper spawns meanwhile
            raise KeyboardInterrupt

    monkeypatch.setattr(threading.Thread, "start", start)
    with pytest.raises(KeyboardInterrupt):
        launch(engine="builtin")
    assert wait_until(lambda: not marked_games(), 10), "the game outlived its launch"
