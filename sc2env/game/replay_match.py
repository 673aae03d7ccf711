"""Replays in a game process: read a replay's facts (ReplayReader) and watch one (ReplayMatch)."""

from __future__ import annotations

import dataclasses
import logging
import os
import pathlib

from s2clientprotocol import common_pb2, query_pb2
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env import errors
from sc2env.client import Controller
from sc2env.client.connection import DEFAULT_SPIN_WAIT_S
from sc2env.game.match import stop_game
from sc2env.game.match_config import require_count, require_seconds
from sc2env.game.replay_files import ReplayError, read_replay
from sc2env.gamedata.clock import LOOPS_PER_REAL_SECOND
from sc2env.launch import GameProcess, LaunchConfig, launch_plan, plan_launch
from sc2env.safefile import MAX_MAP_BYTES, read_regular_file

log = logging.getLogger(__name__)

_RACE_NAMES = {
    common_pb2.Terran: "terran",
    common_pb2.Zerg: "zerg",
    common_pb2.Protoss: "protoss",
    common_pb2.Random: "random",
}
_RESULT_NAMES = {
    sc_pb.Victory: "victory",
    sc_pb.Defeat: "defeat",
    sc_pb.Tie: "tie",
    sc_pb.Undecided: "undecided",
}


@dataclasses.dataclass(frozen=True)
class ReplayPlayer:
    """One player of a replay. result: "victory", "defeat", "tie", "undecided", or None (not finished)."""

    player_id: int
    race: str
    result: str | None
    name: str
    apm: int


@dataclasses.dataclass(frozen=True)
class ReplayInfo:
    """What a replay holds, as the game reports it (`replay_info`).

    `seconds` is the game's `game_duration_seconds`: real seconds at the Faster speed (22.4 loops each), not
    the game clock's seconds (16 loops each), which `sc2env.game.maps.game_time(game_loops)` shows.
    """

    map_name: str
    map_path: str
    game_loops: int
    seconds: float
    players: tuple[ReplayPlayer, ...]
    game_version: str
    base_build: int
    data_version: str

    @classmethod
    def from_response(cls, response: sc_pb.ResponseReplayInfo) -> ReplayInfo:
        players = tuple(
            ReplayPlayer(
                player_id=extra.player_info.player_id,
                race=_RACE_NAMES.get(
                    extra.player_info.race_actual or extra.player_info.race_requested, "unknown"
                ),
                result=_RESULT_NAMES.get(extra.player_result.result)
                if extra.HasField("player_result")
                else None,
                name=extra.player_info.player_name,
                apm=extra.player_apm,
            )
            for extra in response.player_info
        )
        return cls(
            map_name=response.map_name,
            map_path=response.local_map_path,
            game_loops=response.game_duration_loops,
            # a float32 on the wire: 85.7 arrives as 85.69999694824219
            seconds=round(
                response.game_duration_seconds or response.game_duration_loops / LOOPS_PER_REAL_SECOND, 3
            ),
            players=players,
            game_version=response.game_version,
            base_build=response.base_build,
            data_version=response.data_version,
        )


@dataclasses.dataclass(frozen=True)
class ReplayConfig:
    """What replay to watch and how.

    replay:             its path, or its bytes.
    interface_options:  the InterfaceOptions to observe it with (any resolution: the game renders for them).
    step_mul:           game loops per step. The built-in engine never splits a step the game was played with,
                        so a step may go a little further (the observation's game_loop says where it is).
    observed_player_id: whose view to watch; 0: the game's choice (the first player).
    """

    replay: str | os.PathLike[str] | bytes
    interface_options: sc_pb.InterfaceOptions = dataclasses.field(default_factory=sc_pb.InterfaceOptions)
    launch: LaunchConfig = dataclasses.field(default_factory=LaunchConfig)
    step_mul: int = 8
    observed_player_id: int = 0
    disable_fog: bool = False
    request_timeout_s: float = 120.0

    def __post_init__(self) -> None:
        require_count("step_mul", self.step_mul, "game loop")
        require_seconds("request_timeout_s", self.request_timeout_s)
        if (
            isinstance(self.observed_player_id, bool)
            or not isinstance(self.observed_player_id, int)
            or self.observed_player_id < 0
        ):
            raise ValueError(
                f"observed_player_id must be a player's id (1, 2, ...) or 0, not {self.observed_player_id!r}"
            )


