"""Replays end to end on the built-in engine: an env saves them, watch_replay plays them back as the env saw
the episode (observation for observation, with the actions taken), and the command line watches them."""

from __future__ import annotations

import dataclasses
import json

import gymnasium as gym
import numpy as np
import pytest

import sc2env  # registers the ids
from sc2env.agents import make_agent, run_agent
from sc2env.cli import main
from sc2env.engine import mpq  # to write an archive as the real game's replays are
from sc2env.env.dataset import export_replay, load_episode
from sc2env.env.replay_watcher import watch_replay
from sc2env.game import ReplayError, replay_info, write_replay
from sc2env.interface import FUNCTIONS
from sc2env.launch import LaunchConfig

BUILTIN = LaunchConfig(engine="builtin")


def _masked_random_episode(env, rng, seed):
    """Play one episode with random actions drawn from the action mask; the observations, the function calls
    the game received (none for a no_op or an action played as no_op), the rewards and the last info."""
    obs, info = env.reset(seed=seed)
    spec = env.unwrapped.action_spec
    observations, sent, rewards = [obs], [], []
    while True:
        action = np.array([rng.choice(np.flatnonzero(part)) for part in spec.split(obs["action_mask"])])
        call = env.unwrapped.action_to_function_call(action)
        obs, reward, terminated, truncated, info = env.step(action)
        sent.append([] if call.function == FUNCTIONS.no_op.id or info["invalid_action"] else [call])
        observations.append(obs)
        rewards.append(reward)
        if terminated or truncated:
            return observations, sent, rewards, info


def _recorded_episode(tmp_path, name, rng_seed, seed, prefix=None, **kwargs):
    """A masked-random episode of mini-game `name` saved as a replay in `tmp_path`: (its path, what
    _masked_random_episode returned, the closed env, whose config and transforms stay readable)."""
    env = gym.make(f"sc2env/{name}-v0", engine="builtin", **kwargs)
    try:
        played = _masked_random_episode(env, np.random.default_rng(rng_seed), seed=seed)
        path = env.unwrapped.save_replay(tmp_path, prefix=prefix)
    finally:
        env.close()
    return path, played, env.unwrapped


def _same_call(call):
    """A call as the game echoes it: a selection rectangle by its low and high corners, whichever were given."""
    if call.function != FUNCTIONS.select_rect.id:
        return call
    add, a, b = call.arguments
    low, high = tuple(map(min, zip(a, b))), tuple(map(max, zip(a, b)))
    return FUNCTIONS.select_rect(add, low, high)


@pytest.mark.parametrize("name", ["CollectMineralShards", "DefeatRoaches", "BuildMarines"])
def test_a_saved_replay_plays_back_the_episode_observation_for_observation(tmp_path, name):
    path, (observations, sent, rewards, _), env = _recorded_episode(
        tmp_path, name, 3, 11, prefix="test", max_episode_steps=30, use_feature_units=True
    )
    config = env.config
    assert path.parent == tmp_path and path.name.startswith("test_")
    with watch_replay(path, config) as replay:
        steps = list(replay)
        final = replay.last_observation
    assert len(steps) == len(sent) == 30
    assert sum(len(calls) for calls in sent) > 5  # the episode did something worth replaying
    for t, step in enumerate(steps):
        assert step.observation.keys() == observations[t].keys()
        for key, value in observations[t].items():
            np.testing.assert_array_equal(step.observation[key], value, err_msg=f"step {t}: {key}")
        assert [(c.function, c.arguments) for c in step.calls] == [
            (c.function, c.arguments) for c in map(_same_call, sent[t])
        ], t
        expected = _same_call(sent[t][0]) if sent[t] else FUNCTIONS.no_op()
        assert step.action.tolist() == config.action_spec().to_vector(expected).tolist()
        assert step.reward == rewards[t]
        assert (step.terminated, step.truncated) == (False, t == len(sent) - 1)
    assert int(final.game_loop[0]) == int(observations[-1]["game_loop"][0]) == 30 * 8
    assert replay.info.map_name == name and replay.info.game_loops == 240


