"""SMAC's observations, state, available actions and visibility, computed for every agent at once.

Each is a handful of whole-array operations per step, whatever the number of units: one table of pairwise
offsets from every agent to every unit (Frame.offsets) serves the observations, the target actions and the
visibility; the observation and the state are filled in place, block by block, in their final float32
buffers, and a dead agent's (or unit's) row is cleared once at the end.
"""

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
    move_amount:   how far a move action goes (SMAC's move_amount).
    """

    layout: Layout
    others: np.ndarray
    ally_one_hot: np.ndarray
    enemy_one_hot: np.ndarray
    heals: np.ndarray
    heal_target: np.ndarray
    sight: np.ndarray
    shoot: np.ndarray
    move_amount: float = 2.0

    @classmethod
    def of(
        cls,
        layout: Layout,
        a_type: np.ndarray,
        e_type: np.ndarray,
        heals: np.ndarray,
        medivac: np.ndarray,
        ranges: tuple[np.ndarray, np.ndarray] | None = None,
        move_amount: float = 2.0,
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
            move_amount=float(move_amount),
        )

    @functools.cached_property
    def others_flat(self) -> np.ndarray:
        """(n_agents * (n_agents - 1),): where each (agent, other agent) pair is in a flattened (n_agents,
        n_units) table, for `take`."""
        n = self.layout.n_agents
        return (np.arange(n)[:, None] * (n + self.layout.n_enemies) + self.others).ravel()

    @functools.cached_property
    def move_offsets(self) -> np.ndarray:
        """(4, 2): the (x, y) offsets of the cells the four moves probe (half a move along its axis)."""
        half = self.move_amount / 2
        return np.array([[0.0, half], [0.0, -half], [half, 0.0], [-half, 0.0]])

    @functools.cached_property
    def ally_tail(self) -> np.ndarray:
        """(n_agents, unit_type_bits): the type one-hots other agents are shown of each agent (zeros when
        SMACv2's team_gen does not observe them)."""
        return self.ally_one_hot * self.layout.v2.observe_types

    @functools.cached_property
    def any_heals(self) -> bool:
        return bool(self.heals.any())

    @functools.cached_property
    def sees_all(self) -> bool:
        return self.layout.v2.fully_observable


def _one_hot(rows: int, width: int, index: np.ndarray) -> np.ndarray:
    out = np.zeros((rows, width))
    if width:
        out[np.arange(rows), index] = 1
    return out


@dataclasses.dataclass
class Frame:
    """Both sides at one step, as the features need them: one entry per unit, the agents' first (in id
    order), then the enemies'. The a_* and e_* views give one side.

    health, shield: health and shield as fractions of their maxima (SMAC's normalisers).
    a_cooldown:     the state's second column: weapon cooldown (a healing Medivac: energy) normalised.
    """

    n_agents: int
    pos: np.ndarray
    """(n_units, 2): each unit's x and y."""
    alive: np.ndarray
    health: np.ndarray
    shield: np.ndarray
    a_cooldown: np.ndarray

    @property
    def x(self) -> np.ndarray:
        return self.pos[:, 0]

    @property
    def y(self) -> np.ndarray:
        return self.pos[:, 1]

    @property
    def ax(self) -> np.ndarray:
        return self.x[: self.n_agents]

    @property
    def ay(self) -> np.ndarray:
        return self.y[: self.n_agents]

    @property
    def ex(self) -> np.ndarray:
        return self.x[self.n_agents :]

    @property
    def ey(self) -> np.ndarray:
        return self.y[self.n_agents :]

    @property
    def a_alive(self) -> np.ndarray:
        return self.alive[: self.n_agents]

    @property
    def e_alive(self) -> np.ndarray:
        return self.alive[self.n_agents :]

    @property
    def a_health(self) -> np.ndarray:
        return self.health[: self.n_agents]

    @property
    def e_health(self) -> np.ndarray:
        return self.health[self.n_agents :]

    @property
    def a_shield(self) -> np.ndarray:
        return self.shield[: self.n_agents]

    @property
    def e_shield(self) -> np.ndarray:
        return self.shield[self.n_agents :]

    _offsets: np.ndarray | None = dataclasses.field(default=None, repr=False)

    @property
    def offsets(self) -> np.ndarray:
        """(3, n_agents, n_units): distance, dx and dy from each agent (rows) to every unit (columns); computed
        on first use (a plain attribute: functools.cached_property takes a lock, and a Frame lives one step)."""
        if self._offsets is None:
            self._offsets = self._pairwise()
        return self._offsets

    def _pairwise(self) -> np.ndarray:
        n = self.n_agents
        x, y = self.pos[:, 0], self.pos[:, 1]
        out = np.empty((3, n, len(x)))
        np.subtract(x, x[:n, None], out=out[1])
        np.subtract(y, y[:n, None], out=out[2])
        np.hypot(out[1], out[2], out=out[0])
        return out

    @property
    def distance(self) -> np.ndarray:
        """(n_agents, n_units): the distance from each agent (rows) to every unit (columns)."""
        return self.offsets[0]

    @property
    def enemy_offsets(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(dx, dy, distance) from each agent (rows) to each enemy (columns)."""
        distance, dx, dy = self.offsets[:, :, self.n_agents :]
        return dx, dy, distance

    def ally_offsets(self, others: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(dx, dy, distance) from each agent (rows) to the agents `others` names on its row."""
        distance, dx, dy = self.offsets[:, np.arange(self.n_agents)[:, None], others]
        return dx, dy, distance


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


def available_actions(plan: Plan, frame: Frame, grids: MapGrids, masked: bool = True) -> np.ndarray:
    """(n_agents, n_actions) int: a dead agent may only no-op; a living one may stop, move towards a pathable
    cell, and attack a living enemy (a Medivac: heal a living non-Medivac ally) within its shooting range.
    Not `masked` (SMACv2's action_mask=False): every living target, in range or not."""
    layout = plan.layout
    n = layout.n_agents
    alive = frame.a_alive
    live = alive[:, None]
    avail = np.zeros((n, layout.n_actions), np.int64)
    avail[:, NO_OP] = ~alive
    avail[:, STOP] = alive
    # The probed cells, truncated towards zero as SMAC's int() does.
    probes = (frame.pos[:n, None] + plan.move_offsets).astype(np.int64)
    avail[:, MOVES] = grids.walkable_cells(probes) & live
    distance = frame.distance
    targets = frame.e_alive & (live & ~plan.heals[:, None])
    if masked:
        targets &= distance[:, n:] <= plan.shoot[:, None]
    avail[:, TARGETS : TARGETS + layout.n_enemies] = targets
    if plan.any_heals:
        healers = np.flatnonzero(plan.heals & alive)
        reach = distance[healers, :n] <= plan.shoot[healers, None] if masked else True
        avail[healers, TARGETS : TARGETS + n] = reach & (alive & plan.heal_target)
    return avail


def observations(
    plan: Plan,
    frame: Frame,
    avail: np.ndarray,
    grids: MapGrids,
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
    n_agents, n_enemies = layout.n_agents, layout.n_enemies
    obs = np.zeros((n_agents, layout.obs_size), np.float32)
    sight = plan.sight[:, None]

    obs[:, :4] = avail[:, MOVES]
    column = 4
    if opts.obs_pathing_grid:
        x, y = surrounding_cells(frame.ax, frame.ay, plan.move_amount, include_self=False)
        obs[:, column : column + 8] = grids.pathing_feature(x, y)
        column += 8
    if opts.obs_terrain_height:
        x, y = surrounding_cells(frame.ax, frame.ay, plan.move_amount, include_self=True)
        obs[:, column : column + 9] = grids.height_feature(x, y)
        column += 9

    # Enemies: [attackable, distance, dx, dy, [health, [shield]], [type one-hot]] while seen, else zero.
    enemy = frame.offsets[:, :, n_agents:]  # distance, dx, dy to each enemy
    seen = (enemy[0] < sight) & frame.e_alive
    if shared is not None:
        seen = frame.e_alive & ((seen & shared) | plan.sees_all)
        untold = np.where(~shared, np.arange(n_enemies), -1).max(axis=1, initial=-1)
        seen &= np.arange(n_enemies) > untold[:, None]
    elif plan.sees_all:
        seen = np.broadcast_to(frame.e_alive, seen.shape)
    end = column + n_enemies * layout.enemy_feats
    _pair_block(
        obs[:, column:end].reshape(n_agents, n_enemies, layout.enemy_feats),
        avail[:, TARGETS : TARGETS + n_enemies],
        enemy / sight,
        frame.e_health,
        frame.e_shield if layout.shield_bits_enemy else None,
        plan.enemy_one_hot if layout.unit_type_bits else None,
        seen,
        opts.obs_all_health,
    )
    column = end

    # Allies, each agent's others in id order: [visible, distance, dx, dy, [health, [shield]], [type],
    # [last action]] while seen, else zero.
    if n_agents > 1:
        others = plan.others
        # distance, dx, dy to each other agent
        ally = frame.offsets.reshape(3, -1).take(plan.others_flat, axis=1).reshape(3, n_agents, -1)
        seen = frame.a_alive[others]
        if not plan.sees_all:
            seen = seen & (ally[0] < sight)
        tail = []
        if layout.unit_type_bits:
            tail.append(plan.ally_tail)
        if opts.obs_last_action:
            tail.append(last_action)
        per_agent = (np.concatenate(tail, axis=1) if len(tail) > 1 else tail[0]) if tail else None
        end = column + (n_agents - 1) * layout.ally_feats
        _pair_block(
            obs[:, column:end].reshape(n_agents, n_agents - 1, layout.ally_feats),
            1.0,
            ally / sight,
            frame.a_health[others],
            frame.a_shield[others] if layout.shield_bits_ally else None,
            None if per_agent is None else per_agent[others],
            seen,
            opts.obs_all_health,
        )
        column = end

    # Own: [health, [shield]], [position over the map's size], [type one-hot].
    if opts.obs_own_health:
        obs[:, column] = frame.a_health
        column += 1
        if layout.shield_bits_ally:
            obs[:, column] = frame.a_shield
            column += 1
    if layout.v2.obs_own_pos:
        obs[:, column] = frame.ax / grids.map_x
        obs[:, column + 1] = frame.ay / grids.map_y
        column += 2
    if layout.unit_type_bits:
        obs[:, column : column + layout.unit_type_bits] = plan.ally_one_hot
    if np.count_nonzero(frame.a_alive) < len(frame.a_alive):  # someone is dead (a count: cheaper than .all())
        obs[~frame.a_alive] = 0.0
    if opts.obs_timestep_number:
        obs[:, -1] = progress
    return obs


def _pair_block(
    block: np.ndarray,
    first: np.ndarray | float,
    scaled: np.ndarray,
    health: np.ndarray,
    shield: np.ndarray | None,
    tail: np.ndarray | None,
    seen: np.ndarray,
    with_health: bool,
) -> None:
    """Fill one observation block of (agent, other unit) features in place: [first, distance, dx, dy,
    [health, [shield]], [tail]], zero where the agent does not see the unit. `scaled`: (3, agents, units)
    distance, dx and dy over the sight range; `health`, `shield` and `tail` are per unit (broadcast along
    the agents) or already per (agent, unit)."""
    block[..., 0] = first
    block[..., 1] = scaled[0]
    block[..., 2] = scaled[1]
    block[..., 3] = scaled[2]
    column = 4
    if with_health:
        block[..., column] = health
        column += 1
        if shield is not None:
            block[..., column] = shield
            column += 1
    if tail is not None:
        block[..., column:] = tail
    np.copyto(block, 0.0, where=~seen[..., None])


def fill_state(plan: Plan, frame: Frame, grids: MapGrids, allies: np.ndarray, enemies: np.ndarray) -> None:
    """Write the state's ally rows (n_agents, ally attributes) and enemy rows (n_enemies, enemy attributes)
    into zeroed `allies` and `enemies`, zero for the dead: health, [cooldown or energy], position from the
    map's centre over the playable extent, [shield], [type one-hot in the last columns]."""
    layout = plan.layout
    n = layout.n_agents
    rel_x = (frame.x - grids.map_x / 2) / grids.max_distance_x
    rel_y = (frame.y - grids.map_y / 2) / grids.max_distance_y
    allies[:, 0] = frame.a_health
    allies[:, 1] = frame.a_cooldown
    allies[:, 2] = rel_x[:n]
    allies[:, 3] = rel_y[:n]
    if layout.shield_bits_ally:
        allies[:, 4] = frame.a_shield
    enemies[:, 0] = frame.e_health
    enemies[:, 1] = rel_x[n:]
    enemies[:, 2] = rel_y[n:]
    if layout.shield_bits_enemy:
        enemies[:, 3] = frame.e_shield
    bits = layout.unit_type_bits
    if bits:
        allies[:, -bits:] = plan.ally_one_hot
        enemies[:, -bits:] = plan.enemy_one_hot
    allies[~frame.a_alive] = 0.0
    enemies[~frame.e_alive] = 0.0


def state_parts(plan: Plan, frame: Frame, grids: MapGrids) -> tuple[np.ndarray, np.ndarray]:
    """The state's ally rows and enemy rows (float64), as `fill_state` writes them."""
    layout = plan.layout
    allies = np.zeros((layout.n_agents, layout.ally_state_width))
    enemies = np.zeros((layout.n_enemies, layout.enemy_state_width))
    fill_state(plan, frame, grids, allies, enemies)
    return allies, enemies


def visibility(plan: Plan, frame: Frame) -> np.ndarray:
    """(n_agents, n_agents + n_enemies) bool: which living units each living agent sees (distance < sight
    range); never itself."""
    n_agents = plan.layout.n_agents
    seen = (frame.distance < plan.sight[:, None]) & frame.alive & frame.a_alive[:, None]
    # Symmetric among the agents, as SMAC fills it: each pair once, by the lower id's sight range.
    upper = np.triu(seen[:, :n_agents], 1)
    seen[:, :n_agents] = upper | upper.T
    return seen
