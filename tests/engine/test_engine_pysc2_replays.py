"""PySC2's replay tools on the engine's replays: the .SC2Replay archive gives them the version to start, and
the engine (through `--make-sc2path`) plays the replay back to them.

pysc2-evolved (the test extra) always; upstream PySC2 4.0 where $SC2ENV_PYSC2_4_PYTHON names an interpreter
that has it (see test_engine_pysc2.py).
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys

import numpy as np
import pytest
from engine_helpers import (
    create_request,
    join_request,
    make_sc2path,
    move_screen,
    require_pysc2_evolved,
    run_on_sc2path,
    select_rect,
)
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env.engine.session import Session

MOVE = 3794  # Move_screen's ability id: the engine echoes it as sent


def ask(session: Session, **request) -> sc_pb.Response:
    return sc_pb.Response.FromString(session.handle(sc_pb.Request(**request).SerializeToString()))


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """A finished MoveToBeacon game of Move_screen commands in a folder of its own, an SC2PATH whose SC2_x64
    is the engine, and what the game was: (replay path, SC2PATH, moves, score)."""
    root = tmp_path_factory.mktemp("pysc2-replays")
    session = Session()
    ask(session, create_game=create_request("MoveToBeacon", seed=4))
    ask(session, join_game=join_request())
    ask(session, action=sc_pb.RequestAction(actions=[select_rect(0, 0, 63, 63)]))
    rng = np.random.default_rng(4)
    moves = 0
    while session.status == sc_pb.in_game:
        x, y = (int(v) for v in rng.integers(0, 64, 2))
        ask(session, action=sc_pb.RequestAction(actions=[move_screen(x, y)]))
        moves += 1
        ask(session, step=sc_pb.RequestStep(count=16))
    score = int(session.game.player.score)
    folder = root / "replays"
    folder.mkdir()
    path = folder / "MoveToBeacon_engine.SC2Replay"
    path.write_bytes(ask(session, save_replay=sc_pb.RequestSaveReplay()).save_replay.data)
    sc2path = root / "sc2"
    make_sc2path(sc2path)
    return path, sc2path, moves, score


def run_pysc2(python: str, args: list[str], sc2path, timeout: float = 120) -> subprocess.CompletedProcess:
    # PYTHONUNBUFFERED: replay_actions prints from worker processes that are killed at its end.
    done = run_on_sc2path(sc2path, args, timeout, python=python, cwd=sc2path, PYTHONUNBUFFERED="1")
    leftovers = subprocess.run(["pgrep", "-f", str(sc2path)], capture_output=True, text=True, check=False)
    assert not leftovers.stdout.split(), "the tool left an engine running"
    return done


@pytest.mark.parametrize("render", [False, True], ids=["no-render", "render"])
def test_pysc2s_play_watches_an_engine_replay(recorded, render):
    require_pysc2_evolved()
    path, sc2path, _, score = recorded
    view = ["--render", "--max_game_steps", "60"] if render else ["--no_render"]
    done = run_pysc2(
        sys.executable,
        ["-m", "pysc2_evolved.bin.play", "--replay", str(path), "--fps", "1000", "--step_mul", "8", *view],
        sc2path,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    # It read the version from the archive's game metadata and started that build: the engine.
    assert 'map_name: "MoveToBeacon"' in done.stdout and "game_duration_loops: 1920" in done.stdout
    if render:
        assert "fps" in done.stdout + done.stderr, "PySC2's window showed the replay"
    else:  # watched to its end, where the game's result comes
        assert f"Score:  {score}\n" in done.stdout and "result: Tie" in done.stdout.split("Result:")[-1]


def test_pysc2s_replay_actions_reads_an_engine_replay(recorded):
    require_pysc2_evolved()
    path, sc2path, _, _ = recorded
    done = run_pysc2(
        sys.executable, ["-m", "pysc2_evolved.bin.replay_actions", "--replays", str(path.parent)], sc2path
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert '[0] map_name: "MoveToBeacon"' in done.stdout and "[0] game_duration_loops: 1920" in done.stdout
    # The tool keeps ladder games only (two players, MMR >= 1000): a mini-game's replay is skipped as such,
    # not as a replay it could not read (those are "Crashing replays").
    assert "[0] Replay is invalid." in done.stdout and "Crashing replays: 0\n[]" in done.stdout


UPSTREAM = os.environ.get("SC2ENV_PYSC2_4_PYTHON")


@pytest.mark.skipif(not UPSTREAM, reason="set SC2ENV_PYSC2_4_PYTHON to a Python with pysc2==4.0.0")
def test_upstream_pysc2s_replay_actions_reads_an_engine_replay(recorded):
    path, sc2path, _, _ = recorded
    # PySC2 4.0 on PyPI ships pysc2/lib/replay.py beside a pysc2/lib/replay/ package, which hides it, so its
    # get_replay_version is unreachable (AttributeError, with any replay): name the version instead.
    args = [
        "-m",
        "pysc2.bin.replay_actions",
        "--replays",
        str(path),
        "--sc2_version",
        "4.10.0",
        "--parallel",
        "1",
    ]
    done = run_pysc2(str(UPSTREAM), args, sc2path)
    assert done.returncode == 0, done.stderr[-3000:]
    assert '[0] map_name: "MoveToBeacon"' in done.stdout and "[0] Replay is invalid." in done.stdout


# PySC2's replay processing (what replay_actions does with a replay it keeps) on the engine's replay: its
# stats count the actions and units it saw through PySC2's features.
PROCESS = r"""
import queue, sys
from pysc2_evolved import run_configs
from pysc2_evolved.bin.replay_actions import ReplayProcessor
from pysc2_evolved.lib import point
from pysc2_evolved.lib.get_replay_version import get_replay_version
from s2clientprotocol import sc2api_pb2 as sc_pb

run_config = run_configs.get()
data = run_config.replay_data(sys.argv[1])
run_config = run_configs.get(version=get_replay_version(data))
interface = sc_pb.InterfaceOptions(raw=True, score=False, feature_layer=sc_pb.SpatialCameraSetup(width=24))
point.Point(64, 64).assign_to(interface.feature_layer.resolution)
point.Point(64, 64).assign_to(interface.feature_layer.minimap_resolution)
processor = ReplayProcessor(interface, 8, 0, run_config, None, queue.Queue())
with run_config.start(want_rgb=False) as controller:
    info = controller.replay_info(data)
    processor.process_replay(controller, 8, data, run_config.map_data(info.local_map_path), 1)
stats = processor.stats.replay_stats
counts = [{int(k): v for k, v in c.items()} for c in (stats.made_abilities, stats.made_actions, stats.unit_ids)]
print(repr((stats.replays, stats.steps, *counts)))
"""


def test_pysc2s_replay_processing_counts_what_the_engine_replay_holds(recorded):
    require_pysc2_evolved()
    path, sc2path, moves, _ = recorded
    done = run_pysc2(sys.executable, ["-c", PROCESS, str(path)], sc2path)
    assert done.returncode == 0, done.stderr[-3000:]
    replays, steps, abilities, functions, units = ast.literal_eval(done.stdout.strip().splitlines()[-1])
    # The engine never splits a recorded step: each of PySC2's steps of 8 runs one of the game's 16.
    assert (replays, steps) == (1, 1920 // 16), "one observation per recorded step, to the result"
    assert abilities == {MOVE: moves}, "every Move_screen the player gave, read back"
    assert functions == {3: 1, 331: moves}, "PySC2 reads them as select_rect and Move_screen"
    assert {48, 317} <= set(units), "PySC2 saw the Marine and the beacon in the raw units"
