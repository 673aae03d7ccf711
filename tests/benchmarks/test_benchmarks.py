"""Every benchmark script runs as written (briefly) and prints its figure, so none of them can rot."""

from __future__ import annotations

import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
REALDATA = ROOT.parent / "shared" / "realdata"

RUNS = {
    "ping_roundtrip": (["--pings", "60", "--batch", "3"], r"pipelined, 3 per write\s+[\d.]+ us"),
    "engine_steps": (
        ["--steps", "30", "--map", "MoveToBeacon"],
        (
            r"MoveToBeacon\s+\d+\s+\d+\s+\d+(.|\n)*"
            r"target MoveToBeacon >= 2,000 agent steps/s: \d+, (met|NOT met)"
        ),
    ),
    "env_steps": (
        ["--steps", "40", "--repeat", "2", "--vector", "2", "--no-pysc2", "--gym-async", "2"],
        (
            r"SC2VectorEnv, 2 games:\s+\d+ \(\d+-\d+\)\s+[\d.]+ \([\d.]+-[\d.]+\)x one SC2Env(.|\n)*"
            r"AsyncVectorEnv, 2 games:\s+\d+ (.|\n)*"
            r"two SC2Envs, 2 processes:\s+\d+ (.|\n)*bare client, 4 games:\s+\d+ (.|\n)*"
            r"target one env >= 1,000 steps/s: \d+, (met|NOT met)"
        ),
    ),
    "direct_steps": (
        ["--steps", "40", "--repeat", "1", "--maps", "MoveToBeacon", "--vector", "2", "--no-pysc2"],
        (
            r"MoveToBeacon, direct:\s+\d+\s+\d+\s+[\d.]+x, [\d.]+x MoveToBeacon, socket(.|\n)*"
            r"SC2VectorEnv, 2 games:\s+\d+\s+\d+(.|\n)*"
            r"target one env direct >= 1.8x socket \(MoveToBeacon\): [\d.]+x, (met|NOT met)"
        ),
    ),
    "calibrate_minigames": (
        ["--episodes", "1", "--maps", "MoveToBeacon", "--agents", "scripted", "--jobs", "1"],
        r"MoveToBeacon\s+scripted scores \[\d+\]",
    ),
    "decode_masks": (["--seconds", "0.05"], r"64×64\s+[\d.]+ / [\d.]+"),
    "smac_steps": (
        ["--seconds", "0.5", "--map", "3m", "--no-smax"],
        r"3m\s+\d+\s+\d+\s+\d+%\s+\d+\s+n/a(.|\n)*target 3m >= 1,500 env steps/s: \d+, (met|NOT met)",
    ),
    "smac_engine_steps": (
        ["--steps", "20", "--map", "3m"],
        r"CPU us/step(.|\n)*3m\s+\d+\s+[\d.]+\s+\d+\s+[\d.]+\s+[\d.]+\s+\d+",
    ),
    "smac_client_steps": (
        ["--steps", "40", "--repeats", "1", "--map", "3m"],
        r"3m\s+\d+\s+\d+",
    ),
    "smacv2_steps": (
        ["--seconds", "0.5", "--race", "zerg", "--units", "5", "--no-smax"],
        r"10gen_zerg 5v5\s+\d+\s+\d+%\s+\d+%\s+\d+\s+n/a",
    ),
    "smac_win_rates": (
        ["--episodes", "1", "--map", "3m"],
        r"\| 3m \| \d+% \(\d+ steps, \d+ t/o\) \| \d+% \(\d+ steps, \d+ t/o\) \| not reported \|",
    ),
    "spawn_placement": (
        ["--units", "20,200", "--repeat", "1"],
        r"\s200\s+[\d.]+\s+[\d.]+\s+[\d.]+\s+\(201 units",
    ),
    "two_player_steps": (
        ["--steps", "10", "--repeat", "1", "--map", "DuelMarines"],
        r"DuelMarines\s+parallel_env, two agents \(2 processes\)\s+\d+(.|\n)*"
        r"opponent=policy \(2 processes\)\s+\d+(.|\n)*opponent=computer:medium \(1 process\)\s+\d+",
    ),
    "win_rates": (
        ["--games", "1", "--map", "DuelMarines", "--agents", "random"],
        r"\| random \| \d+-\d+-\d+ \|(.|\n)*\| harder \| \d+-\d+-\d+ \|",
    ),
    "replay_files": (
        ["--loops", "80", "--repeat", "2"],
        r"replay size\s+\d+ bytes\nwrite\s+[\d.]+ ms(.|\n)*read\s+[\d.]+ ms",
    ),
}


@pytest.mark.parametrize("name", sorted(RUNS))
def test_benchmark_runs_and_prints_its_figure(name):
    if name == "decode_masks" and not REALDATA.is_dir():
        pytest.skip("decode_masks reads ../shared/realdata")
    if name.startswith("smac_") and not _engine_plays_smac():
        pytest.skip("the built-in engine does not play SMAC's maps yet")
    args, figure = RUNS[name]
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / f"{name}.py"), *args],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert re.search(figure, done.stdout), done.stdout[-3000:]


def _engine_plays_smac() -> bool:
    from sc2env.errors import RequestError
    from sc2env.smac import StarCraft2Env

    with StarCraft2Env(map_name="3m", engine="builtin") as env:
        try:
            env.reset()
        except RequestError as error:
            if "MissingMap" in str(error):
                return False
            raise
    return True
