"""The wheel, as a user installs it: what it ships, and that it runs without the source checkout."""

from __future__ import annotations

import pathlib
import shutil
import subprocess
import sys
import sysconfig
import zipfile

import pytest

import sc2env

ROOT = pathlib.Path(__file__).resolve().parents[1]
MINI_GAMES = (
    "BuildMarines",
    "CollectMineralShards",
    "CollectMineralsAndGas",
    "DefeatRoaches",
    "DefeatZerglingsAndBanelings",
    "FindAndDefeatZerglings",
    "MoveToBeacon",
)
SMAC_SCENARIOS = tuple(sorted(p.stem for p in (ROOT / "maps" / "smac").glob("*.json")))
"""SMAC's scenarios the engine plays (maps/smac/<name>.json, shipped as sc2env/maps/smac/)."""
DUELS = tuple(sorted(p.stem for p in (ROOT / "maps" / "duels").glob("*.json")))
"""The two-player maps (maps/duels/<name>.json, shipped as sc2env/maps/duels/)."""
MELEE = tuple(sorted(p.stem for p in (ROOT / "maps" / "melee").glob("*.json")))
"""The melee maps (maps/melee/<name>.json: Simple64, shipped as sc2env/maps/melee/)."""


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> pathlib.Path:
    """A wheel built from a copy of the tracked files: the checkout's own build/ (stale files of an earlier
    build end up in the next wheel) is neither used nor left behind, and parallel workers don't share one."""
    source = tmp_path_factory.mktemp("source")
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=False)
    if tracked.returncode != 0:
        pytest.skip("the wheel is built from the git checkout's tracked files")
    for name in tracked.stdout.decode().split("\0"):
        if name and (ROOT / name).is_file():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, source / name)
    out = tmp_path_factory.mktemp("dist")
    # This interpreter's setuptools when it is recent enough: no download, so it builds offline too.
    no_isolation = ["--no-build-isolation"] if _setuptools_version() >= (77,) else []
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", *no_isolation, "-w", str(out), str(source)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert built.returncode == 0, built.stderr[-3000:]
    (path,) = out.glob("sc2env_rl-*.whl")
    return path


def _setuptools_version() -> tuple[int, ...]:
    try:
        from importlib.metadata import version

        return tuple(int(part) for part in version("setuptools").split(".")[:2] if part.isdigit())
    except Exception:
        return ()


def test_the_wheel_ships_the_maps_the_license_and_one_version(wheel):
    # An editable install maps sc2env.maps onto the checkout's maps/: a wheel missing them would pass every
    # other test.
    names = zipfile.ZipFile(wheel).namelist()
    assert {f"sc2env/maps/{name}.json" for name in MINI_GAMES} <= set(names)
    assert SMAC_SCENARIOS and {f"sc2env/maps/smac/{name}.json" for name in SMAC_SCENARIOS} <= set(names)
    assert DUELS and {f"sc2env/maps/duels/{name}.json" for name in DUELS} <= set(names)
    assert MELEE and {f"sc2env/maps/melee/{name}.json" for name in MELEE} <= set(names)
    assert "sc2env/py.typed" in names and "sc2env/engine/__main__.py" in names
    assert not [n for n in names if n.startswith(("tests/", "benchmarks/", "maps/"))]
    metadata = (
        zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    )
    assert f"Version: {sc2env.__version__}" in metadata and "License-File: LICENSE" in metadata
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)


def test_the_wheel_runs_without_the_checkout(wheel, tmp_path):
    # Run from the unpacked wheel alone: no .pth files (which would bring the editable install's finder back)
    # and another working directory, with the dependencies from this interpreter's site-packages (after the
    # standard library: the test extra's pysc2-evolved installs an old `enum` there).
    unpacked = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(unpacked)
    script = (
        "import sys; sys.path.insert(0, sys.argv[1]); sys.path.append(sys.argv[2])\n"
        "import sc2env, sc2env.cli\n"
        "from sc2env.mapfiles import definitions_dir\n"
        "from sc2env.engine.mapdef import builtin_definitions, parse_definition\n"
        "assert sc2env.__file__.startswith(sys.argv[1]), sc2env.__file__\n"
        "print(definitions_dir(), *sorted(builtin_definitions()))\n"
        "[parse_definition(data) for data in builtin_definitions().values()]\n"
    )
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-c", script, str(unpacked), sysconfig.get_path("purelib")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    folder, *maps = done.stdout.split()
    assert pathlib.Path(folder) == unpacked / "sc2env" / "maps"
    assert tuple(maps) == tuple(sorted(MINI_GAMES + SMAC_SCENARIOS + DUELS + MELEE))
