"""A vector env's infos from its sub-envs' infos, a key at a time: what Gymnasium's `_add_info` gives."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from gymnasium.vector import VectorEnv

Indexed = Sequence[tuple[int, Mapping[str, Any]]]
"""(sub-env index, its info) pairs, in the order Gymnasium's `VectorEnv._add_info` would take them."""


def vector_infos(env: VectorEnv, infos: Indexed) -> dict[str, Any]:
    """The dict `VectorEnv._add_info` builds when called on each of `infos` in turn (the same keys in the same
    order, the same arrays, dtypes and `_key` masks), built with a few numpy calls per key rather than per
    sub-env and key: for a vector env of n games, n times fewer arrays made and thrown away.

    A key whose values are dicts in some infos and not in others is left to `env._add_info`'s own rules."""
    num_envs = env.num_envs
    values: dict[str, list[tuple[int, Any]]] = {}
    for index, info in infos:
        for key, value in info.items():
            values.setdefault(key, []).append((index, value))
    out: dict[str, Any] = {}
    for key, given in values.items():
        nested = [isinstance(value, dict) for _, value in given]
        if key != "final_obs" and any(nested) and not all(nested):
            out = {}
            for index, info in infos:
                out = env._add_info(out, dict(info), index)
            return out
        indices = [index for index, _ in given]
        if key == "final_obs":
            array: Any = np.full(num_envs, fill_value=None, dtype=object)
            for index, value in given:
                array[index] = value
        elif nested[0]:
            array = vector_infos(env, given)
        else:
            array = _column(given, num_envs)
        mask = np.zeros(num_envs, dtype=np.bool_)
        mask[indices] = True
        out[key], out[f"_{key}"] = array, mask
    return out


def _column(given: list[tuple[int, Any]], num_envs: int) -> np.ndarray:
    """One key's values in the array `_add_info` makes for the first of them (its type decides)."""
    first = given[0][1]
    if type(first) in (int, float, bool) or issubclass(type(first), np.number):
        array = np.zeros(num_envs, dtype=type(first))
    elif isinstance(first, np.ndarray):
        array = np.zeros((num_envs, *first.shape), dtype=first.dtype)
    else:
        array = np.full(num_envs, fill_value=None, dtype=object)
    if array.dtype == object:  # one at a time: a list or tuple must land whole in its cell
        for index, value in given:
            array[index] = value
    else:
        array[[index for index, _ in given]] = [value for _, value in given]
    return array
