"""Env steps per second: one SC2Env, our vector env with 1, 2 and 4 games, and PySC2's SC2Env, in one run.

Also two SC2Envs in two processes at once, sharing nothing: how far two cores carry two games here, the
yardstick for the vector env's ratio; and 1 and 4 games driven by a bare client, sc2env's Controller alone
(requests out, answers read and parsed; no decoding, no masks): the most any env over these sockets could
reach, with one game and with four.

All on the built-in engine, MoveToBeacon, 64×64 screen and minimap, step_mul 8, every feature layer, the
agent acting every step. The action loop is the same everywhere: select the army, then move to a random point
(a real command every step, not no-ops). PySC2 (pysc2-evolved) plays the same engine through
`--make-sc2path`; it is timed in a child interpreter because it parses absl flags at import.

    python benchmarks/env_steps.py [--steps 3000] [--repeat 3] [--no-pysc2] [--no-pair] [--no-bare]
                                   [--gym-async 2 4]

Targets (issue 5): one env >= 1,000 steps/s; vector env >= 1.8x one env on 2 cores; sc2env >= 3x PySC2.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import select
import statistics
import subprocess
import sys
import tempfile
import time

import engine_steps  # benchmarks/, next to this script
import numpy as np
from s2clientprotocol import sc2api_pb2 as sc_pb

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
    children = [
        subprocess.Popen(
            [sys.executable, "-c", PAIR_MEMBER, str(steps)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
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


def bare_client(games: int, steps: int) -> float:
    """Steps/s of `games` built-in engines driven by sc2env's Controller alone, playing the envs' loop (select the
    army, then Move_screen to a random point every step) on the same interface (64x64, every layer): each round
    sends every game its action + step + observation, then reads the answers in the order the games finish,
    parsed but not decoded (no layers, no masks, no Gymnasium). The client's work is close to nil, so this
    bounds what any env over these sockets could reach on this machine."""
    from sc2env.client import Controller
    from sc2env.interface import FUNCTIONS
    from sc2env.launch import launch

    rng = np.random.default_rng(0)
    actions = []
    for x, y in rng.integers(0, engine_steps.RES, (steps, 2)):
        move = sc_pb.Action()
        command = move.action_feature_layer.unit_command
        command.ability_id = FUNCTIONS.Move_screen.ability_id
        command.target_screen_coord.x, command.target_screen_coord.y = int(x), int(y)
        actions.append([move])
    select_army = sc_pb.Action()
    select_army.action_ui.select_army.selection_add = False
    create, join, _ = engine_steps.setup_requests("MoveToBeacon")
    processes, controllers = [], []
    try:
        for _ in range(games):
            processes.append(launch(engine="builtin"))
            controllers.append(Controller(processes[-1]))
            controllers[-1].create_game(create.create_game)
            controllers[-1].join_game(join.join_game)
            controllers[-1].act_step_observe([select_army], 1)
        rounds = steps // games
        start = time.perf_counter()
        for r in range(rounds):
            pending = {}
            for k, controller in enumerate(controllers):
                sent = controller.begin_act_step_observe(actions[r * games + k], 8)
                pending[sent.fileno()] = (controller, sent)
            while pending:
                for fd in select.select(list(pending), [], [])[0]:
                    controller, sent = pending.pop(fd)
                    if sent.finish()[-1].player_result:
                        controller.restart_game()
                        controller.act_step_observe([select_army], 1)
        return rounds * games / (time.perf_counter() - start)
    finally:
        for controller in controllers:
            controller.close()
        for process in processes:
            process.close()


def time_pysc2(steps: int) -> float:
    with tempfile.TemporaryDirectory(prefix="sc2env-bench-") as sc2path:
        subprocess.run(
            [sys.executable, "-m", "sc2env.engine", "--make-sc2path", sc2path],
            check=True,
            capture_output=True,
        )
        env = dict(os.environ, SC2PATH=sc2path, SDL_VIDEODRIVER="dummy", PYGAME_HIDE_SUPPORT_PROMPT="1")
        done = subprocess.run(
            [sys.executable, "-c", PYSC2_LOOP, str(steps)],
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
            check=True,
        )
        return float(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> dict[str, list[float]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=3000, help="env steps per measurement")
    parser.add_argument(
        "--repeat",
        type=int,
        default=3,
        help="rounds of all the measurements, taken in turn; ratios are per round",
    )
    parser.add_argument("--no-pysc2", action="store_true", help="skip the PySC2 comparison")
    parser.add_argument("--vector", type=int, nargs="*", default=[1, 2, 4], help="vector env sizes")
    parser.add_argument(
        "--no-pair", dest="pair", action="store_false", help="skip the two independent envs in two processes"
    )
    parser.add_argument(
        "--no-bare", dest="bare", action="store_false", help="skip the 1 and 4 games driven by a bare client"
    )
    parser.add_argument(
        "--gym-async",
        type=int,
        nargs="*",
        default=[],
        metavar="N",
        help="also Gymnasium's AsyncVectorEnv with these numbers of games (decoding in workers)",
    )
    args = parser.parse_args(argv)

    # label -> (what it measures, compared with).
    runs: dict[str, tuple] = {"one SC2Env": (lambda: env_steps_per_second(args.steps), None)}
    for n in args.vector:
        runs[f"SC2VectorEnv, {n} games"] = (lambda n=n: vector_steps_per_second(n, args.steps), "one SC2Env")
    for n in args.gym_async:
        runs[f"AsyncVectorEnv, {n} games"] = (
            lambda n=n: vector_steps_per_second(n, args.steps, mode="async"),
            "one SC2Env",
        )
    if args.pair:
        runs["two SC2Envs, 2 processes"] = (lambda: independent_pair(args.steps), "one SC2Env")
    if args.bare:
        runs["bare client, 1 game"] = (lambda: bare_client(1, args.steps), None)
        runs["bare client, 4 games"] = (lambda: bare_client(4, args.steps), "bare client, 1 game")
    if not args.no_pysc2:
        if importlib.util.find_spec("pysc2_evolved") is None:
            print("PySC2 SC2Env: not installed (pip install pysc2-evolved, Python >= 3.11)")
        else:
            runs["PySC2 SC2Env"] = (lambda: time_pysc2(args.steps), None)
    # The VM's speed drifts by tens of percent within minutes, so the measurements are taken in turn, round
    # after round, and each ratio compares two figures of the same round.
    results: dict[str, list[float]] = {label: [] for label in runs}
    for r in range(args.repeat):
        for label, (measure, _) in runs.items():
            results[label].append(measure())
            print(f"round {r + 1}: {label}: {results[label][-1]:.0f} steps/s", file=sys.stderr, flush=True)
    print(f"{'':28s} {'steps/s, median (range)':>26s}   ratio per round, median (range)")
    ratios: dict = {}
    for label, (_, base) in runs.items():
        line = f"{label + ':':28s} {_spread(results[label]):>26s}"
        if base is not None:
            ratios[label] = [a / b for a, b in zip(results[label], results[base])]
            line += f"   {_spread(ratios[label], '.2f')}x {base}"
        print(line)
    if "bare client, 4 games" in results:  # the vector env's ceiling, against its target's yardstick
        ratios["bare 4 vs one"] = [
            a / b for a, b in zip(results["bare client, 4 games"], results["one SC2Env"])
        ]
        print(
            f"{'bare client, 4 games:':28s} {'':>26s}   {_spread(ratios['bare 4 vs one'], '.2f')}x one SC2Env"
        )
    if "PySC2 SC2Env" in results:
        for label in ("one SC2Env", "bare client, 1 game"):
            if label in results:
                ratios[label, "pysc2"] = [a / b for a, b in zip(results[label], results["PySC2 SC2Env"])]
                print(f"{label + ' / PySC2:':28s} {'':>26s}   {_spread(ratios[label, 'pysc2'], '.2f')}x")
    print(
        f"[{os.cpu_count()} cores; MoveToBeacon 64x64, step_mul 8, built-in engine; {args.repeat} round(s) of "
        f"{args.steps} steps]"
    )
    one = statistics.median(results["one SC2Env"])
    print(f"target one env >= 1,000 steps/s: {one:.0f}, {engine_steps.verdict(one >= 1000)}")
    if "SC2VectorEnv, 4 games" in ratios:
        ratio = statistics.median(ratios["SC2VectorEnv, 4 games"])
        print(
            f"target vector env (4 games) >= 1.8x one env: {ratio:.2f}x, {engine_steps.verdict(ratio >= 1.8)}"
        )
    if ("one SC2Env", "pysc2") in ratios:
        ratio = statistics.median(ratios["one SC2Env", "pysc2"])
        print(f"target sc2env >= 3x PySC2: {ratio:.2f}x, {engine_steps.verdict(ratio >= 3)}")
    return results


def _spread(values: list[float], fmt: str = ".0f") -> str:
    """ "median (min-max)" of a run's figures."""
    median = format(statistics.median(values), fmt)
    return median if len(values) == 1 else f"{median} ({min(values):{fmt}}-{max(values):{fmt}})"


if __name__ == "__main__":
    main()
