"""Direct mode against the socket: steps/s and CPU per step, one env on every mini-game, and vector envs.

One run measures, round after round and in turn (the machine's speed drifts, so each ratio compares figures of
the same round): one SC2Env over a socket and in direct mode on each of the seven mini-games; SC2VectorEnv
(each game in its own process, over a socket) against the worker vector env (worker processes stepping their
share of direct games) at several sizes; and PySC2's SC2Env on the same engine. Beside each steps/s figure
stands the CPU time per step of every process involved (this one and all its descendants: games, workers),
which another engineer's load on the machine moves far less than it moves steps/s.

The loop is sc2env.env.speed's: 64×64 screen and minimap, every feature layer, step_mul 8, select the army,
then a Move_screen to a random point every step.

    python benchmarks/direct_steps.py [--steps 1500] [--repeat 3] [--maps ...] [--vector 2 4 8 16]
                                      [--no-pysc2]
    python benchmarks/direct_steps.py --breakdown MAP ...   (where a direct step's CPU goes)
    python benchmarks/direct_steps.py --split MAP ...       (the same, finer and nested)
    python benchmarks/direct_steps.py --loop MAP ...        (a plain direct loop: thread CPU per step;
                                                             under callgrind, two --steps give instructions)

Targets (issue 27): one env direct >= 1.8x socket; the worker vector env of 8 games >= 2x SC2VectorEnv's and
>= 2,500 MoveToBeacon steps/s; its CPU per step <= 0.55x SC2VectorEnv's.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import pathlib
import statistics
import sys
import time
from collections.abc import Callable

import engine_steps  # benchmarks/, next to this script
import env_steps
import gymnasium as gym
import numpy as np

import sc2env  # noqa: F401  (registers the ids)
from sc2env.env.env import SC2Env
from sc2env.env.speed import BENCH_KWARGS, RESELECT_EVERY, _moves
from sc2env.game.maps import MINI_GAMES
from sc2env.interface import FUNCTIONS

_TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds() -> float:
    """CPU time (user + system) of this process and every live descendant (its games and workers)."""
    parents: dict[int, int] = {}
    times: dict[int, float] = {}
    for entry in pathlib.Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:  # gone meanwhile
            continue
        pid = int(entry.name)
        parents[pid] = int(fields[1])
        times[pid] = (int(fields[11]) + int(fields[12])) / _TICK
    ours, total = {os.getpid()}, 0.0
    changed = True
    while changed:  # descendants, generation by generation
        changed = False
        for pid, parent in parents.items():
            if parent in ours and pid not in ours:
                ours.add(pid)
                changed = True
    total = sum(times.get(pid, 0.0) for pid in ours)
    return total


Measure = Callable[[], tuple[float, float]]
"""A measurement: (steps per second, CPU microseconds per step)."""


def _timed(step: Callable[[int], None], steps: int) -> tuple[float, float]:
    cpu, start = cpu_seconds(), time.perf_counter()
    for i in range(steps):
        step(i)
    wall, used = time.perf_counter() - start, cpu_seconds() - cpu
    return steps / wall, used / steps * 1e6


def one_env(map_name: str, steps: int, direct: bool) -> tuple[float, float]:
    env = SC2Env(map_name, direct=direct, **BENCH_KWARGS)
    try:
        moves = _moves(env, np.random.default_rng(0), steps)
        select = env.function_call_to_action(FUNCTIONS.select_army("select"))
        env.reset(seed=0)
        env.step(select)

        def step(i: int) -> None:
            _, _, terminated, truncated, _ = env.step(moves[i])
            if terminated or truncated:
                env.reset()
                env.step(select)

        return _timed(step, steps)
    finally:
        env.close()


def vector_env(num_envs: int, steps: int, workers: int | None) -> tuple[float, float]:
    """SC2VectorEnv (workers None: a game process per sub-env) or the worker vector env with `workers`."""
    kwargs = dict(BENCH_KWARGS)
    if workers is not None:
        kwargs["workers"] = workers
    envs = gym.make_vec("sc2env/MoveToBeacon-v0", num_envs=num_envs, **kwargs)
    try:
        rounds = max(1, steps // num_envs)
        single = SC2Env("MoveToBeacon", **BENCH_KWARGS)
        rng = np.random.default_rng(0)
        moves = [np.stack(_moves(single, rng, num_envs)) for _ in range(rounds)]
        select = np.stack([single.function_call_to_action(FUNCTIONS.select_army("select"))] * num_envs)
        envs.reset(seed=0)
        envs.step(select)
        own = time.process_time()  # this process alone: the vector env's own share of the CPU
        rate, cpu = _timed(lambda i: envs.step(select if i % RESELECT_EVERY == 0 else moves[i]), rounds)
        own = time.process_time() - own
        print(
            f"  ({'worker vector env' if workers else 'SC2VectorEnv'}, {num_envs} games: its main process "
            f"{own / (rounds * num_envs) * 1e6:.0f} us CPU/step)",
            file=sys.stderr,
        )
        return rate * num_envs, cpu / num_envs
    finally:
        envs.close()


def breakdown(map_name: str, steps: int) -> dict[str, float]:
    """Where one direct env's step goes: CPU microseconds per step (thread time, which load moves little) in
    the engine's work, the protocol checks, the client's action encoding, and its observation decoding and
    packing (layers, non-spatial arrays, masks)."""
    from sc2env.client.protocol import Protocol
    from sc2env.engine.inprocess import InProcessEngine
    from sc2env.env.observation_packer import ObservationPacker
    from sc2env.interface.decoder import ObservationDecoder

    out = _thread_times(
        map_name,
        steps,
        [
            (InProcessEngine, "respond", "engine (respond)"),
            (Protocol, "check_response", "protocol checks"),
            (ObservationDecoder, "decode", "decode observation (all but layers)"),
            (ObservationPacker, "pack", "pack observation (layers into uint8)"),
            (SC2Env, "encode", "encode action"),
        ],
    )
    total = out.pop("total")
    out["the rest (match glue, reward, info, checks)"] = total - sum(out.values())
    out["total"] = total
    return out


def split(map_name: str, steps: int) -> dict[str, float]:
    """A finer split of a direct step: the inclusive CPU microseconds per step of the engine's parts (the
    game's step, the action, the observation and in it the layers' rendering and the panels) and the client's
    (the layers' decode, the non-layer decode, the action's encoding). Nested: the figures do not add up."""
    from sc2env.engine import observe
    from sc2env.engine.frame import FrameCache
    from sc2env.engine.inprocess import InProcessEngine
    from sc2env.engine.panels import Panels
    from sc2env.engine.render import LayerRenderer
    from sc2env.engine.session import Session
    from sc2env.interface.decoder import ObservationDecoder
    from sc2env.interface.layer_decoder import StackDecoder

    return _thread_times(
        map_name,
        steps,
        [
            (InProcessEngine, "respond", "engine (respond)"),
            (Session, "_step", "  the game's step (simulation)"),
            (Session, "_action", "  the action"),
            (observe, "observation", "  the observation"),
            (LayerRenderer, "render", "    feature layers rendered"),
            (FrameCache, "coverage", "      coverage and densities"),
            (FrameCache, "points", "      minimap unit points"),
            (FrameCache, "tables", "      per-unit layer values"),
            (LayerRenderer, "_draw_units", "      unit layers written"),
            (Panels, "fill", "    panels (player, command card, score)"),
            (observe, "merge_layers", "  layers merged into the answer"),
            (StackDecoder, "decode", "client: layers decoded into uint8"),
            (ObservationDecoder, "decode", "client: non-layer decode"),
            (SC2Env, "encode", "client: action encoding"),
        ],
    )


def _thread_times(map_name: str, steps: int, timed: list[tuple[object, str, str]]) -> dict[str, float]:
    """Thread CPU microseconds per direct step spent in each (owner, function name, label) of `timed`
    (inclusive), and the whole step's ("total"), over `steps` steps of the benchmark's loop."""
    spent = {label: 0.0 for _, _, label in timed}
    originals = [(owner, name, getattr(owner, name)) for owner, name, _ in timed]

    def wrap(function, label):
        def timed_call(*args, **kwargs):
            start = time.thread_time()
            try:
                return function(*args, **kwargs)
            finally:
                spent[label] += time.thread_time() - start

        return timed_call

    for (owner, name, label), (_, _, function) in zip(timed, originals):
        setattr(owner, name, wrap(function, label))
    try:
        env = SC2Env(map_name, direct=True, **BENCH_KWARGS)
        moves = _moves(env, np.random.default_rng(0), steps)
        select = env.function_call_to_action(FUNCTIONS.select_army("select"))
        env.reset(seed=0)
        env.step(select)
        for key in spent:
            spent[key] = 0.0
        start = time.thread_time()
        for action in moves:
            _, _, terminated, truncated, _ = env.step(action)
            if terminated or truncated:
                env.reset()
                env.step(select)
        total = time.thread_time() - start
        env.close()
    finally:
        for owner, name, function in originals:
            setattr(owner, name, function)
    out = {label: seconds / steps * 1e6 for label, seconds in spent.items()}
    out["total"] = total / steps * 1e6
    return out


def main(argv: list[str] | None = None) -> dict[str, list[tuple[float, float]]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=1500, help="env steps per measurement")
    parser.add_argument("--repeat", type=int, default=3, help="rounds of all the measurements, in turn")
    parser.add_argument("--maps", nargs="*", default=sorted(MINI_GAMES), help="mini-games for one env")
    parser.add_argument("--vector", type=int, nargs="*", default=[2, 4, 8, 16], help="vector env sizes")
    parser.add_argument(
        "--workers", type=int, default=None, help="the worker vector env's workers (default: the cores)"
    )
    parser.add_argument("--no-pysc2", action="store_true", help="skip PySC2's SC2Env")
    parser.add_argument(
        "--breakdown",
        nargs="*",
        default=[],
        metavar="MAP",
        help="only: where a direct step's CPU goes on MAPs",
    )
    parser.add_argument(
        "--loop",
        nargs="*",
        default=[],
        metavar="MAP",
        help="only: a plain direct loop's thread CPU per step on MAPs, nothing timed inside it",
    )
    parser.add_argument(
        "--split",
        nargs="*",
        default=[],
        metavar="MAP",
        help="only: a finer, nested split of a direct step's CPU on MAPs",
    )
    args = parser.parse_args(argv)
    if args.loop:
        for name in args.loop:
            print(f"{name}: {_thread_times(name, args.steps, [])['total']:.0f} us thread CPU per direct step")
        return {}
    if args.breakdown or args.split:
        measure = breakdown if args.breakdown else split
        rows = {name: measure(name, args.steps) for name in args.breakdown or args.split}
        print(f"{'CPU us per direct step':44s}" + "".join(f"{name:>24s}" for name in rows))
        for label in next(iter(rows.values())):
            print(f"{label:44s}" + "".join(f"{row[label]:24.0f}" for row in rows.values()))
        return {}
    has_workers = importlib.util.find_spec("sc2env.env.worker_vector") is not None
    workers = args.workers or os.cpu_count() or 1

    runs: dict[str, tuple[Measure, str | None]] = {}
    for name in args.maps:
        runs[f"{name}, socket"] = (lambda name=name: one_env(name, args.steps, False), None)
        runs[f"{name}, direct"] = (lambda name=name: one_env(name, args.steps, True), f"{name}, socket")
    for n in args.vector:
        runs[f"SC2VectorEnv, {n} games"] = (lambda n=n: vector_env(n, args.steps, None), None)
        if has_workers:
            runs[f"worker vector env, {n} games"] = (
                lambda n=n: vector_env(n, args.steps, workers),
                f"SC2VectorEnv, {n} games",
            )
    if not args.no_pysc2:
        if importlib.util.find_spec("pysc2_evolved") is None:
            print("PySC2 SC2Env: not installed (pip install pysc2-evolved, Python >= 3.11)")
        else:
            runs["PySC2 SC2Env (MoveToBeacon)"] = (
                lambda: (env_steps.time_pysc2(args.steps), float("nan")),
                None,
            )
    results: dict[str, list[tuple[float, float]]] = {label: [] for label in runs}
    for r in range(args.repeat):
        for label, (measure, _) in runs.items():
            results[label].append(measure())
            rate, cpu = results[label][-1]
            print(
                f"round {r + 1}: {label}: {rate:.0f} steps/s, {cpu:.0f} us CPU/step",
                file=sys.stderr,
                flush=True,
            )
    print(f"{'':36s} {'steps/s':>18s} {'CPU us/step':>18s}   per round: x steps/s, x CPU")
    ratios: dict[str, tuple[list[float], list[float]]] = {}
    for label, (_, base) in runs.items():
        rates = [rate for rate, _ in results[label]]
        cpus = [cpu for _, cpu in results[label]]
        line = f"{label + ':':36s} {_spread(rates):>18s} {_spread(cpus):>18s}"
        if base is not None:
            ratios[label] = (
                [a[0] / b[0] for a, b in zip(results[label], results[base])],
                [a[1] / b[1] for a, b in zip(results[label], results[base])],
            )
            line += f"   {_spread(ratios[label][0], '.2f')}x, {_spread(ratios[label][1], '.2f')}x {base}"
        print(line)
    print(
        f"[{os.cpu_count()} cores; 64x64, step_mul 8, built-in engine; {args.repeat} round(s) of {args.steps} "
        f"steps; the worker vector env with {workers} workers]"
    )
    if "MoveToBeacon, direct" in ratios:
        ratio = statistics.median(ratios["MoveToBeacon, direct"][0])
        print(
            f"target one env direct >= 1.8x socket (MoveToBeacon): {ratio:.2f}x, {engine_steps.verdict(ratio >= 1.8)}"
        )
    if "worker vector env, 8 games" in ratios:
        rate = statistics.median(r for r, _ in results["worker vector env, 8 games"])
        speedup, cpu = (statistics.median(v) for v in ratios["worker vector env, 8 games"])
        print(
            f"target worker vector env (8) >= 2x SC2VectorEnv (8): {speedup:.2f}x, {engine_steps.verdict(speedup >= 2)}"
        )
        print(
            f"target worker vector env (8) >= 2,500 steps/s: {rate:.0f}, {engine_steps.verdict(rate >= 2500)}"
        )
        print(
            f"target its CPU per step <= 0.55x SC2VectorEnv's: {cpu:.2f}x, {engine_steps.verdict(cpu <= 0.55)}"
        )
    return results


def _spread(values: list[float], fmt: str = ".0f") -> str:
    """ "median (min-max)" of a run's figures ("n/a" for figures not measured)."""
    if all(value != value for value in values):  # NaN: PySC2's CPU (its loop runs in a process of its own)
        return "n/a"
    median = format(statistics.median(values), fmt)
    return median if len(values) == 1 else f"{median} ({min(values):{fmt}}-{max(values):{fmt}})"


if __name__ == "__main__":
    main()
