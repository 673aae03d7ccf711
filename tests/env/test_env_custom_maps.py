"""Mini-games of the user's own: a definition file given as map_name is played by the built-in engine."""

from __future__ import annotations

import codecs
import json
import os
import pathlib

import gymnasium as gym
import numpy as np
import pytest

from sc2env import errors
from sc2env.env import SC2Env, register_minigame, watch_replay
from sc2env.env.config import EnvConfig
from sc2env.game import MINI_GAMES, definition_map, resolve_map
from sc2env.interface import FUNCTIONS, SCREEN_LAYERS
from sc2env.mapfiles import definitions_dir

SMALL = {"screen_size": 32, "minimap_size": 32}
PLAYER_RELATIVE = [layer.name for layer in SCREEN_LAYERS].index("player_relative")
TIME_LIMIT = 480  # 60 env steps at step_mul 8


def three_marine_beacon() -> dict:
    """MoveToBeacon changed where a changed rule shows: three Marines, 5 points a beacon, 30 game seconds."""
    spec = json.loads((definitions_dir() / "MoveToBeacon.json").read_text())
    spec.update(name="ThreeMarineBeacon", time_limit=TIME_LIMIT)
    spec["setup"][0]["spawn"]["count"] = 3
    spec["triggers"][0]["do"][0] = {"score": {"add": 5}}
    return spec


@pytest.fixture
def definition(tmp_path) -> pathlib.Path:
    path = tmp_path / "ThreeMarineBeacon.json"
    path.write_text(json.dumps(three_marine_beacon()))
    return path


def test_a_definition_file_plays_its_own_rules(make_env, definition):
    env = make_env("sc2env/SC2-v0", map_name=str(definition), use_feature_units=True, **SMALL)
    obs, info = env.reset(seed=3)
    units = obs["feature_units"][: obs["unit_counts"][0]]
    alliance = units[:, 1]  # column 1: alliance (1 self)
    assert int((alliance == 1).sum()) == 3 and info["game_loop"] == 0
    obs, *_ = env.step(FUNCTIONS.select_army("select"))
    rewards, steps, terminated = [], 1, False
    while not terminated:
        ys, xs = np.nonzero(obs["feature_screen"][PLAYER_RELATIVE] == 3)  # the beacon
        obs, reward, terminated, truncated, info = env.step(
            FUNCTIONS.Move_screen("now", (int(xs.mean()), int(ys.mean())))
        )
        assert not truncated and not info["invalid_action"], info["invalid_action_reason"]
        rewards.append(reward)
        steps += 1
    assert steps == TIME_LIMIT // 8 and info["game_loop"] == TIME_LIMIT  # its timer, not MoveToBeacon's
    assert sum(rewards) >= 10 and set(rewards) <= {0.0, 5.0}  # 5 a beacon
    assert info["score"] == sum(rewards)


def test_the_config_keeps_the_absolute_path_and_takes_a_path_object(definition, monkeypatch):
    monkeypatch.chdir(definition.parent)
    assert EnvConfig(map_name=definition.name).map_name == str(definition.resolve())
    assert EnvConfig(map_name=definition).map_name == str(definition.resolve())
    spec = resolve_map(definition.name)
    assert (spec.name, spec.game_loops, spec.mini_game, spec.definition) == (
        "ThreeMarineBeacon",
        TIME_LIMIT,
        True,
        True,
    )
    assert spec.read_data() == definition.read_bytes()  # sent whole as map_data
    assert not any(shipped.definition for shipped in MINI_GAMES.values())


def test_files_that_are_no_definition_are_refused_when_the_env_is_made(tmp_path, make_env):
    cases = {
        "missing.json": (None, "Cannot read the mini-game definition"),
        "text.json": ("beacon, marines", "is not JSON in UTF-8"),
        "other.json": (
            json.dumps({"format": "something/2", "name": "X"}),
            '"format" must be "sc2env-minigame/1"',
        ),
        "list.json": ("[1, 2]", "not 'list'"),
        "noname.json": (json.dumps({"format": "sc2env-minigame/1", "time_limit": 100}), '"name" must be'),
        "nolimit.json": (
            json.dumps({"format": "sc2env-minigame/1", "name": "X", "time_limit": -1}),
            '"time_limit" must be a whole number of game loops from 1 to 2147483647, not -1',
        ),
        "fraction.json": (
            json.dumps({"format": "sc2env-minigame/1", "name": "X", "time_limit": 480.5}),
            '"time_limit" must be a whole number',
        ),
    }
    for name, (text, message) in cases.items():
        path = tmp_path / name
        if text is not None:
            path.write_text(text)
        with pytest.raises(errors.UnknownMapError, match=message):
            make_env("sc2env/SC2-v0", map_name=str(path))
        with pytest.raises(errors.UnknownMapError, match=message):
            definition_map(path)


