"""One match: start the game, create and join it, restart it per episode, step it in lock-step, score it."""

from __future__ import annotations

import dataclasses
import logging
import math
import numbers
import pathlib
from collections.abc import Iterable, Sequence

from google.protobuf.message import Message
from s2clientprotocol import common_pb2, query_pb2
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env import errors
from sc2env.client import Controller, Pending, status_name
from sc2env.client.connection import DEFAULT_SPIN_WAIT_S
from sc2env.game.maps import (
    MINI_GAMES,
    SMAC_MAPS_FOLDER,
    MapSpec,
    definition_map,
    definition_needs_builtin,
    is_definition_path,
    resolve_map,
)
from sc2env.launch import GameProcess, LaunchConfig, launch_plan, plan_launch
from sc2env.launch.install import USE_BUILTIN

log = logging.getLogger(__name__)

RACES = {
    "terran": common_pb2.Terran,
    "zerg": common_pb2.Zerg,
    "protoss": common_pb2.Protoss,
    "random": common_pb2.Random,
}
DIFFICULTIES = {
    "very_easy": sc_pb.VeryEasy,
    "easy": sc_pb.Easy,
    "medium": sc_pb.Medium,
    "medium_hard": sc_pb.MediumHard,
    "hard": sc_pb.Hard,
    "harder": sc_pb.Harder,
    "very_hard": sc_pb.VeryHard,
    "cheat_vision": sc_pb.CheatVision,
    "cheat_money": sc_pb.CheatMoney,
    "cheat_insane": sc_pb.CheatInsane,
}
BUILDS = {
    "random": sc_pb.RandomBuild,
    "rush": sc_pb.Rush,
    "timing": sc_pb.Timing,
    "power": sc_pb.Power,
    "macro": sc_pb.Macro,
    "air": sc_pb.Air,
}
OUTCOMES = {sc_pb.Victory: 1, sc_pb.Defeat: -1, sc_pb.Tie: 0, sc_pb.Undecided: 0}

# Safety net for maps without a timer of their own: an hour of game time (PySC2 caps at 524,000 loops).
DEFAULT_MAX_GAME_LOOPS = 16 * 3600
# Mini-games end on their own timer; the cap sits a little past it so it only catches a game that never ends.
_TIMER_MARGIN_LOOPS = 16 * 10
_MAP_LOAD_TIMEOUT_S = 300.0


def _choice(table: dict, value: str, what: str) -> int:
    try:
        return table[value.lower()]
    except (KeyError, AttributeError):
        raise ValueError(f"Unknown {what} {value!r}; choose one of {', '.join(table)}.") from None


@dataclasses.dataclass(frozen=True)
class Bot:
    """The game's built-in AI, the opponent on two-player maps (real StarCraft II only)."""

    race: str = "random"
    difficulty: str = "very_easy"
    build: str = "random"

    def __post_init__(self) -> None:
        _choice(RACES, self.race, "bot race")
        _choice(DIFFICULTIES, self.difficulty, "bot difficulty")
        _choice(BUILDS, self.build, "bot build")

    def player_setup(self) -> sc_pb.PlayerSetup:
        return sc_pb.PlayerSetup(
            type=sc_pb.Computer,
            race=_choice(RACES, self.race, "race"),
            difficulty=_choice(DIFFICULTIES, self.difficulty, "difficulty"),
            ai_build=_choice(BUILDS, self.build, "build"),
        )


