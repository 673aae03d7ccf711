"""The built-in AI's army micro as geometry: the line it forms, where Banelings aim, where Marines step."""

from __future__ import annotations

import numpy as np

LINE_SPACING = 1.25  # centre to centre along a line: a unit's width (0.75) and half a width between
MELEE_AHEAD = 1.5  # how far in front of the ranged line its melee units stand


def line_offsets(pos: np.ndarray, ranged: np.ndarray, goal: tuple[float, float]) -> np.ndarray:
    """Each unit's place relative to the army's centre in a line square to the way to `goal`: the ranged
    units side by side, the melee ones in a line of their own in front. Units keep their order across the
    way (the leftmost stays leftmost), so forming the line crosses no paths."""
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
        side = (rank - (len(rows) - 1) / 2) * LINE_SPACING
        offsets[rows] = side[:, None] * across + forward * ahead
    return offsets
