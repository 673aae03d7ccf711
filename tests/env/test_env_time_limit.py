"""time_limit: an episode the map's timer ends is terminated (the game's word) or, if asked, truncated."""

from __future__ import annotations

import numpy as np
import pytest

from sc2env.errors import ProtocolError

FAST = dict(step_mul=64, screen_size=16, minimap_size=16, screen_layers=(), minimap_layers=())


def _play_out(env):
    env.reset(seed=0)
    steps = 0
    while True:
        _, _, terminated, truncated, info = env.step(np.zeros(env.action_space.shape, np.int64))
        steps += 1
        if terminated or truncated:
            return steps, terminated, truncated, info


@pytest.mark.parametrize("time_limit", ["terminated", "truncated"])
def test_the_timer_ends_the_episode_as_time_limit_says(make_env, time_limit):
    env = make_env("MoveToBeacon", time_limit=time_limit, **FAST)
    steps, terminated, truncated, info = _play_out(env)
    assert info["game_loop"] == 1920 and steps == 30  # MoveToBeacon's 120 game seconds, 64 loops a step
    assert (terminated, truncated) == ((True, False) if time_limit == "terminated" else (False, True))
    # Either way the episode is over: step() asks for reset(), and the next episode plays.
    with pytest.raises(ProtocolError, match=r"step\(\) called after the episode ended: call reset\(\)"):
        env.step(np.zeros(env.action_space.shape, np.int64))
    assert _play_out(env)[0] == 30


def test_the_vector_env_reports_the_timer_as_truncated_too(make_vec):
    envs = make_vec("MoveToBeacon", num_envs=2, time_limit="truncated", **FAST)
    envs.reset(seed=0)
    for _ in range(30):
        _, _, terminated, truncated, _ = envs.step(np.zeros(envs.action_space.shape, np.int64))
    assert terminated.tolist() == [False, False] and truncated.tolist() == [True, True]


def test_time_limit_is_checked_when_the_env_is_made(make_env):
    with pytest.raises(
        ValueError, match=r"time_limit must be one of \('terminated', 'truncated'\), not 'cut'"
    ):
        make_env("MoveToBeacon", time_limit="cut")
