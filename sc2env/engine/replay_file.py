"""sc2env's replay format: one episode's inputs and header as JSON, inside a .SC2Replay archive."""

from __future__ import annotations

import base64
import binascii
import json
import os
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from google.protobuf.message import DecodeError
from s2clientprotocol import common_pb2
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env._version import __version__
from sc2env.engine import mpq, replay_archive
from sc2env.engine.game import Game
from sc2env.engine.limits import MAX_STEP_LOOPS
from sc2env.gamedata import BASE_BUILD, DATA_BUILD, DATA_VERSION, GAME_VERSION, LOOPS_PER_REAL_SECOND
from sc2env.gamedata.replay_format import MPQ_HEADERS
from sc2env.gamedata.replay_format import SC2ENV_MAGIC as MAGIC
from sc2env.safefile import MAX_REPLAY_BYTES, read_regular_file

FORMAT_VERSION = 2
"""Format 2: a .SC2Replay (MPQ) archive whose member replay_archive.MEMBER is the JSON, with "format": 2.
Format 1 (read, no longer written): MAGIC, b"1\\n", then the JSON compressed with zlib."""
MAX_INFLATED_BYTES = 256 << 20
"""The most a replay's JSON may inflate to: far beyond any episode, short of a decompression bomb's cost."""
_WRITE_HOW = "give the bytes that save_replay returned on sc2env's built-in engine"


class ReplayError(Exception):
    """A replay that can't be read; `kind` names the sc2api error (MissingReplay, InvalidReplayPath,
    InvalidReplayData, ParsingError) and `details` says what was wrong and what to do."""

    def __init__(self, kind: str, details: str) -> None:
        super().__init__(f"{kind}: {details}")
        self.kind = kind
        self.details = details


@dataclass(frozen=True)
class RecordedPlayer:
    """The recorded player as it joined: its id, races (requested, actual: sc2api Race values) and name."""

    player_id: int
    race_requested: int
    race_actual: int
    name: str


@dataclass(frozen=True)
class OtherPlayer:
    """Another player of a two-player game: as it joined, and its InterfaceOptions (its actions' pixels)."""

    player: RecordedPlayer
    interface_options: bytes


# An input log entry: a step's count, the recorded player's serialized Action, or (player id, Action) of another.
Input = bytes | int | tuple[int, bytes]


@dataclass(frozen=True)
class Replay:
    """One episode on the built-in engine: everything a fresh Game needs to play it again, and its header.

    `inputs` is the input log in order: an int is a `step(count)` as it was run, bytes a serialized `Action`
    as it was applied (b"" is the empty no-op action), (player id, bytes) another player's Action. A two-player
    game's replay holds the whole game: `player` is the map's first slot, `others` the rest.
    """

    sc2env_version: str
    game_version: str
    data_version: str
    base_build: int
    data_build: int
    map_name: str
    map_path: str
    map_definition: bytes  # the definition's JSON bytes as the game loaded them
    seed: int | None
    rng_state: Mapping[str, Any]  # numpy's bit_generator.state at the episode's start
    disable_fog: bool
    realtime: bool
    player: RecordedPlayer
    interface_options: bytes  # the serialized InterfaceOptions of join_game
    game_loop: int  # at save time: the replay's length
    result: int | None  # sc2api Result if the game had ended
    score: int  # the curriculum score (score.score) at save time
    inputs: tuple[Input, ...]
    started_at: float | None = None  # when the episode started (Unix time); None in format 1 replays
    others: tuple[OtherPlayer, ...] = ()

    @property
    def action_count(self) -> int:
        """Actions that did something (empty no-op actions, which PySC2 sends every step, don't count)."""
        return sum(1 for entry in self.inputs if entry.__class__ is bytes and entry)

    @property
    def player_ids(self) -> list[int]:
        return [self.player.player_id] + [other.player.player_id for other in self.others]

    @property
    def duration_seconds(self) -> float:
        """Real seconds at the "faster" speed, as the game counts them."""
        return self.game_loop / LOOPS_PER_REAL_SECOND

    @property
    def apm(self) -> int:
        """Actions per real minute at "faster" speed, as the game counts APM."""
        return round(self.action_count * 60 / self.duration_seconds) if self.game_loop else 0

    def apm_of(self, player_id: int) -> int:
        """`apm` of one player of the replay (the recorded first player's is `apm`)."""
        if player_id == self.player.player_id:
            return self.apm
        count = sum(
            1 for entry in self.inputs if isinstance(entry, tuple) and entry[0] == player_id and entry[1]
        )
        return round(count * 60 / self.duration_seconds) if self.game_loop else 0


