"""gymnasium's own env checker on every registered mini-game, on the built-in engine."""

from __future__ import annotations

import gymnasium as gym
import pytest
from gymnasium.utils.env_checker import check_env

from sc2env.game import MINI_GAMES


@pytest.mark.parametrize("name", list(MINI_GAMES))
def test_check_env_passes(name, make_env, recwarn):
    env = make_env(name, screen_size=32, minimap_size=32)
    # The render check makes fresh envs (each with its own game) for every render mode; headless pygame.
    check_env(env.unwrapped)
    problems = [
        str(w.message)
        for w in recwarn
        if issubclass(w.category, (UserWarning, DeprecationWarning)) and "gymnasium" in str(w.filename)
    ]
    assert not problems, problems
    assert isinstance(env.unwrapped, gym.Env)
