"""DictActions: the env's action as a Dict of named components, on the built-in engine."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

from sc2env import errors
from sc2env.env import DictActions
from sc2env.interface import FUNCTIONS

SMALL = {"screen_size": 16, "minimap_size": 16}


def test_a_dict_action_plays_as_the_vector_it_names(make_env):
    env = DictActions(make_env(functions=["no_op", "select_army", "Move_screen"], **SMALL))
    spec = env.unwrapped.action_spec
    assert isinstance(env.action_space, gym.spaces.Dict)
    # In the vector's order (gymnasium sorts a plain dict's keys): flattening the Dict lines up with ActionSpec.
    assert [(name, space.n) for name, space in env.action_space.items()] == list(
        zip(spec.names, spec.nvec.tolist())
    )
    env.reset(seed=0)
    _, _, _, _, info = env.step({"function": 1})  # select_army; the components it doesn't take left out
    assert not info["invalid_action"]
    before = env.unwrapped.last_observation.game_loop[0]
    _, _, _, _, info = env.step({"function": 2, "screen": 5 * 16 + 9, "queued": 0})
    assert not info["invalid_action"] and info["game_loop"] == before + 8
    assert env.unwrapped.last_observation.last_actions.tolist() == [FUNCTIONS.Move_screen.id]
    sampled = env.action_space.sample()
    vector = env.action(sampled)
    assert env.reverse_action(vector) == {name: int(value) for name, value in sampled.items()}
    assert np.array_equal(env.action(env.reverse_action(vector)), vector)
    _, _, _, _, info = env.step(FUNCTIONS.no_op())  # a FunctionCall passes through
    assert not info["invalid_action"]


@pytest.mark.parametrize(
    "action, message",
    [
        ({"screen": 3}, "an action dict needs its 'function'"),
        ({"function": 0, "scren": 3}, "no action component 'scren'; did you mean 'screen'?"),
        ([1, 2], "DictActions takes a dict of action components .* or a FunctionCall, not list"),
        ({"function": 5}, r"function component 5 is outside 0\.\.2"),
        ({"function": "1"}, r"the action dict's 'function' must be one integer, not '1'"),
        ({"function": 0, "screen": [1, 2]}, r"the action dict's 'screen' must be one integer, not \[1, 2\]"),
    ],
)
def test_a_wrong_dict_is_refused_and_the_game_goes_on(make_env, action, message):
    env = DictActions(make_env(functions=["no_op", "select_army", "Move_screen"], **SMALL))
    env.reset(seed=0)
    with pytest.raises(errors.MalformedActionError, match=message):
        env.step(action)
    _, _, _, _, info = env.step({"function": 0})
    assert info["game_loop"] == 8  # the refused action played nothing


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_vector_envs_take_dict_actions(mode):
    envs = gym.make_vec(
        "sc2env/MoveToBeacon-v0",
        num_envs=2,
        vectorization_mode=mode,
        wrappers=[DictActions],
        engine="builtin",
        **SMALL,
    )
    try:
        envs.reset(seed=1)
        envs.action_space.seed(0)
        _, rewards, _, _, infos = envs.step(envs.action_space.sample())
        assert rewards.shape == (2,) and list(infos["game_loop"]) == [8, 8]
    finally:
        envs.close()


@pytest.mark.filterwarnings("ignore:.*is different from the unwrapped version")  # a wrapper is the point here
def test_the_wrapped_env_passes_the_checker_and_remakes_from_its_spec(make_env):
    from gymnasium.utils.env_checker import check_env

    env = DictActions(make_env(**SMALL))
    check_env(env, skip_render_check=True)  # it remakes the env from env.spec, wrapper included
    again = gym.make(env.spec)
    try:
        assert isinstance(again, DictActions) and again.action_space == env.action_space
    finally:
        again.close()
    with pytest.raises(errors.MalformedActionError, match=r"14 components \(last axis\), not shape \(3,\)"):
        env.reverse_action(np.zeros(3, int))
    batch = env.reverse_action(np.arange(28).reshape(2, 14))
    assert batch["function"].tolist() == [0, 14] and batch["unload_id"].tolist() == [13, 27]


def test_raw_actions_as_a_dict(make_env):
    from sc2env.interface import RAW_FUNCTIONS, FeatureUnit

    env = DictActions(make_env("DefeatRoaches", actions="raw", screen_size=32, minimap_size=32))
    assert list(env.action_space) == ["function", "queued", "units", "target", "world"]
    assert env.action_space["units"].n == 257 and env.action_space["world"].n == 64 * 64
    obs, _ = env.reset(seed=1)
    roach = int(np.flatnonzero(obs["raw_units"][: obs["unit_counts"][1], FeatureUnit.alliance] == 4)[0])
    action = {"function": RAW_FUNCTIONS.Attack_unit.id, "units": 256, "target": roach}
    assert env.reverse_action(env.action(action)) == {**action, "queued": 0, "world": 0}
    obs, _, _, _, info = env.step(action)
    assert not info["invalid_action"]
    marines = obs["raw_units"][: obs["unit_counts"][1]]
    marines = marines[marines[:, FeatureUnit.alliance] == 1]
    assert (marines[:, FeatureUnit.order_id_0] == 23).all(), "every Marine attacks"  # Attack_Attack, specific
