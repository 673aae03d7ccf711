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
    while steps < 1000 and (episodes < 2 or steps < 100):  # BuildMarines' one episode takes 900 steps
        env.action_space.seed(int(rng.integers(1 << 30)))
        action = env.action_space.sample(mask=spec.split(obs["action_mask"]))
        # MultiDiscrete.sample draws every component independently; only the chosen function's arguments
        # matter, and each was drawn from its own value mask.
        obs, _, terminated, truncated, info = env.step(action)
        assert not info["invalid_action"], (
            env.unwrapped.action_to_function_call(action),
            info["invalid_action_reason"],
        )
        steps += 1
        if terminated or truncated:
            episodes += 1
            obs, _ = env.reset()
    assert steps >= 100 and episodes >= 1, "several steps, and an episode's end and reset"


@pytest.fixture
def one_torch_thread():
    """Torch on one thread, as the example trains: the suite's workers and their games already fill the cores,
    and torch's own threads fighting them made a 3,000-step run take minutes on a loaded machine."""
    torch = pytest.importorskip("torch")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture
def small_maskable_ppo(one_torch_thread, tmp_path, monkeypatch):
    """A maker of MaskablePPO models with one small hidden layer and one epoch per update: enough to see SB3
    drive the env through its rollouts, masks and updates."""
    sb3_contrib = pytest.importorskip("sb3_contrib")
    monkeypatch.setenv("SB3_LOGDIR", str(tmp_path))  # SB3 would make a new folder in /tmp for every learn()

    def make(env, n_steps: int = 128, width: int = 16):
        return sb3_contrib.MaskablePPO(
            "MultiInputPolicy",
            env,
            n_steps=n_steps,
            batch_size=128,
            n_epochs=1,
            seed=0,
            policy_kwargs={"net_arch": [width]},
            device="cpu",
        )

    return make


def test_maskable_ppo_learns_from_masked_rollouts(make_env, small_maskable_ppo):
    import torch

    env = make_env(
        "MoveToBeacon",
        screen_size=36,
        minimap_size=36,
        screen_layers=("player_relative", "selected"),
        minimap_layers=("player_relative",),
        functions=["no_op", "select_army", "Move_screen"],
    )
    model = small_maskable_ppo(env, n_steps=256, width=32)
    before = [p.detach().clone() for p in model.policy.parameters()]
    model.learn(total_timesteps=768)  # three rollouts and updates, across three episodes' starts (240 steps)
    assert model.num_timesteps >= 768
    after = list(model.policy.parameters())
    assert all(torch.isfinite(p).all() for p in after)
    assert any(not torch.equal(b, a) for b, a in zip(before, after))  # the updates changed the policy
    # The rollout buffer stored the env's masks: the function head saw no_op/select_army at the start of
    # an episode and never Move_screen before a selection.
    masks = model.rollout_buffer.action_masks.reshape(-1, env.unwrapped.action_spec.total)
    assert masks[:, :3].any(axis=0).tolist() == [True, True, True] and (masks[:, :3].sum(axis=1) >= 1).all()
    obs, _ = env.reset(seed=0)
    action, _ = model.predict(obs, action_masks=env.unwrapped.action_masks(), deterministic=True)
    assert env.action_space.contains(np.asarray(action))
    assert env.unwrapped.action_masks()[int(action[0])]  # the policy chose an available function


def test_maskable_ppo_runs_on_the_whole_function_space(make_env, small_maskable_ppo):
    # All 573 functions and every argument component: the masks MaskablePPO splits over 14 heads.
    env = make_env(
        "BuildMarines",
        screen_size=36,
        minimap_size=36,
        screen_layers=("player_relative",),
        minimap_layers=("player_relative",),
        step_mul=16,
    )
    model = small_maskable_ppo(env)
    model.learn(total_timesteps=256)
    assert model.num_timesteps >= 256
    masks = model.rollout_buffer.action_masks.reshape(-1, env.unwrapped.action_spec.total)
    assert masks.shape[1] > 573 and (masks[:, :573].sum(axis=1) >= 2).all(), "several functions on offer"


@pytest.mark.parametrize("name", ["CollectMineralShards", "DefeatRoaches"])
def test_the_game_accepts_what_a_policy_following_per_function_masks_chooses(name, make_env):
    # On the maps without buildings to place, target masks and per-function masks describe the game's own
    # rules: the game refuses none of the actions (on the economy maps they are hints: a depot's whole
    # footprint must fit, Repair needs a damaged target; see docs/interface.md).
    env = make_env(name, screen_size=32, minimap_size=32, screen_target_masks=True)
    spec = env.unwrapped.action_spec
    rng = np.random.default_rng(0)
    env.reset(seed=3)
    for _ in range(300):
        masks = env.unwrapped.last_observation.masks
        position = int(rng.choice(np.flatnonzero(masks.function)))
        allowed = spec.split(masks.for_function(int(spec.function_ids[position])))
        action = np.array([position] + [rng.choice(np.flatnonzero(segment)) for segment in allowed[1:]])
        obs, _, terminated, truncated, info = env.step(action)
        assert not info["invalid_action"]
        assert set(obs["action_result"].tolist()) <= {0, 1}, env.unwrapped.action_to_function_call(action)
        if terminated or truncated:
            env.reset()


def test_maskable_ppo_trains_on_raw_actions(make_env, small_maskable_ppo):
    env = make_env(
        "DefeatRoaches",
        actions="raw",
        max_units=16,
        screen_size=36,
        minimap_size=36,
        screen_layers=("player_relative",),
        minimap_layers=("player_relative",),
    )
    model = small_maskable_ppo(env)
    model.learn(total_timesteps=256)
    space = env.unwrapped.raw_space
    masks = model.rollout_buffer.action_masks.reshape(-1, space.total)
    # The function head saw the Marines' commands, the units head the Marines' rows and the group value.
    assert (masks[:, space.segment("function")].sum(axis=1) >= 12).all()
    assert masks[:, space.segment("units")][:, space.all_able].all()
    obs, _ = env.reset(seed=0)
    action, _ = model.predict(obs, action_masks=env.unwrapped.action_masks(), deterministic=True)
    assert env.unwrapped.action_masks()[int(action[0])]
    _, _, _, _, info = env.step(action)
    # Independent heads follow the unconditional mask: the only refusals left are the per-function ones (a
    # unit that can't use the function, a target outside its class), never a row or point outside the game.
    reason = info["invalid_action_reason"]
    assert not info["invalid_action"] or "can't use it now" in reason or "targets" in reason, reason
