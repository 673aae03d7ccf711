"""The rest of SMAC's public surface: its per-unit helpers and attributes, for code written against SMAC."""

from __future__ import annotations

import math
import operator
from typing import TYPE_CHECKING, Any

import numpy as np
from s2clientprotocol import raw_pb2

from sc2env import errors
from sc2env.smac import features
from sc2env.smac.layout import SHOOT_RANGE, SIGHT_RANGE, Layout
from sc2env.smac.unit_kinds import DEFAULT_MAX_COOLDOWN, KIND_OF_REAL_ID, KINDS, MedivacRule

if TYPE_CHECKING:
    from sc2env.smac.episode import Roster
    from sc2env.smac.grids import MapGrids
    from sc2env.smac.unit_kinds import MapFamily, UnitTypes


def _kind_id_property(kind: str) -> property:
    def get(self: SmacUnitMethods) -> int:
        return self._types.type_id(kind) if self._types is not None else 0

    return property(
        get, doc=f"The game's type id of the agents' {kind}s (0 before the first reset or if none)."
    )


class SmacUnitMethods:
    """SMAC's helpers that take one unit (a raw `Unit` message, as `agents` and `enemies` hold) or one id, and
    its attributes (`agents`, `enemies`, `marine_id`, `map_x`, `pathing_grid`, ...). StarCraft2Env computes
    everything for all agents at once; these give the same answers one unit at a time."""

    if TYPE_CHECKING:
        layout: Layout
        map_name: str
        n_agents: int
        _move_amount: float
        _types: UnitTypes | None
        _family: MapFamily
        _grids: MapGrids | None
        _roster: Roster | None
        _unit_types: list[int] | None

    marine_id = _kind_id_property("marine")
    marauder_id = _kind_id_property("marauder")
    medivac_id = _kind_id_property("medivac")
    stalker_id = _kind_id_property("stalker")
    zealot_id = _kind_id_property("zealot")
    colossus_id = _kind_id_property("colossus")
    hydralisk_id = _kind_id_property("hydralisk")
    zergling_id = _kind_id_property("zergling")
    baneling_id = _kind_id_property("baneling")

    # --- the env's parts, checked ---------------------------------------------------------------------

    def _roster_now(self) -> Roster:
        if self._roster is None:
            raise errors.ProtocolError("there is no episode yet: call reset() first")
        return self._roster

    def _map(self) -> MapGrids:
        if self._grids is None:
            raise errors.ProtocolError("there is no game yet: call reset() first")
        return self._grids

    def _agent(self, agent_id: int) -> int:
        index = operator.index(agent_id)
        if not 0 <= index < self.n_agents:
            raise IndexError(f"agent ids on {self.map_name} are 0 to {self.n_agents - 1}, not {agent_id!r}")
        return index

    # --- attributes ----------------------------------------------------------------------------------

    @property
    def agents(self) -> dict[int, raw_pb2.Unit]:
        """Each agent's last raw `Unit` (a dead one's with health 0), by agent id."""
        return dict(enumerate(self._roster_now().agents.messages)) if self._roster is not None else {}

    @property
    def enemies(self) -> dict[int, raw_pb2.Unit]:
        """Each enemy's last raw `Unit` (a dead one's with health 0), by enemy id."""
        return dict(enumerate(self._roster_now().enemies.messages)) if self._roster is not None else {}

    @property
    def _min_unit_type(self) -> int:
        return min(self._types.ally_kinds) if self._types is not None else 0

    @property
    def map_x(self) -> int:
        return self._grids.map_x if self._grids is not None else 0

    @property
    def map_y(self) -> int:
        return self._grids.map_y if self._grids is not None else 0

    @property
    def max_distance_x(self) -> float:
        return self._grids.max_distance_x if self._grids is not None else 0

    @property
    def max_distance_y(self) -> float:
        return self._grids.max_distance_y if self._grids is not None else 0

    @property
    def pathing_grid(self) -> np.ndarray | None:
        return self._grids.pathing if self._grids is not None else None

    @property
    def terrain_height(self) -> np.ndarray | None:
        return self._grids.terrain_height if self._grids is not None else None

    # --- sizes ---------------------------------------------------------------------------------------

    def get_obs_move_feats_size(self) -> int:
        return self.layout.move_feats

    def get_obs_enemy_feats_size(self) -> tuple[int, int]:
        return self.layout.n_enemies, self.layout.enemy_feats

    def get_obs_ally_feats_size(self) -> tuple[int, int]:
        return self.layout.n_agents - 1, self.layout.ally_feats

    def get_obs_own_feats_size(self) -> int:
        """The own features, counting the progress slot SMAC gives obs_timestep_number here."""
        return self.layout.own_feats + self.layout.options.obs_timestep_number

    def get_ally_num_attributes(self) -> int:
        return len(self.layout.ally_state_names)

    def get_enemy_num_attributes(self) -> int:
        return len(self.layout.enemy_state_names)

    # --- one unit at a time --------------------------------------------------------------------------

    @staticmethod
    def distance(x1: float, y1: float, x2: float, y2: float) -> float:
        return math.hypot(x2 - x1, y2 - y1)

    def unit_shoot_range(self, agent_id: int) -> float:
        """6 (SMAC), or with SMACv2's use_unit_ranges the agent's kind's range, at least min_attack_range."""
        if self._roster is None:
            return SHOOT_RANGE
        return float(self._roster_now().plan.shoot[self._agent(agent_id)])

    def unit_sight_range(self, agent_id: int) -> float:
        """9 (SMAC), or with SMACv2's use_unit_ranges the agent's kind's sight range."""
        if self._roster is None:
            return SIGHT_RANGE
        return float(self._roster_now().plan.sight[self._agent(agent_id)])

    def get_unit_by_id(self, a_id: int) -> raw_pb2.Unit:
        return self._roster_now().agents.message(self._agent(a_id))

    def get_unit_types(self) -> list[int] | None:
        """The unit type of each agent, then of each enemy (None before the first reset)."""
        return self._unit_types

    def _kind(self, unit: raw_pb2.Unit) -> str | None:
        if self._types is not None and unit.unit_type in self._types.ally_kinds:
            return self._types.ally_kinds[unit.unit_type]
        return KIND_OF_REAL_ID.get(unit.unit_type)

    def unit_max_cooldown(self, unit: raw_pb2.Unit) -> float:
        """SMAC's cooldown normaliser; it knows only the agents' own types (others get the default)."""
        if self._types is not None and unit.unit_type in self._types.ally_kinds:
            return KINDS[self._types.ally_kinds[unit.unit_type]].max_cooldown
        return DEFAULT_MAX_COOLDOWN

    def unit_max_shield(self, unit: raw_pb2.Unit) -> float | None:
        """SMAC's shield normaliser (None for a unit without shields)."""
        kind = self._kind(unit)
        return KINDS[kind].max_shield or None if kind else None

    def get_unit_type_id(self, unit: raw_pb2.Unit, ally: bool) -> int:
        """The unit's index in the type one-hot (`ally`: one of the agents)."""
        types = self._types
        if types is None:
            raise errors.ProtocolError("unit types are known after the first reset()")
        if ally:
            return int(types.ally_one_hot_index(types.ally_kinds_of(np.array([unit.unit_type])))[0])
        return int(types.enemy_one_hot_index(np.array([unit.unit_type]))[0])

    def check_bounds(self, x: int, y: int) -> bool:
        grids = self._map()
        return 0 <= x < grids.map_x and 0 <= y < grids.map_y

    def can_move(self, unit: raw_pb2.Unit, direction: int) -> bool:
        """Whether the unit may move north (0), south (1), east (2) or west (3)."""
        x, y = features.move_probes(np.array([unit.pos.x]), np.array([unit.pos.y]), self._move_amount)
        return bool(self._map().walkable(x[0, direction], y[0, direction]))

    def get_surrounding_points(self, unit: raw_pb2.Unit, include_self: bool = False) -> list[tuple[int, int]]:
        x, y = features.surrounding_cells(
            np.array([unit.pos.x]), np.array([unit.pos.y]), self._move_amount, include_self
        )
        return list(zip(x[0].tolist(), y[0].tolist()))

    def get_surrounding_pathing(self, unit: raw_pb2.Unit) -> list[float]:
        x, y = self._surrounding(unit, include_self=False)
        return self._map().pathing_feature(x, y).tolist()

    def get_surrounding_height(self, unit: raw_pb2.Unit) -> list[float]:
        x, y = self._surrounding(unit, include_self=True)
        return self._map().height_feature(x, y).tolist()

    def _surrounding(self, unit: raw_pb2.Unit, include_self: bool) -> tuple[np.ndarray, np.ndarray]:
        x, y = features.surrounding_cells(
            np.array([unit.pos.x]), np.array([unit.pos.y]), self._move_amount, include_self
        )
        return x[0], y[0]

    def only_medivac_left(self, ally: bool) -> bool:
        """On the Medivac maps: whether the agents (`ally`) have no living unit but Medivacs, or the enemy's
        last living unit is a Medivac (SMACv2: it has no living unit but Medivacs)."""
        rule = self._family.medivac_rule
        if rule is MedivacRule.NONE:
            return False
        roster = self._roster_now()
        if ally:
            return not (roster.agents.alive & ~roster.a_medivac).any()
        alive = roster.enemies.alive
        fighters = alive & (roster.enemies.unit_type != KINDS["medivac"].real_id)
        if rule is MedivacRule.SMAC:
            return int(alive.sum()) == 1 and not fighters.any()
        return not fighters.any()

    @property
    def death_tracker_ally(self) -> np.ndarray:
        return self._tracker_of("agent_dead")

    @property
    def death_tracker_enemy(self) -> np.ndarray:
        return self._tracker_of("enemy_dead")

    def _tracker_of(self, name: str) -> np.ndarray:
        tracker: Any = getattr(self, "_tracker", None)
        return getattr(tracker, name).astype(np.float64)
