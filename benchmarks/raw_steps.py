"""Env steps per second with raw actions against feature-layer actions, and what the raw masks cost.

One SC2Env on the built-in engine, 64×64 screen and minimap, every feature layer, step_mul 8. Both action
spaces play the same line: the whole army moves to a random point every step (feature layers: select_army
once, then Move_screen; raw: Move_pt with units = every able unit). The raw env observes raw units too and
asks the game which abilities each own unit has (a RequestQuery sent in the step's round trip); the last
column times the env's building of the masks from that answer (and any query it had to send on its own),
the flat action mask included.

    python benchmarks/raw_steps.py [--steps 2000] [--map DefeatRoaches,MoveToBeacon]
"""

from __future__ import annotations

import argparse
import time

import gymnasium as gym
import numpy as np

import sc2env  # noqa: F401  (registers the ids)
from sc2env.env.speed import BENCH_KWARGS, timed_steps
from sc2env.interface import RAW_FUNCTIONS


def raw_steps(map_name: str, steps: int) -> tuple[float, float]:
    """(steps/s, seconds per step building the raw masks) of one raw env moving its army at random."""
    env = gym.make(f"sc2env/{map_name}-v0", actions="raw", **BENCH_KWARGS).unwrapped
    try:
        space = env.raw_space
        rng = np.random.default_rng(0)
        env.reset(seed=0)
        cells = np.flatnonzero(space.world_mask(env.transforms))  # the playable cells
        moves = [
            np.array([RAW_FUNCTIONS.Move_pt.id, 0, space.all_able, 0, cell])
            for cell in rng.choice(cells, steps)
        ]
        queried = [0.0]
        original = env.action_mode.observe

        def timed_observe(*args):
            t = time.perf_counter()
            out = original(*args)
            queried[0] += time.perf_counter() - t
            return out

        env.action_mode.observe = timed_observe
        start = time.perf_counter()
        for action in moves:
            _, _, terminated, truncated, _ = env.step(action)
            if terminated or truncated:
                env.reset()
        elapsed = time.perf_counter() - start
        return steps / elapsed, queried[0] / steps
    finally:
        env.close()


def feature_steps(map_name: str, steps: int) -> float:
    env = gym.make(f"sc2env/{map_name}-v0", **BENCH_KWARGS).unwrapped
    try:
        start, end = timed_steps(env, steps)
        return steps / (end - start)
    finally:
        env.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--map", default="DefeatRoaches,MoveToBeacon")
    args = parser.parse_args()
    print(
        f"{'mini-game':28s} {'features steps/s':>17s} {'raw steps/s':>12s} {'raw/features':>13s} "
        f"{'masks us/step':>14s}"
    )
    for map_name in args.map.split(","):
        features = feature_steps(map_name, args.steps)
        raw, query = raw_steps(map_name, args.steps)
        print(f"{map_name:28s} {features:17.0f} {raw:12.0f} {raw / features:13.2f} {query * 1e6:14.0f}")


if __name__ == "__main__":
    main()
