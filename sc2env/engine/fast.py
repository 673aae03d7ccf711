"""Call-cheap numpy helpers for the engine's hot paths: a few dozen units, many small calls per step.

On arrays this small numpy's Python-level wrappers (argument handling in np.count_nonzero, ndarray.sum,
.any, .max, ...) cost as much as the work; these are the same C routines, called directly.
"""

from __future__ import annotations

import functools

import numpy as np

try:  # the C function behind np.count_nonzero(a) (numpy >= 2)
    from numpy._core.multiarray import count_nonzero
except ImportError:  # numpy 1.x
    from numpy.core.multiarray import count_nonzero  # type: ignore[no-redef]  # the same function, moved

# Reductions as ufunc methods: x.sum(axis=1) is np.add.reduce(x, axis=1).
sum_rows = functools.partial(np.add.reduce, axis=1)


# Over a last axis of (x, y): the reduction of two elements is the one operation on them (the same result;
# numpy's reduction machinery is slow over many two-element rows).
def sum_xy(a: np.ndarray) -> np.ndarray:
    return a[..., 0] + a[..., 1]


def max_xy(a: np.ndarray) -> np.ndarray:
    return np.maximum(a[..., 0], a[..., 1])


def min_xy(a: np.ndarray) -> np.ndarray:
    return np.minimum(a[..., 0], a[..., 1])


def any_xy(a: np.ndarray) -> np.ndarray:
    return a[..., 0] | a[..., 1]


def all_xy(a: np.ndarray) -> np.ndarray:
    return a[..., 0] & a[..., 1]


__all__ = ["all_xy", "any_xy", "count_nonzero", "max_xy", "min_xy", "sum_rows", "sum_xy"]
