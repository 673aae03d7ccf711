"""The progress of a run on stderr: a bar redrawn in place on a terminal, and a line per finished episode."""

from __future__ import annotations

import sys
import time
from typing import TYPE_CHECKING, Any, TextIO

from sc2env.cli.text import columns_of, shown

if TYPE_CHECKING:
    from sc2env.agents import Episode


class Progress:
    """A one-line progress bar on stderr (redrawn in place on a terminal, one line per episode otherwise)."""

    def __init__(self, total_episodes: int, per_map: int, stream: TextIO | None = None):
        self.total = total_episodes
        self.per_map = per_map
        self.stream = stream or sys.stderr
        self.live = self.stream.isatty()
        # One column short of the terminal: a full-width line wraps on some terminals, and a wrapped line
        # is never redrawn in place again.
        self.width = max(20, columns_of(self.stream) - 1)
        self.pending = False  # a live line is drawn and not ended yet
        self.done = 0
        self.steps = 0
        self.started = time.perf_counter()
        self._drawn = 0.0

    def step(self, label: str, episode_steps: int, info: dict[str, Any]) -> None:
        """Redraw the bar for a step of the episode on the map `label` names (0 steps: its reset)."""
        self.steps += episode_steps > 0  # 0: the episode's reset
        now = time.perf_counter()
        if self.live and now - self._drawn > 0.1:
            self._drawn = now
            fraction = self.done / self.total if self.total else 0.0
            filled = int(24 * fraction)
            rate = self.steps / max(now - self.started, 1e-9)
            # Counted per map, as the episode lines are; the bar is the whole run's.
            line = (
                f"\r{label} episode {self.done % self.per_map + 1}/{self.per_map} "
                f"[{'#' * filled}"
                f"{'.' * (24 - filled)}] step {episode_steps} score {info['score']}  {rate:,.0f} steps/s"
            )
            self.stream.write(line[: self.width + 1].ljust(self.width + 1))
            self.stream.flush()
            self.pending = True

    def episode(self, episode: Episode, label: str | None = None) -> None:
        """The line of a finished episode, on the map `label` names (by default its name, as the env has it)."""
        self.done += 1
        number = (self.done - 1) % self.per_map + 1
        line = (
            f"{label or shown(episode.map_name)} episode {number}/{self.per_map}: score {episode.score} in "
            f"{episode.steps} steps ({episode.seconds:.1f} s)"
        )
        if episode.invalid_actions:  # played as no_op: an agent's bug would otherwise show only as low scores
            line += f", {episode.invalid_actions} invalid actions played as no_op"
        self.stream.write(("\r" + line.ljust(self.width) if self.live else line) + "\n")
        self.stream.flush()
        self.pending = False

    def end_line(self) -> None:
        """End a live line drawn last, so that what is printed next starts a line of its own."""
        if self.pending:
            self.stream.write("\n")
            self.stream.flush()
            self.pending = False
