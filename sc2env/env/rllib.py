"""Env creators for Ray RLlib (or any framework that builds envs from a config dict in worker processes)."""

from __future__ import annotations

import contextlib
import math
import sys
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from sc2env.env.env import SC2Env
from sc2env.env.vector import SC2VectorEnv

SEED_STRIDE = 100_003
"""Seeds of different workers lie this far apart, so that each vector index has its own range."""


def worker_seed(base_seed: int, worker_index: int = 0, vector_index: int = 0) -> int:
    """A seed for sub-env `vector_index` of worker `worker_index`, distinct for every pair."""
    return (
        base_seed + worker_index * SEED_STRIDE + vector_index
    )  # the env hashes seeds beyond the game's 31 bits


def make_env(config: Mapping[str, Any]) -> SC2Env | SC2VectorEnv:
    """Build an sc2env env from an RLlib `EnvContext` (a dict with `worker_index` and `vector_index`).

    The dict holds SC2Env keyword arguments (`map_name`, `screen_size`, ...) plus an optional base `seed`;
    the env's seed is derived from it and the worker and vector indices (without one, every env seeds
    itself from fresh entropy, so that two unseeded experiments differ). RLlib builds every env of a
    runner from one EnvContext whose `vector_index` is 0; the games a context has made are counted on it, so
    the k-th gets vector index k. With `num_envs` in the dict, an SC2VectorEnv of that many games is
    returned. Nothing is started here: each env launches its own game process at its first reset, on a
    free port, in the worker that owns it.

        from ray.tune.registry import register_env
        register_env("sc2", sc2env.env.rllib.make_env)
    """
    kwargs = dict(config)
    base_seed = kwargs.pop("seed", None)
    num_envs = kwargs.pop("num_envs", None)
    kwargs.pop("flatten_keys", None)
    seed = None
    if base_seed is not None:
        worker = getattr(config, "worker_index", None)
        if worker is None and num_envs is not None and "ray" in sys.modules:
            warnings.warn(_NO_WORKER_INDEX, stacklevel=2)
        made = getattr(config, _MADE, 0)
        with contextlib.suppress(AttributeError):  # a plain dict holds no count (and is made anew each time)
            setattr(config, _MADE, made + int(num_envs or 1))  # a vector env's games take a range of indices
        seed = worker_seed(int(base_seed), worker or 0, getattr(config, "vector_index", 0) + made)
    if num_envs is not None:
        return SC2VectorEnv(num_envs=int(num_envs), seed=seed, **kwargs)
    return SC2Env(seed=seed, **kwargs)


_MADE = "sc2env_envs_made"
_NO_WORKER_INDEX = (
    "sc2env's make_env got a seed and num_envs but no worker_index: RLlib's gym_env_vectorize_mode="
    "'vector_entry_point' passes the env config as a plain dict, so every env runner seeds its games alike "
    "and plays the same episodes. Use RLlib's default vectorize mode (sync), whose EnvContext carries the "
    "runner's index, or leave `seed` out (each game then seeds itself from fresh entropy)."
)


def make_masked_env(config: Mapping[str, Any]) -> FlatObservationWithMask:
    """make_env(config) in the observation layout of RLlib's action-masking RLModule.

    `flatten_keys` in the config picks the observation entries to flatten (default: all but the mask).
    """
    if config.get("num_envs") is not None:  # RLlib vectorises single envs itself (num_envs_per_env_runner)
        raise ValueError(
            "make_masked_env makes one env: leave num_envs out of its config and set RLlib's "
            "num_envs_per_env_runner instead (make_env takes num_envs for a vector env of its own)"
        )
    env = make_env(config)
    assert isinstance(env, SC2Env)  # no num_envs: one env
    return FlatObservationWithMask(env, config.get("flatten_keys"))


class FlatObservationWithMask(gym.ObservationWrapper):
    """`{"action_mask": float32 mask, "observations": float32 vector}`: the layout RLlib's action-masking
    RLModule (`ray.rllib.examples.rl_modules.classes.action_masking_rlm`) reads.

    `keys` picks which observation entries are flattened into "observations" (all but the mask by default).
    """

    def __init__(self, env: gym.Env, keys: Sequence[str] | None = None):
        super().__init__(env)
        if not isinstance(env.observation_space, spaces.Dict):
            raise TypeError(
                f"FlatObservationWithMask flattens a Dict observation (an sc2env env's), not {env.observation_space}"
            )
        items = env.observation_space.spaces
        choices = [k for k in items if k != "action_mask"]
        self.keys = tuple(keys) if keys is not None else tuple(choices)
        unknown = [k for k in self.keys if k not in choices]
        if unknown:
            raise ValueError(f"cannot flatten {unknown}; choose among {choices}")
        size = sum(math.prod(items[k].shape or ()) for k in self.keys)
        self.observation_space = spaces.Dict(
            {
                "action_mask": spaces.Box(0.0, 1.0, items["action_mask"].shape, np.float32),
                "observations": spaces.Box(-np.inf, np.inf, (size,), np.float32),
            }
        )

    def observation(self, observation: dict) -> dict:
        flat = np.concatenate([observation[k].reshape(-1) for k in self.keys]).astype(np.float32)
        return {"action_mask": observation["action_mask"].astype(np.float32), "observations": flat}
