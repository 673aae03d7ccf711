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
    from numpy.core.multiarray import count_nonzero

# Reductions as ufunc methods: x.sum(axis=1) is np.add.reduce(x, axis=1), and so on.
sum_rows = functools.partial(np.add.reduce, axis=1)
any_rows = functools.partial(np.logical_or.reduce, axis=1)
max_last = functools.partial(np.maximum.reduce, axis=-1)
min_last = functools.partial(np.minimum.reduce, axis=-1)
any_last = functools.partial(np.logical_or.reduce, axis=-1)
all_last = functools.partial(np.logical_and.reduce, axis=-1)

__all__ = ["all_last", "any_last", "any_rows", "count_nonzero", "max_last", "min_last", "sum_rows"]