def record(game: Game) -> Replay:
    """The replay of `game`'s current episode up to now (from join or the latest restart); a two-player game's
    whole, whichever player saves it."""
    first, *rest = game.seat_ids
    others = []
    for player_id in rest:
        with game.viewing(player_id):
            others.append(OtherPlayer(_recorded_player(game), game.interface.options.SerializeToString()))
    with game.viewing(first):
        return _record(game, tuple(others))


def _recorded_player(game: Game) -> RecordedPlayer:
    return RecordedPlayer(game.player.player_id, game.race_requested, game.race, game.player_name)


def _record(game: Game, others: tuple[OtherPlayer, ...]) -> Replay:
    return Replay(
        sc2env_version=__version__,
        game_version=GAME_VERSION,
        data_version=DATA_VERSION,
        base_build=BASE_BUILD,
        data_build=DATA_BUILD,
        map_name=game.definition.name,
        map_path=game.definition.path,
        map_definition=game.definition.source,
        seed=game.seed,
        rng_state=game.episode_rng_state,
        disable_fog=game.disable_fog,
        realtime=game.realtime,
        player=_recorded_player(game),
        interface_options=game.interface.options.SerializeToString(),
        game_loop=game.game_loop,
        result=game.result,
        score=int(game.player.score),
        inputs=tuple(game.inputs),
        started_at=game.episode_started_at,
        others=others,
    )


def encode(replay: Replay) -> bytes:
    """The replay as a .SC2Replay file: an MPQ archive with StarCraft II's header, details and game metadata,
    and the replay's UTF-8 JSON as the member replay_archive.MEMBER (see docs/engine.md)."""
    b64 = _b64encode
    header = {
        "format": FORMAT_VERSION,
        "sc2env_version": replay.sc2env_version,
        "game_version": replay.game_version,
        "data_version": replay.data_version,
        "base_build": replay.base_build,
        "data_build": replay.data_build,
        "map_name": replay.map_name,
        "map_path": replay.map_path,
        "map_definition": b64(replay.map_definition),
        "seed": replay.seed,
        "rng_state": replay.rng_state,
        "disable_fog": replay.disable_fog,
        "realtime": replay.realtime,
        "player": _player_json(replay.player),
        "interface_options": b64(replay.interface_options),
        "game_loop": replay.game_loop,
        "result": replay.result,
        "score": replay.score,
        "action_count": replay.action_count,
        "inputs": [_encode_input(entry) for entry in replay.inputs],
        "started_at": replay.started_at,
    }
    if replay.others:  # a two-player game's other player (absent from single-player replays)
        header["others"] = [
            {**_player_json(other.player), "interface_options": b64(other.interface_options)}
            for other in replay.others
        ]
    return replay_archive.pack(replay, json.dumps(header, separators=(",", ":")).encode())


def read(request: sc_pb.RequestReplayInfo | sc_pb.RequestStartReplay) -> Replay:
    """The replay a replay_info or start_replay request names (its `replay_path` or `replay_data`)."""
    which = request.WhichOneof("replay")
    if which is None:
        raise ReplayError(
            "MissingReplay",
            f"no replay given: set replay_path (a file the engine can read) or replay_data ({_WRITE_HOW})",
        )
    if which == "replay_data":
        return decode(request.replay_data)
    path = request.replay_path
    if not path:
        raise ReplayError(
            "InvalidReplayPath",
            "replay_path is empty: give the path of a replay file, or its bytes as replay_data",
        )
    try:
        # Regular files only, capped: a FIFO or /dev/stdin would block the engine for ever, and /dev/zero
        # would be read until memory runs out. An embedded NUL raises ValueError.
        data = read_regular_file(path, MAX_REPLAY_BYTES)
    except (OSError, ValueError) as e:
        raise ReplayError(
            "InvalidReplayPath",
            (
                f"cannot read replay_path {path!r} (on the engine's machine: {os.path.abspath(path)}): "
                f"{getattr(e, 'strerror', None) or e}; give a path the engine process can read (absolute paths are "
                "safest), or send the file's bytes as replay_data"
            ),
        ) from None
    return decode(data)


