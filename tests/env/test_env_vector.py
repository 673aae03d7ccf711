"""Vector envs: gymnasium's sync and async wrappers and our own, one observation layout, NEXT_STEP autoreset."""

from __future__ import annotations

import os
import signal

import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

from sc2env import errors
from sc2env.env import SC2VectorEnv
from sc2env.interface import FUNCTIONS

SMALL = {"screen_size": 32, "minimap_size": 32}


@pytest.mark.parametrize("mode", ["sync", "async", "vector_entry_point"])
def test_every_vectorization_mode_batches_the_same_layout(make_vec, mode):
    envs = make_vec(num_envs=2, vectorization_mode=mode, **SMALL)
    obs, infos = envs.reset(seed=5)
    assert envs.observation_space.contains(obs)
    assert obs["feature_screen"].shape == (2, 27, 32, 32)
    assert obs["action_mask"].shape[0] == 2
    assert list(infos["game_loop"]) == [0, 0]
    actions = np.zeros((2, 14), np.int64)  # no_op everywhere
    obs, rewards, terminated, truncated, infos = envs.step(actions)
    assert list(infos["game_loop"]) == [8, 8]
    assert rewards.shape == (2,) and not terminated.any() and not truncated.any()


def test_sub_envs_get_their_own_seeds_and_games(make_vec):
    envs = make_vec(num_envs=2, vectorization_mode="vector_entry_point", **SMALL)
    assert isinstance(envs, SC2VectorEnv)
    obs, _ = envs.reset(seed=21)
    assert not np.array_equal(obs["feature_screen"][0], obs["feature_screen"][1])
    ports = {env.match.process.port for env in envs.envs}
    assert len(ports) == 2
    again, _ = envs.reset(seed=21)
    assert np.array_equal(obs["feature_screen"], again["feature_screen"])


def test_spin_wait_off_reaches_every_game_and_the_wait_for_answers(make_vec):
    envs = make_vec(num_envs=2, vectorization_mode="vector_entry_point", spin_wait=False, **SMALL)
    envs.reset(seed=1)
    assert envs._spin.window_s == 0
    assert all(env.match.process.argv[-2:] == ["--spin-wait", "0"] for env in envs.envs)
    assert make_vec(num_envs=1, vectorization_mode="vector_entry_point", **SMALL)._spin.window_s > 0


def test_next_step_autoreset(make_vec):
    envs = make_vec(num_envs=2, vectorization_mode="vector_entry_point", max_episode_steps=2, **SMALL)
    assert envs.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP
    envs.reset(seed=1)
    noop = np.zeros((2, 14), np.int64)
    _, _, _, truncated, _ = envs.step(noop)
    assert not truncated.any()
    _, _, _, truncated, infos = envs.step(noop)
    assert truncated.all() and list(infos["game_loop"]) == [16, 16]
    obs, rewards, terminated, truncated, infos = envs.step(noop)  # the reset step: action ignored
    assert list(infos["game_loop"]) == [0, 0] and not rewards.any() and not (terminated | truncated).any()
    _, _, _, _, infos = envs.step(noop)
    assert list(infos["game_loop"]) == [8, 8]


def test_next_step_autoreset_after_the_game_ends(make_vec):
    envs = make_vec(num_envs=2, vectorization_mode="vector_entry_point", step_mul=960, **SMALL)  # 1,920 loops: 2 steps
    envs.reset(seed=1)
    noop = np.zeros((2, 14), np.int64)
    _, _, terminated, truncated, _ = envs.step(noop)
    assert not (terminated | truncated).any()
    _, _, terminated, truncated, infos = envs.step(noop)
    assert terminated.all() and not truncated.any() and list(infos["game_loop"]) == [1920, 1920]
    assert list(infos["outcome"]) == [0, 0], "MoveToBeacon's timer ends it without a winner"
    _, rewards, terminated, truncated, infos = envs.step(noop)  # the reset step: a new game from loop 0
    assert list(infos["game_loop"]) == [0, 0] and not rewards.any() and not (terminated | truncated).any()


