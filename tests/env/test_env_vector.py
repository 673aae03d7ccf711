"""Vector envs: gymnasium's sync and async wrappers and our own, one observation layout, the autoreset modes."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import signal
import sys
import threading
import time

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

from sc2env import errors
from sc2env.client.connection import Connection
from sc2env.env import SC2Env, SC2VectorEnv
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
    _obs, rewards, terminated, truncated, infos = envs.step(noop)  # the reset step: action ignored
    assert list(infos["game_loop"]) == [0, 0] and not rewards.any() and not (terminated | truncated).any()
    _, _, _, _, infos = envs.step(noop)
    assert list(infos["game_loop"]) == [8, 8]


def test_next_step_autoreset_after_the_game_ends(make_vec):
    envs = make_vec(
        num_envs=2, vectorization_mode="vector_entry_point", step_mul=960, **SMALL
    )  # 1,920 loops: 2 steps
    envs.reset(seed=1)
    noop = np.zeros((2, 14), np.int64)
    _, _, terminated, truncated, _ = envs.step(noop)
    assert not (terminated | truncated).any()
    _, _, terminated, truncated, infos = envs.step(noop)
    assert terminated.all() and not truncated.any() and list(infos["game_loop"]) == [1920, 1920]
    assert list(infos["outcome"]) == [0, 0], "MoveToBeacon's timer ends it without a winner"
    _, rewards, terminated, truncated, infos = envs.step(noop)  # the reset step: a new game from loop 0
    assert list(infos["game_loop"]) == [0, 0] and not rewards.any() and not (terminated | truncated).any()


def _play_both(make_vec, steps: int, autoreset_mode: AutoresetMode):
    """The same seeded no-op steps through our vector env and Gymnasium's SyncVectorEnv (episodes of 2 and 3
    steps, so the two sub-envs end at different steps); each step's results of both."""
    played = []
    for mode, how in (
        ("vector_entry_point", {"autoreset_mode": autoreset_mode.name.lower()}),
        ("sync", {"vector_kwargs": {"autoreset_mode": autoreset_mode}}),
    ):
        envs = make_vec(num_envs=2, vectorization_mode=mode, **SMALL, **how)
        envs.reset(seed=3)
        for env, cap in zip(envs.envs, (2, 3)):  # one env's own TimeLimit-free truncation, per sub-env
            env.unwrapped.config = dataclasses.replace(env.unwrapped.config, max_episode_steps=cap)
        played.append([envs.step(np.zeros((2, 14), np.int64)) for _ in range(steps)])
    return played


def _same(a, b) -> bool:
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, np.ndarray) and a.dtype == object:
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return np.array_equal(a, b)


@pytest.mark.parametrize("autoreset_mode", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP])
def test_autoreset_matches_gymnasiums_sync_vector_env(make_vec, autoreset_mode):
    ours, theirs = _play_both(make_vec, 5, autoreset_mode)
    ended = 0
    for (obs, rewards, _terminated, truncated, infos), expected in zip(ours, theirs):
        assert _same(obs, expected[0]) and _same(infos, expected[4])
        assert np.array_equal(truncated, expected[3]) and np.array_equal(rewards, expected[1])
        if truncated.any() and autoreset_mode is AutoresetMode.NEXT_STEP:
            ended += int(truncated.sum())
        elif truncated.any():
            ended += int(truncated.sum())
            i = int(np.flatnonzero(truncated)[0])
            # The ending step's own observation is in info; the returned one is the new episode's first.
            assert infos["game_loop"][i] == 0 and infos["final_info"]["game_loop"][i] > 0
            assert infos["final_obs"][i]["feature_screen"].shape == obs["feature_screen"][i].shape
    assert ended == 3  # sub-env 0 twice, sub-env 1 once (at step 3)


