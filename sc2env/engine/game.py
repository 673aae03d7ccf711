"""One game on the engine: its map, world, players and script; join, restart, step, act and the views."""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np
from s2clientprotocol import common_pb2, error_pb2
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env.engine import player_actions
from sc2env.engine.building import Building, is_resource
from sc2env.engine.combat import Combat
from sc2env.engine.economy import Economy
from sc2env.engine.frame import FrameCache
from sc2env.engine.healing import Healing
from sc2env.engine.limits import MAX_STEP_LOOPS, WORK_CHECK_S
from sc2env.engine.map_types import TypeIds
from sc2env.engine.mapdef import RESULTS, MapDefinition, ScriptError
from sc2env.engine.orders import SUCCESS, Orders
from sc2env.engine.panels import Panels
from sc2env.engine.players import Player, Stats
from sc2env.engine.production import Production
from sc2env.engine.raw_grids import RawGrids
from sc2env.engine.render import (
    MINIMAP_LAYERS,
    MINIMAP_LAYERS_FAIR,
    SCREEN_LAYERS,
    LayerRenderer,
    Terrain,
    View,
    minimap_view,
    screen_view,
)
from sc2env.engine.scenario import Scenario
from sc2env.engine.targeting import TICK
from sc2env.engine.unit_states import CombatMode
from sc2env.engine.vision import Vision
from sc2env.engine.walls import Walls
from sc2env.engine.world import World
from sc2env.gamedata import LOOPS_PER_REAL_SECOND, UNIT_TYPES, UnitType
from sc2env.gamedata.units import PROTOSS, TERRAN, ZERG

_PLAYED_RACES = (TERRAN, ZERG, PROTOSS)  # a race a player has in the game (Random resolves to one)
# What each player has of its own: the Game's attributes of these names belong to the player being served
# (`viewing`), the others' are kept aside per player. Everything else (world, loop, script) is shared.
SEAT_FIELDS = (
    "interface",
    "player",
    "vision",
    "frames",
    "screen_layers",
    "minimap_layers",
    "_minimap_views",
    "race",
    "race_requested",
    "player_id",
    "player_name",
    "action_errors",
    "echoed_actions",
)
# A result from the other side: what the first player's result makes of another player's.
MIRRORED: dict[int, int] = {sc_pb.Victory: sc_pb.Defeat, sc_pb.Defeat: sc_pb.Victory}


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

        width = (
            fl.width
            if fl is not None and fl.width > 0
            else (rd.width if rd is not None and rd.width else 24.0)
        )
        crop = bool(fl.crop_to_playable_area) if fl is not None else False
        return cls(
            options,
            size(fl, "resolution"),
            size(fl, "minimap_resolution"),
            float(width),
            crop,
            size(rd, "resolution"),
            size(rd, "minimap_resolution"),
        )


def clock_loop(start: float, until_loop: int, last_loop: int, wait: bool = True) -> int:
    """The game loop the wall clock has reached since `start` (time.monotonic()) at realtime speed; with
    `wait`, first sleeps until `until_loop` (at most `last_loop`) if the clock is not there yet."""
    due = int((time.monotonic() - start) * LOOPS_PER_REAL_SECOND)
    until_loop = min(until_loop, last_loop)
    if wait and until_loop > due:
        time.sleep((until_loop - due) / LOOPS_PER_REAL_SECOND)
        due = until_loop
    return due


@dataclass(frozen=True)
class Joining:
    """A player taking its map slot: what it asked for at join_game."""

    player_id: int
    interface: Interface
    race: int
    name: str


