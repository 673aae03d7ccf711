"""RandomAgent: the SC2LE paper's random policy, drawn from the action masks so every action is valid."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from sc2env.agents.base import Agent
from sc2env.errors import SC2EnvError
from sc2env.interface import Observation

if TYPE_CHECKING:
    from sc2env.env.env import SC2Env


class RandomAgent(Agent):
    """Uniform over the available functions, then uniform over each argument's allowed values.

    Returns MultiDiscrete vectors in the env's action layout (the raw one under actions="raw"); components the
    chosen function doesn't take are 0.
    """

    actions = ("features", "raw")

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)
        self._env: SC2Env | None = None

    def setup(self, env: SC2Env) -> None:
        self._env = env if env.raw_space is not None else None

    def step(self, observation: Observation) -> np.ndarray:
        if self._env is not None:
            return self._raw_step(self._env)
        masks = observation.masks
        spec = masks.spec
        position = int(self.rng.choice(np.flatnonzero(masks.function)))
        components = spec.split(masks.for_function(int(spec.functions[position])))
        vector = np.zeros(len(spec.nvec), np.int64)
        vector[0] = position
        for i, allowed in enumerate(components[1:], start=1):
            vector[i] = self.rng.choice(np.flatnonzero(allowed))
        return vector

    def _raw_step(self, env: SC2Env) -> np.ndarray:
        space, masks = env.raw_space, env.raw_masks
        if space is None or masks is None:  # setup() saw a raw env: it can't have lost its raw actions
            raise SC2EnvError("RandomAgent was set up on an env of raw actions that has none now")
        function = int(self.rng.choice(np.flatnonzero(masks.functions)))
        units = int(
            self.rng.choice(np.flatnonzero(env.raw_conditional_mask(function)[space.segment("units")]))
        )
        mask = env.raw_conditional_mask(function, units)  # a unit is not its own target
        vector = np.array(
            [self.rng.choice(np.flatnonzero(mask[space.segment(name)])) for name in space.names]
        )
        vector[space.names.index("units")] = units
        return vector