@dataclasses.dataclass(frozen=True)
class MatchConfig:
    """What to play and how.

    map_name:          a mini-game name, or a map of the install (`Simple64`, a ladder map's name).
    interface_options: the InterfaceOptions sent with join_game (see sc2env.interface.InterfaceFormat).
    step_mul:          game loops per agent step.
    race:              the agent's race.
    bot:               the opponent on two-player maps; None there means Bot() (random, very easy).
    max_game_loops:    a safety cap on episode length; None: the map's timer plus 10 s, else one hour.
    request_timeout_s: how long to wait for any answer of the game before giving up on it.
    """

    map_name: str
    interface_options: sc_pb.InterfaceOptions = dataclasses.field(default_factory=sc_pb.InterfaceOptions)
    launch: LaunchConfig = dataclasses.field(default_factory=LaunchConfig)
    step_mul: int = 8
    race: str = "terran"
    bot: Bot | None = None
    disable_fog: bool = False
    realtime: bool = False
    max_game_loops: int | None = None
    player_name: str = "sc2env"
    request_timeout_s: float = 120.0

    def __post_init__(self) -> None:
        require_count("step_mul", self.step_mul, "game loop")
        require_seconds("request_timeout_s", self.request_timeout_s)
        _choice(RACES, self.race, "race")
        if self.bot is not None and not isinstance(self.bot, Bot):
            raise TypeError(
                f"bot must be an sc2env.game.Bot, e.g. Bot(race='zerg', difficulty='easy'), or None "
                f"(Bot() on two-player maps), not {self.bot!r}"
            )
        if self.bot is not None and _mini_game_name(self.map_name):  # it would be left out without a word
            raise ValueError(
                f"{self.map_name} is a single-player mini-game: bot= sets the opponent on two-player "
                "maps (engine='sc2', e.g. map_name='Simple64'); leave it out here"
            )


def _mini_game_name(map_name: str) -> bool:
    """Whether `map_name` names a mini-game, as resolve_map reads names (any case, a .SC2Map file or path, or
    a definition file)."""
    if is_definition_path(map_name):
        return True
    stem = pathlib.PurePath(map_name).name
    stem = stem[: -len(".SC2Map")] if stem.lower().endswith(".sc2map") else stem
    return stem.lower() in {name.lower() for name in MINI_GAMES}


def stop_game(controller: Controller | None, process: GameProcess | None) -> None:
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


def require_seconds(name: str, value) -> None:
    """Raise ValueError unless `value` is a finite number of seconds above 0."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 < value < math.inf:
        raise ValueError(f"{name} must be a finite number of seconds above 0, not {value!r}")


def require_seed(name: str, value) -> None:
    """Raise ValueError unless `value` is None or a whole number >= 0 (numpy integers too, bools not)."""
    if value is not None and (
        isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0
    ):
        raise ValueError(f"{name} must be a whole number >= 0 or None, not {value!r}")


def require_count(name: str, value, unit: str) -> None:
    """Raise ValueError unless `value` is a whole number of at least 1 (numpy integers too, bools not)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"{name} must be a whole number of at least 1 {unit}, not {value!r}")


@dataclasses.dataclass
class StepResult:
    """One agent step's outcome.

    reward:     the change of `score.score` (mini-games), or the outcome (+1/-1/0) when a melee game ends.
    terminated: the game ended (it reported player_result).
    truncated:  our safety cap on game loops cut the episode.
    outcome:    +1 victory, -1 defeat, 0 tie, undecided or still running.
    """

    observation: sc_pb.ResponseObservation
    reward: float = 0.0
    terminated: bool = False
    truncated: bool = False
    outcome: int = 0
    then: list = dataclasses.field(default_factory=list)
    """The answers to begin_step's `then` requests (empty if they were not sent: the game had ended)."""

    @property
    def game_loop(self) -> int:
        return self.observation.observation.game_loop


