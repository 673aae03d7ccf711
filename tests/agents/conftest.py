"""Agent test fixtures: envs on the built-in engine (closed after each test) and the maps it plays."""

from __future__ import annotations

import gymnasium as gym
import pytest

import sc2env  # noqa: F401  (registers the ids)


@pytest.fixture
def make_env():
    made = []

    def make(name: str, **kwargs):
        env = gym.make(f"sc2env/{name}-v0", engine="builtin", **kwargs)
        made.append(env)
        return env

    yield make
    for env in made:
        env.close()
