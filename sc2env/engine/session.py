"""The SC2 API protocol without I/O: decode a Request, check it against the status machine, answer it."""

from __future__ import annotations

import contextlib
import json
import traceback
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from google.protobuf.message import DecodeError
from s2clientprotocol import common_pb2, query_pb2
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env._version import __version__
from sc2env.engine import debug, observe, replay_file, spectator
from sc2env.engine.computer import INTERFACE as COMPUTER_INTERFACE
from sc2env.engine.computer import PROFILES, Computer
from sc2env.engine.game import MIRRORED, Game, Interface, Joining
from sc2env.engine.limits import (
    MAX_ACTIONS,
    MAX_CAMERA_WIDTH,
    MAX_OBSERVERS,
    MAX_QUERY_ITEMS,
    MAX_RESOLUTION,
    MAX_STEP_LOOPS,
)
from sc2env.engine.mapdef import (
    MAX_PLAYERS,
    RESULTS,
    MapDefinition,
    MapDefinitionError,
    PlayerSlot,
    ScriptError,
    builtin_definitions,
    find_definition,
    parse_definition,
)
from sc2env.engine.match import Completion, Match
from sc2env.engine.playback import Playback
from sc2env.engine.query import answer_query
from sc2env.engine.scenario import Scenario
from sc2env.engine.spectator import Spectator
from sc2env.gamedata import BASE_BUILD, DATA_BUILD, DATA_VERSION, GAME_VERSION

LAUNCHED, INIT_GAME, IN_GAME, IN_REPLAY, ENDED, QUIT = (
    sc_pb.launched,
    sc_pb.init_game,
    sc_pb.in_game,
    sc_pb.in_replay,
    sc_pb.ended,
    sc_pb.quit,
)
ALREADY_ENDED = "Game has already ended"
# What validating a definition raises for a malformed part (a wrong type, a missing key, a bad value).
MALFORMED = (MapDefinitionError, KeyError, TypeError, AttributeError, ValueError)

# Request -> statuses in which it is valid (PySC2's extra allowances included; see sc2-api-notes §1). `ended`
# also follows a replay that was watched to its end; the handlers refuse what makes no sense there.
_VALID: dict[str, tuple[sc_pb.Status.ValueType, ...] | None] = {
    "ping": None,
    "available_maps": None,
    "replay_info": None,
    "quit": None,
    "create_game": (LAUNCHED, INIT_GAME, IN_GAME, IN_REPLAY, ENDED),
    "start_replay": (LAUNCHED, IN_GAME, IN_REPLAY, ENDED),
    "join_game": (LAUNCHED, INIT_GAME),  # launched: joining a game another engine process hosts
    "restart_game": (IN_GAME, ENDED),
    "leave_game": (IN_GAME, IN_REPLAY, ENDED),
    "game_info": (IN_GAME, IN_REPLAY, ENDED),
    "observation": (IN_GAME, IN_REPLAY, ENDED),
    "data": (IN_GAME, IN_REPLAY, ENDED),
    "query": (IN_GAME, IN_REPLAY, ENDED),
    "step": (IN_GAME, IN_REPLAY),
    "action": (IN_GAME,),
    "obs_action": (IN_GAME, ENDED),
    "save_replay": (IN_GAME, IN_REPLAY, ENDED),  # from a replay only if start_replay set record_replay
    "debug": (IN_GAME,),
    "save_map": None,
}
# What an observer of a two-player game may not ask, and why.
_NOT_FOR_OBSERVERS = {
    "action": "action is for the game's players: an observer has no units of its own; move its camera or "
    "switch whose view it sees with obs_action (RequestObserverAction)",
    "debug": "debug commands are for the game's players, not its observers",
}
# What an observer asks as the game's own (not through its view): the replay is the game's, as a player's is.
_GAME_WIDE = frozenset({"save_replay", "data"})
# A handler's answer that comes later: the request waits for the other players (lock-step, see Match).
DEFERRED: list[bytes | bytearray] = []


@dataclass
class _Held:
    """A request of this session waiting on the match: its Response so far and how to finish it."""

    response: sc_pb.Response
    finish: Callable[[sc_pb.Response], None]
    completion: Completion | None = None  # set when the match releases it


# What a replay being watched (or watched to its end) refuses, and why.
_NOT_IN_REPLAY = {
    "action": "actions are not accepted while watching a replay (it plays the recorded player's actions); "
    "create_game and join_game to play",
    "restart_game": "restart_game is not valid for a replay: send start_replay again to watch it from the "
    "start",
}


