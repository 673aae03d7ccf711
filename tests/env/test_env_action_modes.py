"""Feature-layer and raw actions behind one interface: the env delegates every action question to its mode."""

from __future__ import annotations

import numpy as np
import pytest

from sc2env import errors
from sc2env.env import SC2Env
from sc2env.env.feature_mode import FeatureActions
from sc2env.env.raw_mode import RawActions
from sc2env.interface import FUNCTIONS, RAW_FUNCTIONS

SMALL = dict(engine="builtin", screen_size=32, minimap_size=32)


@pytest.fixture
def env_of():
    made = []

    def make(**kwargs) -> SC2Env:
        env = SC2Env("DefeatRoaches", **SMALL, **kwargs)
        made.append(env)
        return env

    yield make
    for env in made:
        env.close()


@pytest.mark.parametrize("actions, mode, parts", [("features", FeatureActions, 14), ("raw", RawActions, 5)])
def test_one_mask_splitting_helper_samples_either_layout_within_its_masks(env_of, actions, mode, parts):
    env = env_of(actions=actions)
    obs, _ = env.reset(seed=2)
    assert (
        isinstance(env.action_mode, mode) and env.action_space.nvec.tolist() == env.action_mode.nvec.tolist()
    )
    split = env.split_mask(obs["action_mask"])
    assert len(split) == parts == len(env.action_space.nvec) and all(p.dtype == np.int8 for p in split)
    assert [len(p) for p in split] == env.action_space.nvec.tolist()
    assert all(np.shares_memory(p, obs["action_mask"]) for p in split), "views, not copies"
    # A bool mask (action_masks()) and a batch split the same way.
    assert [p.tolist() for p in env.split_mask(env.action_masks())] == [p.tolist() for p in split]
    assert env.split_mask(np.stack([obs["action_mask"]] * 3))[1].shape == (3, len(split[1]))
    env.action_space.seed(0)
    for _ in range(20):
        action = env.action_space.sample(mask=split)
        assert all(part[value] for part, value in zip(split, action))


def test_conditional_masks_come_from_the_mode_in_either_layout(env_of):
    features = env_of()
    features.reset(seed=2)
    features.step(FUNCTIONS.select_army("select"))
    position = int(features.action_spec.function_position[FUNCTIONS.Attack_screen.id])
    conditioned = features.conditional_mask(position)
    expected = features.last_observation.masks.for_function(FUNCTIONS.Attack_screen.id)
    assert np.array_equal(conditioned, expected)
    with pytest.raises(ValueError, match="units= conditions raw actions"):
        features.conditional_mask(position, units=0)

    raw = env_of(actions="raw")
    raw.reset(seed=2)
    attack = RAW_FUNCTIONS.Attack_unit.id
    assert np.array_equal(raw.conditional_mask(attack, 0), raw.raw_conditional_mask(attack, 0))
    space = raw.raw_space
    targets = raw.conditional_mask(attack)[space.segment("target")]
    assert (
        targets.any()
        and not raw.conditional_mask(RAW_FUNCTIONS.Stop_quick.id)[space.segment("target")][1:].any()
    )


def test_masks_before_any_observation_say_to_reset(env_of):
    env = env_of(actions="raw")
    with pytest.raises(errors.ProtocolError, match=r"needs an observation: call reset\(\) first"):
        env.conditional_mask(0)
    with pytest.raises(errors.ProtocolError, match=r"needs an observation: call reset\(\) first"):
        env.action_masks()


def test_the_raw_mode_asks_its_query_through_the_match(env_of, monkeypatch):
    # The mode gets what a step must ask (step_requests) sent by the match, and its own extra query through
    # the match's query(), never by reaching for the match's controller.
    env = env_of(actions="raw")
    env.reset(seed=2)
    match = env.match
    asked = []
    original = match.query
    monkeypatch.setattr(match, "query", lambda request: asked.append(request) or original(request))
    requests = env.action_mode.step_requests()
    assert [kind for kind, _ in requests] == ["query"] and len(requests[0][1].abilities) == 9  # the Marines
    env.step(RAW_FUNCTIONS.no_op())
    assert asked == [], "the step's own query answered every unit it knew"
    env.reset()
    assert len(asked) == 1 and len(asked[0].abilities) == 9, "after a reset: one query for every unit"
