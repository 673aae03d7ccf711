"""parallel_env: two agents on a duel map through PettingZoo, two engine processes over real sockets."""

from __future__ import annotations

import os
import signal

import numpy as np
import pytest

pytest.importorskip("pettingzoo")
from pettingzoo.test import parallel_api_test

from sc2env import errors
from sc2env.env import parallel_env
from sc2env.interface import FUNCTIONS, RAW_FUNCTIONS, FeatureUnit, PlayerRelative

SMALL = dict(engine="builtin", screen_size=16, minimap_size=16, step_mul=16, request_timeout_s=30.0)
SELF = 1


@pytest.fixture
def make():
    made = []

    def build(map_name: str = "DuelMarines", **options):
        env = parallel_env(map_name, **(SMALL | options))
        made.append(env)
        return env

    yield build
    for env in made:
        env.close()


def attack_across(obs: dict, agent: str) -> object:
    """select_army, then attack-move to the other side (player_1 starts west, player_2 east)."""
    if FUNCTIONS.Attack_minimap.id not in np.flatnonzero(obs["action_mask"][: len(FUNCTIONS)]):
        return FUNCTIONS.select_army("select")
    return FUNCTIONS.Attack_minimap("now", (13, 8) if agent == "player_1" else (3, 8))


def test_passes_pettingzoos_parallel_api_test(make):
    parallel_api_test(make(max_episode_steps=12), num_cycles=15)


def test_each_player_observes_its_own_side(make):
    env = make()
    obs, infos = env.reset(seed=3)
    assert env.agents == ["player_1", "player_2"] and set(infos) == set(env.agents)
    for agent in env.agents:
        assert env.observation_space(agent).contains(obs[agent])
        assert obs[agent]["player"][0] == int(agent[-1])  # player_id
    relative = [obs[a]["feature_minimap"][5] for a in env.agents]  # player_relative on the minimap
    mine = [np.argwhere(r == PlayerRelative.SELF)[:, 1].mean() for r in relative]
    assert mine[0] < 8 < mine[1]  # player_1's army west, player_2's east, each drawn as its own
    assert not (relative[0] == PlayerRelative.ENEMY).any()  # fog: neither sees the other yet
    assert not (relative[1] == PlayerRelative.ENEMY).any()


def test_a_fight_to_the_end_with_feature_and_raw_actions_per_agent(make):
    env = make(agent_options={"player_2": {"actions": "raw", "max_units": 32}})
    assert env.action_space("player_2").shape == (5,) and env.action_space("player_1").shape == (14,)
    obs, _ = env.reset(seed=5)
    returns = dict.fromkeys(env.possible_agents, 0.0)
    commanded = 0
    for _ in range(300):
        units = obs["player_2"]["raw_units"]
        mine = [
            i for i in range(int(obs["player_2"]["unit_counts"][1])) if units[i, FeatureUnit.alliance] == SELF
        ]
        actions = {
            "player_1": attack_across(obs["player_1"], "player_1"),
            "player_2": RAW_FUNCTIONS.Attack_pt("now", mine, (14, 32)) if mine else RAW_FUNCTIONS.no_op(),
        }
        commanded += bool(mine)
        obs, rewards, terms, truncs, infos = env.step(actions)
        for agent, reward in rewards.items():
            returns[agent] += reward
        assert not any(info["invalid_action"] for info in infos.values()), infos
        assert infos["player_1"]["game_loop"] == infos["player_2"]["game_loop"]
        if any(terms.values()) or any(truncs.values()):
            break
    assert terms == {"player_1": True, "player_2": True} and env.agents == []
    assert commanded > 0  # the raw player's Marines were ordered to attack
    outcomes = {agent: info["outcome"] for agent, info in infos.items()}
    assert outcomes["player_1"] == -outcomes["player_2"]
    assert returns == {agent: float(outcome) for agent, outcome in outcomes.items()}
    with pytest.raises(errors.ProtocolError, match="reset"):
        env.step({})