def decode(data: bytes) -> Replay:
    """Parse replay bytes (format 2, or format 1 of earlier sc2env); ReplayError says what is wrong with them."""
    if data[:4] in MPQ_HEADERS:
        header = _parse(_archive_member(data))
        _check_format(header)
    elif data.startswith(MAGIC):
        header = _parse(_format1_body(data))
    else:
        got = "empty data" if not data else f"it starts with {bytes(data[:16])!r}"
        raise ReplayError(
            "InvalidReplayData",
            f"not an sc2env replay ({got}, not an MPQ archive (.SC2Replay)): {_WRITE_HOW}",
        )
    try:
        recorded = _replay_from(header)
    except (KeyError, TypeError, ValueError, binascii.Error, DecodeError) as e:
        what = f"field {e.args[0]!r} is missing" if isinstance(e, KeyError) else str(e)
        raise ReplayError("ParsingError", f"the replay's header is malformed: {what}") from None
    problem = inconsistency(recorded)
    if problem:
        raise ReplayError("InvalidReplayData", f"{problem}: {_WRITE_HOW}, unchanged")
    return recorded


def _parse(body: bytes):
    try:
        return json.loads(body)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as e:
        raise ReplayError("ParsingError", f"the replay's contents are not valid JSON ({e})") from None


def _check_format(header) -> None:
    """A format 2 replay's JSON names its format: a later one is refused, saying to update."""
    version = header.get("format") if isinstance(header, dict) else FORMAT_VERSION
    if type(version) is int and version > FORMAT_VERSION:
        raise ReplayError(
            "InvalidReplayData",
            (
                f"this replay is in sc2env replay format {version}, written by a newer sc2env; sc2env "
                f"{__version__} reads formats 1 to {FORMAT_VERSION}: install a newer sc2env to watch it"
            ),
        )
    if version != FORMAT_VERSION:
        raise ReplayError("ParsingError", f"the replay's format is {version!r}, not {FORMAT_VERSION}")


def _archive_member(data: bytes) -> bytes:
    """The JSON of a format 2 replay: sc2env's member of the .SC2Replay archive."""
    try:
        archive = mpq.MpqArchive(data)
        block = archive.block(replay_archive.MEMBER)
        if block is None:
            raise ReplayError(
                "InvalidReplayData",
                (
                    f"this is a StarCraft II replay (an MPQ archive, .SC2Replay) without sc2env's member "
                    f"{replay_archive.MEMBER}, recorded by the real game; the built-in engine plays only replays "
                    "it recorded itself (save_replay on engine='builtin'). Watch real-game replays with the real "
                    "StarCraft II binary (engine='sc2')"
                ),
            )
        if block.size > MAX_INFLATED_BYTES:
            raise ReplayError("InvalidReplayData", _too_large(f"{block.size} bytes, more"))
        if archive.end != len(data):
            raise ReplayError(
                "ParsingError",
                f"{len(data) - archive.end} unexpected bytes after the replay's archive: {_WRITE_HOW}, unchanged",
            )
        return archive.read(replay_archive.MEMBER) or b""
    except mpq.MpqError as e:
        raise ReplayError(
            "ParsingError", f"the replay's archive is damaged ({e}): {_WRITE_HOW}, whole"
        ) from None


