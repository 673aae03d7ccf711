"""SC2WorkerVectorEnv: direct games in worker processes play what SC2VectorEnv plays, and survive a worker's death."""

from __future__ import annotations

import os
import pathlib
import signal

import gymnasium as gym
import numpy as np
import pytest

import sc2env  # noqa: F401  (registers the ids)
from sc2env import errors
from sc2env.env import SC2Env, SC2VectorEnv, SC2WorkerVectorEnv
from sc2env.env.speed import _moves
from sc2env.interface import FUNCTIONS

# 64 loops a step: a MoveToBeacon episode (1,920 loops) ends after 30 steps, so 40 cross an autoreset.
KWARGS = {"engine": "builtin", "screen_size": 24, "minimap_size": 16, "step_mul": 64}
STEPS = 40


def _actions(num_envs: int) -> list[np.ndarray]:
    single = SC2Env("MoveToBeacon", **KWARGS)
    rng = np.random.default_rng(5)
    select = np.stack([single.function_call_to_action(FUNCTIONS.select_army("select"))] * num_envs)
    return [select] + [np.stack(_moves(single, rng, num_envs)) for _ in range(STEPS)]


def _play(envs, actions: list[np.ndarray], fresh: bool = False) -> list:
    """Every reset's and step's answers; `fresh`: the env gives new arrays each time (kept as they are)."""
    trace = []
    try:
        obs, info = envs.reset(seed=21)
        trace.append((obs if fresh else {k: v.copy() for k, v in obs.items()}, info))
        for batch in actions:
            obs, *rest = envs.step(batch)
            trace.append((obs if fresh else {k: v.copy() for k, v in obs.items()}, *rest))
    finally:
        envs.close()
    return trace


def _same(a, b, where: str) -> None:
    if isinstance(a, dict):
        assert isinstance(b, dict) and sorted(a) == sorted(b), where
        for key in a:
            _same(a[key], b[key], f"{where}[{key!r}]")
    elif isinstance(a, (tuple, list)):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            _same(x, y, f"{where}[{i}]")
    elif isinstance(a, np.ndarray) and a.dtype == object:  # info["final_obs"]: one dict (or None) per sub-env
        assert isinstance(b, np.ndarray) and b.dtype == object and a.shape == b.shape, where
        for i, (x, y) in enumerate(zip(a, b)):
            _same(x, y, f"{where}[{i}]")
    elif isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and np.array_equal(a, b), where
    else:
        assert a == b, f"{where}: {a!r} != {b!r}"


@pytest.mark.parametrize("autoreset_mode", ["NextStep", "SameStep"])
def test_workers_play_the_episodes_sc2_vector_env_plays(autoreset_mode):
    actions = _actions(3)
    copy = autoreset_mode == "SameStep"  # new arrays every step (copy=True) or the shared block's
    made = SC2WorkerVectorEnv(3, workers=2, autoreset_mode=autoreset_mode, copy=copy, **KWARGS)
    workers = _play(made, actions, fresh=copy)
    reference = _play(SC2VectorEnv(3, autoreset_mode=autoreset_mode, **KWARGS), actions)
    for i, (a, b) in enumerate(zip(workers, reference, strict=True)):
        _same(a, b, f"step {i}")
    ended = [step for step in workers[1:] if step[2].any()]
    assert ended, "an episode ended on the way"
    if autoreset_mode == "SameStep":
        assert "final_obs" in ended[0][4]


def test_gym_make_vec_with_workers_makes_the_worker_env_and_shares_its_observations(tmp_path):
    envs = gym.make_vec(
        "sc2env/MoveToBeacon-v0",
        num_envs=2,
        workers=1,
        save_replay_episodes=1,
        replay_dir=str(tmp_path),
        **KWARGS,
    )
    try:
        assert isinstance(envs, SC2WorkerVectorEnv)
        first, _ = envs.reset(seed=3)
        assert envs.get_attr("np_random_seed") == (3, 4)
        envs.set_attr("note", ["a", "b"])
        assert envs.get_attr("note") == ("a", "b")
        assert envs.action_masks().shape == (2, len(envs.action_masks()[0]))
        later, *_ = envs.step(np.zeros((2, len(envs.action_spec.nvec)), np.int64))
        # The arrays are the shared block's: the step wrote into the very memory the reset returned.
        assert np.shares_memory(first["feature_screen"], later["feature_screen"])
        assert later["game_loop"].ravel().tolist() == [64, 64]
        infos = {}
        for _ in range(STEPS):
            *_, infos = envs.step(np.zeros((2, len(envs.action_spec.nvec)), np.int64))
            if "replay_path" in infos:
                break
        saved = [path for path in infos["replay_path"] if path]
        assert saved and all(pathlib.Path(path).is_file() for path in saved)
    finally:
        envs.close()


