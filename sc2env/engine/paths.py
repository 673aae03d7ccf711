"""Ways round obstacles: steering at box corners, segment and box tests, pushing units out of boxes."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from sc2env.engine.fast import all_xy, any_xy, count_nonzero, max_xy, min_xy, sum_xy

if TYPE_CHECKING:
    from sc2env.engine.world_state import WorldState

_EPS = 1e-6
# How far beyond an obstacle's corner a unit aims when it walks around it.
_CORNER_MARGIN = 0.15


def box_distance(p: np.ndarray, centre: np.ndarray, half: np.ndarray) -> np.ndarray:
    """Distance from points p to axis-aligned boxes (0 inside), broadcasting over leading axes."""
    d = np.maximum(np.abs(p - centre) - half, 0.0)
    return np.hypot(d[..., 0], d[..., 1])


def crosses(starts: np.ndarray, ends: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Whether each segment starts[k] -> ends[k] passes through the inside of box (lo, hi)."""
    seg = ends - starts
    flat = np.abs(seg) < _EPS
    if count_nonzero(flat):
        safe = np.where(flat, 1.0, seg)  # flat axes are decided by `between` below, not by these quotients
        t1 = (lo - starts) / safe
        t2 = (hi - starts) / safe
        between = (starts > lo) & (starts < hi)
        t_near = max_xy(np.where(flat, np.where(between, -np.inf, np.inf), np.minimum(t1, t2)))
        t_far = min_xy(np.where(flat, np.where(between, np.inf, -np.inf), np.maximum(t1, t2)))
    else:  # the usual case, with the same numbers: no axis to decide apart
        t1 = (lo - starts) / seg
        t2 = (hi - starts) / seg
        t_near = max_xy(np.minimum(t1, t2))
        t_far = min_xy(np.maximum(t1, t2))
    return (t_far - t_near > _EPS) & (t_far > _EPS) & (t_near < 1 - _EPS)


def steer(world: WorldState, m: np.ndarray) -> None:
    """Aim rows m whose straight path crosses an obstacle box at a corner of that box instead."""
    w = world
    obstacles, centres, halves = obstacle_boxes(w)
    pos, goal = w.pos[m], w.goal[m]
    p = pos[:, None, :]
    seg = (goal - pos)[:, None, :]
    half = halves + w.radius[m][:, None, None]
    lo = centres - half
    hi = centres + half
    parallel = np.abs(seg) < _EPS
    if count_nonzero(parallel):
        safe = np.where(parallel, 1.0, seg)  # parallel axes are masked below
        t1 = (lo - p) / safe
        t2 = (hi - p) / safe
        outside = parallel & ((p < lo) | (p > hi))
        t_near = max_xy(np.where(parallel, -np.inf, np.minimum(t1, t2)))
        t_far = min_xy(np.where(parallel, np.inf, np.maximum(t1, t2)))
        blocked = (t_near < t_far - _EPS) & (t_near > _EPS) & (t_near < 1.0) & ~any_xy(outside)
    else:  # the usual case, with the same numbers: no axis to mask
        t1 = (lo - p) / seg
        t2 = (hi - p) / seg
        t_near = max_xy(np.minimum(t1, t2))
        t_far = min_xy(np.maximum(t1, t2))
        blocked = (t_near < t_far - _EPS) & (t_near > _EPS) & (t_near < 1.0)
    others = w.tag[obstacles][None] != w.goal_tag[m][:, None]  # the goal unit's own box doesn't block
    blocked &= others
    g = goal[:, None, :]
    blocked &= ~all_xy((g > lo) & (g < hi))  # aiming inside a box: walk up to it
    if not count_nonzero(blocked):
        return
    units = np.logical_or.reduce(blocked, axis=1).nonzero()[0]
    first = np.where(blocked[units], t_near[units], np.inf).argmin(axis=1)
    w.target[m[units]] = _corners(
        w, m[units], lo[units, first], hi[units, first], lo[units], hi[units], others[units]
    )


