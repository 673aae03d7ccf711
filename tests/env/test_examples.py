"""The examples run as written (briefly), so they cannot rot."""

from __future__ import annotations

import csv
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


def _self_play(tmp_path, rounds: int, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            sys.executable,
            str(EXAMPLES / "self_play.py"),
            "--rounds",
            str(rounds),
            "--steps-per-round",
            "64",
            "--n-steps",
            "32",
            "--pool-from",
            "2",
            "--eval-games",
            "1",
            "--train-against",
            "computer:very_easy,pool",
            "--measure-against",
            "scripted,computer:easy",
            "--functions",  # games that end within a few dozen steps
            "no_op,select_army,Attack_minimap,Attack_screen",
            "--out",
            str(tmp_path),
            *extra,
        ],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def test_self_play_example_trains_measures_saves_and_resumes(tmp_path):
    pytest.importorskip("sb3_contrib")
    done = _self_play(tmp_path, 2)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "round 0:       0 steps, vs scripted" in done.stdout, done.stdout
    assert "round 2:     128 steps, vs scripted" in done.stdout, done.stdout
    resumed = _self_play(tmp_path, 3, "--resume")
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    assert "round 3:     192 steps" in resumed.stdout and "round 0" not in resumed.stdout, resumed.stdout
    with open(tmp_path / "progress.csv", newline="") as log:
        rows = list(csv.DictReader(log))
    assert [row["round"] for row in rows] == ["0", "1", "2", "3"]
    # Snapshots join from round 2 on: one after round 2, kept through the resume, and round 3's.
    assert [row["pool"] for row in rows] == ["0", "0", "1", "2"]
    for row in rows:
        for opponent in ("scripted", "computer:easy"):
            won, lost, tied = map(int, row[f"won_lost_tied_vs_{opponent}"].split("-"))
            assert won + lost + tied == 1 and float(row[f"win_rate_vs_{opponent}"]) == won
    # One training game against each opponent: no results before round 1; a share of the games that ended in
    # a round after (a game against the easiest AI ends within 96 steps; one against the pool may not).
    for opponent in ("computer:very_easy", "pool"):
        shares = [row[f"train_win_rate_vs_{opponent}"] for row in rows]
        assert shares[0] == "" and all(share == "" or 0 <= float(share) <= 1 for share in shares), shares
    assert any(row["train_win_rate_vs_computer:very_easy"] for row in rows[1:]), rows
    for name in ("model.zip", "pool.pt", "progress.png"):
        assert (tmp_path / name).stat().st_size > 0
    # --evaluate: the saved model beside the untrained policy, on the same fresh games, and no training.
    evaluated = _self_play(tmp_path, 3, "--evaluate", "2")
    assert evaluated.returncode == 0, evaluated.stderr[-3000:]
    assert "(192 steps), 2 games each" in evaluated.stdout, evaluated.stdout
    for opponent in ("scripted", "computer:easy"):
        line = next(line for line in evaluated.stdout.splitlines() if line.startswith(f"  vs {opponent}: "))
        assert "untrained " in line and ", trained " in line, line
    with open(tmp_path / "progress.csv", newline="") as log:
        assert len(list(csv.DictReader(log))) == 4  # nothing trained or recorded
    missing = _self_play(tmp_path / "empty", 1, "--resume")
    assert missing.returncode != 0 and "no " in missing.stderr and "model.zip" in missing.stderr
    other = _self_play(tmp_path, 4, "--resume", "--measure-against", "scripted")
    assert other.returncode != 0 and "progress.csv has the columns" in other.stderr, other.stderr[-3000:]
    unmeasured = _self_play(tmp_path / "empty", 1, "--evaluate", "2")
    assert unmeasured.returncode != 0 and "--evaluate: no " in unmeasured.stderr, unmeasured.stderr[-3000:]