def test_disabled_autoreset_waits_for_a_masked_reset(make_vec):
    envs = make_vec(
        num_envs=2, vectorization_mode="vector_entry_point", autoreset_mode=AutoresetMode.DISABLED, **SMALL
    )
    assert envs.metadata["autoreset_mode"] is AutoresetMode.DISABLED
    obs, _ = envs.reset(seed=3)
    envs.envs[0].config = dataclasses.replace(envs.envs[0].config, max_episode_steps=1)
    noop = np.zeros((2, 14), np.int64)
    before, _, _, truncated, infos = envs.step(noop)
    assert list(truncated) == [True, False] and list(infos["game_loop"]) == [8, 8]
    with pytest.raises(errors.ProtocolError, match=r"sub-envs \[0\] ended .*reset_mask"):
        envs.step(noop)
    obs, infos = envs.reset(options={"reset_mask": np.array([True, False])})
    assert list(infos["_game_loop"]) == [True, False] and infos["game_loop"][0] == 0
    assert np.array_equal(obs["feature_screen"][1], before["feature_screen"][1])  # sub-env 1 untouched
    _, _, _, _, infos = envs.step(noop)
    assert list(infos["game_loop"]) == [8, 16]


@pytest.mark.parametrize(
    "mask", [np.array([1, 0]), np.array([False, False]), [True, False], np.array([True])]
)
def test_a_wrong_reset_mask_is_refused(make_vec, mask):
    envs = make_vec(num_envs=2, vectorization_mode="vector_entry_point", **SMALL)
    envs.reset(seed=3)
    with pytest.raises(ValueError, match="reset_mask"):
        envs.reset(options={"reset_mask": mask})


def test_human_rendering_of_several_games_is_refused():
    # Their windows shared pygame's one display: reset() hung on a real screen, and closing the window raised
    # a raw pygame error from the other game.
    from sc2env.env import SC2VectorEnv

    with pytest.raises(
        ValueError, match=r"render_mode='human' shows one game .* not 2: use render_mode='rgb_array'"
    ):
        SC2VectorEnv(2, render_mode="human", engine="builtin")


def test_an_unknown_autoreset_mode_is_refused_with_the_choices(make_vec):
    with pytest.raises(
        ValueError,
        match=r"autoreset_mode must be one of \['NextStep', 'SameStep', 'Disabled'\] \(or next_step, same_step, ",
    ):
        make_vec(num_envs=2, vectorization_mode="vector_entry_point", autoreset_mode="every_step", **SMALL)


def test_the_vector_env_reports_its_sub_envs_seeds(make_vec):
    envs = make_vec(num_envs=2, vectorization_mode="vector_entry_point", **SMALL)
    for wrong in (1.5, "7"):  # a TypeError from list(1.5); "7" read as a list of one seed
        with pytest.raises(ValueError, match=r"takes an int \(sub-env i gets seed \+ i\), a list of 2 seeds"):
            envs.reset(seed=wrong)
    envs.reset(seed=np.array(5))  # a 0-d array is one seed
    assert envs.np_random_seed == (5, 6)
    envs.reset(seed=range(8, 10))  # any sequence of seeds
    assert envs.np_random_seed == (8, 9)
    envs.reset(
        seed=np.array([3, 4], np.uint32)
    )  # numpy ints, which Gymnasium refused (and the env was stuck)
    assert envs.np_random_seed == (3, 4)
    with pytest.raises(
        ValueError, match=r"reset\(seed=...\)\[1\] must be a whole number >= 0 or None, not 2.5"
    ):
        envs.reset(seed=[1, 2.5])
    envs.step([FUNCTIONS.no_op()] * 2)  # a seed refused before any game reset leaves the env playing
    envs.reset(seed=5)
    assert envs.np_random_seed == (5, 6)
    assert len(envs.np_random) == 2


