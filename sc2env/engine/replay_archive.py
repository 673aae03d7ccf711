"""An engine replay as a .SC2Replay: the MPQ members StarCraft II's replay readers look for, and sc2env's own."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeAlias

from s2clientprotocol import common_pb2
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env.engine import mpq

if TYPE_CHECKING:
    from sc2env.engine.replay_file import Replay

MEMBER = "sc2env.replay.json"
"""sc2env's own member: the episode's header and input log (the JSON described in docs/engine.md)."""
DETAILS = "replay.details"
METADATA = "replay.gamemetadata.json"
SIGNATURE = b"StarCraft II replay\x1b11"
"""How the replay header (the user data) starts, in every StarCraft II replay."""
_REPLAY_TYPE = 2  # the header's m_type in StarCraft II's replays
_FASTER = 4  # details' m_gameSpeed: the speed ladder games and the API's loop-per-second figures assume
_HUMAN = 2  # details' m_control of a player the game took commands from (the API's Participant)
_PLAYER_ONE_RED = {"m_a": 255, "m_r": 180, "m_g": 20, "m_b": 30}  # player 1's colour in StarCraft II
_FILETIME_1970 = 116444736000000000  # m_timeUTC counts 100 ns since 1601 (Windows FILETIME)
# sc2api's Result as the game metadata names it, and as replay.details numbers it (0: not known).
_RESULTS: dict[int, tuple[str, int]] = {
    sc_pb.Victory: ("Win", 1),
    sc_pb.Defeat: ("Loss", 2),
    sc_pb.Tie: ("Tie", 3),
    sc_pb.Undecided: ("Undecided", 0),
}
_RACE_NAMES: dict[int, str] = {number: name for name, number in common_pb2.Race.items()}

# Field tags of the structures written, as StarCraft II's protocol (s2protocol, build 75689) numbers them.
_TAGS: dict[str, dict[str, int]] = {
    "header": {
        "m_signature": 0,
        "m_version": 1,
        "m_type": 2,
        "m_elapsedGameLoops": 3,
        "m_useScaledTime": 4,
        "m_ngdpRootKey": 5,
        "m_dataBuildNum": 6,
        "m_replayCompatibilityHash": 7,
        "m_ngdpRootKeyIsDevData": 8,
    },
    "version": {"m_flags": 0, "m_major": 1, "m_minor": 2, "m_revision": 3, "m_build": 4, "m_baseBuild": 5},
    "key": {"m_dataDeprecated": 0, "m_data": 1},
    "details": {
        "m_playerList": 0,
        "m_title": 1,
        "m_difficulty": 2,
        "m_thumbnail": 3,
        "m_isBlizzardMap": 4,
        "m_timeUTC": 5,
        "m_timeLocalOffset": 6,
        "m_description": 7,
        "m_imageFilePath": 8,
        "m_mapFileName": 9,
        "m_cacheHandles": 10,
        "m_miniSave": 11,
        "m_gameSpeed": 12,
        "m_defaultDifficulty": 13,
        "m_modPaths": 14,
        "m_campaignIndex": 15,
        "m_restartAsTransitionMap": 16,
        "m_disableRecoverGame": 17,
    },
    "player": {
        "m_name": 0,
        "m_toon": 1,
        "m_race": 2,
        "m_color": 3,
        "m_control": 4,
        "m_teamId": 5,
        "m_handicap": 6,
        "m_observe": 7,
        "m_result": 8,
        "m_workingSetSlotId": 9,
        "m_hero": 10,
    },
    "toon": {"m_region": 0, "m_programId": 1, "m_realm": 2, "m_name": 3, "m_id": 4},
    "color": {"m_a": 0, "m_r": 1, "m_g": 2, "m_b": 3},
    "thumbnail": {"m_file": 0},
}


@dataclass(frozen=True)
class Present:
    """An optional value that is there (None is one that is not)."""

    value: Value


@dataclass(frozen=True)
class FourCC:
    """Four bytes written as they are (a program id: b"S2\\0\\0")."""

    code: bytes


Value: TypeAlias = bool | int | bytes | list["Value"] | dict[int, "Value"] | Present | FourCC | None
"""A value in Blizzard's versioned encoding; a dict is a structure by field tag."""


def pack(replay: Replay, body: bytes) -> bytes:
    """The .SC2Replay file of `replay`: its header as the user data, replay.details, replay.gamemetadata.json
    (what PySC2 reads the game version from), and `body` (sc2env's JSON of it) as the member MEMBER."""
    files = {DETAILS: versioned(details(replay)), METADATA: game_metadata(replay), MEMBER: body}
    return mpq.write_archive(files, user_data=versioned(header(replay)))


def header(replay: Replay) -> dict[int, Value]:
    """The replay header (s2protocol's decode_replay_header): the game version and the replay's length."""
    major, minor, revision = (int(part) for part in replay.game_version.split("."))
    version = _struct(
        "version",
        m_flags=1,
        m_major=major,
        m_minor=minor,
        m_revision=revision,
        m_build=replay.data_build,
        m_baseBuild=replay.base_build,
    )
    no_key = _struct("key", m_data=b"")  # the engine is no Battle.net build: no content key, no hash
    return _struct(
        "header",
        m_signature=SIGNATURE,
        m_version=version,
        m_type=_REPLAY_TYPE,
        m_elapsedGameLoops=replay.game_loop,
        m_useScaledTime=True,
        m_ngdpRootKey=no_key,
        m_dataBuildNum=replay.data_build,
        m_replayCompatibilityHash=no_key,
        m_ngdpRootKeyIsDevData=False,
    )


