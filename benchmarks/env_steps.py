"""Env steps per second: one SC2Env, our vector env with 1, 2 and 4 games, and PySC2's SC2Env, in one run.

Also two SC2Envs in two processes at once, sharing nothing: how far two cores carry two games here, the
yardstick for the vector env's ratio.

All on the built-in engine, MoveToBeacon, 64×64 screen and minimap, step_mul 8, every feature layer, the
agent acting every step. The action loop is the same everywhere: select the army, then move to a random point
(a real command every step, not no-ops). PySC2 (pysc2-evolved) plays the same engine through
`--make-sc2path`; it is timed in a child interpreter because it parses absl flags at import.

    python benchmarks/env_steps.py [--steps 3000] [--no-pysc2] [--no-pair]

Targets (issue 5): one env >= 1,000 steps/s; vector env >= 1.8x one env on 2 cores; sc2env >= 3x PySC2.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile

import sc2env  # noqa: F401  (registers the ids)
from sc2env.env.speed import env_steps_per_second, vector_steps_per_second

PYSC2_LOOP = r"""
import sys, time
import numpy as np
from absl import flags
flags.FLAGS(["bench"])
from pysc2_evolved.env import sc2_env
from pysc2_evolved.lib import actions, features
F = actions.FUNCTIONS
steps = int(sys.argv[1])
env = sc2_env.SC2Env(map_name="MoveToBeacon", players=[sc2_env.Agent(sc2_env.Race.terran)], step_mul=8,
                     random_seed=0, agent_interface_format=features.AgentInterfaceFormat(
                         feature_dimensions=features.Dimensions(screen=64, minimap=64)))
rng = np.random.default_rng(0)
points = rng.integers(0, 64, size=(steps, 2))
ts = env.reset()[0]
ts = env.step([F.select_army("select")])[0]
start = time.perf_counter()
for x, y in points:
    ts = env.step([F.Move_screen("now", (int(x), int(y)))])[0]
    if ts.last():
        env.reset()
        ts = env.step([F.select_army("select")])[0]
print(steps / (time.perf_counter() - start))
env.close()
"""


# One SC2Env in a child interpreter: set up, say "ready", wait for "go", then print the monotonic start and
# end of the timed steps (CLOCK_MONOTONIC is one clock for every process of the machine).
PAIR_MEMBER = r"""
import sys, time
import gymnasium as gym
import sc2env
from sc2env.env.speed import BENCH_KWARGS, timed_steps
env = gym.make("sc2env/MoveToBeacon-v0", **BENCH_KWARGS).unwrapped
start, end = timed_steps(env, int(sys.argv[1]), ready=lambda: (print("ready", flush=True), sys.stdin.readline()),
                         clock=time.monotonic)
print(start, end, flush=True)
env.close()
"""


def independent_pair(steps: int) -> float:
    """Steps/s of two SC2Envs in two processes stepped at the same time (each with its own game): what two
    games give when nothing at all is shared, the yardstick for a vector env of two or more games."""
    children = [subprocess.Popen([sys.executable, "-c", PAIR_MEMBER, str(steps)], stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE, text=True) for _ in range(2)]
    finished = False
    try:
        for child in children:
            if child.stdout.readline().strip() != "ready":
                raise RuntimeError("a pair member failed to start its env (see its output above)")
        for child in children:
            child.stdin.write("go\n")
            child.stdin.flush()
        spans = [tuple(map(float, child.stdout.readline().split())) for child in children]
        if any(len(span) != 2 for span in spans):
            raise RuntimeError("a pair member failed while stepping (see its output above)")
        finished = True
    finally:
        for child in children:
            if not finished:  # the other member may be waiting for "go" or still stepping: stop it
                child.kill()
            child.wait(60)
    return 2 * steps / (max(end for _, end in spans) - min(start for start, _ in spans))


def time_pysc2(steps: int) -> float | None:
    try:
        import pysc2_evolved  # noqa: F401
    except ImportError:
        return None
    with tempfile.TemporaryDirectory(prefix="sc2env-bench-") as sc2path:
        subprocess.run([sys.executable, "-m", "sc2env.engine", "--make-sc2path", sc2path], check=True,
                       capture_output=True)
        env = dict(os.environ, SC2PATH=sc2path, SDL_VIDEODRIVER="dummy", PYGAME_HIDE_SUPPORT_PROMPT="1")
        done = subprocess.run([sys.executable, "-c", PYSC2_LOOP, str(steps)], env=env, capture_output=True,
                              text=True, timeout=600, check=True)
        return float(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=3000, help="env steps per measurement")
    parser.add_argument("--no-pysc2", action="store_true", help="skip the PySC2 comparison")
    parser.add_argument("--vector", type=int, nargs="*", default=[1, 2, 4], help="vector env sizes")
    parser.add_argument("--no-pair", dest="pair", action="store_false",
                        help="skip the two independent envs in two processes")
    args = parser.parse_args(argv)

    results: dict[str, float] = {}
    results["one env"] = env_steps_per_second(args.steps)
    print(f"one SC2Env:              {results['one env']:8.0f} steps/s", flush=True)
    for n in args.vector:
        results[f"vector x{n}"] = vector_steps_per_second(n, args.steps)
        print(f"SC2VectorEnv, {n} games:   {results[f'vector x{n}']:8.0f} steps/s  "
              f"({results[f'vector x{n}'] / results['one env']:.2f}x one env)", flush=True)
    if args.pair:
        results["pair"] = independent_pair(args.steps)
        print(f"two SC2Envs, 2 processes: {results['pair']:7.0f} steps/s  ({results['pair'] / results['one env']:.2f}x "
              "one env; nothing shared: the yardstick for any vector env here)", flush=True)
    if not args.no_pysc2:
        pysc2 = time_pysc2(args.steps)
        if pysc2 is None:
            print("PySC2 SC2Env:            not installed (pip install pysc2-evolved, Python >= 3.11)")
        else:
            results["pysc2"] = pysc2
            print(f"PySC2 SC2Env:            {pysc2:8.0f} steps/s  (sc2env one env is "
                  f"{results['one env'] / pysc2:.2f}x faster)", flush=True)
    print(f"[{os.cpu_count()} cores; MoveToBeacon 64x64, step_mul 8, built-in engine]")
    one = results["one env"]
    print(f"target one env >= 1,000 steps/s: {one:.0f}, {'met' if one >= 1000 else 'NOT met'}")
    if "vector x4" in results:
        ratio = results["vector x4"] / one
        print(f"target vector env (4 games) >= 1.8x one env: {ratio:.2f}x, {'met' if ratio >= 1.8 else 'NOT met'}")
    if "pysc2" in results:
        ratio = one / results["pysc2"]
        print(f"target sc2env >= 3x PySC2: {ratio:.2f}x, {'met' if ratio >= 3 else 'NOT met'}")
    return results


if __name__ == "__main__":
    main()
