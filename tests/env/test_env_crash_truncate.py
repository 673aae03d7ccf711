"""on_crash="truncate": a lost game ends its episode instead of raising, so that Gymnasium's AsyncVectorEnv,
whose worker shuts down on any error (its reset() then fails with "'NoneType' object has no attribute
'send'", and its close() prints BrokenPipe tracebacks), plays on with a new game (issue 28)."""

from __future__ import annotations

import os
import pathlib
import signal

import numpy as np
import pytest

from sc2env import errors
from sc2env.env import EnvConfig, SC2Env


@pytest.fixture(autouse=True)
def _games_in_their_own_processes(monkeypatch):
    """These tests are about the game process and its socket: every env here starts one (not direct mode)."""
    monkeypatch.setenv("SC2ENV_DIRECT", "0")


SMALL = {"screen_size": 16, "minimap_size": 16}
NO_OPS = np.zeros((2, 14), np.int64)


def children(pid: int) -> list[int]:
    """The processes whose parent is `pid` (a Gymnasium worker's game)."""
    found = []
    for entry in pathlib.Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:  # gone meanwhile
                continue
            if int(fields[1]) == pid:
                found.append(int(entry.name))
    return found


def kill(pid: int) -> None:
    os.kill(pid, signal.SIGKILL)


def test_under_gymnasiums_async_vector_env_a_crashed_game_ends_its_episode_and_reset_plays_on(
    make_vec, capfd
):
    envs = make_vec(num_envs=2, vectorization_mode="async", on_crash="truncate", **SMALL)
    envs.reset(seed=3)
    (engine,) = children(envs.processes[1].pid)
    kill(engine)
    _, rewards, terminated, truncated, infos = envs.step(NO_OPS)
    assert truncated.tolist() == [False, True] and not terminated.any() and rewards[1] == 0
    assert infos["_crash"].tolist() == [False, True]
    assert infos["crash"][1].startswith("GameCrashedError: The game died during")
    assert infos["game_loop"].tolist() == [8, 0]  # sub-env 1's last observation, again
    _, _, _, truncated, infos = envs.step(NO_OPS)  # NEXT_STEP autoreset: a new game for sub-env 1
    assert infos["game_loop"].tolist() == [16, 0] and not truncated.any()
    (replacement,) = children(envs.processes[1].pid)
    assert replacement != engine
    kill(replacement)
    envs.step(NO_OPS)
    _, infos = envs.reset()  # a reset right after the crash: both play on
    assert infos["game_loop"].tolist() == [0, 0]
    _, _, _, truncated, infos = envs.step(NO_OPS)
    assert infos["game_loop"].tolist() == [8, 8] and not truncated.any()
    envs.close()
    err = capfd.readouterr().err
    assert "Traceback" not in err and "BrokenPipeError" not in err and "Shutting it down" not in err


def test_one_env_returns_the_last_observation_truncated_and_stops_the_lost_game():
    env = SC2Env("MoveToBeacon", engine="builtin", on_crash="truncate", **SMALL)
    try:
        first, _ = env.reset(seed=1)
        process = env.match.process
        kill(process.pid)
        with pytest.warns(UserWarning, match="the game was lost, so the episode ends here"):
            obs, reward, terminated, truncated, info = env.step(np.zeros(14, np.int64))
        assert (reward, terminated, truncated) == (0.0, False, True)
        assert info["crash"].startswith("GameCrashedError: ") and info["game_loop"] == 0
        assert all(np.array_equal(obs[name], first[name]) for name in first)
        assert env.episode_over and env.match.process is None and not process.running
        with pytest.raises(errors.ProtocolError, match=r"after the game was lost \(GameCrashedError\)"):
            env.step(np.zeros(14, np.int64))
        _, info = env.reset()
        assert info["game_loop"] == 0 and env.match.process is not process
        assert env.step(np.zeros(14, np.int64))[4]["game_loop"] == 8
    finally:
        env.close()


def test_a_hung_game_is_stopped_when_its_episode_is_truncated():
    env = SC2Env("MoveToBeacon", engine="builtin", on_crash="truncate", request_timeout_s=1.0, **SMALL)
    try:
        env.reset(seed=1)
        process = env.match.process
        os.kill(process.pid, signal.SIGSTOP)  # alive, never answering
        with pytest.warns(UserWarning, match="the game was lost"):
            _, _, _, truncated, info = env.step(np.zeros(14, np.int64))
        assert truncated and info["crash"].startswith("RequestTimeoutError: ")
        assert not process.running  # stopped now, not left hanging until the next reset()
        assert env.reset()[1]["game_loop"] == 0
    finally:
        env.close()


def test_sc2_vector_env_truncates_the_lost_games_episode_and_steps_the_others(make_vec):
    envs = make_vec(num_envs=2, vectorization_mode="vector_entry_point", on_crash="truncate", **SMALL)
    envs.reset(seed=2)
    victim = envs.envs[1].match.process
    kill(victim.pid)
    with pytest.warns(UserWarning, match="the game was lost"):
        _, _, _, truncated, infos = envs.step(NO_OPS)
    assert truncated.tolist() == [False, True] and infos["game_loop"].tolist() == [8, 0]
    assert infos["crash"][1].startswith("GameCrashedError: ")
    _, _, _, _, infos = envs.step(NO_OPS)  # NEXT_STEP: sub-env 1 starts a new game
    assert infos["game_loop"].tolist() == [16, 0] and envs.envs[1].match.process is not victim


def test_on_crash_takes_raise_or_truncate():
    assert EnvConfig().on_crash == "raise"
    with pytest.raises(ValueError, match=r"on_crash must be one of \('raise', 'truncate'\), not 'ignore'"):
        EnvConfig(on_crash="ignore")
