"""Which unit each pixel of a view shows, and how many units cover it: units' circles stamped onto the pixels."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from sc2env.engine.fast import count_nonzero

if TYPE_CHECKING:
    from sc2env.engine.render import View
    from sc2env.engine.world import World

# Units share one stamp (the biggest unit's square of candidate pixels) while that keeps the candidates this
# few; beyond, they are stamped in groups by size, so a Command Center doesn't make every Marine test 19x19.
_SHARED_STAMP = 4096


class Drawing(NamedTuple):
    """The rows a view draws, in drawing order (later rows on top), and their sizes: what `coverage` needs of
    them besides their positions."""

    rows: np.ndarray
    ascending: bool  # the drawing order is the rows' own order
    radii: np.ndarray  # in pixels
    # For stamping: how many pixels from the pixel holding its centre a unit can cover (a pixel centre within
    # its radius is at most radius + 0.5 from there), and the biggest and smallest of these.
    reach: np.ndarray
    biggest: int
    smallest: int


class Placed(NamedTuple):
    """A Drawing of the units at least partly on the view, with their centres in continuous pixel coordinates
    (pixel centres at integers)."""

    rows: np.ndarray
    ascending: bool
    centres: np.ndarray
    radii: np.ndarray
    reach: np.ndarray
    biggest: int
    smallest: int


Coverage = tuple[np.ndarray, np.ndarray | None, np.ndarray | None]
"""(index, density, density_aa) of a view: see `coverage`."""


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
    """(dx, dy, is the centre) of every pixel of the square of side 2 reach + 1 round a centre pixel."""
    side = np.arange(-reach, reach + 1)
    dx, dy = (a.ravel() for a in np.meshgrid(side, side))
    return dx, dy, (dx == 0) & (dy == 0)


def drawing_order(view: View, world: World, shown: np.ndarray | None) -> Drawing:
    """The rows `shown` (all if None) in drawing order, with their sizes on `view`."""
    order = np.arange(world.n) if shown is None else shown.nonzero()[0]
    ascending = True  # `order` is the drawing order: later rows on top
    if len(order):
        mobile = count_nonzero(world.speed[order] > 0)
        if 0 < mobile < len(order):
            # Draw order: mobile (ground) units above the rest, later units above earlier ones.
            order = order[np.argsort(world.speed[order] > 0, kind="stable")]
            ascending = False
    radii = world.radius[order] / view.scale
    return Drawing(order, ascending, radii, *_reach(radii))


def _reach(radii: np.ndarray) -> tuple[np.ndarray, int, int]:
    """(reach, biggest, smallest) of units of these radii in pixels (see Drawing)."""
    if not len(radii):
        return radii, 0, 0
    reach = np.minimum(np.ceil(radii + 0.5).astype(np.int64), 64)
    return reach, int(np.maximum.reduce(reach)), int(np.minimum.reduce(reach))


def _placed(view: View, world: World, drawing: Drawing) -> Placed:
    """The units of `drawing` at least partly on the view, and where their centres are in pixels."""
    order, ascending, radii, reach, biggest, smallest = drawing
    n = len(order)
    # y / -scale is exactly (top - y) / scale.
    origin, scale, size = _view_arrays(view)
    centres = ((world.pos if n == world.n and ascending else world.pos[order]) - origin) / scale - 0.5
    # All centres on the view means all units are on it (cheap test); otherwise drop those entirely off it.
    if n and not (
        np.minimum.reduce(centres, axis=None) > -1 and np.maximum.reduce(centres - size, axis=None) < 0
    ):
        visible = ((centres + radii[:, None] > -1) & (centres - radii[:, None] < size)).all(axis=1)
        order, centres, radii = order[visible], centres[visible], radii[visible]
        reach, biggest, smallest = _reach(radii)
    return Placed(order, ascending, centres, radii, reach, biggest, smallest)


def point_coverage(
    view: View, world: World, shown: np.ndarray | None = None, drawn: Drawing | None = None
) -> tuple[np.ndarray, np.ndarray] | None:
    """`coverage` without densities as (pixels, rows + 1) in drawing order, for views on which every unit
    covers just the pixel holding its centre (the minimap): writing the rows into the pixels in that order
    (a later write wins) gives `index`. None if some unit is bigger than half a pixel."""
    placed = _placed(view, world, drawn or drawing_order(view, world, shown))
    if len(placed.rows) and np.maximum.reduce(placed.radii) > 0.5:
        return None
    pixels, order = _centre_pixels(view, placed.centres, placed.rows)
    return pixels, order + 1


def _centre_pixels(view: View, centres: np.ndarray, order: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The flat pixel holding each centre, and `order`, without the units whose centre is off the view."""
    pixel = np.rint(centres).astype(np.int64)
    pixels = pixel[:, 1] * view.width + pixel[:, 0]
    inside = pixels.view(np.uint64) < view.width * view.height
    if count_nonzero(inside) < len(order):
        pixels, order = pixels[inside], order[inside]
    return pixels, order