def test_a_vector_env_reset_after_close_is_closed_again_by_close(make_vec):
    # reset() after close() starts new games, as one SC2Env's does; the second close() used to do nothing
    # (Gymnasium's close() returns at once when `closed` is set), leaving those games running.
    envs = make_vec(num_envs=2, vectorization_mode="vector_entry_point", **SMALL)
    envs.reset(seed=1)
    envs.close()
    envs.reset(seed=1)
    processes = [env.match.process for env in envs.envs]
    assert all(process.running for process in processes)
    envs.close()
    assert not any(process.running for process in processes)


def test_a_malformed_action_names_its_sub_env(make_vec):
    envs = make_vec(num_envs=2, vectorization_mode="vector_entry_point", **SMALL)
    envs.reset(seed=3)
    with pytest.raises(errors.MalformedActionError, match=r"sub-env 1: function component 999 is outside"):
        envs.step([np.zeros(14, int), np.r_[999, np.zeros(13, int)]])
    envs.step(np.zeros((2, 14), int))  # nothing was sent: both games still answer
    with pytest.raises(
        ValueError, match=r"14 actions for 2 envs: give one per sub-env, e\.g\. a \(2, 14\) array"
    ):
        envs.step(np.zeros(14, int))  # one env's action
    for nothing in (None, 5):  # used to be a bare "len() of unsized object"
        with pytest.raises(ValueError, match=rf"step\(\) got {nothing} for 2 envs: give one per sub-env"):
            envs.step(nothing)
    # A FunctionCall is a 2-tuple: it used to pass as two actions, the first of them its function id.
    with pytest.raises(errors.MalformedActionError, match=r"one FunctionCall for 2 envs: .* \[call\] \* 2"):
        envs.step(FUNCTIONS.select_army("select"))


def test_hung_games_fail_a_vector_step_after_one_request_timeout_not_one_each(make_vec, monkeypatch):
    envs = make_vec(num_envs=3, vectorization_mode="vector_entry_point", request_timeout_s=2, **SMALL)
    envs.reset(seed=3)
    pids = [env.match.process.pid for env in envs.unwrapped.envs]
    waits = _record_waits(monkeypatch)
    for pid in pids:
        os.kill(pid, signal.SIGSTOP)  # hung, not dead
    try:
        with pytest.raises(errors.RequestTimeoutError, match=r"sub-env 0: .* within 2 s"):
            envs.step(np.zeros((3, 14), int))
        # Each game's wait counts from the send: the first waits out the 2 s, and the others, read after it,
        # have none left (it was 3 x (2 s + a 1 s poll) when each waited its own). No clock is read here: the
        # first wait ends only when the timeout has passed, so the others' waits are the 1 ms floor.
        assert len(waits) == 3 and waits[0] <= 2 and waits[1:] == [0.001, 0.001], waits
    finally:
        for pid in pids:
            os.kill(pid, signal.SIGCONT)
    envs.reset(seed=4)  # new games for the lost ones
    envs.step(np.zeros((3, 14), int))


def test_hung_games_cost_a_vector_reset_one_request_timeout_not_one_each(make_vec, monkeypatch):
    # Running games were reset one after another: each hung one waited out its own timeout before it was
    # replaced (13.7 s for 4 hung games at 3 s), in reset() and in the autoreset of a step.
    envs = make_vec(num_envs=3, vectorization_mode="vector_entry_point", request_timeout_s=2, **SMALL)
    envs.reset(seed=3)
    pids = [env.match.process.pid for env in envs.unwrapped.envs]
    hung = {env.match.controller._connection for env in envs.unwrapped.envs}
    # The three waits on the hung games must be under way at once: each waits at this barrier for the other
    # two before it starts. Waited out one after another, the first would never meet the others (the barrier
    # breaks after 60 s, a hang guard, and the reset fails).
    together = threading.Barrier(3, timeout=60)
    real_receive = Connection.receive

    def receive(connection, timeout_s):
        if connection in hung:
            hung.discard(connection)  # its first wait only
            together.wait()
        return real_receive(connection, timeout_s)

    monkeypatch.setattr(Connection, "receive", receive)
    for pid in pids:
        os.kill(pid, signal.SIGSTOP)
    try:
        envs.reset(seed=4)  # the hung games are replaced by new ones
        assert not hung and not together.broken, "one 2 s timeout for the three, not 6 s"
    finally:
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):  # replaced games are stopped and gone
                os.kill(pid, signal.SIGCONT)
    assert all(env.match.process.pid not in pids for env in envs.unwrapped.envs)
    envs.step(np.zeros((3, 14), int))