class Match:
    """One game process playing one map for as many episodes as asked; not thread-safe.

    The game is started lazily by the first reset(). reset() restarts the map (the fast mini-game reset)
    or, when a new seed is given, creates the game anew with that seed. If the game process died, the next
    reset() starts a new one.
    """

    def __init__(self, config: MatchConfig):
        self.config = config
        self.process: GameProcess | None = None
        self.controller: Controller | None = None
        self.map: MapSpec | None = None
        self.game_info: sc_pb.ResponseGameInfo | None = None
        self.player_id = 1
        self._seed: int | None = None
        self._needs_create = True
        self._start_loop = 0
        self._last_loop = 0
        self._last_score = 0.0
        self._ended = True

    # --- lifecycle -------------------------------------------------------------------------------

    @property
    def episode_over(self) -> bool:
        """No episode is being played: none was started, the last one ended, or its game was lost."""
        return self._ended

    @property
    def running(self) -> bool:
        """The game process is alive and connected."""
        return (
            self.controller is not None
            and not self.controller.closed
            and self.process is not None
            and self.process.running
        )

    def reset(self, seed: int | None = None) -> sc_pb.ResponseObservation:
        """Start a new episode and return its first observation.

        seed: None restarts the current game, the fast mini-game reset (or starts a game that seeds itself);
        a seed creates the game anew with that random seed, so the same seed replays the same episodes.
        A game that died since the last episode is replaced by a new one, created with the last seed.
        """
        if seed is not None:
            self._needs_create = True
        try:
            return self._begin_episode(seed)
        except errors.ConnectionError as error:  # it died since the last step: start a new one, once
            log.warning("the game was lost (%s); starting a new one", error)
            self.close()
            return self._begin_episode(seed)

    def _begin_episode(self, seed: int | None) -> sc_pb.ResponseObservation:
        if not self.running:
            self._start()
        self.controller.abandon_pending()
        self.controller.read_unread()  # after a Ctrl-C: the status the interrupted request left
        status = self.controller.status
        if status in (sc_pb.launched, sc_pb.in_replay):  # no game to restart: create one
            self._needs_create = True
        elif status not in (
            sc_pb.in_game,
            sc_pb.ended,
            sc_pb.init_game,
        ):  # quit, unknown: the game is of no use
            log.warning("the game reported status %s; starting a new one", status_name(status))
            self._start()
        if self.controller.status == sc_pb.init_game:  # a Ctrl-C fell between create_game and join_game:
            self._join()  # joining is the only way on from there; the game is then created anew
            self._needs_create = True
        if self._needs_create:
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
        self._last_score = 0.0
        self._ended = bool(response.player_result)
        return response

    def step(self, actions: sc_pb.RequestAction | Iterable[sc_pb.Action] = ()) -> StepResult:
        """Send the actions, advance `step_mul` game loops and observe; pipelined in one round trip."""
        return self.finish_step(self.begin_step(actions))

    def begin_step(
        self,
        actions: sc_pb.RequestAction | Iterable[sc_pb.Action] = (),
        then: Sequence[tuple[str, Message]] = (),
    ) -> Pending | sc_pb.ResponseObservation:
        """The sending half of step(): the game works on it while the caller does something else. `then`:
        requests to send after the observation in the same round trip (their answers: StepResult.then, None
        for one the game refused)."""
        if self.controller is None or self._ended:
            raise errors.ProtocolError(
                "step() needs a running episode: call reset() first "
                "(the last episode ended or the game was never started)."
            )
        cfg = self.config
        try:
            self.controller.abandon_pending()  # the last step's, if a Ctrl-C came before it read its answers
            self.controller.read_unread()  # after a Ctrl-C: the status of the step it interrupted
            if self.controller.status == sc_pb.ended:
                return self.controller.observation()
            if self.controller.status != sc_pb.in_game:  # the game said something no episode can go on from
                self._ended = True
                raise errors.ProtocolError(
                    f"the game reported status {status_name(self.controller.status)} in the middle of an episode; "
                    "call reset(): it starts the episode anew (a new game if need be)"
                )
            if cfg.realtime:
                self.controller.action(actions)
                return self.controller.begin(
                    [
                        ("observation", sc_pb.RequestObservation(game_loop=self._last_loop + cfg.step_mul)),
                        *then,
                    ],
                    optional=len(then),
                )
            return self.controller.begin_act_step_observe(actions, cfg.step_mul, then=then)
        except errors.ConnectionError:
            self._ended = True  # the game is gone; reset() will start a new one
            raise

    def finish_step(self, sent: Pending | sc_pb.ResponseObservation) -> StepResult:
        """The receiving half of step(): wait for the observation and score it."""
        try:
            answers = [sent] if isinstance(sent, sc_pb.ResponseObservation) else sent.finish()
        except errors.ConnectionError:
            self._ended = True
            raise
        at = next(i for i, answer in enumerate(answers) if isinstance(answer, sc_pb.ResponseObservation))
        result = self._score(answers[at])
        result.then = answers[at + 1 :]
        return result

    def query(self, request: query_pb2.RequestQuery) -> query_pb2.ResponseQuery:
        """Ask the game a query about the episode being played (what units can do, pathing, placement)."""
        if self.controller is None:
            raise errors.ProtocolError("query() needs a game: call reset() first")
        try:
            return self.controller.query(request)
        except errors.ConnectionError:
            self._ended = True
            raise

    def save_replay(self) -> bytes:
        """The replay of the episode being played or just finished, as the game records it (its bytes)."""
        if not self.running:
            raise errors.ProtocolError(
                "save_replay() needs a game: call reset() first (the game was never "
                "started, or it was closed or lost)"
            )
        self.controller.abandon_pending()  # a step a Ctrl-C cut off after sending: its answers come first
        return self.controller.save_replay().data

    def close(self) -> None:
        """Quit the game and stop its process. Idempotent."""
        controller, process = self.controller, self.process
        self.controller = self.process = None
        self._ended = True
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
        self._needs_create = True

    def _create_and_join(self, seed: int | None) -> None:
        cfg, spec = self.config, self.map
        if spec.definition:  # read again: its time limit (the safety cap) as the engine will play it now
            spec = self.map = definition_map(spec.file)
        create = sc_pb.RequestCreateGame(disable_fog=cfg.disable_fog, realtime=cfg.realtime)
        create.local_map.map_path = spec.path
        data = spec.read_data()
        if data is not None:
            create.local_map.map_data = data
        if seed is not None:
            create.random_seed = seed
        create.player_setup.add(type=sc_pb.Participant)
        if not spec.mini_game:
            create.player_setup.append((cfg.bot or Bot()).player_setup())
        log.info("creating %s (seed %s)", spec.name, seed)
        self.controller.create_game(create)
        self._join()
        self._seed = seed
        self._needs_create = False

    def _join(self) -> None:
        cfg = self.config
        join = sc_pb.RequestJoinGame(
            race=RACES[cfg.race.lower()], options=cfg.interface_options, player_name=cfg.player_name[:32]
        )
        self.player_id = self.controller.join_game(join).player_id or 1
        self.game_info = self.controller.game_info()

    def _score(self, response: sc_pb.ResponseObservation) -> StepResult:
        cfg, obs = self.config, response.observation
        self._last_loop = obs.game_loop
        result = StepResult(response)
        for player in response.player_result:
            # An unknown enum value leaves `result` unset, which reads as Victory.
            if player.player_id == self.player_id and player.HasField("result"):
                result.outcome = OUTCOMES.get(player.result, 0)
        # A game that reports `ended` without player_result has ended all the same; waiting for a result
        # that never comes would repeat the last observation forever.
        result.terminated = bool(response.player_result) or self.controller.status == sc_pb.ended
        if self.map.mini_game:
            score = float(obs.score.score)
            result.reward = score - self._last_score
            self._last_score = score
        elif result.terminated:
            result.reward = float(result.outcome)
        cap = cfg.max_game_loops
        if cap is None:
            cap = (
                (self.map.game_loops + _TIMER_MARGIN_LOOPS) if self.map.game_loops else DEFAULT_MAX_GAME_LOOPS
            )
        result.truncated = not result.terminated and obs.game_loop - self._start_loop >= cap
        self._ended = result.terminated or result.truncated
        return result
