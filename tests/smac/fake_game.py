"""A scripted stand-in for the SMAC env's game (the SmacGame seam), for unit tests of the env alone.

The test owns the units: it builds them with `unit(...)`, changes them between steps (or lets `ToyCombat` do
it), and reads back the commands the env sent. Killing every unit respawns `spawn()`'s units, as SMAC's
maps do.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence

import numpy as np
from s2clientprotocol import raw_pb2
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env import errors

MARINE_RL = 2005  # the first of 3m's own unit types on a build with 2005 real ones
MARINE = 48


def unit(
    tag: int,
    unit_type: int,
    owner: int,
    x: float,
    y: float,
    health: float,
    health_max: float | None = None,
    shield: float = 0.0,
    shield_max: float = 0.0,
    energy: float = 0.0,
    cooldown: float = 0.0,
) -> raw_pb2.Unit:
    u = raw_pb2.Unit(
        tag=tag,
        unit_type=unit_type,
        owner=owner,
        alliance=raw_pb2.Self if owner == 1 else raw_pb2.Enemy,
        health=health,
        health_max=health if health_max is None else health_max,
        shield=shield,
        shield_max=shield_max,
        energy=energy,
        weapon_cooldown=cooldown,
    )
    u.pos.x, u.pos.y = x, y
    return u


def game_info(
    pathable_rows: range = range(8, 24), size: int = 32, heights: np.ndarray | None = None
) -> sc_pb.ResponseGameInfo:
    """A 32x32 map like SMAC's marine maps: rows y=8..23 pathable, bounds (0, 0)-(32, 32)."""
    info = sc_pb.ResponseGameInfo()
    raw = info.start_raw
    raw.map_size.x = raw.map_size.y = size
    raw.playable_area.p0.x = raw.playable_area.p0.y = 0
    raw.playable_area.p1.x = raw.playable_area.p1.y = size
    cells = np.zeros((size, size), np.uint8)  # [y, x]
    cells[list(pathable_rows), :] = 1
    raw.pathing_grid.bits_per_pixel = 1
    raw.pathing_grid.size.x = raw.pathing_grid.size.y = size
    raw.pathing_grid.data = np.packbits(cells.ravel()).tobytes()
    if heights is None:
        heights = np.full((size, size), 128, np.uint8)
    raw.terrain_height.bits_per_pixel = 8
    raw.terrain_height.size.x = raw.terrain_height.size.y = size
    raw.terrain_height.data = np.asarray(heights, np.uint8).tobytes()
    return info


def marines_3m(first_tag: int = 1) -> list[raw_pb2.Unit]:
    """3m's units: three agents around (9, 16), three enemies around (23, 16)."""
    t = first_tag
    return [
        unit(t, MARINE_RL, 1, 9.0, 16.0, 45),
        unit(t + 1, MARINE_RL, 1, 9.0, 15.0, 45),
        unit(t + 2, MARINE_RL, 1, 8.5, 16.5, 45),
        unit(t + 3, MARINE, 2, 23.0, 16.0, 45),
        unit(t + 4, MARINE, 2, 23.0, 17.0, 45),
        unit(t + 5, MARINE, 2, 23.5, 15.5, 45),
    ]


