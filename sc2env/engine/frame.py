"""What one frame shows: each view's coverage (cached until the world or selection changes), the layer values."""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from sc2env.engine.coverage import Coverage, Drawing, coverage, drawing_order, point_coverage
from sc2env.engine.fast import count_nonzero
from sc2env.engine.players import Player
from sc2env.engine.unit_states import Cargo
from sc2env.engine.vision import Vision
from sc2env.engine.world import World

if TYPE_CHECKING:
    from sc2env.engine.render import View

NEUTRAL_PLAYER_ID = 16
# player_relative values: none 0, self 1, ally 2, neutral 3, enemy 4.
SELF, NEUTRAL, ENEMY = 1, 3, 4
# Buff ids of a worker carrying minerals / gas (CarryMineralFieldMinerals, CarryHarvestableVespeneGeyserGas).
CARRY_MINERALS, CARRY_GAS = 271, 273


class _StillLayer(NamedTuple):
    """The units that never move, drawn once: their coverage of a view, and (pixels, rows + 1) of the pixels
    they cover."""

    coverage: Coverage
    points: tuple[np.ndarray, np.ndarray]


class FrameCache:
    """Coverage and per-unit values of the current frame, reused until the world or the selection changes.

    One observation draws the screen and the minimap from the same values, and the next action's clicks
    hit-test against the same coverage the agent was shown.
    """

    def __init__(self) -> None:
        self._key: tuple = ()
        self._coverage: dict[View, Coverage] = {}
        self._points: dict[View, tuple[np.ndarray, np.ndarray] | None] = {}
        self._values: np.ndarray | None = None
        self._tables: dict | None = None
        self.vision: Vision | None = None
        self._shown: np.ndarray | None = None
        self._still: dict[tuple, _StillLayer] = {}

    def _check(self, world: World, player: Player) -> None:
        vision = self.vision
        # A restart makes a new World (and Vision). The key holds the world itself, not its id(): an id
        # may be reused by the next world once the old one is freed, and a stale frame would be shown.
        key = (world, world.version, tuple(player.selection), vision and vision.version)
        if key != self._key:
            self._key, self._coverage, self._points, self._values = key, {}, {}, None
            shown = vision.shows(world, player.player_id) if vision is not None else None
            if shown is None and count_nonzero(world.hidden):
                shown = ~world.hidden
            self._shown = shown

    def shown(self, world: World, player: Player) -> np.ndarray | None:
        """Which rows the player sees now (None: all)."""
        self._check(world, player)
        return self._shown

    def coverage(self, view: View, world: World, player: Player, densities: bool = True) -> Coverage:
        self._check(world, player)
        cached = self._coverage.get(view)
        if cached is None or (densities and cached[1] is None):
            cached = self._coverage[view] = self._layered(view, world, densities)
        return cached

    def points(self, view: View, world: World, player: Player) -> tuple[np.ndarray, np.ndarray] | None:
        """The coverage (no densities) of a view on which every unit is a single pixel (the minimap) as
        (pixels, rows + 1) in drawing order, see `point_coverage`; None if units are bigger there."""
        self._check(world, player)
        if view not in self._points:
            self._points[view] = self._layered_points(view, world)
        return self._points[view]

    def _layered(self, view: View, world: World, densities: bool) -> Coverage:
        """`coverage`, with units that never move (structures, resources, items) drawn once per layout and
        view; only moving units are drawn every frame (on top, as the game draws them)."""
        layers = self._still_and_moving(view, world, densities)
        if layers is None:
            return coverage(view, world, densities, self._shown, drawn=self._drawn_all(view, world))
        still, moving, drawn = layers
        return coverage(view, world, densities, moving, still.coverage, drawn)

    def _layered_points(self, view: View, world: World) -> tuple[np.ndarray, np.ndarray] | None:
        """`point_coverage`, drawn in layers as `_layered` draws `coverage`."""
        layers = self._still_and_moving(view, world, False)
        if layers is None:
            return point_coverage(view, world, self._shown, self._drawn_all(view, world))
        still, moving, drawn = layers
        on_top = point_coverage(view, world, moving, drawn)
        if on_top is None:
            return None
        (pixels, rows), (top_pixels, top_rows) = still.points, on_top
        return np.concatenate((pixels, top_pixels)), np.concatenate((rows, top_rows))  # moving units last

    def _drawn_all(self, view: View, world: World) -> Drawing | None:
        """The drawing order of every row, kept per rows while nothing is hidden (else left to `coverage`)."""
        if self._shown is not None:
            return None
        return world.per_rows(("drawn", view), lambda: drawing_order(view, world, None))

    def _still_and_moving(
        self, view: View, world: World, densities: bool
    ) -> tuple[_StillLayer, np.ndarray, Drawing | None] | None:
        """The still units' layer (kept while they and the fog stay the same), which rows are drawn on top
        of it, and their drawing order when known; None when units are all still or all moving (one layer).

        Nothing hidden: who is drawn, in which order and how big is a per-row fact (World.per_rows), and so is
        which units never move (speeds are set at spawn)."""
        fixed = self._shown is None
        still, count, moving = world.per_rows("still rows", lambda: _still_rows(world))
        if not count or count == world.n:
            return None
        vision = self.vision
        key = (
            view,
            densities,
            world,
            world.static_version,
            world.rows_version,
            vision.version if vision is not None and vision.fog else 0,
        )
        layer = self._still.get(key)
        if layer is None:
            if len(self._still) > 16:
                self._still.clear()
            shown = still if self._shown is None else self._shown & still
            under = coverage(view, world, densities, shown)
            flat = under[0].ravel()
            covered = (flat != 0).nonzero()[0]
            layer = self._still[key] = _StillLayer(under, (covered, flat.take(covered)))
        if self._shown is not None:
            moving = self._shown & moving
        drawn = (
            world.per_rows(("drawn moving", view), lambda: drawing_order(view, world, moving))
            if fixed
            else None
        )
        return layer, moving, drawn

    def values(self, world: World, player: Player) -> np.ndarray:
        self._check(world, player)
        if self._values is None:
            self._values = self._unit_values(world, player)
            self._tables = None
        return self._values

    def tables(self, world: World, player: Player) -> dict:
        """`values` cast once per frame to what each bits-per-pixel stores: {32: int32, 8: uint8, 1: bool},
        plus "lit": per row, whether any unit has a value other than 0 (else the layer is all zeros)."""
        values = self.values(world, player)
        if self._tables is None:
            v32 = values.astype(
                np.int32
            )  # the 8-bit values wrap like the int32 image they used to be cut from
            lit = np.logical_or.reduce(values, axis=1).tolist()
            self._tables = {32: v32, 8: values.astype(np.uint8), 1: v32 != 0, "lit": lit}
        return self._tables

    @staticmethod
    def _unit_values(world: World, player: Player) -> np.ndarray:
        """`unit_values`, starting from the rows that change only with the units' types and owners."""
        fixed = world.per_rows(
            ("unit values", player.player_id), lambda: unit_values(world, player, fixed_only=True)
        )
        return unit_values(world, player, base=fixed)


