"""The vectorised observation, state, availability and visibility builders against a straightforward reference:
SMAC's formulas written out per agent and per unit, reading each unit's raw `Unit` message, on random episodes
of several scenarios (with SMAC's and SMACv2's options) played on the built-in engine; and shared commands
against SMAC's one command per agent."""

from __future__ import annotations

import math

import numpy as np
import pytest
from s2clientprotocol import raw_pb2
from s2clientprotocol import sc2api_pb2 as sc_pb
from test_smacv2_env import capability

from sc2env import errors
from sc2env.smac import StarCraft2Env, commands, features
from sc2env.smac import env as env_module
from sc2env.smac.sharing import EnemySharing

N_NO_ATTACK = 6
MOVES = ((0, 1), (0, -1), (1, 0), (-1, 0))  # north, south, east, west


class Reference:
    """SMAC's features, one agent and one unit at a time, from the env's raw unit messages and map facts."""

    def __init__(self, env: StarCraft2Env, shared: np.ndarray | None) -> None:
        self.env = env
        self.allies = [env.get_unit_by_id(i) for i in range(env.n_agents)]
        self.enemies = [env.enemies[j] for j in range(env.n_enemies)]
        self.shared = shared
        self.heals = [env.agent_kinds[i] == "medivac" and env.layout.heals for i in range(env.n_agents)]

    # --- helpers ---------------------------------------------------------------------------------------
    def health(self, u: raw_pb2.Unit) -> float:
        return u.health / u.health_max

    def shield(self, u: raw_pb2.Unit) -> float:
        return u.shield / (self.env.unit_max_shield(u) or 1.0)

    def one_hot(self, u: raw_pb2.Unit, ally: bool) -> list[float]:
        bits = [0.0] * self.env.unit_type_bits
        if bits:
            bits[self.env.get_unit_type_id(u, ally)] = 1.0
        return bits

    def pathable(self, x: int, y: int) -> bool:
        grid = self.env.pathing_grid
        return 0 <= x < self.env.map_x and 0 <= y < self.env.map_y and bool(grid[x, y])

    def cells(self, u: raw_pb2.Unit, include_self: bool) -> list[tuple[int, int]]:
        x, y, far, near = int(u.pos.x), int(u.pos.y), 2 * self.env._move_amount, self.env._move_amount
        offsets = [(0, far), (0, -far), (far, 0), (-far, 0), (near, near), (-near, -near), (near, -near)]
        offsets += [(-near, near)] + [(0, 0)] * include_self
        return [(int(x + dx), int(y + dy)) for dx, dy in offsets]

    # --- SMAC's methods ----------------------------------------------------------------------------------
    def avail(self, i: int, masked: bool = True) -> list[int]:
        me = self.allies[i]
        row = [0] * self.env.n_actions
        if me.health <= 0:
            row[0] = 1
            return row
        row[1] = 1
        half = self.env._move_amount / 2
        for k, (dx, dy) in enumerate(MOVES):
            row[2 + k] = int(self.pathable(int(me.pos.x + dx * half), int(me.pos.y + dy * half)))
        shoot = self.env.unit_shoot_range(i)
        targets = self.allies if self.heals[i] else self.enemies
        for j, t in enumerate(targets):
            if t.health <= 0 or (self.heals[i] and self.env.agent_kinds[j] == "medivac"):
                continue
            if not masked or math.hypot(t.pos.x - me.pos.x, t.pos.y - me.pos.y) <= shoot:
                row[N_NO_ATTACK + j] = 1
        return row

    def obs(self, i: int) -> np.ndarray:
        env, me = self.env, self.allies[i]
        size = env.get_obs_size()
        out = np.zeros(size, np.float32)
        if me.health > 0:
            values = self._obs_values(i, me)
            out[: len(values)] = values
        if env.options.obs_timestep_number:
            out[-1] = env._episode_steps / env.episode_limit
        return out

    def _obs_values(self, i: int, me: raw_pb2.Unit) -> list[float]:
        env, opts, v2 = self.env, self.env.options, self.env.v2
        sight = env.unit_sight_range(i)
        avail = self.avail(i)
        values: list[float] = [float(a) for a in avail[2:6]]
        if opts.obs_pathing_grid:
            values += [
                float(self.pathable(x, y)) if self.on_map(x, y) else 1.0 for x, y in self.cells(me, False)
            ]
        if opts.obs_terrain_height:
            height = env.terrain_height
            values += [float(height[x, y]) if self.on_map(x, y) else 1.0 for x, y in self.cells(me, True)]
        untold = -1
        if self.shared is not None:  # SMACv2: an enemy not told of blanks every enemy before it
            untold = max([j for j in range(env.n_enemies) if not self.shared[i, j]], default=-1)
        for j, e in enumerate(self.enemies):
            dx, dy = e.pos.x - me.pos.x, e.pos.y - me.pos.y
            distance = math.hypot(dx, dy)
            seen = e.health > 0 and (distance < sight or v2.fully_observable)
            if self.shared is not None:
                seen = e.health > 0 and ((distance < sight and self.shared[i, j]) or v2.fully_observable)
                seen = seen and j > untold
            feats = [float(avail[N_NO_ATTACK + j]), distance / sight, dx / sight, dy / sight]
            if opts.obs_all_health:
                feats.append(self.health(e))
                if env.shield_bits_enemy:
                    feats.append(self.shield(e))
            feats += self.one_hot(e, ally=False)
            values += feats if seen else [0.0] * len(feats)
        for k, a in enumerate(self.allies):
            if k == i:
                continue
            dx, dy = a.pos.x - me.pos.x, a.pos.y - me.pos.y
            distance = math.hypot(dx, dy)
            seen = a.health > 0 and (distance < sight or v2.fully_observable)
            feats = [1.0, distance / sight, dx / sight, dy / sight]
            if opts.obs_all_health:
                feats.append(self.health(a))
                if env.shield_bits_ally:
                    feats.append(self.shield(a))
            feats += [b * v2.observe_types for b in self.one_hot(a, ally=True)]
            if opts.obs_last_action:
                feats += env.last_action[k].tolist()
            values += feats if seen else [0.0] * len(feats)
        if opts.obs_own_health:
            values.append(self.health(me))
            if env.shield_bits_ally:
                values.append(self.shield(me))
        if v2.obs_own_pos:
            values += [me.pos.x / env.map_x, me.pos.y / env.map_y]
        return values + self.one_hot(me, ally=True)

    def on_map(self, x: int, y: int) -> bool:
        return 0 <= x < self.env.map_x and 0 <= y < self.env.map_y

    def state(self) -> np.ndarray:
        env = self.env
        if env.options.obs_instead_of_state:
            return np.concatenate([self.obs(i) for i in range(env.n_agents)])
        centre_x, centre_y = env.map_x / 2, env.map_y / 2
        values: list[float] = []
        for i, a in enumerate(self.allies):
            cooldown = a.energy if self.heals[i] else a.weapon_cooldown
            row = [self.health(a), cooldown / env.unit_max_cooldown(a)]
            row += [(a.pos.x - centre_x) / env.max_distance_x, (a.pos.y - centre_y) / env.max_distance_y]
            row += [self.shield(a)] * env.shield_bits_ally + self.one_hot(a, ally=True)
            values += row if a.health > 0 else [0.0] * len(row)
        for e in self.enemies:
            row = [self.health(e)]
            row += [(e.pos.x - centre_x) / env.max_distance_x, (e.pos.y - centre_y) / env.max_distance_y]
            row += [self.shield(e)] * env.shield_bits_enemy + self.one_hot(e, ally=False)
            values += row if e.health > 0 else [0.0] * len(row)
        if env.options.state_last_action:
            values += env.last_action.ravel().tolist()
        if env.options.state_timestep_number:
            values.append(env._episode_steps / env.episode_limit)
        return np.array(values, np.float32)

    def visibility(self) -> np.ndarray:
        env = self.env
        seen = np.zeros((env.n_agents, env.n_agents + env.n_enemies), bool)
        for i, me in enumerate(self.allies):
            if me.health <= 0:
                continue
            sight = env.unit_sight_range(i)
            for k in range(i + 1, env.n_agents):  # each pair once, by the lower id's sight
                a = self.allies[k]
                if a.health > 0 and math.hypot(a.pos.x - me.pos.x, a.pos.y - me.pos.y) < sight:
                    seen[i, k] = seen[k, i] = True
            for j, e in enumerate(self.enemies):
                distance = math.hypot(e.pos.x - me.pos.x, e.pos.y - me.pos.y)
                seen[i, env.n_agents + j] = e.health > 0 and distance < sight
        return seen


