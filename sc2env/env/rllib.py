"""An env creator for Ray RLlib (or any framework that builds envs from a config dict in worker processes)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sc2env.env.env import SC2Env
from sc2env.env.vector import SC2VectorEnv

SEED_STRIDE = 100_003
"""Seeds of different workers lie this far apart, so that each vector index has its own range."""


def worker_seed(base_seed: int, worker_index: int = 0, vector_index: int = 0) -> int:
    """A seed for sub-env `vector_index` of worker `worker_index`, distinct for every pair."""
    return (base_seed + worker_index * SEED_STRIDE + vector_index) % 2**31


def make_env(config: Mapping[str, Any]) -> SC2Env | SC2VectorEnv:
    """Build an sc2env env from an RLlib `EnvContext` (a dict with `worker_index` and `vector_index`).

    The dict holds SC2Env keyword arguments (`map_name`, `screen_size`, ...) plus an optional base `seed`;
    the env's seed is derived from it and the worker and vector indices. With `num_envs` in the dict (RLlib's
    `gym_env_vectorize_mode="vector_entry_point"`) an SC2VectorEnv is returned. Nothing is started here:
    each env launches its own game process at its first reset, on a free port, in the worker that owns it.

        from ray.tune.registry import register_env
        register_env("sc2", sc2env.env.rllib.make_env)
    """
    kwargs = dict(config)
    base_seed = int(kwargs.pop("seed", 0) or 0)
    num_envs = kwargs.pop("num_envs", None)
    seed = worker_seed(base_seed, getattr(config, "worker_index", 0), getattr(config, "vector_index", 0))
    if num_envs is not None:
        return SC2VectorEnv(num_envs=int(num_envs), seed=seed, **kwargs)
    return SC2Env(seed=seed, **kwargs)
