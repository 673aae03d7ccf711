"""sc2env.smac against SMACv2's own StarCraft2Env: both play the same episodes on the built-in engine (each
its own engine process, behind an install-shaped folder) and must agree at every step
(tools/smacv2_compare.py). Skips unless SMACv2's repository is at $SMACV2_REPO (default ../ref/smacv2)."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _plays_colossus() -> bool:
    from sc2env.gamedata import unit_type_by_name

    try:
        unit_type_by_name("Colosus_RL")
    except KeyError:
        return False
    return True


@pytest.fixture(scope="module")
def sc2path(tmp_path_factory, smacv2_repo) -> pathlib.Path:
    path = tmp_path_factory.mktemp("sc2")
    subprocess.run(
        [sys.executable, "-m", "sc2env.engine", "--make-sc2path", str(path)], check=True, capture_output=True
    )
    return path


@pytest.mark.parametrize(
    "args",
    [
        ["zerg", "5", "5", "--episodes", "2"],
        # Agents outnumbering enemies (a heal action per agent), EPO-style: sharing by chance, no action mask.
        ["terran", "12", "10", "--episodes", "1", "--prob-obs-enemy", "0.5", "--no-action-mask"],
        pytest.param(
            ["protoss", "5", "5", "--episodes", "2"],
            marks=pytest.mark.skipif(not _plays_colossus(), reason="the built-in engine has no Colossus yet"),
        ),
    ],
)
def test_smacv2s_own_env_and_ours_agree_at_every_step(sc2path, smacv2_repo, args):
    run = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "smacv2_compare.py"), "--smacv2", str(smacv2_repo), *args],
        env={**os.environ, "SC2PATH": str(sc2path)},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert " 0 differences" in run.stdout