class Session:
    """One engine's protocol state: the status machine and the game it hosts.

    `handle(bytes) -> bytes` answers one serialized Request with one serialized Response and never raises
    for bad input: malformed bytes, unknown or out-of-state requests all get an `error` answer. `answer` is
    the same as pieces to write back to back (valid until the next request), without joining them.
    """

    def __init__(
        self,
        data_dir: str | None = None,
        client_gone: Callable[[], bool] | None = None,
        match: Match | None = None,
    ) -> None:
        self.status = LAUNCHED
        self.data_dir = data_dir  # -dataDir: a folder of mini-game definitions replaces the shipped ones
        # Asked between chunks of a long step: the client that asked has hung up, so nobody takes the answer.
        self.client_gone = client_gone
        self.game: Game | None = None
        # (definition, seed, realtime) between create and join
        self._pending: tuple[MapDefinition, int | None, bool] | None = None
        self.disable_fog = False
        self.playback: Playback | None = None  # the replay being watched (in_replay, or ended after one)
        # A two-player game: the Match this session plays in (a session made for a linked engine's player is
        # given the host's), and its player id there once joined.
        self.match = match
        self.player_id: int | None = None
        self.spectator: Spectator | None = None  # joined as an observer: its own view (player_id: its seat)
        # Against the built-in AI: its (player_setup index, setup) between create and join, then the AI.
        self._computer_setup: tuple[int, sc_pb.PlayerSetup] | None = None
        self.computer: Computer | None = None
        self.listen_port: int | None = None  # hosting: the port the other player's engine links to
        self.saved_maps: dict[str, bytes] = {}  # save_map: map path -> data, for create_game by path
        self._held: _Held | None = None
        self._queue: deque[bytes] = deque()  # requests that came while one was held, answered in order

    @property
    def quit(self) -> bool:
        return self.status == QUIT

    def handle(self, data: bytes) -> bytes:
        return b"".join(self.answer(data))

    def answer(self, data: bytes) -> list[bytes | bytearray]:
        """The answer to one request; an empty list when it comes later, through `take_ready` (a two-player
        game's request waiting for the other player, and the requests after it)."""
        if self._held is not None:
            self._queue.append(data)
            if self.match is not None and self.player_id is not None and _ends_play(data):
                # Quitting or leaving must not wait on the other player: leaving the game now concedes it
                # and answers the held request; this one follows it (take_ready).
                self.match.leave(self.player_id)
            return DEFERRED
        return self._answer(data)

    def take_ready(self) -> list[bytes]:
        """Answers that became ready since the last call, in the order their requests came."""
        out: list[bytes] = []
        while self._held is not None and self._held.completion is not None:
            held, self._held = self._held, None
            assert held.completion is not None
            held.completion(held.response)
            with self._served():
                held.finish(held.response)
            self._sync_status()
            held.response.status = self.status
            out.append(held.response.SerializeToString())
            while self._queue and self._held is None:
                pieces = self._answer(self._queue.popleft())
                if self._held is None:
                    out.append(b"".join(pieces))
        return out

    @property
    def holding(self) -> bool:
        """Whether a request waits on the other players."""
        return self._held is not None

    def lost(self, reason: str) -> None:
        """This session's player is gone without leaving (its engine's link closed)."""
        if self.match is not None and self.player_id is not None:
            self.match.lost(self.player_id, reason)
        self.match = None  # one that never joined took no slot: the host's player waits for another

    def _hold(self, response: sc_pb.Response, finish: Callable[[sc_pb.Response], None]) -> Callable:
        """Hold the request being answered until the match releases it; the release callback to give it."""
        held = self._held = _Held(response, finish)

        def release(completion: Completion) -> None:
            held.completion = completion

        return release

    def _seated(self) -> bool:
        """Whether the game already serves this session's player, or no player (what `_served` would do is
        nothing)."""
        game = self.game
        if self.spectator is not None and game is not None and self.playback is None:
            return False
        return (
            game is None
            or self.player_id is None
            or self.playback is not None
            or game.player_id == self.player_id
        )

    @contextlib.contextmanager
    def _served(self, kind: str = "") -> Iterator[None]:
        """Inside the block the game serves this session's player (a two-player game has one per session), or
        shows itself as this session's observer sees it (but for `_GAME_WIDE` requests)."""
        if self._seated():
            yield
            return
        assert self.game is not None and self.player_id is not None  # not seated: both are there
        if self.spectator is not None:
            if kind in _GAME_WIDE:
                yield
                return
            with self.spectator.observed(self.game):
                yield
            return
        with self.game.viewing(self.player_id):
            yield

    def _sync_status(self) -> None:
        """A two-player game may end on another player's request: this player's status follows."""
        if self.match is not None and self.game is not None and self.game.ended and self.status == IN_GAME:
            self.status = ENDED

    def _answer(self, data: bytes) -> list[bytes | bytearray]:
        try:
            request = sc_pb.Request.FromString(data)
        except (DecodeError, RuntimeError, ValueError) as e:
            response = sc_pb.Response()
            response.error.append(
                f"malformed request: could not parse {len(data)} bytes as sc2api.Request ({e})"
            )
            self._sync_status()
            response.status = self.status
            return [response.SerializeToString()]
        answered = self.respond(request)
        if answered is None:
            return DEFERRED
        response, layers = answered
        return observe.spliced(response.SerializeToString(), layers)

    def respond(self, request: sc_pb.Request) -> tuple[sc_pb.Response, observe.Layers] | None:
        """The answer to one parsed Request: the Response, and the feature layers that belong in its
        observation as the renderers encoded them (none but for an observation; valid until the next request);
        None when the answer comes later, through `take_ready` (a two-player game's lock-step).

        `answer()` serialises and splices the two; an in-process caller merges them (sc2env.engine.inprocess).
        """
        self._sync_status()
        response = sc_pb.Response()
        if request.HasField("id"):
            response.id = request.id
        kind = request.WhichOneof("request")
        payload: observe.Layers | list[bytes | bytearray] | None = None
        if kind is None:
            response.error.append("empty request: set one of the Request fields (ping, create_game, ...)")
        elif kind not in _VALID:
            response.error.append(
                f"{kind} is not supported by the built-in engine (docs/engine.md lists the requests it serves)"
            )
        elif kind in _NOT_FOR_OBSERVERS and self.spectator is not None and self.playback is None:
            response.error.append(_NOT_FOR_OBSERVERS[kind])
        elif (
            kind in _NOT_IN_REPLAY
            and self.playback is not None
            and (self.status == IN_REPLAY or kind != "action")
        ):  # an action after its end: ALREADY_ENDED
            response.error.append(_NOT_IN_REPLAY[kind])
        elif (valid := _VALID[kind]) is not None and self.status not in valid:
            if self.status == ENDED and kind in ("step", "action"):
                response.error.append(ALREADY_ENDED)
            else:
                allowed = ", ".join(sc_pb.Status.Name(s) for s in valid)
                response.error.append(
                    f"{kind} is not valid in status {sc_pb.Status.Name(self.status)} (valid in: {allowed})"
                )
        else:
            try:
                handler = getattr(self, f"_{kind}")
                if self._seated():  # the common case, without the context managers' cost per request
                    payload = handler(getattr(request, kind), response)
                else:
                    with self._served(kind):
                        payload = handler(getattr(request, kind), response)
                if payload is DEFERRED:
                    return None
            except Exception as e:
                self._held = None  # a request that failed is answered now, not held
                response.ClearField(kind)
                where = traceback.extract_tb(e.__traceback__)[-1]
                response.error.append(
                    f"internal error in the built-in engine while handling {kind}: "
                    f"{type(e).__name__}: {e} (at {where.filename.rsplit('/', 1)[-1]}:"
                    f"{where.lineno} in {where.name}; please report it)"
                )
        response.status = self.status
        return response, payload if isinstance(payload, tuple) else observe.NO_LAYERS

    # ---- requests -----------------------------------------------------------------------------------
    def _ping(self, request, response) -> None:
        ping = response.ping
        ping.game_version, ping.data_version = GAME_VERSION, DATA_VERSION
        ping.data_build, ping.base_build = DATA_BUILD, BASE_BUILD

    def _available_maps(self, request, response) -> None:
        # Each by its file's name (as create_game finds it) in its definition's folder (mini_games, SMAC_Maps).
        response.available_maps.local_map_paths.extend(
            sorted(
                f"{parse_definition(source).map_folder}/{name}.SC2Map"
                for name, source in builtin_definitions(self.data_dir).items()
            )
        )

    def _create_game(self, request: sc_pb.RequestCreateGame, response) -> None:
        out = response.create_game
        out.SetInParent()
        error = sc_pb.ResponseCreateGame
        if not request.HasField("local_map"):
            out.error = error.MissingMap
            out.error_details = (
                "the built-in engine plays only its own mini-games; give local_map.map_path "
                "(e.g. mini_games/MoveToBeacon.SC2Map) or map_data"
            )
            return
        participants = [p for p in request.player_setup if p.type == sc_pb.Participant]
        if not request.player_setup:
            out.error, out.error_details = error.MissingPlayerSetup, "player_setup is empty"
            return
        # One Computer is taken and plays no part (PySC2's bin/play and bin/benchmark_observe always add one):
        # the maps' scripts drive the other side, and the engine has no AI to start for it.
        computers = [p for p in request.player_setup if p.type == sc_pb.Computer]
        observers = sum(p.type == sc_pb.Observer for p in request.player_setup)
        if (
            not 1 <= len(participants) <= MAX_PLAYERS
            or len(computers) > (1 if len(participants) == 1 else 0)
            or len(participants) + len(computers) + observers != len(request.player_setup)
        ):
            out.error = error.InvalidPlayerSetup
            out.error_details = (
                "the built-in engine plays single-agent maps (one Participant, at most one Computer, which plays "
                "no part) and two-player maps (two Participants, or one and a Computer; two Participants may "
                f"have up to {MAX_OBSERVERS} Observers)"
            )
            return
        if observers > MAX_OBSERVERS:
            out.error = error.InvalidPlayerSetup
            out.error_details = (
                f"{observers} Observers: the built-in engine seats at most {MAX_OBSERVERS} in one game (each "
                "is an engine process lock-stepped with the players)"
            )
            return
        local = request.local_map
        try:
            data = local.map_data or self.saved_maps.get(local.map_path, b"")
            definition = find_definition(local.map_path, data, self.data_dir)
        except KeyError:
            out.error = error.MissingMap
            out.error_details = (
                f"no built-in mini-game matches {local.map_path!r}; available: "
                f"{', '.join(sorted(builtin_definitions(self.data_dir)))}"
            )
            return
        except MapDefinitionError as e:
            out.error, out.error_details = error.InvalidMapData, f"{local.map_path or 'map_data'}: {e}"
            return
        try:
            Scenario.validate(definition)
        except MALFORMED as e:
            out.error, out.error_details = error.InvalidMapData, f"{definition.name}: {e}"
            return
        # Slots a client or the built-in AI fills: on a map its script plays against, only the agent's.
        slots = len(definition.players) if definition.opponent == "player" else 1
        computer = None
        if slots > 1 and computers:  # the built-in AI takes the slot of its place in player_setup
            index = [p.type for p in request.player_setup].index(sc_pb.Computer)
            problem = _computer_problem(definition, computers[0], definition.players[index])
            if problem:
                out.error, out.error_details = error.InvalidPlayerSetup, problem
                return
            computer = (index, computers[0])
            if request.realtime:
                out.error = error.InvalidPlayerSetup
                out.error_details = (
                    "the built-in AI plays in step mode only: realtime is not supported with it"
                )
                return
        elif slots != len(participants):
            out.error = error.InvalidPlayerSetup
            out.error_details = (
                f"{definition.name} has {slots} player slot{'s' * (slots > 1)}: give {slots} Participant"
                f"{'s' * (slots > 1)}, not {len(participants)}"
            )
            return
        if observers and (slots < 2 or computer is not None):
            out.error = error.InvalidPlayerSetup
            out.error_details = (
                f"{definition.name}: Observers watch a game of two Participants on a two-player map (each "
                f"joins through its own engine process, linked to the host's); "
                + (
                    "this game has one Participant and a Computer, played in one process"
                    if computer is not None
                    else "this is a single-agent map: watch its replay instead (start_replay)"
                )
            )
            return
        if slots > 1 and request.realtime:
            out.error = error.InvalidPlayerSetup
            out.error_details = "a two-player game runs in lock-step: realtime is not supported for it"
            return
        seed = request.random_seed if request.HasField("random_seed") else None
        self._leave_match()
        self._pending = (definition, seed, request.realtime)
        self.disable_fog = request.disable_fog
        self.game = None
        self.playback = None
        self.computer = None
        self._computer_setup = computer
        if slots > 1 and computer is None:
            self.match = Match(definition, seed, request.disable_fog, slots, observers)
        self.status = INIT_GAME

    def _join_game(self, request: sc_pb.RequestJoinGame, response) -> None:
        out = response.join_game
        out.SetInParent()
        error = sc_pb.ResponseJoinGame
        if not request.HasField("options"):
            out.error, out.error_details = error.MissingOptions, "join_game needs InterfaceOptions"
            return
        problem = _check_options(request.options)
        if problem:
            out.error, out.error_details = error.FeatureUnsupported, problem
            return
        if self.match is not None:
            return self._join_match(request, response)
        if self.status == LAUNCHED:
            out.error = error.MissingParticipation
            out.error_details = (
                "join_game in status launched joins a two-player game that another engine process hosts: give "
                "server_ports (the host's ports, as for the real game); or create_game first on this engine"
            )
            return
        if self._pending is None:  # the status machine lets join_game through only after create_game
            raise RuntimeError("join_game without a created game")
        definition, seed, realtime = self._pending
        game = Game(definition, seed, realtime, self.disable_fog)
        race = request.race if request.HasField("race") else game.race
        try:
            if self._computer_setup is None:
                game.join(Interface.from_options(request.options), race, request.player_name)
            else:  # against the built-in AI: the agent's seat first (it is served and recorded), then the AI's
                slot_index, setup = self._computer_setup
                ai_slot = definition.players[slot_index]
                agent_slot = definition.players[1 - slot_index]
                if race not in (agent_slot.race, common_pb2.Random):
                    out.error = error.FeatureUnsupported
                    out.error_details = _race_problem(definition, agent_slot)
                    return None
                game.join_all(
                    [
                        Joining(
                            agent_slot.player_id,
                            Interface.from_options(request.options),
                            race,
                            request.player_name,
                        ),
                        Joining(
                            ai_slot.player_id, COMPUTER_INTERFACE, setup.race or ai_slot.race, "Computer"
                        ),
                    ]
                )
                self.computer = Computer(ai_slot.player_id, setup.difficulty)
        except ScriptError as e:  # what only running the setup can tell (a region with no room left)
            out.error = error.OtherError
            out.error_details = f"{definition.name}: the map's setup script failed at {e}"
            return None
        self.game = game
        out.player_id = game.player.player_id
        self.status = IN_GAME

    def _join_match(self, request: sc_pb.RequestJoinGame, response: sc_pb.Response):
        """Join the two-player game: the host's own player (init_game) or the linked engine's (launched)."""
        match, out = self.match, response.join_game
        assert match is not None
        if not request.HasField("server_ports"):
            out.error = sc_pb.ResponseJoinGame.MissingPorts
            out.error_details = (
                "a two-player game needs server_ports and client_ports in join_game (each player joins through "
                "its own engine process, which link over those ports), as the real game does"
            )
            return None
        if request.WhichOneof("participation") == "observed_player_id":
            return self._join_as_observer(request, response)
        if match.free_player_slots <= 0 or self.player_id is not None:
            out.error = sc_pb.ResponseJoinGame.GameFull
            out.error_details = "every player slot of this game is taken" + (
                " (an observer joins with observed_player_id instead of race)" if match.free_slots else ""
            )
            return None
        if self.status == INIT_GAME:
            self.listen_port = request.server_ports.game_port
        slot = match.next_slot
        race = request.race if request.HasField("race") else slot.race
        if race not in (slot.race, common_pb2.Random):
            out.error = sc_pb.ResponseJoinGame.FeatureUnsupported
            out.error_details = _race_problem(match.definition, slot)
            return None

        def finish(answer: sc_pb.Response) -> None:
            if answer.error or match.game is None:
                self._leave_match()
                self.status = LAUNCHED
                return
            self.game = match.game
            answer.join_game.player_id = self.player_id or 0
            self.status = IN_GAME

        release = self._hold(response, finish)
        self.player_id = match.join(
            Interface.from_options(request.options), race, request.player_name, release
        )
        return DEFERRED

    def _join_as_observer(self, request: sc_pb.RequestJoinGame, response: sc_pb.Response):
        """Take an observer seat of the two-player game: the game as a player sees it, or all of it."""
        match, out = self.match, response.join_game
        assert match is not None
        players = [slot.player_id for slot in match.definition.players]
        problem = spectator.perspective_problem(players, request.observed_player_id)
        if problem:
            out.error, out.error_details = sc_pb.ResponseJoinGame.InvalidObservedPlayerId, problem
            return None
        if match.free_observer_slots <= 0 or self.player_id is not None:
            out.error = sc_pb.ResponseJoinGame.GameFull
            out.error_details = (
                "every observer seat of this game is taken (create_game lists one PlayerSetup of type Observer "
                "for each)"
                if match.observers
                else "this game has no observer seat: create_game lists one PlayerSetup of type Observer for "
                "each observer"
            )
            return None
        if self.status == INIT_GAME:
            self.listen_port = request.server_ports.game_port
        view = Spectator(Interface.from_options(request.options), request.observed_player_id)

        def finish(answer: sc_pb.Response) -> None:
            if answer.error or match.game is None:
                self._leave_match()
                self.status = LAUNCHED
                return
            self.game, self.spectator = match.game, view
            answer.join_game.player_id = self.player_id or 0
            self.status = IN_GAME

        self.player_id = match.observe(self._hold(response, finish))
        return DEFERRED

    def _leave_match(self) -> None:
        if self.match is not None and self.player_id is not None:
            self.match.leave(self.player_id)
        self.match, self.player_id, self.listen_port = None, None, None
        self.spectator = None

    def _restart_game(self, request, response) -> list[bytes | bytearray] | None:
        response.restart_game.SetInParent()
        if self.match is not None and self.player_id is not None:

            def finish(answer: sc_pb.Response) -> None:
                if not answer.error:
                    self.status = IN_GAME

            problem = self.match.restart(self.player_id, self._hold(response, finish))
            if problem:
                self._held = None
                response.error.append(problem)
                return None
            return DEFERRED
        game = self._current_game()
        try:
            game.restart()
        except ScriptError as e:  # the setup ran this time into what it did not meet before: no game to go on
            game.result = RESULTS["Undecided"]
            self.status = ENDED
            response.error.append(f"{game.definition.name}: the map's setup script failed at {e}")
            return None
        if self.computer is not None:
            self.computer.restart()
        self.status = IN_GAME
        return None

    def _leave_game(self, request, response) -> None:
        response.leave_game.SetInParent()
        self._leave_match()
        self.game, self.computer = None, None
        self.playback = None
        self.status = LAUNCHED

    def _save_map(self, request: sc_pb.RequestSaveMap, response) -> None:
        out = response.save_map
        out.SetInParent()
        try:
            parse_definition(request.map_data)
        except MapDefinitionError as e:
            out.error = sc_pb.ResponseSaveMap.InvalidMapData
            response.error.append(f"save_map {request.map_path!r}: not an sc2env map definition ({e})")
            return
        self.saved_maps[request.map_path] = request.map_data

    def _quit(self, request, response) -> None:
        response.quit.SetInParent()
        self.status = QUIT

    def _game_info(self, request, response) -> None:
        if self.playback is not None:
            with self.playback.observed() as game:
                response.game_info.CopyFrom(observe.game_info(game))
            return
        response.game_info.CopyFrom(observe.game_info(self._current_game()))

    def _data(self, request: sc_pb.RequestData, response) -> None:
        game = self.playback.game if self.playback is not None else self.game
        response.data.CopyFrom(observe.game_data(request, game.type_ids if game is not None else None))

    def _query(self, request: query_pb2.RequestQuery, response) -> None:
        items = len(request.pathing) + len(request.abilities) + len(request.placements)
        if items > MAX_QUERY_ITEMS:
            response.error.append(
                f"a query of {items} items is more than one request may ask (at most {MAX_QUERY_ITEMS} "
                "pathing, abilities and placements items together): split it into several queries"
            )
            return
        if self.playback is not None:
            with self.playback.observed() as game:
                answer_query(game, request, response.query)
            return
        answer_query(self._current_game(), request, response.query)

    def _observation(self, request: sc_pb.RequestObservation, response) -> observe.Layers:
        game = self._current_game()
        if game.realtime and self.status == IN_GAME:
            game.catch_up_realtime(request.game_loop)
            self._after_simulation(response)
        if self.playback is not None:
            if self.playback.realtime and self.status == IN_REPLAY:
                self.playback.catch_up_realtime(request.game_loop)
                self._after_replay(response)
            response.status = self.status
            with self.playback.observed() as game:
                return observe.observation(game, response)
        response.status = self.status
        return observe.observation(game, response)

    def _action(self, request: sc_pb.RequestAction, response) -> None:
        if len(request.actions) > MAX_ACTIONS:
            response.error.append(
                f"{len(request.actions)} actions in one request is more than the engine takes (at most "
                f"{MAX_ACTIONS}): none was applied; send them in several requests"
            )
            return
        game = self._current_game()
        if game.realtime:
            game.catch_up_realtime()
            self._after_simulation(response)
        out = response.action
        out.SetInParent()
        for action in request.actions:
            out.result.append(game.act(action))

    def _obs_action(self, request: sc_pb.RequestObserverAction, response) -> None:
        response.obs_action.SetInParent()
        view, game = self.spectator, self._current_game()
        if view is None or self.playback is not None:
            response.error.append(
                "obs_action is for observers of a two-player game (join_game with observed_player_id); a player "
                "acts with action"
            )
            return
        if len(request.actions) > MAX_ACTIONS:
            response.error.append(
                f"{len(request.actions)} observer actions in one request is more than the engine takes (at most "
                f"{MAX_ACTIONS}): none was applied"
            )
            return
        for action in request.actions:
            problem = spectator.apply(view, game, action, game.seat_ids)
            if problem:
                response.error.append(problem)

    def _step(self, request: sc_pb.RequestStep, response) -> list[bytes | bytearray] | None:
        game = self._current_game()
        count = request.count if request.HasField("count") else 1
        if count > MAX_STEP_LOOPS:
            response.error.append(
                f"step count {count} is more than one request may run (at most {MAX_STEP_LOOPS} game "
                "loops): step in several requests"
            )
            return None
        if self.playback is not None:
            if self.playback.realtime:
                response.error.append("step is not valid in a realtime replay (it advances with the clock)")
                return None
            self.playback.play(count)
            self._after_replay(response)
            response.step.simulation_loop = game.game_loop
            return None
        if game.realtime:
            response.error.append("step is not valid in a realtime game (the game advances with the clock)")
            return None
        if self.match is not None and self.player_id is not None:

            def finish(answer: sc_pb.Response) -> None:
                self._after_simulation(answer)
                answer.step.simulation_loop = game.game_loop

            self.match.step(self.player_id, count, self._hold(response, finish))
            return DEFERRED
        if self.computer is not None:
            self.computer.step(game, count, self.client_gone)
        else:
            game.step(count, self.client_gone)
        self._after_simulation(response)
        response.step.simulation_loop = game.game_loop
        return None

    def _debug(self, request: sc_pb.RequestDebug, response) -> None:
        response.debug.SetInParent()
        if self.playback is not None:
            response.error.append("debug commands are not valid while watching a replay")
            return
        for problem in debug.apply(self._current_game(), request.debug):
            response.error.append(problem)

    def _save_replay(self, request, response) -> None:
        if self.playback is not None and not self.playback.record_replay:
            response.error.append(
                "save_replay from a replay needs start_replay with record_replay set (it "
                "then saves the replay up to the current game loop)"
            )
            return
        response.save_replay.data = replay_file.encode(replay_file.record(self._current_game()))

    def _replay_info(self, request: sc_pb.RequestReplayInfo, response) -> None:
        out = response.replay_info
        out.SetInParent()
        try:
            recorded = replay_file.read(request)
        except replay_file.ReplayError as e:
            out.error, out.error_details = sc_pb.ResponseReplayInfo.Error.Value(e.kind), e.details
            return
        out.map_name, out.local_map_path = recorded.map_name, recorded.map_path
        for n, player in enumerate([recorded.player] + [other.player for other in recorded.others]):
            extra = out.player_info.add(player_apm=recorded.apm_of(player.player_id))
            extra.player_info.player_id, extra.player_info.type = player.player_id, sc_pb.Participant
            extra.player_info.race_requested = player.race_requested
            extra.player_info.race_actual = player.race_actual
            extra.player_info.player_name = player.name
            if recorded.result is not None:
                result = recorded.result if n == 0 else MIRRORED.get(recorded.result, recorded.result)
                extra.player_result.player_id, extra.player_result.result = player.player_id, result
        out.game_duration_loops, out.game_duration_seconds = recorded.game_loop, recorded.duration_seconds
        out.game_version, out.data_version = recorded.game_version, recorded.data_version
        out.data_build, out.base_build = recorded.data_build, recorded.base_build

    def _start_replay(self, request: sc_pb.RequestStartReplay, response) -> None:
        out = response.start_replay
        out.SetInParent()
        error = sc_pb.ResponseStartReplay
        try:
            recorded = replay_file.read(request)
        except replay_file.ReplayError as e:
            # start_replay has no ParsingError: an unparsable replay is invalid
            kind = "InvalidReplayData" if e.kind == "ParsingError" else e.kind
            out.error, out.error_details = error.Error.Value(kind), e.details
            return
        if recorded.sc2env_version != __version__:
            out.error = error.InvalidReplayData
            out.error_details = (
                f"this replay was recorded by sc2env {recorded.sc2env_version} and this engine is sc2env "
                f"{__version__}: the engine's behaviour may differ between versions, so the replay would not "
                f"play as recorded. Install sc2env {recorded.sc2env_version} to watch it"
            )
            return
        if request.observed_player_id not in [0, *recorded.player_ids]:
            ids = recorded.player_ids
            out.error = error.InvalidObservedPlayerId
            out.error_details = (
                f"observed_player_id {request.observed_player_id}: this replay has one "
                f"player, {ids[0]} (0 also observes it)"
                if len(ids) == 1
                else f"observed_player_id {request.observed_player_id}: this replay's players are "
                f"{', '.join(map(str, ids))} (0 observes player {ids[0]})"
            )
            return
        if not request.HasField("options"):
            out.error, out.error_details = error.MissingOptions, "start_replay needs InterfaceOptions"
            return
        problem = _check_options(request.options)
        if problem:  # ResponseStartReplay has no FeatureUnsupported; LaunchError is the closest it offers
            out.error = error.LaunchError
            out.error_details = f"cannot show the replay with these options: {problem}"
            return
        try:
            definition = _replay_map(recorded, request.map_data)
        except MapDefinitionError as e:
            out.error, out.error_details = error.InvalidMapData, str(e)
            return
        except ValueError as e:
            out.error, out.error_details = error.InvalidReplayData, str(e)
            return
        if recorded.game_loop > definition.time_limit:
            out.error = error.InvalidReplayData
            out.error_details = (
                f"the replay lasts {recorded.game_loop} game loops, longer than its map's time limit of "
                f"{definition.time_limit}: its header or map was edited, so it would not play as recorded"
            )
            return
        try:
            playback = Playback(
                recorded,
                definition,
                Interface.from_options(request.options),
                request.disable_fog,
                request.realtime,
                request.record_replay,
                request.observed_player_id,
            )
        except (ValueError, TypeError, KeyError, MapDefinitionError) as e:  # a replay edited into nonsense
            out.error = error.InvalidReplayData
            out.error_details = f"the replay's game could not be set up: {type(e).__name__}: {e}"
            return
        self._leave_match()  # watching a replay leaves a two-player game (conceding it), as a new game does
        self.game, self.playback, self._pending, self.computer = playback.game, playback, None, None
        self.status = IN_REPLAY

    def _current_game(self) -> Game:
        """The game being played or watched (the status machine lets the requests that need one through only
        while there is one)."""
        if self.game is None:
            raise RuntimeError(f"no game in status {sc_pb.Status.Name(self.status)}")
        return self.game

    def _after_simulation(self, response: sc_pb.Response) -> None:
        game = self._current_game()
        if game.ended:
            self.status = ENDED
        if game.script_error:  # the game ended there: say why, once
            response.error.append(f"{game.definition.name}: the map's script failed at {game.script_error}")
            game.script_error = ""

    def _after_replay(self, response: sc_pb.Response) -> None:
        playback = self.playback
        if playback is not None and playback.over and self.status == IN_REPLAY:
            self.status = ENDED
            problem = playback.divergence()
            if problem:
                response.error.append(problem)