def coverage(
    view: View,
    world: World,
    densities: bool = True,
    shown: np.ndarray | None = None,
    under: Coverage | None = None,
    drawn: Drawing | None = None,
) -> Coverage:
    """Which unit each pixel shows, and how many units cover it.

    A unit covers the pixels whose centres lie within its radius, and always the pixel holding its centre.
    Ground units are drawn over structures, items and beacons. Only rows in `shown` are drawn (all if None),
    over `under` (index, density, density_aa of units drawn before, e.g. the structures) if given.
    Returns (index, density, density_aa): `index` (intp, what gathers index fastest) holds the world row + 1
    of the top unit (0 = none);
    `density_aa` is coverage in 1/16ths of a unit, an anti-aliased density. The densities are None unless
    asked for (the minimap has none). `drawn` is `drawing_order(view, world, shown)` if already known.
    """
    height, width = view.height, view.width
    placed = _placed(view, world, drawn or drawing_order(view, world, shown))
    n = len(placed.rows)
    if not n and under is None:
        zero8 = np.zeros((height, width), np.uint8)
        return np.zeros((height, width), np.intp), zero8, zero8
    top = np.zeros(height * width, np.intp) if under is None else under[0].ravel().copy()
    if not n:
        ranks, pixels, dist2 = np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)
        ascending = placed.ascending
    elif not densities and np.maximum.reduce(placed.radii) <= 0.5:
        # Units no bigger than half a pixel (the minimap) cover just the pixel holding their centre.
        pixels, order = _centre_pixels(view, placed.centres, placed.rows)
        top[pixels] = order + 1  # later rows win a shared pixel, as in the general case
        return top.reshape(height, width), None, None
    else:
        ranks, pixels, dist2, ascending = _covered_pixels(placed, width, height)
    index = _top_units(top, placed.rows, ranks, pixels, ascending).reshape(height, width)
    if not densities:
        return index, None, None
    density, density_aa = _densities(placed.radii, ranks, pixels, dist2, under, width, height)
    return index, density, density_aa