def _format1_body(data: bytes) -> bytes:
    """The JSON of a format 1 replay: after the line b"sc2env-replay/1\\n", compressed with zlib."""
    line_end = data.find(b"\n", len(MAGIC), len(MAGIC) + 12)
    if line_end < 0 or data[len(MAGIC) : line_end] != b"1":
        raise ReplayError(
            "ParsingError",
            f"an sc2env replay whose first line is damaged "
            f"({bytes(data[: len(MAGIC) + 12])!r}): {_WRITE_HOW}",
        )
    inflate = zlib.decompressobj()
    try:
        body = inflate.decompress(data[line_end + 1 :], MAX_INFLATED_BYTES)
    except zlib.error as e:
        raise ReplayError(
            "ParsingError", f"the replay's data is corrupted ({e}): {_WRITE_HOW}, unchanged"
        ) from None
    if inflate.unconsumed_tail:  # a few kB per minute of play: this much is no replay we wrote
        raise ReplayError("InvalidReplayData", _too_large("more"))
    if not inflate.eof:
        raise ReplayError(
            "ParsingError",
            f"the replay is truncated (its compressed data stops early, after "
            f"{len(data)} bytes): {_WRITE_HOW}, whole",
        )
    if inflate.unused_data:
        raise ReplayError(
            "ParsingError",
            f"{len(inflate.unused_data)} unexpected bytes after the replay's data: {_WRITE_HOW}, unchanged",
        )
    return body


def _too_large(how_much: str) -> str:
    return (
        f"the replay's data inflates to {how_much} than {MAX_INFLATED_BYTES >> 20} MiB, which no episode of the "
        f"built-in engine comes near: {_WRITE_HOW}"
    )


def inconsistency(replay: Replay) -> str:
    """How the replay's steps disagree with its header's length and result ("" when they agree).

    A step runs all its loops unless the game ends during it, and nothing is recorded after the end, so the
    steps of a recording add up to its length exactly, or, when it has a result, every step but the last
    falls short of it and the last reaches it. A step is at most what one request may ask for.
    """
    steps = [(n, entry) for n, entry in enumerate(replay.inputs) if entry.__class__ is int]
    for n, count in steps:
        if count > MAX_STEP_LOOPS:
            return (
                f"inputs[{n}] is a step of {count} game loops; the engine runs at most {MAX_STEP_LOOPS} in "
                "one request, so no recording holds one"
            )
    total = sum(count for _, count in steps)
    before_last = total - (steps[-1][1] if steps else 0)
    length = replay.game_loop
    if replay.result is None and total != length:
        return (
            f"the replay's steps add up to {total} game loops, but its header says it lasts {length} (an "
            "unfinished game runs every loop it steps)"
        )
    if replay.result is not None and not before_last < length <= total:
        return (
            f"the replay's steps add up to {total} game loops ({before_last} before the last), but its header "
            f"says the game ended at loop {length} (a game ends during its last step)"
        )
    return ""


