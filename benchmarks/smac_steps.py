"""SMAC env steps per second on sc2env (every agent acts each step), beside JaxMARL's SMAX as the reference.

One StarCraft2Env in this process, on the built-in engine (or --engine), SMAC's default options; a random
policy picks each agent's action uniformly among its available ones, and a step counts the calls a PyMARL
runner makes (get_obs, get_state, get_avail_actions, step); resets are included. The client's share is the
time spent in this process outside the game's answers (what a faster engine path could not remove).

SMAX (JaxMARL's JAX re-implementation of SMAC, CPU) runs in a subprocess from the interpreter that has it
(--smax-python, else $JAXMARL_PYTHON, else ../venv-jaxmarl beside the project): one env stepped by a jitted step, and a batch of
--smax-batch envs vmapped in one jitted step (its intended use), both with random available actions and
resets included, after a warm-up that compiles them. SMAX has no Medivac, so no MMM2.

    python benchmarks/smac_steps.py [--seconds 10] [--map 3m,8m,2s3z,MMM2,27m_vs_30m] [--no-smax]
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import subprocess
import sys
import time

import numpy as np
from direct_steps import cpu_seconds  # benchmarks/, next to this script

from sc2env.smac import StarCraft2Env

TARGETS = {"3m": 1500, "27m_vs_30m": 200}
"""Env steps/s one process should reach on this machine (the issue's targets)."""
SMAX_PYTHON = pathlib.Path(__file__).resolve().parents[1].parent / "venv-jaxmarl" / "bin" / "python"
"""Where docs/smac.md's recipe puts SMAX's interpreter: a venv beside the project, as ../shared is."""

SMAX_SCRIPT = r"""
import json, sys, time
import jax, jax.numpy as jnp
from jaxmarl import make
from jaxmarl.environments.smax import map_name_to_scenario

name, seconds, batch = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
env = make("HeuristicEnemySMAX", scenario=map_name_to_scenario(name))

def random_step(key, state):
    key, act_key, step_key = jax.random.split(key, 3)
    avail = env.get_avail_actions(state)
    keys = jax.random.split(act_key, env.num_agents)
    actions = {
        a: jax.random.choice(k, avail[a].shape[0], p=avail[a] / avail[a].sum())
        for a, k in zip(env.agents, keys)
    }
    _, state, _, _, _ = env.step(step_key, state, actions)  # resets by itself when the episode ends
    return key, state

def timed(step, key, state):
    for _ in range(2):  # compile: the state after a reset and after a step differ in weak types
        key, state = step(key, state)
    jax.block_until_ready(state)
    n, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        for _ in range(50):
            key, state = step(key, state)
        jax.block_until_ready(state)
        n += 50
    return n / (time.perf_counter() - start)

key = jax.random.PRNGKey(0)
_, state = env.reset(key)
single = timed(jax.jit(random_step), key, state)
keys = jax.random.split(key, batch)
_, states = jax.vmap(env.reset)(keys)
batched = timed(jax.jit(jax.vmap(random_step)), keys, states) * batch
print(json.dumps({"single": single, "batched": batched}))
"""


def random_actions(avail: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random available action per agent (argmax of noise over the available ones)."""
    return np.argmax(rng.random(avail.shape) * avail, axis=1)


def time_game_calls(game) -> list[float]:
    """Wrap `game`'s one call per step to the engine so that the returned one-item list sums the seconds spent
    in it (the engine's share of a step; the rest is the client's)."""
    waited = [0.0]
    original = game.act_step_observe

    def timed_act(request):
        t = time.perf_counter()
        out = original(request)
        waited[0] += time.perf_counter() - t
        return out

    game.act_step_observe = timed_act
    return waited


def sc2env_steps(
    map_name: str, seconds: float, engine: str, direct: bool = True
) -> tuple[float, float, int, float]:
    """(env steps/s, client share of the time, episodes, CPU µs per step of this process and the game's) of one
    env playing at random for `seconds` (the built-in engine in this process, or over a socket to its own
    process with direct=False)."""
    env = StarCraft2Env(map_name=map_name, engine=engine, seed=0, direct=direct)
    try:
        game = env._game
        waited = time_game_calls(game)
        rng = np.random.default_rng(0)
        env.reset()
        steps = episodes = 0
        cpu, start = cpu_seconds(), time.perf_counter()
        while time.perf_counter() - start < seconds:
            env.get_obs()
            env.get_state()
            avail = np.array(env.get_avail_actions())
            _, terminated, _ = env.step(random_actions(avail, rng))
            steps += 1
            if terminated:
                episodes += 1
                env.reset()
        elapsed, used = time.perf_counter() - start, cpu_seconds() - cpu
        return steps / elapsed, 1 - waited[0] / elapsed, episodes, used / steps * 1e6
    finally:
        env.close()


def smax_steps(map_name: str, seconds: float, batch: int, python: str) -> dict | None:
    """SMAX's env steps/s (one env, and `batch` vmapped), or None when SMAX lacks the scenario."""
    done = subprocess.run(
        [python, "-c", SMAX_SCRIPT, map_name, str(seconds), str(batch)],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "JAX_PLATFORMS": "cpu"},
    )
    if done.returncode != 0:
        if "KeyError" in done.stderr:
            return None
        raise RuntimeError(f"SMAX failed on {map_name}:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="timing per scenario and env")
    parser.add_argument("--map", default="3m,8m,2s3z,MMM2,27m_vs_30m")
    parser.add_argument("--engine", default="builtin")
    parser.add_argument(
        "--socket", action="store_true", help="the built-in engine in its own process, not direct mode"
    )
    parser.add_argument("--no-smax", action="store_true", help="leave out the SMAX reference")
    parser.add_argument(
        "--smax-python",
        default=os.environ.get("JAXMARL_PYTHON", SMAX_PYTHON),
        help="a Python with jaxmarl installed (default: $JAXMARL_PYTHON, else %(default)s)",
    )
    parser.add_argument("--smax-batch", type=int, default=64)
    args = parser.parse_args()
    smax = not args.no_smax and pathlib.Path(args.smax_python).exists()
    if not args.no_smax and not smax:
        print(f"SMAX left out: no Python at {args.smax_python} (--smax-python or $JAXMARL_PYTHON)")
    mode = "over a socket" if args.socket else "direct"
    print(f"python {sys.version.split()[0]}, engine {args.engine} ({mode}), {os.cpu_count()} CPUs")
    print(
        f"{'scenario':12s} {'sc2env steps/s':>15s} {'CPU us/step':>12s} {'client share':>13s} {'episodes':>9s} "
        f"{'SMAX 1 env':>11s} {f'SMAX {args.smax_batch} envs':>13s}"
    )
    results = {}
    for map_name in args.map.split(","):
        rate, share, episodes, cpu = sc2env_steps(map_name, args.seconds, args.engine, not args.socket)
        results[map_name] = rate
        reference = smax_steps(map_name, args.seconds, args.smax_batch, args.smax_python) if smax else None
        single = f"{reference['single']:11.0f}" if reference else f"{'n/a':>11s}"
        batched = f"{reference['batched']:13.0f}" if reference else f"{'n/a':>13s}"
        print(f"{map_name:12s} {rate:15.0f} {cpu:12.0f} {share:13.0%} {episodes:9d} {single} {batched}")
    for map_name, target in TARGETS.items():
        if map_name in results:
            met = "met" if results[map_name] >= target else "NOT met"
            print(f"target {map_name} >= {target:,} env steps/s: {results[map_name]:.0f}, {met}")


if __name__ == "__main__":
    main()
