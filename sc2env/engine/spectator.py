"""An observer of a live two-player game: its own interface and camera over a player's view, or the whole map."""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator

from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env.engine.frame import FrameCache
from sc2env.engine.game import Game, Interface
from sc2env.engine.render import (
    MINIMAP_LAYERS,
    MINIMAP_LAYERS_FAIR,
    SCREEN_LAYERS,
    LayerRenderer,
)
from sc2env.engine.vision import Vision

EVERYONE = 0
"""The perspective that shows the whole map without fog (observed_player_id 0)."""


class Spectator:
    """What one observer has of its own: interface, renderers, frame cache, camera and perspective.

    `observed(game)` serves the game as the observer sees it: the perspective's player (units as Self and
    Enemy, player_common, selection) with that player's fog, or everything unfogged from player 1's side for
    EVERYONE; the observer's interface, camera and layers lent in. The players' own views are untouched: an
    observation by the observer takes none of their action errors or echoed actions, and moves no camera.
    """

    def __init__(self, interface: Interface, perspective: int) -> None:
        self.interface = interface
        self.perspective = perspective
        cheating = interface.options.feature_layer.allow_cheating_layers
        self._layers: tuple[LayerRenderer, LayerRenderer] | None = None
        self._cheating = cheating
        self._frames = FrameCache()
        self._everything: Vision | None = None
        self.camera: tuple[float, float] | None = None  # None: the perspective's start, taken at first use
        self._world: object = None  # the world the camera belongs to: a restart puts it back at the start

    def watch(self, perspective: int) -> None:
        """See the game as `perspective` sees it from now on (the camera stays where it is)."""
        if perspective != self.perspective:
            self.perspective = perspective
            self._frames = FrameCache()  # its cached coverage was of the other player's fog

    @contextlib.contextmanager
    def observed(self, game: Game) -> Iterator[Game]:
        """`game` as the observer sees it, for the requests answered inside the block."""
        seats = game.seat_ids
        player_id = self.perspective if self.perspective in seats else seats[0]
        with game.viewing(player_id):
            if self._layers is None:
                self._layers = (
                    LayerRenderer(SCREEN_LAYERS, game.terrain),
                    LayerRenderer(MINIMAP_LAYERS if self._cheating else MINIMAP_LAYERS_FAIR, game.terrain),
                )
            vision = game.vision if self.perspective else self._unfogged(game)
            if self._frames.vision is not vision:
                self._frames = FrameCache()
                self._frames.vision = vision
            if self.camera is None or self._world is not game.world:
                self.camera, self._world = game.player.camera, game.world
            player = game.player
            lent = dict(
                interface=self.interface,
                frames=self._frames,
                vision=vision,
                screen_layers=self._layers[0],
                minimap_layers=self._layers[1],
                action_errors=[],
                echoed_actions=[],
            )
            own = {name: getattr(game, name) for name in lent}
            own_camera = player.camera
            for name, value in lent.items():
                setattr(game, name, value)
            player.camera = self.camera
            try:
                yield game
            finally:
                self.camera = player.camera
                for name, value in own.items():
                    setattr(game, name, value)
                player.camera = own_camera

    def _unfogged(self, game: Game) -> Vision:
        everything = self._everything
        if everything is None or everything.revealed is not game.terrain.revealed:
            everything = self._everything = Vision(game.terrain.revealed, fog=False)
        return everything


def perspective_problem(game_players: list[int], player_id: int) -> str:
    """Why an observer can't watch `player_id` ("" when it can): 0 (everyone) or one of the players."""
    if player_id == EVERYONE or player_id in game_players:
        return ""
    ids = ", ".join(map(str, game_players))
    return (
        f"observed_player_id {player_id}: this game's players are {ids} (0 watches the whole map, unfogged)"
    )


UNSUPPORTED_ACTIONS = {
    "camera_follow_player": "camera_follow_player is not supported by the built-in engine (the real game "
    "does not implement it either); move the camera with camera_move",
    "camera_follow_units": "camera_follow_units is not supported by the built-in engine; move the camera "
    "with camera_move",
}


def apply(spectator: Spectator, game: Game, action: sc_pb.ObserverAction, players: list[int]) -> str:
    """Apply one observer action to `game` as `spectator.observed` shows it (the caller is inside that block);
    "" or why it was not applied."""
    kind = action.WhichOneof("action")
    if kind == "player_perspective":
        problem = perspective_problem(players, action.player_perspective.player_id)
        if problem:
            return f"player_perspective: {problem}"
        spectator.watch(action.player_perspective.player_id)
        return ""
    if kind == "camera_move":
        move = action.camera_move
        if not move.HasField("world_pos") or not (
            math.isfinite(move.world_pos.x) and math.isfinite(move.world_pos.y)
        ):
            return "camera_move needs world_pos, a finite point on the map"
        if not game.move_camera(move.world_pos.x, move.world_pos.y):  # the observer's camera, lent in
            return f"camera_move: {game.definition.name} locks the camera"
        if move.distance:
            return (
                f"camera_move: distance {move.distance:g} is not supported (the camera keeps the width "
                "join_game asked for); the camera moved"
            )
        return ""
    if kind in UNSUPPORTED_ACTIONS:
        return UNSUPPORTED_ACTIONS[kind]
    return "an empty ObserverAction: set player_perspective or camera_move"
