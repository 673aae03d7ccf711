"""The headline speed measurement: env steps per second, one env or a vector env, on the built-in engine.

The loop is the same everywhere: select the army once, then a Move_screen to a random point every step
(MoveToBeacon, 64×64 screen and minimap, every feature layer, step_mul 8). Used by `sc2env bench` and
benchmarks/env_steps.py.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np

from sc2env.env.env import SC2Env
from sc2env.interface import FUNCTIONS

BENCH_KWARGS: dict[str, Any] = {"engine": "builtin", "screen_size": 64, "minimap_size": 64, "step_mul": 8}
RESELECT_EVERY = 200
"""Steps between select_army calls in the vector loop: episodes that autoreset start with nothing selected."""


def _moves(env, rng: np.random.Generator, n: int) -> list[np.ndarray]:
    """Move_screen actions to `n` random points of the env's screen (whatever size the kwargs gave it)."""
    width, height = env.interface_format.screen_size
    return [
        env.function_call_to_action(FUNCTIONS.Move_screen("now", (int(x), int(y))))
        for x, y in zip(rng.integers(0, width, n), rng.integers(0, height, n))
    ]


def env_steps_per_second(steps: int = 2000, map_name: str = "MoveToBeacon", **kwargs) -> float:
    """Steps per second of one SC2Env (timed after the game has started)."""
    env = gym.make(f"sc2env/{map_name}-v0", **(BENCH_KWARGS | kwargs)).unwrapped
    try:
        start, end = timed_steps(env, steps)
        return steps / (end - start)
    finally:
        env.close()


def timed_steps(
    env, steps: int, ready: Callable[[], None] = lambda: None, clock: Callable[[], float] = time.perf_counter
) -> tuple[float, float]:
    """Start a game in `env` and select the army, call `ready()`, then time `steps` random Move_screen steps
    (episodes that end are reset and the army selected again): the clock's readings before and after."""
    moves = _moves(env, np.random.default_rng(0), steps)
    select = env.function_call_to_action(FUNCTIONS.select_army("select"))
    env.reset(seed=0)
    env.step(select)
    ready()
    start = clock()
    for action in moves:
        _, _, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            env.reset()
            env.step(select)
    return start, clock()


def vector_steps_per_second(
    num_envs: int,
    steps: int = 2000,
    map_name: str = "MoveToBeacon",
    mode: str = "vector_entry_point",
    **kwargs,
) -> float:
    """Sub-env steps per second of a vector env with `num_envs` games (about `steps` in all): SC2VectorEnv, or
    Gymnasium's own with mode "sync" or "async"."""
    envs = gym.make_vec(
        f"sc2env/{map_name}-v0", num_envs=num_envs, vectorization_mode=mode, **(BENCH_KWARGS | kwargs)
    )
    try:
        rounds = max(1, steps // num_envs)
        rng = np.random.default_rng(0)
        # The actions are made by an env of the same settings (Gymnasium's async sub-envs live elsewhere).
        single = SC2Env(map_name, **(BENCH_KWARGS | kwargs))
        moves = [np.stack(_moves(single, rng, num_envs)) for _ in range(rounds)]
        select = np.stack([single.function_call_to_action(FUNCTIONS.select_army("select"))] * num_envs)
        envs.reset(seed=0)
        envs.step(select)
        start = time.perf_counter()
        for i, actions in enumerate(moves):
            envs.step(select if i % RESELECT_EVERY == 0 else actions)
        return rounds * num_envs / (time.perf_counter() - start)
    finally:
        envs.close()
