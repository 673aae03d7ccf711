"""Healing (the Medivac's Heal): an ordered heal on one unit, and a real Medivac's autocast on units near it."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from sc2env.engine.targeting import TICK
from sc2env.engine.type_tables import type_mask
from sc2env.gamedata import LOOPS_PER_GAME_SECOND

if TYPE_CHECKING:
    from sc2env.engine.game import Game
    from sc2env.gamedata import Heal

HEAL, ATTACK = 386, 23
_HEALERS = type_mask(lambda t: t.heal is not None)
_SLACK = 0.05  # a healer that stopped at its reach is within range despite float noise


class Healing:
    """Heals of one game, after each batch of loops: each healer with a Heal order walks to its unit and heals
    it while it is damaged (the order ends when it is whole or gone); an idle or attack-moving healer of a
    type that acquires by itself (not a map's passive copy) heals the nearest damaged unit in range, and on an
    attack-move stops to do so."""

    def __init__(self, game: Game):
        self.game = game
        self.world = game.world

    def can_heal(self, i: int, j: int) -> bool:
        """Whether row i may heal row j at all: its own unit (not itself) with the attribute heal needs."""
        w = self.world
        heal = w.types[i].heal
        return (
            heal is not None
            and i != j
            and w.owner[i] == w.owner[j]
            and heal.attribute in w.types[j].attributes
            and not w.hidden[j]
        )

    def _healers(self) -> np.ndarray:
        """The rows that heal (a per-row fact: by type), in row order."""
        w = self.world
        return w.per_rows("healers", lambda: np.flatnonzero(_HEALERS[w.type_id]))

    def plan(self, batch: int) -> int:
        """How many loops the next batch may run: a combat tick while an acquiring healer flies on an
        attack-move and a unit of its side is hurt, so that it notices the unit as it passes."""
        w = self.world
        healers = self._healers()
        if not len(healers):
            return batch
        for i in healers[w.moving[healers]].tolist():
            order = w.orders[i][0] if w.orders[i] else None
            if (
                w.types[i].auto_acquire
                and order is not None
                and order.ability_id == ATTACK
                and not order.target_tag
                and ((w.owner == w.owner[i]) & (w.health < w.health_max) & (w.health > 0)).any()
            ):
                return min(batch, TICK)
        return batch

    def advance(self, elapsed: int) -> None:
        w = self.world
        for i in self._healers().tolist():
            heal = w.types[i].heal
            assert heal is not None  # a healer's type has one
            order = w.orders[i][0] if w.orders[i] else None
            if order is not None and order.ability_id == HEAL:
                self._ordered(i, order.target_tag, heal, elapsed)
            elif not w.types[i].auto_acquire:
                continue
            elif order is None:
                j = self._nearest_hurt(i, heal)
                if j is not None:
                    self._heal(i, j, heal, elapsed)
            elif order.ability_id == ATTACK and not order.target_tag:
                self._attack_move(i, heal, elapsed)

    def _ordered(self, i: int, target: int, heal: Heal, elapsed: int) -> None:
        w = self.world
        j = w.slot(target) if w.exists(target) else -1
        if j < 0 or not self.can_heal(i, j) or w.health[j] >= w.health_max[j] or w.energy[i] <= 0:
            self.game.orders.complete(i)
            return
        if self._gap(i, j) > heal.range + _SLACK:
            if not w.moving[i]:  # it reached where the unit was: after it again
                w.move_to(i, tag=target, reach=heal.range)
            return
        if w.moving[i]:
            w.halt(i)
        self._heal(i, j, heal, elapsed)
        if w.health[j] >= w.health_max[j]:  # whole: the order ends now, as it would at its next check
            self.game.orders.complete(i)

    def _attack_move(self, i: int, heal: Heal, elapsed: int) -> None:
        """An attack-moving healer stops for a damaged unit in range, as the game's units stop to fight on
        an attack-move, and flies on to its point when nobody near it needs healing (or its energy is out)."""
        w = self.world
        j = self._nearest_hurt(i, heal) if w.energy[i] > 0 else None
        if j is not None:
            if w.moving[i]:
                w.halt(i)
            self._heal(i, j, heal, elapsed)
            j = self._nearest_hurt(i, heal) if w.energy[i] > 0 else None
        if j is None and not w.moving[i]:
            self.game.orders.resume(i)

    def _nearest_hurt(self, i: int, heal: Heal) -> int | None:
        w = self.world
        hurt = np.flatnonzero((w.owner == w.owner[i]) & (w.health < w.health_max) & (w.health > 0))
        best, best_gap = None, math.inf
        for j in hurt.tolist():
            gap = self._gap(i, j)
            if gap <= heal.range + _SLACK and gap < best_gap and self.can_heal(i, j):
                best, best_gap = j, gap
        return best

    def _gap(self, i: int, j: int) -> float:
        w = self.world
        return math.dist(w.pos[i].tolist(), w.pos[j].tolist()) - float(w.radius[i]) - float(w.radius[j])

    def _heal(self, i: int, j: int, heal: Heal, elapsed: int) -> None:
        """Row i heals row j for `elapsed` loops, as far as its energy and j's missing life go."""
        w = self.world
        amount = min(
            heal.rate * elapsed / LOOPS_PER_GAME_SECOND,
            float(w.health_max[j] - w.health[j]),
            float(w.energy[i]) / heal.energy_per_life,
        )
        if amount <= 0:
            return
        w.health[j] += amount
        w.energy[i] -= amount * heal.energy_per_life
        w.version += 1
