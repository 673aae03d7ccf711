"""SMAC's env on the built-in engine in its own process (direct mode) plays exactly the socket's episodes."""

from __future__ import annotations

import numpy as np
import pytest
from episode_compare import assert_same

from sc2env.client.direct import DirectController
from sc2env.smac import StarCraft2Env

EPISODES, SEED = 2, 7


def _play(map_name: str, direct: bool) -> list:
    """Per step of EPISODES random episodes: obs, state, available actions, reward, terminated, info."""
    rng = np.random.default_rng(SEED)
    trace: list = []
    with StarCraft2Env(map_name=map_name, engine="builtin", seed=SEED, direct=direct) as env:
        for _ in range(EPISODES):
            obs, state = env.reset()
            assert isinstance(env._game.match.controller, DirectController) == direct
            terminated = False
            while not terminated:
                avail = np.array(env.get_avail_actions())
                trace.append((np.array(obs), state, avail))
                actions = np.argmax(rng.random(avail.shape) * avail, axis=1)
                reward, terminated, info = env.step(actions)
                trace.append((reward, terminated, info))
                obs, state = env.get_obs(), env.get_state()
            trace.append((np.array(obs), state, env.get_stats()))
    return trace


@pytest.mark.parametrize("map_name", ["3m", "2s3z"])
def test_direct_and_socket_play_the_same_episodes(map_name):
    direct = _play(map_name, direct=True)
    socket = _play(map_name, direct=False)
    assert len(direct) == len(socket)
    assert_same(direct, socket, map_name)
    # The battles were fought: units died and rewards came.
    assert any(isinstance(entry[0], float) and entry[0] > 0 for entry in direct)
