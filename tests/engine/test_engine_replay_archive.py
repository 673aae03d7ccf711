"""An engine replay is a .SC2Replay: what StarCraft II's replay readers (mpyq, s2protocol) find inside it."""

from __future__ import annotations

import datetime
import io
import json
import time

import numpy as np
import pytest
from engine_helpers import create_request, join_request, random_action
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env.engine import mpq, replay_archive, replay_file
from sc2env.engine.session import Session
from sc2env.gamedata import BASE_BUILD, DATA_BUILD, DATA_VERSION, GAME_VERSION


def ask(session: Session, **request) -> sc_pb.Response:
    return sc_pb.Response.FromString(session.handle(sc_pb.Request(**request).SerializeToString()))


def played(map_name: str, steps: int, seed: int = 1) -> tuple[bytes, sc_pb.ResponseReplayInfo, float]:
    """A game of random actions (to its end if `steps` reach it): its replay, replay_info and start time."""
    session = Session()
    before = time.time()
    ask(session, create_game=create_request(map_name, seed))
    ask(session, join_game=join_request())
    rng = np.random.default_rng(seed)
    for n in range(steps):
        if session.status == sc_pb.ended:
            break
        tags = session.game.world.tag.tolist()
        ask(session, action=sc_pb.RequestAction(actions=[random_action(rng, n, tags)]))
        ask(session, step=sc_pb.RequestStep(count=16))
    data = ask(session, save_replay=sc_pb.RequestSaveReplay()).save_replay.data
    info = ask(session, replay_info=sc_pb.RequestReplayInfo(replay_data=data)).replay_info
    return data, info, before


@pytest.fixture(scope="module")
def finished():
    data, info, before = played("MoveToBeacon", 200)
    assert info.player_info[0].player_result.result == sc_pb.Tie, "played to the map's time limit"
    return data, info, before


def test_the_archive_holds_what_replay_readers_look_for(finished):
    data, _, _ = finished
    archive = pytest.importorskip("mpyq").MPQArchive(io.BytesIO(data))
    assert archive.files == [b"replay.details", b"replay.gamemetadata.json", b"sc2env.replay.json"]
    assert archive.header["user_data_header"]["content"].startswith(b"\x05"), "a versioned structure"
    assert json.loads(archive.read_file("sc2env.replay.json"))["format"] == replay_file.FORMAT_VERSION


def test_the_game_metadata_names_the_engine_s_build_as_pysc2_reads_it(finished):
    data, info, _ = finished
    metadata = json.loads(mpq.MpqArchive(data).read("replay.gamemetadata.json"))
    assert metadata["GameVersion"] == f"{GAME_VERSION}.{DATA_BUILD}"  # PySC2 drops the last part
    assert metadata["BaseBuild"] == f"Base{BASE_BUILD}"  # PySC2 reads the number after "Base"
    assert (metadata["DataBuild"], metadata["DataVersion"]) == (str(DATA_BUILD), DATA_VERSION)
    assert metadata["Title"] == info.map_name == "MoveToBeacon"
    assert metadata["Duration"] == round(info.game_duration_seconds) == round(1920 / 22.4)
    assert metadata["Players"] == [
        {
            "PlayerID": 1,
            "APM": info.player_info[0].player_apm,
            "Result": "Tie",
            "SelectedRace": "Terr",
            "AssignedRace": "Terr",
        }
    ]


def test_s2protocol_reads_the_header_and_details(finished):
    versions = pytest.importorskip("s2protocol.versions", reason="s2protocol reads replay headers")
    data, info, before = finished
    archive = mpq.MpqArchive(data)
    header = versions.latest().decode_replay_header(archive.user_data)
    assert header["m_signature"] == b"StarCraft II replay\x1b11"
    major, minor, revision = (int(part) for part in GAME_VERSION.split("."))
    assert header["m_version"] == {
        "m_flags": 1,
        "m_major": major,
        "m_minor": minor,
        "m_revision": revision,
        "m_build": DATA_BUILD,
        "m_baseBuild": BASE_BUILD,
    }
    assert header["m_elapsedGameLoops"] == info.game_duration_loops == 1920
    assert header["m_dataBuildNum"] == DATA_BUILD and header["m_type"] == 2 and header["m_useScaledTime"]
    protocol = versions.build(header["m_version"]["m_baseBuild"])  # the protocol of the replay's own build
    details = protocol.decode_replay_details(archive.read("replay.details"))
    assert details["m_title"] == b"MoveToBeacon"
    assert details["m_mapFileName"] == info.local_map_path.encode()
    assert details["m_gameSpeed"] == 4, "faster, the speed of the API's loops per second"
    (player,) = details["m_playerList"]
    name = info.player_info[0].player_info.player_name.encode()
    assert (player["m_name"], player["m_race"], player["m_result"]) == (name, b"Terran", 3)
    started = datetime.datetime(1601, 1, 1) + datetime.timedelta(microseconds=details["m_timeUTC"] // 10)
    unix = (started - datetime.datetime(1970, 1, 1)).total_seconds()
    assert before <= unix <= time.time(), "the date is when the episode started"


def test_a_game_left_mid_way_says_so_to_readers():
    data, info, _ = played("CollectMineralShards", 5)
    assert not info.player_info[0].HasField("player_result")
    archive = mpq.MpqArchive(data)
    assert json.loads(archive.read("replay.gamemetadata.json"))["Players"][0]["Result"] == "Undecided"
    versions = pytest.importorskip("s2protocol.versions", reason="s2protocol reads replay headers")
    details = versions.build(BASE_BUILD).decode_replay_details(archive.read("replay.details"))
    assert details["m_playerList"][0]["m_result"] == 0, "not known"
    assert versions.latest().decode_replay_header(archive.user_data)["m_elapsedGameLoops"] == 80


def test_a_replay_reads_back_and_writes_again_to_the_same_bytes(finished):
    data, _, _ = finished
    again = replay_file.decode(data)
    assert again.game_loop == 1920 and again.started_at is not None
    assert replay_file.encode(again) == data


@pytest.mark.parametrize("number", [0, 1, 63, 64, -1, -64, 8191, 2**31, 2**63 - 1, -(2**63)])
def test_the_versioned_encoding_of_numbers_reads_back_in_s2protocol(number):
    decoders = pytest.importorskip("s2protocol.decoders", reason="s2protocol reads the versioned encoding")
    typeinfos = [
        ("_int", [(-(2**63), 64)]),
        ("_optional", [0]),
        ("_struct", [[("m_n", 0, 3), ("m_o", 1, 9)]]),
    ]
    encoded = replay_archive.versioned({3: number, 9: replay_archive.Present(number)})
    assert decoders.VersionedDecoder(encoded, typeinfos).instance(2) == {"m_n": number, "m_o": number}


def test_pysc2s_replay_reader_reads_the_details_and_metadata(finished):
    sc2_replay = pytest.importorskip(
        "pysc2_evolved.lib.replay.sc2_replay", reason="pysc2-evolved (test extra, Python >= 3.11)"
    )
    data, info, _ = finished
    read = sc2_replay.SC2Replay(data)  # s2protocol's protocol for the header's base build
    assert read.details()["m_title"] == "MoveToBeacon"
    assert read.details()["m_playerList"][0]["m_name"] == info.player_info[0].player_info.player_name
    assert read.metadata["BaseBuild"] == f"Base{BASE_BUILD}"
    with pytest.raises(KeyError, match=r"replay\.initData"):  # not written: the lobby data of a real game
        read.init_data()
