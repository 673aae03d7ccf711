"""The built-in AI's economy on melee maps: SCVs mining, Supply Depots ahead of supply, Barracks, training.

Each decision reads the AI's own units and the player's purse (no fog question: all of it is its own) and
gives raw commands through `Game.act` (so they are in the input log and replays), spending only what it has
left after the buildings its SCVs are walking to build. No randomness: sites are picked in a fixed order.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from s2clientprotocol import raw_pb2
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env.engine.building import BUILT_BY
from sc2env.engine.game import Game
from sc2env.engine.orders import GATHER
from sc2env.engine.type_tables import MINERAL_FIELD_TYPES
from sc2env.gamedata import UnitType, unit_type_by_name

SCV = unit_type_by_name("SCV")
MARINE = unit_type_by_name("Marine")
COMMAND_CENTER = unit_type_by_name("CommandCenter")
SUPPLY_DEPOT = unit_type_by_name("SupplyDepot")
BARRACKS = unit_type_by_name("Barracks")
RALLY = 195  # Rally_Building: where a Barracks sends the units it trains
_SUPPLY_CAP = 200
_SITE_REACH = 14  # how far from its Command Center it looks for a building site (cells)
_RAMP_ROOM = 3  # cells it keeps between its buildings and a ramp, so that an army passes beside them


@dataclass(frozen=True)
class EconomyPlan:
    """How one difficulty runs its base. `workers`: SCVs it trains up to; `barracks`: how many it builds;
    `supply_margin`: the free supply at which it starts the next Supply Depot (0 waits until blocked);
    `queue`: units it keeps queued per producer (1 trains one at a time, with a gap between)."""

    workers: int
    barracks: int
    supply_margin: int
    queue: int


def command(
    game: Game,
    tags: list[int],
    ability: int,
    point: tuple[float, float] | None = None,
    target: int | None = None,
    queued: bool = False,
) -> None:
    """Give the units one raw command, as a player's client would (it goes into the input log)."""
    cmd = raw_pb2.ActionRawUnitCommand(ability_id=ability, unit_tags=tags, queue_command=queued)
    if target is not None:
        cmd.target_unit_tag = target
    elif point is not None:
        cmd.target_world_space_pos.x, cmd.target_world_space_pos.y = float(point[0]), float(point[1])
    game.act(sc_pb.Action(action_raw=raw_pb2.ActionRaw(unit_command=cmd)))