def _replay_map(recorded: replay_file.Replay, map_data: bytes) -> MapDefinition:
    """The definition a replay plays on: the one it carries. `map_data` (start_replay's override) may only
    repeat it; MapDefinitionError says why it can't be used, ValueError that the replay's own is broken."""
    try:
        definition = parse_definition(recorded.map_definition)
        Scenario.validate(definition)
    except MALFORMED as e:
        raise ValueError(f"the map definition inside the replay is broken: {e}") from None
    if map_data:
        try:
            given = parse_definition(map_data)
        except MapDefinitionError as e:
            raise MapDefinitionError(
                f"map_data is not an sc2env mini-game definition ({e}); a replay "
                f"carries its own map, so leave map_data empty"
            ) from None
        if json.loads(given.source) != json.loads(definition.source):
            raise MapDefinitionError(
                f"map_data ({given.name}) differs from the definition the replay was "
                f"recorded on ({definition.name}), so it would not play as recorded; a "
                f"replay carries its own map, so leave map_data empty"
            )
    return definition


def _ends_play(data: bytes) -> bool:
    """Whether these request bytes ask to quit or leave the game."""
    try:
        return sc_pb.Request.FromString(data).WhichOneof("request") in ("quit", "leave_game")
    except (DecodeError, RuntimeError, ValueError):
        return False


