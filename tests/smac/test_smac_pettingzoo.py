"""The PettingZoo parallel env over SMAC: PettingZoo's own API test, names, masks, dead agents, time limits, on
a scripted stand-in game (the end-to-end test on the engine is in test_smac_e2e.py)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from fake_game import FakeGame, ToyCombat
from pettingzoo.test import parallel_api_test
from test_smac_features import marines, mmm

from sc2env import errors
from sc2env.smac import parallel_env


def make(map_name="3m", **kwargs):
    return parallel_env(map_name=map_name, game=FakeGame(on_step=ToyCombat()), **kwargs)


def test_passes_pettingzoos_parallel_api_test_without_warnings():
    env = make()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # PettingZoo reports most departures from its API as warnings
        parallel_api_test(env, num_cycles=200)
    env.close()


def test_agents_are_named_by_kind_in_smac_order():
    assert make().possible_agents == ["marine_0", "marine_1", "marine_2"]
    names = parallel_env(map_name="MMM", game=FakeGame(spawn=mmm)).possible_agents
    assert names == ["marauder_0", "marauder_1", *[f"marine_{i}" for i in range(7)], "medivac_0"]
    assert parallel_env(map_name="1c3s5z").possible_agents[:5] == [
        "colossus_0",
        "stalker_0",
        "stalker_1",
        "stalker_2",
        "zealot_0",
    ]


def test_spaces_and_first_observations():
    env = make()
    observations, infos = env.reset(seed=3)
    assert set(observations) == set(infos) == set(env.agents) == set(env.possible_agents)
    obs = observations["marine_0"]
    assert env.observation_space("marine_0").contains(obs)
    assert env.action_space("marine_0").n == 8  # SMAC's 9 actions less the no-op
    np.testing.assert_array_equal(obs["action_mask"], env.env.get_avail_agent_actions(0)[1:])
    np.testing.assert_array_equal(obs["observation"], env.env.get_obs_agent(0))
    assert env.state_space.contains(env.state()) and env.state().shape == (48,)


def test_actions_are_smacs_without_the_no_op():
    game = FakeGame(spawn=marines)
    env = parallel_env(map_name="3m", game=game)
    env.reset()
    env.step({"marine_0": 0, "marine_1": 1, "marine_2": 5})  # stop, north, attack enemy 0
    sent = [a.action_raw.unit_command for a in game.sent[-1]]
    assert [c.ability_id for c in sent] == [4, 16, 23] and sent[2].target_unit_tag == 4


def test_a_dead_agent_terminates_once_and_leaves():
    game = FakeGame()
    env = parallel_env(map_name="3m", game=game)
    env.reset()
    game.remove(2)  # marine_1's unit
    observations, rewards, terminations, truncations, infos = env.step(dict.fromkeys(env.agents, 0))
    assert terminations == {"marine_0": False, "marine_1": True, "marine_2": False}
    assert not any(truncations.values()) and set(rewards) == set(infos) == set(observations)
    assert (
        not observations["marine_1"]["observation"].any()
        and not observations["marine_1"]["action_mask"].any()
    )
    assert env.agents == ["marine_0", "marine_2"]
    _, rewards, terminations, _, _ = env.step({"marine_0": 0, "marine_2": 0})
    assert set(rewards) == set(terminations) == {"marine_0", "marine_2"}
    with pytest.raises(errors.InvalidActionError, match=r"\['marine_1'\] are not live agents"):
        env.step({"marine_0": 0, "marine_1": 0, "marine_2": 0})


def test_a_battles_end_terminates_everyone_and_the_time_limit_truncates():
    game = FakeGame()
    env = parallel_env(map_name="3m", game=game)
    env.reset()
    game.remove(4, 5, 6)
    _, rewards, terminations, truncations, infos = env.step(dict.fromkeys(env.agents, 0))
    assert all(terminations.values()) and not any(truncations.values()) and env.agents == []
    assert infos["marine_0"]["battle_won"] and rewards["marine_0"] > 0
    env.reset()
    for _ in range(59):
        env.step(dict.fromkeys(env.agents, 0))
    _, _, terminations, truncations, _ = env.step(dict.fromkeys(env.agents, 0))
    assert all(truncations.values()) and not any(terminations.values()) and env.agents == []


def test_max_cycles_truncates_early():
    env = parallel_env(map_name="3m", game=FakeGame(), max_cycles=3)
    env.reset()
    for _ in range(2):
        assert not any(env.step(dict.fromkeys(env.agents, 0))[3].values())
    assert all(env.step(dict.fromkeys(env.agents, 0))[3].values())


def test_missing_and_masked_actions_are_refused():
    env = make()
    env.reset()
    with pytest.raises(errors.InvalidActionError, match="marine_2 is alive and needs an action"):
        env.step({"marine_0": 0, "marine_1": 0})
    with pytest.raises(
        errors.InvalidActionError, match="marine_0 cannot take action 7 now: its action_mask allows"
    ):
        env.step({"marine_0": 7, "marine_1": 0, "marine_2": 0})


def test_render_needs_a_mode():
    env = make(render_mode="rgb_array")
    env.reset()
    assert env.render().shape == (512, 512, 3)
    with pytest.raises(errors.ProtocolError, match="needs a render_mode"):
        plain = make()
        plain.reset()
        plain.render()
