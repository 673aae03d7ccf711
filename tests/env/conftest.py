"""Env test fixtures: vector envs on the built-in engine, closed (with their game processes) after each test."""

from __future__ import annotations

import gymnasium as gym
import pytest

import sc2env  # noqa: F401  (registers the ids)


@pytest.fixture
def make_vec():
    made = []

    def make(name: str = "MoveToBeacon", num_envs: int = 2, **kwargs):
        env = gym.make_vec(f"sc2env/{name}-v0", num_envs=num_envs, engine="builtin", **kwargs)
        made.append(env)
        return env

    yield make
    for env in made:
        env.close()
