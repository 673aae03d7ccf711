"""The examples run as written (briefly), so they cannot rot."""

from __future__ import annotations

import pathlib
import subprocess
import sys

import pytest

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"


def test_train_maskable_ppo_example_runs(tmp_path):
    pytest.importorskip("sb3_contrib")
    done = subprocess.run([sys.executable, str(EXAMPLES / "train_maskable_ppo.py"), "--timesteps", "512",
                           "--envs", "2", "--save", str(tmp_path / "model.zip"), "--logdir", str(tmp_path / "log")],
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    assert (tmp_path / "model.zip").stat().st_size > 0
    assert "total_timesteps" in (tmp_path / "log" / "progress.csv").read_text()
    assert "total_timesteps" in done.stdout
    assert f"saved {tmp_path / 'model.zip'}\n" in done.stdout  # SB3 adds .zip only when it is missing
