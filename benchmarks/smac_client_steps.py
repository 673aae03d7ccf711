"""The SMAC env's own cost per step, without the game's: env steps/s and µs per step of StarCraft2Env alone.

A random policy plays `--steps` steps of each scenario on the built-in engine (in this process) while every
answer the game gives is recorded; then a stand-in game hands those answers back, instantly and in order, to
a fresh env making the same calls (get_obs, get_state, get_avail_actions, step; resets included), which is
timed. What is left is the client side of a SMAC step: reading the raw units, building observations, state
and masks, turning actions into commands, reward and info. The best of `--repeats` replays is reported, so
that another process's load counts as little as it can.

    python benchmarks/smac_client_steps.py [--steps 2000] [--repeats 5] [--map 3m,8m,2s3z,MMM2,27m_vs_30m]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Iterable

import numpy as np

from sc2env.smac import StarCraft2Env


class Recorder:
    """Wraps a SMAC env's game and keeps every answer it gives, in order."""

    def __init__(self, game) -> None:
        self.game = game
        self.answers: list = []

    def __getattr__(self, name: str):
        return getattr(self.game, name)

    def _keep(self, answer):
        self.answers.append(answer)
        return answer

    def start(self, seed):
        return self._keep(self.game.start(seed))

    def act_step_observe(self, actions):
        return self._keep(self.game.act_step_observe(actions))

    def step_observe(self, count: int):
        return self._keep(self.game.step_observe(count))


class Replay:
    """A stand-in game answering with a recording, in order (SmacGame's methods)."""

    def __init__(self, game_info, answers: list, type_count: int) -> None:
        self.game_info = game_info
        self._answers = answers
        self._next = 0
        self._type_count = type_count
        self.running = False

    def _answer(self):
        answer = self._answers[self._next]
        self._next += 1
        return answer

    def start(self, seed):
        self.running = True
        return self._answer()

    def act_step_observe(self, actions):
        return self._answer()

    def step_observe(self, count: int):
        return self._answer()

    def kill(self, tags: Iterable[int]) -> None:
        pass

    def create_units(self, units) -> None:
        pass

    def unit_type_count(self) -> int:
        return self._type_count

    def save_replay(self) -> bytes:
        return b""

    def close(self) -> None:
        self.running = False


def play(env: StarCraft2Env, steps: int) -> None:
    """`steps` random steps, every agent acting (the same seed gives the same actions on the same answers)."""
    rng = np.random.default_rng(0)
    env.reset()
    for _ in range(steps):
        env.get_obs()
        env.get_state()
        avail = np.array(env.get_avail_actions())
        _, terminated, _ = env.step(np.argmax(rng.random(avail.shape) * avail, axis=1))
        if terminated:
            env.reset()


def client_time(map_name: str, steps: int, repeats: int) -> float:
    """The best time of `repeats` replays of `steps` steps (seconds)."""
    live = StarCraft2Env(map_name=map_name, seed=0, engine="builtin", direct=True)
    recorder = Recorder(live._game)
    live._game = recorder
    try:
        play(live, steps)
        info, type_count = live._game.game_info, live._game.unit_type_count()
    finally:
        live.close()
    best = float("inf")
    for _ in range(repeats):
        env = StarCraft2Env(map_name=map_name, seed=0, game=Replay(info, recorder.answers, type_count))
        start = time.process_time()
        play(env, steps)
        best = min(best, time.process_time() - start)
        env.close()
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--map", default="3m,8m,2s3z,MMM2,27m_vs_30m")
    args = parser.parse_args()
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs; the env alone, on recorded answers")
    print(f"{'scenario':12s} {'client us/step':>15s} {'client steps/s':>15s}")
    for map_name in args.map.split(","):
        seconds = client_time(map_name, args.steps, args.repeats)
        print(f"{map_name:12s} {seconds / args.steps * 1e6:15.0f} {args.steps / seconds:15.0f}")


if __name__ == "__main__":
    main()