class Game:
    """A game in progress, for one agent or two (each served through `viewing`). Deterministic for a given seed and sequence of requests."""

    def __init__(
        self, definition: MapDefinition, seed: int | None, realtime: bool = False, disable_fog: bool = False
    ):
        self.definition = definition
        self.disable_fog = disable_fog
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.realtime = realtime
        self.terrain = Terrain(definition)
        ground = definition.ground
        # The walls (and the paths found round them) last the whole game, across restarts.
        self.walls = Walls(ground.pathable) if ground.walled and ground.pathable is not None else None
        self.type_ids = TypeIds.for_map(definition.map_types)
        self.screen_layers = LayerRenderer(SCREEN_LAYERS, self.terrain)
        self.minimap_layers = LayerRenderer(MINIMAP_LAYERS, self.terrain)
        self.frames = FrameCache()
        self.raw_grids = RawGrids()
        self.panels = Panels(self)
        self._minimap_views: dict[tuple, View] = {}
        # What the agent asked for at join; until then no feature layers, render or raw data.
        self.interface = Interface.from_options(sc_pb.InterfaceOptions())
        self.race = definition.players[0].race if definition.players else TERRAN
        self.race_requested = self.race  # what join_game asked for (Random stays Random here)
        self.player_id = definition.players[0].player_id if definition.players else 1
        self.player_name = definition.players[0].name if definition.players else "Player"
        self.action_errors: list[tuple[int, int]] = []
        self.echoed_actions: list[sc_pb.Action] = []
        # The SEAT_FIELDS of each player in the game; the served player's live in the attributes themselves.
        self._seats: dict[int, dict[str, object]] = {self.player_id: self._seat_state()}
        self._recorder = self.player_id  # whose actions the input log holds as plain entries

    # ---- lifecycle ----------------------------------------------------------------------------------
    def join(self, interface: Interface, race: int, player_name: str = "") -> None:
        """Seat the map's first player (a single-agent game) and start."""
        self.join_all([Joining(self.player_id, interface, race, player_name)])

    def join_all(self, joining: list[Joining]) -> None:
        """Seat each joining player in its map slot, then start; the first is served until `viewing` says
        otherwise."""
        slots = {slot.player_id: slot for slot in self.definition.players}
        self._seats = {}
        for seat in joining:
            slot = slots[seat.player_id]
            self.player_id, self.interface = seat.player_id, seat.interface
            self.player_name = seat.name or slot.name  # as the game echoes it in game_info
            cheating = seat.interface.options.feature_layer.allow_cheating_layers
            self.screen_layers = LayerRenderer(SCREEN_LAYERS, self.terrain)
            self.minimap_layers = LayerRenderer(
                MINIMAP_LAYERS if cheating else MINIMAP_LAYERS_FAIR, self.terrain
            )
            self.frames, self._minimap_views = FrameCache(), {}
            self.race = seat.race if seat.race in _PLAYED_RACES else slot.race
            self.race_requested = (
                seat.race if seat.race in _PLAYED_RACES + (common_pb2.Random,) else self.race
            )
            self._seats[seat.player_id] = self._seat_state()
        self._load_seat(joining[0].player_id)
        self._recorder = joining[0].player_id
        self.restart()

    @property
    def seat_ids(self) -> list[int]:
        """The players in the game, in joining order."""
        return list(self._seats)

    @contextlib.contextmanager
    def viewing(self, player_id: int) -> Iterator[None]:
        """Serve `player_id` inside the block: observations, actions, selection and camera are its own."""
        previous = self.player_id
        if player_id == previous:
            yield
            return
        self._seats[previous] = self._seat_state()
        self._load_seat(player_id)
        try:
            yield
        finally:
            self._seats[player_id] = self._seat_state()
            self._load_seat(previous)

    def _seat_state(self) -> dict[str, object]:
        return {name: getattr(self, name) for name in SEAT_FIELDS if hasattr(self, name)}

    def _load_seat(self, player_id: int) -> None:
        for name, value in self._seats[player_id].items():
            setattr(self, name, value)

    def report_error(self, owner: int, ability_id: int, error: int) -> None:
        """An order of `owner`'s unit failed: its next observation's action_errors say so."""
        if owner == self.player_id:
            self.action_errors.append((ability_id, error))
        elif owner in self._seats:
            errors = self._seats[owner]["action_errors"]
            assert isinstance(errors, list)
            errors.append((ability_id, error))

    def result_for(self, player_id: int) -> int | None:
        """The player's result: the map's results are its first player's, the other player gets the mirror."""
        if self.result is None or player_id == self.definition.players[0].player_id:
            return self.result
        return MIRRORED.get(self.result, self.result)

    def restart(self) -> None:
        """Run the map's initialisation again: new units, score 0, loop 0, camera and selection reset.

        Starts a new episode's input log (`inputs`); the random generator runs on across restarts, so its
        state now is where a replay of this episode must start it.
        """
        self.episode_rng_state = self.rng.bit_generator.state
        self.episode_started_at = time.time()  # the replay's date (wall clock, Unix time)
        # The episode's inputs in order, for replays: an int is a step as it was run, bytes an applied Action
        # serialized. Appending them costs well under a microsecond per step.
        self.inputs: list[bytes | int | tuple[int, bytes]] = []
        self.world = World(self.definition.walkable, self.type_ids.reported, self.walls)
        self.players = {}
        self._other_stats: dict[int, Stats] = {}
        self.game_loop = 0
        self.result: int | None = None
        self.script_error = ""  # why the map's script stopped the game, until the session has told
        self._created: list[int] = []
        fog = self.definition.vision == "fog" and not self.disable_fog
        slots = {slot.player_id: slot for slot in self.definition.players}
        for player_id in self.seat_ids:
            with self.viewing(player_id):
                self.player = self.players[player_id] = Player(player_id, self.race)
                self.action_errors, self.echoed_actions = [], []
                self.vision = Vision(self.terrain.revealed, fog, self.definition.ground.heights)
                self.frames.vision = self.vision
        self.orders = Orders(self)
        self.combat = Combat(self)
        self.healing = Healing(self)
        self.economy = Economy(self)
        self.building = Building(self)
        self.production = Production(self)
        self.scenario = Scenario(self)
        self.scenario.start()
        for player_id in self.seat_ids:
            with self.viewing(player_id):
                slot = slots.get(player_id)
                start = slot.camera_start if slot is not None and slot.camera_start else None
                self.player.camera = self._clamp_camera(*(start or self.definition.camera_start))
                self.vision.update(self.world, player_id)
        self._created.clear()
        self._wallclock_start = time.monotonic()

    @property
    def ended(self) -> bool:
        return self.result is not None

    # ---- simulation ---------------------------------------------------------------------------------
    def step(self, count: int, abandoned: Callable[[], bool] | None = None) -> None:
        """Advance `count` game loops, or until the game ends, or until `abandoned()` (asked every
        WORK_CHECK_S seconds of work: the client has gone) stops it early.

        Loops run in batches: each subsystem says how long nothing needs deciding (movement legs, weapon
        cooldowns, harvest and build timers, proximity triggers), the world moves that far in one go, then
        everything that happened is resolved in order.
        """
        if count > 0 and not self.ended:
            self.inputs.append(count)  # the count as asked: batching makes step(8) and 8 x step(1) differ
        limit = self.definition.time_limit
        w = self.world
        remaining = count
        check_at = time.monotonic() + WORK_CHECK_S if abandoned is not None else math.inf
        # Units killed by a debug command go at once; their deaths reach the triggers with the first loop's.
        killed = self.combat.take_deaths() if count > 0 and not self.ended else []
        while remaining > 0 and not self.ended:
            if time.monotonic() >= check_at:
                if abandoned is not None and abandoned():
                    # The loops that ran (whole batches) are the step a replay plays; none, no step at all.
                    if remaining < count:
                        self.inputs[-1] = count - remaining
                    else:
                        self.inputs.pop()
                    break
                check_at = time.monotonic() + WORK_CHECK_S
            batch = 1 if self.scenario.per_loop else min(remaining, limit - self.game_loop)
            batch = self.scenario.until_periodic(self.game_loop, batch)
            batch = self.combat.plan(self.game_loop, batch)
            batch = self.production.plan(batch)
            batch = self.healing.plan(batch)
            following = bool(self.orders.following) and self.orders.follow()
            if w.prepare() or following:  # someone follows a moving unit: re-aim every combat tick
                batch = min(batch, TICK)
            batch = self.economy.free_loops(batch)
            batch = w.free_loops(self.building.free_loops(batch))
            trajectory = w.trajectory(batch)
            elapsed, fires = self.scenario.first_event(trajectory, batch)
            arrived, late = w.advance(trajectory, elapsed)
            self.game_loop += elapsed
            remaining -= elapsed
            self.combat.advance(elapsed, self.game_loop)
            self.healing.advance(elapsed)
            self.economy.advance(elapsed)
            self.building.advance(elapsed)
            self.production.advance(elapsed)
            self.orders.arrived(arrived, late)
            deaths, killed = killed + self.combat.take_deaths(), []
            for death in deaths:
                self._score_death(death)
            self._update_vision()
            created, self._created = self._created, []
            # Proximity triggers are checked where the trajectory says they fire. A collision push at the end
            # of a batch that brings a pair within reach is caught at the next batch's first loop.
            try:
                self.scenario.after_loop(fires, deaths, created)
            except ScriptError as e:  # a trigger met what no check at load could foresee: the game is over
                self.scenario.result, self.script_error = RESULTS["Undecided"], str(e)
            if self.scenario.result is not None:
                self.result = self.scenario.result
            elif self.game_loop >= limit:
                self.result = RESULTS[self.definition.timeout_result]
        for player in self.players.values():
            player.forget(w.exists)

    def _update_vision(self) -> None:
        self.vision.update(self.world, self.player_id)
        for player_id, seat in self._seats.items():
            if player_id != self.player_id:
                vision = seat["vision"]
                assert isinstance(vision, Vision)
                vision.update(self.world, player_id)

    def catch_up_realtime(self, until_loop: int = 0) -> None:
        """In realtime mode, simulate the loops the wall clock has reached (waiting for `until_loop`)."""
        # the game ends at its time limit: no later loop comes
        due = clock_loop(self._wallclock_start, until_loop, self.definition.time_limit, wait=not self.ended)
        while due > self.game_loop and not self.ended:  # in steps a replay takes (MAX_STEP_LOOPS at most)
            self.step(min(due - self.game_loop, MAX_STEP_LOOPS))

    def act(self, action: sc_pb.Action, data: bytes | None = None, raw_echo: bool | None = None) -> int:
        """Apply one Action (`data`: its serialized bytes, if at hand) and return its immediate ActionResult.
        `raw_echo`: whether its echo carries a raw form (default: when the player has raw data on)."""
        data = action.SerializeToString() if data is None else data
        # The log's own entries are the first player's; another player's carry its id (a two-player game).
        self.inputs.append(data if self.player_id == self._recorder else (self.player_id, data))
        raw = self.interface.options.raw if raw_echo is None else raw_echo
        echo = player_actions.echo_of(self, action, raw)  # placed before the action moves anything
        result = player_actions.apply(self, action)
        if (
            action.HasField("action_feature_layer")
            or action.HasField("action_ui")
            or action.HasField("action_render")
            or action.HasField("action_raw")
        ):
            self.echoed_actions.append(echo)
        return result

    # ---- units --------------------------------------------------------------------------------------
    def spawn_unit(
        self, unit_type: UnitType, owner: int, x: float, y: float, facing: float = 0.0, place: bool = False
    ) -> int:
        """Create a unit; with `place`, where SC2's normal placement puts it (the nearest free spot for
        ground units, the nearest legal footprint for structures; resources exactly where asked)."""
        w = self.world
        if place and unit_type.structure and not is_resource(unit_type):
            x, y = self._structure_spot(unit_type, x, y)
        elif unit_type.structure and unit_type.footprint[0]:
            x, y = self.building.snap(unit_type, x, y)
        elif place and unit_type.speed > 0:
            x, y = w.free_spot(x, y, unit_type.radius)
        tag = w.spawn(unit_type, owner, x, y, facing)
        i = w.slot(tag)
        self.building.on_spawn(i)
        self.orders.clear(i)
        if unit_type.structure and unit_type.can_attack:  # static defence: fires at what comes in range
            w.mode[i] = CombatMode.HOLDING
        self._count_value(owner, unit_type, "total_used")
        return tag

    def debug_kill(self, tags: list[int]) -> None:
        """Kill these units (the debug command): each dies in the next game loop, as if killed by no one."""
        for tag in tags:
            if self.world.exists(tag):
                self.combat.kill(self.world.slot(tag))

    def debug_create(self, unit_type: UnitType, owner: int, x: float, y: float, quantity: int) -> None:
        """Create units (the debug command) where the game's placement puts them, facing the map's default."""
        for _ in range(quantity):
            self.spawn_unit(unit_type, owner, x, y, facing=0.0, place=True)

    def _structure_spot(self, unit_type: UnitType, x: float, y: float) -> tuple[float, float]:
        cx, cy = self.building.snap(unit_type, x, y)
        offsets = sorted(
            ((dx, dy) for dx in range(-6, 7) for dy in range(-6, 7)),
            key=lambda o: (cx + o[0] - x) ** 2 + (cy + o[1] - y) ** 2,
        )
        for dx, dy in offsets:
            if self.building.placement_error(unit_type, cx + dx, cy + dy) == SUCCESS:
                return cx + dx, cy + dy
        return cx, cy

    def remove_unit(self, tag: int) -> None:
        """Take a unit out of the game (death, script, mined out), releasing what it held."""
        w = self.world
        i = w.slot(tag)
        self.economy.interrupt(i)
        self.building.halt(i)
        builder = int(w.link[i]) if w.types[i].structure and w.build_progress[i] < 1 else 0
        self.building.on_remove(i)
        self.orders.forget(tag)
        w.remove(tag)
        if builder and w.exists(builder) and w.link[w.slot(builder)] == tag:
            self.orders.complete(w.slot(builder))  # which halts the construction

    def unit_created(self, tag: int) -> None:
        """A unit finished training (for `unit_created` triggers)."""
        self._created.append(tag)

    def structure_done(self, j: int) -> None:
        """Structure row j finished construction (it now provides supply and tech: per-row facts change)."""
        self.world.version += 1
        self.world.rows_version += 1

    # ---- resources and statistics -------------------------------------------------------------------
    def stats(self, owner: int) -> Stats:
        player = self.players.get(owner)
        if player is not None:
            return player.stats
        stats = self._other_stats.get(owner)
        if stats is None:
            stats = self._other_stats[owner] = Stats()
        return stats

    def cost_error(self, owner: int, unit_type: UnitType) -> int:
        player = self.players.get(owner)
        if player is None:
            return SUCCESS
        if player.minerals < unit_type.mineral_cost:
            return error_pb2.NotEnoughMinerals
        if player.vespene < unit_type.vespene_cost:
            return error_pb2.NotEnoughVespene
        return SUCCESS

    def pay(self, owner: int, unit_type: UnitType) -> None:
        player = self.players.get(owner)
        if player is not None:
            player.minerals -= unit_type.mineral_cost
            player.vespene -= unit_type.vespene_cost
            player.stats.spent_minerals += unit_type.mineral_cost
            player.stats.spent_vespene += unit_type.vespene_cost

    def refund(self, owner: int, unit_type: UnitType, fraction: float) -> None:
        player = self.players.get(owner)
        if player is not None:
            minerals = int(unit_type.mineral_cost * fraction)
            vespene = int(unit_type.vespene_cost * fraction)
            player.minerals += minerals
            player.vespene += vespene
            player.stats.spent_minerals -= minerals
            player.stats.spent_vespene -= vespene

    def _count_value(self, owner: int, unit_type: UnitType, prefix: str) -> None:
        category = unit_type.cost_category or "none"
        stats = self.stats(owner)
        getattr(stats, f"{prefix}_minerals")[category] += unit_type.mineral_cost
        getattr(stats, f"{prefix}_vespene")[category] += unit_type.vespene_cost

    def _score_death(self, death) -> None:
        unit_type = UNIT_TYPES[death.type_id]
        self._count_value(death.owner, unit_type, "lost")
        if death.killer_owner and death.killer_owner != death.owner:
            self._count_value(death.killer_owner, unit_type, "killed")
            killer = self.stats(death.killer_owner)
            value = unit_type.mineral_cost + unit_type.vespene_cost
            if unit_type.structure:
                killer.killed_value_structures += value
            else:
                killer.killed_value_units += value

    # ---- camera and views ---------------------------------------------------------------------------
    def _clamp_camera(self, x: float, y: float) -> tuple[float, float]:
        return self.definition.camera_bounds.clamp(x, y)

    def move_camera(self, x: float, y: float) -> bool:
        """Centre the camera on (x, y) within the camera bounds; False if the map locks the camera."""
        if self.definition.camera_locked:
            return False
        self.player.camera = self._clamp_camera(x, y)
        return True

    def screen_view(self, render: bool = False) -> View | None:
        size = self.interface.render_screen if render else self.interface.screen
        return screen_view(self.player.camera, self.interface.width, size) if size else None

    def minimap_view(self, render: bool = False) -> View | None:
        size = self.interface.render_minimap if render else self.interface.minimap
        if not size:
            return None
        key = (size, self.interface.crop)
        view = self._minimap_views.get(key)
        if view is None:
            view = self._minimap_views[key] = minimap_view(self.definition, size, self.interface.crop)
        return view

    def playable_cells(self) -> tuple[int, int, int, int]:
        """(x0, y0, x1, y1): the whole cells the playable area covers, as game_info reports it."""
        b = self.definition.playable_area
        return math.floor(b.x0), math.floor(b.y0), math.ceil(b.x1), math.ceil(b.y1)

    def raw_area(self) -> tuple[int, int, int, int] | None:
        """`playable_cells` when the agent joined with raw_crop_to_playable_area (raw positions and grids are
        then relative to (x0, y0)); else None."""
        if not self.interface.options.raw_crop_to_playable_area:
            return None
        return self.playable_cells()

    def raw_origin(self) -> tuple[int, int]:
        """Where raw coordinate (0, 0) lies in the world (see `raw_area`)."""
        area = self.raw_area()
        return (0, 0) if area is None else area[:2]

    def camera_view(self) -> View:
        """The screen footprint in world units, whatever interface was requested (for is_on_screen)."""
        size = self.interface.screen or self.interface.render_screen or (64, 64)
        return screen_view(self.player.camera, self.interface.width, size)
