"""SMAC's observations, state, available actions and visibility, computed for every agent at once."""

from __future__ import annotations

import dataclasses

import numpy as np

from sc2env.smac.grids import MapGrids
from sc2env.smac.layout import N_NO_ATTACK_ACTIONS, SHOOT_RANGE, SIGHT_RANGE, Layout

NO_OP, STOP, NORTH, SOUTH, EAST, WEST = range(N_NO_ATTACK_ACTIONS)


@dataclasses.dataclass(frozen=True)
class Frame:
    """Both sides at one step, as the features need them; a row per agent (a_*) and per enemy (e_*).

    a_health ...: health and shield as fractions of their maxima (SMAC's normalisers).
    *_type:       the unit's index in the type one-hot.
    a_cooldown:   the state's second column: weapon cooldown (a healing Medivac: energy) over its normaliser.
    a_heals:      the agent is a Medivac whose target actions heal allies (SMAC's MMM maps).
    a_heal_target: the agent may be healed (alive and no Medivac).
    """

    ax: np.ndarray
    ay: np.ndarray
    a_alive: np.ndarray
    a_health: np.ndarray
    a_shield: np.ndarray
    a_type: np.ndarray
    a_cooldown: np.ndarray
    a_heals: np.ndarray
    a_heal_target: np.ndarray
    ex: np.ndarray
    ey: np.ndarray
    e_alive: np.ndarray
    e_health: np.ndarray
    e_shield: np.ndarray
    e_type: np.ndarray

    @property
    def enemy_offsets(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(dx, dy, distance) from each agent (rows) to each enemy (columns)."""
        dx = self.ex[None, :] - self.ax[:, None]
        dy = self.ey[None, :] - self.ay[:, None]
        return dx, dy, np.hypot(dx, dy)

    @property
    def ally_offsets(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(dx, dy, distance) from each agent (rows) to each agent (columns)."""
        dx = self.ax[None, :] - self.ax[:, None]
        dy = self.ay[None, :] - self.ay[:, None]
        return dx, dy, np.hypot(dx, dy)


def move_probes(ax: np.ndarray, ay: np.ndarray, move_amount: float) -> tuple[np.ndarray, np.ndarray]:
    """The cells SMAC checks for the four moves (north, south, east, west) of units at (ax, ay): half the
    move's distance away, truncated to whole cells, as (x, y) int arrays of shape (n, 4)."""
    half = move_amount / 2
    x = np.stack([ax, ax, ax + half, ax - half], axis=1)
    y = np.stack([ay + half, ay - half, ay, ay], axis=1)
    return np.trunc(x).astype(np.int64), np.trunc(y).astype(np.int64)


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


def available_actions(layout: Layout, frame: Frame, grids: MapGrids, move_amount: float) -> np.ndarray:
    """(n_agents, n_actions) int: a dead agent may only no-op; a living one may stop, move towards a pathable
    cell, and attack a living enemy (a Medivac: heal a living non-Medivac ally) within the shooting range."""
    n_agents = len(frame.ax)
    avail = np.zeros((n_agents, layout.n_actions), np.int64)
    alive = frame.a_alive
    avail[~alive, NO_OP] = 1
    avail[alive, STOP] = 1
    x, y = move_probes(frame.ax, frame.ay, move_amount)
    avail[:, NORTH : WEST + 1] = grids.lookup(grids.pathing, x, y, outside=0.0) * alive[:, None]
    _, _, distance = frame.enemy_offsets
    attack = (distance <= SHOOT_RANGE) & frame.e_alive[None, :] & alive[:, None] & ~frame.a_heals[:, None]
    avail[:, N_NO_ATTACK_ACTIONS : N_NO_ATTACK_ACTIONS + layout.n_enemies] = attack
    if frame.a_heals.any():
        _, _, ally_distance = frame.ally_offsets
        heal = (
            (ally_distance <= SHOOT_RANGE) & frame.a_heal_target[None, :] & (frame.a_heals & alive)[:, None]
        )
        healers = np.flatnonzero(frame.a_heals)
        avail[healers, N_NO_ATTACK_ACTIONS : N_NO_ATTACK_ACTIONS + n_agents] = heal[healers]
    return avail


def _one_hot(rows: int, width: int, index: np.ndarray) -> np.ndarray:
    out = np.zeros((rows, width))
    if width:
        out[np.arange(rows), index] = 1
    return out


def observations(
    layout: Layout,
    frame: Frame,
    avail: np.ndarray,
    grids: MapGrids,
    move_amount: float,
    last_action: np.ndarray,
    progress: float,
) -> np.ndarray:
    """(n_agents, obs_size) float32: move features, enemy features, other agents' features, own features
    [, the episode's progress]; a dead agent's row is zero (but for the progress)."""
    opts = layout.options
    n_agents, n_enemies = len(frame.ax), len(frame.ex)
    alive = frame.a_alive
    bits = layout.unit_type_bits

    move = [avail[:, NORTH : WEST + 1].astype(np.float64)]
    if opts.obs_pathing_grid:
        x, y = surrounding_cells(frame.ax, frame.ay, move_amount, include_self=False)
        move.append(grids.lookup(grids.pathing, x, y, outside=1.0))
    if opts.obs_terrain_height:
        x, y = surrounding_cells(frame.ax, frame.ay, move_amount, include_self=True)
        move.append(grids.lookup(grids.terrain_height, x, y, outside=1.0))

    dx, dy, distance = frame.enemy_offsets
    attackable = avail[:, N_NO_ATTACK_ACTIONS : N_NO_ATTACK_ACTIONS + n_enemies]
    enemy = [attackable, distance / SIGHT_RANGE, dx / SIGHT_RANGE, dy / SIGHT_RANGE]
    if opts.obs_all_health:
        enemy.append(np.broadcast_to(frame.e_health, distance.shape))
        if layout.shield_bits_enemy:
            enemy.append(np.broadcast_to(frame.e_shield, distance.shape))
    enemy_feats = np.stack(enemy, axis=2)
    if bits:
        enemy_type = np.broadcast_to(_one_hot(n_enemies, bits, frame.e_type), (n_agents, n_enemies, bits))
        enemy_feats = np.concatenate([enemy_feats, enemy_type], axis=2)
    enemy_feats = np.where(((distance < SIGHT_RANGE) & frame.e_alive[None, :])[:, :, None], enemy_feats, 0.0)

    dx, dy, distance = frame.ally_offsets
    ally = [np.ones_like(distance), distance / SIGHT_RANGE, dx / SIGHT_RANGE, dy / SIGHT_RANGE]
    if opts.obs_all_health:
        ally.append(np.broadcast_to(frame.a_health, distance.shape))
        if layout.shield_bits_ally:
            ally.append(np.broadcast_to(frame.a_shield, distance.shape))
    ally_feats = np.stack(ally, axis=2)
    extra = []
    if bits:
        extra.append(_one_hot(n_agents, bits, frame.a_type))
    if opts.obs_last_action:
        extra.append(last_action)
    if extra:  # each agent's own columns, seen by every other agent
        columns = np.concatenate(extra, axis=1)
        per_ally = np.broadcast_to(columns, (n_agents, *columns.shape))
        ally_feats = np.concatenate([ally_feats, per_ally], axis=2)
    ally_feats = np.where(((distance < SIGHT_RANGE) & alive[None, :])[:, :, None], ally_feats, 0.0)
    others = ~np.eye(n_agents, dtype=bool)
    ally_feats = ally_feats[others].reshape(n_agents, n_agents - 1, -1)

    own = []
    if opts.obs_own_health:
        own.append(frame.a_health[:, None])
        if layout.shield_bits_ally:
            own.append(frame.a_shield[:, None])
    if bits:
        own.append(_one_hot(n_agents, bits, frame.a_type))

    parts = [*move, enemy_feats.reshape(n_agents, -1), ally_feats.reshape(n_agents, -1), *own]
    obs = np.zeros((n_agents, layout.obs_size), np.float32)
    body = np.concatenate(parts, axis=1) if parts else np.zeros((n_agents, 0))
    obs[:, : body.shape[1]] = np.where(alive[:, None], body, 0.0)  # where, not *: no -0.0 for the dead
    if opts.obs_timestep_number:
        obs[:, -1] = progress
    return obs


def state_parts(layout: Layout, frame: Frame, grids: MapGrids) -> tuple[np.ndarray, np.ndarray]:
    """The state's ally rows (n_agents, ally attributes) and enemy rows (n_enemies, enemy attributes), zero for
    the dead: health, [cooldown or energy], position from the map's centre over the playable extent,
    [shield], [type one-hot in the last columns]."""
    n_agents, n_enemies = len(frame.ax), len(frame.ex)
    bits = layout.unit_type_bits
    rel_x = lambda x: (x - grids.map_x / 2) / grids.max_distance_x  # noqa: E731
    rel_y = lambda y: (y - grids.map_y / 2) / grids.max_distance_y  # noqa: E731
    allies = [frame.a_health, frame.a_cooldown, rel_x(frame.ax), rel_y(frame.ay)]
    if layout.shield_bits_ally:
        allies.append(frame.a_shield)
    enemies = [frame.e_health, rel_x(frame.ex), rel_y(frame.ey)]
    if layout.shield_bits_enemy:
        enemies.append(frame.e_shield)
    ally_rows = np.column_stack(allies + [_one_hot(n_agents, bits, frame.a_type)] * bool(bits))
    enemy_rows = np.column_stack(enemies + [_one_hot(n_enemies, bits, frame.e_type)] * bool(bits))
    return np.where(frame.a_alive[:, None], ally_rows, 0.0), np.where(frame.e_alive[:, None], enemy_rows, 0.0)


def visibility(frame: Frame) -> np.ndarray:
    """(n_agents, n_agents + n_enemies) bool: which living units each living agent sees (distance < sight
    range); never itself."""
    _, _, ally_distance = frame.ally_offsets
    _, _, enemy_distance = frame.enemy_offsets
    alive = frame.a_alive[:, None]
    sees_allies = (ally_distance < SIGHT_RANGE) & alive & frame.a_alive[None, :]
    np.fill_diagonal(sees_allies, False)
    sees_enemies = (enemy_distance < SIGHT_RANGE) & alive & frame.e_alive[None, :]
    return np.concatenate([sees_allies, sees_enemies], axis=1)
