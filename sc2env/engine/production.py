"""Training queues (an SCV from a Command Center, a Marine from a Barracks), supply, and rally points."""

from __future__ import annotations

import functools
import math
from typing import TYPE_CHECKING

import numpy as np
from s2clientprotocol import error_pb2

from sc2env.engine.orders import GATHER, MOVE, SUCCESS, Order
from sc2env.engine.type_tables import FOOD_PROVIDED, FOOD_REQUIRED, PRODUCER_TYPES
from sc2env.gamedata import UNIT_TYPES

if TYPE_CHECKING:
    from sc2env.engine.game import Game
    from sc2env.engine.world import World

MAX_FOOD = 200
_DEFAULT_EXIT = np.array([0.0, -1.0])  # trained units leave southwards when there is no rally point


class Production:
    """Queues of up to five units per producer; resources are paid when queued, supply when one starts."""

    def __init__(self, game: Game):
        self.game = game
        self.world = game.world
        # Train ability -> the unit it makes (524 -> SCV, 560 -> Marine).
        self.trains = {t.build_ability: t for t in UNIT_TYPES.values() if t.build_ability and not t.structure}

    # ---- supply -------------------------------------------------------------------------------------
    def food(self, owner: int) -> tuple[float, float]:
        """(food used, food cap) of a player: units alive or in production, supply of finished structures."""
        w = self.world
        used, producers, cap = w.per_rows(("food", owner), lambda: self._food_rows(owner))
        for i in producers:
            queue = w.orders[i]
            if queue and queue[0].started:
                used += self.trains[queue[0].ability_id].food_required
        return used, cap

    def _food_rows(self, owner: int) -> tuple:
        """(food the player's types require, its producer rows, food cap): kept per rows (which structures
        are finished changes the rows' version too)."""
        w = self.world
        mine = w.owner == owner
        kinds = w.type_id[mine]
        provided = FOOD_PROVIDED[kinds]
        complete = w.build_progress[mine] >= 1
        cap = (provided * complete).sum()
        return (
            float(FOOD_REQUIRED[kinds].sum()),
            (mine & PRODUCER_TYPES[w.type_id]).nonzero()[0].tolist(),
            float(min(cap, MAX_FOOD)),
        )

    # ---- orders -------------------------------------------------------------------------------------
    def can_queue(self, i: int, ability: int) -> int:
        w = self.world
        t = self.trains[ability]
        if w.build_progress[i] < 1:
            return error_pb2.BuildingIsUnderConstruction
        if len(w.orders[i]) >= w.types[i].queue_size:
            return error_pb2.QueueIsFull
        owner = int(w.owner[i])
        error = self.game.cost_error(owner, t)
        if error != SUCCESS:
            return error
        if not w.orders[i]:  # with an empty queue the unit would start now: it needs the supply
            used, cap = self.food(owner)
            if used + t.food_required > cap:
                return error_pb2.NotEnoughFood
        return SUCCESS

    def queue(self, i: int, ability: int) -> int:
        w = self.world
        self.game.pay(int(w.owner[i]), self.trains[ability])
        w.orders[i].append(Order(ability))
        w.version += 1
        return SUCCESS

    def cancel(self, i: int, index: int) -> int:
        """Take item `index` out of row i's queue, refunding it in full."""
        w = self.world
        if not 0 <= index < len(w.orders[i]):
            return error_pb2.Error
        item = w.orders[i].pop(index)
        self.game.refund(int(w.owner[i]), self.trains[item.ability_id], 1.0)
        w.version += 1
        return SUCCESS

    # ---- time ---------------------------------------------------------------------------------------
    def _finished_producers(self) -> list[int]:
        """Rows of finished structures that train units (kept per rows)."""
        w = self.world
        return w.per_rows(
            "producers", lambda: (PRODUCER_TYPES[w.type_id] & (w.build_progress >= 1)).nonzero()[0].tolist()
        )

    def _producers(self) -> list[int]:
        orders = self.world.orders
        return [i for i in self._finished_producers() if orders[i]]

    def plan(self, limit: int) -> int:
        """Start queue fronts that now have supply; the batch ends when the first unit is done."""
        w = self.world
        if not w.n or not self._finished_producers():
            return limit
        for i in self._producers():
            front = w.orders[i][0]
            t = self.trains[front.ability_id]
            if not front.started:
                used, cap = self.food(int(w.owner[i]))
                if used + t.food_required > cap:
                    continue  # waits for supply (WaitForFood)
                front.started = True
                w.version += 1
            left = (1.0 - front.progress) * t.build_time
            limit = min(limit, max(1, math.ceil(left - 1e-9)))
        return limit

    def advance(self, elapsed: int) -> None:
        w = self.world
        if not w.n or not self._finished_producers():
            return
        producers = self._producers()
        self._idle_time(elapsed, producers)
        for i in producers:
            front = w.orders[i][0]
            if not front.started:
                continue
            unit_type = self.trains[front.ability_id]
            front.progress = min(1.0, front.progress + elapsed / unit_type.build_time)
            w.version += 1
            if front.progress >= 1 - 1e-9:
                w.orders[i].pop(0)
                self._emerge(i, unit_type)

    def _idle_time(self, elapsed: int, busy: list[int]) -> None:
        w = self.world
        producers = self._finished_producers()
        if not producers:
            return
        for player in self.game.players.values():
            pid = player.player_id
            mine = w.per_rows(("producers of", pid), functools.partial(_owned_by, w, producers, pid))
            player.stats.idle_production_loops += elapsed * len(set(mine) - set(busy))

    def _emerge(self, i: int, unit_type) -> None:
        """A trained unit appears beside its producer and follows the rally point."""
        w, g = self.world, self.game
        producer = int(w.tag[i])
        rally = g.orders.rally.get(producer)
        goal = None
        if rally is not None:
            goal = (
                rally.point
                if not rally.target_tag
                else (tuple(w.pos[w.slot(rally.target_tag)]) if w.exists(rally.target_tag) else None)
            )
        direction = _DEFAULT_EXIT if goal is None else np.asarray(goal) - w.pos[i]
        norm = float(np.hypot(*direction)) or 1.0
        spot = w.pos[i] + direction / norm * (w.radius[i] + unit_type.radius + 0.1)
        x, y = w.free_spot(float(spot[0]), float(spot[1]), unit_type.radius)
        tag = g.spawn_unit(unit_type, int(w.owner[i]), x, y, facing=math.atan2(direction[1], direction[0]))
        g.unit_created(tag)
        if rally is None or goal is None:
            return
        j = w.slot(tag)
        order: Order | int = (
            Order(MOVE, point=rally.point)
            if not rally.target_tag
            else Order(MOVE, target_tag=rally.target_tag)
        )
        if rally.target_tag and unit_type.worker:
            target_type = w.types[w.slot(rally.target_tag)]
            if target_type.harvest is not None:
                order = g.economy.order(j, GATHER, rally.target_tag)
        if isinstance(order, Order):
            g.orders.give(j, order)


def _owned_by(world: World, rows: list[int], owner: int) -> list[int]:
    """Those of `rows` that `owner` owns."""
    return [i for i in rows if world.owner[i] == owner]
