"""Fixtures for the engine tests: an in-process Session and the real engine process (sc2env's launcher)."""

from __future__ import annotations

import pytest


@pytest.fixture
def session():
    from sc2env.engine.session import Session

    return Session()


@pytest.fixture(scope="module")
def engine():
    """A real engine process, started by sc2env's launcher, and its GameProcess."""
    from sc2env.launch import launch

    process = launch(engine="builtin")
    yield process
    process.close()


@pytest.fixture
def controller(engine):
    from sc2env.client.controller import Controller

    with Controller(engine) as c:
        yield c
