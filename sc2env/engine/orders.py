"""Unit commands: what each ability makes a unit do, which abilities a unit offers now, and Smart (right-click)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from s2clientprotocol import error_pb2

from sc2env.engine.unit_states import CombatMode, Phase
from sc2env.gamedata import ABILITIES, Target, specific_ability, unit_type_by_name

if TYPE_CHECKING:
    from sc2env.engine.game import Game

SUCCESS, ERROR = error_pb2.Success, error_pb2.Error
CANT_TARGET = error_pb2.CantTargetThatUnit
# A query with ignore_resource_requirements lists abilities that only the player's stock holds back.
_RESOURCE_RESULTS = (
    SUCCESS,
    error_pb2.NotEnoughMinerals,
    error_pb2.NotEnoughVespene,
    error_pb2.NotEnoughFood,
)
SMART, STOP, MOVE, PATROL, HOLD, ATTACK, HEAL = 1, 4, 16, 17, 18, 23, 386
GATHER, RETURN, REPAIR, CANCEL_BUILD, HALT, EXPLODE = 295, 296, 316, 314, 315, 42
RALLY_BUILDING, RALLY_WORKERS = 195, 203
RALLIES = (RALLY_BUILDING, RALLY_WORKERS)
CANCEL_LAST = (306, 308)
LOWER, RAISE = 556, 558
_MORPHS = {LOWER: "SupplyDepotLowered", RAISE: "SupplyDepot"}
_MOVEMENT = (MOVE, PATROL, ATTACK)
_TO_A_POINT = (MOVE, ATTACK, SMART)  # orders that send mobile units to a point, batched by Orders._move_all
_FOLLOW_REACH = 0.5
# A follower that has reached its unit sets off again when that unit walks on (it moved this far since the
# last batch) and leaves it further than this beyond its reach.
_FOLLOW_SLACK = 0.5


@dataclass
class Order:
    """One queued command: a specific ability id with a point or unit target (`origin` is a patrol's start).

    Training queues are orders of the producing structure: one per queued unit, the first `started` once
    supply allowed it, `progress` in 0..1.
    """

    ability_id: int
    point: tuple[float, float] | None = None
    target_tag: int = 0
    origin: tuple[float, float] | None = None
    progress: float = 0.0
    started: bool = False


class Orders:
    """Issues, starts and finishes unit orders of one game, and lists the abilities units can use now."""

    def __init__(self, game: Game):
        self.game = game
        self.world = game.world
        overrides = game.definition.command_cards
        self._overrides = {unit_type_by_name(name).unit_id: tuple(card) for name, card in overrides.items()}
        self.rally: dict[int, Order] = {}
        # Units whose order is to move to a unit (the game's follow): tag -> where that unit stood at the last
        # batch once they had reached it (None while walking to it). The order lasts until the unit is gone or
        # another order comes.
        self.following: dict[int, tuple[float, float] | None] = {}
        self._afford: dict[tuple, int] = {}
        self._cards: dict[int, tuple[int, ...]] = {}  # unit type -> its (restricted) command card

    # ---- command cards ------------------------------------------------------------------------------
    def card(self, i: int) -> tuple[int, ...]:
        """The abilities on row i's command card (the map may restrict it), before state checks."""
        t = self.world.types[i]
        card = self._cards.get(t.unit_id)
        if card is None:
            restricted = self._overrides.get(t.unit_id)
            card = (
                t.command_card if restricted is None else tuple(a for a in t.command_card if a in restricted)
            )
            self._cards[t.unit_id] = card
        return card

    def available(self, i: int, ignore_resources: bool = False) -> list[int]:
        """The abilities row i offers now: card buttons whose costs, supply, tech and state allow them (with
        `ignore_resources`, also those held back only by minerals, vespene or supply, as a query may ask)."""
        w = self.world
        if w.build_progress[i] < 1:
            return [CANCEL_BUILD] if w.types[i].structure and w.owner[i] else []
        allowed = _RESOURCE_RESULTS if ignore_resources else (SUCCESS,)
        return [a for a in self.card(i) if self.check(i, a) in allowed]

    def check(self, i: int, ability: int) -> int:
        """Whether row i may use `ability` now regardless of target: SUCCESS or the game's error."""
        w, g = self.world, self.game
        if ABILITIES[ability].building:  # depends on the player's resources and finished structures only
            key = (w.rows_version, g.player.minerals, g.player.vespene, int(w.owner[i]), ability)
            cached = self._afford.get(key)
            if cached is None:
                if len(self._afford) > 64:
                    self._afford.clear()
                cached = self._afford[key] = g.building.can_afford(int(w.owner[i]), ability)
            return cached
        if ability == RETURN:
            return SUCCESS if w.cargo[i] > 0 else ERROR
        if ability == HALT:
            return SUCCESS if g.building.constructing(i) else ERROR
        if ability in CANCEL_LAST:
            return SUCCESS if w.orders[i] else ERROR
        if ability in g.production.trains:
            return g.production.can_queue(i, ability)
        return SUCCESS

    # ---- issuing ------------------------------------------------------------------------------------
    def command(self, tags, ability_id: int, point, target: int | None, queued: bool) -> int:
        """Order every unit of `tags` that has `ability_id` (general or specific id) on its card.

        Building and training go to one unit of the selection (the nearest worker, the shortest queue).
        Returns SUCCESS if any unit took the order, else the first error.
        """
        w = self.world
        casters = []
        for tag in tags:
            i = w.slot(tag)
            card = self.card(i)
            if w.build_progress[i] < 1:
                card = (CANCEL_BUILD,) if w.types[i].structure else ()
            specific = specific_ability(ability_id, card) if ability_id != SMART or card else None
            if specific is not None:
                casters.append((tag, specific))
        if not casters:
            return ERROR
        specific = casters[0][1]
        if (
            specific in _TO_A_POINT
            and target is None
            and point is not None
            and not queued
            and len(casters) > 1
        ):
            # The mobile units go column-wise; the rest (a structure's rally in a select-all) one by one.
            rows = [(w.slot(tag), s) for tag, s in casters]
            mobile = [s == specific and w.speed[i] > 0 and not w.types[i].structure for i, s in rows]
            if sum(mobile) > 1:
                self._move_all([i for (i, _), go in zip(rows, mobile) if go], specific, point)
                for (i, s), go in zip(rows, mobile):
                    if not go:
                        self.issue(i, s, point, None, False)
                return SUCCESS
        if ABILITIES[specific].building and len(casters) > 1:
            casters = [self._nearest_builder(casters, point, target)]
        elif specific in self.game.production.trains:
            casters = [min(casters, key=lambda c: len(w.orders[w.slot(c[0])]))]
        results = [self.issue(w.slot(tag), specific, point, target, queued) for tag, specific in casters]
        return SUCCESS if SUCCESS in results else results[0]

    def _move_all(self, rows: list[int], ability: int, point) -> None:
        """`issue` of Move, Attack (attack-move) or Smart to a point, for many mobile units at once: the
        same orders and state, set column-wise (selections of a dozen units get such orders every step)."""
        g, w = self.game, self.world
        r = np.array(rows)
        for i in r[
            w.phase[r] != Phase.NONE
        ].tolist():  # what they were doing ends (harvest, construction), in order
            g.economy.interrupt(i)
            g.building.halt(i)
        w.ghost[r] = False
        w.holding[r] = False
        w.engaged[r] = 0
        w.velocity[r] = 0.0
        ability = MOVE if ability == SMART else ability
        for i in rows:  # even an attack-move: the unit acquires anew (in the game, spamming it costs shots)
            g.combat.abandon(i)
        w.mode[r] = CombatMode.ATTACK_MOVE if ability == ATTACK else CombatMode.PASSIVE
        w.leash[r] = w.pos[r]
        goals = w.move_rows_to(r, point)
        for i, goal in zip(rows, goals):  # each order's point is its unit's clamped goal
            w.orders[i] = [Order(ability, point=goal)]

    def _nearest_builder(self, casters, point, target):
        w = self.world
        spot = point if point is not None else tuple(w.pos[w.slot(target)]) if target else None
        if spot is None:
            return casters[0]
        free = [c for c in casters if not self.game.building.constructing(w.slot(c[0]))] or casters
        return min(free, key=lambda c: float(((w.pos[w.slot(c[0])] - spot) ** 2).sum()))

    def issue(self, i: int, ability: int, point, target: int | None, queued: bool) -> int:
        """Give row i the (specific) `ability` with a point and/or unit target; returns the ActionResult."""
        g, w = self.game, self.world
        if ability == SMART:
            ability, point, target = self._smart(i, point, target)
            if ability == ERROR:
                return ERROR
        info = ABILITIES[ability]
        if target is not None and (not w.exists(target) or w.hidden[w.slot(target)]):
            return CANT_TARGET
        resume = info.building and target is not None and self._unfinished(i, w.slot(target))
        allowed = SUCCESS if resume else self.check(i, ability)  # resuming a structure costs nothing
        if allowed != SUCCESS:
            return allowed
        if info.target is not Target.NONE and point is None and target is None:
            return ERROR
        if ability in (STOP, HOLD):
            self.clear(i)
            if ability == HOLD and w.speed[i] > 0:
                w.holding[i] = True
                w.mode[i] = CombatMode.HOLDING if w.types[i].can_attack else CombatMode.PASSIVE
            return SUCCESS
        if ability in RALLIES:
            self.rally[int(w.tag[i])] = Order(
                ability, point=None if target else point, target_tag=target or 0
            )
            return SUCCESS
        if ability in g.production.trains:
            return g.production.queue(i, ability)
        if ability in CANCEL_LAST:
            return g.production.cancel(i, len(w.orders[i]) - 1)
        if ability == CANCEL_BUILD:
            return g.building.cancel(i)
        if ability == HALT:
            g.building.halt(i)
            return SUCCESS
        if ability in _MORPHS:
            w.set_type(int(w.tag[i]), unit_type_by_name(_MORPHS[ability]))
            return SUCCESS
        if ability == EXPLODE:
            g.combat.explode(i)
            return SUCCESS
        order = self._make(i, ability, point, target)
        if isinstance(order, int):
            return order
        self.give(i, order, queued)
        return SUCCESS

    def _make(self, i: int, ability: int, point, target: int | None) -> Order | int:
        """The order for a targeted ability after checking its target, or the game's error."""
        g, w = self.game, self.world
        if ability == ATTACK and target is not None and not g.combat.attackable(i, w.slot(target)):
            point = tuple(w.pos[w.slot(target)])  # not a valid target: attack-move there
            target = None
        if ability in (GATHER, RETURN, REPAIR):
            return g.economy.order(i, ability, target)
        if ability == HEAL and (target is None or not g.healing.can_heal(i, w.slot(target))):
            return CANT_TARGET
        if ABILITIES[ability].building:
            return g.building.order(i, ability, point, target)
        if target is not None and target != int(w.tag[i]):
            return Order(ability, target_tag=target)
        if point is None:
            return CANT_TARGET
        point = w.pathable.clamp(point[0], point[1], margin=float(w.radius[i]))
        origin = (float(w.pos[i, 0]), float(w.pos[i, 1])) if ability == PATROL else None
        return Order(ability, point=point, origin=origin)

    def give(self, i: int, order: Order, queued: bool = False) -> None:
        """Replace row i's orders with `order`, or append it with `queued` (shift)."""
        if queued and self.world.orders[i]:
            self.world.orders[i].append(order)
        else:
            self.clear(i, attacking=order.target_tag if order.ability_id == ATTACK else 0)
            self.world.orders[i] = [order]
            self.start(i)
        self.world.version += 1

    def _unfinished(self, i: int, j: int) -> bool:
        w = self.world
        return bool(w.types[j].structure and w.build_progress[j] < 1 and w.owner[j] == w.owner[i])

    def _smart(self, i: int, point, target: int | None):
        """What a right-click means for row i: (ability, point, target), or (ERROR, ...) if nothing."""
        w = self.world
        card = self.card(i)
        me = w.types[i]
        if me.structure:
            rally = next((a for a in me.command_card if a in RALLIES), None)
            return (
                (rally, point, target)
                if rally is not None and w.build_progress[i] >= 1
                else (ERROR, None, None)
            )
        if target is not None and target != int(w.tag[i]):
            j = w.slot(target)
            other, owner = w.types[j], int(w.owner[j])
            mine = owner == int(w.owner[i])
            if owner not in (0, int(w.owner[i])) and me.can_attack and self.game.combat.attackable(i, j):
                return ATTACK, None, target
            if me.worker:
                if other.harvest is not None and (other.harvest.kind == "minerals" or mine):
                    return GATHER, None, target
                if other.dropoff and mine and w.cargo[i] > 0 and w.build_progress[j] >= 1:
                    return RETURN, None, target
                if self._unfinished(i, j) and other.build_ability in card:
                    return other.build_ability, None, target
            return MOVE, None, target
        if point is None or (w.speed[i] <= 0 and not card):
            return ERROR, None, None
        return MOVE, point, None

    # ---- lifecycle of orders ------------------------------------------------------------------------
    def clear(self, i: int, attacking: int = 0) -> None:
        """Drop all of row i's orders and what they were doing (harvesting, constructing, fighting).

        An attack still in its damage point is abandoned, as in the game (a unit moved, stopped or sent at
        another target then lands nothing), unless the new order is `attacking` its unit (a tag) too.
        """
        g, w = self.game, self.world
        if w.types[i].structure:
            return
        g.combat.abandon(i, keep_target=attacking)
        g.economy.interrupt(i)
        g.building.halt(i)
        w.orders[i] = []
        w.holding[i] = False
        w.engaged[i] = 0
        w.halt(i)
        w.mode[i] = CombatMode.IDLE if w.types[i].can_attack else CombatMode.PASSIVE
        w.leash[i] = w.pos[i]

    def start(self, i: int) -> None:
        """Begin row i's first order (or make it idle)."""
        g, w = self.game, self.world
        while w.orders[i]:
            order = w.orders[i][0]
            ability = order.ability_id
            w.holding[i] = False
            w.engaged[i] = 0
            if ability == ATTACK:
                w.mode[i] = CombatMode.ATTACK_UNIT if order.target_tag else CombatMode.ATTACK_MOVE
                if order.target_tag:
                    if not w.exists(order.target_tag):
                        w.orders[i].pop(0)
                        continue
                    w.engaged[i] = order.target_tag
                    w.leash[i] = w.pos[i]
                    return
            elif ability == PATROL:
                w.mode[i] = CombatMode.ATTACK_MOVE
            else:
                w.mode[i] = CombatMode.PASSIVE
            if ability == HEAL:
                heal = w.types[i].heal
                if heal is not None and w.exists(order.target_tag):
                    w.move_to(i, tag=order.target_tag, reach=heal.range)
                    return
            elif ability in _MOVEMENT:
                if order.target_tag:
                    if not w.exists(order.target_tag):
                        w.orders[i].pop(0)
                        continue
                    w.move_to(i, tag=order.target_tag, reach=_FOLLOW_REACH)
                    if ability == MOVE:
                        self.following[int(w.tag[i])] = None
                else:
                    w.move_to(i, point=order.point)
                return
            if ability in (GATHER, RETURN, REPAIR):
                if g.economy.start(i, order):
                    return
            elif ABILITIES[ability].building and g.building.start(i, order):
                return
            w.orders[i].pop(0)
        w.mode[i] = CombatMode.IDLE if w.types[i].can_attack else CombatMode.PASSIVE
        w.leash[i] = w.pos[i]
        w.halt(i)

    def complete(self, i: int) -> None:
        """Row i finished its first order: start the next one."""
        w = self.world
        if not w.types[
            i
        ].structure:  # what the finished order was doing (harvest, repair, build) ends with it
            self.game.economy.interrupt(i)
            self.game.building.halt(i)
        if w.orders[i]:
            w.orders[i].pop(0)
        self.start(i)
        w.version += 1

    def resume(self, i: int) -> None:
        """Row i stopped fighting: carry on with its order (walk on to an attack-move point)."""
        w = self.world
        w.engaged[i] = 0
        if w.orders[i] and w.orders[i][0].ability_id in _MOVEMENT and not w.orders[i][0].target_tag:
            w.move_to(i, point=w.orders[i][0].point)
        elif not w.orders[i]:
            w.halt(i)
        elif w.orders[i][0].ability_id == ATTACK:
            self.complete(i)

    def arrived(self, tags: list[int], late: list[int]) -> None:
        """Units whose movement leg ended (`late` loops before now): advance what their order does next."""
        g, w = self.game, self.world
        for tag, loops in zip(tags, late):
            if not w.exists(tag):
                continue
            i = w.slot(tag)
            if w.engaged[i] or not w.orders[i]:
                continue  # chasing a target (combat decides), or an idle unit pushed about
            order = w.orders[i][0]
            ability = order.ability_id
            if ability == PATROL and order.point is not None and order.origin is not None:
                order.point, order.origin = order.origin, order.point
                w.move_to(i, point=order.point)
            elif (
                ability == MOVE and order.target_tag and w.exists(order.target_tag) and len(w.orders[i]) == 1
            ):
                # The order stays: it follows the unit on (with orders queued behind it, it ends here).
                j = w.slot(order.target_tag)
                if w.moving[j] and self._out_of_reach(i, j):  # reached where the unit was: after it again
                    w.move_to(i, tag=order.target_tag, reach=_FOLLOW_REACH)
                else:
                    self.following[tag] = tuple(w.pos[j].tolist())
            elif ability in _MOVEMENT:
                self.complete(i)
            elif ability in (GATHER, RETURN, REPAIR):
                g.economy.arrived(i, loops)
            elif ABILITIES[ability].building:
                g.building.arrived(i)

    def follow(self) -> bool:
        """Keep followers with their units (before each batch): one left out of reach by a unit that walks on
        sets off after it again; the order of one whose unit is gone ends. Returns whether some follower
        is walking after a unit that moves (to re-aim it again soon)."""
        w = self.world
        chasing = False
        for tag, seen in list(self.following.items()):
            i = w.slot(tag) if w.exists(tag) else -1
            order = w.orders[i][0] if i >= 0 and w.orders[i] else None
            if order is None or order.ability_id != MOVE or not order.target_tag:
                del self.following[tag]  # given another order meanwhile
                continue
            if not w.exists(order.target_tag) or w.hidden[w.slot(order.target_tag)]:
                del self.following[tag]
                self.complete(i)
                continue
            j = w.slot(order.target_tag)
            if seen is None:  # walking to it
                chasing = chasing or bool(w.moving[j])
                continue
            now = tuple(w.pos[j].tolist())
            self.following[tag] = now
            # Only a unit that walks on (under way, or gone further than a push between batches moves one)
            # draws its followers after it: crowding followers that shove it must not make it wander.
            walked = w.moving[j] or math.dist(seen, now) > _FOLLOW_SLACK
            if walked and self._out_of_reach(i, j):
                self.following[tag] = None
                w.move_to(i, tag=order.target_tag, reach=_FOLLOW_REACH)
                chasing = True
        return chasing

    def _out_of_reach(self, i: int, j: int) -> bool:
        """Whether row i stands further than a follower keeps from row j (edge to edge, plus slack)."""
        w = self.world
        gap = math.dist(w.pos[i].tolist(), w.pos[j].tolist()) - float(w.radius[i]) - float(w.radius[j])
        return gap > _FOLLOW_REACH + _FOLLOW_SLACK

    def forget(self, tag: int) -> None:
        self.rally.pop(tag, None)
        self.following.pop(tag, None)
