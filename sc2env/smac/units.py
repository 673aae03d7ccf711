"""The two sides' units as numpy columns in SMAC's id order, read from raw observations and kept by tag."""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Sequence

import numpy as np
from s2clientprotocol import raw_pb2


class Column(enum.IntEnum):
    """The columns read from each raw `Unit`: those that change every step first, then those fixed per unit."""

    health = 0
    shield = 1
    energy = 2
    weapon_cooldown = 3
    x = 4
    y = 5
    health_max = 6
    shield_max = 7
    unit_type = 8
    owner = 9


N_CHANGING = Column.health_max
"""Columns read at every step; the rest are read once, when a unit is first seen."""

AGENT_OWNER = 1
ENEMY_OWNER = 2


def read_units(units: Sequence[raw_pb2.Unit], every_column: bool) -> tuple[list[int], np.ndarray]:
    """Every unit's tag and its `Column` values (float64; only those that change unless `every_column`), in
    the observation's order."""
    rows: list[tuple[float, ...]] = []
    tags: list[int] = []
    for u in units:
        pos = u.pos
        tags.append(u.tag)
        if every_column:
            rows.append(
                (
                    u.health,
                    u.shield,
                    u.energy,
                    u.weapon_cooldown,
                    pos.x,
                    pos.y,
                    u.health_max,
                    u.shield_max,
                    u.unit_type,
                    u.owner,
                )
            )
        else:
            rows.append((u.health, u.shield, u.energy, u.weapon_cooldown, pos.x, pos.y))
    width = len(Column) if every_column else N_CHANGING
    return tags, np.array(rows, np.float64).reshape(len(tags), width)


@dataclasses.dataclass
class Side:
    """One side's units, a row per SMAC id. A unit that has left the observation is dead: its health is 0,
    its other values are the last it had (as SMAC keeps them), and so is its message (with health 0)."""

    tags: np.ndarray
    values: np.ndarray
    _units: Sequence[raw_pb2.Unit]
    _rows: list[int]
    _dead: dict[int, raw_pb2.Unit] = dataclasses.field(default_factory=dict)

    @classmethod
    def pick(
        cls, units: Sequence[raw_pb2.Unit], tags: list[int], values: np.ndarray, rows: np.ndarray
    ) -> Side:
        picked = rows.tolist()
        return cls(np.array([tags[r] for r in picked], np.uint64), values[rows].copy(), units, picked)

    def __len__(self) -> int:
        return len(self.tags)

    @property
    def unit_type(self) -> np.ndarray:
        return self.values[:, Column.unit_type].astype(np.int64)

    @property
    def health(self) -> np.ndarray:
        return self.values[:, Column.health]

    @property
    def shield(self) -> np.ndarray:
        return self.values[:, Column.shield]

    @property
    def x(self) -> np.ndarray:
        return self.values[:, Column.x]

    @property
    def y(self) -> np.ndarray:
        return self.values[:, Column.y]

    @property
    def alive(self) -> np.ndarray:
        return self.values[:, Column.health] > 0

    def message(self, i: int) -> raw_pb2.Unit:
        """Unit i's last raw `Unit` (a dead one's with health 0)."""
        row = self._rows[i]
        return self._units[row] if row >= 0 else self._dead[i]

    @property
    def messages(self) -> list[raw_pb2.Unit]:
        return [self.message(i) for i in range(len(self._rows))]

    def update(self, units: Sequence[raw_pb2.Unit], row_of_tag: dict[int, int], values: np.ndarray) -> int:
        """Take this side's units from a new observation (`values`: its changing columns); returns how many
        are still in it."""
        rows = [row_of_tag.get(tag, -1) for tag in self.tags.tolist()]
        for i, (row, before) in enumerate(zip(rows, self._rows)):
            if row < 0 and before >= 0:  # it just died: keep its last message, health 0
                dead = raw_pb2.Unit()
                dead.CopyFrom(self._units[before])
                dead.health = 0.0
                self._dead[i] = dead
        found = np.array(rows, np.int64)
        present = found >= 0
        self.values[present, :N_CHANGING] = values[found[present]]
        self.values[~present, Column.health] = 0.0
        self._units, self._rows = units, rows
        return int(present.sum())


def split_sides(units: Sequence[raw_pb2.Unit], tags: list[int], values: np.ndarray) -> tuple[Side, Side]:
    """The agents (player 1's units sorted by type, then x, then y, as SMAC numbers them) and the enemies
    (player 2's units in the observation's order)."""
    owner = values[:, Column.owner]
    mine = np.flatnonzero(owner == AGENT_OWNER)
    # lexsort is stable and sorts by its last key first: type, then x, then y, ties kept in observed order.
    order = np.lexsort((values[mine, Column.y], values[mine, Column.x], values[mine, Column.unit_type]))
    theirs = np.flatnonzero(owner == ENEMY_OWNER)
    return Side.pick(units, tags, values, mine[order]), Side.pick(units, tags, values, theirs)
