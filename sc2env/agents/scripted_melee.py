"""Simple64: a scripted Terran melee agent on raw actions (mine, depots, Barracks, Marines, attack in waves)."""

from __future__ import annotations

from types import MappingProxyType
from typing import TYPE_CHECKING

import numpy as np

from sc2env.agents.base import Action, ScriptedAgent
from sc2env.agents.base_ground import BaseGround
from sc2env.errors import SC2EnvError
from sc2env.gamedata.unit_ids import Neutral, Terran
from sc2env.interface import RAW_FUNCTIONS, FeatureUnit, Observation
from sc2env.interface.transforms import MapInfo

if TYPE_CHECKING:
    from sc2env.env.env import SC2Env

_SELF, _ENEMY, _NEUTRAL = 1, 4, 3  # raw alliance values
_MINERALS = (Neutral.MineralField.value, Neutral.MineralField750.value)
_WORKERS, _BARRACKS, _WAVE = 16, 4, 12  # SCVs it trains, Barracks it builds, Marines in a wave
_SUPPLY_MARGIN = 4  # free supply at which it starts the next depot
_DEFEND = 15.0  # raw units round its buildings where an enemy draws the whole army back
_BUILD_ABILITIES = (
    319,
    321,
)  # Build_SupplyDepot, Build_Barracks: an SCV on its way to build has these orders
_STRUCTURE_TYPES = frozenset(
    t.value for t in (Terran.CommandCenter, Terran.SupplyDepot, Terran.SupplyDepotLowered, Terran.Barracks)
) | frozenset(t.value for t in (Terran.Refinery, Terran.EngineeringBay))


