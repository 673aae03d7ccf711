"""Per-player state outside the world: resources, curriculum score, selection, control groups, camera."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass
class Player:
    """One player's economy and interface state; `selection` and `control_groups` hold unit tags in order."""

    player_id: int
    race: int
    minerals: int = 0
    vespene: int = 0
    score: int = 0
    selection: list[int] = field(default_factory=list)
    control_groups: list[list[int]] = field(default_factory=lambda: [[] for _ in range(10)])
    camera: tuple[float, float] = (0.0, 0.0)

    def forget(self, exists: Callable[[int], bool]) -> None:
        """Drop tags of units that no longer exist from the selection and the control groups."""
        self.selection = [t for t in self.selection if exists(t)]
        self.control_groups = [[t for t in g if exists(t)] for g in self.control_groups]
