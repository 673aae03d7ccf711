"""A two-player game shared by its players' sessions: joining, lock-step steps and restarts, leaving."""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass

from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env.engine.game import Game, Interface, Joining
from sc2env.engine.mapdef import MapDefinition, PlayerSlot

# What a seat's waiting request is completed with once the match releases it: it fills in the Response (the
# step's loop, the join's player id, an error) and the session serializes it.
Completion = Callable[[sc_pb.Response], None]
Release = Callable[[Completion], None]


class Barrier(enum.Enum):
    """What a seat waits for the other players to ask too before the game moves."""

    JOIN = "join_game"
    STEP = "step"
    RESTART = "restart_game"


@dataclass
class _Waiting:
    barrier: Barrier
    release: Release
    count: int = 0  # loops still to run (steps)


class Match:
    """One multiplayer game on this engine: the players' sessions join it, and it runs the Game in lock-step.

    A game loop runs only when every member (player and observer) has asked for it: a `step(count)` waits
    until each other member has a step pending, then the game advances by the smallest count left and those
    whose count is used up get their answer. `restart_game` and `join_game` wait for every member the same
    way. A player leaving concedes (the others win); a player whose engine is gone (`lost`) ends the game
    undecided and the others' waiting requests are answered with an error naming it. An observer leaving or
    lost ends nothing: the others stop waiting for it.
    """

    def __init__(
        self,
        definition: MapDefinition,
        seed: int | None,
        disable_fog: bool,
        participants: int,
        observers: int = 0,
    ) -> None:
        self.definition = definition
        self.seed = seed
        self.disable_fog = disable_fog
        self.participants = participants
        self.observers = (
            observers  # observer seats still expected or taken (one lost before the start frees it)
        )
        self.game: Game | None = None
        self._joining: list[Joining] = []
        self._observing: list[int] = []  # the observers' ids, in joining order
        self._next_observer = len(definition.players) + 1  # observers take the ids after the map's slots
        self._waiting: dict[int, _Waiting] = {}
        self._gone: set[int] = set()  # players and observers who left or were lost
        self.lost_reason = ""

    @property
    def next_slot(self) -> PlayerSlot:
        """The map slot the next player to join takes."""
        return self.definition.players[len(self._joining)]

    @property
    def free_slots(self) -> int:
        """Seats (players' and observers') nobody has joined yet."""
        return self.free_player_slots + self.free_observer_slots

    @property
    def free_player_slots(self) -> int:
        return self.participants - len(self._joining)

    @property
    def free_observer_slots(self) -> int:
        return self.observers - len(self._observing)

    @property
    def player_ids(self) -> list[int]:
        """The players' ids (map slots), in joining order."""
        return [j.player_id for j in self._joining]

    def is_observer(self, member: int) -> bool:
        return member in self._observing

    def join(self, interface: Interface, race: int, name: str, release: Release) -> int:
        """Take the next free slot of the map (in joining order); the answer waits for every player."""
        seat = Joining(self.next_slot.player_id, interface, race, name)
        self._joining.append(seat)
        self._waiting[seat.player_id] = _Waiting(Barrier.JOIN, release)
        self._start_when_all_joined()
        return seat.player_id

    def observe(self, release: Release) -> int:
        """Take a free observer seat; its id (after the map's players'). The answer waits for every player."""
        member = self._next_observer
        self._next_observer += 1
        self._observing.append(member)
        self._waiting[member] = _Waiting(Barrier.JOIN, release)
        self._start_when_all_joined()
        return member

    def _start_when_all_joined(self) -> None:
        if self.game is None and not self.free_slots and self._joining:
            game = Game(self.definition, self.seed, False, self.disable_fog)
            game.join_all(self._joining)
            self.game = game
            self._release_all(_nothing)

    def step(self, player_id: int, count: int, release: Release) -> None:
        """Ask for `count` loops; answered (through `release`) when they have run or the game ended."""
        self._waiting[player_id] = _Waiting(Barrier.STEP, release, max(count, 0))
        self._advance()

    def _advance(self) -> None:
        """Run the loops every member has asked for, answering those whose count is used up."""
        game = self._game()
        while not game.ended and self._waiting and self._all_waiting(Barrier.STEP):
            run = min(w.count for w in self._waiting.values())
            if run > 0:
                game.step(run)
            for pid, waiting in list(self._waiting.items()):
                waiting.count -= run
                if waiting.count <= 0:
                    del self._waiting[pid]
                    waiting.release(_nothing)
            if not self._waiting:
                break
        if game.ended:
            self._release_all(_nothing)

    def restart(self, player_id: int, release: Release) -> str:
        """Ask for a restart; it happens when every player has asked. "" or why it can't be asked now."""
        other = [
            w for pid, w in self._waiting.items() if pid != player_id and w.barrier is not Barrier.RESTART
        ]
        if other:
            return (
                "restart_game: another player is waiting on a step; in a two-player game every player asks for "
                "the restart (and no step is pending) before the game restarts"
            )
        self._waiting[player_id] = _Waiting(Barrier.RESTART, release)
        self._restart_when_all_asked()
        return ""

    def _restart_when_all_asked(self) -> None:
        if self._waiting and self._all_waiting(Barrier.RESTART):
            self._game().restart()
            self._release_all(_nothing)

    def leave(self, player_id: int) -> None:
        """The player leaves: an unfinished game is conceded (the other players win). Every waiting request is
        answered, the leaver's own too (it quits or leaves while a step of its waits). An observer leaving
        concedes nothing: the players go on without it."""
        if self.is_observer(player_id):
            before = "" if self.game is not None else f"observer {player_id} left before the game began"
            self._observer_gone(player_id, _failed(before) if before else _nothing)
            return
        game = self.game
        if game is not None and not game.ended and player_id not in self._gone:
            first = self.definition.players[0].player_id
            game.result = sc_pb.Defeat if player_id == first else sc_pb.Victory
        self._gone.add(player_id)
        self._release_all(
            _nothing if game is not None else _failed(f"player {player_id} left before the game began")
        )

    def lost(self, player_id: int, reason: str) -> None:
        """The player's engine or link is gone without leaving: the game ends undecided; waiting requests get
        `reason` as their error (the lost player's own too: the host that cannot listen for the other player
        answers its own join with why). A lost observer ends nothing: the players go on without it."""
        if player_id in self._gone:
            return
        if self.is_observer(player_id):
            self._observer_gone(player_id, _failed(reason))
            return
        self._gone.add(player_id)
        self.lost_reason = reason
        game = self.game
        if game is not None and not game.ended:
            game.result = sc_pb.Undecided
        self._release_all(_failed(reason))

    def _observer_gone(self, member: int, completion: Completion) -> None:
        """An observer left or was lost: its waiting request is answered; the others no longer wait for it (a
        step or restart it held back runs now), and before the start the game no longer expects it."""
        if member in self._gone:
            return
        self._gone.add(member)
        waiting = self._waiting.pop(member, None)
        if waiting is not None:
            waiting.release(completion)
        if self.game is None:
            self._observing.remove(member)
            self._gone.discard(member)
            self.observers -= 1
            self._start_when_all_joined()
            return
        if self._waiting and all(w.barrier is Barrier.STEP for w in self._waiting.values()):
            self._advance()
        elif self._waiting:
            self._restart_when_all_asked()

    def _all_waiting(self, barrier: Barrier) -> bool:
        members = [m for m in (*self.player_ids, *self._observing) if m not in self._gone]
        return all(m in self._waiting and self._waiting[m].barrier is barrier for m in members)

    def _release_all(self, completion: Completion) -> None:
        waiting, self._waiting = self._waiting, {}
        for entry in waiting.values():
            entry.release(completion)

    def _game(self) -> Game:
        if self.game is None:
            raise RuntimeError("the match has no game before every player joined")
        return self.game


def _nothing(response: sc_pb.Response) -> None:
    """The released request's answer needs nothing more than its handler fills in."""


def _failed(reason: str) -> Completion:
    def fail(response: sc_pb.Response) -> None:
        response.error.append(reason)

    return fail
