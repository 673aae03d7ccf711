"""Watching a replay: a fresh Game fed the recorded actions and steps, shown through the watcher's eyes."""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Iterator
from typing import Literal

from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env.engine.frame import FrameCache
from sc2env.engine.game import Game, Interface, Joining, clock_loop
from sc2env.engine.mapdef import MapDefinition
from sc2env.engine.render import (
    MINIMAP_LAYERS,
    MINIMAP_LAYERS_FAIR,
    SCREEN_LAYERS,
    LayerRenderer,
    minimap_view,
    screen_view,
)
from sc2env.engine.replay_file import Replay
from sc2env.engine.vision import Vision

Size = tuple[int, int]
_SpatialAction = Literal["action_feature_layer", "action_render"]


class Playback:
    """A replay being watched.

    The game runs with the recording's interface, fog setting and random state, so the recorded feature-layer
    actions land where they did; observations and game_info use the watcher's interface (`observed()`).
    `play(count)` runs the log forward; `over` says the log is used up or the game ended before it.
    """

    def __init__(
        self,
        replay: Replay,
        definition: MapDefinition,
        watcher: Interface,
        disable_fog: bool = False,
        realtime: bool = False,
        record_replay: bool = False,
        observed_player_id: int = 0,
    ) -> None:
        game = Game(definition, replay.seed, replay.realtime, replay.disable_fog)
        game.rng.bit_generator.state = replay.rng_state
        recorded = Interface.from_options(sc_pb.InterfaceOptions.FromString(replay.interface_options))
        if replay.others:
            p = replay.player
            game.join_all(
                [Joining(p.player_id, recorded, p.race_requested, p.name)]
                + [
                    Joining(
                        o.player.player_id,
                        Interface.from_options(sc_pb.InterfaceOptions.FromString(o.interface_options)),
                        o.player.race_requested,
                        o.player.name,
                    )
                    for o in replay.others
                ]
            )
        else:
            game.join(recorded, replay.player.race_requested, replay.player.name)
        if replay.started_at is not None:  # a replay saved while watching is dated as the one watched
            game.episode_started_at = replay.started_at
        if game.player.player_id != replay.player.player_id:
            raise ValueError(
                f"the replay's player {replay.player.player_id} is not the map's player "
                f"{game.player.player_id}"
            )
        self.game = game
        self.replay = replay
        # Whose view the watcher gets (0: the recorded first player's), and that player's recorded interface.
        self.observed_player = observed_player_id or replay.player.player_id
        with game.viewing(self.observed_player):
            recorded = game.interface
        self.realtime = realtime
        self.record_replay = record_replay
        self._log = replay.inputs
        self._next = 0
        # After the last step only actions remain (a replay saved between an action and its step): they are
        # applied when that step is, so a finished replay is in the state the game was in at save time.
        self._last_step = max((n for n, entry in enumerate(self._log) if entry.__class__ is int), default=-1)
        frames = FrameCache()
        with game.viewing(self.observed_player):
            frames.vision = Vision(game.terrain.revealed, fog=False) if disable_fog else game.vision
        cheating = watcher.options.feature_layer.allow_cheating_layers
        self._view = (
            watcher,
            frames,
            frames.vision,
            LayerRenderer(SCREEN_LAYERS, game.terrain),
            LayerRenderer(MINIMAP_LAYERS if cheating else MINIMAP_LAYERS_FAIR, game.terrain),
        )
        self._rescaled = watcher != recorded
        self._wallclock_start = time.monotonic()

    @property
    def finished(self) -> bool:
        return self._next >= len(self._log)

    @property
    def over(self) -> bool:
        """The log is used up, or the game ended before it was (a divergence: see `divergence`)."""
        return self.finished or self.game.ended

    def play(self, count: int) -> None:
        """Run the log until the game loop has advanced by at least `count` or the log ends (a recorded step
        is never split, so the loop may go past)."""
        self.play_until(self.game.game_loop + count)

    def play_until(self, loop: int) -> None:
        game, log = self.game, self._log
        n = self._next
        while n < len(log) and game.game_loop < loop and not game.ended:
            entry = log[n]
            n += 1
            if isinstance(entry, int):
                game.step(entry)
            else:
                self._act(entry)
        if n > self._last_step and not game.ended:
            for entry in log[n:]:
                if not isinstance(entry, int):  # (none is, after the last step)
                    self._act(entry)
            n = len(log)
        self._next = n

    def _act(self, entry: bytes | tuple[int, bytes]) -> None:
        player_id, data = entry if isinstance(entry, tuple) else (self.replay.player.player_id, entry)
        with self.game.viewing(player_id):
            self._act_as(data, player_id == self.observed_player)

    def _act_as(self, data: bytes, watched: bool) -> None:
        game = self.game
        echoes = len(game.echoed_actions)
        # The echo is the watcher's: with raw forms if it has raw data on, whatever the recorded player had.
        game.act(sc_pb.Action.FromString(data), data, raw_echo=self._view[0].options.raw)
        if watched and self._rescaled and len(game.echoed_actions) > echoes:  # shown in the watcher's pixels
            game.echoed_actions[-1] = rescale(
                game.echoed_actions[-1], game.interface, self._view[0], game.definition
            )

    def catch_up_realtime(self, until_loop: int = 0) -> None:
        """In a realtime replay, play what the wall clock has reached (waiting for `until_loop`)."""
        # the recording ends at its save loop: no later loop comes
        due = clock_loop(self._wallclock_start, until_loop, self.replay.game_loop, wait=not self.over)
        self.play_until(due)

    def divergence(self) -> str:
        """Once over: how the game differs from the recording's end ("" when it ends as recorded)."""
        game, replay = self.game, self.replay
        if not self.over or (
            self.finished
            and (game.game_loop, game.result, game.player.score)
            == (replay.game_loop, replay.result, replay.score)
        ):
            return ""
        cut = "" if self.finished else f", {len(self._log) - self._next} of its inputs not played"
        return (
            f"the replay diverged from its recording: recorded to end at game loop {replay.game_loop} "
            f"with result {replay.result} and score {replay.score}, it ended at {game.game_loop} with "
            f"result {game.result} and score {game.player.score}{cut} (a bug in the built-in engine, or an "
            f"edited replay; please report it)"
        )

    @contextlib.contextmanager
    def observed(self) -> Iterator[Game]:
        """The game as the watcher sees it, for one observation or game_info: the watcher's interface, fog
        and layer renderers lent to it.

        The recording's own view (its interface, frame cache and renderers) is kept apart, so the actions
        still to come are hit-tested exactly as they were in the recorded game.
        """
        game = self.game
        with game.viewing(self.observed_player):
            own = (game.interface, game.frames, game.vision, game.screen_layers, game.minimap_layers)
            game.interface, game.frames, game.vision, game.screen_layers, game.minimap_layers = self._view
            try:
                yield game
            finally:
                game.interface, game.frames, game.vision, game.screen_layers, game.minimap_layers = own


