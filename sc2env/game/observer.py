"""An observer of a game of two agents: its own game process, joined to watch one player or the whole map."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Iterable

from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env import errors
from sc2env.client import Controller
from sc2env.client.protocol import IN_A_GAME
from sc2env.client.requests import Answers
from sc2env.game.join_ports import JoinPorts
from sc2env.game.match import stop_game
from sc2env.interface import InterfaceFormat, Observation, ObservationDecoder
from sc2env.launch import GameProcess, LaunchConfig, launch_plan, plan_launch

log = logging.getLogger(__name__)

EVERYONE = 0
"""observed_player_id 0: the whole map (the built-in engine shows it without fog)."""


def _default_interface() -> InterfaceFormat:
    return InterfaceFormat(screen_size=64, minimap_size=64)


@dataclasses.dataclass(frozen=True)
class ObserverConfig:
    """One observer of a TwoPlayerGame.

    observed_player_id: 1 or 2 watches that player: its view, its fog, its units as Self; 0 (EVERYONE) the
                        whole map, which the built-in engine shows unfogged from player 1's side.
    interface:          what the observer is sent, as an agent's InterfaceFormat says it (feature layers,
                        RGB, raw units); its action options play no part.
    """

    observed_player_id: int = EVERYONE
    interface: InterfaceFormat = dataclasses.field(default_factory=_default_interface)

    def __post_init__(self) -> None:
        if isinstance(self.observed_player_id, bool) or self.observed_player_id not in (EVERYONE, 1, 2):
            raise ValueError(
                f"observed_player_id must be 1 or 2 (that player's view) or 0 (the whole map), not "
                f"{self.observed_player_id!r}"
            )
        if not isinstance(self.interface, InterfaceFormat):
            raise TypeError(
                f"interface must be an sc2env.interface.InterfaceFormat, e.g. InterfaceFormat(screen_size=64, "
                f"minimap_size=64), not {self.interface!r}"
            )


class ObserverSeat:
    """An observer's game process and connection in a TwoPlayerGame, which joins, steps and stops it.

    `observation` is its last ResponseObservation (None before the first reset), `observe()` the same decoded
    (feature layers, RGB as its interface says). Once its process is lost, `lost_because` says why and the
    game goes on without it; the next reset() of its TwoPlayerGame starts it anew. Not thread-safe.
    """

    def __init__(self, number: int, config: ObserverConfig, launch: LaunchConfig, request_timeout_s: float):
        self.number = number
        self.config = config
        self.launch = launch
        self.request_timeout_s = request_timeout_s
        self.process: GameProcess | None = None
        self.controller: Controller | None = None
        self.player_id = 0
        """The id the game gave it (after the players')."""
        self.observation: sc_pb.ResponseObservation | None = None
        self.game_info: sc_pb.ResponseGameInfo | None = None
        self.lost_because = ""
        self._decoder: ObservationDecoder | None = None

    @property
    def name(self) -> str:
        return f"observer {self.number}"

    @property
    def running(self) -> bool:
        controller, process = self.controller, self.process
        return controller is not None and not controller.closed and process is not None and process.running

    @property
    def status(self) -> int | None:
        return self.controller.status if self.controller is not None else None

    def reset(self, ports: JoinPorts) -> sc_pb.ResponseObservation:
        """Join the game the host created (starting the process if need be), or restart it with the players;
        the first observation."""
        if not self.running:
            self._start()
        controller = self.controller
        assert controller is not None  # started
        controller.abandon_pending()  # a step a Ctrl-C cut off
        controller.read_unread()
        if controller.status in IN_A_GAME:
            controller.restart_game()
        else:
            join = sc_pb.RequestJoinGame(
                observed_player_id=self.config.observed_player_id,
                options=self.config.interface.to_interface_options(),
                player_name=self.name,
            )
            self.player_id = controller.join_game(ports.fill(join)).player_id
            self.game_info = controller.game_info()
            self._decoder = ObservationDecoder(self.config.interface, self.game_info)
        self.lost_because = ""
        self.observation = controller.observation()
        return self.observation

    def leave(self) -> None:
        """Leave the game (before the host creates a new one)."""
        if self.running and self.status in IN_A_GAME:
            assert self.controller is not None  # running
            self.controller.leave_game()

    def begin_step(self, count: int) -> Answers | None:
        """Send its step and observation (only the observation once the game ended); None when lost."""
        if not self.running:
            return None
        controller = self.controller
        assert controller is not None  # running
        try:
            controller.abandon_pending()
            controller.read_unread()
            steps = [("step", sc_pb.RequestStep(count=count))] if controller.status == sc_pb.in_game else []
            return controller.begin([*steps, ("observation", sc_pb.RequestObservation())])
        except errors.ConnectionError as error:
            self.lose(error)
            return None

    def finish_step(self, sent: Answers) -> sc_pb.ResponseObservation | None:
        """Read the step's answers: the new observation, or None when its process was lost meanwhile."""
        try:
            answers = sent.finish()
        except errors.ConnectionError as error:
            self.lose(error)
            return None
        self.observation = answers[-1]
        return self.observation

    def act(self, actions: Iterable[sc_pb.ObserverAction]) -> None:
        """Move its camera or switch whose view it sees (ObserverAction camera_move, player_perspective)."""
        if not self.running:
            raise errors.GameCrashedError(f"{self.name}'s game process is gone ({self.lost_because})")
        assert self.controller is not None  # running
        self.controller.obs_action(actions)

    def observe(self) -> Observation:
        """The last observation, decoded as its interface says (feature_screen, rgb_screen, ...)."""
        if self.observation is None or self._decoder is None:
            raise errors.ProtocolError(f"{self.name} has no observation yet: reset() the game first")
        return self._decoder.decode(self.observation)

    def lose(self, error: Exception) -> None:
        """Its process or connection is gone: stop it; the players go on without it."""
        self.lost_because = f"{type(error).__name__}: {error}"
        log.warning("%s was lost (%s); the players go on without it", self.name, self.lost_because)
        self.close()

    def close(self) -> None:
        """Quit its game and stop its process. Idempotent."""
        controller, process = self.controller, self.process
        self.controller = self.process = None
        stop_game(controller, process)

    def _start(self) -> None:
        self.close()
        process = launch_plan(plan_launch(self.launch))
        try:
            self.controller = Controller(process, timeout_s=self.request_timeout_s)
        except BaseException:
            process.close()
            raise
        self.process = process

    def __repr__(self) -> str:
        return f"<ObserverSeat {self.number} of player {self.config.observed_player_id} {self.status}>"
