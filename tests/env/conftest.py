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


def _interrupt_once(owner, name: str, before=lambda: None, after_call: int = 0) -> None:
    """Make `owner.<name>` raise KeyboardInterrupt at its next call, as Ctrl-C would there (after `before()`),
    or, with `after_call` = n, once its n-th call has done its work (a Ctrl-C handled just as it returns);
    it works again after that."""
    original = getattr(owner, name)
    calls = []

    def interrupted(*args, **kwargs):
        result = original(*args, **kwargs) if after_call else None
        calls.append(1)
        if len(calls) < after_call:
            return result
        setattr(owner, name, original)
        before()
        raise KeyboardInterrupt

    setattr(owner, name, interrupted)


@pytest.fixture
def interrupt_once():
    return _interrupt_once
