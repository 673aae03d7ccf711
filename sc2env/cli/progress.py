"""The progress of a run on stderr: a bar redrawn in place on a terminal, and a line per finished episode."""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TextIO

from sc2env.cli.text import columns_of, shown

if TYPE_CHECKING:
    from sc2env.agents import Episode
    from sc2env.game.maps import MapSpec


class Progress:
    """A one-line progress bar on stderr (redrawn in place on a terminal, one line per episode otherwise).

    The bar fills by env steps. Each episode counts for its map's step budget (`step_budget`: the map's time
    limit over step_mul, or --max-steps when that is smaller); an episode that ends sooner (its army died)
    fills the rest of its share as it ends. Where a map's budget is unknown (a map of a StarCraft II install,
    which has no time limit, without --max-steps), the bar fills by episodes.
    """

    def __init__(self, per_map: int, budgets: Sequence[int | None], stream: TextIO | None = None):
        self.per_map = per_map
        self.budgets = list(budgets)
        """Each map's step budget, in the order the maps are played."""
        self.total = per_map * len(self.budgets)
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

    def fraction(self, episode_steps: int) -> float:
        """How much of the run is done, `episode_steps` into the current episode."""
        if not self.total:
            return 0.0
        if None in self.budgets:
            return self.done / self.total
        budgets = [budget or 0 for budget in self.budgets]
        finished = sum(budgets[i // self.per_map] for i in range(min(self.done, self.total)))
        current = budgets[self.done // self.per_map] if self.done < self.total else 0
        return (finished + min(episode_steps, current)) / (self.per_map * sum(budgets))

    def step(self, label: str, episode_steps: int, info: dict[str, Any]) -> None:
        """Redraw the bar for a step of the episode on the map `label` names (0 steps: its reset)."""
        self.steps += episode_steps > 0  # 0: the episode's reset
        now = time.perf_counter()
        if self.live and now - self._drawn > 0.1:
            self._drawn = now
            filled = int(24 * self.fraction(episode_steps))
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


def step_budget(spec: MapSpec, step_mul: int, max_steps: int | None) -> int | None:
    """The most env steps an episode on `spec` takes: its time limit in game loops over `step_mul` (rounded up:
    the step that crosses the limit ends it), or `max_steps` when that is smaller; None when neither is known."""
    timer = -(-spec.game_loops // step_mul) if spec.game_loops else None
    limits = [limit for limit in (timer, max_steps) if limit is not None]
    return min(limits) if limits else None
