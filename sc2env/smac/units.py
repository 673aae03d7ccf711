"""The two sides' units as numpy columns in SMAC's id order, read from raw observations and kept by tag."""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Sequence

import numpy as np
from s2clientprotocol import raw_pb2


class Column(enum.IntEnum):
    """The columns `read_units` takes from each raw `Unit`."""

    unit_type = 0
    owner = 1
    health = 2
    health_max = 3
    shield = 4
    shield_max = 5
    energy = 6
    weapon_cooldown = 7
    x = 8
    y = 9


AGENT_OWNER = 1
ENEMY_OWNER = 2


def read_units(units: Sequence[raw_pb2.Unit]) -> tuple[np.ndarray, np.ndarray]:
    """Every unit's tag (uint64) and its `Column` values (float64), in the observation's order."""
    n = len(units)
    tags = np.fromiter((u.tag for u in units), np.uint64, n)
    values = np.array(
        [
            (
                u.unit_type,
                u.owner,
                u.health,
                u.health_max,
                u.shield,
                u.shield_max,
                u.energy,
                u.weapon_cooldown,
                u.pos.x,
                u.pos.y,
            )
            for u in units
        ],
        np.float64,
    ).reshape(n, len(Column))
    return tags, values


@dataclasses.dataclass
class Side:
    """One side's units, a row per SMAC id. A unit that has left the observation is dead: its health is 0,
    its other values are the last it had (as SMAC keeps them), and `messages` holds its last `Unit` with
    health 0."""

    tags: np.ndarray
    values: np.ndarray
    messages: list[raw_pb2.Unit]

    @classmethod
    def pick(
        cls, units: Sequence[raw_pb2.Unit], tags: np.ndarray, values: np.ndarray, rows: np.ndarray
    ) -> Side:
        return cls(tags[rows].copy(), values[rows].copy(), [units[int(r)] for r in rows])

    def __len__(self) -> int:
        return len(self.tags)

    def column(self, column: Column) -> np.ndarray:
        return self.values[:, column]

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

    def update(self, units: Sequence[raw_pb2.Unit], row_of_tag: dict[int, int], values: np.ndarray) -> int:
        """Take this side's units from a new observation; returns how many are still in it."""
        rows = np.array([row_of_tag.get(int(t), -1) for t in self.tags], np.int64)
        present = rows >= 0
        self.values[present] = values[rows[present]]
        for i, row in enumerate(rows.tolist()):
            if row >= 0:
                self.messages[i] = units[row]
            elif self.values[i, Column.health] != 0:  # it just died: keep its last message, health 0
                self.values[i, Column.health] = 0.0
                dead = raw_pb2.Unit()
                dead.CopyFrom(self.messages[i])
                dead.health = 0.0
                self.messages[i] = dead
        return int(present.sum())


def split_sides(units: Sequence[raw_pb2.Unit], tags: np.ndarray, values: np.ndarray) -> tuple[Side, Side]:
    """The agents (player 1's units sorted by type, then x, then y, as SMAC numbers them) and the enemies
    (player 2's units in the observation's order)."""
    owner = values[:, Column.owner]
    mine = np.flatnonzero(owner == AGENT_OWNER)
    # lexsort is stable and sorts by its last key first: type, then x, then y, ties kept in observed order.
    order = np.lexsort((values[mine, Column.y], values[mine, Column.x], values[mine, Column.unit_type]))
    theirs = np.flatnonzero(owner == ENEMY_OWNER)
    return Side.pick(units, tags, values, mine[order]), Side.pick(units, tags, values, theirs)
