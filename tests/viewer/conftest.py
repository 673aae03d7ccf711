"""Viewer test fixtures: headless pygame, a synthetic game_info, event builders, envs on the built-in engine."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

import gymnasium as gym  # noqa: E402
import pytest  # noqa: E402

import sc2env  # noqa: E402,F401  (registers the ids)
from sc2env.viewer._pygame import pygame  # noqa: E402


@pytest.fixture(autouse=True)
def _no_modifiers():
    """Each test starts with no modifier keys held."""
    pygame.display.init()  # keyboard state (modifiers) lives in the video system; headless via SDL's dummy driver
    pygame.key.set_mods(0)


@pytest.fixture
def make_env():
    made = []

    def make(name: str = "MoveToBeacon", **kwargs):
        env = gym.make(f"sc2env/{name}-v0", engine="builtin", **kwargs)
        made.append(env)
        return env

    yield make
    for env in made:
        env.close()
