"""Viewer frames per second: how long `env.render()` takes (rgb_array, 1280x720, the whole viewer), per scene.

Scenes on the built-in engine, 64x64 screen and minimap, step_mul 8: DefeatRoaches with the army selected and
moving (9 Marines crowding, their order lines and move markers), and BuildMarines after the scripted economy's
first 7 minutes (about 60 units and 20 structures on screen, 40 Marines in a control group). Each scene is played
to its point, then rendered `--frames` times over consecutive steps; the steps are not timed. Times are the
process's CPU time (rendering runs in this thread alone), which a machine shared with other work disturbs
less than wall time; the median frame is reported.

    python benchmarks/viewer_frames.py [--frames 200]

Uses only the public env API, so the same script times any checkout (run it from that checkout's root).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

import gymnasium as gym
import numpy as np

import sc2env  # noqa: F401  (registers the ids)
from sc2env.agents.registry import make_agent
from sc2env.interface import FUNCTIONS as F


def _defeat_roaches():
    env = gym.make("sc2env/DefeatRoaches-v0", engine="builtin", render_mode="rgb_array")
    env.reset(seed=1)
    env.step(F.select_army("select"))
    rng = np.random.default_rng(0)

    def step(n: int) -> None:  # a new move every other step: lines and fresh markers all along
        point = (int(rng.integers(6, 26)), int(rng.integers(10, 40)))  # the Marines' half: no fight ends it
        _, _, terminated, truncated, _ = env.step(F.Move_screen("now", point) if n % 2 else F.no_op())
        if terminated or truncated:
            env.reset()
            env.step(F.select_army("select"))

    return env, step


def _build_marines():
    agent = make_agent("scripted", "BuildMarines")
    env = gym.make("sc2env/BuildMarines-v0", engine="builtin", render_mode="rgb_array", **agent.env_kwargs)
    env.reset(seed=1)
    agent.setup(env.unwrapped)
    agent.reset()
    for _ in range(840):
        env.step(agent.step(env.unwrapped.last_observation))

    def step(n: int) -> None:
        env.step(agent.step(env.unwrapped.last_observation))

    return env, step


SCENES = {"DefeatRoaches, army moving": _defeat_roaches, "BuildMarines at 7:00": _build_marines}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=200)
    args = parser.parse_args()
    print(f"{'scene':30s} {'units':>6s} {'ms/frame':>9s} {'frames/s':>9s}")
    for name, make in SCENES.items():
        env, step = make()
        times = []
        for n in range(args.frames):
            step(n)
            start = time.process_time()
            env.render()
            times.append(time.process_time() - start)
        units = len(env.unwrapped._last_response.observation.raw_data.units)
        env.close()
        ms = statistics.median(times) * 1000
        print(f"{name:30s} {units:6d} {ms:9.2f} {1000 / ms:9.1f}")


if __name__ == "__main__":
    main()
