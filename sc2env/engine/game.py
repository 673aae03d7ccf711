"""One game on the engine: its map, world, players and script; join, restart, step, act and the views."""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env.engine import actions
from sc2env.engine.mapdef import MapDefinition
from sc2env.engine.players import Player
from sc2env.engine.render import (
    MINIMAP_LAYERS,
    SCREEN_LAYERS,
    FrameCache,
    LayerRenderer,
    Terrain,
    View,
    minimap_view,
    screen_view,
)
from sc2env.engine.scenario import RESULTS, Scenario
from sc2env.engine.world import World

# "Faster" game speed: loops per real second in realtime mode.
REALTIME_LOOPS_PER_SECOND = 22.4


@dataclass(frozen=True)
class Interface:
    """What the agent asked for at join: kept as the proto (echoed by game_info) plus parsed sizes."""

    options: sc_pb.InterfaceOptions
    screen: tuple[int, int] | None
    minimap: tuple[int, int] | None
    width: float
    crop: bool
    render_screen: tuple[int, int] | None
    render_minimap: tuple[int, int] | None

    @classmethod
    def from_options(cls, options: sc_pb.InterfaceOptions) -> Interface:
        fl = options.feature_layer if options.HasField("feature_layer") else None
        rd = options.render if options.HasField("render") else None

        def size(setup, name):
            if setup is None or not setup.HasField(name):
                return None
            s = getattr(setup, name)
            return (s.x, s.y)

        width = fl.width if fl is not None and fl.width > 0 else (rd.width if rd is not None and rd.width else 24.0)
        crop = bool(fl.crop_to_playable_area) if fl is not None else False
        return cls(options, size(fl, "resolution"), size(fl, "minimap_resolution"), float(width), crop,
                   size(rd, "resolution"), size(rd, "minimap_resolution"))


class Game:
    """A single-agent mini-game in progress. Deterministic for a given seed and sequence of requests."""

    def __init__(self, definition: MapDefinition, seed: int | None, realtime: bool = False,
                 disable_fog: bool = False):
        self.definition = definition
        self.disable_fog = disable_fog  # the engine's maps reveal their playable area; kept for fogged maps
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.realtime = realtime
        self.terrain = Terrain(definition)
        self.screen_layers = LayerRenderer(SCREEN_LAYERS, self.terrain)
        self.minimap_layers = LayerRenderer(MINIMAP_LAYERS, self.terrain)
        self.frames = FrameCache()
        self.interface: Interface | None = None
        self.race = definition.players[0].race if definition.players else 1
        self.player_id = definition.players[0].player_id if definition.players else 1

    # ---- lifecycle ----------------------------------------------------------------------------------
    def join(self, interface: Interface, race: int) -> None:
        self.interface = interface
        self.race = race if race in (1, 2, 3) else self.race
        self.restart()

    def restart(self) -> None:
        """Run the map's initialisation again: new units, score 0, loop 0, camera and selection reset."""
        self.world = World(self.definition.playable_area)
        self.player = Player(self.player_id, self.race)
        self.scenario = Scenario(self.definition, self.world, {self.player_id: self.player}, self.rng)
        self.scenario.start()
        self.player.camera = self._clamp_camera(*self.definition.camera_start)
        self.game_loop = 0
        self.result: int | None = None
        self.action_errors: list[tuple[int, int]] = []
        self.echoed_actions: list[sc_pb.Action] = []
        self._wallclock_start = time.monotonic()

    @property
    def ended(self) -> bool:
        return self.result is not None

    # ---- simulation ---------------------------------------------------------------------------------
    def step(self, count: int) -> None:
        """Advance `count` game loops, or until the game ends."""
        limit = self.definition.time_limit
        remaining = count
        while remaining > 0 and not self.ended:
            k = min(remaining, limit - self.game_loop)
            if self.scenario.per_loop:
                k = 1
            k = self.world.free_loops(k)
            trajectory = self.world.trajectory(k)
            t, fires = self.scenario.first_event(trajectory, k)
            self.world.advance(trajectory, t)
            self.game_loop += t
            remaining -= t
            # Proximity triggers are checked where the trajectory says they fire. A collision push at the end
            # of a batch that brings a pair within reach is caught at the next batch's first loop.
            self.scenario.after_loop(near_may_fire=fires)
            if self.scenario.result is not None:
                self.result = self.scenario.result
            elif self.game_loop >= limit:
                self.result = RESULTS[self.definition.timeout_result]
        self.player.forget(self.world.exists)

    def catch_up_realtime(self, until_loop: int = 0) -> None:
        """In realtime mode, simulate the loops the wall clock has reached (waiting for `until_loop`)."""
        due = int((time.monotonic() - self._wallclock_start) * REALTIME_LOOPS_PER_SECOND)
        if until_loop > due and not self.ended:
            time.sleep((until_loop - due) / REALTIME_LOOPS_PER_SECOND)
            due = until_loop
        if due > self.game_loop:
            self.step(due - self.game_loop)

    def act(self, action: sc_pb.Action) -> int:
        result = actions.apply(self, action)
        if action.HasField("action_feature_layer") or action.HasField("action_ui") or action.HasField(
                "action_render"):
            self.echoed_actions.append(action)
        return result

    # ---- camera and views ---------------------------------------------------------------------------
    def _clamp_camera(self, x: float, y: float) -> tuple[float, float]:
        return self.definition.camera_bounds.clamp(x, y)

    def move_camera(self, x: float, y: float) -> None:
        self.player.camera = self._clamp_camera(x, y)

    def screen_view(self, render: bool = False) -> View | None:
        size = self.interface and (self.interface.render_screen if render else self.interface.screen)
        return screen_view(self.player.camera, self.interface.width, size) if size else None

    def minimap_view(self, render: bool = False) -> View | None:
        size = self.interface and (self.interface.render_minimap if render else self.interface.minimap)
        return minimap_view(self.definition, size, self.interface.crop) if size else None

    def camera_view(self) -> View:
        """The screen footprint in world units, whatever interface was requested (for is_on_screen)."""
        size = (self.interface and (self.interface.screen or self.interface.render_screen)) or (64, 64)
        width = self.interface.width if self.interface else 24.0
        return screen_view(self.player.camera, width, size)
