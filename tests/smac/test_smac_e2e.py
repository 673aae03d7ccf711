"""SMAC's scenarios end to end: the env starts the built-in engine as a process and plays over a real websocket
(and through an SC2-install-shaped folder with engine="sc2"), every scenario, seeds, crashes, PettingZoo."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import warnings

import numpy as np
import pytest
from test_smac_sizes import EXPECTED

from sc2env import errors
from sc2env.mapfiles import definitions_dir
from sc2env.smac import SMAC_SCENARIOS, StarCraft2Env, get_scenario, parallel_env


@pytest.fixture(autouse=True)
def _games_in_their_own_processes(monkeypatch):
    """These tests are about the game process and its socket: every env here starts one (not direct mode;
    tests/smac/test_smac_direct.py compares the two)."""
    monkeypatch.setenv("SC2ENV_DIRECT", "0")


@pytest.fixture(scope="module")
def engine_plays_smac():
    """Skip when the built-in engine does not yet know SMAC's maps (its scenarios are issue 26's engine part)."""
    env = StarCraft2Env(map_name="3m", engine="builtin")
    try:
        env.reset()
    except errors.RequestError as error:
        if "MissingMap" in str(error):
            pytest.skip("the built-in engine does not play SMAC's maps yet")
        raise
    finally:
        env.close()


def play_random_episode(env: StarCraft2Env, rng: np.random.Generator) -> tuple[int, float, dict]:
    """Steps, total reward and the last info of one random episode; checks every step's vectors."""
    obs, state = env.reset()
    steps, total, info = 0, 0.0, {}
    terminated = False
    while not terminated:
        assert len(obs) == env.n_agents and all(o.shape == (env.get_obs_size(),) for o in obs)
        assert state.shape == (env.get_state_size(),) and state.dtype == np.float32
        avail = np.array(env.get_avail_actions())
        assert avail.shape == (env.n_agents, env.n_actions) and (avail.sum(axis=1) >= 1).all()
        actions = np.argmax(rng.random(avail.shape) * avail, axis=1)
        reward, terminated, info = env.step(actions)
        assert np.isfinite(reward) and reward >= 0  # reward_only_positive
        total += reward
        steps += 1
        obs, state = env.get_obs(), env.get_state()
    return steps, total, info


@pytest.mark.parametrize("name", SMAC_SCENARIOS)
def test_every_scenario_plays_a_random_episode(engine_plays_smac, name):
    scenario = get_scenario(name)
    if not (definitions_dir() / "smac" / f"{scenario.map_file}.json").is_file():
        pytest.skip(
            f"the built-in engine does not play {scenario.map_file} yet (tools/smac_engine_maps.py says why)"
        )
    with StarCraft2Env(map_name=name, engine="builtin", seed=1) as env:
        steps, _, info = play_random_episode(env, np.random.default_rng(0))
        sizes = env.get_env_info()
        agents, enemies, limit, actions, obs, state = EXPECTED[name]  # SMAC's, from its formulas
        assert (sizes["n_agents"], env.n_enemies, sizes["episode_limit"]) == (agents, enemies, limit)
        assert (sizes["n_actions"], sizes["obs_shape"], sizes["state_shape"]) == (actions, obs, state)
        assert 1 <= steps <= scenario.limit
        assert set(info) >= {"battle_won", "dead_allies", "dead_enemies"}
        assert (
            0 <= info["dead_allies"] <= scenario.n_agents and 0 <= info["dead_enemies"] <= scenario.n_enemies
        )
        kinds = env.agent_kinds
        assert len(kinds) == scenario.n_agents
        # The agents' types are the map's own (after every real type), the enemy's real ones.
        types = env.get_unit_types()
        assert min(types[: scenario.n_agents]) == env._min_unit_type > 1000
        assert max(types[scenario.n_agents :]) < env._min_unit_type
        assert env.get_stats()["battles_game"] == 1
        env.reset()  # the map brings everyone back after SMAC's kill
        assert not env.get_visibility_matrix()[:, : env.n_agents].diagonal().any()