CASES = [
    ("3m", {}),
    ("2s3z", dict(obs_last_action=True, obs_timestep_number=True, state_timestep_number=True)),
    ("MMM2", dict(obs_pathing_grid=True, obs_terrain_height=True, obs_all_health=False)),
    ("8m_vs_9m", dict(obs_instead_of_state=True, obs_own_health=False, obs_all_health=False)),
    (
        "10gen_terran",
        dict(
            capability_config=capability("terran", 6, 5),
            obs_own_pos=True,
            use_unit_ranges=True,
            obs_last_action=True,
            state_last_action=False,
            prob_obs_enemy=0.5,
            action_mask=False,
        ),
    ),
    (
        "10gen_protoss",
        dict(
            capability_config=capability("protoss", 5, 6),
            obs_own_pos=True,
            use_unit_ranges=True,
            obs_pathing_grid=True,
            obs_terrain_height=True,
            obs_timestep_number=True,
        ),
    ),
    ("10gen_zerg", dict(capability_config=capability("zerg", 5, 5), fully_observable=True)),
]


@pytest.mark.parametrize(("map_name", "options"), CASES, ids=[name for name, _ in CASES])
def test_vectorised_builders_equal_the_per_unit_reference(map_name, options, monkeypatch):
    shared: list[np.ndarray] = []  # what SMACv2's enemy sharing handed the observation (it draws at random)
    observe = EnemySharing.observe

    def spied(self, sees, alive):
        shared.append(observe(self, sees, alive))
        return shared[-1]

    monkeypatch.setattr(EnemySharing, "observe", spied)
    env = StarCraft2Env(map_name=map_name, seed=5, engine="builtin", direct=True, **options)
    rng = np.random.default_rng(11)
    checked = deaths = 0
    try:
        env.reset()
        for _ in range(90):
            obs = np.array(env.get_obs())
            ref = Reference(env, shared[-1] if shared else None)
            masked = env.v2.action_mask
            avail = np.array(env.get_avail_actions())
            assert avail.tolist() == [ref.avail(i, masked) for i in range(env.n_agents)]
            np.testing.assert_array_equal(obs, np.array([ref.obs(i) for i in range(env.n_agents)]))
            np.testing.assert_array_equal(env.get_state(), ref.state())
            np.testing.assert_array_equal(env.get_visibility_matrix(), ref.visibility())
            if env.scenario.generated:  # SMACv2's capabilities: each agent's type one-hot
                caps = [ref.one_hot(a, ally=True) for a in ref.allies]
                np.testing.assert_array_equal(env.get_capabilities(), np.array(caps, np.float32).ravel())
            checked += 1
            deaths += sum(u.health <= 0 for u in ref.allies + ref.enemies)
            actions = np.argmax(rng.random(avail.shape) * avail, axis=1)
            _, terminated, _ = env.step(actions)
            if terminated:
                env.reset()
    finally:
        env.close()
    assert checked == 90
    assert deaths > 0  # the dead's zero rows were compared too


