"""A game of two agents: two seats (a Match and game process each), joined, restarted and stopped together."""

from __future__ import annotations

import contextlib
import dataclasses
import enum
import logging
import os
import signal
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env import errors
from sc2env.client import status_name
from sc2env.game.join_ports import JoinPorts
from sc2env.game.lifecycle import Lifecycle
from sc2env.game.match import Match, MatchState, StepResult
from sc2env.game.match_config import MatchConfig

log = logging.getLogger(__name__)

T = TypeVar("T")
U = TypeVar("U")

_PLAYABLE = (sc_pb.in_game, sc_pb.ended)
"""The statuses a seat restarts from (restart_game); from any other the game is created anew."""
_JOIN_GRACE_S = 10.0
_EXIT_GRACE_S = 2.0
"""How long a refused request waits to see whether the other player's process is exiting (its link closed)."""
_EXIT_POLL_S = 0.05
"""How long the guest seat's thread may take to wind up once its connection was closed under it."""


class GameState(enum.Enum):
    """Where a TwoPlayerGame is in its life; GAME_TRANSITIONS says where it may go from each state."""

    CLOSED = "no game processes: never started, closed, or both stopped after one was lost"
    READY = "both seats' game processes are connected (an episode may be under way: see the seats)"
    LOST = "one seat's game process or connection was lost: both were stopped; reset() starts both anew"


_G = GameState
GAME_TRANSITIONS: dict[GameState, set[GameState]] = {
    _G.CLOSED: {_G.CLOSED, _G.READY},
    _G.READY: {_G.READY, _G.LOST, _G.CLOSED},
    _G.LOST: {_G.LOST, _G.CLOSED},
}


