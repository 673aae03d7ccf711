"""The sc2env command: run (table, progress, video), maps, doctor, bench, play, and one-line errors."""

from __future__ import annotations

import errno
import importlib
import io
import json
import os
import pathlib
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import pytest

import sc2env.agents
from sc2env.cli import main
from sc2env.cli.results import results_table
from sc2env.cli.signals import exit_code
from sc2env.game import MINI_GAMES
from sc2env.mapfiles import definitions_dir

BUILTIN = ["--engine", "builtin"]


def run_cli(capsys, *args):
    code = main(["sc2env", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_run_prints_progress_and_a_table_per_map(capsys):
    code, out, err = run_cli(
        capsys,
        "run",
        "--map",
        "MoveToBeacon,CollectMineralShards",
        "--agent",
        "scripted",
        "--episodes",
        "2",
        "--max-steps",
        "40",
        *BUILTIN,
    )
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].split() == ["map", "agent", "episodes", "mean", "max", "min", "steps/s", "invalid"]
    rows = {line.split()[0]: line.split() for line in lines[2:]}
    assert set(rows) == {"MoveToBeacon", "CollectMineralShards"}
    assert rows["MoveToBeacon"][1:3] == ["scripted", "2"]
    assert float(rows["CollectMineralShards"][3]) >= 5  # 40 steps of the script collect shards
    assert "CollectMineralShards episode 2/2: score" in err


def test_the_live_progress_line_counts_episodes_per_map_as_the_episode_lines_do():
    import io

    from sc2env.cli.progress import Progress

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    progress = Progress(per_map=2, budgets=[240, 240], stream=Terminal())
    progress.done = 2  # both episodes of the first map are over
    progress.step("CollectMineralShards", 5, {"score": 3})
    line = progress.stream.getvalue()
    assert "CollectMineralShards episode 1/2 [############............] step 5 score 3" in line  # was 3/4


def test_run_saves_a_gif_of_the_viewer(tmp_path, capsys):
    pytest.importorskip("PIL")
    out_file = tmp_path / "run.gif"
    code, _, err = run_cli(
        capsys,
        "run",
        "--agent",
        "random",
        "--max-steps",
        "5",
        "--seed",
        "1",
        "--save-video",
        str(out_file),
        *BUILTIN,
    )
    assert code == 0, err
    from PIL import Image

    with Image.open(out_file) as image:
        assert image.size == (1280, 720) and image.n_frames == 1 + 5  # the reset's frame, then one per step


def test_run_saves_an_mp4(tmp_path, capsys):
    imageio = pytest.importorskip("imageio.v2")
    pytest.importorskip("imageio_ffmpeg")
    out_file = tmp_path / "run.mp4"
    code, _, err = run_cli(capsys, "run", "--max-steps", "6", "--save-video", str(out_file), *BUILTIN)
    assert code == 0, err
    with imageio.get_reader(out_file) as reader:
        frames = [frame for frame in reader]  # noqa: C416 - list() asks len(), which is inf for a stream
    assert len(frames) == 1 + 6 and frames[0].shape == (720, 1280, 3)  # the episode's start was missing


def test_run_interrupted_before_the_first_frame_writes_no_video_and_says_so(tmp_path, capsys, monkeypatch):
    pytest.importorskip("imageio.v2")
    pytest.importorskip("imageio_ffmpeg")
    import sc2env.agents

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(sc2env.agents, "run_agent", interrupted)
    out_file = tmp_path / "run.mp4"
    code, out, err = run_cli(capsys, "run", "--save-video", str(out_file), *BUILTIN)
    assert code == 130
    assert f"video: no frame was recorded, so {out_file} was not written" in err
    assert not out_file.exists() and out == ""


def test_closing_the_viewer_window_ends_a_run_without_failing(capsys, monkeypatch):
    import sc2env.agents
    from sc2env.viewer import ViewerClosed

    def closed(*args, **kwargs):
        raise ViewerClosed("the viewer window was closed")

    monkeypatch.setattr(sc2env.agents, "run_agent", closed)
    code, _, err = run_cli(capsys, "run", *BUILTIN)
    assert code == 0 and "sc2env run: the viewer window was closed: no episode finished" in err


def test_a_game_lost_mid_run_keeps_the_finished_episodes_in_the_table(capsys, monkeypatch):
    import sc2env.agents
    from sc2env.errors import GameCrashedError

    run_agent = sc2env.agents.run_agent

    def crashes_after_two(env, agent, episodes, **kwargs):
        on_episode = kwargs.pop("on_episode")
        finished = []
        run_agent(env, agent, 2, on_episode=lambda e: (finished.append(e), on_episode(e)), **kwargs)
        raise GameCrashedError("The game died during `step`: the built-in engine was killed by SIGKILL")

    monkeypatch.setattr(sc2env.agents, "run_agent", crashes_after_two)
    code, out, err = run_cli(capsys, "run", "--episodes", "5", *BUILTIN)
    assert code == 1 and "killed by SIGKILL" in err
    assert "stopped by an error (GameCrashedError): results of the 2 finished episode(s)" in err
    assert "MoveToBeacon" in out and " 2 " in out.splitlines()[-1], "the table of the two episodes"


@pytest.mark.parametrize(
    "args, message",
    [
        (["run", "--map", "Nowhere"], "Known maps: BuildMarines"),
        (["run", "--agent", "clever"], "use random, scripted or package.module:Class"),
        (["run", "--save-video", "out.avi"], "videos are .mp4 or .gif"),
        (["run", "--episodes", "x"], "--episodes"),
        (["run", "--episodes", "0"], "--episodes=0: 0 is not a positive integer"),
        (["run", "--max-steps", "0"], "--max-steps=0: 0 is not a positive integer"),
        (["run", "--step-mul", "0"], "--step-mul=0: 0 is not an integer in the range [1, 4294967295]"),
        (
            ["run", "--step-mul", "4294967296"],
            "not an integer in the range [1, 4294967295]",
        ),  # a protobuf error
        (["run", "--map", "MoveToBeacon,movetobeacon"], "MoveToBeacon given more than once in --map"),
        (["run", "--map", "MoveToBeacon,"], "--map 'MoveToBeacon,' has an empty name (a stray comma?)"),
        (["run", "--save-video", ""], "--save-video needs a file name"),
        (["bench", "--steps", "20"], "--steps=20: 20 is not integer >= 100"),  # 20 steps time start-up noise
        (["run", "--seed", "-5"], "--seed=-5: -5 is not a non-negative integer"),
        (["run", "--bogus"], "Unknown command line flag 'bogus'"),
        (["fly"], "unknown command 'fly'"),
        (["run", "--map", ""], "no map given: --map takes a mini-game"),
        (["run", "--map", "all,MoveToBeacon"], "'all' stands alone"),
        (["run", "--screen-size", "100000"], "screen_size 100000×100000 is too large: at most 2048"),
        (["run", "--save-video", "."], "cannot write '.': videos are .mp4 or .gif files"),
        (["run", "--save-video", "clips"], "cannot write 'clips': videos are .mp4 or .gif files"),
        (
            ["run", "--save-video", f"{__file__}/out.mp4"],
            f"cannot write {__file__}/out.mp4: {__file__} is not a folder",
        ),
        (["run", "--agent", "mypackage/agents.py:GoRight"], "(mypackage.agents:GoRight), not as a file path"),
        (
            ["run", "--agent", "sc2env.agents:Goright"],
            ("sc2env.agents has no 'Goright'; its agent classes: BuildMarines, CollectMineralShards"),
        ),  # not the base, Agent
        (
            ["run", "--agent", "sc2env.agents:Agent"],
            "'sc2env.agents:Agent' cannot be made: it does not define step",
        ),
    ],
)
def test_errors_are_one_line(capsys, args, message):
    code, _, err = run_cli(capsys, *args, *BUILTIN[: 2 if args[0] == "run" else 0])
    # A flag value, a map, an agent, a video file or an env option that no run could use is a usage error (2),
    # as absl's flag errors are, found before any game starts.
    assert code == 2, (code, err)
    assert message in err
    assert (
        "Traceback" not in err and len([line for line in err.splitlines() if line.startswith("sc2env")]) == 1
    )


def test_a_video_path_that_is_a_folder_is_refused_before_the_game(capsys, tmp_path):
    (tmp_path / "clip.mp4").mkdir()
    code, _, err = run_cli(capsys, "run", "--save-video", str(tmp_path / "clip.mp4"), *BUILTIN)
    assert code == 2 and f"cannot write the video to {tmp_path / 'clip.mp4'}: that is a folder" in err
    assert "video:" not in err and "episode" not in err  # refused before any game or frame


AGENTS_MODULE = """
from sc2env.agents import Agent, RandomAgent
from sc2env.interface import FUNCTIONS

class NeedsArg(RandomAgent):
    def __init__(self, size):
        super().__init__()

class Typo(RandomAgent):
    env_kwargs = {"use_feature_unitz": True}

class Renders(RandomAgent):
    env_kwargs = {"render_mode": "human"}

class RawOnly(RandomAgent):
    actions = ("raw",)

class Small(Agent):
    env_kwargs = {"screen_size": 32, "step_mul": 16}
    def step(self, obs):
        self.seen = obs.feature_screen.shape
        return FUNCTIONS.no_op()
"""


@pytest.mark.parametrize(
    "agent, extra, message",
    [
        ("NeedsArg", [], "'cliagents:NeedsArg' cannot be made without arguments (it needs size)"),
        ("Small", ["--minimap-size", "3000"], "minimap_size 3000×3000 is too large"),  # found before the game
        ("Typo", [], "asks for the env option 'use_feature_unitz' in its env_kwargs, which is not one"),
        ("Renders", [], "asks for the env option 'render_mode'"),
        (
            "Small",
            ["--screen-size", "84"],
            "plays with screen_size=32 (its env_kwargs), but --screen-size 84 was given",
        ),
        ("Small", ["--actions", "raw"], "'cliagents:Small' plays features actions, not --actions raw"),
        (
            "RawOnly",
            ["--actions", "features"],
            "plays raw actions, not --actions features: pass --actions raw",
        ),
    ],
)
def test_agent_mistakes_are_one_line_and_start_no_game(capsys, tmp_path, monkeypatch, agent, extra, message):
    (tmp_path / "cliagents.py").write_text(AGENTS_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    code, _, err = run_cli(capsys, "run", "--agent", f"cliagents:{agent}", *extra, *BUILTIN)
    assert code == 2 and message in err, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_an_agents_env_kwargs_apply_unless_a_flag_says_otherwise(capsys, tmp_path, monkeypatch):
    (tmp_path / "cliagents.py").write_text(AGENTS_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    made = []
    real_make = sc2env.agents.make_agent
    monkeypatch.setattr(
        sc2env.agents, "make_agent", lambda *a, **k: made.append(real_make(*a, **k)) or made[-1]
    )
    # A flag that agrees with the agent is no conflict; the agent's own options reach the env.
    code, _, err = run_cli(
        capsys, "run", "--agent", "cliagents:Small", "--screen-size", "32", "--max-steps", "2", *BUILTIN
    )
    assert code == 0, err
    assert made[0].seen[1:] == (32, 32)


def test_an_agent_of_raw_actions_only_gets_them_unasked(capsys, tmp_path, monkeypatch):
    (tmp_path / "cliagents.py").write_text(AGENTS_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    code, out, err = run_cli(
        capsys, "run", "--agent", "cliagents:RawOnly", "--map", "DefeatRoaches", "--max-steps", "5", *BUILTIN
    )
    assert code == 0 and out.split()[-1] == "0", out + err


def test_raw_agents_run_with_raw_actions(capsys):
    code, out, err = run_cli(
        capsys,
        "run",
        "--map",
        "DefeatRoaches",
        "--agent",
        "random",
        "--actions",
        "raw",
        "--max-steps",
        "20",
        "--engine",
        "builtin",
    )
    assert code == 0 and out.split()[-1] == "0", out + err  # the last column: invalid actions
    code, out, err = run_cli(
        capsys,
        "run",
        "--map",
        "DefeatRoaches",
        "--agent",
        "sc2env.agents:RawFocusFire",
        "--max-steps",
        "30",
        "--engine",
        "builtin",
    )
    assert code == 0 and "DefeatRoaches" in out, err


def test_verbose_is_put_back_when_main_returns(capsys):
    import logging

    before = (logging.getLogger("sc2env").getEffectiveLevel(), logging.root.level)
    run_cli(capsys, "maps", "--verbose")
    assert (logging.getLogger("sc2env").getEffectiveLevel(), logging.root.level) == before


def test_the_table_shows_the_whole_agent_name():
    from sc2env.agents import summarise
    from sc2env.agents.runner import Episode

    table = results_table(summarise([Episode("MoveToBeacon", 3, 3.0, 10, 80, 0.1)]), "mypkg.agents:GoRight")
    assert table.splitlines()[2].split()[:2] == ["MoveToBeacon", "mypkg.agents:GoRight"]


def test_verbose_logs_the_launch_and_the_game():
    done = subprocess.run(
        [sys.executable, "-m", "sc2env", "run", "--max-steps", "2", "--verbose", *BUILTIN],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert "playing the built-in engine in this process (direct mode" in done.stderr
    assert "creating MoveToBeacon (seed " in done.stderr
    over_a_socket = subprocess.run(
        [sys.executable, "-m", "sc2env", "run", "--max-steps", "2", "--verbose", *BUILTIN],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
        env=dict(os.environ, SC2ENV_DIRECT="0"),
    )
    assert (
        "the built-in engine" in over_a_socket.stderr and "ready at ws://127.0.0.1:" in over_a_socket.stderr
    )
    assert "Logging before flag parsing" not in done.stderr


def test_sigterm_closes_the_games_and_prints_what_finished(tmp_path):
    run = subprocess.Popen(
        [sys.executable, "-m", "sc2env", "run", "--episodes", "500", *BUILTIN],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        run.stderr.readline()  # the first progress line: a game is running
        run.send_signal(signal.SIGTERM)
        out, err = run.communicate(timeout=60)
    finally:
        run.kill()
    assert run.returncode == 143 and "terminated by SIGTERM: results of the" in err
    assert out.splitlines()[0].split()[0] == "map"
    assert not list(pathlib.Path(tempfile.gettempdir()).glob(f"sc2env-{run.pid}-*"))  # its games' folders


def test_maps_lists_the_mini_games(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("SC2PATH", "/nonexistent/StarCraftII")
    code, out, _ = run_cli(capsys, "maps")
    assert code == 0
    rows = [line.split() for line in out.splitlines()[1:8]]
    assert [row[0] for row in rows] == list(MINI_GAMES)
    assert rows[0] == ["MoveToBeacon", "120", "s", "-"] and rows[-1] == ["BuildMarines", "900", "s", "-"]
    # SC2PATH names a folder that holds no install: the reason is shown, not "set SC2PATH".
    assert (
        f"The built-in engine plays all of them (their definitions are in {definitions_dir()})" in out
        and "No StarCraft II under /nonexistent/StarCraftII" in out
    )
    monkeypatch.delenv("SC2PATH")
    monkeypatch.setenv("HOME", str(tmp_path))  # no ~/StarCraftII either
    assert "No StarCraft II install found (set SC2PATH to use one)." in run_cli(capsys, "maps")[1]


def test_doctor_reports_the_builtin_engine_and_the_display(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    monkeypatch.delenv("SC2PATH", raising=False)
    monkeypatch.delenv("SC2ENV_ENGINE", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))  # no ~/StarCraftII
    code, out, _ = run_cli(capsys, "doctor")
    assert code == 0, out
    assert "ok  built-in engine starts in" in out and "MoveToBeacon" in out
    assert f"--  StarCraft II: No StarCraft II under {tmp_path}/StarCraftII" in out
    assert "ok  default engine (no --engine / engine=): the built-in engine" in out
    assert "--  display: SDL_VIDEODRIVER=dummy" in out


@pytest.mark.parametrize(
    "variable, value, fix",
    [
        ("SC2PATH", "/nonexistent/StarCraftII", "point SC2PATH at a StarCraft II install, or unset it"),
        ("SC2ENV_ENGINE", "biultin", "set SC2ENV_ENGINE to one of auto, builtin, sc2, or unset it"),
        (
            "SC2ENV_ENGINE",
            "sc2",
            "set SC2PATH to a StarCraft II install, or SC2ENV_ENGINE to builtin or auto",
        ),
    ],
)
def test_doctor_flags_settings_that_make_the_default_engine_fail(
    capsys, monkeypatch, tmp_path, variable, value, fix
):
    # They used to pass as "All good", and then `sc2env run` failed.
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    monkeypatch.delenv("SC2PATH", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))  # no ~/StarCraftII
    monkeypatch.setenv(variable, value)
    code, out, _ = run_cli(capsys, "doctor")
    assert code == 1 and "!!  default engine: " in out and f"-> {fix}" in out


def test_the_console_script_imports_an_agent_from_the_working_directory(tmp_path):
    script = pathlib.Path(sys.executable).with_name("sc2env")
    if not script.exists():
        pytest.skip("the sc2env console script is not installed beside this Python")
    (tmp_path / "mypackage").mkdir()
    (tmp_path / "mypackage" / "__init__.py").write_text("")
    (tmp_path / "mypackage" / "agents.py").write_text(
        "from sc2env.agents import RandomAgent\n\nclass Mine(RandomAgent):\n    pass\n"
    )
    done = subprocess.run(
        [str(script), "run", "--agent", "mypackage.agents:Mine", "--max-steps", "3", *BUILTIN],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "mypackage.agents:Mine" in done.stdout


def test_bench_prints_steps_per_second(capsys):
    code, out, _ = run_cli(capsys, "bench", "--steps", "100")
    assert code == 0
    assert "env steps/s" in out and float(out.split(": ")[1].split()[0].replace(",", "")) > 0


def test_play_without_a_display_says_how_to_run_headless():
    hidden = ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER", "PYGAME_HIDE_SUPPORT_PROMPT")
    env = {k: v for k, v in os.environ.items() if k not in hidden}
    done = subprocess.run(
        [sys.executable, "-m", "sc2env", "play", "--engine", "builtin"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1
    assert done.stderr.startswith("sc2env play: cannot open a window") and "xvfb-run" in done.stderr
    assert "Traceback" not in done.stderr
    assert "pygame" not in done.stdout  # the viewer imported pygame, and the command hid its greeting


def test_play_with_a_display_variable_but_no_display_server_refuses_the_invisible_window():
    # SDL fell back to its invisible "offscreen" driver: play ran into a window nobody could see.
    env = {k: v for k, v in os.environ.items() if k not in ("WAYLAND_DISPLAY", "SDL_VIDEODRIVER")}
    env["DISPLAY"] = ":87"  # no X server there
    done = subprocess.run(
        [sys.executable, "-m", "sc2env", "play", "--engine", "builtin"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    assert "no display server answers at DISPLAY=':87'" in done.stderr and "xvfb-run" in done.stderr
    doctor = subprocess.run(
        [sys.executable, "-m", "sc2env", "doctor"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert "--  display: no display server answers at DISPLAY=':87'" in doctor.stdout, doctor.stdout


_DISPLAY_CHECKS = """
from sc2env.env.env import SC2Env
from sc2env.viewer import NoDisplayError, display_problem
from sc2env.viewer.window import Window
print("problem:", display_problem())
for what, make in (("env", lambda: SC2Env("MoveToBeacon", render_mode="human", engine="builtin")),
                   ("window", lambda: Window((960, 540)))):
    try:
        make().close()
        print(what, "opened")
    except NoDisplayError:
        print(what, "refused")
"""


@pytest.mark.parametrize(
    "settings, opens",
    [
        ({"DISPLAY": ":87"}, False),  # no server there: refused when the env is made, not at its first frame
        ({"DISPLAY": ":87", "SDL_VIDEODRIVER": "OFFSCREEN"}, True),  # invisible on purpose: any case
        ({"DISPLAY": ":87", "SDL_VIDEODRIVER": "x11,offscreen"}, True),  # SDL's list of drivers to try
    ],
)
def test_an_invisible_display_is_refused_unless_asked_for(settings, opens):
    env = {k: v for k, v in os.environ.items() if k not in ("WAYLAND_DISPLAY", "SDL_VIDEODRIVER")} | settings
    done = subprocess.run(
        [sys.executable, "-c", _DISPLAY_CHECKS],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    if opens:
        assert (
            "problem: None" in done.stdout and "env opened" in done.stdout and "window opened" in done.stdout
        )
    else:
        assert "problem: no display server answers at DISPLAY=':87'" in done.stdout
        assert "env refused" in done.stdout and "window refused" in done.stdout


def test_play_says_what_an_episode_cut_by_closing_the_window_had_scored(capsys):
    # Closing the window before the first episode ended printed nothing at all.
    import threading

    import pygame

    def close_the_window():
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not (
            pygame.display.get_init() and pygame.display.get_surface()
        ):
            time.sleep(0.05)
        time.sleep(0.5)  # a few steps of play
        pygame.event.post(pygame.event.Event(pygame.QUIT))

    closer = threading.Thread(target=close_the_window)
    closer.start()
    code, out, _ = run_cli(capsys, "play", "--map", "MoveToBeacon", *BUILTIN)
    closer.join()
    assert code == 0 and "MoveToBeacon episode 1: unfinished when the window closed, score 0 so far" in out


@pytest.mark.parametrize("maps", ["all", "MoveToBeacon,DefeatRoaches"])
def test_play_takes_one_map(capsys, maps):
    # "all" failed with "too many values to unpack"; a list played its first map in silence.
    code, _, err = run_cli(capsys, "play", "--map", maps, *BUILTIN)
    assert code == 2 and f"play takes one mini-game, not {maps!r}" in err


def test_python_dash_m_shows_the_commands():
    done = subprocess.run(
        [sys.executable, "-m", "sc2env", "--help"], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0
    assert "usage: sc2env <command>" in done.stdout and "doctor" in done.stdout


def test_version(capsys):
    assert run_cli(capsys, "--version")[:2] == (0, f"sc2env {sc2env.__version__}\n")


def test_importing_the_library_leaves_the_environment_alone():
    # gymnasium sets PYGAME_HIDE_SUPPORT_PROMPT when first imported: import it, then take its setting away.
    code = (
        "import os, gymnasium; os.environ.pop('PYGAME_HIDE_SUPPORT_PROMPT', None); "
        "before = dict(os.environ); import sc2env.viewer, sc2env.agents, sc2env.cli; "
        "assert dict(os.environ) == before, set(os.environ.items()) ^ set(before.items())"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYGAME_HIDE_SUPPORT_PROMPT"}
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("package", ["sc2env.env", "sc2env.game"])
def test_literal_all_lists_exactly_the_lazy_exports(package):
    # __all__ is written out for static tools; the lazy-import table is what actually resolves the names.
    module = importlib.import_module(package)
    assert sorted(module.__all__) == sorted(module._EXPORTS)
    assert all(getattr(module, name) is not None for name in module.__all__)


def test_a_one_line_error_does_not_end_on_a_colon_with_nothing_after():
    # "... killed by SIGKILL. Its last output lines: (--verbose for details)" promised lines it didn't show.
    from sc2env.cli.text import one_line

    died = RuntimeError("the game died (pid 7) killed by SIGKILL. Its last output lines:\n  | (no output)")
    assert (
        one_line(died)
        == "the game died (pid 7) killed by SIGKILL. Its last output lines (--verbose shows them)"
    )
    assert one_line(RuntimeError("first\nsecond")) == "first (--verbose for details)"
    assert one_line(RuntimeError("alone")) == "alone"


def test_a_map_of_the_install_goes_through_sc2_v0(capsys, tmp_path, monkeypatch):
    # `sc2env maps` lists an install's other maps to play; run and play built sc2env/<name>-v0 and died on
    # Gymnasium's NameNotFound with a traceback.
    subprocess.run(
        [sys.executable, "-m", "sc2env.engine", "--make-sc2path", str(tmp_path)],
        check=True,
        capture_output=True,
    )
    (tmp_path / "Maps" / "Ladder").mkdir(parents=True)
    (tmp_path / "Maps" / "Ladder" / "AbyssalReef.SC2Map").write_bytes(b"not a map the built-in engine plays")
    monkeypatch.setenv("SC2PATH", str(tmp_path))
    made = []
    from sc2env.cli import run

    real = run.make_env
    monkeypatch.setattr(run, "make_env", lambda name, **kwargs: made.append(name) or real(name, **kwargs))
    code, _, err = run_cli(capsys, "run", "--map", "AbyssalReef", "--agent", "random", "--engine", "sc2")
    assert made == ["AbyssalReef"] and "Traceback" not in err and "NameNotFound" not in err
    # The stand-in's engine plays the maps it ships only: the game's own refusal, in one line.
    assert code == 1 and len(err.strip().splitlines()) == 1 and "create_game" in err, err


def test_help_of_a_command_and_a_bare_call(capsys):
    code, out, err = run_cli(capsys, "help", "run")
    assert code == 0 and out.startswith("usage: sc2env run [--flags]") and "--save-video" in out
    code, out, err = run_cli(capsys, "help", "fly")
    assert code == 2 and "no command 'fly'" in err
    code = main(["sc2env"])
    out, err = capsys.readouterr()
    assert (
        code == 2 and out == "" and err.startswith("usage: sc2env <command>")
    )  # a usage error goes to stderr


@pytest.mark.parametrize("unbuffered", ["1", ""])
def test_a_closed_pipe_ends_the_command_quietly(unbuffered):
    # `sc2env maps | head -1`: "sc2env maps: [Errno 32] Broken pipe" and exit 1, or (block-buffered output,
    # written at exit) Python's "Exception ignored ... BrokenPipeError" and exit 120.
    read, write = os.pipe()
    os.close(read)  # the reader is gone before the first line
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"} | (
        {"PYTHONUNBUFFERED": unbuffered} if unbuffered else {}
    )
    try:
        for args in (["maps"], ["--help"]):
            done = subprocess.run(
                [sys.executable, "-m", "sc2env", *args],
                stdout=write,
                stderr=subprocess.PIPE,
                env=env,
                text=True,
                timeout=60,
                check=False,
            )
            assert (done.returncode, done.stderr) == (141, ""), args
    finally:
        os.close(write)


def test_doctor_names_the_variable_that_forces_the_slow_protobuf(monkeypatch):
    from google.protobuf.internal import api_implementation

    from sc2env.cli import doctor

    monkeypatch.setattr(api_implementation, "Type", lambda: "python")
    monkeypatch.setenv("PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION", "python")
    status, _, fix = doctor._check_packages()
    assert status == "!!" and fix.startswith("unset PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION")
    monkeypatch.delenv("PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION")
    assert doctor._check_packages()[2].startswith("pip install 'protobuf>=6.31.1'")


def test_the_live_progress_line_fits_the_terminal_it_is_drawn_on(monkeypatch):
    # Padded to 100 columns, every redraw wrapped on an 80-column terminal: a new line every 0.1 s. The width
    # is the stderr terminal's, also when stdout (the table) goes to a file.
    import fcntl
    import pty
    import struct
    import termios

    from sc2env.cli.progress import Progress

    monkeypatch.delenv("COLUMNS", raising=False)
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 60, 0, 0))
    with os.fdopen(follower, "w") as stream:
        progress = Progress(2, [240, 240], stream)
        progress.step("DefeatZerglingsAndBanelings", 123, {"score": 4567})
        progress.end_line()
    drawn = os.read(leader, 4096).decode()
    os.close(leader)
    assert progress.width == 59 and drawn.startswith("\rDefeatZerglingsAndBanelings episode 1/2")
    assert all(len(line.strip("\r")) <= 59 for line in drawn.splitlines())


def test_a_second_ctrl_c_while_the_video_is_finished_is_held(capsys, ctrl_c):
    # Two quick Ctrl-Cs left a 48-byte, unplayable MP4: the second one interrupted the encoder's finish.
    from sc2env.cli.signals import signals_held

    finished = False
    with signals_held("finishing the video"):
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.05)
        finished = True
    assert finished and "finishing the video" in capsys.readouterr().err
    with pytest.raises(KeyboardInterrupt), signals_held("finishing the video"):  # a third press abandons it
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.05)
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.05)


def test_a_signal_while_a_frame_is_written_acts_after_the_frame(ctrl_c):
    # SIGTERM during --save-video left an unplayable MP4 one run in three: an interrupt raised inside
    # imageio-ffmpeg's frame write makes it kill ffmpeg. Signals now wait for the frame.
    from sc2env.cli.signals import Terminated, interrupt, signals_held

    for signum, raised in ((signal.SIGINT, KeyboardInterrupt), (signal.SIGTERM, Terminated)):
        previous = signal.signal(signal.SIGTERM, interrupt)
        written = []
        try:
            with pytest.raises(raised), signals_held():
                os.kill(os.getpid(), signum)
                time.sleep(0.05)
                written.append("frame")  # the frame is finished before the signal acts
        finally:
            signal.signal(signal.SIGTERM, previous)
        assert written == ["frame"]
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # handlers put back
        assert signal.getsignal(signal.SIGTERM) is previous
    # A second signal acts at once: a frame write stuck on a hung encoder must not hold Ctrl-C for good.
    with pytest.raises(KeyboardInterrupt), signals_held():
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.05)
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.05)
        written.append("never")
    assert written == ["frame"]


def test_a_sigterm_while_the_video_is_finished_still_ends_the_run_as_terminated(ctrl_c):
    # The file is finished first; then the stop it was is what the run reports (143), not a clean exit.
    from sc2env.cli.signals import Terminated, held_stop, interrupt, signals_held

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        with signals_held("finishing the video") as held:
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(0.05)
    finally:
        signal.signal(signal.SIGTERM, previous)
    stop = held_stop(held)
    assert isinstance(stop, Terminated) and exit_code(stop) == 143
    assert held_stop([]) is None and exit_code(held_stop([signal.SIGINT])) == 130


def test_a_closed_stdout_and_help_flags_after_help():
    # `sc2env --version >&-`: Python sets sys.stdout to None, and the flush at the end failed (exit 1).
    done = subprocess.run(
        f"{sys.executable} -m sc2env --version >&-",
        shell=True,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (done.returncode, done.stderr) == (0, "")
    for flag in ("-h", "--help"):  # `sc2env help -h` is a request for the usage, not for a command "-h"
        assert main(["sc2env", "help", flag]) == 0


def test_run_plays_a_definition_file_and_names_it_by_its_name(capsys, tmp_path, monkeypatch):
    spec = json.loads((definitions_dir() / "MoveToBeacon.json").read_text())
    spec.update(name="ShortBeacon", time_limit=160)
    (tmp_path / "ShortBeacon.json").write_text(json.dumps(spec))
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli(
        capsys, "run", "--map", "ShortBeacon.json", "--agent", "random", "--episodes", "2", *BUILTIN
    )
    assert code == 0, err
    (row,) = [line.split() for line in out.splitlines()[2:]]
    # Its own "name", as the shipped maps are named: the file would only tell it from another of that name.
    assert row[:3] == ["ShortBeacon", "random", "2"]
    assert re.search(r"ShortBeacon episode 2/2: score \d+ in 20 steps", err), err  # its 160-loop timer
    code, _, err = run_cli(capsys, "run", "--map", "Missing.json", "--agent", "scripted", *BUILTIN)
    assert code == 2 and "Cannot read the mini-game definition 'Missing.json'" in err, err
    assert len(err.strip().splitlines()) == 1
    # The same file twice, by two paths, would be played twice and merged into one row.
    code, _, err = run_cli(
        capsys, "run", "--map", "ShortBeacon.json,./ShortBeacon.json", "--agent", "random", *BUILTIN
    )
    assert code == 2 and "ShortBeacon.json given more than once in --map" in err, err
    # With StarCraft II asked for, the definition is what is wrong, whether or not the game is installed.
    code, _, err = run_cli(capsys, "run", "--map", "ShortBeacon.json", "--agent", "random", "--engine", "sc2")
    assert code == 2 and "is a mini-game definition, which only the built-in engine plays" in err, err


@pytest.mark.parametrize(
    "args, message",
    [
        (["run", "--episodes", "abc"], "--episodes: expected a whole number, got 'abc'"),
        (["run", "--episodes", "1.5"], "--episodes: expected a whole number, got '1.5'"),
        (["run", "--screen-size", "big"], "--screen-size: expected a whole number, got 'big'"),
        (["run", "--engine", "builtn"], "--engine: expected one of auto, builtin, sc2, got 'builtn'"),
        (["run", "--actions", "rwa"], "--actions: expected one of features, raw, got 'rwa'"),
        (["run", "--render=yes"], "--render takes no value, got 'yes'"),
        (["run", "--map"], "--map: expected a value"),
        (["run", "--epsiodes", "3"], "Unknown command line flag 'epsiodes': did you mean --episodes?"),
        (["replay", "--observed-player", "x"], "--observed-player: expected a whole number, got 'x'"),
    ],
)
def test_an_option_value_of_the_wrong_kind_names_the_option_and_what_it_takes(capsys, args, message):
    # `--episodes abc` printed "invalid literal for int() with base 10: 'abc'" (Python's words, no option).
    code, out, err = run_cli(capsys, *args)
    assert code == 2 and out == ""
    assert err == f"sc2env {args[0]}: {message} (see sc2env {args[0]} --help)\n", err


def test_options_parse_into_the_commands_typed_dataclass():
    from sc2env.cli.options import parse
    from sc2env.cli.run import COMMAND, RunOptions

    options = parse(COMMAND, ["--map", "MoveToBeacon, DefeatRoaches", "--episodes", "3", "--no-render"])
    assert isinstance(options, RunOptions)
    assert options.map == ("MoveToBeacon", "DefeatRoaches") and options.episodes == 3
    assert options.render is False and options.screen_size == 64  # a default
    assert options.given == {"map", "episodes", "render"}  # what an agent's env_kwargs may not contradict
    assert parse(COMMAND, ["--render"]).render is True and parse(COMMAND, []).given == frozenset()


def test_help_reads_like_a_unix_tools(capsys):
    code, out, _ = run_cli(capsys, "run", "--help")
    assert code == 0 and out.startswith("usage: sc2env run [--flags]\n\nPlay an agent on mini-games")
    for shown in (
        "--map NAME[,NAME...]",
        "--episodes N",
        "--screen-size PIXELS",
        "--engine {auto,builtin,sc2}",
        "--render, --no-render",
        "--save-video FILE",
        "--save-replay DIR",
        "-h, --help",
        "(default: MoveToBeacon)",
        "(default: 8)",
    ):
        assert shown in out, shown
    code, out, _ = run_cli(capsys, "--help")
    assert code == 0 and out.startswith("usage: sc2env <command> [--flags]")
    assert [line.split()[0] for line in out.split("commands:\n")[1].split("\n\n")[0].splitlines()] == [
        "run",
        "replay",
        "play",
        "maps",
        "doctor",
        "bench",
    ]


_NASTY = "Evil\x00Map\nSecond line\rOver\x1b[31mRed\x1b[0m\u202eesrever" + "L" * 5000


def test_names_read_from_replays_are_printed_escaped_and_shortened(tmp_path, capsys):
    # A map name with NUL, newline, CR and ANSI escapes (stored in its replays) reached the terminal raw, and
    # a 5,000-character one pushed the rest of the table's row off the screen.
    import dataclasses

    from sc2env.engine import replay_file as engine_replay  # to store names no game would

    folder = tmp_path / "replays"
    assert main(["sc2env", "run", "--max-steps", "2", "--save-replay", str(folder), *BUILTIN]) == 0
    (saved,) = folder.iterdir()
    recorded = engine_replay.decode(saved.read_bytes())
    player = dataclasses.replace(recorded.player, name="Bob\x1b]0;pwned\x07")
    saved.write_bytes(engine_replay.encode(dataclasses.replace(recorded, map_name=_NASTY, player=player)))
    capsys.readouterr()
    for args in ([str(folder)], ["--info", str(saved)]):
        assert main(["sc2env", "replay", *args, *BUILTIN]) == 0
        out, err = capsys.readouterr()
        assert not re.search(r"[\x00-\x09\x0b-\x1f\x7f\u202e]", out + err), repr(out + err)
        assert "Evil\\x00Map\\nSecond line\\r" in out and "…LLLL" in out
        assert max(len(line) for line in out.splitlines()) < 200
        if args[0] == "--info":
            assert "player 1 Bob\\x1b]0;pwned\\x07 (terran)" in out
        else:
            lines = out.splitlines()
            assert len(lines) == 2 and lines[1].split()[-4:-2] == ["16", "0:01"], lines
            assert lines[0].index("loops") + 5 == lines[1].index(" 16 ") + 3  # the row lines up


def test_untrusted_text_is_escaped_and_shortened_in_the_middle():
    from sc2env.cli.text import shown

    assert shown("a\nb\rc\x00d\x1b[1me\u202ef\udcff") == "a\\nb\\rc\\x00d\\x1b[1me\\u202ef\\udcff"
    assert shown("MoveToBeacon") == "MoveToBeacon" and shown("ÉtéMap") == "ÉtéMap"  # letters stay
    long = shown("x" * 30 + "y" * 30, 20)
    assert len(long) == 20 and long.startswith("x" * 13) and long.endswith("…" + "y" * 6)
    assert shown("z" * 5000, None) == "z" * 5000


@pytest.mark.parametrize("flags", [[], ["--info"]])
def test_a_file_that_is_no_replay_is_called_so_before_any_game(tmp_path, capsys, monkeypatch, flags):
    # `sc2env replay /etc/passwd` answered with the engine's advice to Python callers: "give the bytes that
    # save_replay returned". StarCraft II asked for where there is none: had a game been started, that failed.
    monkeypatch.setenv("SC2PATH", str(tmp_path / "nowhere"))
    passwd = tmp_path / "passwd"
    passwd.write_text("root:x:0:0:root:/root:/bin/bash\n")
    code, out, err = run_cli(capsys, "replay", *flags, str(passwd), "--engine", "sc2")
    assert code == 2 and out == ""
    assert err.startswith(
        f"sc2env replay: {passwd} is not a replay file: it starts with 'root:x:0:0:root:', where a replay "
        "(.SC2Replay, sc2env's or StarCraft II's) starts with 'MPQ' (sc2env's older ones with 'sc2env-replay/'); "
        "give a replay saved by sc2env run --save-replay"
    ), err
    assert "save_replay returned" not in err and "StarCraft II under" not in err


def test_a_folder_lists_and_exports_a_file_that_is_no_replay_as_such(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("SC2PATH", str(tmp_path / "nowhere"))
    (tmp_path / "notes.SC2Replay").write_bytes(b"\x1b[2Jhello")
    code, out, err = run_cli(capsys, "replay", str(tmp_path), "--engine", "sc2")
    assert (
        code == 0
        and "notes.SC2Replay  cannot be read: not a replay file: it starts with '\\x1b[2Jhello'" in out
    )
    code, out, err = run_cli(
        capsys, "replay", str(tmp_path), "--export", str(tmp_path / "out"), "--engine", "sc2"
    )
    assert code == 1 and "notes.SC2Replay: not exported: not a replay file" in err and "\x1b" not in err


def test_a_copy_of_a_mini_game_is_played_by_its_script_and_named_with_its_file(capsys, tmp_path, monkeypatch):
    # MoveToBeacon.json saved as MyBeacon.json (its "name" still MoveToBeacon) got "no scripted agent", and the
    # table named maps by their full path.
    (tmp_path / "maps").mkdir()
    shutil.copy(definitions_dir() / "MoveToBeacon.json", tmp_path / "maps" / "MyBeacon.json")
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli(capsys, "run", "--map", "maps/MyBeacon.json", "--max-steps", "60", *BUILTIN)
    assert code == 0, err
    (row,) = [line.split() for line in out.splitlines()[2:]]
    assert row[:4] == ["MoveToBeacon", "(maps/MyBeacon.json)", "scripted", "1"]  # not the shipped one
    assert float(row[4]) >= 2, out  # the script reached the beacon: random play scores 0 or 1 in 60 steps
    assert "MoveToBeacon (maps/MyBeacon.json) episode 1/1: score" in err
    # Two files that name their mini-games alike are told apart by their files; a file elsewhere, in full.
    spec = json.loads((definitions_dir() / "MoveToBeacon.json").read_text()) | {"name": "Twin"}
    for folder in (tmp_path / "a", tmp_path.parent / f"{tmp_path.name}-b"):
        folder.mkdir()
        (folder / "Twin.json").write_text(json.dumps(spec))
    elsewhere = tmp_path.parent / f"{tmp_path.name}-b" / "Twin.json"
    code, out, err = run_cli(
        capsys, "run", "--map", f"a/Twin.json,{elsewhere}", "--agent", "random", "--max-steps", "2", *BUILTIN
    )
    assert code == 0, err
    here, there = [line.split()[:2] for line in out.splitlines()[2:]]
    assert here == ["Twin", "(a/Twin.json)"] and there[0] == "Twin"
    assert there[1].startswith("(/") and there[1].endswith(
        "-b/Twin.json)"
    )  # in full, or shortened in the middle
    code, _, err = run_cli(capsys, "run", "--map", "maps/MyBeacon.json,a/Twin.json", "--agent", "scripted")
    assert code == 2 and "no scripted agent for 'Twin' (the name Twin.json gives its mini-game)" in err, err


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_the_progress_bar_fills_by_steps_so_a_single_episode_shows_its_progress():
    # It filled per finished episode: a run of one episode showed an empty bar until the episode was over.
    from sc2env.cli.progress import Progress

    progress = Progress(1, [240], _Terminal())
    progress.step("MoveToBeacon", 120, {"score": 2})
    assert (
        "MoveToBeacon episode 1/1 [############............] step 120 score 2" in progress.stream.getvalue()
    )
    # Two maps of 100 and 300 steps, two episodes each: 800 steps; an episode over counts for its budget
    # (one that ended early too).
    progress = Progress(2, [100, 300], _Terminal())
    progress.done = 1
    assert progress.fraction(50) == (100 + 50) / 800
    progress.done = 2
    assert progress.fraction(150) == (200 + 150) / 800 and progress.fraction(1000) == (200 + 300) / 800
    unknown = Progress(2, [None, 100], _Terminal())  # a map without a time limit: by episodes
    unknown.done = 1
    assert unknown.fraction(50) == 1 / 4


def test_an_episodes_step_budget_is_its_timer_over_step_mul_or_max_steps():
    from sc2env.cli.progress import step_budget
    from sc2env.game.maps import MapSpec

    beacon = MINI_GAMES["MoveToBeacon"]  # 120 game seconds: 1,920 loops
    assert (step_budget(beacon, 8, None), step_budget(beacon, 7, None), step_budget(beacon, 8, 40)) == (
        240,
        275,  # 274 steps of 7 loops fall 2 loops short of the timer: the 275th ends the episode
        40,
    )
    ladder = MapSpec("Simple64", "Melee/Simple64.SC2Map")  # no time limit
    assert step_budget(ladder, 8, None) is None and step_budget(ladder, 8, 100) == 100


def test_run_gives_the_progress_bar_each_maps_step_budget(capsys, monkeypatch, tmp_path):
    from sc2env.cli import run

    budgets = []

    class Recorded(run.Progress):
        def __init__(self, per_map, map_budgets, stream=None):
            budgets.append((per_map, list(map_budgets)))
            super().__init__(per_map, map_budgets, stream)

    monkeypatch.setattr(run, "Progress", Recorded)
    spec = json.loads((definitions_dir() / "MoveToBeacon.json").read_text()) | {"time_limit": 160}
    (tmp_path / "ShortBeacon.json").write_text(json.dumps(spec))
    args = ["--agent", "random", "--max-steps", "30", *BUILTIN]
    code, _, err = run_cli(capsys, "run", "--map", f"MoveToBeacon,{tmp_path / 'ShortBeacon.json'}", *args)
    assert code == 0, err
    assert budgets == [(1, [30, 20])]  # --max-steps, and a 160-loop timer at step_mul 8


def test_feature_layers_smaller_than_the_agent_is_made_for_are_warned_about(capsys):
    # --screen-size 7 was taken in silence, and the scripted agent scored 3 where it scores 20 and more.
    args = ["--max-steps", "2", *BUILTIN]
    code, _, err = run_cli(capsys, "run", "--map", "MoveToBeacon,DefeatRoaches", "--screen-size", "7", *args)
    assert code == 0, err
    assert err.startswith(
        "sc2env run: warning: --screen-size 7 is below the 16 pixels DefeatRoaches, MoveToBeacon are made for"
    )
    assert "minimap" not in err
    for quiet in (
        ["--agent", "random", "--screen-size", "7"],
        ["--screen-size", "16", "--minimap-size", "16"],
    ):
        code, _, err = run_cli(capsys, "run", *quiet, *args)
        assert code == 0 and "warning" not in err, err


def test_an_agent_says_the_smallest_layers_it_is_made_for():
    from sc2env.agents import Agent, RandomAgent
    from sc2env.cli.env_options import small_layers

    class Wide(RandomAgent):
        min_minimap_size = 32

    assert Agent.min_screen_size == Agent.min_minimap_size == 1
    assert small_layers([(Wide, {"screen_size": 8, "minimap_size": (48, 24)})]) == [
        "warning: --minimap-size 24 is below the 32 pixels Wide is made for: expect poor play at this size"
    ]
    assert small_layers([(Wide, {"screen_size": 8, "minimap_size": 32})]) == []


@pytest.mark.skipif(
    not os.path.exists("/dev/full"), reason="needs /dev/full, a device whose writes fail ENOSPC"
)
def test_a_video_on_a_full_disk_costs_the_video_not_the_runs_results(tmp_path, capsys):
    # Its ENOSPC ended the run with no episode line and no table, and a second ENOSPC while the file was
    # closed hid the first: "sc2env run: [Errno 28] No space left on device", naming no file.
    pytest.importorskip("PIL")
    video = tmp_path / "run.gif"
    video.symlink_to("/dev/full")
    code, out, err = run_cli(
        capsys, "run", "--max-steps", "5", "--episodes", "2", "--save-video", str(video), *BUILTIN
    )
    assert code == 1
    assert "MoveToBeacon episode 2/2: score" in err and out.splitlines()[2].split()[:3] == [
        "MoveToBeacon",
        "scripted",
        "2",
    ]
    assert (
        f"video: cannot write {video}: No space left on device; the recording stopped after 0 frame(s)" in err
    )


def test_a_video_write_that_fails_leaves_no_unfinished_file(tmp_path, capsys, monkeypatch):
    pytest.importorskip("PIL")
    from sc2env.viewer import VideoWriter

    real_add = VideoWriter.add

    def add_until_the_disk_fills(writer, frame):
        if writer.frames == 3:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real_add(writer, frame)

    monkeypatch.setattr(VideoWriter, "add", add_until_the_disk_fills)
    video = tmp_path / "run.gif"
    code, out, err = run_cli(capsys, "run", "--max-steps", "8", "--save-video", str(video), *BUILTIN)
    assert code == 1 and "MoveToBeacon episode 1/1: score" in err and "MoveToBeacon" in out
    assert (
        f"video: cannot write {video}: No space left on device; the recording stopped after 3 frame(s) and the "
        "unfinished file was removed"
    ) in err
    assert not video.exists()  # three frames and no trailer: no GIF a viewer plays to its end


def test_an_mp4_without_its_index_is_told_from_a_whole_one(tmp_path):
    # ffmpeg writes the index (moov) last and exits quietly when it does not fit: the file was reported as
    # written ("video: out.mp4 (31 frames)") though it played nowhere.
    from sc2env.cli.recording import _mp4_complete

    def box(kind, body):
        return (8 + len(body)).to_bytes(4, "big") + kind + body

    whole = box(b"ftyp", b"isom" * 3) + box(b"mdat", bytes(100)) + box(b"moov", bytes(40))
    for name, data, complete in (
        ("whole.mp4", whole, True),
        ("cut.mp4", whole[:-10], False),  # the disk filled while the index was written
        ("noindex.mp4", whole[: -len(box(b"moov", bytes(40)))], False),
        ("empty.mp4", b"", False),
    ):
        (tmp_path / name).write_bytes(data)
        assert _mp4_complete(tmp_path / name) is complete, name


def test_without_a_display_render_and_save_video_report_only_the_display():
    # "video: no frame was recorded, so out.gif was not written" came first, before the reason why.
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER")}
    with tempfile.TemporaryDirectory() as folder:
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "sc2env",
                "run",
                "--render",
                "--save-video",
                f"{folder}/out.gif",
                *BUILTIN,
            ],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    assert done.returncode == 1 and done.stderr.startswith("sc2env run: cannot open a window"), done.stderr
    assert "xvfb-run" in done.stderr and "video" not in done.stderr.split("(")[0]
    assert len(done.stderr.strip().splitlines()) == 1


def test_replays_that_could_not_be_saved_are_named_and_fail_the_run(tmp_path, capsys, monkeypatch):
    # On a full disk every replay was lost, and the run said "replays: 0 saved" and exited 0.
    import builtins

    real_open = builtins.open

    def full_disk(path, mode="r", *args, **kwargs):
        if mode == "xb" and str(path).endswith(".SC2Replay"):  # how a replay file is made
            with real_open(path, mode, *args, **kwargs) as file:
                file.write(b"sc")  # a start, then no room for the rest
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_open(path, mode, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", full_disk)
    folder = tmp_path / "replays"
    args = ["--map", "MoveToBeacon,CollectMineralShards", "--episodes", "2", "--max-steps", "3"]
    code, out, err = run_cli(capsys, "run", *args, "--save-replay", str(folder), *BUILTIN)
    assert code == 1 and len(out.splitlines()) == 4, err  # the table of both maps still
    assert f"replays: 0 of 4 saved in {folder}\n" in err
    lost = [line for line in err.splitlines() if " not saved: " in line]
    assert [line.split(" not saved: ")[0] for line in lost] == [
        "replays: MoveToBeacon episode 1",
        "replays: MoveToBeacon episode 2",
        "replays: CollectMineralShards episode 1",
        "replays: CollectMineralShards episode 2",
    ]
    assert all(
        f"cannot write the replay {folder}/" in line and "No space left on device" in line for line in lost
    )
    assert list(folder.iterdir()) == []


def test_the_replay_of_an_episode_stopped_by_ctrl_c_is_saved_too(tmp_path, capsys, monkeypatch):
    from sc2env.interface import FUNCTIONS

    real_run_agent = sc2env.agents.run_agent

    def one_episode_and_a_ctrl_c(env, agent, episodes, **kwargs):
        real_run_agent(env, agent, 1, **kwargs)
        _, info = env.reset()
        kwargs["on_step"](0, info)
        _, _, _, _, info = env.step(FUNCTIONS.no_op())
        kwargs["on_step"](1, info)
        raise KeyboardInterrupt

    monkeypatch.setattr(sc2env.agents, "run_agent", one_episode_and_a_ctrl_c)
    folder = tmp_path / "replays"
    code, out, err = run_cli(capsys, "run", "--max-steps", "3", "--save-replay", str(folder), *BUILTIN)
    assert "MoveToBeacon" in out.splitlines()[2]  # the finished episode's row
    assert code == 130 and "replays: 2 saved in" in err and "sc2env run: interrupted: results of the 1" in err
    assert len(list(folder.iterdir())) == 2


@pytest.mark.parametrize(
    "signum, why, code", [(signal.SIGINT, "interrupted", 130), (signal.SIGTERM, "terminated by SIGTERM", 143)]
)
def test_play_stopped_by_ctrl_c_prints_the_score_so_far_and_exits_quietly(capsys, ctrl_c, signum, why, code):
    # Ctrl-C printed "sc2env play: interrupted" and nothing of the game played.
    import threading

    import pygame

    def stop_the_game():
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not (
            pygame.display.get_init() and pygame.display.get_surface()
        ):
            time.sleep(0.05)
        time.sleep(0.5)  # a few steps of play
        os.kill(os.getpid(), signum)

    stopper = threading.Thread(target=stop_the_game)
    stopper.start()
    try:
        result = run_cli(capsys, "play", "--map", "MoveToBeacon", *BUILTIN)
    finally:
        stopper.join()
    assert result[0] == code
    assert f"MoveToBeacon episode 1: unfinished when {why}, score 0 so far" in result[1]
    assert result[2] == f"sc2env play: {why}\n"  # no traceback, nothing else
