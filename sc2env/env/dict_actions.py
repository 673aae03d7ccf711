"""The env's action as a Dict of its components by name, for libraries and code that prefer names to positions."""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from sc2env.errors import MalformedActionError
from sc2env.interface import FunctionCall


class DictActions(gym.ActionWrapper):
    """An sc2env env whose action space is a Dict of the MultiDiscrete's 14 components by name:
    `{"function": Discrete(F), "screen": Discrete(W*H), ..., "unload_id": Discrete(n)}` (see docs/env.md).

    An action may leave out the components its function doesn't take (they count as 0):
    `env.step({"function": 2, "screen": y * width + x})`. A FunctionCall passes through unchanged.
    `reverse_action(vector)` gives the dict of an action vector (of a replay's steps, say).
    """

    def __init__(self, env: gym.Env):
        super().__init__(env)
        spec = env.unwrapped.action_spec
        self._names = spec.names
        self.action_space = spaces.Dict({name: spaces.Discrete(int(n)) for name, n in zip(spec.names, spec.nvec)})

    def action(self, action: Mapping[str, Any] | FunctionCall) -> np.ndarray | FunctionCall:
        if isinstance(action, FunctionCall):
            return action
        if not isinstance(action, Mapping):
            raise MalformedActionError(f"DictActions takes a dict of action components ({', '.join(self._names)}) "
                                       f"or a FunctionCall, not {type(action).__name__}: {action!r:.80}")
        unknown = sorted(set(action) - set(self._names), key=str)
        if unknown:
            close = difflib.get_close_matches(str(unknown[0]), self._names, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise MalformedActionError(f"no action component {', '.join(map(repr, unknown))}{hint} (the components: "
                                       f"{', '.join(self._names)})")
        if "function" not in action:
            raise MalformedActionError("an action dict needs its 'function' (the others default to 0)")
        # The env checks every value against its component's range, as it does for a vector.
        return np.array([np.asarray(action.get(name, 0)).item() for name in self._names])

    def reverse_action(self, action: np.ndarray) -> dict[str, int]:
        """The dict of a 14-component action vector."""
        return {name: int(value) for name, value in zip(self._names, np.asarray(action).tolist())}
