"""The table a run ends with: one row per map with its scores, speed and invalid actions."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from sc2env.cli.map_names import map_label

if TYPE_CHECKING:
    from sc2env.agents import Summary


def results_table(summaries: Iterable[Summary], agent: str) -> str:
    """The final table: one row per map with mean, max and min score, steps per second and invalid actions."""
    width = max(12, len(agent))
    header = (
        f"{'map':<28} {'agent':<{width}} {'episodes':>8} {'mean':>8} {'max':>6} {'min':>6} {'steps/s':>8} "
        f"{'invalid':>8}"
    )
    lines = [header, "-" * len(header)]
    for s in summaries:
        lines.append(
            f"{map_label(s.map_name):<28} {agent:<{width}} {s.episodes:>8} {s.mean:>8.1f} {s.max:>6} "
            f"{s.min:>6} {s.steps_per_second:>8,.0f} {s.invalid_actions:>8}"
        )
    return "\n".join(lines)
