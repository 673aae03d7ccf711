"""vector_infos builds exactly the infos Gymnasium's VectorEnv._add_info builds, info after info."""

from __future__ import annotations

import numpy as np
from gymnasium.vector import VectorEnv

from sc2env.env.vector_infos import vector_infos


class _Four(VectorEnv):
    num_envs = 4


def _gymnasium(env: VectorEnv, infos) -> dict:
    out: dict = {}
    for index, info in infos:
        out = env._add_info(out, info, index)
    return out


def _same(a, b, where: str = "infos") -> None:
    assert type(a) is type(b), where
    if isinstance(a, dict):
        assert list(a) == list(b), f"{where}: keys {list(a)} != {list(b)}"
        for key in a:
            _same(a[key], b[key], f"{where}[{key!r}]")
    elif isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and a.shape == b.shape, f"{where}: {a.dtype}{a.shape} != {b.dtype}{b.shape}"
        if a.dtype == object:
            for x, y in zip(a, b):
                _same(x, y, f"{where}[]")
        else:
            assert np.array_equal(a, b), where
    else:
        assert a is b or a == b, where


def test_the_same_keys_arrays_dtypes_and_masks_as_gymnasium():
    env = _Four()
    infos = [
        (0, {"game_loop": 8, "score": 1.5, "won": False, "details": {"a": 1, "b": 2.0}, "why": ""}),
        (2, {"game_loop": 16, "score": 2, "won": True, "details": {"b": 3.5}, "why": "bad", "late": [1, 2]}),
        (
            3,
            {
                "final_obs": {"screen": np.ones((2, 2), np.uint8)},
                "final_info": {"game_loop": 9, "details": {"a": 4}},
                "vector": np.arange(3, dtype=np.int16),
                "game_loop": np.int64(24),
                "pair": (1, 2),
            },
        ),
        (1, {"vector": np.arange(3, 6, dtype=np.int16), "pair": (3, 4), "game_loop": 1.7}),
    ]
    _same(vector_infos(env, infos), _gymnasium(env, infos))


def test_no_infos_and_empty_ones():
    env = _Four()
    assert vector_infos(env, []) == {}
    _same(vector_infos(env, [(1, {}), (0, {"x": 1})]), _gymnasium(env, [(1, {}), (0, {"x": 1})]))


def test_a_key_that_changes_kind_follows_gymnasiums_rules():
    env = _Four()
    infos = [(0, {"odd": {"a": 1}, "n": 1}), (1, {"odd": 5, "n": 2})]
    _same(vector_infos(env, infos), _gymnasium(env, infos))
