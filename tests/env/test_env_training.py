"""Training libraries drive the env: a random masked policy never acts invalidly; MaskablePPO learns without error."""

from __future__ import annotations

import numpy as np
import pytest

from sc2env.game import MINI_GAMES


@pytest.mark.parametrize("name", ["MoveToBeacon", "CollectMineralShards", "DefeatRoaches", "BuildMarines"])
def test_random_masked_policy_never_acts_invalidly(name, make_env):
    assert name in MINI_GAMES
    env = make_env(name, screen_size=32, minimap_size=32, step_mul=16)
    spec = env.unwrapped.action_spec
    rng = np.random.default_rng(0)
    steps = episodes = 0
    obs, _ = env.reset(seed=1)
    while episodes < 2 and steps < 400:
        env.action_space.seed(int(rng.integers(1 << 30)))
        action = env.action_space.sample(mask=spec.split(obs["action_mask"]))
        # MultiDiscrete.sample draws every component independently; only the chosen function's arguments
        # matter, and each was drawn from its own value mask.
        obs, _, terminated, truncated, info = env.step(action)
        assert not info["invalid_action"], (env.unwrapped.action_to_function_call(action),
                                            info["invalid_action_reason"])
        steps += 1
        if terminated or truncated:
            episodes += 1
            obs, _ = env.reset()
    assert steps >= 100


def test_maskable_ppo_trains(make_env):
    sb3_contrib = pytest.importorskip("sb3_contrib")
    env = make_env("MoveToBeacon", screen_size=36, minimap_size=36, screen_layers=("player_relative", "selected"),
                   minimap_layers=("player_relative",), functions=["no_op", "select_army", "Move_screen"])
    model = sb3_contrib.MaskablePPO("MultiInputPolicy", env, n_steps=256, batch_size=128, n_epochs=1, seed=0,
                                    policy_kwargs={"net_arch": [32]}, device="cpu")
    model.learn(total_timesteps=1024)
    obs, _ = env.reset(seed=0)
    action, _ = model.predict(obs, action_masks=env.unwrapped.action_masks(), deterministic=True)
    assert env.action_space.contains(np.asarray(action))
    assert model.num_timesteps >= 1024