def _covered_pixels(
    placed: Placed, width: int, height: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:
    """(rank, pixel, squared distance) of every pixel a unit covers, as entries, and whether the entries come
    in drawing order. Units of one size share one stamp; mixed sizes share the biggest one's while that keeps
    the candidates few (_SHARED_STAMP), else each size is stamped on its own."""
    centres, radii, reach, biggest = placed.centres, placed.radii, placed.reach, placed.biggest
    if biggest == placed.smallest:
        return (*_stamp(centres, radii, biggest, width, height), placed.ascending)
    if len(placed.rows) * (2 * biggest + 1) ** 2 <= _SHARED_STAMP:
        # Entries by size, then rank, as separate groups would give them: density_aa sums in that order.
        by_size = np.argsort(reach, kind="stable")
        ranks, pixels, dist2 = _stamp(centres[by_size], radii[by_size], biggest, width, height)
        return by_size.take(ranks), pixels, dist2, False
    parts = []
    for size in np.unique(reach).tolist():
        group = (reach == size).nonzero()[0]
        group_ranks, group_pixels, group_dist2 = _stamp(centres[group], radii[group], size, width, height)
        parts.append((group.take(group_ranks), group_pixels, group_dist2))
    ranks, pixels, dist2 = (np.concatenate(column) for column in zip(*parts))
    return ranks, pixels, dist2, False


def _top_units(
    top: np.ndarray, order: np.ndarray, ranks: np.ndarray, pixels: np.ndarray, ascending: bool
) -> np.ndarray:
    """`top` (flat, row + 1 of the unit shown per pixel) with the unit drawn last on each covered pixel."""
    if ascending:  # entries come in drawing order: the last write to a pixel is its top unit
        top[pixels] = (order + 1).take(ranks)
        return top
    top_rank = np.zeros(len(top), np.intp)  # per pixel: 1 + the rank of the unit drawn last there
    np.maximum.at(top_rank, pixels, ranks + 1)
    rows = np.zeros(len(order) + 1, np.intp)
    rows[1:] = order + 1
    return np.where(top_rank > 0, rows.take(top_rank), top)


def _densities(
    radii: np.ndarray,
    ranks: np.ndarray,
    pixels: np.ndarray,
    dist2: np.ndarray,
    under: Coverage | None,
    width: int,
    height: int,
) -> tuple[np.ndarray, np.ndarray]:
    """(density, density_aa) of the entries, added to those of `under`, capped at 255."""
    size = height * width
    counts = np.bincount(pixels, minlength=size)
    flat_density = np.empty(size, np.uint8)
    if under is not None and under[1] is not None:
        counts += under[1].ravel()
        np.minimum(counts, 255, out=flat_density, casting="unsafe")
    else:
        np.copyto(flat_density, counts if len(radii) < 256 else np.minimum(counts, 255), casting="unsafe")
    # Scaling by 16 before summing is exact (a power of two): this is round(16 x coverage), summed in entry order
    # (bincount adds the weights one entry after the other, as np.add.at would; without entries it gives ints).
    aa = np.minimum(np.maximum(radii.take(ranks) - np.sqrt(dist2) + 0.5, 0.0), 1.0) * 16
    total = np.bincount(pixels, aa, size).astype(np.float64, copy=False)
    np.rint(total, out=total)
    if under is not None and under[2] is not None:
        total += under[2].ravel()
    density_aa = np.empty(size, np.uint8)
    np.minimum(total, 255, out=density_aa, casting="unsafe")
    return flat_density.reshape(height, width), density_aa.reshape(height, width)


def _stamp(
    centres: np.ndarray, radii: np.ndarray, reach: int, width: int, height: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(rank, pixel, squared distance) of every pixel the units at `centres` (of `radii`, in pixels) cover,
    by rank; `reach` is the half side of the square of candidate pixels round each centre pixel."""
    dx_of, dy_of, is_centre = _offsets(reach)
    pixel = np.rint(centres).astype(np.int64)
    column = pixel[:, 0, None] + dx_of
    row = pixel[:, 1, None] + dy_of
    dx = column - centres[:, 0, None]
    dy = row - centres[:, 1, None]
    d2 = dx * dx
    d2 += dy * dy
    # Unsigned views turn negative pixel coordinates into huge ones: one comparison checks both bounds.
    covered = (
        ((d2 <= (radii * radii)[:, None]) | is_centre)
        & (column.view(np.uint64) < width)
        & (row.view(np.uint64) < height)
    )
    flat = covered.ravel().nonzero()[0]
    row *= width
    row += column
    return flat // len(dx_of), row.ravel().take(flat), d2.ravel().take(flat)