def test_a_broken_definition_fails_create_game_naming_the_field_and_leaves_no_game(
    make_env, tmp_path, marked_games
):
    spec = three_marine_beacon()
    spec["camera_lockd"] = spec.pop("camera_locked")
    path = tmp_path / "Broken.json"
    path.write_text(json.dumps(spec))
    env = make_env("sc2env/SC2-v0", map_name=str(path), **SMALL)
    with pytest.raises(
        errors.RequestError,
        match=r"InvalidMapData.*unknown field 'camera_lockd'; did you mean 'camera_locked'",
    ):
        env.reset()
    spec["camera_locked"] = spec.pop("camera_lockd")  # mended, the same env plays it
    path.write_text(json.dumps(spec))
    _, info = env.reset(seed=0)
    assert info["game_loop"] == 0
    env.close()
    assert marked_games() == []


@pytest.mark.parametrize("how", ["engine=", "$SC2ENV_ENGINE"])
def test_the_real_game_is_not_asked_to_play_a_definition(definition, monkeypatch, how):
    if how == "engine=":
        env = SC2Env(str(definition), engine="sc2")
    else:
        monkeypatch.setenv("SC2ENV_ENGINE", "sc2")
        env = SC2Env(str(definition))
    with (
        env,
        pytest.raises(errors.LaunchError, match="only the built-in engine plays, but engine='sc2' was asked"),
    ):
        env.reset()
    assert env.match is None or env.match.process is None  # nothing was started


def test_a_replay_of_a_custom_mini_game_rewards_its_score(make_env, definition, tmp_path):
    replays = tmp_path / "replays"
    env = make_env(
        "sc2env/SC2-v0", map_name=str(definition), save_replay_episodes=1, replay_dir=str(replays), **SMALL
    )
    obs, _ = env.reset(seed=5)
    obs, *_ = env.step(FUNCTIONS.select_army("select"))
    score = 0
    for _ in range(40):
        ys, xs = np.nonzero(obs["feature_screen"][PLAYER_RELATIVE] == 3)
        obs, _, _, _, info = env.step(FUNCTIONS.Move_screen("now", (int(xs.mean()), int(ys.mean()))))
        score = info["score"]
    env.close()
    assert score >= 10
    (path,) = replays.glob("ThreeMarineBeacon_*.SC2Replay")
    with watch_replay(path, **SMALL) as replay:
        steps = list(replay)
    assert sum(step.reward for step in steps) == score  # the score's change, as the env rewarded it
    assert steps[-1].info["score"] == score


def test_a_relative_path_is_found_from_another_working_directory(definition, tmp_path, monkeypatch, make_env):
    monkeypatch.chdir(definition.parent)
    env = make_env("sc2env/SC2-v0", map_name=definition.name, **SMALL)
    monkeypatch.chdir(tmp_path.parent)  # a worker started somewhere else
    assert os.getcwd() != str(definition.parent)
    _, info = env.reset(seed=0)
    assert info["game_loop"] == 0


def test_odd_files_that_are_definitions_all_the_same(tmp_path, make_env):
    spec = three_marine_beacon()
    spec["time_limit"] = 480.0  # a whole number, as the engine reads it
    (tmp_path / "v3.json").write_bytes(
        codecs.BOM_UTF8 + json.dumps(spec).encode()
    )  # an editor's byte order mark
    (tmp_path / "Current.json").symlink_to(tmp_path / "v3.json")
    odd = tmp_path / os.fsdecode(b"caf\xe9.json")  # a file name that is no UTF-8
    odd.write_bytes((tmp_path / "v3.json").read_bytes())
    for path in (tmp_path / "Current.json", odd):
        env = make_env("sc2env/SC2-v0", map_name=str(path), **SMALL)
        assert env.unwrapped.config.map_name == str(path)  # absolute, and a link keeps its own name
        _, info = env.reset(seed=0)
        assert info["game_loop"] == 0 and env.unwrapped.match.map.game_loops == TIME_LIMIT
    (tmp_path / "utf16.json").write_text(json.dumps(spec), encoding="utf-16")
    with pytest.raises(errors.UnknownMapError, match="is no mini-game definition: it is not JSON in UTF-8"):
        definition_map(tmp_path / "utf16.json")


