"""One episode's units: SMAC's agent and enemy ids, their per-episode facts, and how a battle ends."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np
from s2clientprotocol import raw_pb2

from sc2env.smac.features import Frame, Plan
from sc2env.smac.layout import Layout
from sc2env.smac.unit_kinds import KINDS, MedivacRule, UnitTypes, max_cooldown, max_shield
from sc2env.smac.units import Column, Side, UnitTable, sides

WON, LOST, DRAW = 1, -1, 0


@dataclasses.dataclass
class Roster:
    """Both sides' units of one episode (a row per SMAC id: `table` holds the agents' then the enemies', `agents`
    and `enemies` are views of it) and what stays fixed while it runs: each unit's kind and normalisers, and
    the features' plan."""

    table: UnitTable
    agents: Side
    enemies: Side
    types: UnitTypes
    agent_kinds: list[str]
    plan: Plan
    shield_divisor: np.ndarray
    a_cooldown_divisor: np.ndarray
    a_medivac: np.ndarray

    @classmethod
    def of(cls, table: UnitTable, types: UnitTypes, layout: Layout, move_amount: float) -> Roster:
        n = table.n_agents
        agents, enemies = Side(table, 0, n), Side(table, n, len(table.tags))
        agent_kinds = types.ally_kinds_of(agents.unit_type)
        enemy_kinds = types.enemy_kinds_of(enemies.unit_type)
        medivac = np.array([k == "medivac" for k in agent_kinds], bool)
        heals = medivac & (types.family.medivac_rule is not MedivacRule.NONE)
        bits = layout.unit_type_bits
        no_type = np.zeros(0, np.int64)
        plan = Plan.of(
            layout,
            types.ally_one_hot_index(agent_kinds) if bits else no_type,
            types.enemy_one_hot_index(enemies.unit_type) if bits else no_type,
            heals,
            medivac,
            _unit_ranges(agent_kinds, layout) if layout.v2.use_unit_ranges else None,
            move_amount,
        )
        return cls(
            table=table,
            agents=agents,
            enemies=enemies,
            types=types,
            agent_kinds=agent_kinds,
            plan=plan,
            shield_divisor=_divisor(max_shield([*agent_kinds, *enemy_kinds])),
            a_cooldown_divisor=max_cooldown(list(agent_kinds)),
            a_medivac=medivac,
        )

    def update(self, units: Sequence[raw_pb2.Unit]) -> tuple[int, int]:
        """Take both sides from a new observation; returns how many of each are still in it."""
        return self.table.update(units)

    def frame(self) -> Frame:
        v = self.table.values
        n = self.table.n_agents
        health = v[:, Column.health]
        cooldown = v[:n, Column.weapon_cooldown]
        heals = self.plan.heals
        if self.plan.any_heals:
            cooldown = np.where(heals, v[:n, Column.energy], cooldown)
        return Frame(
            n_agents=n,
            pos=v[:, Column.x : Column.y + 1],
            alive=health > 0,
            health=health / v[:, Column.health_max],
            shield=v[:, Column.shield] / self.shield_divisor,
            a_cooldown=cooldown / self.a_cooldown_divisor,
        )

    def outcome(self, agents_present: int, enemies_present: int) -> int | None:
        """WON, LOST, DRAW (both sides gone) or None (the battle goes on), as SMAC decides after a step from
        the units still observed, and on the Medivac maps from the living units that are no Medivacs."""
        rule = self.types.family.medivac_rule
        medivacs_only = False
        enemy_beaten = False
        if rule is not MedivacRule.NONE:
            a_alive = self.agents.alive
            medivacs_only = not (a_alive & ~self.a_medivac).any()
            enemy_fighters = self.enemies.alive & (self.enemies.unit_type != KINDS["medivac"].real_id)
            if rule is MedivacRule.SMAC:  # its last living unit is a Medivac
                enemy_beaten = int(self.enemies.alive.sum()) == 1 and not enemy_fighters.any()
            else:
                enemy_beaten = not enemy_fighters.any()
        if (agents_present == 0 and enemies_present > 0) or medivacs_only:
            return LOST
        if (agents_present > 0 and enemies_present == 0) or enemy_beaten:
            return WON
        if agents_present == 0 and enemies_present == 0:
            return DRAW
        return None


def _unit_ranges(kinds: list[str], layout: Layout) -> tuple[np.ndarray, np.ndarray]:
    """SMACv2's use_unit_ranges: each agent's (sight, shoot) range by its kind, shooting at least
    min_attack_range (so melee units attack from 2)."""
    sight = np.array([KINDS[k].sight_range for k in kinds], np.float64)
    shoot = np.array([max(KINDS[k].shoot_range, layout.v2.min_attack_range) for k in kinds], np.float64)
    return sight, shoot


def _divisor(maximum: np.ndarray) -> np.ndarray:
    """A shield normaliser to divide by: units without shields have none to show, so 1 does."""
    return np.where(maximum > 0, maximum, 1.0)


def find_units(units: Sequence[raw_pb2.Unit], n_agents: int, n_enemies: int) -> UnitTable | None:
    """The agents and enemies of a new episode, or None while the game has not spawned all of them."""
    return sides(units, n_agents, n_enemies)
