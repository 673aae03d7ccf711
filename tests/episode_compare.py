"""Deep equality of two episodes' recordings (dicts, sequences, arrays, scalars), naming the first difference."""

from __future__ import annotations

import numpy as np


def assert_same(a, b, where: str) -> None:
    """Assert `a` and `b` are equal all the way down, arrays by dtype, shape and value; `where` names `a`."""
    if isinstance(a, dict):
        assert isinstance(b, dict) and a.keys() == b.keys(), where
        for key in a:
            assert_same(a[key], b[key], f"{where}[{key!r}]")
    elif isinstance(a, (tuple, list)):
        assert isinstance(b, type(a)) and len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            assert_same(x, y, f"{where}[{i}]")
    elif isinstance(a, np.ndarray):
        assert isinstance(b, np.ndarray) and a.dtype == b.dtype and a.shape == b.shape, where
        assert np.array_equal(a, b), f"{where}: {np.argwhere(a != b)[:5].tolist()} differ"
    else:
        assert type(a) is type(b) and a == b, f"{where}: {a!r} != {b!r}"
