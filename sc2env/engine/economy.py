"""Harvesting: workers gather minerals and gas, carry them to a drop-off and go back; repair."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from s2clientprotocol import error_pb2

from sc2env.engine.fast import count_nonzero
from sc2env.engine.orders import GATHER, REPAIR, RETURN, Order
from sc2env.engine.type_tables import DROPOFF_TYPES, MINERAL_FIELD_TYPES, WORKER_TYPES
from sc2env.engine.unit_states import Cargo, Phase
from sc2env.gamedata import Harvest, UnitType

if TYPE_CHECKING:
    from sc2env.engine.game import Game

_CONTACT = 0.1  # edge distance at which a worker touches a resource, a drop-off or what it repairs
_ACQUIRE_RADIUS = 10.0  # a worker whose patch is busy or gone looks this far for another (CAbilHarvest)
_MAX_BATCH = 16  # loops per batch while workers harvest (bounds how late their events are handled)
CARGO_OF = {"minerals": Cargo.MINERALS, "vespene": Cargo.VESPENE}
"""The cargo a harvest of each kind (Harvest.kind) gives."""


class Economy:
    """The harvest cycle (gather -> harvest -> pause -> return -> deposit) and repair, for one game."""

    def __init__(self, game: Game):
        self.game = game
        self.world = game.world

    # ---- orders -------------------------------------------------------------------------------------
    def order(self, i: int, ability: int, target: int | None) -> Order | int:
        """The Gather / Return / Repair order for row i after checking its target, or the game's error."""
        w = self.world
        if ability == RETURN:
            if self.dropoff(i) is None:
                return error_pb2.CantFindDropOff
            return Order(RETURN)
        if target is None:
            return error_pb2.MustTargetUnit
        j = w.slot(target)
        t = w.types[j]
        mine = w.owner[j] == w.owner[i]
        if ability == REPAIR:
            if not (
                mine
                and "Mechanical" in t.attributes
                and w.build_progress[j] >= 1
                and w.health[j] < w.health_max[j]
                and j != i
            ):
                return error_pb2.RequiresRepairTarget
            return Order(REPAIR, target_tag=target)
        if t.harvest is None:
            return error_pb2.MustBuildRefineryFirst if t.vespene_contents else error_pb2.MustTargetResources
        if t.harvest.kind == "vespene":
            if not mine:
                return error_pb2.CantHarvestThatResource
            if w.build_progress[j] < 1:
                return error_pb2.BuildingIsUnderConstruction
        if w.contents[j] <= 0:
            return error_pb2.CantTargetExhaustedResources
        return Order(GATHER, target_tag=target)

    def start(self, i: int, order: Order) -> bool:
        """Begin a harvest-cycle or repair order; False if there is nothing to do."""
        w = self.world
        w.ghost[i] = order.ability_id != REPAIR
        if order.ability_id == REPAIR:
            if not w.exists(order.target_tag):
                return False
            w.phase[i] = Phase.TO_REPAIR
            w.move_to(i, tag=order.target_tag, reach=_CONTACT)
            return True
        if order.ability_id == GATHER:
            w.harvest_tag[i] = order.target_tag
            if w.cargo[i] > 0:
                return self._return(i, order)
            return self._to_resource(i, order, order.target_tag)
        return self._return(i, order)

    def interrupt(self, i: int) -> None:
        """Row i gets another order: leave the patch or refinery (an unfinished harvest yields nothing)."""
        w = self.world
        if w.phase[i] == Phase.HARVESTING:
            self._release(i, 0)
        if Phase.NONE < w.phase[i] <= Phase.REPAIRING:  # harvesting or repairing (not constructing)
            w.phase[i] = Phase.NONE
            w.timer[i] = 0.0
        w.ghost[i] = False

    def arrived(self, i: int, late: float = 0.0) -> None:
        """Row i's leg ended `late` loops ago."""
        w = self.world
        order = w.orders[i][0]
        phase = w.phase[i]
        if phase == Phase.TO_RESOURCE:
            self._at_resource(i, order, late)
        elif phase == Phase.RETURNING:
            self._deposit(i, order, late)
        elif phase == Phase.TO_REPAIR:
            if w.exists(order.target_tag):
                w.phase[i] = Phase.REPAIRING
                w.halt(i)
            else:
                self.game.orders.complete(i)

    # ---- the cycle ----------------------------------------------------------------------------------
    # Harvesting workers are ghosts: their leg ends and timers don't cut the world's batches. Each event is
    # handled at the batch's end, `late` loops after it happened; the worker makes up for those loops by
    # travelling further in the next batch (World.owe) or harvesting for less long.
    def _move(self, i: int, tag: int, late: float) -> None:
        self.world.move_to(i, tag=tag, reach=_CONTACT)
        self.world.owe(i, int(late))

    def _to_resource(self, i: int, order: Order, resource: int, late: float = 0.0) -> bool:
        w = self.world
        if not w.exists(resource):
            resource = self._another(i, resource)
            if not resource:
                return False
        order.ability_id, order.target_tag = GATHER, resource
        w.harvest_tag[i] = resource
        w.phase[i] = Phase.TO_RESOURCE
        self._move(i, resource, late)
        return True

    def _another(self, i: int, near: int, busy_ok: bool = True) -> int:
        """The nearest mineral field within the harvest acquire radius of `near` (or of row i when `near` is
        gone), preferring free ones; 0 if none."""
        w = self.world
        centre = w.pos[w.slot(near)] if w.exists(near) else w.pos[i]
        fields = np.flatnonzero((w.contents > 0) & (w.owner == 0) & MINERAL_FIELD_TYPES[w.type_id])
        if not len(fields):
            return 0
        fields = fields[np.hypot(*(w.pos[fields] - centre).T) <= _ACQUIRE_RADIUS]
        if not busy_ok:
            fields = fields[w.occupant[fields] == 0]
        if not len(fields):
            return 0
        d = np.hypot(*(w.pos[fields] - w.pos[i]).T) + 100.0 * (w.occupant[fields] != 0)
        return int(w.tag[fields[int(np.argmin(d))]])

    def _at_resource(self, i: int, order: Order, late: float = 0.0) -> None:
        w = self.world
        r = order.target_tag
        if not w.exists(r):
            if not self._to_resource(i, order, r, late):
                self.game.orders.complete(i)
            return
        j = w.slot(r)
        if w.occupant[j] and w.occupant[j] != w.tag[i]:
            other = self._another(i, r, busy_ok=False) if _harvest(w.types[j]).kind == "minerals" else 0
            if other and other != r:
                self._to_resource(i, order, other, late)
                return
            w.phase[i] = Phase.WAITING
            w.halt(i)
            return
        self._harvest(i, j, late)

    def _harvest(self, i: int, j: int, late: float = 0.0) -> None:
        w = self.world
        harvest = _harvest(w.types[j])
        w.occupant[j] = w.tag[i]
        w.phase[i] = Phase.HARVESTING
        w.timer[i] = harvest.loops - late
        w.halt(i)
        if harvest.kind == "vespene":  # the worker goes inside the refinery
            w.hidden[i] = True
            w.pos[i] = w.pos[j]
        w.version += 1

    def _release(self, i: int, late: float) -> None:
        """Free the resource row i harvests (`late` loops ago); a worker inside a refinery comes out beside
        it; the next worker waiting there starts."""
        w = self.world
        r = int(w.harvest_tag[i])
        if w.exists(r) and w.occupant[w.slot(r)] == w.tag[i]:
            w.occupant[w.slot(r)] = 0
            self._wake(r, late)
        if w.hidden[i]:
            w.hidden[i] = False
            if w.exists(r):
                x, y = w.pos[w.slot(r)]
                w.pos[i] = w.free_spot(x, y, float(w.radius[i]))
            w.version += 1

    def _wake(self, resource: int, late: float) -> None:
        """The first worker waiting at `resource` takes it (or looks elsewhere if it is gone)."""
        w = self.world
        waiting = np.flatnonzero((w.phase == Phase.WAITING) & (w.harvest_tag == resource))
        if not len(waiting):
            return
        i = int(waiting[0])
        if w.exists(resource):
            self._harvest(i, w.slot(resource), late)
        else:
            for k in waiting.tolist():
                self._at_resource(k, w.orders[k][0], late)

    def _finish_harvest(self, i: int, late: float) -> None:
        w = self.world
        r = int(w.harvest_tag[i])
        if not w.exists(r):
            w.phase[i] = Phase.NONE
            self._release(i, late)
            return
        j = w.slot(r)
        harvest = _harvest(w.types[j])
        amount = int(min(harvest.amount, w.contents[j]))
        w.contents[j] -= amount
        self.game.building.drain_geyser(r, amount)
        w.cargo[i], w.cargo_kind[i] = amount, CARGO_OF[harvest.kind]
        depleted = w.contents[j] <= 0 and harvest.kind == "minerals"
        self._release(i, late)
        w.version += 1
        tag = int(w.tag[i])
        if depleted:
            self.game.remove_unit(r)  # a mined-out field disappears (RemoveWhenEmpty)
            self._wake(r, late)
            i = w.slot(tag)
        w.phase[i] = Phase.PAUSING
        w.timer[i] = harvest.pause - late

    def dropoff(self, i: int) -> int | None:
        """Row of the nearest finished drop-off (town hall) of row i's owner, or None."""
        w = self.world
        halls = np.flatnonzero((w.owner == w.owner[i]) & (w.build_progress >= 1) & DROPOFF_TYPES[w.type_id])
        if not len(halls):
            return None
        return int(halls[int(np.argmin(np.hypot(*(w.pos[halls] - w.pos[i]).T)))])

    def _return(self, i: int, order: Order, late: float = 0.0) -> bool:
        w = self.world
        hall = self.dropoff(i)
        if hall is None:
            self.game.report_error(int(w.owner[i]), RETURN, error_pb2.CantFindDropOff)
            return False
        order.ability_id = RETURN
        order.target_tag = int(w.tag[hall])
        w.phase[i] = Phase.RETURNING
        w.ghost[i] = True
        self._move(i, int(w.tag[hall]), late)
        return True

    def _deposit(self, i: int, order: Order, late: float = 0.0) -> None:
        w, g = self.world, self.game
        owner = int(w.owner[i])
        amount = int(w.cargo[i])
        player = g.players.get(owner)
        if player is not None and amount:
            kind = "minerals" if w.cargo_kind[i] == Cargo.MINERALS else "vespene"
            setattr(player, kind, getattr(player, kind) + amount)
            stats = player.stats
            setattr(stats, f"collected_{kind}", getattr(stats, f"collected_{kind}") + amount)
            stats.record_income(g.game_loop, kind, amount)
        w.cargo[i] = 0
        w.cargo_kind[i] = Cargo.NONE
        w.version += 1
        # After a drop-off the worker goes back to its patch, unless Return Cargo had orders queued after it.
        if len(w.orders[i]) > 1 or not self._to_resource(i, order, int(w.harvest_tag[i]), late):
            g.orders.complete(i)

    # ---- time ---------------------------------------------------------------------------------------
    def free_loops(self, limit: int) -> int:
        """Harvest events are caught up after each batch; batches stay short enough that a worker meets
        at most one of them per batch, and repairs advance loop by loop."""
        w = self.world
        if not w.n or not self._workers():  # only workers have a phase
            return limit
        if count_nonzero(w.phase == Phase.REPAIRING):
            return 1
        if count_nonzero(w.phase):
            return min(limit, _MAX_BATCH)
        return limit

    def _workers(self, owner: int | None = None) -> list[int]:
        """Rows of workers (of `owner`), kept per rows."""
        w = self.world
        if owner is None:
            return w.per_rows("workers", lambda: WORKER_TYPES[w.type_id].nonzero()[0].tolist())
        return w.per_rows(("workers of", owner), lambda: [i for i in self._workers() if w.owner[i] == owner])

    def advance(self, elapsed: int) -> None:
        w = self.world
        if not w.n or not self._workers():
            return
        self._idle_time(elapsed)
        timed = (w.phase == Phase.HARVESTING) | (w.phase == Phase.PAUSING)
        if count_nonzero(timed):
            w.timer[timed] -= elapsed
            for tag in w.tag[timed & (w.timer <= 1e-9)].tolist():
                if not w.exists(tag):
                    continue
                i = w.slot(tag)
                if w.phase[i] == Phase.HARVESTING:
                    self._finish_harvest(i, max(-float(w.timer[i]), 0.0))
                    i = w.slot(tag)
                late = max(-float(w.timer[i]), 0.0)
                if (
                    w.phase[i] == Phase.PAUSING
                    and w.timer[i] <= 1e-9
                    and not self._return(i, w.orders[i][0], late)
                ):
                    self.game.orders.complete(i)
        for tag in w.tag[w.phase == Phase.REPAIRING].tolist():
            self._repair(w.slot(tag), elapsed)

    def _repair(self, i: int, elapsed: int) -> None:
        """Restore hit points at the rate the target was built (SC2 repairs at build speed)."""
        w = self.world
        target = w.orders[i][0].target_tag
        if not w.exists(target):
            self.game.orders.complete(i)
            return
        j = w.slot(target)
        rate = w.health_max[j] / max(w.types[j].build_time, 1.0)
        w.health[j] = min(w.health_max[j], w.health[j] + rate * elapsed)
        w.version += 1
        if w.health[j] >= w.health_max[j]:
            self.game.orders.complete(i)

    def _idle_time(self, elapsed: int) -> None:
        w = self.world
        if not self._workers():
            return
        for player in self.game.players.values():
            rows = self._workers(player.player_id)
            player.stats.idle_worker_loops += elapsed * sum(1 for i in rows if not w.orders[i])


def _harvest(t: UnitType) -> Harvest:
    """What a worker trip takes from a resource of type t (orders send workers only to those)."""
    if t.harvest is None:
        raise ValueError(f"{t.name} is not a resource that workers harvest")
    return t.harvest