def _race_name(race: int) -> str:
    return common_pb2.Race.Name(common_pb2.Race.ValueType(race))


def _race_problem(definition: MapDefinition, slot: PlayerSlot) -> str:
    race = _race_name(slot.race)
    return (
        f"{definition.name}: player {slot.player_id} plays {race}; join with race {race} or Random (the engine "
        f"has no other army for that slot)"
    )


def _computer_problem(definition: MapDefinition, setup: sc_pb.PlayerSetup, slot: PlayerSlot) -> str:
    """Why the built-in AI can't play this Computer setup on a two-player map ("" when it can)."""
    if setup.difficulty not in PROFILES:
        names = ", ".join(sc_pb.Difficulty.Name(sc_pb.Difficulty.ValueType(d)) for d in PROFILES)
        got = sc_pb.Difficulty.Name(setup.difficulty) if setup.HasField("difficulty") else "none"
        return f"the built-in AI plays difficulties {names}; got {got}"
    if setup.race not in (0, common_pb2.Random, slot.race):
        return (
            f"{definition.name}: the Computer's slot plays {_race_name(slot.race)}; give it race "
            f"{_race_name(slot.race)} or Random"
        )
    return ""


def _check_options(options: sc_pb.InterfaceOptions) -> str:
    """Why these interface options can't be served, or "" when they can."""
    for name in ("feature_layer", "render"):
        if not options.HasField(name):
            continue
        setup = getattr(options, name)
        for field in ("resolution", "minimap_resolution"):
            size = getattr(setup, field)
            if not (0 < size.x <= MAX_RESOLUTION and 0 < size.y <= MAX_RESOLUTION):
                return (
                    f"{name}.{field} must be between 1 and {MAX_RESOLUTION} pixels per side, got "
                    f"{size.x}x{size.y}"
                )
        if setup.width and not 1 <= setup.width <= MAX_CAMERA_WIDTH:  # NaN fails this too; 0 is the default
            return (
                f"{name}.width must be between 1 and {MAX_CAMERA_WIDTH} world units (or unset for 24), "
                f"got {setup.width}"
            )
    return ""
