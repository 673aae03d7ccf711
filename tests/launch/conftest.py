"""Launcher test fixtures: a fake StarCraft II install, a clean environment, processes always stopped."""

from fake_sc2 import clean_env, fake_install, start  # noqa: F401 - fixtures
