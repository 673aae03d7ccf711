"""SMAC's observations, state, available actions and visibility, computed for every agent at once."""

from __future__ import annotations

import dataclasses
import functools

import numpy as np

from sc2env.smac.grids import MapGrids
from sc2env.smac.layout import N_NO_ATTACK_ACTIONS, SHOOT_RANGE, SIGHT_RANGE, Layout

NO_OP, STOP, NORTH, SOUTH, EAST, WEST = range(N_NO_ATTACK_ACTIONS)
MOVES = slice(NORTH, WEST + 1)
TARGETS = N_NO_ATTACK_ACTIONS


@dataclasses.dataclass(frozen=True)
class Plan:
    """What one episode's features need that stays fixed while it runs.

    others:        (n_agents, n_agents - 1) the ids of each agent's allies, in id order (its ally rows).
    ally_one_hot:  (n_agents, unit_type_bits) each agent's type one-hot; enemy_one_hot likewise.
    heals:         (n_agents,) the agent is a Medivac whose target actions heal allies.
    heal_target:   (n_agents,) the agent may be healed (no Medivac).
    sight, shoot:  (n_agents,) each agent's sight and shooting range (SMAC: 9 and 6 for all; SMACv2 with
                   use_unit_ranges: its kind's).
    """

    layout: Layout
    others: np.ndarray
    ally_one_hot: np.ndarray
    enemy_one_hot: np.ndarray
    heals: np.ndarray
    heal_target: np.ndarray
    sight: np.ndarray
    shoot: np.ndarray

    @classmethod
    def of(
        cls,
        layout: Layout,
        a_type: np.ndarray,
        e_type: np.ndarray,
        heals: np.ndarray,
        medivac: np.ndarray,
        ranges: tuple[np.ndarray, np.ndarray] | None = None,
    ) -> Plan:
        """`ranges`: each agent's (sight, shoot) range; None for SMAC's one pair for all."""
        n = layout.n_agents
        others = np.array([[j for j in range(n) if j != i] for i in range(n)], np.int64).reshape(n, n - 1)
        sight, shoot = ranges or (np.full(n, SIGHT_RANGE), np.full(n, SHOOT_RANGE))
        return cls(
            layout=layout,
            others=others,
            ally_one_hot=_one_hot(n, layout.unit_type_bits, a_type),
            enemy_one_hot=_one_hot(layout.n_enemies, layout.unit_type_bits, e_type),
            heals=heals,
            heal_target=~medivac,
            sight=sight,
            shoot=shoot,
        )


def _one_hot(rows: int, width: int, index: np.ndarray) -> np.ndarray:
    out = np.zeros((rows, width))
    if width:
        out[np.arange(rows), index] = 1
    return out