def _record_waits(monkeypatch) -> list[float]:
    """The timeouts of every wait for an answer from now on, in order (Connection.receive's)."""
    waits: list[float] = []
    real_receive = Connection.receive

    def receive(connection, timeout_s):
        waits.append(timeout_s)
        return real_receive(connection, timeout_s)

    monkeypatch.setattr(Connection, "receive", receive)
    return waits


def _gated_sc2path(root, gate):
    """A StarCraft II install whose 'game' (the built-in engine) starts once `gate` exists; each start first
    leaves a file in `root`/starting."""
    from sc2env.engine.sc2path import make_sc2path

    binary = make_sc2path(root)
    (root / "starting").mkdir()
    wait = f'touch "{root}/starting/$$"\nwhile [ ! -e "{gate}" ]; do sleep 0.02; done\n'
    binary.write_text("#!/bin/sh\n" + wait + binary.read_text().split("\n", 1)[1])
    return root


def _wait_until(predicate, timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


@pytest.mark.parametrize("then", ["reset", "close", "close, then reset"])
def test_a_ctrl_c_during_the_parallel_start_returns_at_once_and_leaves_no_game(
    tmp_path, then, ctrl_c, marked_games
):
    gate = tmp_path / "gate"
    sc2path = _gated_sc2path(tmp_path / "sc2", gate)
    envs = gym.make_vec("sc2env/MoveToBeacon-v0", num_envs=2, engine="sc2", sc2path=sc2path, **SMALL)
    opened = threading.Timer(60, gate.touch)  # a hang guard: a reset that waited for the games ends then
    try:
        # The Ctrl-C comes while both games are starting, and neither can finish before the gate opens.
        ctrl_c(when=lambda: len(list((sc2path / "starting").iterdir())) == 2)
        opened.start()
        with pytest.raises(KeyboardInterrupt):
            envs.reset(seed=3)
        assert not gate.exists(), "reset() was held until the games had started"
        opened.cancel()
        gate.touch()
        if then == "reset":  # waits for the starts the Ctrl-C left running, then plays on with their games
            envs.reset(seed=3)
            envs.step(np.zeros((2, 14), int))
            assert len(marked_games()) == 2
        elif then == "close, then reset":  # the abandoned starts stop their own games, not the new ones
            envs.close()
            envs.reset(seed=3)
            time.sleep(0.5)
            envs.step(np.zeros((2, 14), int))
            assert len(marked_games()) == 2
    finally:
        opened.cancel()
        gate.touch()
        envs.close()  # games still starting are stopped once they have started
    assert _wait_until(lambda: not marked_games(), 10), "a game outlived close()"


@pytest.mark.parametrize("then", ["reset", "close"])
def test_a_ctrl_c_between_the_starts_of_two_resets_leaves_neither_untracked(
    make_vec, monkeypatch, then, marked_games
):
    # A Ctrl-C handled inside Thread.start() (it waits for the new thread to run) once the first sub-env's
    # start had begun: that start went on untracked, and the next reset() reset sub-env 0 a second time beside
    # it ("Cannot send `action` while the game is launched" at the next step, 6 runs in 20).
    envs = make_vec(num_envs=2, vectorization_mode="vector_entry_point", **SMALL)
    real_start = threading.Thread.start

    def start(thread):
        real_start(thread)
        if thread.name == "sc2env-start-0":
            monkeypatch.setattr(threading.Thread, "start", real_start)
            raise KeyboardInterrupt

    monkeypatch.setattr(threading.Thread, "start", start)
    with pytest.raises(KeyboardInterrupt):
        envs.reset(seed=1)
    if then == "reset":
        _, info = envs.reset(seed=1)
        assert list(info["game_loop"]) == [0, 0]
        for _ in range(3):
            _, _, _, _, info = envs.step(np.zeros((2, 14), int))
        assert list(info["game_loop"]) == [24, 24]
        assert len(marked_games()) == 2  # one game each: no second start of sub-env 0
    envs.close()  # a start still running stops its own game once started
    assert _wait_until(lambda: not marked_games(), 10), "a game outlived close()"
    assert _wait_until(
        lambda: not [t for t in threading.enumerate() if t.name.startswith("sc2env-start-")], 10
    )


def test_a_ctrl_c_while_reset_waits_for_the_starts_left_running_still_resets_each_sub_env_once(
    make_vec, monkeypatch, ctrl_c, marked_games
):
    # On CPython 3.10-3.12 a Ctrl-C inside Thread.join() marks the thread stopped while it still runs: the
    # third reset() took sub-env 0's start, still under way, for ended, and started sub-env 0 again beside it.
    from sc2env.game import match

    real_launch = match.launch_plan
    resetting: list[str] = []

    def slow_launch(plan):  # sub-env 0's game starts last, as a real StarCraft II's may
        name = threading.current_thread().name
        resetting.append(name)
        try:
            time.sleep(2.5 if name == "sc2env-start-0" else 1.0)
            return real_launch(plan)
        finally:
            resetting.remove(name)

    monkeypatch.setattr(match, "launch_plan", slow_launch)
    envs = make_vec(num_envs=2, vectorization_mode="vector_entry_point", **SMALL)
    twice = []
    real_reset = SC2Env.reset

    def reset(env, **kwargs):
        if "sc2env-start-0" in resetting and env is envs.envs[0]:
            twice.append(threading.current_thread().name)
        return real_reset(env, **kwargs)

    monkeypatch.setattr(SC2Env, "reset", reset)
    for _ in range(2):  # the first is cut while its games start, the second while it waits for them
        ctrl_c(0.3)
        with pytest.raises(KeyboardInterrupt):
            envs.reset(seed=3)
    _, info = envs.reset(seed=3)
    assert not twice, "sub-env 0 was reset while its last reset was still starting its game"
    assert list(info["game_loop"]) == [0, 0]
    envs.step(np.zeros((2, 14), int))
    assert len(marked_games()) == 2  # one game per sub-env
    envs.close()
    assert _wait_until(lambda: not marked_games(), 10), "a game outlived close()"


def test_a_ctrl_c_while_one_sub_env_closes_still_closes_the_others(make_vec, interrupt_once, marked_games):
    envs = make_vec(num_envs=3, vectorization_mode="vector_entry_point", **SMALL)
    envs.reset(seed=3)
    assert len(marked_games()) == 3
    interrupt_once(envs.envs[0], "_count_episode")  # in sub-env 0's replay save, say
    with pytest.raises(KeyboardInterrupt):
        envs.close()
    assert _wait_until(lambda: not marked_games(), 10), "the other sub-envs' games outlived close()"


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
    with pytest.raises(
        errors.ProtocolError, match=r"after sub-env 1's step failed \(GameCrashedError\): call reset\(\)"
    ):
        envs.step(np.zeros((2, 14), np.int64))
    _obs, infos = envs.reset()
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


def test_ctrl_c_while_sending_or_after_an_episode_ended_keeps_the_vector_env_stepping(
    make_vec, interrupt_once
):
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


@pytest.mark.parametrize("mode", ["next_step", "same_step"])
def test_ctrl_c_after_a_sub_envs_episode_end_was_read_waits_for_reset(make_vec, mode):
    envs = make_vec(
        num_envs=2, vectorization_mode="vector_entry_point", step_mul=960, autoreset_mode=mode, **SMALL
    )
    envs.reset(seed=3)
    noop = np.zeros((2, 14), np.int64)
    envs.step(noop)  # both games end at the next step (1,920 loops)
    read = []

    def interrupt_the_second(env):
        finish = env.finish_step

        def finish_step(sent):
            read.append(env)
            if len(read) == 2:
                raise KeyboardInterrupt
            return finish(sent)

        return finish_step

    for env in envs.envs:
        env.finish_step = interrupt_the_second(env)
    with pytest.raises(KeyboardInterrupt):
        envs.step(noop)
    for env in envs.envs:
        del env.finish_step
    # The first game's end was read but never returned: it used to be reset quietly, its end lost.
    first = envs.envs.index(read[0])
    with pytest.raises(
        errors.ProtocolError, match=f"sub-env {first}'s episode ended in the interrupted step"
    ):
        envs.step(noop)
    _, infos = envs.reset()
    assert list(infos["game_loop"]) == [0, 0]


def test_same_step_reset_that_fails_waits_for_reset(make_vec, interrupt_once):
    envs = make_vec(num_envs=2, vectorization_mode="vector_entry_point", autoreset_mode="same_step", **SMALL)
    envs.reset(seed=3)
    envs.envs[0].config = dataclasses.replace(envs.envs[0].config, max_episode_steps=1)
    interrupt_once(envs.envs[0].match, "reset")  # Ctrl-C as the ended game restarts
    noop = np.zeros((2, 14), np.int64)
    with pytest.raises(KeyboardInterrupt):
        envs.step(noop)
    # It used to step on, returning sub-env 0 as a bare reset: its episode's end never reported.
    with pytest.raises(
        errors.ProtocolError,
        match=r"sub-env 0's episode ended in a step that did not return \(KeyboardInterrupt\)",
    ):
        envs.step(noop)
    _, infos = envs.reset()
    assert list(infos["game_loop"]) == [0, 0]


@pytest.mark.parametrize("mode", ["next_step", "same_step", "disabled"])
def test_ctrl_c_after_every_game_answered_an_ending_step_waits_for_reset(make_vec, interrupt_once, mode):
    envs = make_vec(num_envs=2, vectorization_mode="vector_entry_point", autoreset_mode=mode, **SMALL)
    envs.reset(seed=3)
    envs.envs[0].config = dataclasses.replace(envs.envs[0].config, max_episode_steps=1)
    interrupt_once(envs, "_batch")  # the very end of step(): the episode's end is in hand, not yet returned
    noop = np.zeros((2, 14), np.int64)
    with pytest.raises(KeyboardInterrupt):
        envs.step(noop)
    # Sub-env 0 used to be reset quietly (its end never reported) and the other game stepped on.
    with pytest.raises(errors.ProtocolError, match="sub-env 0's episode ended in a step that did not return"):
        envs.step(noop)
    with pytest.raises(
        errors.ProtocolError, match=r"\(not after sub-env 0's episode ended .*without a mask first"
    ):
        envs.reset(options={"reset_mask": np.array([True, False])})
    _, infos = envs.reset()
    assert list(infos["game_loop"]) == [0, 0]


def test_a_lost_game_and_a_ctrl_c_in_one_step_still_wait_for_a_whole_reset(make_vec, interrupt_once):
    envs = make_vec(num_envs=2, vectorization_mode="vector_entry_point", **SMALL)
    envs.reset(seed=3)

    def lost(*_):
        raise errors.GameCrashedError("the game died")

    envs.envs[0].send_encoded = lost
    interrupt_once(envs.envs[1], "finish_step")
    with pytest.raises(KeyboardInterrupt):
        envs.step(np.zeros((2, 14), np.int64))
    del envs.envs[0].send_encoded
    # The Ctrl-C used to hide the lost game: a masked reset of it let the other game step on.
    with pytest.raises(errors.ProtocolError, match="after sub-env 0's step failed \\(GameCrashedError\\)"):
        envs.step(np.zeros((2, 14), np.int64))
    with pytest.raises(errors.ProtocolError, match="without a mask first"):
        envs.reset(options={"reset_mask": np.array([True, False])})


def test_ctrl_c_at_the_end_of_a_reset_waits_for_a_whole_reset(make_vec, interrupt_once):
    envs = make_vec(num_envs=2, vectorization_mode="vector_entry_point", **SMALL)
    envs.reset(seed=3)
    envs.step(np.zeros((2, 14), np.int64))
    interrupt_once(envs, "_batch")  # every game restarted, the caller told nothing
    with pytest.raises(KeyboardInterrupt):
        envs.reset(seed=9)
    with pytest.raises(errors.ProtocolError, match=r"after a reset\(\) that failed"):
        envs.step(np.zeros((2, 14), np.int64))


def test_after_a_failed_reset_only_a_whole_reset_goes_on(make_vec, interrupt_once):
    envs = make_vec(num_envs=2, vectorization_mode="vector_entry_point", **SMALL)
    envs.reset(seed=3)
    envs.step(np.zeros((2, 14), np.int64))
    interrupt_once(envs.envs[1], "reset")
    with pytest.raises(KeyboardInterrupt):
        envs.reset(seed=10)
    # Sub-env 0 had restarted unseen: a masked reset returned its old observation as current.
    with pytest.raises(errors.ProtocolError, match="call reset\\(\\) without a mask first"):
        envs.reset(options={"reset_mask": np.array([False, True])})
    with pytest.raises(errors.ProtocolError, match=r"after a reset\(\) that failed \(KeyboardInterrupt\)"):
        envs.step(np.zeros((2, 14), np.int64))
    _, infos = envs.reset(seed=10)
    assert list(infos["game_loop"]) == [0, 0]


def test_a_masked_reset_after_close_is_refused(make_vec):
    envs = make_vec(num_envs=2, vectorization_mode="vector_entry_point", **SMALL)
    envs.reset(seed=3)
    envs.close()
    with pytest.raises(errors.ProtocolError, match="without a mask first"):
        envs.reset(options={"reset_mask": np.array([True, False])})
    assert envs.closed


def test_a_vector_envs_spec_with_an_autoreset_mode_goes_through_json(make_vec):
    import gymnasium as gym
    from gymnasium.envs.registration import EnvSpec

    envs = make_vec(
        num_envs=2, vectorization_mode="vector_entry_point", autoreset_mode=AutoresetMode.SAME_STEP, **SMALL
    )
    again = gym.make_vec(EnvSpec.from_json(envs.spec.to_json()))  # the enum broke to_json()
    try:
        assert again.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP
    finally:
        again.close()


def test_an_error_in_a_vector_step_other_than_a_lost_game_also_waits_for_reset(make_vec):
    envs = make_vec(num_envs=2, vectorization_mode="vector_entry_point", **SMALL)
    envs.reset(seed=3)
    noop = np.zeros((2, 14), np.int64)
    broken = envs.envs[1]
    original = broken._observe
    broken._observe = lambda *args: (setattr(broken, "_observe", original), 1 / 0)
    with pytest.raises(ZeroDivisionError):
        envs.step(noop)
    with pytest.raises(errors.ProtocolError, match=r"after a step failed \(ZeroDivisionError"):
        envs.step(noop)
    _, infos = envs.reset()
    assert list(infos["game_loop"]) == [0, 0]


def test_a_vector_env_refused_at_construction_leaves_no_error_behind(monkeypatch):
    # Gymnasium's __del__ closes the half-made env: close() read attributes __init__ had not set yet.
    import gc

    from sc2env.env.vector import SC2VectorEnv

    unraisable = []
    monkeypatch.setattr(sys, "unraisablehook", unraisable.append)
    with pytest.raises(ValueError, match="autoreset_mode must be one of"):
        SC2VectorEnv(2, autoreset_mode="bogus", engine="builtin")
    gc.collect()
    assert unraisable == []
