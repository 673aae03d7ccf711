"""The SC2 API's requests as typed methods, shared by every controller (a game over a socket, or in-process)."""

from __future__ import annotations

import abc
from collections.abc import Iterable, Sequence
from typing import Protocol

from google.protobuf.message import Message
from s2clientprotocol import debug_pb2, query_pb2
from s2clientprotocol import sc2api_pb2 as sc_pb


class Answers(Protocol):
    """The answers to requests sent together by `begin()`: `finish()` reads them (once; again: the same)."""

    def finish(self) -> list: ...

    def abandon(self) -> None: ...

    def fileno(self) -> int: ...


class GameRequests(abc.ABC):
    """A method per SC2 API request, each returning the typed sub-response, on top of `begin()`.

    A controller implements `begin()` (send requests, checked against `status`, and hand back their Answers),
    the status, and its lifecycle; every request then works, and fails, the same way on each.
    """

    @property
    @abc.abstractmethod
    def status(self) -> int:
        """The game's last reported sc2api_pb2.Status (launched, init_game, in_game, ended, ...)."""

    @property
    @abc.abstractmethod
    def closed(self) -> bool:
        """Whether this controller can no longer talk to its game (closed, quit or lost)."""

    @abc.abstractmethod
    def begin(self, requests: Sequence[tuple[str, Message]], *, optional: int = 0) -> Answers:
        """The sending half of pipeline(): send the requests now, read the answers with `.finish()`.

        The last `optional` requests may be refused (a query the game no longer takes once the step ended the
        game): their answer is then None, and nothing is raised for them.
        """

    @abc.abstractmethod
    def quit(self) -> None:
        """Ask the game to exit and close the controller."""

    @abc.abstractmethod
    def close(self) -> None:
        """Let go of the game (idempotent)."""

    @abc.abstractmethod
    def abandon_pending(self) -> None:
        """Give up the answers of a begin() never finished (its caller was interrupted in between)."""

    @abc.abstractmethod
    def read_unread(self) -> None:
        """Settle what an interrupted request left (its answers, the status) before the next one."""

    def ping(self) -> sc_pb.ResponsePing:
        return self.request("ping", sc_pb.RequestPing())

    def available_maps(self) -> sc_pb.ResponseAvailableMaps:
        return self.request("available_maps", sc_pb.RequestAvailableMaps())

    def create_game(self, request: sc_pb.RequestCreateGame) -> sc_pb.ResponseCreateGame:
        return self.request("create_game", request)

    def join_game(self, request: sc_pb.RequestJoinGame) -> sc_pb.ResponseJoinGame:
        return self.request("join_game", request)

    def restart_game(self) -> sc_pb.ResponseRestartGame:
        return self.request("restart_game", sc_pb.RequestRestartGame())

    def leave_game(self) -> sc_pb.ResponseLeaveGame:
        return self.request("leave_game", sc_pb.RequestLeaveGame())

    def start_replay(self, request: sc_pb.RequestStartReplay) -> sc_pb.ResponseStartReplay:
        return self.request("start_replay", request)

    def game_info(self) -> sc_pb.ResponseGameInfo:
        return self.request("game_info", sc_pb.RequestGameInfo())

    def data(
        self,
        ability_id: bool = True,
        unit_type_id: bool = True,
        upgrade_id: bool = True,
        buff_id: bool = True,
        effect_id: bool = True,
    ) -> sc_pb.ResponseData:
        return self.request(
            "data",
            sc_pb.RequestData(
                ability_id=ability_id,
                unit_type_id=unit_type_id,
                upgrade_id=upgrade_id,
                buff_id=buff_id,
                effect_id=effect_id,
            ),
        )

    def observation(
        self, game_loop: int | None = None, disable_fog: bool = False
    ) -> sc_pb.ResponseObservation:
        """The current observation; `game_loop` (realtime only) waits for that loop."""
        return self.request("observation", _observation_request(game_loop, disable_fog))

    def action(self, actions: sc_pb.RequestAction | Iterable[sc_pb.Action]) -> sc_pb.ResponseAction | None:
        """Send actions (an empty list is a no-op); None if the game had already ended."""
        return self.request("action", _action_request(actions))

    def obs_action(self, actions: Iterable[sc_pb.ObserverAction]) -> sc_pb.ResponseObserverAction:
        """An observer's actions: move its camera, switch whose view it sees."""
        return self.request("obs_action", sc_pb.RequestObserverAction(actions=list(actions)))

    def step(self, count: int = 1) -> sc_pb.ResponseStep | None:
        """Advance `count` game loops; None if the game had already ended."""
        return self.request("step", sc_pb.RequestStep(count=count))

    def act_step_observe(
        self,
        actions: sc_pb.RequestAction | Iterable[sc_pb.Action],
        count: int = 1,
        *,
        game_loop: int | None = None,
        disable_fog: bool = False,
    ) -> sc_pb.ResponseObservation:
        """Action, step(count) and observation pipelined: written together, answered in one round trip."""
        return self.begin_act_step_observe(
            actions, count, game_loop=game_loop, disable_fog=disable_fog
        ).finish()[-1]

    def begin_act_step_observe(
        self,
        actions: sc_pb.RequestAction | Iterable[sc_pb.Action],
        count: int = 1,
        *,
        game_loop: int | None = None,
        disable_fog: bool = False,
        then: Sequence[tuple[str, Message]] = (),
    ) -> Answers:
        """act_step_observe() in two halves: send now, `.finish()[2]` is the observation (the last answer
        unless `then` adds requests to the same round trip, e.g. a query about what the observation shows;
        their answers follow it, None for one the game refused).

        Lets one thread keep several games busy at once: begin on every game, then finish each.
        """
        return self.begin(
            [
                ("action", _action_request(actions)),
                ("step", sc_pb.RequestStep(count=count)),
                ("observation", _observation_request(game_loop, disable_fog)),
                *then,
            ],
            optional=len(then),
        )

    def query(self, request: query_pb2.RequestQuery) -> query_pb2.ResponseQuery:
        return self.request("query", request)

    def debug(self, commands: Iterable[debug_pb2.DebugCommand]) -> sc_pb.ResponseDebug:
        return self.request("debug", sc_pb.RequestDebug(debug=list(commands)))

    def save_replay(self) -> sc_pb.ResponseSaveReplay:
        return self.request("save_replay", sc_pb.RequestSaveReplay())

    def replay_info(
        self, replay_path: str | None = None, replay_data: bytes | None = None, download_data: bool = False
    ) -> sc_pb.ResponseReplayInfo:
        request = sc_pb.RequestReplayInfo(download_data=download_data)
        if replay_data is not None:
            request.replay_data = replay_data
        elif replay_path is not None:
            request.replay_path = replay_path
        else:
            raise ValueError("replay_info needs replay_path or replay_data")
        return self.request("replay_info", request)

    def save_map(self, map_path: str, map_data: bytes) -> sc_pb.ResponseSaveMap:
        return self.request("save_map", sc_pb.RequestSaveMap(map_path=map_path, map_data=map_data))

    # --- generic ----------------------------------------------------------------------------------

    def request(self, kind: str, message: Message):
        """Send one request (`kind` is the Request field, e.g. "observation") and return its answer."""
        return self.pipeline([(kind, message)])[0]

    def pipeline(self, requests: Sequence[tuple[str, Message]]) -> list:
        """Write all requests back to back, then read their answers in order (one round trip).

        Each request is checked against the status before anything is sent. Every answer is read even if
        an earlier one failed, so the connection stays in step; then the first failure is raised.
        """
        return self.begin(requests).finish()


def _action_request(actions: sc_pb.RequestAction | Iterable[sc_pb.Action]) -> sc_pb.RequestAction:
    if isinstance(actions, sc_pb.RequestAction):
        return actions
    return sc_pb.RequestAction(actions=list(actions))


def _observation_request(game_loop: int | None, disable_fog: bool) -> sc_pb.RequestObservation:
    request = sc_pb.RequestObservation(disable_fog=disable_fog)
    if game_loop is not None:
        request.game_loop = game_loop
    return request