@dataclasses.dataclass
class Frame:
    """Both sides at one step, as the features need them; a row per agent (a_*) and per enemy (e_*).

    *_health, *_shield: health and shield as fractions of their maxima (SMAC's normalisers).
    a_cooldown:         the state's second column: weapon cooldown (a healing Medivac: energy) normalised.
    """

    ax: np.ndarray
    ay: np.ndarray
    a_alive: np.ndarray
    a_health: np.ndarray
    a_shield: np.ndarray
    a_cooldown: np.ndarray
    ex: np.ndarray
    ey: np.ndarray
    e_alive: np.ndarray
    e_health: np.ndarray
    e_shield: np.ndarray

    @functools.cached_property
    def enemy_offsets(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(dx, dy, distance) from each agent (rows) to each enemy (columns)."""
        dx = self.ex - self.ax[:, None]
        dy = self.ey - self.ay[:, None]
        return dx, dy, np.hypot(dx, dy)

    def ally_offsets(self, others: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(dx, dy, distance) from each agent (rows) to the agents `others` names on its row."""
        dx = self.ax[others] - self.ax[:, None]
        dy = self.ay[others] - self.ay[:, None]
        return dx, dy, np.hypot(dx, dy)


def move_probes(ax: np.ndarray, ay: np.ndarray, move_amount: float) -> tuple[np.ndarray, np.ndarray]:
    """The cells SMAC checks for the four moves (north, south, east, west) of units at (ax, ay): half the
    move's distance away, truncated to whole cells, as (x, y) int arrays of shape (n, 4)."""
    half = np.array([0.0, 0.0, move_amount / 2, -move_amount / 2])
    x = ax[:, None] + half
    y = ay[:, None] + half[[2, 3, 0, 0]]
    return x.astype(np.int64), y.astype(np.int64)  # astype truncates towards zero, as int() does


def surrounding_cells(
    ax: np.ndarray, ay: np.ndarray, move_amount: float, include_self: bool
) -> tuple[np.ndarray, np.ndarray]:
    """The 8 cells (9 with the unit's own) of SMAC's pathing and height features, (n, 8 or 9): two moves
    away along the axes, one move away along the diagonals, from the unit's truncated position."""
    x, y = np.trunc(ax)[:, None], np.trunc(ay)[:, None]
    far, near = 2 * move_amount, move_amount
    dx = np.array([0, 0, far, -far, near, -near, near, -near] + [0] * include_self)
    dy = np.array([far, -far, 0, 0, near, -near, -near, near] + [0] * include_self)
    return np.trunc(x + dx).astype(np.int64), np.trunc(y + dy).astype(np.int64)


def available_actions(
    plan: Plan, frame: Frame, grids: MapGrids, move_amount: float, masked: bool = True
) -> np.ndarray:
    """(n_agents, n_actions) int: a dead agent may only no-op; a living one may stop, move towards a pathable
    cell, and attack a living enemy (a Medivac: heal a living non-Medivac ally) within its shooting range.
    Not `masked` (SMACv2's action_mask=False): every living target, in range or not."""
    layout = plan.layout
    alive = frame.a_alive
    avail = np.zeros((layout.n_agents, layout.n_actions), np.int64)
    avail[:, NO_OP] = ~alive
    avail[:, STOP] = alive
    x, y = move_probes(frame.ax, frame.ay, move_amount)
    np.copyto(avail[:, MOVES], grids.walkable(x, y), where=alive[:, None])
    distance = frame.enemy_offsets[2]
    fighter = alive & ~plan.heals
    in_range = distance <= plan.shoot[:, None] if masked else True
    np.copyto(
        avail[:, TARGETS : TARGETS + layout.n_enemies],
        in_range & frame.e_alive,
        where=fighter[:, None],
    )
    if plan.heals.any():
        healers = np.flatnonzero(plan.heals & alive)
        dx = frame.ax[None, :] - frame.ax[healers, None]
        dy = frame.ay[None, :] - frame.ay[healers, None]
        reach = np.hypot(dx, dy) <= plan.shoot[healers, None] if masked else True
        avail[healers, TARGETS : TARGETS + layout.n_agents] = reach & (alive & plan.heal_target)
    return avail


def observations(
    plan: Plan,
    frame: Frame,
    avail: np.ndarray,
    grids: MapGrids,
    move_amount: float,
    last_action: np.ndarray,
    progress: float,
    shared: np.ndarray | None = None,
) -> np.ndarray:
    """(n_agents, obs_size) float32: move features, enemy features, other agents' features, own features
    [, the episode's progress]; a dead agent's row is zero (but for the progress).

    `avail` is the true availability (in range). `shared` (SMACv2's generated scenarios): (n_agents,
    n_enemies) which enemies each agent has been told of (sharing.EnemySharing); an agent sees only those,
    and, as SMACv2 does, an enemy it was not told of blanks the rows of every enemy before it too.
    """
    layout = plan.layout
    opts = layout.options
    v2 = layout.v2
    sight = plan.sight[:, None]
    n_agents, n_enemies = layout.n_agents, layout.n_enemies
    alive = frame.a_alive
    obs = np.zeros((n_agents, layout.obs_size), np.float32)
    live = alive[:, None]

    obs[:, :4] = avail[:, MOVES]
    column = 4
    if opts.obs_pathing_grid:
        x, y = surrounding_cells(frame.ax, frame.ay, move_amount, include_self=False)
        np.copyto(obs[:, column : column + 8], grids.pathing_feature(x, y), where=live)
        column += 8
    if opts.obs_terrain_height:
        x, y = surrounding_cells(frame.ax, frame.ay, move_amount, include_self=True)
        np.copyto(obs[:, column : column + 9], grids.height_feature(x, y), where=live)
        column += 9

    # Enemies: [attackable, distance, dx, dy, [health, [shield]], [type one-hot]] while seen, else zero.
    dx, dy, distance = frame.enemy_offsets
    seen = (distance < sight) & frame.e_alive & live
    if shared is not None:
        seen = frame.e_alive & live & ((seen & shared) | v2.fully_observable)
        untold = np.where(~shared, np.arange(n_enemies), -1).max(axis=1, initial=-1)
        seen &= np.arange(n_enemies) > untold[:, None]
    elif v2.fully_observable:
        seen = frame.e_alive & live
    enemy = np.zeros((n_agents, n_enemies, layout.enemy_feats))
    columns = [
        avail[:, TARGETS : TARGETS + n_enemies],
        distance / sight,
        dx / sight,
        dy / sight,
    ]
    if opts.obs_all_health:
        columns.append(frame.e_health)
        if layout.shield_bits_enemy:
            columns.append(frame.e_shield)
    for i, values in enumerate(columns):
        np.copyto(enemy[:, :, i], values, where=seen)
    if layout.unit_type_bits:
        np.copyto(enemy[:, :, len(columns) :], plan.enemy_one_hot, where=seen[:, :, None])
    end = column + enemy.size // n_agents
    obs[:, column:end] = enemy.reshape(n_agents, -1)
    column = end

    # Allies, each agent's others in id order: [visible, distance, dx, dy, [health, [shield]], [type],
    # [last action]] while seen, else zero.
    if n_agents > 1:
        others = plan.others
        dx, dy, distance = frame.ally_offsets(others)
        seen = ((distance < sight) | v2.fully_observable) & alive[others] & live
        ally = np.zeros((n_agents, n_agents - 1, layout.ally_feats))
        columns = [np.ones_like(distance), distance / sight, dx / sight, dy / sight]
        if opts.obs_all_health:
            columns.append(frame.a_health[others])
            if layout.shield_bits_ally:
                columns.append(frame.a_shield[others])
        for i, values in enumerate(columns):
            np.copyto(ally[:, :, i], values, where=seen)
        tail = []
        if layout.unit_type_bits:  # zeros when SMACv2's team_gen does not observe the others' types
            tail.append(plan.ally_one_hot * v2.observe_types)
        if opts.obs_last_action:
            tail.append(last_action)
        if tail:
            per_agent = np.concatenate(tail, axis=1) if len(tail) > 1 else tail[0]
            np.copyto(ally[:, :, len(columns) :], per_agent[others], where=seen[:, :, None])
        end = column + ally.size // n_agents
        obs[:, column:end] = ally.reshape(n_agents, -1)
        column = end

    # Own: [health, [shield]], [position over the map's size], [type one-hot].
    if opts.obs_own_health:
        np.copyto(obs[:, column], frame.a_health, where=alive)
        column += 1
        if layout.shield_bits_ally:
            np.copyto(obs[:, column], frame.a_shield, where=alive)
            column += 1
    if v2.obs_own_pos:
        np.copyto(obs[:, column], frame.ax / grids.map_x, where=alive)
        np.copyto(obs[:, column + 1], frame.ay / grids.map_y, where=alive)
        column += 2
    if layout.unit_type_bits:
        np.copyto(obs[:, column : column + layout.unit_type_bits], plan.ally_one_hot, where=live)
    if opts.obs_timestep_number:
        obs[:, -1] = progress
    return obs


def state_parts(plan: Plan, frame: Frame, grids: MapGrids) -> tuple[np.ndarray, np.ndarray]:
    """The state's ally rows (n_agents, ally attributes) and enemy rows (n_enemies, enemy attributes), zero for
    the dead: health, [cooldown or energy], position from the map's centre over the playable extent,
    [shield], [type one-hot in the last columns]."""
    layout = plan.layout
    half_x, half_y = grids.map_x / 2, grids.map_y / 2
    allies = [
        frame.a_health,
        frame.a_cooldown,
        (frame.ax - half_x) / grids.max_distance_x,
        (frame.ay - half_y) / grids.max_distance_y,
    ]
    if layout.shield_bits_ally:
        allies.append(frame.a_shield)
    enemies = [
        frame.e_health,
        (frame.ex - half_x) / grids.max_distance_x,
        (frame.ey - half_y) / grids.max_distance_y,
    ]
    if layout.shield_bits_enemy:
        enemies.append(frame.e_shield)
    ally_rows = np.zeros((layout.n_agents, len(layout.ally_state_names)))
    enemy_rows = np.zeros((layout.n_enemies, len(layout.enemy_state_names)))
    np.copyto(ally_rows, np.column_stack([*allies, plan.ally_one_hot]), where=frame.a_alive[:, None])
    np.copyto(enemy_rows, np.column_stack([*enemies, plan.enemy_one_hot]), where=frame.e_alive[:, None])
    return ally_rows, enemy_rows


def visibility(plan: Plan, frame: Frame) -> np.ndarray:
    """(n_agents, n_agents + n_enemies) bool: which living units each living agent sees (distance < sight
    range); never itself."""
    n_agents = plan.layout.n_agents
    live = frame.a_alive[:, None]
    sight = plan.sight[:, None]
    seen = np.zeros((n_agents, n_agents + plan.layout.n_enemies), bool)
    if n_agents > 1:
        distance = frame.ally_offsets(plan.others)[2]
        rows = np.repeat(np.arange(n_agents), n_agents - 1).reshape(n_agents, n_agents - 1)
        seen[rows, plan.others] = (distance < sight) & frame.a_alive[plan.others] & live
        # Symmetric, as SMAC fills it: each pair once, by the lower id's sight range.
        upper = np.triu(seen[:, :n_agents], 1)
        seen[:, :n_agents] = upper | upper.T
    seen[:, n_agents:] = (frame.enemy_offsets[2] < sight) & frame.e_alive & live
    return seen
