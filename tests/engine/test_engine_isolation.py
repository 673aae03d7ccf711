"""The engine stands apart: importing it, or running its process, loads nothing of sc2env's client side.

The rule (docs/engine.md, "Layout"): sc2env.engine and sc2env.gamedata import only each other and sc2env's
shared modules below; `import sc2env` (which Python runs before any sc2env.engine module) registers the
Gymnasium ids with gymnasium's registry alone. So the engine process loads gymnasium's core but never the env,
game, interface, client, launch, agents, viewer, SMAC, baselines or CLI modules, nor pygame.
"""

from __future__ import annotations

import ast
import json
import pathlib
import subprocess
import sys

import pytest
from engine_helpers import create_request, interface, join_request

import sc2env

PACKAGE = pathlib.Path(sc2env.__file__).resolve().parent
SHARED = (
    "sc2env",
    "sc2env._version",
    "sc2env.errors",
    "sc2env.env_ids",
    "sc2env.mapfiles",
    "sc2env.run_engine",
    "sc2env.safefile",
    "sc2env.shadowed",
    "sc2env.spinwait",
)
"""The modules outside the engine and gamedata that the engine may load."""
ENGINE_SIDE = ("sc2env.engine", "sc2env.gamedata", "sc2env.maps")
CLIENT_SIDE = (
    "sc2env.env",
    "sc2env.game",
    "sc2env.interface",
    "sc2env.client",
    "sc2env.launch",
    "sc2env.agents",
    "sc2env.viewer",
    "sc2env.cli",
    "sc2env.smac",
    "sc2env.baselines",
)


def _within(module: str, packages: tuple[str, ...]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in packages)


def _not_allowed(modules: list[str]) -> list[str]:
    """The sc2env modules (and pygame) among `modules` that the engine must not load."""
    ours = [m for m in modules if _within(m, ("sc2env", "pygame"))]
    return sorted(m for m in ours if m not in SHARED and not _within(m, ENGINE_SIDE))


def test_importing_every_engine_module_loads_no_client_side_module():
    code = (
        "import importlib, json, pkgutil, sys\n"
        "import sc2env.engine, sc2env.gamedata\n"
        "for package in (sc2env.engine, sc2env.gamedata):\n"
        "    for info in pkgutil.iter_modules(package.__path__, package.__name__ + '.'):\n"
        "        importlib.import_module(info.name)\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    modules = json.loads(done.stdout)
    assert "sc2env.engine.server" in modules and "sc2env.engine.session" in modules
    assert _not_allowed(modules) == []
    assert not [m for m in modules if _within(m, CLIENT_SIDE)]


def test_the_engine_process_loads_no_client_side_module(monkeypatch):
    # Python's own import profiler (PYTHONPROFILEIMPORTTIME) makes the engine process, started by sc2env's
    # launcher, write every module it imports to its output: a game played with feature layers, raw data
    # and RGB, a replay saved, then quit, covers what is imported late.
    from sc2env.client.controller import Controller
    from sc2env.launch import launch

    monkeypatch.setenv("PYTHONPROFILEIMPORTTIME", "1")
    process = launch(engine="builtin")
    try:
        with Controller(process) as controller:
            controller.create_game(create_request("MoveToBeacon"))
            options = interface()
            options.render.resolution.x = options.render.resolution.y = 32
            options.render.minimap_resolution.x = options.render.minimap_resolution.y = 16
            controller.join_game(join_request(options))
            controller.step(8)
            assert controller.observation().observation.game_loop == 8
            assert controller.save_replay().data
            output = process.output_tail(1 << 30)
            controller.quit()
        assert process.wait(10) == 0
    finally:
        process.close()
    lines = [line for line in output.splitlines() if line.startswith("import time:")]
    # The profiler's header comes first: seeing it means no early line was cut off.
    assert lines and "imported package" in lines[0], output[:500]
    modules = [line.rsplit("|", 1)[1].strip() for line in lines[1:]]
    assert "sc2env.engine.session" in modules and "sc2env.engine.observe" in modules
    assert _not_allowed(modules) == []


def _imports(path: pathlib.Path) -> list[str]:
    """Every module `path` imports anywhere (also inside functions and under TYPE_CHECKING), absolute."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"{path}: relative import"
            base = node.module or ""
            # `from sc2env import x` may name a submodule: count it as one when it is.
            out += [f"{base}.{alias.name}" if base == "sc2env" else base for alias in node.names]
    return out


@pytest.mark.parametrize("package", ["engine", "gamedata"])
def test_engine_and_gamedata_sources_import_only_their_own_and_shared_modules(package):
    wrong = {}
    for path in sorted((PACKAGE / package).rglob("*.py")):
        imported = [m for m in _imports(path) if _within(m, ("sc2env",))]
        bad = [m for m in imported if m not in SHARED and not _within(m, ENGINE_SIDE)]
        if bad:
            wrong[str(path.relative_to(PACKAGE.parent))] = bad
    assert wrong == {}
    if package == "gamedata":  # static facts: the engine builds on them, never the reverse
        for path in sorted((PACKAGE / package).rglob("*.py")):
            assert not [m for m in _imports(path) if _within(m, ("sc2env.engine",))], path


@pytest.mark.parametrize("gymnasium_first", [True, False])
def test_import_sc2env_registers_the_ids_without_the_env_modules(gymnasium_first):
    first, second = ("gymnasium", "sc2env") if gymnasium_first else ("sc2env", "gymnasium")
    code = (
        f"import json, sys\nimport {first}\nimport {second}\n"
        "loaded = sorted(m for m in sys.modules if m.startswith('sc2env'))\n"
        "spec = gymnasium.spec('sc2env/MoveToBeacon-v0')\n"
        "print(json.dumps([loaded, spec.entry_point, spec.kwargs, 'sc2env/SC2-v0' in gymnasium.registry]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    loaded, entry_point, kwargs, any_map = json.loads(done.stdout)
    assert not [m for m in loaded if _within(m, CLIENT_SIDE)], loaded
    assert (entry_point, kwargs, any_map) == ("sc2env.env.env:SC2Env", {"map_name": "MoveToBeacon"}, True)
