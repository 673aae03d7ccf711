"""benchmarks/win_rates.py --write replaces only the blocks of the maps it ran, and refuses a file without them."""

from __future__ import annotations

import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOC = """# Win rates

<!-- win-rates:DuelMarines:start -->
old DuelMarines table
<!-- win-rates:DuelMarines:end -->

<!-- win-rates:Simple64:start -->
Simple64 table, measured separately
<!-- win-rates:Simple64:end -->

After the tables.
"""


def _write(doc: pathlib.Path, map_name: str) -> subprocess.CompletedProcess:
    # No agents and no AI games: the tables' headings only, so no game is played.
    args = ["--games", "1", "--ai-games", "0", "--agents", "", "--map", map_name, "--write", str(doc)]
    return subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "win_rates.py"), *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_write_replaces_the_maps_block_and_keeps_the_others(tmp_path):
    doc = tmp_path / "doc.md"
    doc.write_text(DOC)
    done = _write(doc, "DuelMarines")
    assert done.returncode == 0, done.stderr
    text = doc.read_text()
    assert "old DuelMarines table" not in text
    assert "<!-- win-rates:DuelMarines:start -->\n**DuelMarines**, 1 games a cell" in text
    assert "<!-- win-rates:Simple64:start -->\nSimple64 table, measured separately\n" in text
    assert text.startswith("# Win rates\n\n") and text.endswith("\nAfter the tables.\n")


def test_write_without_the_maps_markers_fails_before_playing_and_changes_nothing(tmp_path):
    doc = tmp_path / "doc.md"
    doc.write_text(DOC)
    done = _write(doc, "DuelTerranMixed")
    assert done.returncode != 0
    assert "<!-- win-rates:DuelTerranMixed:start -->" in done.stderr
    assert "**DuelTerranMixed**" not in done.stdout  # refused before any table was made
    assert doc.read_text() == DOC
