"""Helpers for the agent tests."""

from __future__ import annotations

import pytest

from sc2env.cli import builtin_maps


def require_map(name: str) -> None:
    """Skip when the built-in engine does not play `name` (yet)."""
    if name not in builtin_maps():
        pytest.skip(f"the built-in engine does not play {name} yet")
