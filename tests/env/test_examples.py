"""The examples run as written (briefly), so they cannot rot."""

from __future__ import annotations

import pathlib
import subprocess
import sys

import pytest

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"


def test_train_maskable_ppo_example_runs(tmp_path):
    pytest.importorskip("sb3_contrib")
    done = subprocess.run(
        [
            sys.executable,
            str(EXAMPLES / "train_maskable_ppo.py"),
            "--timesteps",
            "512",
            "--envs",
            "2",
            "--save",
            str(tmp_path / "model.zip"),
            "--logdir",
            str(tmp_path / "log"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert (tmp_path / "model.zip").stat().st_size > 0
    assert "total_timesteps" in (tmp_path / "log" / "progress.csv").read_text()
    assert "total_timesteps" in done.stdout
    assert f"saved {tmp_path / 'model.zip'}\n" in done.stdout  # SB3 adds .zip only when it is missing


def test_behaviour_cloning_example_learns_from_replays(tmp_path):
    done = subprocess.run(
        [
            sys.executable,
            str(EXAMPLES / "behaviour_cloning.py"),
            "--episodes",
            "3",
            "--epochs",
            "4",
            "--eval-episodes",
            "2",
            "--replays",
            str(tmp_path / "replays"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert len(list((tmp_path / "replays").glob("*.SC2Replay"))) == 3
    assert "dataset: 720 steps from 3 replays" in done.stdout
    # three expert episodes are enough to click on the beacon most of the time (random play scores about 1)
    student = float(done.stdout.split("student: mean score ")[1].split()[0])
    assert student >= 10, done.stdout
