"""Groups of units of one kind that overlap or touch on screen, drawn together so a crowd stays readable."""

from __future__ import annotations

import numpy as np

OVERLAP = 0.8
"""Units pile up when their centres are closer than this times the sum of their radii: their bodies overlap by
a fifth of their size or more, enough to hide a label. Units packed by collision (one diameter apart) don't."""
TOUCH = 1.05
"""Units touch when their centres are closer than this times the sum of their radii (with a hair of slack:
units packed by collision sit exactly one diameter apart), plus BAR_ROOM pixels."""
BAR_ROOM = 10.0
"""Pixels a bar takes above a unit: a neighbour closer than that would have it drawn over its body."""


def group_labels(
    x: np.ndarray, y: np.ndarray, radius: np.ndarray, kind: np.ndarray, closeness: float, slack: float = 0.0
) -> np.ndarray:
    """A group number per unit: units of the same `kind` whose centres are closer than `closeness` times the
    sum of their radii plus `slack` share one, through any chain of them (connected components); a unit alone
    has a group of its own. Numbers are 0..n_groups-1, in the order of each group's first unit."""
    n = len(x)
    parent = np.arange(n)
    if n > 1:
        dx = x[:, None] - x[None, :]
        dy = y[:, None] - y[None, :]
        near = np.hypot(dx, dy) < closeness * (radius[:, None] + radius[None, :]) + slack
        near &= kind[:, None] == kind[None, :]
        for i, j in zip(*np.nonzero(np.triu(near, 1))):
            a, b = _root(parent, i), _root(parent, j)
            if a != b:
                parent[max(a, b)] = min(a, b)
    roots = np.array([_root(parent, i) for i in range(n)], dtype=np.int64)
    _, labels = np.unique(roots, return_inverse=True)  # roots are each stack's first unit: order kept
    return labels.reshape(-1)


def _root(parent: np.ndarray, i: int) -> int:
    while parent[i] != i:
        parent[i] = parent[parent[i]]
        i = parent[i]
    return int(i)