class FakeGame:
    """SmacGame's methods over a list of units the test controls.

    spawn:     makes a new episode's units (called with the first free tag) at start and when every unit
               has been killed.
    on_step:   called with (game, actions) after each agent step, to move or hurt units.
    crash_at:  the number of the agent step (from 1) whose act_step_observe raises GameCrashedError.
    respawn_delay: game loops between the last unit's death and the respawn.
    """

    def __init__(
        self,
        spawn: Callable[[int], list[raw_pb2.Unit]] = marines_3m,
        info: sc_pb.ResponseGameInfo | None = None,
        on_step: Callable[[FakeGame, Sequence[sc_pb.Action]], None] | None = None,
        n_types: int = 2014,
    ) -> None:
        self.spawn = spawn
        self.info = info or game_info()
        self.on_step = on_step
        self.n_types = n_types
        self.units: list[raw_pb2.Unit] = []
        self.sent: list[list[sc_pb.Action]] = []
        self.killed: list[list[int]] = []
        self.created: list[tuple[int, int, float, float]] = []
        self.seeds: list[int | None] = []
        self.crash_at: int | None = None
        self.loop = 0
        self.steps = 0
        self.respawn_delay = 0
        self._respawn_at: int | None = None
        self._next_tag = 1
        self._running = False

    # --- SmacGame ------------------------------------------------------------------------------------

    @property
    def running(self) -> bool:
        return self._running

    @property
    def game_info(self) -> sc_pb.ResponseGameInfo:
        return self.info

    def start(self, seed: int | None) -> sc_pb.ResponseObservation:
        self.seeds.append(seed)
        self._running = True
        self.loop = 0
        self._respawn()
        return self._observe()

    def act_step_observe(self, request: sc_pb.RequestAction) -> sc_pb.ResponseObservation:
        self._require_running()
        actions = list(request.actions)
        self.steps += 1
        if self.crash_at is not None and self.steps >= self.crash_at:
            self._running = False
            self.crash_at = None
            raise errors.GameCrashedError("the fake game crashed")
        self.sent.append(list(actions))
        if self.on_step is not None:
            self.on_step(self, actions)
        self._advance(8)
        return self._observe()

    def step_observe(self, count: int) -> sc_pb.ResponseObservation:
        self._require_running()
        self._advance(count)
        return self._observe()

    def kill(self, tags: Iterable[int]) -> None:
        self._require_running()
        tags = list(tags)
        self.killed.append(tags)
        self.units = [u for u in self.units if u.tag not in tags]
        if not any(u.owner in (1, 2) for u in self.units):
            self._respawn_at = self.loop + self.respawn_delay
            self._advance(0)

    def create_units(self, units: Iterable[tuple[int, int, float, float]]) -> None:
        self._require_running()
        for unit_type, owner, x, y in units:
            self.created.append((unit_type, owner, x, y))
            self.units.append(unit(self._next_tag, unit_type, owner, x, y, 100))
            self._next_tag += 1

    def unit_type_count(self) -> int:
        return self.n_types

    def save_replay(self) -> bytes:
        self._require_running()
        return b"fake replay"

    def close(self) -> None:
        self._running = False

    # --- helpers for tests ---------------------------------------------------------------------------

    def by_tag(self, tag: int) -> raw_pb2.Unit:
        return next(u for u in self.units if u.tag == tag)

    def remove(self, *tags: int) -> None:
        """Units die: they leave the observation."""
        self.units = [u for u in self.units if u.tag not in tags]

    def _advance(self, loops: int) -> None:
        self.loop += loops
        if self._respawn_at is not None and self.loop >= self._respawn_at:
            self._respawn_at = None
            self._respawn()

    def _respawn(self) -> None:
        self.units = self.spawn(self._next_tag)
        self._next_tag = max(u.tag for u in self.units) + 1 if self.units else self._next_tag

    def _observe(self) -> sc_pb.ResponseObservation:
        response = sc_pb.ResponseObservation()
        response.observation.game_loop = self.loop
        response.observation.raw_data.units.extend(self.units)
        return response

    def _require_running(self) -> None:
        if not self._running:
            raise errors.ProtocolError("the fake game is not running")


def commands(actions: Sequence[sc_pb.Action]) -> list[raw_pb2.ActionRawUnitCommand]:
    return [a.action_raw.unit_command for a in actions]


class ToyCombat:
    """A crude battle for env-level tests: an attack command takes `damage` off its target (a unit at 0 health
    dies), a move command moves the unit to its target point, and each enemy hits the nearest agent for
    `enemy_damage` every step."""

    def __init__(self, damage: float = 15.0, enemy_damage: float = 4.0) -> None:
        self.damage = damage
        self.enemy_damage = enemy_damage

    def __call__(self, game: FakeGame, actions: Sequence[sc_pb.Action]) -> None:
        hurt: dict[int, float] = {}
        for command in commands(actions):
            mover = game.by_tag(command.unit_tags[0])
            if command.HasField("target_world_space_pos"):
                mover.pos.x, mover.pos.y = command.target_world_space_pos.x, command.target_world_space_pos.y
            elif command.target_unit_tag:
                hurt[command.target_unit_tag] = hurt.get(command.target_unit_tag, 0) + self.damage
        agents = [u for u in game.units if u.owner == 1]
        for enemy in (u for u in game.units if u.owner == 2):
            if agents:
                near = min(agents, key=lambda a: math.hypot(a.pos.x - enemy.pos.x, a.pos.y - enemy.pos.y))
                hurt[near.tag] = hurt.get(near.tag, 0) + self.enemy_damage
        for tag, amount in hurt.items():
            target = next((u for u in game.units if u.tag == tag), None)
            if target is not None:
                target.health = max(0.0, target.health - amount)
        game.remove(*[u.tag for u in game.units if u.health <= 0])
