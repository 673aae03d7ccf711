"""The examples run as written (briefly), so they cannot rot."""

from __future__ import annotations

import pathlib
import subprocess
import sys

import pytest

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"


def _train(tmp_path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            sys.executable,
            str(EXAMPLES / "train_maskable_ppo.py"),
            "--envs",
            "2",
            "--save",
            str(tmp_path / "model.zip"),
            "--logdir",
            str(tmp_path / "log"),
            "--checkpoints",
            str(tmp_path / "checkpoints"),
            "--checkpoint-every",
            "256",
            *extra,
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_train_maskable_ppo_example_runs_checkpoints_and_resumes(tmp_path):
    pytest.importorskip("sb3_contrib")
    done = _train(tmp_path, "--timesteps", "512")
    assert done.returncode == 0, done.stderr[-3000:]
    assert (tmp_path / "model.zip").stat().st_size > 0
    assert "total_timesteps" in (tmp_path / "log" / "progress.csv").read_text()
    assert "total_timesteps" in done.stdout
    assert f"saved {tmp_path / 'model.zip'}\n" in done.stdout  # SB3 adds .zip only when it is missing
    # A checkpoint every 256 env steps (128 steps of the two games).
    checkpoints = sorted(p.name for p in (tmp_path / "checkpoints").glob("*.zip"))
    assert checkpoints == ["maskable_ppo_256_steps.zip", "maskable_ppo_512_steps.zip"]
    resumed = _train(
        tmp_path,
        "--timesteps",
        "256",
        "--resume",
        str(tmp_path / "checkpoints" / "maskable_ppo_256_steps.zip"),
    )
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    # The step count goes on from the checkpoint's: its next checkpoint is at 512 steps, written anew.
    steps = [int(line.split("|")[2]) for line in resumed.stdout.splitlines() if "total_timesteps" in line]
    assert steps and steps[-1] == 512, resumed.stdout[-2000:]


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


def test_self_play_example_trains_against_its_snapshots_and_reports_win_rates(tmp_path):
    pytest.importorskip("sb3_contrib")
    done = subprocess.run(
        [
            sys.executable,
            str(EXAMPLES / "self_play.py"),
            "--rounds",
            "1",
            "--steps-per-round",
            "256",
            "--envs",
            "1",
            "--eval-games",
            "1",
            "--log",
            str(tmp_path / "progress.csv"),
            "--save",
            str(tmp_path / "model"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "round 1:     256 steps, vs scripted" in done.stdout, done.stdout
    rows = (tmp_path / "progress.csv").read_text().splitlines()
    assert rows[0].startswith("round,timesteps,win_rate_vs_scripted") and len(rows) == 3
    assert rows[2].split(",")[-1] == "2"  # the pool: the untrained policy and round 1's snapshot
    assert (tmp_path / "model.zip").stat().st_size > 0
