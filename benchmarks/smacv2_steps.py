"""SMACv2 env steps per second on sc2env (every agent acts each step), beside JaxMARL's SMAX SMACv2 scenarios.

One StarCraftCapabilityEnvWrapper in this process with SMACv2's published configs (its weights, surrounded
and reflected starts, obs_own_pos, use_unit_ranges), on the built-in engine (or --engine); a random policy
picks each agent's action uniformly among its available ones, and a step counts the calls a PyMARL runner
makes (get_obs, get_state, get_avail_actions, step). Resets are included (a SMACv2 episode is short, so they
weigh): their share of the time is reported, as is the client's (the time outside the game's answers).

SMAX (JaxMARL, CPU) runs its `smacv2_<n>_units` scenarios from the interpreter that has it, as
benchmarks/smac_steps.py does: one env jitted, and a vmapped batch.

    python benchmarks/smacv2_steps.py [--seconds 10] [--race terran,zerg,protoss] [--units 5,10,20] [--no-smax]
"""

from __future__ import annotations

import argparse
import os
import pathlib
import sys
import time

import numpy as np
from smac_steps import SMAX_PYTHON, random_actions, smax_steps, time_game_calls

from sc2env.errors import SC2EnvError
from sc2env.smac import StarCraftCapabilityEnvWrapper

PUBLISHED = {  # smacv2/examples/configs/sc2_gen_<race>.yaml: unit types, weights, exceptions
    "terran": (["marine", "marauder", "medivac"], [0.45, 0.45, 0.1], ["medivac"]),
    "zerg": (["zergling", "baneling", "hydralisk"], [0.45, 0.1, 0.45], ["baneling"]),
    "protoss": (["stalker", "zealot", "colossus"], [0.45, 0.45, 0.1], []),
}


def make(race: str, n_units: int, engine: str) -> StarCraftCapabilityEnvWrapper:
    kinds, weights, exceptions = PUBLISHED[race]
    config = {
        "n_units": n_units,
        "n_enemies": n_units,
        "team_gen": {
            "dist_type": "weighted_teams",
            "unit_types": kinds,
            "weights": weights,
            "exception_unit_types": exceptions,
            "observe": True,
        },
        "start_positions": {"dist_type": "surrounded_and_reflect", "p": 0.5, "map_x": 32, "map_y": 32},
    }
    return StarCraftCapabilityEnvWrapper(
        capability_config=config,
        map_name=f"10gen_{race}",
        obs_own_pos=True,
        use_unit_ranges=True,
        min_attack_range=2,
        engine=engine,
        seed=0,
    )


def sc2env_steps(race: str, n_units: int, seconds: float, engine: str) -> tuple[float, float, float, int]:
    """(env steps/s, client share, reset share, episodes) of one env playing at random for `seconds`."""
    env = make(race, n_units, engine)
    try:
        game = env.env._game
        waited = time_game_calls(game)
        rng = np.random.default_rng(0)
        env.reset()
        steps = episodes = 0
        resetting = 0.0
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            env.get_obs()
            env.get_state()
            avail = np.array(env.get_avail_actions())
            _, terminated, _ = env.step(random_actions(avail, rng))
            steps += 1
            if terminated:
                episodes += 1
                t = time.perf_counter()
                env.reset()
                resetting += time.perf_counter() - t
        elapsed = time.perf_counter() - start
        return steps / elapsed, 1 - (waited[0] + resetting) / elapsed, resetting / elapsed, episodes
    finally:
        env.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="timing per scenario and env")
    parser.add_argument("--race", default="terran,zerg,protoss")
    parser.add_argument("--units", default="5,10,20")
    parser.add_argument("--engine", default="builtin")
    parser.add_argument("--no-smax", action="store_true", help="leave out the SMAX reference")
    parser.add_argument("--smax-python", default=SMAX_PYTHON)
    parser.add_argument("--smax-batch", type=int, default=64)
    args = parser.parse_args()
    smax = not args.no_smax and pathlib.Path(args.smax_python).exists()
    print(f"python {sys.version.split()[0]}, engine {args.engine}, {os.cpu_count()} CPUs")
    print(
        f"{'scenario':18s} {'sc2env steps/s':>15s} {'client share':>13s} {'reset share':>12s} {'episodes':>9s} "
        f"{'SMAX 1 env':>11s} {f'SMAX {args.smax_batch} envs':>13s}"
    )
    for n_units in (int(n) for n in args.units.split(",")):
        reference = (
            smax_steps(f"smacv2_{n_units}_units", args.seconds, args.smax_batch, args.smax_python)
            if smax
            else None
        )
        single = f"{reference['single']:11.0f}" if reference else f"{'n/a':>11s}"
        batched = f"{reference['batched']:13.0f}" if reference else f"{'n/a':>13s}"
        for race in args.race.split(","):
            name = f"10gen_{race} {n_units}v{n_units}"
            try:
                rate, client, resets, episodes = sc2env_steps(race, n_units, args.seconds, args.engine)
            except SC2EnvError as error:  # a scenario the engine can't play yet says why
                print(f"{name:18s} {'-':>15s}  {error}"[:160])
                continue
            print(f"{name:18s} {rate:15.0f} {client:13.0%} {resets:12.0%} {episodes:9d} {single} {batched}")


if __name__ == "__main__":
    main()
