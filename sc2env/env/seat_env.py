"""SeatEnv: one player's SC2Env in a game of two agents, playing a seat of a TwoPlayerGame it shares."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from sc2env.env.env import SC2Env
from sc2env.game.map_races import check_race, slot_race
from sc2env.game.match import Match
from sc2env.game.observer import ObserverConfig
from sc2env.game.two_player import TwoPlayerGame


class SeatEnv(SC2Env):
    """An SC2Env (same observation, actions, masks, infos) whose game is seat `seat` of a TwoPlayerGame.

    It is stepped by the owner of the TwoPlayerGame, which resets and steps both seats together (each seat's
    step waits for the other's); alone it would wait forever. `race` None: the map's race for the seat.
    """

    def __init__(self, seat: int, map_name: str, race: str | None = None, **kwargs: Any):
        super().__init__(map_name, **kwargs)
        self.seat = seat
        self.seat_race = (race or slot_race(self.config.map_name, seat) or "terran").lower()
        check_race(self.config.map_name, self.seat_race, seat)

    def seat_config(self):
        """This seat's MatchConfig."""
        base = self.config.match_config(self.interface_format.to_interface_options())
        return dataclasses.replace(base, seat=self.seat, race=self.seat_race)

    def attach(self, game: TwoPlayerGame) -> None:
        """Play the seat of `game` that is this env's (the game was made from seat_config())."""
        self._match = game.seats[self.seat - 1]

    def _ensure_match(self) -> Match:
        if self._match is None:
            raise RuntimeError("a SeatEnv plays a TwoPlayerGame's seat: attach() it to one first")
        return self._match


def two_player_game(host: SeatEnv, guest: SeatEnv, observers: Sequence[ObserverConfig] = ()) -> TwoPlayerGame:
    """The TwoPlayerGame of two seat envs (and `observers`, watching it), attached to both."""
    game = TwoPlayerGame(host.seat_config(), guest.seat_config(), observers)
    host.attach(game)
    guest.attach(game)
    return game
