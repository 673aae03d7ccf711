"""One match: start the game, create and join it, restart it per episode, step it in lock-step, score it."""

from __future__ import annotations

import dataclasses
import enum
import functools
import logging
from collections.abc import Callable, Iterable, Sequence
from typing import Concatenate, ParamSpec, TypeVar

from google.protobuf.message import Message
from s2clientprotocol import query_pb2
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env import errors
from sc2env.client import Controller, status_name
from sc2env.client.connection import DEFAULT_SPIN_WAIT_S
from sc2env.client.direct import DirectController
from sc2env.client.requests import Answers, GameRequests
from sc2env.game.join_ports import JoinPorts
from sc2env.game.lifecycle import Lifecycle
from sc2env.game.maps import (
    SMAC_MAPS_FOLDER,
    MapSpec,
    definition_map,
    definition_needs_builtin,
    is_definition_path,
    resolve_map,
)
from sc2env.game.match_config import RACES, Bot, MatchConfig
from sc2env.game.scores import OUTCOME_SCORE, score_value
from sc2env.launch import GameProcess, launch_plan, plan_launch
from sc2env.launch.install import USE_BUILTIN

log = logging.getLogger(__name__)

OUTCOMES = {sc_pb.Victory: 1, sc_pb.Defeat: -1, sc_pb.Tie: 0, sc_pb.Undecided: 0}

# Safety net for maps without a timer of their own: an hour of game time (PySC2 caps at 524,000 loops).
DEFAULT_MAX_GAME_LOOPS = 16 * 3600
# Mini-games end on their own timer; the cap sits a little past it so it only catches a game that never ends.
_TIMER_MARGIN_LOOPS = 16 * 10
_MAP_LOAD_TIMEOUT_S = 300.0


def stop_game(controller: GameRequests | None, process: GameProcess | None) -> None:
    """Ask the game to quit, close the connection and stop the process (each part only if given)."""
    try:
        if controller is not None:
            try:
                controller.quit()
            except errors.SC2EnvError as error:
                log.debug("quit failed while closing: %s", error)
            controller.close()
    finally:  # a Ctrl-C in quit() too: nothing refers to the process any more, so stop it now
        if process is not None:
            process.close()


@dataclasses.dataclass
class StepResult:
    """One agent step's outcome.

    reward:     the change of `score.score` (mini-games), or the outcome (+1/-1/0) when a melee game ends.
    terminated: the game ended (it reported player_result).
    truncated:  our safety cap on game loops cut the episode.
    timed_out:  the game ended at its map's time limit (a mini-game's timer), not by the play.
    outcome:    +1 victory, -1 defeat, 0 tie, undecided or still running.
    """

    observation: sc_pb.ResponseObservation
    reward: float = 0.0
    terminated: bool = False
    truncated: bool = False
    timed_out: bool = False
    outcome: int = 0
    then: list = dataclasses.field(default_factory=list)
    """The answers to begin_step's `then` requests (empty if they were not sent: the game had ended)."""

    @property
    def game_loop(self) -> int:
        return self.observation.observation.game_loop


class MatchState(enum.Enum):
    """Where a Match is in its life; MATCH_TRANSITIONS says where it may go from each state."""

    CLOSED = "no game process: never started, closed, or given up"
    IDLE = "a game process is connected and no episode is being played: just started, or a reset under way"
    PLAYING = "an episode is being played, no step on its way"
    STEPPING = "a step was sent (or was being sent) and its answers are not read yet"
    ENDED = "the episode ended: the game's end, the safety cap, or a game status no episode goes on from"
    LOST = "the game process or its connection was lost: the next reset() starts a new one"


