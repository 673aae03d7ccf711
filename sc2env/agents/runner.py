"""Play an agent in an env for some episodes, and summarise the scores."""

from __future__ import annotations

import dataclasses
import statistics
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import gymnasium as gym

from sc2env.agents.base import Agent
from sc2env.env.env import SC2Env
from sc2env.errors import SC2EnvError
from sc2env.interface import Observation


@dataclasses.dataclass(frozen=True)
class Episode:
    """One finished (or interrupted) episode.

    score:  the game's score at the end (`info["score"]`, the curriculum score on mini-games: what the SC2LE
            paper reports); `reward` is the sum of rewards, which differs where the score doesn't start at 0.
    """

    map_name: str
    score: int
    reward: float
    steps: int
    game_loops: int
    seconds: float
    outcome: int = 0
    invalid_actions: int = 0
    complete: bool = True


StepCallback = Callable[[int, dict[str, Any]], None]
"""on_step(episode_steps, info), called after the reset (with 0 steps) and after every env step."""


def run_episode(
    env: gym.Env,
    agent: Agent,
    *,
    seed: int | None = None,
    on_step: StepCallback | None = None,
    setup: bool = False,
) -> Episode:
    """Reset the env and the agent, play until the episode ends, and return its result. With `setup`, the
    agent's `setup(env.unwrapped)` comes between the env's reset (the game info is known then) and its own."""
    unwrapped = _sc2env(env)
    start = time.perf_counter()
    _, info = env.reset(seed=seed)
    if setup:
        agent.setup(unwrapped)
    agent.reset()
    if on_step is not None:
        on_step(0, info)
    total, steps, invalid = 0.0, 0, 0
    done = False
    observe = getattr(agent, "observe", None)  # optional for agents written before it existed
    while not done:
        action = agent.step(_observation(unwrapped))
        _, reward, terminated, truncated, info = env.step(action)
        if observe is not None:
            observe(reward, terminated, truncated, info)
        total += float(reward)
        steps += 1
        invalid += bool(info["invalid_action"])
        done = terminated or truncated
        if on_step is not None:
            on_step(steps, info)
    return Episode(
        map_name=unwrapped.config.map_name,
        score=int(info["score"]),
        reward=total,
        steps=steps,
        game_loops=int(info["game_loop"]),
        seconds=time.perf_counter() - start,
        outcome=int(info["outcome"]),
        invalid_actions=invalid,
    )


def _sc2env(env: gym.Env) -> SC2Env:
    """The SC2Env under `env`'s wrappers; TypeError for an env of another kind, which agents can't read."""
    unwrapped = env.unwrapped
    if not isinstance(unwrapped, SC2Env):
        raise TypeError(f"agents play sc2env's SC2Env (under any wrappers), not {type(unwrapped).__name__}")
    return unwrapped


def _observation(env: SC2Env) -> Observation:
    """The observation the agent acts on: the env's last, decoded."""
    observation = env.last_observation
    if observation is None:  # reset() made one: only a closed env has none
        raise SC2EnvError("the env has no observation to act on: it was closed during the episode")
    return observation


def run_agent(
    env: gym.Env,
    agent: Agent,
    episodes: int,
    *,
    seed: int | None = None,
    on_step: StepCallback | None = None,
    on_episode: Callable[[Episode], None] | None = None,
) -> list[Episode]:
    """`setup` the agent and play `episodes` episodes; the first is seeded with `seed` (the rest follow it)."""
    results = []
    for i in range(episodes):
        episode = run_episode(env, agent, seed=seed if i == 0 else None, on_step=on_step, setup=i == 0)
        results.append(episode)
        if on_episode is not None:
            on_episode(episode)
    return results


@dataclasses.dataclass(frozen=True)
class Summary:
    """Scores of several episodes on one map."""

    map_name: str
    episodes: int
    mean: float
    max: int
    min: int
    stdev: float
    steps: int
    seconds: float
    invalid_actions: int = 0
    wins: int = 0
    losses: int = 0
    ties: int = 0
    """Episodes won, lost and tied (outcome +1, -1, 0 of finished ones; against an opponent, the game's result)."""

    @property
    def steps_per_second(self) -> float:
        return self.steps / self.seconds if self.seconds > 0 else 0.0


def summarise(episodes: Iterable[Episode]) -> list[Summary]:
    """One Summary per map, in the order the maps first appear."""
    by_map: dict[str, list[Episode]] = {}
    for episode in episodes:
        by_map.setdefault(episode.map_name, []).append(episode)
    return [_summary(name, group) for name, group in by_map.items()]


def _summary(name: str, group: Sequence[Episode]) -> Summary:
    scores = [e.score for e in group]
    return Summary(
        map_name=name,
        episodes=len(group),
        mean=statistics.fmean(scores),
        max=max(scores),
        min=min(scores),
        stdev=statistics.pstdev(scores),
        steps=sum(e.steps for e in group),
        seconds=sum(e.seconds for e in group),
        invalid_actions=sum(e.invalid_actions for e in group),
        wins=sum(e.complete and e.outcome > 0 for e in group),
        losses=sum(e.complete and e.outcome < 0 for e in group),
        ties=sum(e.complete and e.outcome == 0 for e in group),
    )