class BuildOrder:
    """One AI player's base: `decide(game, rally)` mines, builds and trains once; trained units go to
    `rally`. Call it inside `game.viewing(player_id)`."""

    def __init__(self, player_id: int, plan: EconomyPlan) -> None:
        self.player_id = player_id
        self.plan = plan

    def decide(self, game: Game, rally: tuple[float, float]) -> None:
        w, me = game.world, self.player_id
        mine = (w.owner == me) & ~w.hidden
        if not mine.any():
            return
        budget = game.players[me].minerals - self._reserved(game)
        halls = self._finished(game, COMMAND_CENTER)
        scvs = np.flatnonzero(mine & (w.type_id == SCV.unit_id))
        self._gather(game, scvs, halls)
        used, cap = game.production.food(me)
        # Supply first (a blocked base trains nothing; the first depot opens the Barracks), then SCVs, Barracks
        # and Marines, each while the minerals last.
        first_depot = self._count(game, SUPPLY_DEPOT) == 0
        short = cap < _SUPPLY_CAP and cap - used <= self.plan.supply_margin
        if (short or first_depot) and not self._building(game, SUPPLY_DEPOT):
            budget -= self._build(game, scvs, halls, SUPPLY_DEPOT, budget)
        in_training = sum(1 for i in halls for o in w.orders[i] if o.ability_id == SCV.build_ability)
        if len(scvs) + in_training < self.plan.workers:
            budget -= self._train(game, halls, SCV, budget, used, cap)
        depot_done = bool(self._finished(game, SUPPLY_DEPOT))
        if depot_done and self._count(game, BARRACKS) < self.plan.barracks:
            budget -= self._build(game, scvs, halls, BARRACKS, budget)
        barracks = self._finished(game, BARRACKS)
        self._rally(game, barracks, rally)
        self._train(game, barracks, MARINE, budget, used, cap)

    # ---- what it has ----------------------------------------------------------------------------------
    def _finished(self, game: Game, kind: UnitType) -> list[int]:
        w = game.world
        return np.flatnonzero(
            (w.owner == self.player_id) & (w.type_id == kind.unit_id) & (w.build_progress >= 1)
        ).tolist()

    def _count(self, game: Game, kind: UnitType) -> int:
        """Structures of `kind` standing (finished or not) plus those its SCVs are on their way to build."""
        w = game.world
        standing = int(((w.owner == self.player_id) & (w.type_id == kind.unit_id)).sum())
        return standing + len(self._walking_to_build(game, kind))

    def _building(self, game: Game, kind: UnitType) -> bool:
        """Whether a structure of `kind` is under construction or an SCV is on its way to start one."""
        w = game.world
        unfinished = (w.owner == self.player_id) & (w.type_id == kind.unit_id) & (w.build_progress < 1)
        return bool(unfinished.any()) or bool(self._walking_to_build(game, kind))

    def _walking_to_build(self, game: Game, kind: UnitType | None = None) -> list[UnitType]:
        """The structures its SCVs have been ordered to build and have not placed yet (not paid for yet)."""
        w = game.world
        out = []
        for i in np.flatnonzero((w.owner == self.player_id) & (w.type_id == SCV.unit_id)).tolist():
            orders = w.orders[i]
            if orders and orders[0].ability_id in BUILT_BY and not game.building.constructing(i):
                t = BUILT_BY[orders[0].ability_id]
                if kind is None or t is kind:
                    out.append(t)
        return out

    def _reserved(self, game: Game) -> int:
        return sum(t.mineral_cost for t in self._walking_to_build(game))

    # ---- what it does ---------------------------------------------------------------------------------
    def _gather(self, game: Game, scvs: np.ndarray, halls: list[int]) -> None:
        """Idle SCVs mine the fields nearest a Command Center, spread over them in turn."""
        w = game.world
        idle = [int(w.tag[i]) for i in scvs.tolist() if not w.orders[i]]
        fields = self._fields(game, halls)
        if not idle or not len(fields):
            return
        for n, tag in enumerate(idle):
            command(game, [tag], GATHER, target=int(w.tag[fields[n % len(fields)]]))

    def _fields(self, game: Game, halls: list[int]) -> np.ndarray:
        """The rows of the mineral fields within 10 of its first Command Center, nearest first."""
        w = game.world
        if not halls:
            return np.empty(0, int)
        rows = np.flatnonzero(MINERAL_FIELD_TYPES[w.type_id])
        gap = np.hypot(*(w.pos[rows] - w.pos[halls[0]]).T)
        near = rows[gap <= 10]
        return near[np.lexsort((w.tag[near], gap[gap <= 10]))]

    def _build(self, game: Game, scvs: np.ndarray, halls: list[int], kind: UnitType, budget: float) -> int:
        """Send the SCV nearest a free site to build `kind` there; returns the minerals it will take."""
        if budget < kind.mineral_cost or not halls:
            return 0
        site = self._site(game, halls[0], kind)
        w = game.world
        # A builder: an SCV that carries nothing and is not building (a mining one, or an idle one).
        free = [
            i
            for i in scvs.tolist()
            if not w.cargo[i] and not (w.orders[i] and w.orders[i][0].ability_id in BUILT_BY)
        ]
        if site is None or not free:
            return 0
        builder = min(free, key=lambda i: (float(np.hypot(*(w.pos[i] - site))), int(w.tag[i])))
        command(game, [int(w.tag[builder])], kind.build_ability, point=site)
        return kind.mineral_cost

    def _site(self, game: Game, hall: int, kind: UnitType) -> tuple[float, float] | None:
        """The free site for `kind` nearest its Command Center on the side away from the minerals, with a
        cell of room all round (so units walk between buildings), on the Command Center's own level (not
        below its cliff) and _RAMP_ROOM cells off any ramp (so it never walls its own way out), or None."""
        w, building, terrain = game.world, game.building, game.terrain
        centre = w.pos[hall]
        level = terrain.heights[int(centre[1]), int(centre[0])]
        ramps = terrain.pathable & ~terrain.buildable  # walkable ground no building may stand on
        fields = self._fields(game, [hall])
        away = centre - (w.pos[fields].mean(axis=0) if len(fields) else centre)
        offsets = sorted(
            (
                (dx, dy)
                for dx in range(-_SITE_REACH, _SITE_REACH + 1)
                for dy in range(-_SITE_REACH, _SITE_REACH + 1)
            ),
            key=lambda o: (o[0] ** 2 + o[1] ** 2, o),
        )
        rows, cols = building.buildable.shape
        for dx, dy in offsets:
            if dx * away[0] + dy * away[1] < 0:  # the mineral side: keep the mining paths clear
                continue
            cx, cy = building.snap(kind, centre[0] + dx, centre[1] + dy)
            x0, y0, x1, y1 = building.cells(kind, cx, cy)
            if x0 < 1 or y0 < 1 or x1 + 1 > cols or y1 + 1 > rows:
                continue
            if building.occupied[y0 - 1 : y1 + 1, x0 - 1 : x1 + 1].any():
                continue
            if (terrain.heights[y0:y1, x0:x1] != level).any():
                continue
            r0, r1 = max(y0 - _RAMP_ROOM, 0), y1 + _RAMP_ROOM
            if ramps[r0:r1, max(x0 - _RAMP_ROOM, 0) : x1 + _RAMP_ROOM].any():
                continue
            if building.placement_error(kind, cx, cy, self.player_id) == 1:  # Success
                return cx, cy
        return None

    def _train(
        self, game: Game, producers: list[int], kind: UnitType, budget: float, used: float, cap: float
    ) -> int:
        """Queue `kind` at producers with room in the plan's queue, while minerals and supply last."""
        w = game.world
        spent = 0
        for i in producers:
            queued = len(w.orders[i])
            while (
                queued < self.plan.queue
                and budget - spent >= kind.mineral_cost
                and used + kind.food_required <= cap
            ):
                command(game, [int(w.tag[i])], kind.build_ability)
                spent += kind.mineral_cost
                used += kind.food_required
                queued += 1
        return spent

    def _rally(self, game: Game, barracks: list[int], rally: tuple[float, float]) -> None:
        """Barracks without a rally send their units to `rally`."""
        w = game.world
        unset = [int(w.tag[i]) for i in barracks if int(w.tag[i]) not in game.orders.rally]
        if unset:
            command(game, unset, RALLY, point=rally)