def _replay_from(header) -> Replay:
    if not isinstance(header, dict):
        raise TypeError(f"expected a JSON object, got {type(header).__name__}")
    player = _get(header, "player", dict)
    options = _b64decode(_get(header, "interface_options", str), "interface_options")
    sc_pb.InterfaceOptions.FromString(options)  # DecodeError if damaged
    rng_state = _get(header, "rng_state", dict)
    try:
        np.random.PCG64().state = rng_state  # the generator Game uses (np.random.default_rng)
    except (TypeError, ValueError, KeyError, OverflowError) as e:
        raise ValueError(f"rng_state is not a PCG64 generator state ({e})") from None
    others = tuple(_other_from(other, f"others[{n}]") for n, other in enumerate(header.get("others", [])))
    known = {other.player.player_id for other in others}
    inputs: list[Input] = []
    for n, entry in enumerate(_get(header, "inputs", list)):
        if entry.__class__ is int and entry > 0:
            inputs.append(entry)
        elif isinstance(entry, str):
            inputs.append(_action(entry, f"inputs[{n}]"))
        elif isinstance(entry, dict) and _get(entry, "player", int) in known:
            inputs.append((entry["player"], _action(_get(entry, "action", str), f"inputs[{n}].action")))
        else:
            raise ValueError(
                f"inputs[{n}] must be a step count (> 0), a base64 action or another recorded player's "
                f'{{"player", "action"}}, got {entry!r}'
            )
    seed = None if header.get("seed") is None else _get(header, "seed", int, _UINT32)
    started_at = None if header.get("started_at") is None else _get(header, "started_at", float)
    if started_at is not None and not 0 <= started_at < _YEAR_10000:
        raise ValueError(f"started_at {started_at!r} is out of its range")
    result = None if header.get("result") is None else _get(header, "result", int, _RESULTS)
    return Replay(
        sc2env_version=_get(header, "sc2env_version", str),
        game_version=_get(header, "game_version", str),
        data_version=_get(header, "data_version", str),
        base_build=_get(header, "base_build", int, _UINT32),
        data_build=_get(header, "data_build", int, _UINT32),
        map_name=_get(header, "map_name", str),
        map_path=_get(header, "map_path", str),
        map_definition=_b64decode(_get(header, "map_definition", str), "map_definition"),
        seed=seed,
        rng_state=rng_state,
        disable_fog=_get(header, "disable_fog", bool),
        realtime=_get(header, "realtime", bool),
        player=_player_from(player),
        interface_options=options,
        game_loop=_get(header, "game_loop", int, _UINT32),
        result=result,
        score=_get(header, "score", int, _INT32),
        inputs=tuple(inputs),
        started_at=started_at,
        others=others,
    )


def _action(text: str, where: str) -> bytes:
    """A base64 serialized Action of the log, checked here, not when playback reaches it: a damaged action
    must not list as a good replay."""
    action = _b64decode(text, where)
    try:
        sc_pb.Action.FromString(action)
    except (DecodeError, RuntimeError) as e:
        raise ValueError(f"{where} is not a serialized sc2api Action ({e})") from None
    return action


def _encode_input(entry: Input) -> int | str | dict:
    if isinstance(entry, int):
        return entry
    if isinstance(entry, tuple):
        return {"player": entry[0], "action": _b64encode(entry[1])}
    return _b64encode(entry)


def _player_json(player: RecordedPlayer) -> dict:
    return {
        "player_id": player.player_id,
        "race_requested": player.race_requested,
        "race_actual": player.race_actual,
        "name": player.name,
    }


def _player_from(player: dict) -> RecordedPlayer:
    return RecordedPlayer(
        _get(player, "player_id", int, _UINT32),
        _get(player, "race_requested", int, _RACES),
        _get(player, "race_actual", int, _RACES),
        _get(player, "name", str),
    )


def _other_from(other, where: str) -> OtherPlayer:
    if not isinstance(other, dict):
        raise TypeError(f"{where}: expected a JSON object, got {type(other).__name__}")
    options = _b64decode(_get(other, "interface_options", str), f"{where}.interface_options")
    sc_pb.InterfaceOptions.FromString(options)  # DecodeError if damaged
    return OtherPlayer(_player_from(other), options)


# What the header's numbers travel as in sc2api messages: a value outside is an edited header.
_UINT32, _INT32 = range(2**32), range(-(2**31), 2**31)
_RESULTS, _RACES = frozenset(sc_pb.Result.values()), frozenset(common_pb2.Race.values())
_YEAR_10000 = 253402300800  # in Unix time: a start time must be a date replay.details can hold (not NaN)


def _get(obj: dict, key: str, kind: type, allowed=None):
    value = obj[key]
    # bool is an int in Python: a JSON true must not pass for a number, nor 1 for a flag.
    if value.__class__ is not kind:
        raise TypeError(f"{key} must be {kind.__name__}, got {value!r}"[:200])
    if allowed is not None and value not in allowed:
        raise ValueError(f"{key} {value!r} is out of its range"[:200])
    return value


def _b64encode(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _b64decode(text: str, where: str) -> bytes:
    try:
        return base64.b64decode(text, validate=True)
    except binascii.Error as e:
        raise ValueError(f"{where} is not valid base64 ({e})") from None
