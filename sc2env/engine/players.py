"""Per-player state outside the world: resources, score and its statistics, selection, control groups, camera."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from sc2env.gamedata import LOOPS_PER_REAL_MINUTE

CATEGORIES = ("none", "army", "economy", "technology", "upgrade")
CONTROL_GROUPS = 10


def _by_category() -> dict[str, float]:
    return dict.fromkeys(CATEGORIES, 0.0)


@dataclass
class Stats:
    """What `score_details` reports, kept as the game goes (value = minerals + vespene)."""

    collected_minerals: float = 0.0
    collected_vespene: float = 0.0
    spent_minerals: float = 0.0
    spent_vespene: float = 0.0
    idle_worker_loops: float = 0.0
    idle_production_loops: float = 0.0
    killed_value_units: float = 0.0
    killed_value_structures: float = 0.0
    damage_dealt: float = 0.0
    damage_taken: float = 0.0
    killed_minerals: dict = field(default_factory=_by_category)
    killed_vespene: dict = field(default_factory=_by_category)
    lost_minerals: dict = field(default_factory=_by_category)
    lost_vespene: dict = field(default_factory=_by_category)
    total_used_minerals: dict = field(default_factory=_by_category)
    total_used_vespene: dict = field(default_factory=_by_category)
    income: deque = field(default_factory=deque)  # (loop, kind, amount) of recent drop-offs
    recent: dict = field(default_factory=lambda: {"minerals": 0.0, "vespene": 0.0})  # their sums by kind

    def record_income(self, loop: int, kind: str, amount: int) -> None:
        self.income.append((loop, kind, amount))
        self.recent[kind] += amount

    def collection_rate(self, loop: int, kind: str) -> float:
        """Income of `kind` over the last real (Faster) minute, as the game's smoothed rate estimates it."""
        while self.income and self.income[0][0] <= loop - LOOPS_PER_REAL_MINUTE:
            _, old_kind, amount = self.income.popleft()
            self.recent[old_kind] -= amount
        return float(self.recent[kind])


@dataclass
class Player:
    """One player's economy and interface state; `selection` and `control_groups` hold unit tags in order."""

    player_id: int
    race: int
    minerals: int = 0
    vespene: int = 0
    score: int = 0
    selection: list[int] = field(default_factory=list)
    control_groups: list[list[int]] = field(default_factory=lambda: [[] for _ in range(CONTROL_GROUPS)])
    camera: tuple[float, float] = (0.0, 0.0)
    stats: Stats = field(default_factory=Stats)

    def forget(self, exists: Callable[[int], bool]) -> None:
        """Drop tags of units that no longer exist from the selection and the control groups."""
        self.selection = [t for t in self.selection if exists(t)]
        if any(self.control_groups):  # usually none is set: then there are no ten lists to rebuild
            self.control_groups = [[t for t in g if exists(t)] for g in self.control_groups]
