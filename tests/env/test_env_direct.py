"""Direct mode (the built-in engine in the env's process) plays exactly the episodes of the socket path."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from episode_compare import assert_same

from sc2env import errors
from sc2env.agents.random_agent import RandomAgent
from sc2env.client.direct import DirectController
from sc2env.engine import replay_file
from sc2env.env.env import SC2Env
from sc2env.game.maps import MINI_GAMES

# 16 loops a step: MoveToBeacon's 120 s episode ends after 120 steps, so a run of 130 crosses an episode's
# end and the reset after it on the maps with the shortest timers.
STEPS, STEP_MUL, SEED = 130, 16, 11


def undated(data: bytes) -> replay_file.Replay:
    """A saved replay's contents but for its date (when its episode started, by each game's wall clock)."""
    replay = replay_file.decode(data)
    assert replay.started_at is not None and replay.inputs
    return dataclasses.replace(replay, started_at=None)


def _play(map_name: str, direct: bool, **kwargs) -> tuple[list, list[replay_file.Replay]]:
    """Every reset's and step's (obs, reward, terminated, truncated, info), and the replays saved on the way."""
    env = SC2Env(map_name, engine="builtin", direct=direct, step_mul=STEP_MUL, **kwargs)
    agent = RandomAgent(seed=SEED)
    try:
        agent.setup(env)
        obs, info = env.reset(seed=SEED)
        assert isinstance(env.match.controller, DirectController) == direct
        trace: list = [(obs, info)]
        replays = []
        for _ in range(STEPS):
            observation = env.last_observation
            assert observation is not None
            obs, reward, terminated, truncated, info = env.step(agent.step(observation))
            trace.append((obs, reward, terminated, truncated, info))
            if terminated or truncated:
                replays.append(undated(env.match.save_replay()))
                obs, info = env.reset()
                trace.append((obs, info))
        replays.append(undated(env.match.save_replay()))  # mid-episode
        return trace, replays
    finally:
        env.close()


@pytest.mark.parametrize("map_name", sorted(MINI_GAMES))
def test_direct_and_socket_play_the_same_episodes(map_name):
    direct, direct_replays = _play(map_name, direct=True)
    socket, socket_replays = _play(map_name, direct=False)
    assert len(direct) == len(socket) > STEPS
    for i, (a, b) in enumerate(zip(direct, socket)):
        assert_same(a, b, f"{map_name} step {i}")
    assert direct_replays == socket_replays
    # Something happened: the agent's random clicks changed what the observations show.
    assert any(
        not np.array_equal(direct[0][0]["feature_screen"], entry[0]["feature_screen"]) for entry in direct
    )


def test_direct_and_socket_agree_on_raw_actions_and_rgb():
    kwargs = dict(actions="raw", rgb_screen_size=32, rgb_minimap_size=16)
    direct, direct_replays = _play("DefeatZerglingsAndBanelings", direct=True, **kwargs)
    socket, socket_replays = _play("DefeatZerglingsAndBanelings", direct=False, **kwargs)
    for i, (a, b) in enumerate(zip(direct, socket, strict=True)):
        assert_same(a, b, f"step {i}")
    assert direct_replays == socket_replays


def test_a_direct_game_interrupted_mid_step_is_replaced_at_the_next_reset(monkeypatch):
    env = SC2Env("MoveToBeacon", engine="builtin", step_mul=8)
    try:
        env.reset(seed=1)
        controller = env.match.controller
        assert isinstance(controller, DirectController)
        engine = controller._engine
        original = type(engine).respond

        def interrupted(self, request):
            if request.HasField("step"):
                raise KeyboardInterrupt
            return original(self, request)

        monkeypatch.setattr(type(engine), "respond", interrupted)
        with pytest.raises(KeyboardInterrupt):
            env.step(env.action_space.sample() * 0)
        monkeypatch.undo()
        assert controller.closed
        with pytest.raises(errors.ConnectionError, match="closed after KeyboardInterrupt"):
            controller.ping()
        obs, _ = env.reset()
        assert env.match.controller is not controller and obs["game_loop"][0] == 0
        env.step(env.action_space.sample() * 0)
    finally:
        env.close()