def test_a_malformed_action_names_its_sub_env(make_vec):
    envs = make_vec(num_envs=2, vectorization_mode="vector_entry_point", **SMALL)
    envs.reset(seed=3)
    with pytest.raises(errors.MalformedActionError, match=r"sub-env 1: function component 999 is outside"):
        envs.step([np.zeros(14, int), np.r_[999, np.zeros(13, int)]])
    envs.step(np.zeros((2, 14), int))  # nothing was sent: both games still answer
    with pytest.raises(ValueError, match=r"14 actions for 2 envs: give one per sub-env, e\.g\. a \(2, 14\) array"):
        envs.step(np.zeros(14, int))  # one env's action


def test_vector_env_accepts_function_calls_and_reports_masks(make_vec):
    envs = make_vec(num_envs=2, vectorization_mode="vector_entry_point", **SMALL)
    obs, _ = envs.reset(seed=3)
    masks = envs.action_masks()
    assert masks.shape == obs["action_mask"].shape and masks.dtype == bool
    _, _, _, _, infos = envs.step([FUNCTIONS.select_army("select"), FUNCTIONS.no_op()])
    assert not infos["invalid_action"].any()
    selected = envs.call("last_observation")
    assert selected[0].single_select.unit_type[0] == 48 and len(selected[1].single_select) == 0


def test_a_crashed_game_fails_the_step_and_the_vector_env_recovers_at_reset(make_vec):
    envs = make_vec(num_envs=2, vectorization_mode="vector_entry_point", **SMALL)
    envs.reset(seed=2)
    victim = envs.envs[1].match.process
    os.kill(victim.pid, signal.SIGKILL)
    assert victim.wait(5) is not None
    with pytest.raises(errors.GameCrashedError, match="sub-env 1"):
        envs.step(np.zeros((2, 14), np.int64))
    # Sub-env 0 did that step, unseen: stepping on would run its episode across a restart without a boundary.
    with pytest.raises(errors.ProtocolError,
                       match=r"after sub-env 1's step failed \(GameCrashedError\): call reset\(\)"):
        envs.step(np.zeros((2, 14), np.int64))
    obs, infos = envs.reset()
    assert list(infos["game_loop"]) == [0, 0] and envs.envs[1].match.process is not victim
    _, _, _, _, infos = envs.step(np.zeros((2, 14), np.int64))
    assert list(infos["game_loop"]) == [8, 8]


def test_an_invalid_action_under_raise_sends_nothing(make_vec):
    envs = make_vec(num_envs=2, vectorization_mode="vector_entry_point", invalid_action="raise", **SMALL)
    envs.reset(seed=2)
    with pytest.raises(errors.InvalidActionError, match="Move_screen"):
        envs.step([FUNCTIONS.no_op(), FUNCTIONS.Move_screen("now", (1, 1))])
    _, _, _, _, infos = envs.step([FUNCTIONS.no_op(), FUNCTIONS.no_op()])
    assert list(infos["game_loop"]) == [8, 8]  # the refused batch moved no game


@pytest.mark.parametrize("window", [0.0, 0.002])
def test_answers_are_read_in_the_order_the_games_send_them(window):
    import socket

    from sc2env.env.vector import _arrival_order
    from sc2env.spinwait import SpinWait

    class FakePending:
        def __init__(self, sock):
            self.sock = sock

        def fileno(self):
            return self.sock.fileno()

    pairs = [socket.socketpair() for _ in range(3)]
    try:
        sent = {i: (FakePending(ours), None) for i, (ours, _) in enumerate(pairs)}
        sent[3] = (object(), None)  # an answer already in hand (the game had ended): no socket to wait on
        order = _arrival_order(sent, SpinWait(window))
        assert next(order) == 3
        pairs[2][1].sendall(b"x")
        assert next(order) == 2
        pairs[0][1].sendall(b"x")
        assert next(order) == 0
        pairs[1][1].sendall(b"x")
        assert next(order) == 1
        assert list(order) == []
    finally:
        for a, b in pairs:
            a.close()
            b.close()