def test_the_file_is_read_again_when_a_game_is_created(definition, make_env):
    env = make_env("sc2env/SC2-v0", map_name=str(definition), **SMALL)
    env.reset(seed=0)
    spec = three_marine_beacon()
    spec["time_limit"] = 2400  # longer than the safety cap of the old limit (480 + 160 loops)
    definition.write_text(json.dumps(spec))
    env.reset(seed=1)  # a seeded reset creates the game anew
    truncated = terminated = False
    while not (terminated or truncated):
        _, _, terminated, truncated, info = env.step(FUNCTIONS.no_op())
    assert terminated and not truncated and info["game_loop"] == 2400  # the new timer, not the old cap
    definition.unlink()
    with pytest.raises(errors.UnknownMapError, match="Cannot read the mini-game definition"):
        env.reset(seed=2)


def test_a_replay_plays_with_the_config_after_its_definition_is_gone(make_env, definition, tmp_path):
    env = make_env("sc2env/SC2-v0", map_name=str(definition), **SMALL)
    env.reset(seed=0)
    for _ in range(3):
        env.step(FUNCTIONS.no_op())
    path = env.unwrapped.save_replay(tmp_path)
    config = env.unwrapped.config
    env.close()
    definition.unlink()
    with watch_replay(path, config) as replay:
        assert len(list(replay)) == 3 and replay.config.map_name == "ThreeMarineBeacon"
    assert len(list(watch_replay(path, {"map_name": str(definition), **SMALL}))) == 3
    with pytest.raises(TypeError, match="'scren_size' is not an sc2env env option: did you mean screen_size"):
        watch_replay(path, {"scren_size": 16})


def test_a_registered_definition_is_made_by_its_id(definition, tmp_path):
    env_id = register_minigame(definition)
    try:
        assert (
            env_id == "sc2env/ThreeMarineBeacon-v0" and register_minigame(definition) == env_id
        )  # again: a no-op
        env = gym.make(env_id, **SMALL)
        try:
            env.reset(seed=0)
            assert (
                env.unwrapped.config.map_name == str(definition) and env.unwrapped.match.map.game_loops == 480
            )
            with pytest.raises(
                ValueError,
                match=r"ThreeMarineBeacon-v0 plays .*ThreeMarineBeacon.json, but "
                r"map_name='DefeatRoaches' was given",
            ):
                gym.make(env_id, map_name="DefeatRoaches")
        finally:
            env.close()
        for mode in ("vector_entry_point", "async"):  # sc2env's own vector env, and subprocesses
            envs = gym.make_vec(env_id, num_envs=2, vectorization_mode=mode, **SMALL)
            try:
                envs.reset(seed=1)
                _, _, _, _, infos = envs.step(np.zeros((2, len(envs.single_action_space.nvec)), np.int64))
                assert list(infos["game_loop"]) == [8, 8], mode
            finally:
                envs.close()
        other = tmp_path / "Other.json"
        other.write_text(json.dumps(three_marine_beacon()))  # the same name in another file
        with pytest.raises(
            ValueError,
            match=r"ThreeMarineBeacon-v0 is registered already, for .*"
            "ThreeMarineBeacon.json: give register_minigame another env_id",
        ):
            register_minigame(other)
        with pytest.raises(
            ValueError, match="sc2env/MoveToBeacon-v0 is registered already, for MoveToBeacon"
        ):
            register_minigame(other, env_id="sc2env/MoveToBeacon-v0")
        assert register_minigame(other, env_id="mine/Other-v0") == "mine/Other-v0"
    finally:
        for registered in (env_id, "mine/Other-v0"):
            gym.registry.pop(registered, None)
