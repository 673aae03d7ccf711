"""The Python examples in README.md and docs/ run as written, on the built-in engine, so they cannot rot.

A page's ```python blocks run in order in one fresh interpreter (later blocks continue earlier ones). Pages
whose blocks are fragments with placeholders (`...`, a `response_observation` from elsewhere) or that need
extras this suite doesn't install are listed with the reason; every other page with Python in it must run.
"""

from __future__ import annotations

import os
import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FRAGMENTS = {
    "launching.md": "create_game(...) / join_game(...) stand for requests the page describes",
    "viewer.md": "alternative ways to make one env, listed side by side",
    "rllib.md": "a Ray training run: test_the_rllib_example_trains below runs it where Ray is installed",
    "smac.md": "SMAC's scenarios on the built-in engine (issue 26's engine part) have not landed yet",
}
_BLOCK = re.compile(r"^```python\n(.*?)^```", re.DOTALL | re.MULTILINE)


def python_blocks(page: pathlib.Path) -> list[str]:
    return _BLOCK.findall(page.read_text())


def test_every_page_with_python_is_run_or_says_why_not():
    with_python = {page.name for page in PAGES if python_blocks(page)}
    assert set(FRAGMENTS) <= with_python, (
        "a page listed as fragments has no Python left: drop it from FRAGMENTS"
    )
    assert with_python - set(FRAGMENTS) >= {"README.md", "quickstart.md", "env.md", "agents.md"}


@pytest.mark.parametrize(
    "page", [p for p in PAGES if python_blocks(p) and p.name not in FRAGMENTS], ids=lambda p: p.name
)
def test_page_examples_run(page, tmp_path):
    script = tmp_path / f"{page.stem}.py"
    script.write_text("\n".join(python_blocks(page)))
    env = dict(os.environ, SC2ENV_ENGINE="builtin", SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy")
    done = subprocess.run(
        [sys.executable, str(script)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    assert done.returncode == 0, f"{page.name}'s examples failed:\n{done.stderr[-3000:]}"


def test_the_rllib_example_trains(tmp_path):
    """docs/rllib.md's example, run by an interpreter with Ray: $SC2ENV_RAY_PYTHON, or this one if it has Ray."""
    python = os.environ.get("SC2ENV_RAY_PYTHON")
    if python is None:
        pytest.importorskip("ray.rllib", reason="set SC2ENV_RAY_PYTHON to a Python with ray[rllib] and torch")
        python = sys.executable
    (block,) = python_blocks(ROOT / "docs" / "rllib.md")
    script = tmp_path / "rllib_example.py"
    script.write_text(block)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run(
        [python, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600, check=False
    )
    assert done.returncode == 0, f"docs/rllib.md's example failed:\n{done.stderr[-3000:]}"
    sampled = [float(line) for line in done.stdout.split() if line.replace(".", "", 1).isdigit()]
    assert len(sampled) == 2 and 0 < sampled[0] < sampled[1], done.stdout[-2000:]
