"""A folder named sc2env in the working folder (a clone of the repository: git names it so) shadows neither
the engine the launcher starts nor the one the SC2_x64 wrapper of `--make-sc2path` starts, and a script it
does shadow is told which folder (issue 29)."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import pytest

from sc2env.client import Controller
from sc2env.gamedata import BASE_BUILD


def clone(folder: pathlib.Path) -> pathlib.Path:
    """A clone's root: no __init__.py, so Python takes it for a namespace package (the issue's case)."""
    (folder / "sc2env" / "sc2env").mkdir(parents=True)
    (folder / "sc2env" / "README.md").write_text("a clone of the repository\n")
    return folder / "sc2env"


def package(folder: pathlib.Path) -> pathlib.Path:
    """A package of that name: any Python that looks in the working folder imports it first."""
    (folder / "sc2env").mkdir(parents=True)
    (folder / "sc2env" / "__init__.py").write_text('raise SystemExit("the decoy sc2env was imported")\n')
    return folder / "sc2env"


def without_pythonpath() -> dict[str, str]:
    """The environment of a user's shell that names no checkout (PySC2 users' case)."""
    return {name: value for name, value in os.environ.items() if name != "PYTHONPATH"}


@pytest.mark.parametrize("decoy", [clone, package])
def test_the_launched_engine_is_this_sc2env_whatever_the_working_folder_holds(
    start, tmp_path, monkeypatch, decoy
):
    decoy(tmp_path)
    monkeypatch.chdir(tmp_path)  # the engine starts in the caller's working folder
    process = start(engine="builtin")
    controller = Controller(process, timeout_s=30)
    try:
        assert controller.ping().base_build == BASE_BUILD
    finally:
        controller.close()


@pytest.mark.parametrize("decoy", [clone, package])
def test_the_sc2_x64_wrapper_runs_this_sc2env_whatever_the_working_folder_holds(
    start, tmp_path, monkeypatch, decoy
):
    sc2path = tmp_path / "StarCraftII"
    subprocess.run(
        [sys.executable, "-m", "sc2env.engine", "--make-sc2path", str(sc2path)],
        check=True,
        capture_output=True,
        cwd=tmp_path,
    )
    work = tmp_path / "work"
    decoy(work)
    monkeypatch.chdir(work)
    monkeypatch.delenv("PYTHONPATH", raising=False)
    process = start(engine="sc2", sc2path=sc2path)  # the engine="sc2" path: it runs SC2_x64 as PySC2 does
    controller = Controller(process, timeout_s=30)
    try:
        assert controller.ping().base_build == BASE_BUILD
    finally:
        controller.close()


def test_a_python_the_clone_shadows_is_told_which_folder(tmp_path):
    folder = clone(tmp_path)
    env = without_pythonpath()
    probe = subprocess.run(
        [sys.executable, "-c", "import sc2env; print(sc2env.__file__)"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    if probe.stdout.strip() != "None":
        pytest.skip(
            "this sc2env is found on sys.path itself (not by an editable install's import hook), so a folder cannot shadow it"
        )
    said = f"'sc2env' was imported from the folder {folder}, which is not the sc2env package"
    for argv in (["-c", "from sc2env.env import SC2Env"], ["-m", "sc2env.engine", "-port", "1"]):
        result = subprocess.run(
            [sys.executable, *argv], cwd=tmp_path, env=env, capture_output=True, text=True
        )
        assert result.returncode == 1
        assert said in result.stderr and "Run from another folder, rename that folder" in result.stderr