def rescale(
    action: sc_pb.Action, recorded: Interface, watcher: Interface, definition: MapDefinition
) -> sc_pb.Action:
    """`action` as the watcher's interface expresses it: each point goes to the watcher's pixel holding the
    same place in the world (the recorded pixel's centre), clamped to the watcher's view (a point beyond it
    lands on its edge). The screens share the camera's centre; their widths and resolutions may differ, as may
    the minimaps' resolutions and cropping. A feature-layer action becomes a render one for a watcher with RGB
    only, and the reverse. Actions either interface can't express are left as they are."""
    kinds: dict[_SpatialAction, tuple[Size | None, Size | None, Size | None, Size | None]] = {
        "action_feature_layer": (recorded.screen, recorded.minimap, watcher.screen, watcher.minimap),
        "action_render": (
            recorded.render_screen,
            recorded.render_minimap,
            watcher.render_screen,
            watcher.render_minimap,
        ),
    }
    source = next((kind for kind in kinds if action.HasField(kind)), None)
    if source is None:
        return action
    # Every kind the watcher can express (both when it has both: its action space is the client's choice).
    targets = [kind for kind in kinds if kinds[kind][2] or kinds[kind][3]]
    if not targets:
        return action
    old_screen, old_minimap = kinds[source][:2]
    out = sc_pb.Action()
    out.CopyFrom(action)
    out.ClearField(source)
    for target in targets:
        getattr(out, target).CopyFrom(getattr(action, source))
        _move_points(
            getattr(out, target), old_screen, old_minimap, *kinds[target][2:], recorded, watcher, definition
        )
    return out


def _move_points(
    spatial,
    old_screen,
    old_minimap,
    new_screen,
    new_minimap,
    recorded: Interface,
    watcher: Interface,
    definition: MapDefinition,
) -> None:
    screen_points, minimap_points = [], []
    kind = spatial.WhichOneof("action")
    if kind == "unit_command":
        cmd = spatial.unit_command
        if cmd.HasField("target_screen_coord"):
            screen_points.append(cmd.target_screen_coord)
        elif cmd.HasField("target_minimap_coord"):
            minimap_points.append(cmd.target_minimap_coord)
    elif kind == "camera_move":
        minimap_points.append(spatial.camera_move.center_minimap)
    elif kind == "unit_selection_point":
        screen_points.append(spatial.unit_selection_point.selection_screen_coord)
    elif kind == "unit_selection_rect":
        for rect in spatial.unit_selection_rect.selection_screen_coord:
            screen_points += [rect.p0, rect.p1]
    views = []
    if screen_points and old_screen and new_screen:
        views.append(
            (
                screen_points,
                screen_view((0.0, 0.0), recorded.width, old_screen),
                screen_view((0.0, 0.0), watcher.width, new_screen),
            )
        )
    if minimap_points and old_minimap and new_minimap:
        views.append(
            (
                minimap_points,
                minimap_view(definition, old_minimap, recorded.crop),
                minimap_view(definition, new_minimap, watcher.crop),
            )
        )
    for points, old, new in views:
        if old == new:
            continue
        for p in points:
            i, j = new.world_to_pixel(*old.pixel_to_world(p.x, p.y))
            p.x = min(max(math.floor(i + 0.5), 0), new.width - 1)
            p.y = min(max(math.floor(j + 0.5), 0), new.height - 1)
