"""The table a run ends with: one row per map with its scores, speed and invalid actions."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from sc2env.cli.text import shown

if TYPE_CHECKING:
    from sc2env.agents import Summary


def results_table(
    summaries: Iterable[Summary],
    agent: str,
    labels: Mapping[str, str] | None = None,
    opponent: str | None = None,
) -> str:
    """The final table: one row per map with mean, max and min score, steps per second and invalid actions;
    with an `opponent`, also its name and the games won, lost and tied.

    `labels` names the maps (by the env's map name; by default that name itself)."""
    rows = [(s, (labels or {}).get(s.map_name) or shown(s.map_name)) for s in summaries]
    width = max(12, len(agent))
    maps = max(28, *(len(label) for _, label in rows)) if rows else 28
    header = (
        f"{'map':<{maps}} {'agent':<{width}} {'episodes':>8} {'mean':>8} {'max':>6} {'min':>6} {'steps/s':>8} "
        f"{'invalid':>8}"
    )
    versus = max(16, len(opponent)) if opponent is not None else 0
    if opponent is not None:
        header += f" {'opponent':<{versus}} {'won':>4} {'lost':>4} {'tied':>4}"
    lines = [header, "-" * len(header)]
    for s, label in rows:
        line = (
            f"{label:<{maps}} {agent:<{width}} {s.episodes:>8} {s.mean:>8.1f} {s.max:>6} "
            f"{s.min:>6} {s.steps_per_second:>8,.0f} {s.invalid_actions:>8}"
        )
        if opponent is not None:
            line += f" {opponent:<{versus}} {s.wins:>4} {s.losses:>4} {s.ties:>4}"
        lines.append(line)
    return "\n".join(lines)
