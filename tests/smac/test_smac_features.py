"""Observations, state, available actions and visibility against values worked out by hand from SMAC's
formulas, on synthetic raw observations (a scripted stand-in game: no engine)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from fake_game import MARINE, MARINE_RL, FakeGame, game_info, unit

from sc2env.smac import StarCraft2Env


def marines(t0: int):
    # Sorted by (type, x, y) the agents are: id 0 = tag 3 (8.5, 16.5), id 1 = tag 2 (9, 15), id 2 = tag 1 (9, 16).
    return [
        unit(t0, MARINE_RL, 1, 9.0, 16.0, 45),
        unit(t0 + 1, MARINE_RL, 1, 9.0, 15.0, 30, 45, cooldown=7.5),
        unit(t0 + 2, MARINE_RL, 1, 8.5, 16.5, 45),
        unit(t0 + 3, MARINE, 2, 13.0, 16.0, 45),  # 4 from agent 2: seen and in range
        unit(t0 + 4, MARINE, 2, 15.0, 16.0, 36, 45),  # 6 from agent 2: in range (<= 6)
        unit(t0 + 5, MARINE, 2, 20.0, 16.0, 45),  # 11 from agent 2: out of sight (>= 9)
    ]


@pytest.fixture
def env3m():
    game = FakeGame(spawn=marines)
    env = StarCraft2Env(map_name="3m", game=game)
    env.reset()
    yield env, game
    env.close()


def test_agents_are_numbered_by_type_then_x_then_y_and_enemies_as_observed(env3m):
    env, _ = env3m
    assert [env.get_unit_by_id(i).tag for i in range(3)] == [3, 2, 1]
    assert [env.enemies[j].tag for j in range(3)] == [4, 5, 6]
    assert env.get_unit_types() == [MARINE_RL] * 3 + [MARINE] * 3
    assert env.marine_id == MARINE_RL and env._min_unit_type == MARINE_RL


def test_observation_of_an_agent_by_hand(env3m):
    env, _ = env3m
    r = math.sqrt(0.5)
    expected = [
        *[
            1,
            1,
            1,
            1,
        ],  # north (9, 17), south (9, 15), east (10, 16), west (8, 16): all on pathable rows 8..23
        *[1, 4 / 9, 4 / 9, 0, 1],  # enemy 0: attackable, distance, dx, dy, health
        *[1, 6 / 9, 6 / 9, 0, 36 / 45],  # enemy 1 at exactly the shooting range
        *[0, 0, 0, 0, 0],  # enemy 2 at 11: out of sight
        *[1, r / 9, -0.5 / 9, 0.5 / 9, 1],  # agent 0: visible, distance, dx, dy, health
        *[1, 1 / 9, 0, -1 / 9, 30 / 45],  # agent 1
        1,  # own health
    ]
    obs = env.get_obs_agent(2)
    assert obs.dtype == np.float32 and obs.shape == (30,)
    np.testing.assert_array_equal(obs, np.array(expected, np.float32))
    np.testing.assert_array_equal(env.get_obs()[2], obs)


def test_available_actions_by_hand(env3m):
    env, _ = env3m
    # Agent 2 (9, 16) reaches enemies 0 and 1; agent 0 (8.5, 16.5) is 4.5 and 6.5 from them; agent 1 (9, 15)
    # is sqrt(17) and sqrt(37) ~ 6.08 away.
    assert env.get_avail_agent_actions(2) == [0, 1, 1, 1, 1, 1, 1, 1, 0]
    assert env.get_avail_agent_actions(0) == [0, 1, 1, 1, 1, 1, 1, 0, 0]
    assert env.get_avail_actions()[1] == [0, 1, 1, 1, 1, 1, 1, 0, 0]


def test_state_by_hand(env3m):
    env, _ = env3m
    allies = [
        [1, 0, (8.5 - 16) / 32, (16.5 - 16) / 32],
        [30 / 45, 7.5 / 15, (9 - 16) / 32, (15 - 16) / 32],  # cooldown over the Marine's 15 loops
        [1, 0, (9 - 16) / 32, 0],
    ]
    enemies = [[1, (13 - 16) / 32, 0], [36 / 45, (15 - 16) / 32, 0], [1, (20 - 16) / 32, 0]]
    last_action = np.zeros(3 * 9)
    expected = np.concatenate([np.ravel(allies), np.ravel(enemies), last_action]).astype(np.float32)
    np.testing.assert_array_equal(env.get_state(), expected)
    parts = env.get_state_dict()
    np.testing.assert_allclose(parts["allies"], allies)
    assert set(parts) == {"allies", "enemies", "last_action"}


def test_visibility_matrix(env3m):
    env, _ = env3m
    seen = env.get_visibility_matrix()
    assert seen.dtype == bool and seen.shape == (3, 6)
    np.testing.assert_array_equal(seen[:, :3], ~np.eye(3, dtype=bool))  # every pair of agents within 9
    np.testing.assert_array_equal(seen[:, 3:], [[1, 1, 0], [1, 1, 0], [1, 1, 0]])


def test_a_dead_agent_sees_nothing_and_may_only_no_op(env3m):
    env, game = env3m
    game.remove(2)  # agent 1 dies
    env.step([1, 1, 1])
    assert env.get_avail_agent_actions(1) == [1, 0, 0, 0, 0, 0, 0, 0, 0]
    assert not env.get_obs_agent(1).any()
    assert not env.get_state()[4:8].any()  # its state row
    assert env.get_unit_by_id(1).health == 0 and env.get_unit_by_id(1).tag == 2
    assert env.get_obs_agent(2)[4 + 15 + 5] == 0  # the others no longer see it
    assert not env.get_visibility_matrix()[1].any() and not env.get_visibility_matrix()[:, 1].any()


def test_last_actions_in_state_and_observation():
    game = FakeGame(spawn=marines)
    env = StarCraft2Env(map_name="3m", game=game, obs_last_action=True, state_timestep_number=True)
    env.reset()
    env.step([1, 2, 6])
    state = env.get_state()
    np.testing.assert_array_equal(state[21:48].reshape(3, 9), np.eye(9)[[1, 2, 6]])
    assert state[-1] == np.float32(1 / 60)  # one step of 60
    obs = env.get_obs_agent(2)
    # Agent 2 sees agents 0 and 1 with their last actions after their 5 features (each 5 + 9 long).
    ally0 = obs[4 + 15 : 4 + 15 + 14]
    np.testing.assert_array_equal(ally0[5:], np.eye(9)[1])
    ally1 = obs[4 + 15 + 14 : 4 + 15 + 28]
    np.testing.assert_array_equal(ally1[5:], np.eye(9)[2])


def test_observation_timestep_is_the_last_value_even_for_the_dead():
    game = FakeGame(spawn=marines)
    env = StarCraft2Env(map_name="3m", game=game, obs_timestep_number=True)
    env.reset()
    game.remove(2)
    env.step([1, 1, 1])
    env.step([1, 0, 1])
    obs = np.array(env.get_obs())
    assert obs.shape == (3, 31)
    np.testing.assert_array_equal(obs[:, -1], np.float32(2 / 60))
    assert not obs[1, :-1].any()


def test_moves_probe_half_a_move_away_truncated():
    """SMAC checks the cell half the move away, truncating coordinates (int()): at x = 0.5, west probes
    int(-0.5) = 0, which is on the map."""

    def spawn(t0):
        return [
            unit(t0, MARINE_RL, 1, 0.5, 22.9, 45),  # north: int(23.9) = 23, pathable; south int(21.9) = 21
            unit(t0 + 1, MARINE_RL, 1, 5.0, 23.1, 45),  # north: int(24.1) = 24, not pathable
            unit(
                t0 + 2, MARINE_RL, 1, 31.5, 8.5, 45
            ),  # east int(32.5) off the map; south int(7.5) = 7 blocked
            unit(t0 + 3, MARINE, 2, 20, 16, 45),
            unit(t0 + 4, MARINE, 2, 21, 16, 45),
            unit(t0 + 5, MARINE, 2, 22, 16, 45),
        ]

    env = StarCraft2Env(map_name="3m", game=FakeGame(spawn=spawn))
    env.reset()
    assert [a[2:6] for a in env.get_avail_actions()] == [[1, 1, 1, 1], [0, 1, 1, 1], [1, 0, 0, 1]]
    assert env.can_move(env.get_unit_by_id(1), 0) is False and env.can_move(env.get_unit_by_id(0), 3) is True


def test_pathing_and_flipped_height_around_an_agent():
    heights = np.add.outer(np.arange(32), np.arange(32)).astype(np.uint8)  # row r (y = r), column c: r + c

    def spawn(t0):
        return [
            unit(t0, MARINE_RL, 1, 1.5, 20.0, 45),
            unit(t0 + 1, MARINE_RL, 1, 10.0, 16.0, 45),
            unit(t0 + 2, MARINE_RL, 1, 10.0, 12.0, 45),
            *[unit(t0 + 3 + i, MARINE, 2, 25, 12 + i, 45) for i in range(3)],
        ]

    env = StarCraft2Env(
        map_name="3m",
        game=FakeGame(spawn=spawn, info=game_info(heights=heights)),
        obs_pathing_grid=True,
        obs_terrain_height=True,
    )
    env.reset()
    obs = env.get_obs_agent(0)  # at (1.5, 20): cells from x = 1, y = 20, two moves (4) and one (2) away
    # (1, 24) blocked; (1, 16), (5, 20) pathable; (-3, 20) off the map: 1; (3, 22), (3, 18) pathable; (-1, 18)
    # and (-1, 22) off the map: 1.
    np.testing.assert_array_equal(obs[4:12], [0, 1, 1, 1, 1, 1, 1, 1])
    # SMAC's heights are upside down: at cell (x, y) it reads row 31 - y, i.e. (31 - y + x) / 255 here.
    points = [(1, 24), (1, 16), (5, 20), (-3, 20), (3, 22), (-1, 18), (3, 18), (-1, 22), (1, 20)]
    expected = [(31 - y + x) / 255 if 0 <= x < 32 else 1.0 for x, y in points]
    np.testing.assert_array_equal(obs[12:21], np.array(expected, np.float32))
    assert env.get_surrounding_points(env.get_unit_by_id(0), include_self=True) == points


def stalkers_and_zealots(t0):
    # The map's own types: Stalker_RL 2100, Zealot_RL 2101. Enemies: Zealot 73, Stalker 74.
    return [
        unit(t0, 2101, 1, 10.0, 16.0, 100, shield=25, shield_max=50),
        unit(t0 + 1, 2100, 1, 9.0, 16.0, 80, shield=40, shield_max=80, cooldown=14),
        *[unit(t0 + 2 + i, 2101, 1, 9.0, 13.0 + i, 100, shield=50, shield_max=50) for i in range(3)],
        unit(t0 + 5, 73, 2, 14.0, 16.0, 50, 100, shield=10, shield_max=50),
        unit(t0 + 6, 74, 2, 15.0, 16.0, 80, shield=80, shield_max=80),
        *[unit(t0 + 7 + i, 73, 2, 25.0, 12.0 + i, 100, shield=50, shield_max=50) for i in range(3)],
    ]


def test_shields_and_type_one_hots_of_stalkers_and_zealots():
    env = StarCraft2Env(map_name="2s3z", game=FakeGame(spawn=stalkers_and_zealots))
    env.reset()
    assert (env.stalker_id, env.zealot_id) == (2100, 2101)
    stalker = env.get_obs_agent(0)  # the Stalker at (9, 16) comes first: lower type id
    enemy_feats = stalker[4 : 4 + 5 * 8].reshape(5, 8)
    # Zealot at 5: [attackable, distance, dx, dy, health, shield, one-hot]; SMAC's enemy one-hot puts the
    # Zealot first and the Stalker second, the reverse of the agents' one-hot.
    np.testing.assert_allclose(enemy_feats[0], [1, 5 / 9, 5 / 9, 0, 0.5, 10 / 50, 1, 0], rtol=1e-6)
    np.testing.assert_allclose(enemy_feats[1], [1, 6 / 9, 6 / 9, 0, 1, 1, 0, 1], rtol=1e-6)
    own = stalker[-4:]
    np.testing.assert_allclose(
        own, [1, 40 / 80, 1, 0]
    )  # health, shield, Stalker first in the agents' one-hot
    allies = env.get_state_dict()["allies"]
    # Stalker: health, cooldown over 35 loops, position, shield, one-hot in the last two columns.
    np.testing.assert_allclose(allies[0], [1, 14 / 35, (9 - 16) / 32, 0, 0.5, 1, 0])
    # The Zealots are ids 1-4 by x, then y: (9, 13), (9, 14), (9, 15), (10, 16).
    np.testing.assert_allclose(allies[4][-3:], [0.5, 0, 1])  # 25 of 50 shield, second in the one-hot
    np.testing.assert_allclose(allies[1][-3:], [1, 0, 1])
    enemies = env.get_state_dict()["enemies"]
    np.testing.assert_allclose(enemies[0], [0.5, (14 - 16) / 32, 0, 10 / 50, 1, 0])
    assert (
        env.get_unit_type_id(env.enemies[1], ally=False) == 1
        and env.get_unit_type_id(env.agents[0], True) == 0
    )


def mmm(t0):
    # MMM's own types: Marauder_RL 2200, Marine_RL 2201, Medivac_RL 2202.
    return [
        unit(t0, 2202, 1, 10.0, 16.0, 150, energy=100),  # the Medivac: id 9 (the highest type)
        unit(t0 + 1, 2200, 1, 12.0, 16.0, 100, 125, cooldown=5),
        unit(t0 + 2, 2200, 1, 17.0, 16.0, 125),  # 7 from the Medivac: out of healing range
        *[unit(t0 + 3 + i, 2201, 1, 9.0, 10.0 + i, 45) for i in range(7)],
        unit(t0 + 10, 51, 2, 14.0, 16.0, 125),
        unit(t0 + 11, 48, 2, 20.0, 16.0, 45),
        unit(t0 + 12, 54, 2, 21.0, 16.0, 150),
        *[unit(t0 + 13 + i, 48, 2, 25.0, 10.0 + i, 45) for i in range(7)],
    ]


def test_the_medivac_heals_allies_and_shows_energy():
    env = StarCraft2Env(map_name="MMM", game=FakeGame(spawn=mmm))
    env.reset()
    assert (env.marauder_id, env.marine_id, env.medivac_id) == (2200, 2201, 2202)
    assert env.get_unit_by_id(9).unit_type == 2202
    avail = env.get_avail_agent_actions(9)
    # Agents by type, x, y: Marauders (12, 16) id 0 and (17, 16) id 1, Marines (9, 10..16) ids 2-8, the
    # Medivac (10, 16) id 9. Within 6 of it: the Marauder at 2 and the Marines from (9, 11) (sqrt(26)) up;
    # never itself, and no attack on enemies.
    assert [j for j in range(10) if avail[6 + j]] == [0, 3, 4, 5, 6, 7, 8]
    assert avail[:6] == [0, 1, 1, 1, 1, 1] and not any(avail[16:])
    state = env.get_state_dict()["allies"]
    assert state[9][1] == 100 / 200 and state[0][1] == 5 / 25  # energy over 200; Marauder cooldown over 25
    np.testing.assert_array_equal(state[9][-3:], [0, 0, 1])
    # The enemy's one-hot: Marauder 0, Marine 1, Medivac 2.
    np.testing.assert_array_equal(env.get_state_dict()["enemies"][:3, -3:], np.eye(3))
    assert env.get_avail_agent_actions(0)[6] == 1  # the Marauder agent reaches the enemy Marauder at 2


def test_observation_features_of_unseen_and_dead_enemies_are_zero(env3m):
    env, game = env3m
    game.remove(4)  # enemy 0 dies
    env.step([1, 1, 1])
    obs = env.get_obs_agent(2)
    assert not obs[4:9].any()
    assert env.get_avail_agent_actions(2)[6] == 0
    assert not env.get_state_dict()["enemies"][0].any()


def test_old_builds_eight_bit_pathing_grid_is_read_as_smac_reads_it():
    """Builds before 4.x send pathing as a byte per cell, 0 for pathable, rows from the top (SMAC inverts and
    flips it); the 1-bit grid of newer builds has rows from y = 0."""
    info = game_info()
    blocked = np.ones((32, 32), np.uint8)  # [row from the top, x]
    blocked[31 - 16, 5] = 0  # only cell (5, 16) is pathable
    grid = info.start_raw.pathing_grid
    grid.bits_per_pixel, grid.data = 8, blocked.tobytes()
    env = StarCraft2Env(map_name="3m", game=FakeGame(spawn=marines, info=info))
    env.reset()
    assert env.pathing_grid.sum() == 1 and env.pathing_grid[5, 16]
