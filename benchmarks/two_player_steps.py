"""Env steps/s of two-player games: two agents (both acting) beside one agent against the Computer.

Three ways to play a duel map, in one run, each acting with random valid actions (drawn from the masks):
- parallel_env: two agents, a game process each (lock-step over the join ports);
- opponent=policy: one Gymnasium env whose opponent is a policy in the same process (two game processes);
- opponent=computer: one Gymnasium env against the built-in AI (one game process).
A step is one env step (step_mul game loops, both players acted); episodes restart as they end.
Run: python benchmarks/two_player_steps.py [--steps N] [--repeat R] [--map DuelMarines,Simple64]
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import time
from collections.abc import Callable

import gymnasium as gym
import numpy as np

import sc2env  # noqa: F401  (registers the ids)
from sc2env.env import parallel_env

OPTIONS = dict(engine="builtin", screen_size=64, minimap_size=64, step_mul=8)


def random_policy(space: gym.spaces.MultiDiscrete, seed: int) -> Callable[[dict], np.ndarray]:
    """A policy drawing a random action the observation's action_mask allows."""
    rng = np.random.default_rng(seed)
    offsets = np.concatenate([[0], np.cumsum(space.nvec)])

    def act(obs: dict) -> np.ndarray:
        mask = obs["action_mask"]
        return np.array([rng.choice(np.flatnonzero(mask[a:b])) for a, b in itertools.pairwise(offsets)])

    return act


def two_agents(map_name: str, steps: int) -> float:
    env = parallel_env(map_name, **OPTIONS)
    policies = {
        agent: random_policy(env.action_space(agent), i) for i, agent in enumerate(env.possible_agents)
    }
    try:
        obs, _ = env.reset(seed=0)
        started = time.perf_counter()
        for _ in range(steps):
            if not env.agents:
                obs, _ = env.reset()
            obs, *_ = env.step({agent: policies[agent](obs[agent]) for agent in env.agents})
        return steps / (time.perf_counter() - started)
    finally:
        env.close()


def one_agent(map_name: str, steps: int, opponent: object) -> float:
    env = gym.make(f"sc2env/{map_name}-v0", opponent=opponent, **OPTIONS)
    act = random_policy(env.action_space, 0)
    try:
        obs, _ = env.reset(seed=0)
        started = time.perf_counter()
        for _ in range(steps):
            obs, _, terminated, truncated, _ = env.step(act(obs))
            if terminated or truncated:
                obs, _ = env.reset()
        return steps / (time.perf_counter() - started)
    finally:
        env.close()


def policy_opponent(map_name: str, steps: int) -> float:
    space = gym.make(f"sc2env/{map_name}-v0").action_space  # made, not reset: no game starts
    return one_agent(map_name, steps, random_policy(space, 1))


def computer_opponent(map_name: str, steps: int) -> float:
    return one_agent(map_name, steps, "computer:medium")


WAYS: dict[str, Callable[[str, int], float]] = {
    "parallel_env, two agents (2 processes)": two_agents,
    "opponent=policy (2 processes)": policy_opponent,
    "opponent=computer:medium (1 process)": computer_opponent,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=400, help="env steps per measurement")
    parser.add_argument("--repeat", type=int, default=3, help="measurements per way (the median is shown)")
    parser.add_argument("--map", default="DuelMarines,Simple64")
    args = parser.parse_args()
    print(f"{'map':<24} {'way':<44} {'steps/s':>8} {'(min-max)':>12}")
    for map_name in args.map.split(","):
        for way, measure in WAYS.items():
            rates = [measure(map_name, args.steps) for _ in range(args.repeat)]
            spread = f"({min(rates):.0f}-{max(rates):.0f})"
            print(f"{map_name:<24} {way:<44} {statistics.median(rates):>8.0f} {spread:>12}", flush=True)


if __name__ == "__main__":
    main()
