"""Fixtures for launcher tests: a fake StarCraft II install, a clean environment, and processes that are
always stopped (and checked to be gone) when a test ends."""

from __future__ import annotations

import pytest
from fake_sc2 import make_fake_install, pid_alive, wait_until

from sc2env.launch import launch

ENV_VARS = ("SC2ENV_ENGINE", "SC2PATH", "FAKE_SC2_MODE", "FAKE_SC2_DELAY_S", "FAKE_SC2_FAULT",
            "FAKE_SC2_EXIT_CODE")


@pytest.fixture(autouse=True)
def clean_env(monkeypatch, tmp_path):
    """No engine choice or install leaks in from the developer's shell; HOME has no ~/StarCraftII."""
    for name in ENV_VARS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


@pytest.fixture
def fake_sc2(tmp_path):
    """A fake install with build 75689 (4.10.0), at tmp_path/StarCraftII."""
    return make_fake_install(tmp_path / "StarCraftII")


@pytest.fixture
def start():
    """launch(...) that remembers its processes and, at teardown, closes them and checks they are gone."""
    started = []

    def start_game(*args, **kwargs):
        process = launch(*args, **kwargs)
        started.append(process)
        return process

    yield start_game
    for process in started:
        process.close()
    assert all(wait_until(lambda p=p: not pid_alive(p.pid), 5.0) for p in started)
