"""parallel_vector_env: N two-player games batched per agent, each game's two engine processes over real sockets."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from sc2env import errors
from sc2env.env import parallel_env, parallel_vector_env
from sc2env.env.parallel import AGENTS
from sc2env.interface import FUNCTIONS

SMALL = dict(
    engine="builtin",
    screen_size=16,
    minimap_size=16,
    step_mul=16,
    request_timeout_s=30.0,
    functions=["no_op", "select_army", "Attack_minimap"],
)
GAMES = 2


@pytest.fixture
def vector():
    env = parallel_vector_env("DuelMarines", num_envs=GAMES, **SMALL)
    yield env
    env.close()


def scripted(obs: dict, agent: str) -> object:
    """select_army, then attack-move across (player_1 starts west, player_2 east)."""
    if FUNCTIONS.Attack_minimap.id not in np.flatnonzero(obs["action_mask"][: len(FUNCTIONS)]):
        return FUNCTIONS.select_army("select")
    return FUNCTIONS.Attack_minimap("now", (13, 8) if agent == "player_1" else (3, 8))


def batched_actions(obs: dict) -> dict:
    """The scripted action of each agent in each game, from the batched observations."""
    return {
        agent: [scripted({k: v[i] for k, v in obs[agent].items()}, agent) for i in range(GAMES)]
        for agent in AGENTS
    }


def test_each_game_is_the_lone_game_of_its_seed_stacked_per_agent(vector):
    obs, infos = vector.reset(seed=5)
    for agent in AGENTS:
        assert vector.observation_space(agent).contains(obs[agent])
        assert obs[agent]["feature_screen"].shape[0] == GAMES and len(infos[agent]) == GAMES
        assert vector.action_masks(agent).shape == (GAMES, obs[agent]["action_mask"].shape[1])
    steps = [obs]
    for _ in range(6):
        obs, rewards, terminations, _, infos = vector.step(batched_actions(obs))
        assert rewards["player_1"].shape == (GAMES,) and terminations["player_2"].dtype == bool
        steps.append(obs)
    for game in range(GAMES):
        alone = parallel_env("DuelMarines", **SMALL)
        try:
            lone, _ = alone.reset(seed=5 + game)
            for t, batched in enumerate(steps):
                for agent in AGENTS:
                    for key in ("feature_screen", "feature_minimap", "game_loop", "action_mask"):
                        np.testing.assert_array_equal(
                            batched[agent][key][game], lone[agent][key], f"{t} {key}"
                        )
                if t + 1 < len(steps):
                    lone = alone.step({a: scripted(lone[a], a) for a in AGENTS})[0]
        finally:
            alone.close()
    assert not np.array_equal(
        steps[-1]["player_1"]["feature_minimap"][0], steps[-1]["player_1"]["feature_minimap"][1]
    )


def test_a_game_that_ended_starts_its_next_episode_at_the_next_step():
    env = parallel_vector_env("DuelMarines", num_envs=GAMES, max_episode_steps=3, **SMALL)
    try:
        obs, _ = env.reset(seed=1)
        noop = {
            agent: np.zeros((GAMES, *env.single_action_spaces[agent].shape), np.int64) for agent in AGENTS
        }
        for _ in range(3):
            obs, rewards, terminations, truncations, _ = env.step(noop)
        for agent in AGENTS:
            assert truncations[agent].all() and not terminations[agent].any()  # the step cap, in both games
        assert (obs["player_1"]["game_loop"][:, 0] == 48).all()
        obs, rewards, terminations, truncations, _ = env.step(noop)  # ignored: the games reset instead
        for agent in AGENTS:
            assert (obs[agent]["game_loop"][:, 0] == 0).all()
            assert not rewards[agent].any() and not truncations[agent].any() and not terminations[agent].any()
        obs, *_ = env.step(noop)
        assert (obs["player_2"]["game_loop"][:, 0] == 16).all()
    finally:
        env.close()


def test_bad_arguments_are_refused_with_the_reason():
    vector = parallel_vector_env("DuelMarines", num_envs=GAMES, invalid_action="raise", **SMALL)
    try:
        refusals(vector)
    finally:
        vector.close()


def refusals(vector) -> None:
    with pytest.raises(errors.ProtocolError, match="reset"):
        vector.step({agent: [0, 0] for agent in AGENTS})
    obs, _ = vector.reset(seed=[7, 8])
    with pytest.raises(errors.InvalidActionError, match="missing"):
        vector.step({"player_1": [FUNCTIONS.no_op()] * GAMES})
    with pytest.raises(errors.InvalidActionError, match="2 actions for player_2"):
        vector.step({"player_1": [FUNCTIONS.no_op()] * GAMES, "player_2": [FUNCTIONS.no_op()]})
    # An action outside the functions in game 1 refuses the step before game 0's is sent: both games stay where they are.
    bad = {agent: [FUNCTIONS.no_op(), FUNCTIONS.Attack_screen("now", (3, 3))] for agent in AGENTS}
    with pytest.raises(errors.InvalidActionError, match="Attack_screen"):
        vector.step(bad)
    obs, *_ = vector.step({agent: [FUNCTIONS.no_op()] * GAMES for agent in AGENTS})
    assert (obs["player_1"]["game_loop"][:, 0] == 16).all()
    with pytest.raises(ValueError, match="3 seeds for 2 games"):
        vector.reset(seed=[1, 2, 3])
    with pytest.raises(ValueError, match="num_envs"):
        parallel_vector_env("DuelMarines", num_envs=0)
