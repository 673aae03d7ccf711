"""score_index / score_multiplier: the reward follows the score entry or the outcome asked for, scaled."""

from __future__ import annotations

import numpy as np
import pytest

from sc2env.interface import FUNCTIONS, RAW_FUNCTIONS
from sc2env.interface.columns import ScoreCumulative

SMALL = dict(screen_size=16, minimap_size=16)
SCV, MINERAL_FIELDS = 45, {341, 483, 146, 147, 1996, 665, 666, 1997, 884, 885}


def test_a_score_entry_scaled_is_the_reward(make_env):
    env = make_env(
        "CollectMineralsAndGas",
        actions="raw",
        step_mul=32,
        score_index=ScoreCumulative.collected_minerals,
        score_multiplier=0.5,
        **SMALL,
    )
    env.reset(seed=0)
    units = env.unwrapped.last_observation.raw_units
    kinds = np.asarray(units.unit_type)
    scvs = [i for i, kind in enumerate(kinds) if kind == SCV]
    field = next(i for i, kind in enumerate(kinds) if kind in MINERAL_FIELDS)
    *_, info = env.step(RAW_FUNCTIONS.Harvest_Gather_unit("now", scvs, field))
    assert not info["invalid_action"]
    rewards = []
    for _ in range(30):
        _, reward, *_, info = env.step(np.zeros(env.action_space.shape, np.int64))
        rewards.append(reward)
    collected = info["score_details"]["collected_minerals"]
    assert collected > 0 and max(rewards) > 0
    assert sum(rewards) == pytest.approx(0.5 * collected)
    assert info["score"] == collected  # the curriculum score, unscaled, stays in info


def _beacon_rewards(env):
    """Rewards of an episode that walks the marine to the beacon again and again (about 20 points)."""
    env.reset(seed=3)
    rewards = [env.step(FUNCTIONS.select_army("select"))[1]]
    while True:
        relative = env.unwrapped.last_observation.feature_screen.player_relative
        ys, xs = np.nonzero(relative == 3)  # the beacon (neutral)
        call = (
            FUNCTIONS.Move_screen("now", (int(xs.mean()), int(ys.mean()))) if len(xs) else FUNCTIONS.no_op()
        )
        _, reward, terminated, truncated, info = env.step(call)
        rewards.append(reward)
        if terminated or truncated:
            return rewards, info


def test_the_outcome_instead_of_the_score_and_a_negated_score(make_env):
    default, default_info = _beacon_rewards(make_env("MoveToBeacon", step_mul=16, **SMALL))
    assert sum(default) == default_info["score"] > 0
    negated, _ = _beacon_rewards(make_env("MoveToBeacon", step_mul=16, score_multiplier=-1, **SMALL))
    assert negated == [-r for r in default]
    outcome, info = _beacon_rewards(make_env("MoveToBeacon", step_mul=16, score_index=-1, **SMALL))
    assert info["score"] == default_info["score"]  # the same episode, seeded
    assert outcome[:-1] == [0.0] * (len(outcome) - 1) and outcome[-1] == info["outcome"]


def test_score_options_are_checked_when_the_env_is_made(make_env):
    with pytest.raises(
        ValueError, match=r"score_index must be -1 \(the outcome\) or .*12 spent_vespene\), not 13"
    ):
        make_env("MoveToBeacon", score_index=13)
    with pytest.raises(TypeError, match="score_index must be a whole number or None, not 'score'"):
        make_env("MoveToBeacon", score_index="score")
    with pytest.raises(TypeError, match="score_multiplier must be a finite number, not nan"):
        make_env("MoveToBeacon", score_multiplier=float("nan"))


def test_a_watched_replay_follows_the_reward_and_time_limit_settings(make_env, tmp_path):
    from sc2env.env import watch_replay

    settings = dict(step_mul=64, score_multiplier=-1, time_limit="truncated", **SMALL)
    env = make_env("MoveToBeacon", **settings)
    env.reset(seed=3)
    played = [env.step(FUNCTIONS.select_army("select"))[1:4]]
    while not (played[-1][1] or played[-1][2]):
        relative = env.unwrapped.last_observation.feature_screen.player_relative
        ys, xs = np.nonzero(relative == 3)
        played.append(env.step(FUNCTIONS.Move_screen("now", (int(xs.mean()), int(ys.mean()))))[1:4])
    path = env.unwrapped.save_replay(tmp_path)
    assert played[-1][1:] == (False, True) and sum(r for r, _, _ in played) < 0
    with watch_replay(path, env.unwrapped.config) as replay:
        watched = [(step.reward, step.terminated, step.truncated) for step in replay]
    assert watched == played