def test_a_replay_of_a_finished_episode_ends_with_the_games_result(tmp_path):
    path, (_, _, rewards, info), _ = _recorded_episode(tmp_path, "MoveToBeacon", 0, 5, step_mul=64)
    steps = list(watch_replay(path, step_mul=64))
    assert len(steps) == len(rewards) == 1920 // 64
    assert steps[-1].terminated and not steps[-1].truncated
    assert [s.reward for s in steps] == rewards and steps[-1].info["score"] == info["score"]
    assert path.name.startswith("MoveToBeacon_")
    facts = replay_info(path, BUILTIN)
    assert (facts.map_name, facts.game_loops, facts.seconds) == ("MoveToBeacon", 1920, round(1920 / 22.4, 3))
    # MoveToBeacon's timer ends it in a tie (outcome 0), as the env reported
    assert info["outcome"] == 0 and [(p.player_id, p.race, p.result) for p in facts.players] == [
        (1, "terran", "tie")
    ]


def test_save_replay_episodes_saves_every_second_episode(tmp_path):
    # max_episode_steps through SC2Env itself: the env sees the end and names the replay in that step's info
    env = sc2env.env.SC2Env(
        "MoveToBeacon",
        engine="builtin",
        max_episode_steps=3,
        save_replay_episodes=2,
        replay_dir=str(tmp_path / "replays"),
    )
    saved = []
    try:
        for episode in range(4):
            env.reset(seed=episode if episode == 0 else None)
            for step in range(3):
                *_, info = env.step(FUNCTIONS.no_op())
                assert ("replay_path" in info) == (step == 2 and episode % 2 == 1)
            saved.append(info.get("replay_path"))
    finally:
        env.close()
    assert saved[0] is None and saved[2] is None
    assert saved[1] != saved[3] and sorted(p.name for p in (tmp_path / "replays").iterdir()) == sorted(
        p.rsplit("/", 1)[-1] for p in (saved[1], saved[3])
    )
    # each covers its own episode, from its restart on: 3 steps of 8 loops
    assert [len(list(watch_replay(p))) for p in (saved[1], saved[3])] == [3, 3]


@pytest.mark.parametrize("wrapped", ["TimeLimit", "own"])
def test_episodes_a_wrapper_cuts_are_saved_at_the_next_reset_and_at_close(tmp_path, wrapped):
    class CutAtTwo(gym.Wrapper):  # a time limit the env knows nothing of
        def reset(self, **kwargs):
            self.steps = 0
            return self.env.reset(**kwargs)

        def step(self, action):
            obs, reward, terminated, truncated, info = self.env.step(action)
            self.steps += 1
            return obs, reward, terminated, truncated or self.steps == 2, info

    if wrapped == "own":
        env = CutAtTwo(
            sc2env.env.SC2Env(
                "MoveToBeacon", engine="builtin", save_replay_episodes=1, replay_dir=str(tmp_path)
            )
        )
    else:  # gym.make's max_episode_steps
        env = gym.make(
            "sc2env/MoveToBeacon-v0",
            engine="builtin",
            max_episode_steps=2,
            save_replay_episodes=1,
            replay_dir=str(tmp_path),
        )
    resets = []
    try:
        for episode in range(3):
            resets.append(env.reset(seed=0 if episode == 0 else None)[1].get("replay_path"))
            for _ in range(2):
                *_, info = env.step(FUNCTIONS.no_op())
                assert "replay_path" not in info
    finally:
        env.close()  # the third episode, played but never ended, is saved here
    assert resets[0] is None and resets[1] is not None and resets[2] is not None
    files = sorted(tmp_path.iterdir())
    assert len(files) == 3 and {str(p) for p in files} > {resets[1], resets[2]}
    assert sorted(len(list(watch_replay(p))) for p in files) == [2, 2, 2]


def test_a_replay_watched_at_another_resolution_gives_that_resolution(tmp_path):
    path, (_, sent, _, _), _ = _recorded_episode(tmp_path, "CollectMineralShards", 1, 2, max_episode_steps=20)
    steps = list(watch_replay(path, screen_size=32, minimap_size=16))
    assert steps[0].observation["feature_screen"].shape[1:] == (32, 32)
    assert steps[0].observation["feature_minimap"].shape[1:] == (16, 16)
    compared = 0
    for step, calls in zip(steps, sent):
        assert [c.function for c in step.calls] == [c.function for c in calls]
        for ours, theirs in zip(step.calls, map(_same_call, calls)):
            for arg_type, mine, original in zip(
                FUNCTIONS[ours.function].args, ours.arguments, theirs.arguments
            ):
                if (
                    arg_type.kind == "point"
                ):  # the same point in the coarser grid: 1/2 (screen), 1/4 (minimap)
                    scale = 2 if arg_type.name.startswith("screen") else 4
                    assert all(
                        abs(m - o / scale) <= 1 and 0 <= m < 64 / scale for m, o in zip(mine, original)
                    )
                    compared += 1
    assert compared > 0


