"""RandomAgent: the SC2LE paper's random policy, drawn from the action masks so every action is valid."""

from __future__ import annotations

import numpy as np

from sc2env.agents.base import Agent
from sc2env.interface import Observation


class RandomAgent(Agent):
    """Uniform over the available functions, then uniform over each argument's allowed values.

    Returns MultiDiscrete vectors in the env's action layout; components the chosen function doesn't take are 0.
    """

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def step(self, observation: Observation) -> np.ndarray:
        masks = observation.masks
        spec = masks.spec
        position = int(self.rng.choice(np.flatnonzero(masks.function)))
        components = spec.split(masks.for_function(int(spec.functions[position])))
        vector = np.zeros(len(spec.nvec), np.int64)
        vector[0] = position
        for i, allowed in enumerate(components[1:], start=1):
            vector[i] = self.rng.choice(np.flatnonzero(allowed))
        return vector
