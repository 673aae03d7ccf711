"""The table a run ends with: one row per map with its scores, speed and invalid actions."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from sc2env.cli.text import shown

if TYPE_CHECKING:
    from sc2env.agents import Summary


def results_table(summaries: Iterable[Summary], agent: str, labels: Mapping[str, str] | None = None) -> str:
    """The final table: one row per map with mean, max and min score, steps per second and invalid actions.

    `labels` names the maps (by the env's map name; by default that name itself)."""
    rows = [(s, (labels or {}).get(s.map_name) or shown(s.map_name)) for s in summaries]
    width = max(12, len(agent))
    maps = max(28, *(len(label) for _, label in rows)) if rows else 28
    header = (
        f"{'map':<{maps}} {'agent':<{width}} {'episodes':>8} {'mean':>8} {'max':>6} {'min':>6} {'steps/s':>8} "
        f"{'invalid':>8}"
    )
    lines = [header, "-" * len(header)]
    for s, label in rows:
        lines.append(
            f"{label:<{maps}} {agent:<{width}} {s.episodes:>8} {s.mean:>8.1f} {s.max:>6} "
            f"{s.min:>6} {s.steps_per_second:>8,.0f} {s.invalid_actions:>8}"
        )
    return "\n".join(lines)