def _one_command_per_agent(request, actions, tags, x, y, move_amount, target_tags, heals, unit_types):
    """SMAC's own way: a command per agent, none shared."""
    for i, action in enumerate(actions):
        commands.add_command(request, action, tags[i], x[i], y[i], move_amount, target_tags[i], heals[i])


def _focus_fire_episodes(map_name: str, steps: int) -> tuple[list[tuple], int]:
    """Every step's observations, state, reward and end under SMAC's focus-fire policy, and how many commands
    named more than one unit."""
    env = StarCraft2Env(map_name=map_name, seed=2, engine="builtin", direct=True, heuristic_ai=True)
    game = env._game
    sent_together = 0
    act_step_observe = game.act_step_observe

    def counting(request):
        nonlocal sent_together
        sent_together += sum(len(a.action_raw.unit_command.unit_tags) > 1 for a in request.actions)
        return act_step_observe(request)

    game.act_step_observe = counting
    seen = []
    try:
        env.reset()
        for _ in range(steps):
            reward, terminated, info = env.step([0] * env.n_agents)
            seen.append(
                (np.array(env.get_obs()).tobytes(), env.get_state().tobytes(), reward, terminated, info)
            )
            if terminated:
                env.reset()
    finally:
        env.close()
    return seen, sent_together


@pytest.mark.parametrize("map_name", ["2s3z", "MMM2"])
def test_shared_commands_play_as_one_command_per_agent(map_name, monkeypatch):
    shared, together = _focus_fire_episodes(map_name, 120)
    assert together > 0  # focus fire: agents of one type attack (or heal) the same target at once
    monkeypatch.setattr(env_module, "add_commands", _one_command_per_agent)
    alone, together = _focus_fire_episodes(map_name, 120)
    assert together == 0
    assert shared == alone


def test_get_agent_action_is_smacs_command_for_one_agent():
    # SMAC's get_agent_action: the raw command of one agent's action, from its own unit message (MMM2: heals).
    env = StarCraft2Env(map_name="MMM2", seed=4, engine="builtin", direct=True)
    rng = np.random.default_rng(5)
    compared = 0
    try:
        env.reset()
        for _ in range(40):
            ref = Reference(env, None)
            avail = np.array(env.get_avail_actions())
            for i, unit in enumerate(ref.allies):
                for number in np.flatnonzero(avail[i]).tolist():
                    target = 0
                    if number >= features.TARGETS:
                        group = ref.allies if ref.heals[i] else ref.enemies
                        target = group[number - features.TARGETS].tag
                    expected = sc_pb.RequestAction()
                    if unit.health > 0:
                        commands.add_command(
                            expected,
                            number,
                            unit.tag,
                            unit.pos.x,
                            unit.pos.y,
                            env._move_amount,
                            target,
                            ref.heals[i],
                        )
                    got = env.get_agent_action(i, number)
                    assert got == (expected.actions[0] if expected.actions else None), (i, number)
                    compared += got is not None
                unavailable = np.flatnonzero(avail[i] == 0)
                if unavailable.size:
                    with pytest.raises(errors.InvalidActionError):
                        env.get_agent_action(i, int(unavailable[0]))
            _, terminated, _ = env.step(np.argmax(rng.random(avail.shape) * avail, axis=1))
            if terminated:
                env.reset()
    finally:
        env.close()
    assert compared > 100
