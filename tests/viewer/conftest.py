"""Viewer test fixtures: every test starts with no modifier keys held (headless: tests/conftest.py sets SDL's
dummy video driver; `make_env` comes from tests/conftest.py too)."""

from __future__ import annotations

import pygame
import pytest


@pytest.fixture(autouse=True)
def _no_modifiers():
    """Each test starts with no modifier keys held."""
    pygame.display.init()  # keyboard state (modifiers) lives in the video system
    pygame.key.set_mods(0)
