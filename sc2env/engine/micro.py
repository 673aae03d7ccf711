"""The built-in AI's army micro as geometry: the line it forms, where Banelings aim, where Marines step."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from sc2env.engine.world import World

LINE_SPACING = 1.25  # centre to centre along a line: a unit's width (0.75) and half a width between
OVERLAP_SPACING = 1.5  # a line of nine this far apart reaches a unit's width past each end of one 1.25 apart
SPLIT_SPACING = 2.6  # a Baneling's burst radius (2.2) and a Marine's (0.375) and a little: one unit a burst
MELEE_AHEAD = 1.5  # how far in front of the ranged line its melee units stand


def line_offsets(
    pos: np.ndarray, ranged: np.ndarray, goal: tuple[float, float], spacing: float = LINE_SPACING
) -> np.ndarray:
    """Each unit's place relative to the army's centre in a line square to the way to `goal`: the ranged
    units side by side, the melee ones in a line of their own in front. Units keep their order across the
    way (the leftmost stays leftmost), so forming the line crosses no paths; `spacing` centre to centre."""
    centre = pos.mean(axis=0)
    way = np.asarray(goal, float) - centre
    length = float(np.hypot(*way))
    ahead = way / length if length > 0 else np.array([1.0, 0.0])
    across = np.array([-ahead[1], ahead[0]])
    offsets = np.zeros_like(pos, dtype=float)
    for rows, forward in ((np.flatnonzero(ranged), 0.0), (np.flatnonzero(~ranged), MELEE_AHEAD)):
        if not len(rows):
            continue
        rank = np.argsort(np.argsort((pos[rows] - centre) @ across, kind="stable"), kind="stable")
        side = (rank - (len(rows) - 1) / 2) * spacing
        offsets[rows] = side[:, None] * across + forward * ahead
    return offsets


def burst_targets(
    banes: np.ndarray, enemies: np.ndarray, radius: np.ndarray, need: np.ndarray, reach: float
) -> list[int]:
    """For each Baneling (rows of `banes`, positions), the enemy (index into `enemies`, positions) to run
    at: where its burst lands the most hits that count, one Baneling after another. A hit counts while its
    enemy still needs one (`need`: the bursts that kill it); an enemy is hit when its centre is within
    `reach` plus its `radius` of the burst. Each Baneling takes the best enemy among the nearer half of the
    enemies to it (while a burst there counts), so none runs past the fight to a far clump; among equals the
    nearest."""
    need = need.astype(int).copy()
    covers = np.hypot(*(enemies[:, None] - enemies[None]).transpose(2, 0, 1)) <= reach + radius[None]
    chosen: list[int] = []
    for bane in banes:
        gap = np.hypot(*(enemies - bane).T)
        counted = (covers & (need > 0)[None]).sum(axis=1)
        near = gap <= np.median(gap)
        if not counted[near].any():  # the near ones have their bursts: any enemy
            near[:] = True
        value = np.where(near, counted, -1)
        best = int(np.lexsort((gap, -value))[0])
        chosen.append(best)
        need[covers[best]] -= 1
    return chosen


def away_from(pos: np.ndarray, threats: np.ndarray, distance: float) -> np.ndarray:
    """Points `distance` from each position straight away from its nearest threat."""
    gap = pos[:, None] - threats[None]
    nearest = np.argmin(np.hypot(*gap.transpose(2, 0, 1)), axis=1)
    away = gap[np.arange(len(pos)), nearest]
    length = np.maximum(np.hypot(*away.T), 1e-6)
    return pos + away / length[:, None] * distance


def nearest(pos: np.ndarray, rows: np.ndarray, point: np.ndarray) -> int:
    """The row of `rows` whose position (in `pos`) is nearest `point`."""
    return int(rows[int(np.argmin(np.hypot(*(pos[rows] - point).T)))])


def edge_gaps(w: World, rows: np.ndarray, others: np.ndarray) -> np.ndarray:
    """`rows` x `others`: how far apart each pair stands, edge to edge (what attack ranges are measured by)."""
    gap = np.hypot(*(w.pos[rows][:, None] - w.pos[others][None]).transpose(2, 0, 1))
    return gap - w.radius[rows][:, None] - w.radius[others][None]