class ReplayMatch:
    """One game process watching one replay; not thread-safe.

    start() launches the game, starts the replay and returns the first observation; each step() advances
    `step_mul` game loops and returns the next one, until `ended`. close() stops the game.
    """

    def __init__(self, config: ReplayConfig):
        self.config = config
        self.data = read_replay(config.replay)
        self.process: GameProcess | None = None
        self.controller: Controller | None = None
        self.info: ReplayInfo | None = None
        self.game_info: sc_pb.ResponseGameInfo | None = None
        self.player_id = config.observed_player_id

    @property
    def ended(self) -> bool:
        """The replay has been watched to its end (or not started)."""
        return self.controller is None or self.controller.status != sc_pb.in_replay

    def start(self) -> sc_pb.ResponseObservation:
        cfg = self.config
        self.close()
        self.process = launch_plan(plan_launch(cfg.launch))
        try:
            self.controller = Controller(
                self.process,
                timeout_s=cfg.request_timeout_s,
                spin_wait_s=DEFAULT_SPIN_WAIT_S if cfg.launch.spin_wait else 0,
            )
            self.info = _ask_info(self.controller, self.data)
            request = sc_pb.RequestStartReplay(
                replay_data=self.data,
                options=cfg.interface_options,
                observed_player_id=cfg.observed_player_id,
                disable_fog=cfg.disable_fog,
            )
            map_data = _map_data(self.process, self.info)
            if map_data is not None:
                request.map_data = map_data
            try:
                self.controller.start_replay(request)
            except errors.RequestError as error:
                raise ReplayError(f"the game cannot play this replay: {error.details or error}") from error
            self.game_info = self.controller.game_info()
            if not self.player_id:
                self.player_id = next((p.player_id for p in self.game_info.player_info), 1)
            return self.controller.observation()
        except BaseException:
            self.close()
            raise

    def step(self) -> sc_pb.ResponseObservation:
        """Advance `step_mul` game loops and observe (one round trip)."""
        controller = self.controller
        if controller is None or self.ended:
            raise errors.ProtocolError(
                "step() needs a replay being watched: call start() first (the replay "
                "has ended or was never started)"
            )
        try:
            return controller.pipeline(
                [
                    ("step", sc_pb.RequestStep(count=self.config.step_mul)),
                    ("observation", sc_pb.RequestObservation()),
                ]
            )[-1]
        except (
            errors.ProtocolError
        ) as error:  # the game refused to go on: it diverged, or the replay is damaged
            self.close()
            raise ReplayError(f"the replay could not be played to its end: {error}") from error

    def query(self, request: query_pb2.RequestQuery) -> query_pb2.ResponseQuery:
        """Ask the game a query about the replay's current moment (what the player's units can do)."""
        if self.controller is None:
            raise errors.ProtocolError("query() needs a replay being watched: call start() first")
        return self.controller.query(request)

    def close(self) -> None:
        """Quit the game and stop its process. Idempotent."""
        controller, process = self.controller, self.process
        self.controller = self.process = None
        stop_game(controller, process)

    def __enter__(self) -> ReplayMatch:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()


class ReplayReader:
    """Reads the facts of many replays with one game process (started at the first, stopped at close())."""

    def __init__(self, launch: LaunchConfig | None = None):
        self.launch = launch or LaunchConfig()
        self.process: GameProcess | None = None
        self.controller: Controller | None = None

    def info(self, replay: str | os.PathLike[str] | bytes) -> ReplayInfo:
        """A replay's map, length, players and game version; ReplayError if it can't be read."""
        data = read_replay(replay)
        if self.controller is None or self.controller.closed:
            self.close()
            self.process = launch_plan(plan_launch(self.launch))
            try:
                self.controller = Controller(self.process, timeout_s=120.0)
            except BaseException:
                self.close()
                raise
        return _ask_info(self.controller, data)

    def close(self) -> None:
        """Stop the game process. Idempotent."""
        controller, process = self.controller, self.process
        self.controller = self.process = None
        stop_game(controller, process)

    def __enter__(self) -> ReplayReader:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()


def replay_info(replay: str | os.PathLike[str] | bytes, launch: LaunchConfig | None = None) -> ReplayInfo:
    """A replay's map, length, players and game version, as a game process reads it (started and stopped;
    for many replays, a ReplayReader keeps one process)."""
    with ReplayReader(launch) as reader:
        return reader.info(replay)


def _ask_info(controller: Controller, data: bytes) -> ReplayInfo:
    try:
        info = ReplayInfo.from_response(controller.replay_info(replay_data=data))
    except errors.RequestError as error:
        raise ReplayError(f"the game cannot read this replay: {error.details or error}") from error
    build = controller.ping().base_build
    if info.base_build and build and info.base_build != build:
        raise ReplayError(
            f"the replay was recorded with game build {info.base_build} ({info.game_version}), but "
            f"the game started is build {build}: start that build (LaunchConfig(version="
            f"{info.base_build}), or --version) to watch it"
        )
    return info


def _map_data(process: GameProcess, info: ReplayInfo) -> bytes | None:
    """The map file a real-game replay refers to, from the install's Maps folder (the built-in engine keeps
    its map inside the replay, and the real game finds Battle.net maps itself)."""
    install = process.plan.install
    if process.plan.engine != "sc2" or install is None or not info.map_path:
        return None
    path = pathlib.Path(install.maps_dir) / info.map_path
    try:
        return read_regular_file(path, MAX_MAP_BYTES)
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):  # none there: the game finds its own
        return None
    except OSError as error:
        raise ReplayError(f"cannot read the replay's map {path}: {error.strerror or error}") from None
