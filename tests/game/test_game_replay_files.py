"""Replay files on the client side: writing them without overwriting, reading them with clear errors, and
ReplayInfo from the game's answer (no game process: the game's part is in tests/env/test_env_replay.py)."""

from __future__ import annotations

import pytest
from s2clientprotocol import common_pb2
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env.game import ReplayConfig, ReplayError, ReplayInfo, read_replay, write_replay


def test_write_replay_makes_the_folder_and_never_replaces_a_file(tmp_path):
    folder = tmp_path / "deep" / "replays"
    paths = [write_replay(b"replay %d" % i, folder, "MoveToBeacon") for i in range(3)]
    assert len(set(paths)) == 3
    for i, path in enumerate(paths):
        assert path.parent == folder and path.name.startswith("MoveToBeacon_") and path.suffix == ".SC2Replay"
        assert path.read_bytes() == b"replay %d" % i


def test_write_replay_adds_a_number_when_the_name_is_taken(tmp_path, monkeypatch):
    import datetime

    class Frozen(datetime.datetime):
        @classmethod
        def now(cls, tz=None):
            return datetime.datetime(2026, 1, 2, 3, 4, 5, 6, tzinfo=tz)

    monkeypatch.setattr(datetime, "datetime", Frozen)
    first, second = write_replay(b"a", tmp_path, "X"), write_replay(b"b", tmp_path, "X")
    assert first.name == "X_2026-01-02T03-04-05.000006.SC2Replay"
    assert second.name == "X_2026-01-02T03-04-05.000006-1.SC2Replay"
    assert (first.read_bytes(), second.read_bytes()) == (b"a", b"b")


def test_an_empty_replay_is_not_written(tmp_path):
    with pytest.raises(ReplayError, match=r"empty replay: this game .* does not record replays"):
        write_replay(b"", tmp_path, "X")
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize(
    "make, message",
    [
        (
            lambda tmp: tmp / "missing.SC2Replay",
            "no replay at .*missing.SC2Replay: give the path of a .SC2Replay",
        ),
        (lambda tmp: tmp, "is a folder: give the path of a .SC2Replay file in it"),
        (
            lambda tmp: (tmp / "empty.SC2Replay", (tmp / "empty.SC2Replay").write_bytes(b""))[0],
            "empty: it is no replay",
        ),
    ],
)
def test_read_replay_says_what_is_wrong(tmp_path, make, message):
    with pytest.raises(ReplayError, match=message):
        read_replay(make(tmp_path))


def test_read_replay_takes_a_path_or_bytes(tmp_path):
    path = tmp_path / "r.SC2Replay"
    path.write_bytes(b"data")
    assert read_replay(path) == read_replay(str(path)) == read_replay(b"data") == b"data"


def test_replay_info_from_the_games_answer():
    response = sc_pb.ResponseReplayInfo(
        map_name="MoveToBeacon",
        local_map_path="mini_games/MoveToBeacon.SC2Map",
        game_duration_loops=1920,
        game_duration_seconds=85.7,
        game_version="4.10.0",
        base_build=75689,
        data_version="B89B",
    )
    player = response.player_info.add(player_apm=42)
    player.player_info.player_id = 1
    player.player_info.race_requested = common_pb2.Random
    player.player_info.race_actual = common_pb2.Terran
    player.player_info.player_name = "me"
    player.player_result.player_id = 1
    player.player_result.result = sc_pb.Victory
    unfinished = response.player_info.add()
    unfinished.player_info.player_id = 2
    unfinished.player_info.race_requested = common_pb2.Zerg
    info = ReplayInfo.from_response(response)
    assert (info.map_name, info.game_loops, info.seconds, info.base_build) == (
        "MoveToBeacon",
        1920,
        85.7,
        75689,
    )
    assert [(p.player_id, p.race, p.result, p.name, p.apm) for p in info.players] == [
        (1, "terran", "victory", "me", 42),
        (2, "zerg", None, "", 0),
    ]


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"step_mul": 0}, "step_mul must be a whole number of at least 1"),
        ({"observed_player_id": -1}, "observed_player_id must be a player's id"),
        ({"observed_player_id": True}, "observed_player_id must be a player's id"),
        ({"request_timeout_s": 0}, "request_timeout_s must be a finite number of seconds"),
    ],
)
def test_replay_config_refuses_bad_values(kwargs, message):
    with pytest.raises(ValueError, match=message):
        ReplayConfig(replay=b"x", **kwargs)


def test_a_prefix_with_a_path_in_it_is_refused(tmp_path):
    for prefix in ("Melee/Simple64", "../escape"):
        with pytest.raises(ReplayError, match="has a path separator: give the folder as replay_dir"):
            write_replay(b"x", tmp_path / "replays", prefix)
    assert not (tmp_path / "replays").exists() or not list((tmp_path / "replays").iterdir())
    assert not (tmp_path / "escape").exists()
