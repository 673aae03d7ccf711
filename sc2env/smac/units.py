"""Both sides' units as one numpy table in SMAC's id order, read from raw observations and kept by tag."""

from __future__ import annotations

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
    flat: list[float] = []
    tags: list[int] = []
    extend, add_tag = flat.extend, tags.append  # one pass over the messages: reading them is the cost
    for u in units:
        pos = u.pos
        add_tag(u.tag)
        extend((u.health, u.shield, u.energy, u.weapon_cooldown, pos.x, pos.y))
        if every_column:
            extend((u.health_max, u.shield_max, u.unit_type, u.owner))
    width = len(Column) if every_column else N_CHANGING
    return tags, np.array(flat, np.float64).reshape(len(tags), width)


class UnitTable:
    """Both sides' units of one episode: a row per unit, the agents' rows (in SMAC's agent ids) then the
    enemies' (in theirs), each row's `Column` values, and each unit's last raw `Unit` message.

    A unit that has left the observation is dead: its health is 0, its other values are the last it had (as
    SMAC keeps them), and so is its message (with health 0).
    """

    def __init__(
        self,
        units: Sequence[raw_pb2.Unit],
        tags: list[int],
        values: np.ndarray,
        rows: np.ndarray,
        n_agents: int,
    ) -> None:
        picked = rows.tolist()
        self.n_agents = n_agents
        self.tags = np.array([tags[r] for r in picked], np.uint64)
        self.values = values[rows].copy()
        self._tag_list = self.tags.tolist()
        self._units = units
        self._rows = picked
        self._observed = tags
        self._dead: dict[int, raw_pb2.Unit] = {}
        self._link(tags)

    def _link(self, observed: list[int]) -> None:
        """Where each unit is in an observation whose tags are `observed` (-1: not in it)."""
        row_of_tag = dict(zip(observed, range(len(observed))))
        rows = np.array([row_of_tag.get(tag, -1) for tag in self._tag_list], np.int64)
        self._present = rows >= 0
        self._present_rows = rows[self._present]
        self._all_present = bool(self._present.all())
        self._counts = (
            int(self._present[: self.n_agents].sum()),
            int(self._present[self.n_agents :].sum()),
        )
        self._found = rows.tolist()

    def update(self, units: Sequence[raw_pb2.Unit]) -> tuple[int, int]:
        """Take every unit's changing values from a new observation; returns how many agents and how many
        enemies are still in it."""
        observed, values = read_units(units, every_column=False)
        if observed != self._observed:  # a unit died (or the game listed them anew): find each again
            self._link(observed)
            for i, (row, before) in enumerate(zip(self._found, self._rows)):
                if row < 0 and before >= 0:  # it just died: keep its last message, health 0
                    dead = raw_pb2.Unit()
                    dead.CopyFrom(self._units[before])
                    dead.health = 0.0
                    self._dead[i] = dead
            self._rows = self._found
            self._observed = observed
        if self._all_present:
            self.values[:, :N_CHANGING] = values[self._present_rows]
        else:
            self.values[self._present, :N_CHANGING] = values[self._present_rows]
            self.values[~self._present, Column.health] = 0.0
        self._units = units
        return self._counts

    def message(self, i: int) -> raw_pb2.Unit:
        """Row i's last raw `Unit` (a dead one's with health 0)."""
        row = self._rows[i]
        return self._units[row] if row >= 0 else self._dead[i]


class Side:
    """One side's rows of a UnitTable (views: they follow its updates), a row per SMAC id."""

    def __init__(self, table: UnitTable, start: int, stop: int) -> None:
        self._table = table
        self._start = start
        self.tags = table.tags[start:stop]
        self.values = table.values[start:stop]

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
        return self._table.message(self._start + i)

    @property
    def messages(self) -> list[raw_pb2.Unit]:
        return [self.message(i) for i in range(len(self.tags))]


def sides(units: Sequence[raw_pb2.Unit], n_agents: int, n_enemies: int) -> UnitTable | None:
    """A new episode's units: the agents (player 1's units sorted by type, then x, then y, as SMAC numbers
    them) and the enemies (player 2's units in the observation's order); None while the game has not spawned
    `n_agents` agents and `n_enemies` enemies."""
    tags, values = read_units(units, every_column=True)
    owner = values[:, Column.owner]
    mine = np.flatnonzero(owner == AGENT_OWNER)
    theirs = np.flatnonzero(owner == ENEMY_OWNER)
    if len(mine) != n_agents or len(theirs) != n_enemies:
        return None
    # lexsort is stable and sorts by its last key first: type, then x, then y, ties kept in observed order.
    order = np.lexsort((values[mine, Column.y], values[mine, Column.x], values[mine, Column.unit_type]))
    return UnitTable(units, tags, values, np.concatenate([mine[order], theirs]), n_agents)
