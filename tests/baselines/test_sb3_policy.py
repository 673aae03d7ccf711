"""FullyConvPolicy: MaskablePPO's fully convolutional policy, small, with point logits per pixel."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from sb3_contrib import MaskablePPO  # noqa: E402
from sb3_contrib.common.maskable.policies import MaskableMultiInputActorCriticPolicy  # noqa: E402

from sc2env.baselines.sb3_policy import FullyConvExtractor, FullyConvPolicy, fully_conv_kwargs  # noqa: E402
from sc2env.env import SC2Env  # noqa: E402

SMALL = dict(
    engine="builtin",
    screen_size=16,
    minimap_size=16,
    screen_layers=("player_relative",),
    minimap_layers=(),
    functions=["no_op", "select_army", "Move_screen"],
)


def _parameters(policy) -> int:
    return sum(p.numel() for p in policy.parameters())


def _policy(cls, env, **kwargs):
    return cls(env.observation_space, env.action_space, lambda _: 3e-4, **kwargs)


def test_the_policy_is_a_small_fraction_of_sb3s_default():
    env = SC2Env("MoveToBeacon", engine="builtin")  # 64×64, every layer: no game is started
    # Counted without the orthogonal initialisation, whose QR of SB3's wide layers takes minutes on a CPU.
    fully_conv = _parameters(_policy(FullyConvPolicy, env, ortho_init=False))
    default = _parameters(_policy(MaskableMultiInputActorCriticPolicy, env, ortho_init=False))
    assert default > 3_000_000
    assert fully_conv * 15 < default, (fully_conv, default)


def test_point_components_are_the_per_pixel_logits_and_translate_with_the_input():
    env = SC2Env("MoveToBeacon", **SMALL)
    policy = _policy(FullyConvPolicy, env, **fully_conv_kwargs(env.config))
    obs = {key: torch.zeros((1, *space.shape)) for key, space in env.observation_space.spaces.items()}
    obs["feature_screen"][0, 0, 6, 6] = 4  # an enemy at (6, 6)
    shifted = {key: value.clone() for key, value in obs.items()}
    shifted["feature_screen"][0, 0] = 0
    shifted["feature_screen"][0, 0, 9, 8] = 4  # the same, two right and three down
    with torch.no_grad():
        logits = policy.action_net(policy.mlp_extractor.forward_actor(policy.extract_features(obs)))
        moved = policy.action_net(policy.mlp_extractor.forward_actor(policy.extract_features(shifted)))
    nvec = env.action_space.nvec
    assert logits.shape == (1, int(nvec.sum()))
    screen = logits[0, nvec[0] : nvec[0] + nvec[1]].reshape(16, 16)
    screen_moved = moved[0, nvec[0] : nvec[0] + nvec[1]].reshape(16, 16)
    # Convolutions: the logits around the enemy (as far as the two convolutions reach, 3 pixels) moved with
    # it; both windows stay 3 pixels clear of the borders' padding.
    assert torch.allclose(screen[3:10, 3:10], screen_moved[6:13, 5:12], atol=1e-6)
    assert not torch.allclose(screen, screen_moved)


def test_maskable_ppo_learns_against_the_engine_and_acts_within_the_masks(tmp_path):
    env = gym.make("sc2env/MoveToBeacon-v0", **SMALL)
    try:
        model = MaskablePPO(
            FullyConvPolicy,
            env,
            n_steps=16,
            batch_size=16,
            n_epochs=1,
            seed=0,
            policy_kwargs=fully_conv_kwargs(env.unwrapped.config),
        )
        before = [p.detach().clone() for p in model.policy.parameters()]
        model.learn(total_timesteps=32)
        assert any(not torch.equal(a, b) for a, b in zip(before, model.policy.parameters()))
        model.save(tmp_path / "model")
        loaded = MaskablePPO.load(tmp_path / "model", env=env)
        obs, _ = env.reset(seed=1)
        for _ in range(8):
            masks = env.unwrapped.action_masks()
            action, _ = loaded.predict(obs, action_masks=masks)
            allowed = env.unwrapped.action_spec.split(masks)
            assert all(allowed[i][value] for i, value in enumerate(action))
            obs, *_ = env.step(action)
    finally:
        env.close()


def test_a_layer_subset_without_names_and_the_raw_action_are_refused():
    env = SC2Env("MoveToBeacon", **SMALL)
    with pytest.raises(
        ValueError, match="1 layers, not all 27: name them, with policy_kwargs=fully_conv_kwargs"
    ):
        _policy(FullyConvPolicy, env)
    raw = SC2Env("MoveToBeacon", engine="builtin", actions="raw", screen_size=16, minimap_size=16)
    with pytest.raises(ValueError, match="actions='raw' is not supported"):
        _policy(FullyConvPolicy, raw)
    with pytest.raises(ValueError, match="unknown feature_screen layers"):
        FullyConvExtractor(env.observation_space, screen_layers=("beacons",))
    assert isinstance(np.asarray(env.action_space.nvec), np.ndarray)