class Simple64(ScriptedAgent):
    """Plays Terran on Simple64 with one raw action a step, the most urgent first: idle SCVs back to the
    minerals, a Supply Depot before supply runs out, SCVs up to 16, four Barracks, Marines without pause; the
    Marines gather at the ramp side of the base and attack-move in waves of 12, first to the enemy's start,
    then to every enemy building they have seen, then round the map's bases. An enemy near its buildings
    draws every Marine home.

    It reads only what its own observation shows (raw units under fog of war, `game_info`'s start
    locations); building sites are tried in a fixed pattern behind its Command Center, and a site the game
    refuses is not tried again.
    """

    env_kwargs = MappingProxyType({"actions": "raw"})
    actions = ("raw",)
    _REPEAT_STEPS = 16  # steps between re-issuing the wave's attack to its idle Marines

    def setup(self, env: SC2Env) -> None:
        if env.raw_space is None or env.game_info is None or env.transforms is None:
            raise ValueError("Simple64's script plays with actions='raw', set up after the env's first reset")
        self._env = env
        # game_info gives the start locations in world units; raw units stand in raw coordinates.
        starts = env.game_info.start_raw.start_locations
        world = np.array([(p.x, p.y) for p in starts], float).reshape(-1, 2)
        self._starts = env.transforms.world_to_raw.fwd(world) if len(world) else world
        self._map = MapInfo.from_game_info(env.game_info)
        self._to_raw = env.transforms.world_to_raw

    def reset(self) -> None:
        self._home: np.ndarray | None = None  # its Command Center's place (raw), at the first step
        self._ground: BaseGround | None = None  # the ground round it: its level, its ramp, where sites fit
        self._refused: set[tuple[int, int]] = set()  # sites the game refused
        self._pending: dict[int, tuple[int, int]] = {}  # SCV tag -> the site it was sent to build on
        self._seen: dict[int, tuple[float, float]] = {}  # enemy buildings seen, by tag
        self._wave: set[int] = set()  # Marines out on an attack
        self._rallied: set[int] = set()  # Barracks whose rally it has set
        self._search = 0
        self._since = 0  # steps since the wave's attack was last given
        self._held = 0  # steps the home army has been fighting without a new order

    # ---- the step ---------------------------------------------------------------------------------------
    def step(self, obs: Observation) -> Action:
        if self._env.raw_masks is None or obs.raw_units is None:
            raise SC2EnvError(
                "Simple64's script reads raw units and the raw masks: play it with actions='raw'"
            )
        u = np.asarray(obs.raw_units)
        if not len(u):
            return RAW_FUNCTIONS.no_op()
        own = u[:, FeatureUnit.alliance] == _SELF
        kind = u[:, FeatureUnit.unit_type]
        halls = np.flatnonzero(own & (kind == Terran.CommandCenter.value))
        if self._home is None and len(halls):
            self._home = u[halls[0], [FeatureUnit.x, FeatureUnit.y]].astype(float)
            x, y = self._to_raw.back(self._home[None])[0].tolist()
            self._ground = BaseGround.of(self._map, (x, y))
        if self._home is None:
            return RAW_FUNCTIONS.no_op()
        self._remember(u)
        for choose in (
            self._defend,
            self._gather,
            self._supply,
            self._workers,
            self._barracks,
            self._marines,
        ):
            action = choose(obs, u)
            if action is not None:
                return action
        return self._attack(u) or RAW_FUNCTIONS.no_op()

    # ---- economy ----------------------------------------------------------------------------------------
    def _gather(self, obs: Observation, u: np.ndarray) -> Action | None:
        scvs = self._own(u, Terran.SCV.value)
        idle = scvs[u[scvs, FeatureUnit.order_length] == 0]
        if not len(idle):
            return None
        fields = self._fields(u)
        if not len(fields):
            return None
        # The field with the fewest SCVs sent this way lately: spread the idle ones round the line.
        target = fields[int(u[idle[0], FeatureUnit.tag]) % len(fields)]
        return RAW_FUNCTIONS.Harvest_Gather_unit("now", [int(idle[0])], int(target))

    def _supply(self, obs: Observation, u: np.ndarray) -> Action | None:
        player = obs.player
        used, cap, minerals = int(player.food_used), int(player.food_cap), int(player.minerals)
        depots = self._own(u, Terran.SupplyDepot.value, Terran.SupplyDepotLowered.value)
        if (len(depots) and (cap >= 200 or cap - used > _SUPPLY_MARGIN)) or minerals < 100:
            return None
        if (u[depots, FeatureUnit.build_progress] < 100).any() or self._walking(u, 319):
            return None
        return self._build(u, RAW_FUNCTIONS.Build_SupplyDepot_pt, 2)

    def _workers(self, obs: Observation, u: np.ndarray) -> Action | None:
        halls = self._own(u, Terran.CommandCenter.value)
        scvs = len(self._own(u, Terran.SCV.value))
        idle = halls[
            (u[halls, FeatureUnit.order_length] == 0) & (u[halls, FeatureUnit.build_progress] >= 100)
        ]
        if not len(idle) or scvs >= _WORKERS or obs.player.minerals < 50 or not self._supply_left(obs, 1):
            return None
        return RAW_FUNCTIONS.Train_SCV_quick("now", [int(idle[0])])

    def _barracks(self, obs: Observation, u: np.ndarray) -> Action | None:
        depots = self._own(u, Terran.SupplyDepot.value, Terran.SupplyDepotLowered.value)
        barracks = self._own(u, Terran.Barracks.value)
        done = barracks[u[barracks, FeatureUnit.build_progress] >= 100]
        unset = [i for i in done.tolist() if int(u[i, FeatureUnit.tag]) not in self._rallied]
        if unset:
            self._rallied.add(int(u[unset[0], FeatureUnit.tag]))
            return RAW_FUNCTIONS.Rally_Units_pt("now", [int(unset[0])], self._rally_point())
        if (
            not (u[depots, FeatureUnit.build_progress] >= 100).any()
            or len(barracks) + self._walking(u, 321) >= _BARRACKS
            or obs.player.minerals < 150
        ):
            return None
        return self._build(u, RAW_FUNCTIONS.Build_Barracks_pt, 3)

    def _marines(self, obs: Observation, u: np.ndarray) -> Action | None:
        barracks = self._own(u, Terran.Barracks.value)
        idle = barracks[
            (u[barracks, FeatureUnit.order_length] == 0) & (u[barracks, FeatureUnit.build_progress] >= 100)
        ]
        if not len(idle) or obs.player.minerals < 50 or not self._supply_left(obs, 1):
            return None
        return RAW_FUNCTIONS.Train_Marine_quick("now", [int(idle[0])])

    # ---- army -------------------------------------------------------------------------------------------
    def _defend(self, obs: Observation, u: np.ndarray) -> Action | None:
        """Every Marine onto the enemy nearest its buildings, when one comes within `_DEFEND` of them."""
        marines = self._own(u, Terran.Marine.value)
        enemies = np.flatnonzero(u[:, FeatureUnit.alliance] == _ENEMY)
        buildings = np.flatnonzero(
            (u[:, FeatureUnit.alliance] == _SELF)
            & np.isin(u[:, FeatureUnit.unit_type], list(_STRUCTURE_TYPES))
        )
        if not len(marines) or not len(enemies) or not len(buildings):
            return None
        xy = u[:, [FeatureUnit.x, FeatureUnit.y]].astype(float)
        gap = np.linalg.norm(xy[enemies][:, None] - xy[buildings][None], axis=2).min(axis=1)
        if gap.min() > _DEFEND:
            return None
        target = xy[enemies[int(np.argmin(gap))]]
        home = [i for i in marines.tolist() if int(u[i, FeatureUnit.tag]) not in self._wave]
        idle = [i for i in home if u[i, FeatureUnit.order_length] == 0]  # these first; the others fight on
        if not home:
            return None
        self._held += 1
        if not idle and self._held % 4:
            return None
        return RAW_FUNCTIONS.Attack_pt("now", idle or home, (int(target[0]), int(target[1])))

    def _attack(self, u: np.ndarray) -> Action | None:
        marines = self._own(u, Terran.Marine.value)
        tags = u[:, FeatureUnit.tag].astype(np.int64)
        self._wave &= {int(t) for t in tags[marines]}
        if self._wave and len(self._wave) < _WAVE // 3:
            self._wave = set()  # spent: the survivors wait for the next wave with the others
        if not self._wave:
            if len(marines) < _WAVE:
                return None
            self._wave = {int(t) for t in tags[marines]}
        else:
            self._wave |= {int(t) for t in tags[marines]}  # reinforcements follow
        rows = [i for i in marines.tolist() if int(tags[i]) in self._wave]
        idle = [i for i in rows if u[i, FeatureUnit.order_length] == 0]
        self._since += 1
        if not idle and self._since < self._REPEAT_STEPS:
            return None
        self._since = 0
        goal = self._target(u, rows)
        return RAW_FUNCTIONS.Attack_pt("now", idle or rows, (int(goal[0]), int(goal[1])))

    def _target(self, u: np.ndarray, rows: list[int]) -> np.ndarray:
        """The nearest enemy building it knows of, else the enemy's start, then each base in turn."""
        centre = u[rows][:, [FeatureUnit.x, FeatureUnit.y]].astype(float).mean(axis=0)
        if self._seen:
            spots = np.array(list(self._seen.values()))
            return spots[int(np.argmin(np.linalg.norm(spots - centre, axis=1)))]
        points = self._search_points(u)
        goal = points[self._search % len(points)]
        if np.linalg.norm(centre - goal) < 4:
            self._search += 1
            goal = points[self._search % len(points)]
        return goal

    def _remember(self, u: np.ndarray) -> None:
        """Keep the enemy buildings in sight; drop those no longer there when their place is in sight."""
        enemy = u[:, FeatureUnit.alliance] == _ENEMY
        building = np.isin(u[:, FeatureUnit.unit_type], list(_STRUCTURE_TYPES))
        visible = {int(t) for t in u[enemy, FeatureUnit.tag]}
        for i in np.flatnonzero(enemy & building).tolist():
            self._seen[int(u[i, FeatureUnit.tag])] = (float(u[i, FeatureUnit.x]), float(u[i, FeatureUnit.y]))
        own = u[u[:, FeatureUnit.alliance] == _SELF][:, [FeatureUnit.x, FeatureUnit.y]].astype(float)
        for tag, spot in list(self._seen.items()):
            if tag not in visible and len(own) and np.linalg.norm(own - spot, axis=1).min() < 6:
                del self._seen[tag]  # one of its units stands by the place and sees nothing there

    # ---- helpers ----------------------------------------------------------------------------------------
    @staticmethod
    def _own(u: np.ndarray, *types: int) -> np.ndarray:
        return np.flatnonzero(
            (u[:, FeatureUnit.alliance] == _SELF) & np.isin(u[:, FeatureUnit.unit_type], types)
        )

    def _walking(self, u: np.ndarray, ability: int) -> int:
        """How many of its SCVs are on their way to build with `ability` (their first order)."""
        scvs = self._own(u, Terran.SCV.value)
        return int((u[scvs, FeatureUnit.order_id_0] == ability).sum())

    @staticmethod
    def _supply_left(obs: Observation, need: int) -> bool:
        return int(obs.player.food_cap) - int(obs.player.food_used) >= need

    def _fields(self, u: np.ndarray) -> np.ndarray:
        """Rows of the mineral fields within 10 of its Command Center, nearest first."""
        assert self._home is not None
        rows = np.flatnonzero(np.isin(u[:, FeatureUnit.unit_type], _MINERALS))
        gap = np.linalg.norm(u[rows][:, [FeatureUnit.x, FeatureUnit.y]] - self._home, axis=1)
        return rows[gap <= 10][np.argsort(gap[gap <= 10], kind="stable")]

    def _build(self, u: np.ndarray, function, size: int) -> Action | None:
        """Send a mining SCV to build at the next free site behind the Command Center."""
        site = self._site(u, size)
        scvs = self._own(u, Terran.SCV.value)
        free = scvs[~np.isin(u[scvs, FeatureUnit.order_id_0], _BUILD_ABILITIES)]
        if site is None or not len(free):
            return None
        xy = u[free][:, [FeatureUnit.x, FeatureUnit.y]].astype(float)
        builder = int(free[int(np.argmin(np.linalg.norm(xy - site, axis=1)))])
        self._pending[int(u[builder, FeatureUnit.tag])] = site
        return function("now", [builder], site)

    def _site(self, u: np.ndarray, size: int) -> tuple[int, int] | None:
        """The nearest spot behind the Command Center (away from its minerals) with room for a `size` square
        and a cell all round, clear of every unit it sees and of sites refused before, on its base's level and
        clear of its ramp (game_info's grids)."""
        assert self._home is not None
        fields = self._fields(u)
        xy = u[:, [FeatureUnit.x, FeatureUnit.y]].astype(float)
        away = self._home - (xy[fields].mean(axis=0) if len(fields) else self._home)
        # Sites the last builders went to and no longer build at (the game refused them) are not tried again.
        for tag, spot in list(self._pending.items()):
            rows = np.flatnonzero(u[:, FeatureUnit.tag] == tag)
            if not len(rows) or u[rows[0], FeatureUnit.order_id_0] not in _BUILD_ABILITIES:
                del self._pending[tag]
                if not self._standing_at(u, spot):
                    self._refused.add(spot)
        radius = u[:, FeatureUnit.radius].astype(float)
        static = u[:, FeatureUnit.unit_type] != Terran.SCV.value
        offsets = sorted(
            ((dx, dy) for dx in range(-12, 13) for dy in range(-12, 13)),
            key=lambda o: (o[0] ** 2 + o[1] ** 2, o),
        )
        for dx, dy in offsets:
            if dx * away[0] + dy * away[1] <= 0:
                continue
            spot = (int(self._home[0]) + dx, int(self._home[1]) + dy)
            if spot in self._refused or spot in self._pending.values():
                continue
            reach = np.abs(xy[static] - spot).max(axis=1) - radius[static]
            if (reach < size / 2 + 1.5).any():
                continue
            if self._ground is not None and not self._ground.site_fits(self._world(spot), size):
                continue
            return spot
        return None

    @staticmethod
    def _standing_at(u: np.ndarray, spot: tuple[int, int]) -> bool:
        own = (u[:, FeatureUnit.alliance] == _SELF) & np.isin(
            u[:, FeatureUnit.unit_type], list(_STRUCTURE_TYPES)
        )
        return bool(
            len(u[own]) and (np.abs(u[own][:, [FeatureUnit.x, FeatureUnit.y]] - spot).max(axis=1) < 2).any()
        )

    def _world(self, spot: tuple[int, int]) -> tuple[float, float]:
        x, y = self._to_raw.back(np.array([spot], float))[0].tolist()
        return x, y

    def _rally_point(self) -> tuple[int, int]:
        """Where the next wave gathers: its ramp's top, else a third of the way from its base towards the
        enemy's start."""
        assert self._home is not None
        if self._ground is not None and self._ground.ramp_top is not None:
            x, y = self._to_raw.fwd(np.array([self._ground.ramp_top]))[0].tolist()
            return int(x), int(y)
        enemy = self._enemy_start()
        point = self._home + (enemy - self._home) / 3
        return int(point[0]), int(point[1])

    def _enemy_start(self) -> np.ndarray:
        assert self._home is not None
        if not len(self._starts):
            return self._home
        gap = np.linalg.norm(self._starts - self._home, axis=1)
        return self._starts[int(np.argmax(gap))]  # the start locations listed, the one not its own

    def _search_points(self, u: np.ndarray) -> list[np.ndarray]:
        """The enemy's start, then the middle of each group of mineral fields it sees (the bases)."""
        points = [self._enemy_start()]
        rows = np.flatnonzero(np.isin(u[:, FeatureUnit.unit_type], _MINERALS))
        xy = u[rows][:, [FeatureUnit.x, FeatureUnit.y]].astype(float)
        taken = np.zeros(len(xy), bool)
        for n in range(len(xy)):
            if not taken[n]:
                group = ~taken & (np.linalg.norm(xy - xy[n], axis=1) <= 10)
                taken |= group
                points.append(xy[group].mean(axis=0))
        return points
