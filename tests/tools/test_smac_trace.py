"""tools/smac_trace.py: per-step unit records of SMAC episodes on the built-in engine."""

from __future__ import annotations

import json

import pytest
import smac_trace  # tools/ is on the path: tests/tools/conftest.py


def test_trace_records_every_living_unit_each_step(tmp_path, capsys):
    out = tmp_path / "3m.jsonl"
    assert smac_trace.main(["3m", "--policy", "heuristic", "--jsonl", str(out)]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    first = [r for r in rows if r["step"] == 0]
    assert sorted(r["unit"] for r in first) == ["a0", "a1", "a2", "e0", "e1", "e2"]
    assert all(r["health"] == 45 and 0 <= r["x"] <= 32 and 0 <= r["y"] <= 32 for r in first)
    # The scripted policy orders each agent to attack an enemy from the first step on.
    second = [r for r in rows if r["step"] == 1 and r["unit"].startswith("a")]
    assert second and all(r["order"] == 23 and str(r["order_target"]).startswith("e") for r in second)
    steps = max(r["step"] for r in rows)
    assert steps > 1 and all(r["health"] > 0 for r in rows)
    assert "won" in capsys.readouterr().out


def test_trace_rejects_a_count_of_no_episodes(capsys):
    with pytest.raises(SystemExit) as exit_:
        smac_trace.main(["3m", "--episodes", "0"])
    assert exit_.value.code == 2
    assert "--episodes must be at least 1" in capsys.readouterr().err
