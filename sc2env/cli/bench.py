"""`sc2env bench`: env steps per second of one env on the built-in engine."""

from __future__ import annotations

import dataclasses
import os

from sc2env.cli.options import Command, Options, option


@dataclasses.dataclass(frozen=True)
class BenchOptions(Options):
    """The options of `sc2env bench`."""

    steps: int = option(
        2000, "env steps to time (100 or more: fewer time little but noise)", metavar="N", at_least=100
    )


def bench(options: BenchOptions) -> int:
    from sc2env.env.speed import env_steps_per_second

    rate = env_steps_per_second(options.steps)
    print(
        f"one SC2Env, built-in engine, MoveToBeacon 64x64, step_mul 8: {rate:,.0f} env steps/s "
        f"({options.steps} steps, {os.cpu_count()} cores)"
    )
    print("The full benchmark (vector envs, PySC2 comparison): python benchmarks/env_steps.py")
    return 0


COMMAND = Command("bench", "measure env steps per second on the built-in engine", BenchOptions, bench)
