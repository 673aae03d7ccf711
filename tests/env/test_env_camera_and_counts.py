"""use_camera_position and use_unit_counts: PySC2's observation options, read from the game's raw data."""

from __future__ import annotations

import numpy as np

from sc2env.interface import FUNCTIONS, RAW_FUNCTIONS
from sc2env.interface.columns import UnitCount

SMALL = dict(screen_size=16, minimap_size=16)
SCV, COMMAND_CENTER, MARINE = 45, 18, 48


def _raw_units(env):
    return env.unwrapped.last_response.observation.raw_data.units


def test_unit_type_counts_are_the_players_units_by_type(make_env):
    env = make_env("CollectMineralsAndGas", use_unit_counts=True, **SMALL)
    obs, _ = env.reset(seed=0)
    counts = obs["unit_type_counts"]
    assert counts.shape == (64, 2) and counts.dtype == np.int32
    assert env.observation_space["unit_type_counts"].contains(counts)
    rows = {int(t): int(n) for t, n in counts if n}
    own = [u.unit_type for u in _raw_units(env) if u.alliance == 1]
    assert rows == {kind: own.count(kind) for kind in set(own)} == {COMMAND_CENTER: 1, SCV: 12}
    assert list(counts[:2, UnitCount.unit_type]) == [COMMAND_CENTER, SCV]  # by type
    assert not counts[2:].any()  # zero-padded
    assert "unit_counts" not in obs  # the rows-filled counts come with the unit tables only


def test_unit_type_counts_follow_the_game(make_env):
    env = make_env("DefeatRoaches", use_unit_counts=True, use_raw_units=True, actions="raw", **SMALL)
    obs, _ = env.reset(seed=0)
    assert {int(t): int(n) for t, n in obs["unit_type_counts"] if n} == {
        MARINE: 9
    }  # the Roaches are not ours
    units = obs["raw_units"][: obs["unit_counts"][1]]
    roach = int(np.flatnonzero(units[:, 1] == 4)[0])  # alliance: enemy
    marines = [i for i in range(len(units)) if units[i, 1] == 1]
    obs, *_ = env.step(RAW_FUNCTIONS.Attack_unit("now", marines, roach))
    for _ in range(60):  # the Roaches fight back: Marines die
        obs, _, terminated, truncated, _ = env.step(np.zeros(env.action_space.shape, np.int64))
        alive = sum(1 for u in _raw_units(env) if u.alliance == 1 and u.unit_type == MARINE)
        assert {int(t): int(n) for t, n in obs["unit_type_counts"] if n} == ({MARINE: alive} if alive else {})
        if alive < 9 or terminated or truncated:
            break
    assert alive < 9


def test_camera_position_is_the_cameras_centre_in_raw_coordinates(make_env):
    env = make_env("FindAndDefeatZerglings", use_camera_position=True, **SMALL)
    obs, _ = env.reset(seed=0)
    assert env.observation_space["camera_position"].shape == (2,)
    camera = env.unwrapped.last_response.observation.raw_data.player.camera
    # Raw coordinates: from the map's top-left (64×64 map: world units).
    assert obs["camera_position"].tolist() == [int(camera.x), int(64 - camera.y)]
    obs, *_ = env.step(FUNCTIONS.move_camera((10, 10)))
    moved = env.unwrapped.last_response.observation.raw_data.player.camera
    assert (moved.x, moved.y) != (camera.x, camera.y)
    assert obs["camera_position"].tolist() == [int(moved.x), int(64 - moved.y)]


def test_neither_is_in_the_observation_unless_asked_for_even_when_rendering(make_env):
    env = make_env("MoveToBeacon", render_mode="rgb_array", use_raw_units=True, **SMALL)
    assert "camera_position" not in env.observation_space.spaces  # the viewer asks the game for it
    assert "unit_type_counts" not in env.observation_space.spaces
