"""What one frame shows: which unit covers each pixel of a view, the units' layer values, and their cache."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

import numpy as np

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
# Units share one stamp (the biggest unit's square of candidate pixels) while that keeps the candidates this
# few; beyond, they are stamped in groups by size, so a Command Center doesn't make every Marine test 19x19.
_SHARED_STAMP = 4096


@functools.lru_cache(maxsize=64)
def _view_arrays(view: View) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(left, top), (scale, -scale) and (width, height) of a view, as arrays for whole-array arithmetic."""
    return (
        np.array([view.left, view.top]),
        np.array([view.scale, -view.scale]),
        np.array([view.width, view.height], float),
    )


@functools.lru_cache(maxsize=16)
def _offsets(reach: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r = np.arange(-reach, reach + 1)
    ox, oy = (a.ravel() for a in np.meshgrid(r, r))
    return ox, oy, (ox == 0) & (oy == 0)


def drawing_order(view: View, world: World, shown: np.ndarray | None) -> tuple:
    """(rows in drawing order, whether that is ascending, their radii in pixels, and for stamping: each one's
    reach in pixels, the biggest and smallest): what `coverage` needs besides positions."""
    order = np.arange(world.n) if shown is None else shown.nonzero()[0]
    ascending = True  # `order` is the drawing order: later rows on top
    if len(order):
        mobile = count_nonzero(world.speed[order] > 0)
        if 0 < mobile < len(order):
            # Draw order: mobile (ground) units above the rest, later units above earlier ones.
            order = order[np.argsort(world.speed[order] > 0, kind="stable")]
            ascending = False
    rp = world.radius[order] / view.scale
    return (order, ascending, rp, *_reach(rp))


def _reach(rp: np.ndarray) -> tuple:
    """(reach, biggest, smallest): a pixel centre within rp of a unit is at most rp + 0.5 from the pixel the
    unit's centre rounds to."""
    if not len(rp):
        return rp, 0, 0
    reach = np.minimum(np.ceil(rp + 0.5).astype(np.int64), 64)
    return reach, int(np.maximum.reduce(reach)), int(np.minimum.reduce(reach))


def _placed(view: View, world: World, drawn: tuple) -> tuple:
    """(order, ascending, f, rp, reach, biggest, smallest) of the units at least partly on the view: `f` is
    their centres in continuous pixel coordinates (pixel centres at integers)."""
    order, ascending, rp, reach, biggest, smallest = drawn
    n = len(order)
    # y / -scale is exactly (top - y) / scale.
    origin, scale, size = _view_arrays(view)
    f = ((world.pos if n == world.n and ascending else world.pos[order]) - origin) / scale - 0.5
    # All centres on the view means all units are on it (cheap test); otherwise drop those entirely off it.
    if n and not (np.minimum.reduce(f, axis=None) > -1 and np.maximum.reduce(f - size, axis=None) < 0):
        visible = ((f + rp[:, None] > -1) & (f - rp[:, None] < size)).all(
            axis=1
        )  # off-screen units cover nothing
        order, f, rp = order[visible], f[visible], rp[visible]
        reach, biggest, smallest = _reach(rp)
    return order, ascending, f, rp, reach, biggest, smallest


def point_coverage(
    view: View, world: World, shown: np.ndarray | None = None, drawn: tuple | None = None
) -> tuple[np.ndarray, np.ndarray] | None:
    """`coverage` without densities as (pixels, rows + 1) in drawing order, for views on which every unit
    covers just the pixel holding its centre (the minimap): writing the rows into the pixels in that order
    (a later write wins) gives `index`. None if some unit is bigger than half a pixel."""
    order, _, f, rp, _, _, _ = _placed(view, world, drawn or drawing_order(view, world, shown))
    if len(order) and np.maximum.reduce(rp) > 0.5:
        return None
    pixels, order = _centre_pixels(view, f, order)
    return pixels, order + 1


def _centre_pixels(view: View, f: np.ndarray, order: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The flat pixel holding each centre `f`, and `order`, without the units whose centre is off the view."""
    g = np.rint(f).astype(np.int64)
    pixels = g[:, 1] * view.width + g[:, 0]
    inside = pixels.view(np.uint64) < view.width * view.height
    if count_nonzero(inside) < len(order):
        pixels, order = pixels[inside], order[inside]
    return pixels, order


def coverage(
    view: View,
    world: World,
    densities: bool = True,
    shown: np.ndarray | None = None,
    under: tuple | None = None,
    drawn: tuple | None = None,
) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
    """Which unit each pixel shows, and how many units cover it.

    A unit covers the pixels whose centres lie within its radius, and always the pixel holding its centre.
    Ground units are drawn over structures, items and beacons. Only rows in `shown` are drawn (all if None),
    over `under` (index, density, density_aa of units drawn before, e.g. the structures) if given.
    Returns (index, density, density_aa): `index` (intp, what gathers index fastest) holds the world row + 1
    of the top unit (0 = none);
    `density_aa` is coverage in 1/16ths of a unit, an anti-aliased density. The densities are None unless
    asked for (the minimap has none). `drawn` is `drawing_order(view, world, shown)` if already known.
    """
    h, w = view.height, view.width
    order, ascending, f, rp, reach, biggest, smallest = _placed(
        view, world, drawn or drawing_order(view, world, shown)
    )
    n = len(order)
    if not n and under is None:
        zero8 = np.zeros((h, w), np.uint8)
        return np.zeros((h, w), np.intp), zero8, zero8
    top = np.zeros(h * w, np.intp) if under is None else under[0].ravel().copy()
    if not n:
        ranks, pixels, dist2 = np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)
    elif not densities and np.maximum.reduce(rp) <= 0.5:
        # Units no bigger than half a pixel (the minimap) cover just the pixel holding their centre.
        pixels, order = _centre_pixels(view, f, order)
        top[pixels] = order + 1  # later rows win a shared pixel, as in the general case
        return top.reshape(h, w), None, None
    else:
        if biggest == smallest:
            ranks, pixels, dist2 = _stamp(f, rp, biggest, w, h)
        elif n * (2 * biggest + 1) ** 2 <= _SHARED_STAMP:
            # Entries by size, then rank, as separate groups would give them: density_aa sums in that order.
            by_size = np.argsort(reach, kind="stable")
            ranks, pixels, dist2 = _stamp(f[by_size], rp[by_size], biggest, w, h)
            ranks = by_size.take(ranks)
            ascending = False
        else:
            parts = []
            for s in np.unique(reach).tolist():
                group = (reach == s).nonzero()[0]
                r, p, d = _stamp(f[group], rp[group], s, w, h)
                parts.append((group.take(r), p, d))
            ranks, pixels, dist2 = (np.concatenate(c) for c in zip(*parts))
            ascending = False
    if ascending:  # entries come in drawing order: the last write to a pixel is its top unit
        top[pixels] = (order + 1).take(ranks)
    else:
        top_rank = np.zeros(h * w, np.intp)  # per pixel: 1 + the rank of the unit drawn last there
        np.maximum.at(top_rank, pixels, ranks + 1)
        rows = np.zeros(n + 1, np.intp)
        rows[1:] = order + 1
        top = np.where(top_rank > 0, rows.take(top_rank), top)
    index = top.reshape(h, w)
    if not densities:
        return index, None, None
    counts = np.bincount(pixels, minlength=h * w)
    flat_density = np.empty(h * w, np.uint8)
    if under is not None:
        counts += under[1].ravel()
        np.minimum(counts, 255, out=flat_density, casting="unsafe")
    else:
        np.copyto(flat_density, counts if n < 256 else np.minimum(counts, 255), casting="unsafe")
    density = flat_density.reshape(h, w)
    # Scaling by 16 before summing is exact (a power of two): this is round(16 x coverage), summed in entry order
    # (bincount adds the weights one entry after the other, as np.add.at would; without entries it gives ints).
    aa = np.minimum(np.maximum(rp.take(ranks) - np.sqrt(dist2) + 0.5, 0.0), 1.0) * 16
    total = np.bincount(pixels, aa, h * w).astype(np.float64, copy=False)
    np.rint(total, out=total)
    if under is not None:
        total += under[2].ravel()
    density_aa = np.empty(h * w, np.uint8)
    np.minimum(total, 255, out=density_aa, casting="unsafe")
    return index, density, density_aa.reshape(h, w)


def _stamp(
    f: np.ndarray, rp: np.ndarray, size: int, w: int, h: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(rank, pixel, squared distance) of every pixel the units at f (radius rp, in pixels) cover, by rank."""
    ox, oy, centre = _offsets(size)
    g = np.rint(f).astype(np.int64)
    gi = g[:, 0, None] + ox
    gj = g[:, 1, None] + oy
    dx = gi - f[:, 0, None]
    dy = gj - f[:, 1, None]
    d2 = dx * dx
    d2 += dy * dy
    # Unsigned views turn negative pixel coordinates into huge ones: one comparison checks both bounds.
    covered = ((d2 <= (rp * rp)[:, None]) | centre) & (gi.view(np.uint64) < w) & (gj.view(np.uint64) < h)
    flat = covered.ravel().nonzero()[0]
    gj *= w
    gj += gi
    return flat // len(ox), gj.ravel().take(flat), d2.ravel().take(flat)


class FrameCache:
    """Coverage and per-unit values of the current frame, reused until the world or the selection changes.

    One observation draws the screen and the minimap from the same values, and the next action's clicks
    hit-test against the same coverage the agent was shown.
    """

    def __init__(self) -> None:
        self._key: tuple = ()
        self._coverage: dict[View, tuple] = {}
        self._points: dict[View, tuple[np.ndarray, np.ndarray] | None] = {}
        self._values: np.ndarray | None = None
        self._tables: dict | None = None
        self.vision: Vision | None = None
        self._shown: np.ndarray | None = None
        self._still: dict[tuple, tuple] = {}

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

    def coverage(self, view: View, world: World, player: Player, densities: bool = True) -> tuple:
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
            self._points[view] = self._layered(view, world, False, points=True)
        return self._points[view]

    def _layered(self, view: View, world: World, densities: bool, points: bool = False):
        """`coverage` (or `point_coverage`), with units that never move (structures, resources, items) drawn
        once per layout and view; only moving units are drawn every frame (on top, as the game draws them)."""
        # Nothing hidden: who is drawn, in which order and how big is a per-row fact (World.per_rows), and so
        # is which units never move (speeds are set at spawn).
        fixed = self._shown is None
        still, count, moving = world.per_rows("still rows", lambda: _still_rows(world))
        if not count or count == world.n:
            drawn = (
                world.per_rows(("drawn", view), lambda: drawing_order(view, world, None)) if fixed else None
            )
            if points:
                return point_coverage(view, world, self._shown, drawn)
            return coverage(view, world, densities, self._shown, drawn=drawn)
        vision = self.vision
        key = (
            view,
            densities,
            world,
            world.static_version,
            world.rows_version,
            vision.version if vision is not None and vision.fog else 0,
        )
        under = self._still.get(key)
        if under is None:
            if len(self._still) > 16:
                self._still.clear()
            under = coverage(view, world, densities, still if fixed else self._shown & still)
            flat = under[0].ravel()
            covered = (flat != 0).nonzero()[0]
            under = self._still[key] = (*under, (covered, flat.take(covered)))
        if not fixed:
            moving = self._shown & moving
        drawn = (
            world.per_rows(("drawn moving", view), lambda: drawing_order(view, world, moving))
            if fixed
            else None
        )
        if not points:
            return coverage(view, world, densities, moving, under[:3], drawn)
        on_top = point_coverage(view, world, moving, drawn)
        if on_top is None:
            return None
        return tuple(np.concatenate(pair) for pair in zip(under[3], on_top))  # moving units written last

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
        o[1] = world.type_id
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
