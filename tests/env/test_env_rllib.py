"""The RLlib env creator: picklable, lazy (no game until reset), seeded by worker and vector index."""

from __future__ import annotations

import dataclasses
import pickle
import sys
import types

import cloudpickle
import numpy as np
import pytest

from sc2env.env import SC2Env, SC2VectorEnv
from sc2env.env.rllib import FlatObservationWithMask, make_env, make_masked_env, worker_seed


class EnvContext(dict):
    """The shape of RLlib's EnvContext: a dict of settings plus the indices of its env runner."""

    def __init__(self, settings, worker_index=0, vector_index=0):
        super().__init__(settings)
        self.worker_index = worker_index
        self.vector_index = vector_index


def test_creator_pickles_and_starts_nothing_until_reset():
    creator = pickle.loads(cloudpickle.dumps(make_env))
    env = creator(
        EnvContext(
            {
                "map_name": "MoveToBeacon",
                "engine": "builtin",
                "screen_size": 32,
                "minimap_size": 32,
                "seed": 7,
            },
            worker_index=2,
            vector_index=1,
        )
    )
    try:
        assert isinstance(env, SC2Env) and env.match is None  # lazy: no process yet
        assert env.config.seed == worker_seed(7, 2, 1)
        _obs, _ = env.reset()
        assert env.match.running
        same = creator(EnvContext(dict(env.config.__dict__ | {"seed": 7}), worker_index=2, vector_index=1))
        try:
            assert same.config.seed == env.config.seed
        finally:
            same.close()
    finally:
        env.close()


def test_seeds_differ_across_workers_and_sub_envs():
    seeds = {worker_seed(0, w, v) for w in range(8) for v in range(8)}
    assert len(seeds) == 64
    assert worker_seed(5 + 2**31) != worker_seed(5), "the env hashes large seeds; cutting them made these one"


def test_the_envs_of_one_context_count_their_vector_index(monkeypatch):
    # RLlib builds every sub-env of a runner from one EnvContext with vector_index 0: they all had one seed.
    context = EnvContext({"map_name": "MoveToBeacon", "engine": "builtin", "seed": 7}, worker_index=2)
    envs = [make_env(context) for _ in range(3)]
    assert [env.config.seed for env in envs] == [worker_seed(7, 2, k) for k in range(3)]
    assert make_env(EnvContext(dict(context), worker_index=3)).config.seed == worker_seed(7, 3, 0)
    # A vector env's games take a range of indices: the next env from the context starts after them.
    vectors = EnvContext(
        {"map_name": "MoveToBeacon", "engine": "builtin", "seed": 7, "num_envs": 2}, worker_index=1
    )
    first = make_env(vectors)
    after = make_env(vectors)
    assert [e.config.seed for e in first.envs] == [worker_seed(7, 1, 0), worker_seed(7, 1, 1)]
    assert [e.config.seed for e in after.envs] == [worker_seed(7, 1, 2), worker_seed(7, 1, 3)]
    first.close()
    after.close()
    # RLlib's vector_entry_point mode passes a plain dict (no worker index): every runner would seed alike.
    monkeypatch.setitem(sys.modules, "ray", sys.modules.get("ray", types.ModuleType("ray")))
    with pytest.warns(
        UserWarning, match="no worker_index: RLlib's gym_env_vectorize_mode='vector_entry_point'"
    ):
        vector = make_env({"map_name": "MoveToBeacon", "engine": "builtin", "seed": 7, "num_envs": 2})
    vector.close()
    for env in envs:
        env.close()


def test_without_a_seed_envs_seed_themselves():
    env = make_env(EnvContext({"map_name": "MoveToBeacon", "engine": "builtin"}, worker_index=1))
    try:
        assert env.config.seed is None, "two unseeded experiments must not replay the same episodes"
    finally:
        env.close()


def test_vector_entry_point_form():
    env = make_env(EnvContext({"map_name": "MoveToBeacon", "engine": "builtin", "num_envs": 2, "seed": 3}))
    try:
        assert isinstance(env, SC2VectorEnv) and env.num_envs == 2
        assert [e.config.seed for e in env.envs] == [worker_seed(3), worker_seed(3) + 1]
    finally:
        env.close()


def test_env_itself_refuses_pickling_with_advice():
    env = SC2Env(engine="builtin")
    with pytest.raises(TypeError, match=r"SC2Env.from_config\(config\), or pickle an env creator"):
        pickle.dumps(env)


