"""The ports two players' game processes link over: picked free, filled into join_game, given back."""

from __future__ import annotations

import dataclasses

from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env.launch.workspace import pick_port, return_port


@dataclasses.dataclass(frozen=True)
class JoinPorts:
    """`server_ports` and `client_ports` of RequestJoinGame: the same for both players of one game.

    The host's game process listens on `server_game`; the other player's connects there (the real game also
    uses the base ports and the client pair, which the built-in engine only checks are given).
    """

    server_game: int
    server_base: int
    client_game: int
    client_base: int

    @classmethod
    def pick(cls) -> JoinPorts:
        """Four free ports (give them back with release() once the game's processes are gone)."""
        return cls(pick_port(), pick_port(), pick_port(), pick_port())

    def fill(self, join: sc_pb.RequestJoinGame) -> sc_pb.RequestJoinGame:
        """`join` with these ports in it (changed in place, and returned)."""
        join.server_ports.game_port, join.server_ports.base_port = self.server_game, self.server_base
        join.client_ports.add(game_port=self.client_game, base_port=self.client_base)
        return join

    def release(self) -> None:
        for port in dataclasses.astuple(self):
            return_port(port)