def _corners(w: WorldState, rows, lo, hi, all_lo, all_hi, others) -> np.ndarray:
    """For each row, the corner of its box (lo, hi) to walk to on the way round it: shortest path, not inside
    another box (`others` marks which boxes count) nor off the pathable ground (a box at the map's edge),
    reachable without crossing the box, not the corner it stands at, preferably with the goal in view from
    there."""
    p, g = w.pos[rows], w.goal[rows]
    # Corners (lo x, lo y), (lo x, hi y), (hi x, lo y), (hi x, hi y), picked from [lo x, lo y, hi x, hi y].
    corners = np.concatenate((lo, hi), axis=1)[:, _CORNER_PICK].reshape(-1, 4, 2)
    corners += _CORNER_SHIFT  # away from the box's centre (lo < hi: boxes have size)
    to_corner = np.sqrt(sum_xy((corners - p[:, None]) ** 2))
    cost = to_corner + np.sqrt(sum_xy((corners - g[:, None]) ** 2))
    inside = all_xy((corners[:, :, None] > all_lo[:, None]) & (corners[:, :, None] < all_hi[:, None]))
    inside = np.logical_or.reduce(inside & others[:, None], axis=2)
    b, r = w.pathable, w.radius[rows][:, None]
    inside |= (
        (corners[..., 0] < b.x0 + r)
        | (corners[..., 0] > b.x1 - r)
        | (corners[..., 1] < b.y0 + r)
        | (corners[..., 1] > b.y1 - r)
    )  # a unit can't stand there
    flat = corners.reshape(-1, 2)
    # Both legs in one test: p -> corner (crossing the box) and corner -> goal (the goal out of view).
    legs = crosses(
        np.stack((np.repeat(p, 4, axis=0), flat)),
        np.stack((flat, np.repeat(g, 4, axis=0))),
        np.repeat(lo, 4, axis=0),
        np.repeat(hi, 4, axis=0),
    )
    crossing, blind = legs[0].reshape(-1, 4), legs[1].reshape(-1, 4)
    cost = cost + 1e3 * inside + 1e3 * crossing + 1e4 * (to_corner < 0.05) + 50.0 * blind
    return corners[np.arange(len(rows)), cost.argmin(axis=1)]


_CORNER_PICK = [0, 1, 0, 3, 2, 1, 2, 3]
_CORNER_SHIFT = np.array([[-1, -1], [-1, 1], [1, -1], [1, 1]]) * _CORNER_MARGIN


def push_out_of_boxes(w: WorldState, mobile: np.ndarray, reach: np.ndarray) -> None:
    """Move mobile rows that overlap an obstacle's footprint box out of it (by more than 1e-9; `reach` is
    their radii less that, as a column)."""
    o, centres, halves = obstacle_boxes(w)
    if not count_nonzero(w.hidden):  # the kept boxes: their near cells are kept with them
        # Only units standing in a cell near some box can touch one: test just those.
        near = w.per_rows(("near boxes", w.static_version), lambda: _near_boxes(w, centres[0], halves[0]))
        cells = w.pos[mobile].astype(np.int64)  # whole cells; just below 0 truncates to cell 0, which is
        # marked for any box reaching below 0
        inside = (cells[:, 0] < near.shape[1]) & (cells[:, 1] < near.shape[0])
        if count_nonzero(inside) == len(mobile):
            close = near[cells[:, 1], cells[:, 0]]
            if not count_nonzero(close):
                return
            mobile, reach = mobile[close], reach[close]
    out = np.maximum(np.abs(w.pos[mobile][:, None, :] - centres) - halves, 0.0)
    hit = np.hypot(out[..., 0], out[..., 1]) < reach
    if not count_nonzero(hit):
        return
    for u, k in np.argwhere(hit).tolist():  # few contacts: resolve them one by one, nearest face out
        q = w.pos[mobile[u]] - w.pos[o[k]]
        h = w.half[o[k]]
        ru = w.radius[mobile[u]]
        outside = np.abs(q) - h
        if outside[0] > 0 or outside[1] > 0:  # outside the box: push away from its nearest point
            away = q - np.clip(q, -h, h)
            length = math.hypot(*away)
            w.pos[mobile[u]] += away / length * (ru - length) if length > 0 else 0.0
        else:  # centre inside: leave by the nearest face
            axis = int(np.argmax(outside))
            w.pos[mobile[u], axis] = w.pos[o[k], axis] + math.copysign(h[axis] + ru, q[axis] or 1.0)


def _near_boxes(w: WorldState, centres: np.ndarray, halves: np.ndarray) -> np.ndarray:
    """Per whole cell (row y, column x) of the pathable area: whether a mobile unit there could touch a box,
    i.e. the cell meets a box grown by the largest mobile radius (and a cell of margin)."""
    mobile = w.speed > 0
    grow = (float(np.maximum.reduce(w.radius[mobile])) if count_nonzero(mobile) else 0.0) + 1.0
    b = w.pathable
    near = np.zeros((int(b.y1) + 2, int(b.x1) + 2), bool)
    low = np.floor(centres - halves - grow).astype(np.int64)
    high = np.floor(centres + halves + grow).astype(np.int64)
    for (x0, y0), (x1, y1) in zip(np.maximum(low, 0).tolist(), high.tolist()):
        if x1 >= 0 and y1 >= 0:  # (a negative end would count from the other side)
            near[y0 : y1 + 1, x0 : x1 + 1] = True
    return near


def obstacle_boxes(w: WorldState) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows of the obstacles that are not hidden, their centres and half sizes (shaped (1, obstacles, 2) to
    broadcast against mobile units). Obstacles stand still, so the boxes are kept while rows stay and none
    is moved; while some unit is hidden (which changes without rows changing) they are found afresh."""

    def boxes(o):
        return o, w.pos[o][None], w.half[o][None]

    if count_nonzero(w.hidden):
        return boxes((w.obstacle & ~w.hidden).nonzero()[0])
    return w.per_rows(("boxes", w.static_version), lambda: boxes(w.obstacle.nonzero()[0]))