_S = MatchState
MATCH_TRANSITIONS: dict[MatchState, set[MatchState]] = {
    _S.CLOSED: {_S.CLOSED, _S.IDLE},
    _S.IDLE: {_S.IDLE, _S.PLAYING, _S.ENDED, _S.LOST, _S.CLOSED},
    _S.PLAYING: {_S.IDLE, _S.STEPPING, _S.LOST, _S.CLOSED},
    _S.STEPPING: {_S.IDLE, _S.STEPPING, _S.PLAYING, _S.ENDED, _S.LOST, _S.CLOSED},
    _S.ENDED: {_S.IDLE, _S.LOST, _S.CLOSED},
    _S.LOST: {_S.LOST, _S.CLOSED},
}
_CONNECTED = frozenset({_S.IDLE, _S.PLAYING, _S.STEPPING, _S.ENDED})
_IN_EPISODE = frozenset({_S.PLAYING, _S.STEPPING})

P = ParamSpec("P")
R = TypeVar("R")


def _loses_the_game_on_connection_errors(
    method: Callable[Concatenate[Match, P], R],
) -> Callable[Concatenate[Match, P], R]:
    """A Match method that talks to the game: a ConnectionError out of it (the process died, the socket
    dropped, a request timed out, or a Ctrl-C cut a message) leaves the match LOST, then goes on up."""

    @functools.wraps(method)
    def guarded(self: Match, *args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return method(self, *args, **kwargs)
        except errors.ConnectionError as error:
            self._lose(error)
            raise

    return guarded


class Match:
    """One game process playing one map for as many episodes as asked; not thread-safe.

    The game is started lazily by the first reset(). reset() restarts the map (the fast mini-game reset)
    or, when a new seed is given, creates the game anew with that seed. If the game process died, the next
    reset() starts a new one. `state` (a MatchState) says where it is; losing the game is handled here, by
    every method that talks to it, so that its callers only read `state` (or `episode_over`) after an error.
    """

    def __init__(self, config: MatchConfig):
        self.config = config
        self.process: GameProcess | None = None
        self.controller: GameRequests | None = None
        self.map: MapSpec | None = None
        self.game_info: sc_pb.ResponseGameInfo | None = None
        self.player_id = 1
        self.lost_because = ""
        """The kind of error that lost the game (in state LOST), e.g. "GameCrashedError"."""
        self.ports: JoinPorts | None = None
        """A seat's: the ports both players of a game of two agents join with (set by its TwoPlayerGame)."""
        self._lifecycle = Lifecycle("Match", MatchState.CLOSED, MATCH_TRANSITIONS)
        self._seed: int | None = None
        self._start_loop = 0
        self._last_loop = 0
        self._last_score = 0.0

    # --- lifecycle -------------------------------------------------------------------------------

    @property
    def state(self) -> MatchState:
        return self._lifecycle.state

    @property
    def episode_over(self) -> bool:
        """No episode is being played: none was started, the last one ended, or its game was lost."""
        return self._lifecycle.state not in _IN_EPISODE

    @property
    def running(self) -> bool:
        """The game is alive and connected (in this process, or its own process)."""
        if self.controller is None or self.controller.closed:
            return False
        return (
            self.process.running
            if self.process is not None
            else isinstance(self.controller, DirectController)
        )

    @_loses_the_game_on_connection_errors
    def reset(self, seed: int | None = None) -> sc_pb.ResponseObservation:
        """Start a new episode and return its first observation.

        seed: None restarts the current game, the fast mini-game reset (or starts a game that seeds itself);
        a seed creates the game anew with that random seed, so the same seed replays the same episodes.
        A game that died since the last episode is replaced by a new one, created with the last seed.
        """
        try:
            return self._begin_episode(seed)
        except errors.ConnectionError as error:  # it died since the last step: start a new one, once
            if self.config.seat is not None:  # not alone: its TwoPlayerGame starts both players' anew
                raise
            log.warning("the game was lost (%s); starting a new one", error)
            self.close()
            return self._begin_episode(seed)

    def _begin_episode(self, seed: int | None) -> sc_pb.ResponseObservation:
        if not self.running or self.state is MatchState.LOST:
            self._start()
        self._lifecycle.to(MatchState.IDLE)  # until the first observation: a Ctrl-C leaves no episode going
        assert self.controller is not None  # started
        self.controller.abandon_pending()
        self.controller.read_unread()  # after a Ctrl-C: the status the interrupted request left
        create = seed is not None
        status = self.controller.status
        if status in (sc_pb.launched, sc_pb.in_replay):  # no game to restart: create one
            create = True
        elif status not in (sc_pb.in_game, sc_pb.ended, sc_pb.init_game):  # quit, unknown: of no use
            log.warning("the game reported status %s; starting a new one", status_name(status))
            self._start()
            create = True
        assert self.controller is not None
        if self.controller.status == sc_pb.init_game:  # a Ctrl-C fell between create_game and join_game:
            self._join()  # joining is the only way on from there; the game is then created anew
            create = True
        if create:
            self._create_and_join(seed if seed is not None else self._seed)
        else:
            answer = self.controller.restart_game()
            if answer is not None and answer.need_hard_reset:
                self._create_and_join(self._seed)
        response = self.controller.observation()
        self._start_loop = self._last_loop = response.observation.game_loop
        # From 0, not from the first observation's score: an episode's rewards add up to its final score, as
        # PySC2's do. Only CollectMineralsAndGas starts elsewhere: at its 50 starting minerals, which the map's
        # script replaces by the collected total (0) on the first loop (PySC2 zeroes its first step's reward).
        index = self._score_index()
        # Other score entries from where the episode starts (a unit's value is there from the first loop).
        self._last_score = 0.0 if index <= 0 else score_value(response.observation, index)
        self._lifecycle.to(MatchState.ENDED if response.player_result else MatchState.PLAYING)
        return response

    def step(self, actions: sc_pb.RequestAction | Iterable[sc_pb.Action] = ()) -> StepResult:
        """Send the actions, advance `step_mul` game loops and observe; pipelined in one round trip."""
        return self.finish_step(self.begin_step(actions))

    @_loses_the_game_on_connection_errors
    def begin_step(
        self,
        actions: sc_pb.RequestAction | Iterable[sc_pb.Action] = (),
        then: Sequence[tuple[str, Message]] = (),
    ) -> Answers | sc_pb.ResponseObservation:
        """The sending half of step(): the game works on it while the caller does something else. `then`:
        requests to send after the observation in the same round trip (their answers: StepResult.then, None
        for one the game refused)."""
        if self._lifecycle.state not in _IN_EPISODE:
            raise errors.ProtocolError(
                "step() needs a running episode: call reset() first "
                "(the last episode ended or the game was never started)."
            )
        # From here a step may be on its way: a Ctrl-C anywhere leaves its answers to be dropped first.
        self._lifecycle.to(MatchState.STEPPING)
        cfg, controller = self.config, self.controller
        assert controller is not None  # in an episode
        controller.abandon_pending()  # the last step's, if a Ctrl-C came before it read its answers
        controller.read_unread()  # after a Ctrl-C: the status of the step it interrupted
        if controller.status == sc_pb.ended:
            return controller.observation()
        if controller.status != sc_pb.in_game:  # the game said something no episode can go on from
            self._lifecycle.to(MatchState.ENDED)
            raise errors.ProtocolError(
                f"the game reported status {status_name(controller.status)} in the middle of an episode; "
                "call reset(): it starts the episode anew (a new game if need be)"
            )
        if cfg.realtime:
            controller.action(actions)
            return controller.begin(
                [
                    ("observation", sc_pb.RequestObservation(game_loop=self._last_loop + cfg.step_mul)),
                    *then,
                ],
                optional=len(then),
            )
        return controller.begin_act_step_observe(actions, cfg.step_mul, then=then)

    @_loses_the_game_on_connection_errors
    def finish_step(self, sent: Answers | sc_pb.ResponseObservation) -> StepResult:
        """The receiving half of step(): wait for the observation and score it."""
        if self._lifecycle.state is not MatchState.STEPPING:
            raise errors.ProtocolError(
                f"finish_step() reads the answers of a step begin_step() sent; this match is {self.state.name}"
            )
        answers = [sent] if isinstance(sent, sc_pb.ResponseObservation) else sent.finish()
        at = next(i for i, answer in enumerate(answers) if isinstance(answer, sc_pb.ResponseObservation))
        result = self._score(answers[at])
        result.then = answers[at + 1 :]
        self._lifecycle.to(MatchState.ENDED if result.terminated or result.truncated else MatchState.PLAYING)
        return result

    @_loses_the_game_on_connection_errors
    def query(self, request: query_pb2.RequestQuery) -> query_pb2.ResponseQuery:
        """Ask the game a query about the episode being played (what units can do, pathing, placement)."""
        if self._lifecycle.state not in _CONNECTED or self.controller is None:
            raise errors.ProtocolError(
                f"query() needs a game: call reset() first (the match is {self.state.name})"
            )
        return self.controller.query(request)

    @_loses_the_game_on_connection_errors
    def save_replay(self) -> bytes:
        """The replay of the episode being played or just finished, as the game records it (its bytes)."""
        if not self.running:
            raise errors.ProtocolError(
                "save_replay() needs a game: call reset() first (the game was never "
                "started, or it was closed or lost)"
            )
        controller = self.controller
        assert controller is not None  # running
        controller.abandon_pending()  # a step a Ctrl-C cut off after sending: its answers come first
        return controller.save_replay().data

    def close(self) -> None:
        """Quit the game and stop its process. Idempotent."""
        controller, process = self.controller, self.process
        self.controller = self.process = None
        self._lifecycle.to(MatchState.CLOSED)
        stop_game(controller, process)

    def stop_lost_game(self) -> None:
        """Stop a lost game's process now rather than at the next reset() (a hung one would linger till
        then); the match stays LOST, saying why, and reset() starts a new game. Any other state: close()."""
        if self.state is not MatchState.LOST:
            self.close()
            return
        controller, process = self.controller, self.process
        self.controller = self.process = None
        stop_game(controller, process)

    def __enter__(self) -> Match:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    # --- internals -------------------------------------------------------------------------------

    def _start(self) -> None:
        self.close()
        launch = self.config.launch
        if is_definition_path(self.config.map_name):  # read before the engine is chosen: it decides it
            if launch.requested_engine() == "sc2":
                raise errors.LaunchError(definition_needs_builtin(self.config.map_name))
            launch = dataclasses.replace(launch, engine="builtin")  # "auto" too, even beside a real install
        plan = plan_launch(launch)  # resolve the engine and the map before starting anything
        maps_dir = plan.install.maps_dir if plan.install is not None else None
        spec = resolve_map(self.config.map_name, maps_dir)
        if plan.engine == "sc2" and spec.file is None:
            source = "SMAC's repository" if spec.path.startswith(SMAC_MAPS_FOLDER) else "PySC2's repository"
            raise errors.LaunchError(
                f"{spec.name} is not installed under {maps_dir}: put {spec.path} there (it comes with "
                f"{source}), {USE_BUILTIN}."
            )
        if plan.engine == "builtin" and self.config.interface_options.show_placeholders:
            raise errors.LaunchError(
                "show_placeholders=True asks for buildings queued but not started, which the built-in engine "
                "does not make: use engine='sc2', or leave show_placeholders out"
            )
        # A seat of a game of two agents keeps a game process of its own: the two players' engines link over
        # their ports, and the in-process engine serves one player (docs/direct.md).
        if self.config.seat is None and launch.runs_direct(plan.engine):
            log.info(
                "playing the built-in engine in this process (direct mode; direct=False starts a process)"
            )
            self.controller, self.map = DirectController(str(plan.data_dir)), spec
            self._lifecycle.to(MatchState.IDLE)
            return
        process = launch_plan(plan)
        try:
            timeout_s = self.config.request_timeout_s
            # Loading a real map can take minutes on a cold disk cache; the built-in engine loads in
            # milliseconds, so its caller's timeout holds for every request.
            slow = max(timeout_s, _MAP_LOAD_TIMEOUT_S) if plan.engine == "sc2" else timeout_s
            self.controller = Controller(
                process,
                timeout_s=timeout_s,
                timeouts={"create_game": slow, "join_game": slow},
                spin_wait_s=DEFAULT_SPIN_WAIT_S if self.config.launch.spin_wait else 0,
            )
        except BaseException:
            process.close()
            raise
        self.process, self.map = process, spec
        self._lifecycle.to(MatchState.IDLE)

    def _create_and_join(self, seed: int | None) -> None:
        cfg, spec, controller = self.config, self.map, self.controller
        assert spec is not None and controller is not None  # started
        if (
            spec.definition and spec.file is not None
        ):  # read again: its time limit, as the engine plays it now
            spec = self.map = definition_map(spec.file)
        create = sc_pb.RequestCreateGame(disable_fog=cfg.disable_fog, realtime=cfg.realtime)
        create.local_map.map_path = spec.path
        data = spec.read_data()
        if data is not None:
            create.local_map.map_data = data
        if seed is not None:
            create.random_seed = seed
        create.player_setup.add(type=sc_pb.Participant)
        if cfg.seat is not None:
            create.player_setup.add(type=sc_pb.Participant)
            for _ in range(cfg.observers):  # each joins through its own game process (ObserverSeat)
                create.player_setup.add(type=sc_pb.Observer)
        elif not spec.mini_game:
            create.player_setup.append((cfg.bot or Bot()).player_setup())
        if cfg.seat in (None, 1):  # the other seat joins the game its host created
            log.info("creating %s (seed %s)", spec.name, seed)
            controller.create_game(create)
        self._join()
        self._seed = seed

    def _score_index(self) -> int:
        index, spec = self.config.score_index, self.map
        assert spec is not None  # started
        return index if index is not None else (0 if spec.mini_game else OUTCOME_SCORE)

    def _join(self) -> None:
        cfg = self.config
        join = sc_pb.RequestJoinGame(
            race=RACES[cfg.race.lower()], options=cfg.interface_options, player_name=cfg.player_name[:32]
        )
        if cfg.seat is not None:
            if self.ports is None:
                raise errors.ProtocolError(
                    "a seat of a game of two agents joins with its TwoPlayerGame's ports: play it through one"
                )
            self.ports.fill(join)
        controller = self.controller
        assert controller is not None  # started
        self.player_id = controller.join_game(join).player_id or 1
        self.game_info = controller.game_info()

    def _score(self, response: sc_pb.ResponseObservation) -> StepResult:
        cfg, obs, spec, controller = self.config, response.observation, self.map, self.controller
        assert spec is not None and controller is not None  # started
        self._last_loop = obs.game_loop
        result = StepResult(response)
        for player in response.player_result:
            # An unknown enum value leaves `result` unset, which reads as Victory.
            if player.player_id == self.player_id and player.HasField("result"):
                result.outcome = OUTCOMES.get(player.result, 0)
        # A game that reports `ended` without player_result has ended all the same; waiting for a result
        # that never comes would repeat the last observation forever.
        result.terminated = bool(response.player_result) or controller.status == sc_pb.ended
        index = self._score_index()
        if index >= 0:
            score = score_value(obs, index)
            result.reward = score - self._last_score
            self._last_score = score
        elif result.terminated:
            result.reward = float(result.outcome)
        result.reward *= cfg.score_multiplier
        cap = cfg.max_game_loops
        if cap is None:
            cap = (spec.game_loops + _TIMER_MARGIN_LOOPS) if spec.game_loops else DEFAULT_MAX_GAME_LOOPS
        result.truncated = not result.terminated and obs.game_loop - self._start_loop >= cap
        limit = spec.game_loops
        result.timed_out = (
            result.terminated and limit is not None and obs.game_loop - self._start_loop >= limit
        )
        return result

    def _lose(self, error: errors.ConnectionError) -> None:
        """The game is gone (or its connection is of no more use): say so, until reset() or close()."""
        if self.state in _CONNECTED:
            self.lost_because = type(error).__name__
            self._lifecycle.to(MatchState.LOST)