def test_the_same_seed_plays_the_same_game(make):
    env = make()
    first, _ = env.reset(seed=11)
    env.step({agent: FUNCTIONS.select_army("select") for agent in env.agents})
    again, _ = env.reset(seed=11)
    other, _ = env.reset(seed=12)
    for agent in env.possible_agents:
        np.testing.assert_array_equal(first[agent]["feature_minimap"], again[agent]["feature_minimap"])
    assert any(
        not np.array_equal(first[a]["feature_minimap"], other[a]["feature_minimap"])
        for a in env.possible_agents
    )


def test_render_shows_both_views_side_by_side(make):
    env = make(render_mode="rgb_array", render_size=(64, 64))
    env.reset(seed=1)
    frame = env.render()
    assert frame.shape == (64, 128, 3) and frame.dtype == np.uint8
    assert not np.array_equal(frame[:, :64], frame[:, 64:])  # each player's own view


@pytest.mark.parametrize(("killed", "on_crash"), [(1, "raise"), (2, "raise"), (2, "truncate")])
def test_a_players_process_killed_mid_game(make, killed, on_crash, marked_games):
    env = make(on_crash=on_crash)
    env.reset(seed=2)
    no_op = {agent: FUNCTIONS.no_op() for agent in env.agents}
    env.step(no_op)
    os.kill(env.game.seats[killed - 1].process.pid, signal.SIGKILL)
    if on_crash == "raise":
        with pytest.raises(errors.GameCrashedError, match=f"player {killed}'s game was lost"):
            for _ in range(3):
                env.step(no_op)
    else:
        for _ in range(3):
            _, _, terms, truncs, infos = env.step(no_op)
            if env.agents == []:
                break
        assert truncs == {"player_1": True, "player_2": True} and not any(terms.values())
        assert "player 2's game was lost" in infos["player_1"]["crash"]
    assert env.agents == []
    obs, _ = env.reset()  # both games anew
    assert obs["player_2"]["game_loop"][0] == 0
    env.close()
    assert marked_games() == []


def test_bad_arguments_are_refused_with_the_reason(make):
    with pytest.raises(ValueError, match="no map two agents play"):
        parallel_env("MoveToBeacon")
    with pytest.raises(ValueError, match="agent_options takes the agents"):
        parallel_env("DuelMarines", agent_options={"player_3": {}})
    with pytest.raises(ValueError, match="the game's, not player_2's"):
        parallel_env("DuelMarines", agent_options={"player_2": {"step_mul": 4}})
    env = make()
    env.reset(seed=1)
    with pytest.raises(errors.InvalidActionError, match="missing"):
        env.step({"player_1": FUNCTIONS.no_op()})


def test_simple64_two_agents_each_see_their_own_base(make):
    env = make("Simple64", agent_options={"player_2": {"actions": "raw", "max_units": 64}})
    obs, _ = env.reset(seed=1)
    relative = [obs[a]["feature_minimap"][5] for a in env.agents]
    mine = [np.argwhere(r == PlayerRelative.SELF).mean(axis=0) for r in relative]
    assert np.linalg.norm(mine[0] - mine[1]) > 4  # two bases apart, each player's drawn as its own
    units = obs["player_2"]["raw_units"][: int(obs["player_2"]["unit_counts"][1])]
    assert (units[:, FeatureUnit.alliance] == SELF).sum() >= 13  # a Command Center and 12 SCVs
    for _ in range(3):
        obs, _, terms, _, infos = env.step({"player_1": FUNCTIONS.no_op(), "player_2": RAW_FUNCTIONS.no_op()})
    assert not any(terms.values()) and infos["player_1"]["game_loop"] == infos["player_2"]["game_loop"] == 48


def test_an_observer_watches_the_agents_game_in_lock_step(make):
    from sc2env.game import ObserverConfig
    from sc2env.interface import InterfaceFormat

    watcher = ObserverConfig(0, InterfaceFormat(screen_size=16, minimap_size=16))
    env = make(observers=[watcher])
    env.reset(seed=3)
    (observer,) = env.observers
    minimap = observer.observe().feature_minimap.player_id
    assert set(np.unique(minimap)) >= {1, 2}  # the whole map: both armies, unfogged
    for _ in range(3):
        env.step({agent: FUNCTIONS.no_op() for agent in env.agents})
    assert observer.observe()["game_loop"][0] == 48  # stepped with the agents, 16 loops a step
    env.close()
    assert observer.process is None