def test_ctrl_c_in_a_vector_step_keeps_every_game(make_vec, interrupt_once):
    envs = make_vec(num_envs=2, vectorization_mode="vector_entry_point", **SMALL)
    envs.reset(seed=3)
    interrupt_once(envs.envs[0].match.controller._connection, "receive")  # while game 0's answer is awaited
    noop = np.zeros((2, 14), np.int64)
    with pytest.raises(KeyboardInterrupt):
        envs.step(noop)
    _, _, _, _, infos = envs.step(noop)
    assert list(infos["game_loop"]) == [16, 16], "both games did the interrupted step and this one"


def test_ctrl_c_while_sending_or_after_an_episode_ended_keeps_the_vector_env_stepping(make_vec, interrupt_once):
    envs = make_vec(num_envs=2, vectorization_mode="vector_entry_point", step_mul=960, **SMALL)
    envs.reset(seed=3)
    noop = np.zeros((2, 14), np.int64)
    second = envs.envs[1]
    interrupt_once(second, "send_encoded")  # after game 0 got its action, before game 1 did
    with pytest.raises(KeyboardInterrupt):
        envs.step(noop)
    _, _, terminated, _, infos = envs.step(noop)
    assert list(infos["game_loop"]) == [1920, 960] and terminated.tolist() == [True, False]
    interrupt_once(second.match.controller._connection, "receive")  # game 1's answer awaited, game 0 reset
    with pytest.raises(KeyboardInterrupt):
        envs.step(noop)
    # Game 0 was reset in the interrupted step and goes on; game 1's episode ended in it, and says so now.
    _, _, terminated, _, infos = envs.step(noop)
    assert infos["game_loop"].tolist() == [960, 1920] and terminated.tolist() == [False, True]
    _, _, terminated, _, infos = envs.step(noop)  # and is reset at the next step, as usual
    assert infos["game_loop"].tolist() == [1920, 0]


def test_ctrl_c_as_a_sub_env_decodes_its_episodes_last_observation_waits_for_reset(make_vec, interrupt_once):
    envs = make_vec(num_envs=2, vectorization_mode="vector_entry_point", step_mul=960, **SMALL)
    envs.reset(seed=3)
    noop = np.zeros((2, 14), np.int64)
    envs.step(noop)
    interrupt_once(envs.envs[1], "_observe")  # the game said the episode ended; the env had not returned it
    with pytest.raises(KeyboardInterrupt):
        envs.step(noop)
    # Every later step used to be refused ("step() needs a running episode") while game 0 stepped on unseen;
    # a quiet reset would hide the episode's end instead.
    with pytest.raises(errors.ProtocolError, match="sub-env 1's episode ended in the interrupted step"):
        envs.step(noop)
    _, infos = envs.reset()
    assert list(infos["game_loop"]) == [0, 0]


def test_an_error_in_a_vector_step_other_than_a_lost_game_also_waits_for_reset(make_vec):
    envs = make_vec(num_envs=2, vectorization_mode="vector_entry_point", **SMALL)
    envs.reset(seed=3)
    noop = np.zeros((2, 14), np.int64)
    broken = envs.envs[1]
    original = broken._observe
    broken._observe = lambda response: (setattr(broken, "_observe", original), 1 / 0)
    with pytest.raises(ZeroDivisionError):
        envs.step(noop)
    with pytest.raises(errors.ProtocolError, match=r"after a step failed \(ZeroDivisionError"):
        envs.step(noop)
    _, infos = envs.reset()
    assert list(infos["game_loop"]) == [0, 0]
