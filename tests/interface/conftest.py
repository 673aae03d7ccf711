"""Fixtures for the interface tests: a reference PySC2 `Features` and a 64×64 format."""

from __future__ import annotations

import pytest
from s2clientprotocol import common_pb2

from sc2env.interface import InterfaceFormat


@pytest.fixture(scope="session")
def pysc2_features():
    """PySC2's Features: pysc2_features(screen, minimap, map_size=(64, 64), **AgentInterfaceFormat kwargs)."""
    features = pytest.importorskip("pysc2_evolved.lib.features")

    def make(screen: int, minimap: int, map_size: tuple[int, int] = (64, 64), **kwargs):
        fmt = features.AgentInterfaceFormat(
            feature_dimensions=features.Dimensions(screen=screen, minimap=minimap), **kwargs
        )
        return features.Features(fmt, map_size=common_pb2.Size2DI(x=map_size[0], y=map_size[1]))

    return make


@pytest.fixture
def fmt64() -> InterfaceFormat:
    return InterfaceFormat(screen_size=64, minimap_size=64)