def _still_rows(world: World) -> tuple[np.ndarray, int, np.ndarray]:
    """(which rows never move, how many, which rows can move)."""
    still = world.speed <= 0
    return still, int(count_nonzero(still)), ~still


UNIT_VALUES = (
    "player_id",
    "unit_type",
    "selected",
    "health",
    "energy",
    "shields",
    "player_relative",
    "health_ratio",
    "energy_ratio",
    "shields_ratio",
    "active",
    "build_progress",
    "buff",
)
VALUE_ROW = {name: k for k, name in enumerate(UNIT_VALUES)}


def player_relative(owner: np.ndarray, player_id: int) -> np.ndarray:
    """Each owner's relation to `player_id`: SELF, NEUTRAL (owner 0) or ENEMY."""
    return np.where(owner == player_id, SELF, np.where(owner == 0, NEUTRAL, ENEMY))


def unit_values(
    world: World, player: Player, fixed_only: bool = False, base: np.ndarray | None = None
) -> np.ndarray:
    """Per-unit layer values, shape (len(UNIT_VALUES), n + 1) with a leading column 0 for "no unit", so that
    `values[row][index]` draws a layer. `fixed_only` fills only the rows that depend on types and owners;
    `base` is such a table for the same rows (copied, the other rows filled in)."""
    n = world.n
    out = base.copy() if base is not None else np.zeros((len(UNIT_VALUES), n + 1), np.int64)
    o = out[:, 1:]
    owner = world.owner
    if base is None:
        o[0] = np.where(owner == 0, NEUTRAL_PLAYER_ID, owner)
        o[1] = world.type_id if world.type_report is None else world.type_report[world.type_id]
        o[6] = player_relative(owner, player.player_id)
        if fixed_only:
            return out
    if player.selection and n:
        o[2, world.slots(player.selection)] = 1
    # Whole hit points (truncated, as the game shows them) and 0..255 ratios; a row without maxima stays 0.
    # Maxima and which structures are unfinished are per-row facts (World.per_rows).
    positive, unfinished = world.per_rows("layer value facts", lambda: _value_facts(world))
    for k, (value, maximum) in enumerate(
        (
            (world.health, world.health_max),
            (world.energy, world.energy_max),
            (world.shields, world.shields_max),
        )
    ):
        o[3 + k] = value
        if positive[k] == n:
            o[7 + k] = value * 255 / maximum
        elif positive[k]:
            o[7 + k] = np.where(maximum > 0, value * 255 / np.where(maximum > 0, maximum, 1.0), 0.0)
    o[10] = [bool(orders) for orders in world.orders]
    if unfinished:
        progress = world.build_progress
        o[11] = progress * 255 * (progress < 1)
    if count_nonzero(world.cargo_kind):
        cargo = world.cargo_kind
        o[12] = np.where(
            cargo == Cargo.MINERALS, CARRY_MINERALS, np.where(cargo == Cargo.VESPENE, CARRY_GAS, 0)
        )
    return out


def _value_facts(world: World) -> tuple[tuple[int, int, int], bool]:
    """How many rows have hit points, energy and shields maxima, and whether any row is unfinished."""
    health, energy, shields = (
        int(count_nonzero(m > 0)) for m in (world.health_max, world.energy_max, world.shields_max)
    )
    return (health, energy, shields), bool(count_nonzero(world.build_progress < 1))
