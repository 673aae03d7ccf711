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


def _interrupt_once(owner, name: str, before=lambda: None) -> None:
    """Make `owner.<name>` raise KeyboardInterrupt at its next call, as Ctrl-C would there (after `before()`),
    and work again after that."""
    original = getattr(owner, name)

    def interrupted(*args, **kwargs):
        setattr(owner, name, original)
        before()
        raise KeyboardInterrupt

    setattr(owner, name, interrupted)


@pytest.fixture
def interrupt_once():
    return _interrupt_once
