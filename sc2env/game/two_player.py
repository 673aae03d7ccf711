"""A game of two agents: two seats (a Match and game process each), joined, restarted and stopped together;
optional observers (a game process each) watch it in lock-step."""

from __future__ import annotations

import contextlib
import dataclasses
import enum
import functools
import logging
import os
import signal
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TypeVar

from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env import errors
from sc2env.client import status_name
from sc2env.client.protocol import IN_A_GAME
from sc2env.client.requests import Answers
from sc2env.game.join_ports import JoinPorts
from sc2env.game.lifecycle import Lifecycle
from sc2env.game.match import Match, MatchState, StepResult
from sc2env.game.match_config import MatchConfig
from sc2env.game.observer import ObserverConfig, ObserverSeat

log = logging.getLogger(__name__)

T = TypeVar("T")
U = TypeVar("U")

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

    `observers` (ObserverConfig each) watch the game, each through a game process of its own joined with
    the players' ports: reset() joins or restarts them with the players and `step` steps them in lock-step
    (the game waits for them too); `observers[i].observation` is the last one's. An observer whose process is
    lost is stopped and the players go on; the next reset() creates the game anew with it.
    """

    def __init__(self, host: MatchConfig, guest: MatchConfig, observers: Sequence[ObserverConfig] = ()):
        for seat, config in enumerate((host, guest), 1):
            if config.seat != seat:
                raise ValueError(f"seat {seat}'s MatchConfig must say seat={seat}, not {config.seat!r}")
        if host.map_name != guest.map_name:
            raise ValueError(f"both seats play one map: {host.map_name!r} and {guest.map_name!r} differ")
        for watcher in observers:
            if not isinstance(watcher, ObserverConfig):
                raise TypeError(f"observers are sc2env.game.ObserverConfig, not {watcher!r}")
        host = dataclasses.replace(host, observers=len(observers))
        self.seats = (Match(host), Match(guest))
        self.observers = tuple(
            ObserverSeat(n, config, host.launch, host.request_timeout_s)
            for n, config in enumerate(observers, 1)
        )
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
        elif (
            recreate
            or any(self._status(seat) == sc_pb.launched for seat in self.seats)
            # A lost observer's new process can't join a game under way: the game is created anew for it.
            or any(observer.status not in IN_A_GAME for observer in self.observers)
        ):
            for seat in self.seats:
                assert seat.controller is not None  # running
                if seat.controller.status in IN_A_GAME:  # a seat in `launched` has left already
                    with self.playing():
                        seat.controller.leave_game()
            for observer in self.observers:
                self._watch(observer, observer.leave)
        for seat in self.seats:
            seat.ports = self.ports

    def reset(self, seed: int | None = None) -> tuple[sc_pb.ResponseObservation, sc_pb.ResponseObservation]:
        """Start a new episode for both seats (a new game when `seed` is given) and return their first
        observations: seat 1's, seat 2's."""
        self.prepare(seed is not None)
        return self.together(lambda: self.host.reset(seed), lambda: self.guest.reset(seed))

    def together(self, host_call: Callable[[], T], guest_call: Callable[[], U]) -> tuple[T, U]:
        """Run the two seats' calls at once (the guest's in a thread), and the observers' join or restart
        (each in a thread): each seat's join or restart waits for the others'. Any call failing fails all at
        once: the other game processes are stopped (their wait would last its whole timeout, for a player
        that is not coming), and PlayerJoinError names the player (or observer) that failed and why; a
        request the game refused (RequestError) is raised as a RequestError naming it instead. The next
        reset() starts them all anew."""
        guest_answer: list[U] = []
        members = 2 + len(self.observers)
        calls = _Calls(members)

        def run(member: int, call: Callable[[], object]) -> None:
            try:
                answer = call()
                if member == 2:
                    guest_answer.append(answer)  # type: ignore[arg-type]  # the guest's call answers a U
            except BaseException as error:  # handed to the caller's thread below
                for other in calls.failed(member, error):
                    self._interrupt(self._process_of(other))
            finally:
                calls.done(member)

        others: list[tuple[int, Callable[[], object]]] = [(2, guest_call)]
        for number, observer in enumerate(self.observers, 3):
            others.append((number, functools.partial(self._join_observer, observer)))
        threads = [
            threading.Thread(target=run, args=(member, call), name=f"sc2env-seat-{member}", daemon=True)
            for member, call in others
        ]
        for thread in threads:
            thread.start()
        try:
            mine = host_call()
        except BaseException as host_error:
            for other in calls.failed(1, host_error):
                self._interrupt(self._process_of(other))
        finally:
            calls.done(1)
            # The others' answers follow the host's at once (each waits for the rest); after a failure their
            # calls were interrupted, and a thread stuck past the grace is a daemon that holds nothing of ours.
            for thread in threads:
                thread.join(None if calls.failure is None else _JOIN_GRACE_S)
        if calls.failure is None:
            return mine, guest_answer[0]
        member, failure = calls.failure
        self._stop_seats()
        if self.state is GameState.READY:
            self._lifecycle.to(GameState.LOST)
        if not isinstance(failure, Exception):  # a Ctrl-C: both games are stopped; it goes on up as it was
            raise failure
        self.lost_because = (
            f"{self._who(member)} could not join or restart the game ({type(failure).__name__}: {failure})"
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
        """Send both seats' actions, run `step_mul` loops in lock-step, observe both (and the observers, whose
        observations are then their `observation`)."""
        with self.playing():
            sent = self.host.begin_step(host_actions), self.guest.begin_step(guest_actions)
            watching = self.begin_watching()
            results = self.host.finish_step(sent[0]), self.guest.finish_step(sent[1])
            self.finish_watching(watching)
            return results

    def _join_observer(self, observer: ObserverSeat) -> sc_pb.ResponseObservation:
        if self.ports is None:
            raise errors.ProtocolError("observers join with the players' ports: call prepare() first")
        return observer.reset(self.ports)

    def begin_watching(self) -> list[tuple[ObserverSeat, Answers]]:
        """Send each observer's step of `step_mul` loops and its observation (the players' steps wait for
        them); an observer whose process is lost is stopped, and the players go on without it."""
        count = self.host.config.step_mul
        watching = []
        for observer in self.observers:
            sent = observer.begin_step(count)
            if sent is not None:
                watching.append((observer, sent))
        return watching

    def finish_watching(self, watching: list[tuple[ObserverSeat, Answers]]) -> None:
        """Read the observers' answers to begin_watching()'s step."""
        for observer, sent in watching:
            observer.finish_step(sent)

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
        """Quit both games (and the observers') and stop their processes. Idempotent."""
        try:
            for observer in self.observers:
                observer.close()
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

    def _interrupt(self, process) -> None:
        """End the call under way on this game process now (from another member's thread): the process is
        killed, so its connection drops; every game is stopped afterwards by the caller's thread."""
        if process is not None and process.running:
            with contextlib.suppress(ProcessLookupError):
                os.kill(process.pid, signal.SIGKILL)

    def _stop_seats(self) -> None:
        """Stop both game processes now (and the observers', which watch a game that is over); the seats stay
        as they are (LOST, or CLOSED) until reset()."""
        for observer in self.observers:
            observer.close()
        for seat in self.seats:
            seat.stop_lost_game()

    def _process_of(self, member: int):
        """The game process of member 1 or 2 (a seat) or 3, 4, ... (the observers, in order)."""
        if member <= 2:
            return self.seats[member - 1].process
        return self.observers[member - 3].process

    def _who(self, member: int) -> str:
        return f"player {member}" if member <= 2 else self.observers[member - 3].name

    @staticmethod
    def _watch(observer: ObserverSeat, call: Callable[[], object]) -> None:
        """An observer's request that may find it lost: it is stopped, and the players go on."""
        try:
            call()
        except errors.ConnectionError as error:
            observer.lose(error)

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
            and TwoPlayerGame._status(seat) in (*IN_A_GAME, sc_pb.launched)
        )

    def __repr__(self) -> str:
        statuses = ", ".join(
            "none" if (status := self._status(seat)) is None else status_name(status) for seat in self.seats
        )
        return f"<TwoPlayerGame {self.state.name} ({statuses})>"


class _Calls:
    """The calls of `together` (members 1 and 2 the seats, then the observers): which are still under way, and
    the first to fail (thread-safe)."""

    def __init__(self, members: int) -> None:
        self._lock = threading.Lock()
        self._running = set(range(1, members + 1))
        self.failure: tuple[int, BaseException] | None = None

    def failed(self, member: int, error: BaseException) -> list[int]:
        """Note the member's failure (the first one is the cause); the other members whose calls are still
        under way (and must be interrupted)."""
        with self._lock:
            if self.failure is None:
                self.failure = (member, error)
            return sorted(self._running - {member})

    def done(self, member: int) -> None:
        with self._lock:
            self._running.discard(member)


def seat_configs(config: MatchConfig, guest_race: str | None = None) -> tuple[MatchConfig, MatchConfig]:
    """Seat 1's and seat 2's MatchConfig from one: the same but for the seat, and the guest's race (None:
    the map's for slot 2, else the host's)."""
    from sc2env.game.map_races import slot_race

    race = guest_race or (slot_race(config.map_name, 2) or config.race).lower()
    return dataclasses.replace(config, seat=1), dataclasses.replace(config, seat=2, race=race)