class TwoPlayerGame:
    """Two agents playing each other as on the real game: each seat its own Match (game process and
    connection), the host (seat 1) creating the game, both joining with the same ports, stepping in lock-step.

    reset() starts or restarts both; the caller steps each seat (its `begin_step` then `finish_step`, or
    `step` here), inside `playing()`, which turns one side's crash into a GameCrashedError on the caller's
    side and stops both processes; the next reset() starts both anew. Not thread-safe.
    """

    def __init__(self, host: MatchConfig, guest: MatchConfig):
        for seat, config in enumerate((host, guest), 1):
            if config.seat != seat:
                raise ValueError(f"seat {seat}'s MatchConfig must say seat={seat}, not {config.seat!r}")
        if host.map_name != guest.map_name:
            raise ValueError(f"both seats play one map: {host.map_name!r} and {guest.map_name!r} differ")
        self.seats = (Match(host), Match(guest))
        self.ports: JoinPorts | None = None
        self.lost_because = ""
        """What lost the game (state LOST), as the GameCrashedError said it."""
        self._lifecycle = Lifecycle("TwoPlayerGame", GameState.CLOSED, GAME_TRANSITIONS)

    @property
    def state(self) -> GameState:
        return self._lifecycle.state

    @property
    def host(self) -> Match:
        return self.seats[0]

    @property
    def guest(self) -> Match:
        return self.seats[1]

    # --- episodes ----------------------------------------------------------------------------------

    def prepare(self, recreate: bool) -> None:
        """Get both seats ready for their reset(): new game processes (and ports) if either is gone or lost,
        else both leave the game first when it is to be `recreate`d (a new seed), as PySC2 does."""
        if self.state is not GameState.READY or not all(self._reusable(seat) for seat in self.seats):
            self._restart_processes()
        elif recreate or any(self._status(seat) == sc_pb.launched for seat in self.seats):
            for seat in self.seats:
                assert seat.controller is not None  # running
                if seat.controller.status in _PLAYABLE:  # a seat in `launched` has left already
                    with self.playing():
                        seat.controller.leave_game()
        for seat in self.seats:
            seat.ports = self.ports

    def reset(self, seed: int | None = None) -> tuple[sc_pb.ResponseObservation, sc_pb.ResponseObservation]:
        """Start a new episode for both seats (a new game when `seed` is given) and return their first
        observations: seat 1's, seat 2's."""
        self.prepare(seed is not None)
        return self.together(lambda: self.host.reset(seed), lambda: self.guest.reset(seed))

    def together(self, host_call: Callable[[], T], guest_call: Callable[[], U]) -> tuple[T, U]:
        """Run the two seats' calls at once (the guest's in a thread): each seat's join or restart waits for
        the other's. Either call failing fails both at once: the other seat's game process is stopped (its
        wait would last its whole timeout, for a player that is not coming), so are both games, and
        PlayerJoinError names the player that failed and why; a request the game refused (RequestError)
        is raised as a RequestError naming the player instead. The next reset() starts both anew."""
        guest_answer: list[U] = []
        calls = _Calls()

        def run_guest() -> None:
            try:
                guest_answer.append(guest_call())
            except BaseException as error:  # handed to the caller's thread below
                if calls.failed(2, error):
                    self._interrupt(self.host)
            finally:
                calls.done(2)

        thread = threading.Thread(target=run_guest, name="sc2env-seat-2", daemon=True)
        thread.start()
        try:
            mine = host_call()
        except BaseException as host_error:
            if calls.failed(1, host_error):
                self._interrupt(self.guest)
        finally:
            calls.done(1)
            # The guest's answer follows the host's at once (each waits for the other); after a failure its
            # call was interrupted, and a thread stuck past the grace is a daemon that holds nothing of ours.
            thread.join(None if calls.failure is None else _JOIN_GRACE_S)
        if calls.failure is None:
            return mine, guest_answer[0]
        seat, failure = calls.failure
        self._stop_seats()
        if self.state is GameState.READY:
            self._lifecycle.to(GameState.LOST)
        if not isinstance(failure, Exception):  # a Ctrl-C: both games are stopped; it goes on up as it was
            raise failure
        self.lost_because = (
            f"player {seat} could not join or restart the game ({type(failure).__name__}: {failure})"
        )
        if isinstance(failure, errors.RequestError):
            # The game answered, and refused the player's own request (an interface option it does not
            # serve, ...): a caller that retries crashed games must not retry this one as it is.
            raise errors.RequestError(
                f"{self.lost_because}; the other player's game was stopped with it: fix the request, then "
                "reset() starts both anew",
                request=failure.request,
                error=failure.error,
                details=failure.details,
            ) from failure
        raise errors.PlayerJoinError(
            f"{self.lost_because}; the other player's game was stopped with it, rather than waiting for a "
            "player that was not coming: reset() starts both anew"
        ) from failure

    def step(
        self,
        host_actions: Iterable[sc_pb.Action] = (),
        guest_actions: Iterable[sc_pb.Action] = (),
    ) -> tuple[StepResult, StepResult]:
        """Send both seats' actions, run `step_mul` loops in lock-step, observe both."""
        with self.playing():
            sent = self.host.begin_step(host_actions), self.guest.begin_step(guest_actions)
            return self.host.finish_step(sent[0]), self.guest.finish_step(sent[1])

    @contextlib.contextmanager
    def playing(self) -> Iterator[None]:
        """Around the seats' requests: a lost connection, or a request the game refused because the other
        player's game is gone, stops both games and raises GameCrashedError saying which player's was lost."""
        try:
            yield
        except (errors.ConnectionError, errors.ProtocolError, errors.RequestError) as error:
            gone = self._gone_seats()
            if not gone and not isinstance(error, errors.ConnectionError):
                raise  # both games are there: a refusal like any other, the caller's to read
            who = " and ".join(f"player {n}" for n in gone) or "a player"
            self.lost_because = f"{who}'s game was lost ({type(error).__name__}: {error})"
            self._stop_seats()
            if self.state is GameState.READY:
                self._lifecycle.to(GameState.LOST)
            raise errors.GameCrashedError(
                f"{self.lost_because}; the game is over for both players: reset() starts both anew"
            ) from error

    def save_replay(self) -> bytes:
        """The game's replay (the host's: either player's holds the whole game, each player's actions)."""
        with self.playing():
            return self.host.save_replay()

    def close(self) -> None:
        """Quit both games and stop their processes. Idempotent."""
        try:
            for seat in self.seats:
                seat.close()
        finally:
            self._lifecycle.to(GameState.CLOSED)
            ports, self.ports = self.ports, None
            if ports is not None:
                ports.release()

    def __enter__(self) -> TwoPlayerGame:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    # --- internals ---------------------------------------------------------------------------------

    def _restart_processes(self) -> None:
        self.close()
        log.info("starting both players' games")
        self.ports = JoinPorts.pick()
        self._lifecycle.to(GameState.READY)

    def _interrupt(self, seat: Match) -> None:
        """End the seat's call under way now (from the other seat's thread): its game process is killed, so
        its connection drops; both games are stopped afterwards by the caller's thread."""
        process = seat.process
        if process is not None and process.running:
            with contextlib.suppress(ProcessLookupError):
                os.kill(process.pid, signal.SIGKILL)

    def _stop_seats(self) -> None:
        """Stop both game processes now; the seats stay as they are (LOST, or CLOSED) until reset()."""
        for seat in self.seats:
            seat.stop_lost_game()

    def _gone_seats(self) -> list[int]:
        """The seats whose game is gone. A refusal can come before the other process is seen to exit (the
        host's engine sees its link close first): give its exit a moment to show before calling it a refusal."""
        deadline = time.monotonic() + _EXIT_GRACE_S
        while True:
            gone = [number for number, seat in enumerate(self.seats, 1) if not self._alive(seat)]
            if gone or time.monotonic() >= deadline:
                return gone
            for seat in self.seats:
                if seat.process is not None:
                    seat.process.wait(_EXIT_POLL_S)

    @staticmethod
    def _alive(seat: Match) -> bool:
        return seat.running and seat.state is not MatchState.LOST

    @staticmethod
    def _status(seat: Match) -> int | None:
        return seat.controller.status if seat.controller is not None else None

    @staticmethod
    def _reusable(seat: Match) -> bool:
        # A step cut short (Ctrl-C between the two seats' sends) leaves one seat's step waiting for the other's
        # forever: such a pair is not reused, but started anew.
        return (
            TwoPlayerGame._alive(seat)
            and seat.state is not MatchState.STEPPING
            and TwoPlayerGame._status(seat) in (*_PLAYABLE, sc_pb.launched)
        )

    def __repr__(self) -> str:
        statuses = ", ".join(
            "none" if (status := self._status(seat)) is None else status_name(status) for seat in self.seats
        )
        return f"<TwoPlayerGame {self.state.name} ({statuses})>"


class _Calls:
    """The two seats' calls of `together`: which are still under way, and the first to fail (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running = {1, 2}
        self.failure: tuple[int, BaseException] | None = None

    def failed(self, seat: int, error: BaseException) -> bool:
        """Note the seat's failure (the first one is the cause); whether the other seat's call is still under
        way (and must be interrupted)."""
        with self._lock:
            if self.failure is None:
                self.failure = (seat, error)
            return (3 - seat) in self._running

    def done(self, seat: int) -> None:
        with self._lock:
            self._running.discard(seat)


def seat_configs(config: MatchConfig, guest_race: str | None = None) -> tuple[MatchConfig, MatchConfig]:
    """Seat 1's and seat 2's MatchConfig from one: the same but for the seat, and the guest's race (None:
    the map's for slot 2, else the host's)."""
    from sc2env.game.map_races import slot_race

    race = guest_race or (slot_race(config.map_name, 2) or config.race).lower()
    return dataclasses.replace(config, seat=1), dataclasses.replace(config, seat=2, race=race)