def test_a_config_travels_by_pickle_and_json_and_makes_the_same_env():
    import gymnasium as gym
    from gymnasium.envs.registration import EnvSpec

    from sc2env.env import EnvConfig
    from sc2env.interface import FUNCTIONS

    # Functions given as objects compared by identity (a pickled config was no longer equal) and broke
    # env.spec.to_json(); JSON turned size tuples into lists.
    by_object = EnvConfig(functions=[FUNCTIONS.no_op, FUNCTIONS.Move_screen], screen_size=[48, 32])
    assert by_object == EnvConfig(functions=(0, "Move_screen"), screen_size=(48, 32))
    assert by_object.functions == ("no_op", "Move_screen") and by_object.screen_size == (48, 32)
    assert pickle.loads(pickle.dumps(by_object)) == by_object
    # A square size given as an int was kept as the int: 64 and (64, 64) made configs that differed.
    assert EnvConfig(
        screen_size=64, minimap_size=[64, 64], rgb_screen_size=96, rgb_minimap_size=32
    ) == EnvConfig(screen_size=(64, 64), minimap_size=64, rgb_screen_size=(96, 96), rgb_minimap_size=(32, 32))
    assert EnvConfig(rgb_screen_size=96, rgb_minimap_size=32).rgb_screen_size == (96, 96)
    # Sizes given as numpy ints: the config made ints of them, but the spec kept numpy's, and to_json() failed.
    numpy_sized = gym.make(
        "sc2env/MoveToBeacon-v0",
        engine="builtin",
        screen_size=np.int64(48),
        render_size=(np.int64(1024), np.int64(576)),
    )
    assert EnvSpec.from_json(numpy_sized.spec.to_json()).kwargs["render_size"] == [1024, 576]
    numpy_sized.close()
    # Numpy scalars elsewhere (a sweep's seed, step_mul, a switch) broke to_json() and Gymnasium's seeding.
    swept = gym.make(
        "sc2env/MoveToBeacon-v0",
        engine="builtin",
        seed=np.int64(3),
        step_mul=np.int64(8),
        use_feature_units=np.bool_(True),
        camera_width=np.float32(24),
    )
    try:
        kwargs = EnvSpec.from_json(swept.spec.to_json()).kwargs
        assert (kwargs["seed"], kwargs["step_mul"], kwargs["use_feature_units"]) == (3, 8, True)
        config = swept.unwrapped.config
        assert [
            type(v) for v in (config.seed, config.step_mul, config.use_feature_units, config.camera_width)
        ] == [int, int, bool, float]
        swept.reset()  # Gymnasium's seeding took only Python ints
    finally:
        swept.close()
    # JSON writes a Bot as a dict, which the config refused.
    from sc2env.env import Bot

    spec = gym.spec("sc2env/SC2-v0")
    versus = dataclasses.replace(spec, kwargs={"map_name": "Simple64", "bot": Bot("zerg", "hard")})
    back = EnvSpec.from_json(versus.to_json())
    assert back.kwargs["bot"] == {"race": "zerg", "difficulty": "hard", "build": "random"}
    assert EnvConfig(**back.kwargs).bot == Bot("zerg", "hard") == EnvConfig(**versus.kwargs).bot
    with pytest.raises(
        TypeError, match=r"bot as a dict takes the keys \['build', 'difficulty', 'race'\], not"
    ):
        EnvConfig(map_name="Simple64", bot={"race": "zerg", "level": "hard"})
    env = gym.make(
        "sc2env/MoveToBeacon-v0",
        engine="builtin",
        functions=[FUNCTIONS.no_op, FUNCTIONS.Move_screen],
        screen_size=(48, 32),
    )
    again = gym.make(EnvSpec.from_json(env.spec.to_json()))
    rebuilt = SC2Env.from_config(pickle.loads(pickle.dumps(env.unwrapped.config)))
    try:
        assert again.unwrapped.config == env.unwrapped.config == rebuilt.config
        assert again.unwrapped.config.functions == ("no_op", "Move_screen")
    finally:
        for made in (env, again, rebuilt):
            made.close()


def test_masked_layout_for_rllib_action_masking_module():
    env = make_masked_env(
        EnvContext(
            {
                "map_name": "MoveToBeacon",
                "engine": "builtin",
                "screen_size": 16,
                "minimap_size": 16,
                "screen_layers": ["player_relative"],
                "flatten_keys": ["feature_screen", "player"],
            }
        )
    )
    try:
        obs, _ = env.reset()
        assert env.observation_space.contains(obs)
        assert obs["observations"].shape == (16 * 16 + 11,) and obs["action_mask"].dtype == np.float32
        assert obs["action_mask"].sum() > 0
        with pytest.raises(ValueError, match="cannot flatten"):
            FlatObservationWithMask(env.env, ["action_mask"])
    finally:
        env.close()
    with pytest.raises(
        ValueError, match="makes one env: leave num_envs out"
    ):  # was a TypeError from Gymnasium
        make_masked_env(EnvContext({"map_name": "MoveToBeacon", "engine": "builtin", "num_envs": 2}))
