"""The agent protocol: reset() at each episode start, step(observation) -> action for every observation."""

from __future__ import annotations

import abc
from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from sc2env.interface import FunctionCall, Observation, RawFunctionCall

if TYPE_CHECKING:
    from sc2env.env.env import SC2Env

Action = FunctionCall | RawFunctionCall | np.ndarray
"""What an agent returns: a `FunctionCall` (a `RawFunctionCall` under actions="raw") or a MultiDiscrete action
vector; `SC2Env.step` takes each."""


class Agent(abc.ABC):
    """An agent plays one env, one episode after another.

    The runner (`sc2env.agents.run_episode`, `sc2env run`) calls `setup(env)` once, then `reset()` at the start
    of every episode and `step(observation)` for every observation, where `observation` is the env's decoded
    `sc2env.interface.Observation` (`env.unwrapped.last_observation`: named feature layers, unit tables,
    `available_actions` and the action masks), and `observe(...)` with each step's outcome: the reward and the
    episode's end that PySC2 puts in its TimeStep (`obs.reward`, `obs.last()`). Subclasses name the env options
    they need in `env_kwargs` (e.g. `{"use_feature_units": True}`); the command line passes them to
    `gymnasium.make`.
    """

    env_kwargs: ClassVar[Mapping[str, Any]] = MappingProxyType({})
    actions: ClassVar[tuple[str, ...]] = ("features",)
    """The env action spaces (`actions=` values) the agent can play: its actions are FunctionCalls or
    feature-layer vectors unless it says it plays "raw" too."""
    min_screen_size: ClassVar[int] = 1
    min_minimap_size: ClassVar[int] = 1
    """The smallest feature screen and minimap (pixels a side) the agent is made for. It still plays on
    smaller ones, badly; `sc2env run` warns when the env's are smaller."""

    def setup(self, env: SC2Env) -> None:  # noqa: B027 - a hook agents may leave out
        """Called once with the unwrapped env after its first reset, before the first `reset()` and `step()`:
        `env.config`, `env.action_spec`, `env.game_info` and `env.transforms` (coordinate conversions) are
        all known then."""

    def reset(self) -> None:  # noqa: B027 - a hook agents may leave out
        """Called at the start of every episode."""

    def observe(self, reward: float, terminated: bool, truncated: bool, info: Mapping[str, Any]) -> None:  # noqa: B027 - a hook agents may leave out
        """Called after every step with its outcome: the reward for the action `step()` chose, whether the
        episode ended there (the last call of an episode has `terminated` or `truncated` set), and the env's info
        (score, invalid_action, ...). Agents that learn or keep statistics override it."""

    @abc.abstractmethod
    def step(self, observation: Observation) -> Action:
        """The action for this observation."""


class ScriptedAgent(Agent):
    """An agent whose play is written by hand, as sc2env's scripts are: made for feature layers of 16 pixels and
    more, the size below which several units share a pixel and the suite no longer plays every script."""

    min_screen_size = 16
    min_minimap_size = 16
