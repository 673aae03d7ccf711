"""The one seam between the SMAC env and a game: what it asks of the game, and that asked over the SC2 API."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from s2clientprotocol import debug_pb2
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env import errors
from sc2env.game.match import Match
from sc2env.game.match_config import Bot, MatchConfig
from sc2env.launch import LaunchConfig
from sc2env.mapfiles import MAX_GAME_LOOPS
from sc2env.smac.scenarios import Scenario


class SmacGame(Protocol):
    """What the SMAC env needs of a game; `SocketGame` gives it over the SC2 API."""

    @property
    def running(self) -> bool:
        """A game is up and answering (False before start() and after a crash or close())."""

    @property
    def game_info(self) -> sc_pb.ResponseGameInfo: ...

    def start(self, seed: int | None) -> sc_pb.ResponseObservation:
        """Create a new game (a new process if need be), join it, and observe."""

    def act_step_observe(self, actions: sc_pb.RequestAction) -> sc_pb.ResponseObservation:
        """Send the actions, advance the game by one agent step (its step_mul), observe."""

    def step_observe(self, count: int) -> sc_pb.ResponseObservation:
        """Advance `count` game loops and observe."""

    def kill(self, tags: Iterable[int]) -> None:
        """Remove these units at once (the debug command)."""

    def create_units(self, units: Iterable[tuple[int, int, float, float]]) -> None:
        """Create units of (unit type, owner, x, y) (the debug command)."""

    def unit_type_count(self) -> int:
        """How many unit types the game's data lists."""

    def save_replay(self) -> bytes: ...

    def close(self) -> None: ...


class SocketGame:
    """A SMAC scenario played over the SC2 API through sc2env's Match: StarCraft II, or the built-in engine in
    its own process or in this one (direct mode, `launch.direct`), with the same answers either way.

    As SMAC: the agents join with raw observations only (no score, no feature layers), and the enemy is the
    game's built-in AI of the scenario's race at `difficulty` (one of sc2env.game's DIFFICULTIES).
    """

    def __init__(
        self,
        scenario: Scenario,
        launch: LaunchConfig,
        difficulty: str,
        step_mul: int,
        request_timeout_s: float = 120.0,
    ) -> None:
        self.match = Match(
            MatchConfig(
                map_name=scenario.map_file,
                interface_options=sc_pb.InterfaceOptions(raw=True, score=False),
                launch=launch,
                step_mul=step_mul,
                race=scenario.agent_race.game_name,
                bot=Bot(race=scenario.enemy_race.game_name, difficulty=difficulty),
                # SMAC's maps have no time limit and the env counts its own steps: no safety cap here.
                max_game_loops=MAX_GAME_LOOPS,
                request_timeout_s=request_timeout_s,
            )
        )

    @property
    def running(self) -> bool:
        return self.match.running and not self.match.episode_over

    @property
    def game_info(self) -> sc_pb.ResponseGameInfo:
        if self.match.game_info is None:
            raise errors.ProtocolError("the game has not been started")
        return self.match.game_info

    def start(self, seed: int | None) -> sc_pb.ResponseObservation:
        self.match.close()  # a new game each time: a new seed, or after a crash
        return self.match.reset(seed)

    def act_step_observe(self, actions: sc_pb.RequestAction) -> sc_pb.ResponseObservation:
        return self.match.step(actions).observation

    def step_observe(self, count: int) -> sc_pb.ResponseObservation:
        controller = self._controller()
        controller.step(count)
        return controller.observation()

    def kill(self, tags: Iterable[int]) -> None:
        command = debug_pb2.DebugCommand(kill_unit=debug_pb2.DebugKillUnit(tag=list(tags)))
        self._controller().debug([command])

    def create_units(self, units: Iterable[tuple[int, int, float, float]]) -> None:
        commands = []
        for unit_type, owner, x, y in units:
            create = debug_pb2.DebugCreateUnit(unit_type=unit_type, owner=owner, quantity=1)
            create.pos.x, create.pos.y = x, y
            commands.append(debug_pb2.DebugCommand(create_unit=create))
        self._controller().debug(commands)

    def unit_type_count(self) -> int:
        return len(
            self._controller().data(ability_id=False, upgrade_id=False, buff_id=False, effect_id=False).units
        )

    def save_replay(self) -> bytes:
        return self.match.save_replay()

    def close(self) -> None:
        self.match.close()

    def _controller(self):
        controller = self.match.controller
        if controller is None or not self.match.running:
            raise errors.ProtocolError("the game is not running: reset() starts one")
        return controller
