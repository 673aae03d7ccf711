"""Several raw calls in one step: a list of RawFunctionCalls, sent in order, checked whole."""

from __future__ import annotations

import numpy as np
import pytest

from sc2env import errors
from sc2env.interface import FUNCTIONS, RAW_FUNCTIONS
from sc2env.interface.columns import FeatureUnit

SMALL = dict(screen_size=16, minimap_size=16, actions="raw")


def _rows(obs):
    units = obs["raw_units"][: obs["unit_counts"][1]]
    marines = np.flatnonzero(units[:, FeatureUnit.alliance] == 1).tolist()
    roaches = np.flatnonzero(units[:, FeatureUnit.alliance] == 4).tolist()
    return units, marines, roaches


def test_two_calls_in_one_step_reach_the_game_in_order(make_env):
    env = make_env("DefeatRoaches", **SMALL)
    obs, _ = env.reset(seed=0)
    units, marines, roaches = _rows(obs)
    first, second = roaches[0], roaches[1]
    calls = [
        RAW_FUNCTIONS.Attack_unit("now", marines[:4], first),
        RAW_FUNCTIONS.Attack_unit("now", marines[4:], second),
    ]
    obs, _, _, _, info = env.step(calls)
    assert not info["invalid_action"]
    echoed = env.unwrapped.last_response.actions
    assert len(echoed) == 2 and obs["last_actions"][:2].tolist() == [RAW_FUNCTIONS.Attack_unit.id] * 2
    tags = units[:, FeatureUnit.tag]
    assert [set(a.action_raw.unit_command.unit_tags) for a in echoed] == [
        set(tags[marines[:4]].tolist()),
        set(tags[marines[4:]].tolist()),
    ]
    assert [a.action_raw.unit_command.target_unit_tag for a in echoed] == [tags[first], tags[second]]
    # Each group fights its own Roach: the game's orders say so.
    targets = {
        u.tag: u.orders[0].target_unit_tag
        for u in env.unwrapped.last_response.observation.raw_data.units
        if u.alliance == 1 and u.orders
    }
    assert {targets[t] for t in tags[marines[:4]].tolist() if t in targets} == {tags[first]}
    assert {targets[t] for t in tags[marines[4:]].tolist() if t in targets} == {tags[second]}


def test_one_refused_call_refuses_the_step_naming_it(make_env):
    env = make_env("DefeatRoaches", **SMALL)
    obs, _ = env.reset(seed=0)
    _, marines, roaches = _rows(obs)
    good = RAW_FUNCTIONS.Attack_unit("now", marines[:2], roaches[0])
    bad = RAW_FUNCTIONS.Attack_unit("now", [roaches[1]], marines[0])  # a Roach is no unit of ours
    _, _, _, _, info = env.step([good, bad])
    assert info["invalid_action"] and info["invalid_action_reason"].startswith("call 2 of 2 (")
    assert not env.unwrapped.last_response.actions  # nothing was sent
    strict = make_env("DefeatRoaches", invalid_action="raise", **SMALL)
    strict.reset(seed=0)
    with pytest.raises(errors.InvalidActionError, match=r"call 2 of 2"):
        strict.step([good, bad])


def test_an_empty_list_sends_nothing_and_mixed_lists_are_malformed(make_env):
    env = make_env("DefeatRoaches", **SMALL)
    obs, _ = env.reset(seed=0)
    _, marines, roaches = _rows(obs)
    _, _, _, _, info = env.step([])
    assert not info["invalid_action"] and not env.unwrapped.last_response.actions
    with pytest.raises(errors.MalformedActionError, match="must all be RawFunctionCalls"):
        env.step([RAW_FUNCTIONS.Attack_unit("now", marines, roaches[0]), FUNCTIONS.select_army("select")])
    # A vector given as a list of numbers is still one action.
    _, _, _, _, info = env.step([0, 0, 0, 0, 0])
    assert not info["invalid_action"]