def details(replay: Replay) -> dict[int, Value]:
    """replay.details (s2protocol's decode_replay_details): the map, the date, and the player."""
    player = replay.player
    toon = _struct("toon", m_region=0, m_programId=FourCC(b"S2\0\0"), m_realm=0, m_name=b"", m_id=0)
    entry = _struct(
        "player",
        m_name=player.name.encode(),
        m_toon=toon,
        m_race=_RACE_NAMES.get(player.race_actual, "").encode(),
        m_color=_struct("color", **_PLAYER_ONE_RED),
        m_control=_HUMAN,
        m_teamId=0,
        m_handicap=100,
        m_observe=0,
        m_result=_RESULTS.get(replay.result or sc_pb.Undecided, ("", 0))[1],
        m_workingSetSlotId=Present(0),
        m_hero=b"",
    )
    return _struct(
        "details",
        m_playerList=Present([entry]),
        m_title=replay.map_name.encode(),
        m_difficulty=b"",
        m_thumbnail=_struct("thumbnail", m_file=b"Minimap.tga"),
        m_isBlizzardMap=False,
        m_timeUTC=_FILETIME_1970 + round((replay.started_at or 0) * 10_000_000),
        m_timeLocalOffset=0,  # the time is UTC
        m_restartAsTransitionMap=Present(False),
        m_disableRecoverGame=False,
        m_description=b"",
        m_imageFilePath=b"",
        m_campaignIndex=0,
        m_mapFileName=replay.map_path.encode(),
        m_cacheHandles=Present([]),
        m_miniSave=False,
        m_gameSpeed=_FASTER,
        m_defaultDifficulty=0,
        m_modPaths=None,
    )


def game_metadata(replay: Replay) -> bytes:
    """replay.gamemetadata.json: the versions PySC2's get_replay_version reads, the length and the player."""
    player = replay.player
    metadata = {
        "Title": replay.map_name,
        "GameVersion": f"{replay.game_version}.{replay.data_build}",
        "DataBuild": str(replay.data_build),
        "DataVersion": replay.data_version,
        "BaseBuild": f"Base{replay.base_build}",
        "Duration": round(replay.duration_seconds),
        "IsNotAvailable": False,
        "Players": [
            {
                "PlayerID": player.player_id,
                "APM": replay.apm,
                "Result": _RESULTS.get(replay.result or sc_pb.Undecided, ("Undecided", 0))[0],
                "SelectedRace": _RACE_NAMES.get(player.race_requested, "")[:4],
                "AssignedRace": _RACE_NAMES.get(player.race_actual, "")[:4],
            }
        ],
    }
    return json.dumps(metadata, separators=(",", ":")).encode()


def _struct(kind: str, **fields: Value) -> dict[int, Value]:
    tags = _TAGS[kind]
    return {tags[name]: value for name, value in fields.items()}


# ---- Blizzard's versioned encoding (what s2protocol's VersionedDecoder reads) --------------------------------
# Each value is a type byte and its contents; structures carry field tags, so readers skip fields they don't know.
_ARRAY, _BLOB, _OPTIONAL, _STRUCT, _U8, _FOURCC, _VINT = 0x00, 0x02, 0x04, 0x05, 0x06, 0x07, 0x09


def versioned(value: Value) -> bytes:
    """`value` in Blizzard's versioned encoding (replay headers and details)."""
    out = bytearray()
    _write(value, out)
    return bytes(out)


def _write(value: Value, out: bytearray) -> None:
    if isinstance(value, bool):  # before int: a bool is an int in Python
        out += bytes([_U8, value])
    elif isinstance(value, int):
        out.append(_VINT)
        out += _vint(value)
    elif isinstance(value, bytes):
        out.append(_BLOB)
        out += _vint(len(value)) + value
    elif isinstance(value, list):
        out.append(_ARRAY)
        out += _vint(len(value))
        for item in value:
            _write(item, out)
    elif isinstance(value, Mapping):
        out.append(_STRUCT)
        out += _vint(len(value))
        for tag in sorted(value):
            out += _vint(tag)
            _write(value[tag], out)
    elif isinstance(value, Present):
        out += bytes([_OPTIONAL, 1])
        _write(value.value, out)
    elif value is None:
        out += bytes([_OPTIONAL, 0])
    elif isinstance(value, FourCC):
        out.append(_FOURCC)
        out += value.code
    else:
        raise TypeError(f"no versioned encoding for {type(value).__name__}")


def _vint(number: int) -> bytes:
    """A variable-length integer: the sign in the first byte's lowest bit, then 6 bits, then 7 a byte."""
    magnitude = abs(number)
    byte = (magnitude & 0x3F) << 1 | (number < 0)
    magnitude >>= 6
    out = bytearray()
    while magnitude:
        out.append(byte | 0x80)
        byte, magnitude = magnitude & 0x7F, magnitude >> 7
    out.append(byte)
    return bytes(out)