def test_the_config_may_be_a_dict_of_env_keyword_arguments(tmp_path):
    path, _, _ = _recorded_episode(tmp_path, "MoveToBeacon", 1, 2, max_episode_steps=3)
    kwargs = {"screen_size": 32, "minimap_size": 16}  # a training script's env_kwargs, as gym.make took them
    with watch_replay(path, kwargs, minimap_size=8) as replay:  # keyword arguments over the dict
        assert (replay.config.screen_size, replay.config.minimap_size) == ((32, 32), (8, 8))
        steps = list(replay)
    assert steps[0].observation["feature_minimap"].shape[1:] == (8, 8)
    with pytest.raises(
        TypeError,
        match=r"config must be an EnvConfig .*, a dict of SC2Env keyword arguments, or None, not list",
    ):
        watch_replay(path, [("screen_size", 32)])


def test_watching_renders_frames(tmp_path):
    env = gym.make("sc2env/MoveToBeacon-v0", engine="builtin", max_episode_steps=2)
    try:
        env.reset(seed=0)
        env.step(FUNCTIONS.no_op())
        env.step(FUNCTIONS.no_op())
        path = env.unwrapped.save_replay(tmp_path)
    finally:
        env.close()
    with watch_replay(path, render_mode="rgb_array") as replay:
        frames = [replay.render() for _ in replay]
    assert len(frames) == 2 and all(f.ndim == 3 and f.shape[2] == 3 and f.std() > 0 for f in frames)


def test_save_replay_before_a_game_says_to_reset(tmp_path):
    env = gym.make("sc2env/MoveToBeacon-v0", engine="builtin")
    with pytest.raises(sc2env.errors.ProtocolError, match="save_replay\\(\\) needs a game: call reset\\(\\)"):
        env.unwrapped.save_replay(tmp_path)
    env.close()


@pytest.mark.parametrize(
    "data, message",
    [
        (b"not a replay at all", "the game cannot read this replay"),
        (
            mpq.write_archive({"replay.details": b"", "replay.game.events": b""}, b"header"),
            "real StarCraft II",
        ),
        (b"MPQ\x1b" + bytes(100), "the replay's archive is damaged"),
    ],
    ids=["garbage", "real-game", "damaged"],
)
def test_a_replay_the_engine_cannot_play_is_a_clear_error(data, message):
    with pytest.raises(ReplayError, match=message):
        replay_info(data, BUILTIN)
    with pytest.raises(ReplayError, match=message):
        list(watch_replay(data, engine="builtin"))


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"save_replay_episodes": -1}, "save_replay_episodes must be a whole number of at least 1"),
        ({"save_replay_episodes": True}, "save_replay_episodes must be a whole number of at least 1"),
        ({"replay_dir": ""}, "replay_dir must name a folder"),
    ],
)
def test_replay_options_are_checked(kwargs, message):
    with pytest.raises((ValueError, TypeError), match=message):
        gym.make("sc2env/MoveToBeacon-v0", **kwargs)


