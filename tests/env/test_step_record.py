"""StepRecord: the worker vector env's shared results give the infos Gymnasium's _add_info gives."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium import spaces
from gymnasium.vector import VectorEnv
from test_env_workers import KWARGS, _same

from sc2env.env import SC2Env
from sc2env.env.env import SCORE_DETAIL_NAMES
from sc2env.env.step_record import INFO_COLUMNS, StepRecord


class _Adder(VectorEnv):
    """Gymnasium's own way of batching infos, a key at a time per sub-env: the reference."""

    def __init__(self, num_envs: int) -> None:
        self.num_envs = num_envs


def _info(k: int, **changes) -> dict:
    info = {
        "game_loop": 16 * k,
        "score": k,
        "score_details": {name: k + j for j, name in enumerate(SCORE_DETAIL_NAMES)},
        "outcome": 0,
        "episode_steps": k,
        "invalid_action": False,
        "invalid_action_reason": "",
    }
    info.update(changes)
    return info


@pytest.fixture
def record():
    made = StepRecord.create(4, spaces.MultiDiscrete([3, 5]))
    yield made
    made.close()


def _both(record: StepRecord, given: dict[int, dict]) -> tuple[dict, dict]:
    """(the record's infos with the leftovers added, Gymnasium's infos) of the sub-envs in `given`."""
    adder = _Adder(4)
    leftovers = {
        index: record.put(index, 0.5 * index, False, index == 2, info) for index, info in given.items()
    }
    ours = record.infos(4, sorted(given))
    reference: dict = {}
    for index in sorted(given):
        reference = adder._add_info(reference, given[index], index)
        if leftovers[index]:
            ours = adder._add_info(ours, leftovers[index], index)
    return ours, reference


def test_every_sub_env_with_the_usual_keys_needs_nothing_from_the_pipe(record):
    given = {k: _info(k) for k in range(4)}
    ours, reference = _both(record, given)
    _same(ours, reference, "infos")
    assert record.put(0, 1.0, True, False, _info(0)) is None
    np.testing.assert_array_equal(record.rewards, [1.0, 0.5, 1.0, 1.5])
    np.testing.assert_array_equal(record.terminations, [True, False, False, False])
    np.testing.assert_array_equal(record.truncations, [False, False, True, False])


def test_some_sub_envs_extra_keys_text_and_odd_values_match_gymnasium(record):
    given = {
        0: _info(0, invalid_action=True, invalid_action_reason="not available", replay_path="/x.SC2Replay"),
        2: _info(2, score=2.5),  # a float where an int is usual: the whole info goes through the pipe
        3: _info(3),
    }
    ours, reference = _both(record, given)
    _same(ours, reference, "infos")
    assert list(ours["_game_loop"]) == [True, False, True, True]
    assert ours["invalid_action_reason"][0] == "not available" and ours["invalid_action_reason"][3] == ""


def test_an_info_without_the_usual_keys_goes_whole_and_none_is_made_up(record):
    given = {1: {"crash": "lost"}}
    ours, reference = _both(record, given)
    _same(ours, reference, "infos")
    assert "game_loop" not in ours


def test_actions_go_through_the_record_only_as_one_array_of_the_space(record):
    actions = np.array([[0, 1], [2, 4], [1, 1], [0, 0]], np.int64)
    assert record.put_action(actions)
    np.testing.assert_array_equal(record.actions, actions)
    assert not record.put_action(actions.astype(np.int32))
    assert not record.put_action(list(actions))
    assert not record.put_action(actions[:3])


def test_the_columns_hold_a_real_step_s_and_reset_s_info():
    env = SC2Env("MoveToBeacon", direct=True, **KWARGS)
    made = StepRecord.create(1, env.action_space)
    try:
        _, info = env.reset(seed=3)
        assert made.put(0, 0.0, False, False, info) is None
        _, reward, terminated, truncated, info = env.step(env.action_space.sample())
        assert made.put(0, reward, terminated, truncated, info) in (
            None,
            {"invalid_action_reason": info["invalid_action_reason"]},
        )
        assert [column.key for column in INFO_COLUMNS] == list(info)
    finally:
        made.close()
        env.close()