def test_determinism_under_a_seed(engine_plays_smac):
    def run(seed: int) -> list:
        record = []
        with StarCraft2Env(map_name="3m", engine="builtin", seed=seed) as env:
            rng = np.random.default_rng(7)
            for _ in range(2):
                env.reset()
                record.append(env.get_state().tobytes())
                terminated = False
                while not terminated:
                    avail = np.array(env.get_avail_actions())
                    reward, terminated, _ = env.step(np.argmax(rng.random(avail.shape) * avail, axis=1))
                    record.append((reward, env.get_state().tobytes(), np.array(env.get_obs()).tobytes()))
        return record

    assert run(5) == run(5)


def test_a_killed_engine_surfaces_as_an_error_and_the_next_reset_recovers(engine_plays_smac):
    with StarCraft2Env(map_name="3m", engine="builtin") as env:
        env.reset()
        process = env._game.match.process
        os.kill(process.pid, signal.SIGKILL)
        with pytest.raises(errors.ConnectionError):
            for _ in range(5):
                env.step([1, 1, 1])
        obs, _ = env.reset()
        assert len(obs) == 3 and env.get_stats()["restarts"] == 1
        assert env._game.match.process.pid != process.pid and not process.running
        env.step([1, 1, 1])


def test_pettingzoo_api_on_the_engine(engine_plays_smac):
    from pettingzoo.test import parallel_api_test

    env = parallel_env(map_name="3m", engine="builtin")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        parallel_api_test(env, num_cycles=100)
    env.close()


def test_the_heuristic_wins_3m_more_often_than_not(engine_plays_smac):
    with StarCraft2Env(map_name="3m", engine="builtin", seed=0, heuristic_ai=True) as env:
        for _ in range(5):
            env.reset()
            terminated = False
            while not terminated:
                _, terminated, _ = env.step([1, 1, 1])
        assert env.get_stats()["battles_won"] >= 3


def test_the_agents_units_never_fight_on_their_own(engine_plays_smac):
    """SMAC's maps give the agents `_RL` copies of the real units (DefaultAcquireLevel Passive, Response
    Nothing): told only to stop, they neither acquire the attacking enemy nor fight back, and lose unhurt
    enemies."""
    with StarCraft2Env(map_name="3m", engine="builtin", seed=0) as env:
        env.reset()
        terminated, info, steps = False, {}, 0
        while not terminated:
            stop_if_alive = [1 if avail[1] else 0 for avail in env.get_avail_actions()]
            _, terminated, info = env.step(stop_if_alive)
            steps += 1
        assert not info["battle_won"] and info["dead_allies"] == 3 and info["dead_enemies"] == 0
        assert steps < env.episode_limit, "the enemy's attack-move reached and killed the agents"
        assert [u.health for u in env.enemies.values()] == [45.0, 45.0, 45.0]


def test_the_real_game_path_through_an_install_folder(engine_plays_smac, tmp_path):
    """engine="sc2" with SMAC's maps in the install: the env finds Maps/SMAC_Maps/3m.SC2Map, sends its bytes
    as SMAC does, and plays (the install's SC2_x64 is the built-in engine behind SC2_x64's command line)."""
    subprocess.run(
        [sys.executable, "-m", "sc2env.engine", "--make-sc2path", str(tmp_path)],
        check=True,
        capture_output=True,
    )
    if not (tmp_path / "Maps" / "SMAC_Maps" / "3m.SC2Map").is_file():
        pytest.skip("--make-sc2path does not lay out SMAC's maps yet")
    with StarCraft2Env(map_name="3m", engine="sc2", sc2path=tmp_path) as env:
        steps, _, _ = play_random_episode(env, np.random.default_rng(1))
        assert steps >= 1
        assert env._game.match.map.file == tmp_path / "Maps" / "SMAC_Maps" / "3m.SC2Map"