def test_the_command_line_saves_and_watches_replays(tmp_path, capsys):
    folder = tmp_path / "replays"
    code = main(
        [
            "sc2env",
            "run",
            "--map",
            "MoveToBeacon",
            "--episodes",
            "2",
            "--max-steps",
            "10",
            "--engine",
            "builtin",
            "--save-replay",
            str(folder),
        ]
    )
    out, err = capsys.readouterr()
    assert code == 0, err
    files = sorted(folder.iterdir())
    assert len(files) == 2 and f"replays: 2 saved in {folder}" in err
    code = main(["sc2env", "replay", str(files[0]), "--engine", "builtin"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "map MoveToBeacon, 80 game loops" in out and "player 1" in out
    assert "10 steps, final score" in out and "actions: " in out
    # the scripted agent moves to the beacon: its moves are counted by name
    assert "Move_screen" in out


@pytest.mark.parametrize(
    "args, message, code",
    [
        (["replay"], "no replay given: sc2env replay FILE", 2),
        (["replay", "/nonexistent/x.SC2Replay"], "no replay at /nonexistent/x.SC2Replay", 2),
        (["replay", "a", "b"], "unexpected argument(s) a b", 2),
    ],
)
def test_replay_command_usage_errors(capsys, args, message, code):
    assert main(["sc2env", *args]) == code
    assert message in capsys.readouterr().err


def test_replay_command_help_names_the_file_argument(capsys):
    assert main(["sc2env", "replay", "--help"]) == 0
    assert "usage: sc2env replay FILE [--flags]" in capsys.readouterr().out


# ---- watching with other settings than the recording's, and the watcher's contract -------------------------
@pytest.fixture(scope="module")
def beacon_replay(tmp_path_factory):
    """A scripted MoveToBeacon episode (Move_screen on the beacon's centre, every step) at 64x64."""
    folder = tmp_path_factory.mktemp("beacon")
    env = gym.make(
        "sc2env/MoveToBeacon-v0",
        engine="builtin",
        max_episode_steps=60,
        save_replay_episodes=1,
        replay_dir=str(folder),
    )
    run_agent(env, make_agent("scripted", "MoveToBeacon"), 1, seed=4)
    env.close()
    (path,) = folder.iterdir()
    return path


@pytest.mark.parametrize(
    "settings",
    [{}, {"screen_size": (84, 48)}, {"screen_size": (48, 84)}, {"camera_width": 30.0}],
    ids=["same", "wide", "tall", "camera-width"],
)
def test_the_players_clicks_land_where_they_did_in_the_watchers_pixels(beacon_replay, settings):
    hits = moves = 0
    for step in watch_replay(beacon_replay, **settings):
        for call in step.calls:
            if call.function == FUNCTIONS.Move_screen.id:
                x, y = call.arguments[1]
                moves += 1
                hits += step.decoded.feature_screen.player_relative[y, x] == 3  # the beacon (neutral)
    assert moves > 50
    # A click beyond the watcher's narrower screen (84x48: 48 rows cover 13.7 of the 24 world units the
    # recording's rows did) lands on its edge: a few. Every other click hits the beacon.
    assert hits == moves if settings.get("screen_size") != (84, 48) else hits >= moves - 8, (hits, moves)


def test_a_watcher_with_rgb_only_gets_the_feature_layer_players_actions(beacon_replay):
    features = [[(c.function, c.arguments) for c in step.calls] for step in watch_replay(beacon_replay)]
    rgb = [
        [(c.function, c.arguments) for c in step.calls]
        for step in watch_replay(
            beacon_replay, screen_size=None, minimap_size=None, rgb_screen_size=64, rgb_minimap_size=64
        )
    ]
    # 64 RGB pixels over the same 24 world units as the 64 feature pixels: the very same points
    assert rgb == features and sum(len(calls) for calls in rgb) > 50


def test_minimap_targets_keep_their_world_place_on_a_cropped_minimap(tmp_path):
    compared = 0
    for rng_seed in (2, 3, 4):  # a random episode may end early: several give enough minimap clicks
        path, (_, sent, _, _), env = _recorded_episode(
            tmp_path, "FindAndDefeatZerglings", rng_seed, 1, prefix=f"r{rng_seed}", max_episode_steps=80
        )
        recorded = env.transforms
        with watch_replay(path, crop_to_playable_area=True, minimap_size=48) as replay:
            steps = list(replay)
            watched = replay.transforms
        for step, calls in zip(steps, sent):
            for ours, theirs in zip(step.calls, map(_same_call, calls)):
                for arg_type, mine, original in zip(
                    FUNCTIONS[ours.function].args, ours.arguments, theirs.arguments
                ):
                    if arg_type.name == "minimap":
                        there = recorded.world_to_minimap.back_pixel(original)
                        here = watched.world_to_minimap.back_pixel(mine)
                        pixel = watched.world_to_minimap.fwd(there)
                        if not ((pixel >= 0) & (pixel < 48)).all():
                            assert (
                                min(mine) == 0 or max(mine) == 47
                            )  # beyond the cropped minimap: on its edge
                            continue
                        # the watcher's pixel holding the recorded pixel's centre: at most half its width away
                        half = 0.5 / np.abs(watched.world_to_minimap.scale).min()
                        assert np.abs(there - here).max() <= half + 1e-9, (there, here)
                        compared += 1
    assert compared > 10, compared


def test_actions_beyond_the_watchers_ranges_are_left_out(tmp_path):
    env = gym.make("sc2env/CollectMineralShards-v0", engine="builtin")
    try:
        env.reset(seed=0)
        for call in (FUNCTIONS.select_army("select"), FUNCTIONS.select_unit("select", 1), FUNCTIONS.no_op()):
            env.step(call)
        path = env.unwrapped.save_replay(tmp_path)
    finally:
        env.close()
    with watch_replay(path, max_selected_units=1) as replay:  # select_unit's id has one value: 0
        steps = list(replay)
        assert all(replay.action_space.contains(step.action) for step in steps)
    assert [[c.function for c in step.calls] for step in steps] == [[FUNCTIONS.select_army.id], [], []]


def test_a_replay_saved_at_the_reset_has_no_step(tmp_path):
    env = gym.make("sc2env/MoveToBeacon-v0", engine="builtin")
    try:
        env.reset(seed=0)
        path = env.unwrapped.save_replay(tmp_path)
    finally:
        env.close()
    with watch_replay(path) as replay:
        assert list(replay) == [] and int(replay.last_observation.game_loop[0]) == 0


def test_the_watcher_follows_the_step_being_handled_and_refuses_misuse(beacon_replay):
    replay = watch_replay(beacon_replay, step_mul=16)  # keyword arguments over the config (here: the default)
    steps = iter(replay)
    first = next(steps)
    with pytest.raises(RuntimeError, match="already being iterated"):
        iter(replay)
    second = next(steps)
    assert int(replay.last_observation.game_loop[0]) == int(second.observation["game_loop"][0]) == 16
    assert int(first.observation["game_loop"][0]) == 0 and second.info["game_loop"] == 32
    assert first.info["score_details"]["score"] == first.info["score"]
    replay.close()
    with pytest.raises(sc2env.errors.ProtocolError, match="closed while its replay was being iterated"):
        next(steps)
    other = watch_replay(beacon_replay)
    twins = iter(other), iter(other)  # both made before either starts, as zip(other, other) makes them
    next(twins[0])
    with pytest.raises(RuntimeError, match="already being iterated"):
        next(twins[1])
    other.close()
    config = sc2env.env.EnvConfig(screen_size=32)
    assert watch_replay(beacon_replay, config, step_mul=16).config == dataclasses.replace(config, step_mul=16)


def test_a_replay_that_diverges_is_a_replay_error(beacon_replay, tmp_path):
    from sc2env.engine import replay_file as engine_replay  # to edit a replay as a damaged file has it

    recorded = engine_replay.decode(beacon_replay.read_bytes())
    edited = tmp_path / "edited.SC2Replay"
    edited.write_bytes(engine_replay.encode(dataclasses.replace(recorded, score=recorded.score + 5)))
    with pytest.raises(ReplayError, match=r"could not be played to its end: .*diverged from its recording"):
        list(watch_replay(edited))


def test_a_replay_dir_that_is_a_file_is_named_as_such(tmp_path, capsys):
    (tmp_path / "afile").write_text("")
    env = gym.make("sc2env/MoveToBeacon-v0", engine="builtin", replay_dir=str(tmp_path / "afile"))
    try:
        env.reset(seed=0)
        with pytest.raises(ReplayError, match="afile is a file, not a folder"):
            env.unwrapped.save_replay()
    finally:
        env.close()
    assert main(["sc2env", "run", "--save-replay", str(tmp_path / "afile"), "--engine", "builtin"]) == 2
    assert "is a file, not a folder" in capsys.readouterr().err
    # A folder that can't be made is refused as well, before any game (it played the whole run, then saved none).
    assert main(["sc2env", "run", "--save-replay", "/proc/sc2env-replays", "--engine", "builtin"]) == 2
    err = capsys.readouterr().err
    assert "--save-replay /proc/sc2env-replays: cannot make the folder" in err and "episode" not in err


def test_a_watcher_with_feature_layers_and_rgb_gets_the_actions_of_an_rgb_recording(tmp_path):
    rgb_only = {"screen_size": None, "minimap_size": None, "rgb_screen_size": 64, "rgb_minimap_size": 64}
    env = gym.make("sc2env/MoveToBeacon-v0", engine="builtin", **rgb_only)
    try:
        env.reset(seed=0)
        sent = [
            FUNCTIONS.select_army("select"),
            FUNCTIONS.Move_screen("now", (10, 20)),
            FUNCTIONS.Move_screen("now", (40, 30)),
        ]
        for call in sent:
            env.step(call)
        path = env.unwrapped.save_replay(tmp_path)
    finally:
        env.close()
    for watcher in ({**rgb_only}, {"rgb_screen_size": 64, "rgb_minimap_size": 64}, {}):
        calls = [(c.function, c.arguments) for step in watch_replay(path, **watcher) for c in step.calls]
        assert calls == [(c.function, c.arguments) for c in sent], watcher


def test_a_step_cut_off_before_close_still_leaves_its_replay(tmp_path):
    env = sc2env.env.SC2Env(
        "MoveToBeacon", engine="builtin", save_replay_episodes=1, replay_dir=str(tmp_path)
    )
    env.reset(seed=0)
    env.step(FUNCTIONS.no_op())
    env.begin_step(FUNCTIONS.no_op())  # sent, never finished: as a Ctrl-C between the halves leaves it
    env.close()
    (path,) = tmp_path.iterdir()
    assert len(list(watch_replay(path))) == 2


def test_a_replay_that_could_not_be_written_leaves_no_partial_file(tmp_path, monkeypatch):
    import builtins

    real_open = builtins.open

    class Full:
        def __init__(self, file):
            self.file = file

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.file.close()

        def write(self, data):
            self.file.write(data[:2])
            raise OSError(28, "No space left on device")

    monkeypatch.setattr(
        builtins,
        "open",
        lambda path, mode="r", *a, **k: (
            Full(real_open(path, mode, *a, **k)) if mode == "xb" else real_open(path, mode, *a, **k)
        ),
    )
    with pytest.raises(ReplayError, match=r"cannot write the replay .*No space left on device"):
        write_replay(b"0123456789", tmp_path, "X")
    assert list(tmp_path.iterdir()) == []


def test_the_command_line_lists_a_folder_of_replays_and_prints_one_without_playing_it(tmp_path, capsys):
    folder = tmp_path / "replays"
    assert (
        main(
            [
                "sc2env",
                "run",
                "--map",
                "MoveToBeacon,DefeatRoaches",
                "--max-steps",
                "5",
                "--engine",
                "builtin",
                "--save-replay",
                str(folder),
            ]
        )
        == 0
    )
    (folder / "broken.SC2Replay").write_bytes(b"not a replay")
    capsys.readouterr()
    assert main(["sc2env", "replay", str(folder), "--engine", "builtin"]) == 0
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert lines[0].split() == ["replay", "map", "loops", "time", "result", "APM"]
    rows = {line.split()[0]: line.split()[1:] for line in lines[1:]}
    assert rows["broken.SC2Replay"][:3] == ["cannot", "be", "read:"]
    assert sorted(row[0] for name, row in rows.items() if name != "broken.SC2Replay") == [
        "DefeatRoaches",
        "MoveToBeacon",
    ]
    # 5 steps of 8 loops: 40 loops, 2.5 game seconds, shown as the viewer's clock shows them
    assert all(row[1:3] == ["40", "0:02"] for name, row in rows.items() if name != "broken.SC2Replay")
    assert f"3 replays in {folder}, 1 unreadable" in err
    moves = next(folder.glob("MoveToBeacon_*"))
    assert main(["sc2env", "replay", "--info", str(moves), "--engine", "builtin"]) == 0
    out, _ = capsys.readouterr()
    assert "map MoveToBeacon, 40 game loops (0:02 of game time" in out and "steps, final score" not in out
    assert "1.8 s at Faster speed" in out  # 40 / 22.4


def test_a_replay_reader_reads_many_replays_with_one_game(beacon_replay):
    from sc2env.game import ReplayReader

    with ReplayReader(BUILTIN) as reader:
        first = reader.info(beacon_replay)
        process = reader.process
        with pytest.raises(ReplayError, match="cannot read this replay"):
            reader.info(b"garbage")
        assert reader.info(beacon_replay) == first and reader.process is process
    assert reader.process is None and not process.running


def test_an_exported_episode_holds_what_the_env_gave(tmp_path):
    path, (observations, sent, rewards, info), env = _recorded_episode(
        tmp_path,
        "CollectMineralShards",
        4,
        12,
        max_episode_steps=30,
        use_feature_units=True,
        screen_size=32,
        minimap_size=16,
    )
    episode = export_replay(path, tmp_path / "episode.npz", env.config)
    assert len(episode) == 30 and list(episode.calls) == [len(calls) for calls in sent]
    for name, stacked in episode.observations.items():  # step i starts from the env's observation i
        assert np.array_equal(stacked, np.stack([obs[name] for obs in observations[:30]])), name
        assert stacked.dtype == env.observation_space[name].dtype
    assert np.isclose(episode.rewards.sum(), sum(rewards)) and episode.scores[-1] == info["score"]
    assert episode.truncated[-1] and not episode.terminated.any()  # cut at 30 steps, saved mid-game
    assert list(episode.game_loops) == [8 * (i + 1) for i in range(30)]
    with watch_replay(path, env.config) as replay:
        assert np.array_equal(episode.actions, np.stack([step.action for step in replay]))

    with np.load(tmp_path / "episode.npz", allow_pickle=False) as data:  # numpy alone reads it
        assert {"actions", "rewards", "meta", "observation.feature_screen", "observation.action_mask"} <= set(
            data.files
        )
        meta = json.loads(str(data["meta"]))
    assert meta["format"] == "sc2env-episode/1" and meta["sc2env_version"] == sc2env.__version__
    assert meta["map_name"] == "CollectMineralShards" and meta["replay"] == path.name
    loaded = load_episode(tmp_path / "episode.npz")
    assert loaded.config == dataclasses.replace(env.config, map_name="CollectMineralShards")
    assert np.array_equal(loaded.observations["feature_units"], episode.observations["feature_units"])
    assert loaded.meta == episode.meta and np.array_equal(loaded.actions, episode.actions)


def test_an_export_is_written_whole_or_not_at_all(tmp_path, monkeypatch):
    path, _, _ = _recorded_episode(tmp_path, "MoveToBeacon", 1, 2, max_episode_steps=5)
    out = tmp_path / "out"
    out.mkdir()
    real = np.savez_compressed

    def interrupted(file, **arrays):
        real(file, **arrays)  # every byte written, then a Ctrl-C before the rename
        raise KeyboardInterrupt

    monkeypatch.setattr("sc2env.env.dataset.np.savez_compressed", interrupted)
    with pytest.raises(KeyboardInterrupt):
        export_replay(path, out / "episode.npz")
    assert list(out.iterdir()) == []
    monkeypatch.undo()
    with pytest.raises(ValueError, match=r"give a path ending in .npz, not"):
        export_replay(path, out / "episode.h5")
    with pytest.raises(
        FileNotFoundError, match=r"cannot write .*missing/episode.npz: No such file or directory"
    ):
        export_replay(path, tmp_path / "missing" / "episode.npz")
    (tmp_path / "taken.npz").mkdir()  # not written to: found before the replay is played, and nothing left
    with pytest.raises(IsADirectoryError):
        export_replay(path, tmp_path / "taken.npz")
    assert not list(tmp_path.glob(".*.part"))
    np.savez(tmp_path / "other.npz", x=np.zeros(3))
    with pytest.raises(ValueError, match="is not an episode sc2env exported"):
        load_episode(tmp_path / "other.npz")


def test_the_command_line_exports_a_folder_of_replays(tmp_path, capsys):
    replays = tmp_path / "replays"
    replays.mkdir()
    for seed in (1, 2):
        _recorded_episode(replays, "MoveToBeacon", seed, seed, max_episode_steps=4)
    (replays / "broken.SC2Replay").write_bytes(b"not a replay")
    code = main(
        [
            "sc2env",
            "replay",
            str(replays),
            "--export",
            str(tmp_path / "npz"),
            "--screen-size",
            "16",
            "--engine",
            "builtin",
        ]
    )
    out, err = capsys.readouterr()
    assert code == 1  # one replay could not be exported
    assert sorted(p.name for p in (tmp_path / "npz").iterdir()) == sorted(
        p.name.removesuffix(".SC2Replay") + ".npz" for p in replays.iterdir() if p.name != "broken.SC2Replay"
    )
    assert out.count(": 4 steps, final score") == 2
    assert "broken.SC2Replay: not exported:" in err and "exported 2 of 3 replay(s), 8 steps in all" in err
    episode = load_episode(next((tmp_path / "npz").iterdir()))
    assert episode.observations["feature_screen"].shape[2:] == (16, 16) and episode.config.screen_size == (
        16,
        16,
    )