def _alive(pid: int) -> bool:
    try:
        status = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return status != "Z"


def test_a_killed_worker_fails_the_step_by_name_and_reset_replaces_it():
    envs = SC2WorkerVectorEnv(4, workers=2, **KWARGS)
    noop = np.zeros((4, len(envs.action_spec.nvec)), np.int64)
    try:
        envs.reset(seed=1)
        envs.step(noop)
        victim = envs._workers[1].process.pid
        os.kill(victim, signal.SIGKILL)
        with pytest.raises(
            errors.GameCrashedError, match=rf"worker process \(pid {victim}\) of sub-envs \[2, 3\]"
        ):
            envs.step(noop)
        with pytest.raises(errors.ProtocolError, match="call reset"):
            envs.step(noop)
        obs, _ = envs.reset(seed=1)
        assert obs["game_loop"].ravel().tolist() == [0, 0, 0, 0] and not _alive(victim)
        obs, *_ = envs.step(noop)
        assert obs["game_loop"].ravel().tolist() == [64] * 4
        pids = [worker.process.pid for worker in envs._workers]
        assert victim not in pids and all(_alive(pid) for pid in pids)
        blocks = [envs._batch.layout.name, envs._record.layout.name]
    finally:
        envs.close()
    assert not any(_alive(pid) for pid in pids)
    assert not any(pathlib.Path(f"/dev/shm/{block}").exists() for block in blocks)


def test_a_ctrl_c_while_the_workers_step_leaves_reset_working(monkeypatch):
    import sc2env.env.worker_vector as worker_vector

    envs = SC2WorkerVectorEnv(2, workers=2, **KWARGS)
    noop = np.zeros((2, len(envs.action_spec.nvec)), np.int64)
    try:
        envs.reset(seed=1)
        real_wait = worker_vector.wait

        def interrupted(*args, **kwargs):
            monkeypatch.setattr(worker_vector, "wait", real_wait)
            raise KeyboardInterrupt

        monkeypatch.setattr(worker_vector, "wait", interrupted)
        with pytest.raises(KeyboardInterrupt):
            envs.step(noop)  # sent to both workers, their answers never read
        with pytest.raises(errors.ProtocolError, match="call reset"):
            envs.step(noop)
        pids = [worker.process.pid for worker in envs._workers]
        obs, _ = envs.reset(
            seed=1
        )  # reads and drops the step's answers first: each answer is its own request's
        assert obs["game_loop"].ravel().tolist() == [0, 0]
        obs, *_ = envs.step(noop)
        assert obs["game_loop"].ravel().tolist() == [64, 64]
        assert [worker.process.pid for worker in envs._workers] == pids  # the same workers, kept
    finally:
        envs.close()


def test_pack_into_takes_only_arrays_of_the_observation_space():
    env = SC2Env("MoveToBeacon", **KWARGS)
    rows = {key: np.zeros(box.shape, box.dtype) for key, box in env.observation_space.spaces.items()}
    env.pack_into(rows)
    wrong = dict(rows, feature_screen=np.zeros((3, 24, 24), np.uint8))
    with pytest.raises(
        ValueError, match=r"pack_into needs a uint8 array of shape \(\d+, 24, 24\) for 'feature_screen'"
    ):
        env.pack_into(wrong)
    del rows["game_loop"]
    with pytest.raises(ValueError, match="for 'game_loop', not None"):
        env.pack_into(rows)
    env.pack_into(None)
    env.close()
