"""The env's action as a Dict of its components by name, for libraries and code that prefer names to positions."""

from __future__ import annotations

import collections
import difflib
import numbers
from collections.abc import Mapping
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from sc2env.env.env import SC2Env
from sc2env.errors import MalformedActionError
from sc2env.interface import FunctionCall, RawFunctionCall


class DictActions(gym.ActionWrapper, gym.utils.RecordConstructorArgs):
    """An sc2env env whose action space is a Dict of the MultiDiscrete's 14 components by name:
    `{"function": Discrete(F), "screen": Discrete(W*H), ..., "unload_id": Discrete(n)}` (see docs/env.md), in
    the vector's order, so that whatever flattens the Dict lines its components up as `ActionSpec` does.
    Under actions="raw" the components are the raw ones: function, queued, units, target, world.

    An action may leave out the components its function doesn't take (they count as 0):
    `env.step({"function": 2, "screen": y * width + x})`. A FunctionCall or RawFunctionCall passes through.
    `reverse_action(vector)` gives the dict of an action vector (of a replay's steps, say).
    """

    def __init__(self, env: gym.Env):
        gym.utils.RecordConstructorArgs.__init__(self)
        gym.ActionWrapper.__init__(self, env)
        if not isinstance(env.unwrapped, SC2Env):
            raise TypeError(f"DictActions wraps an sc2env env (SC2Env), not {type(env.unwrapped).__name__}")
        mode = env.unwrapped.action_mode
        self._names = mode.names
        # An OrderedDict keeps its order in a gymnasium Dict; a plain dict would be sorted by name.
        self.action_space = spaces.Dict(
            collections.OrderedDict((name, spaces.Discrete(int(n))) for name, n in zip(mode.names, mode.nvec))
        )

    def action(
        self, action: Mapping[str, Any] | FunctionCall | RawFunctionCall
    ) -> np.ndarray | FunctionCall | RawFunctionCall:
        if isinstance(action, (FunctionCall, RawFunctionCall)):
            return action
        if not isinstance(action, Mapping):
            raise MalformedActionError(
                f"DictActions takes a dict of action components ({', '.join(self._names)}) "
                f"or a FunctionCall, not {type(action).__name__}: {action!r:.80}"
            )
        unknown = sorted(set(action) - set(self._names), key=str)
        if unknown:
            close = difflib.get_close_matches(str(unknown[0]), self._names, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise MalformedActionError(
                f"no action component {', '.join(map(repr, unknown))}{hint} (the components: "
                f"{', '.join(self._names)})"
            )
        if "function" not in action:
            raise MalformedActionError("an action dict needs its 'function' (the others default to 0)")
        values = []
        for name in self._names:
            value = action.get(name, 0)
            value = value.item() if isinstance(value, np.ndarray) and value.size == 1 else value
            if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
                raise MalformedActionError(
                    f"the action dict's {name!r} must be one integer, not {value!r:.80}"
                )
            values.append(int(value))
        return np.array(values, np.int64)  # the env checks each against its component's range

    def reverse_action(self, action: np.ndarray) -> dict[str, Any]:
        """The dict of an action vector (14,) (ints), or of a batch (..., 14) (an array per component); raw
        vectors have 5 components."""
        vector = np.asarray(action)
        if vector.ndim == 0 or vector.shape[-1] != len(self._names):
            raise MalformedActionError(
                f"an action vector has {len(self._names)} components (last axis), not shape {vector.shape}"
            )
        if vector.ndim == 1:
            return {name: int(value) for name, value in zip(self._names, vector.tolist())}
        return {name: vector[..., i] for i, name in enumerate(self._names)}
