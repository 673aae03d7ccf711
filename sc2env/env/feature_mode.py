"""Feature-layer actions: PySC2's function calls as a 14-component MultiDiscrete, masked by the observation."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env import errors
from sc2env.env.action_mode import ActionMode, Ask
from sc2env.interface import (
    FUNCTIONS,
    ActionMasks,
    ActionSpec,
    FunctionCall,
    Observation,
    ObservationDecoder,
    decode_action,
    encode_action,
)
from sc2env.interface.actions import as_function_call


class FeatureActions(ActionMode):
    """`[function, screen, minimap, screen2, queued, ..., unload_id]` over an ActionSpec (all functions or a
    subset), masked by the decoded observation's ActionMasks."""

    def __init__(self, spec: ActionSpec):
        self.spec = spec
        self.names = spec.names
        self.nvec = spec.nvec
        self._masks: ActionMasks | None = None

    def start(self, decoder: ObservationDecoder) -> None:
        """Nothing of the map is needed: the observation's masks say it all."""

    def observe(
        self,
        obs: Observation,
        echoed: Sequence[sc_pb.Action],
        answers: Sequence[Any],
        ask: Ask,
        ended: bool,
    ) -> dict[str, np.ndarray]:
        self._masks = obs.masks
        return {"action_mask": obs.masks.flat, "last_actions": obs.last_actions}

    def flat_mask(self) -> np.ndarray:
        return self._current().flat.copy()

    def split_mask(self, flat: np.ndarray) -> tuple[np.ndarray, ...]:
        return self.spec.split(flat)

    def conditional_mask(self, function: int, units: int | None = None) -> np.ndarray:
        if units is not None:
            raise ValueError("units= conditions raw actions (actions='raw'); feature-layer actions have none")
        masks = self._current()
        return self.spec.conditional_mask(masks.flat, function, masks.target_masks)

    def encode(self, action: Any) -> list[sc_pb.Action]:
        if isinstance(action, FunctionCall) or hasattr(action, "arguments"):
            call = as_function_call(action)
        else:
            call = self.spec.to_call(action)
        if call.function == FUNCTIONS.no_op.id or self._stand_in(call):  # the game gets no action at all
            return []
        return [encode_action(call, self.spec.fmt, self._current())]

    def to_vector(self, call: Any) -> np.ndarray:
        return self.spec.to_vector(as_function_call(call))

    def to_call(self, vector: Any) -> FunctionCall:
        return self.spec.to_call(vector)

    def recorded(self, echoed: Sequence[sc_pb.Action]) -> tuple[list[Any], list[str]]:
        calls: list[Any] = []
        left_out = []
        for action in echoed:
            call = decode_action(action, self.spec.fmt)
            if call is None:
                left_out.append("an action no function of this interface expresses")
            elif call.function not in self.spec.function_ids:
                left_out.append(f"{FUNCTIONS[call.function].name} (not in this env's functions)")
            elif (self.spec.to_vector(call) >= self.spec.nvec).any():
                left_out.append(
                    f"{FUNCTIONS[call.function].name} with an argument beyond this env's ranges "
                    f"(max_selected_units, max_cargo?)"
                )
            else:
                calls.append(call)
        return calls, left_out

    def no_op_vector(self) -> np.ndarray:
        if FUNCTIONS.no_op.id in self.spec.function_ids:
            return self.spec.to_vector(FUNCTIONS.no_op())
        return np.zeros(len(self.nvec), np.int64)  # a subset without no_op: its first function

    def _stand_in(self, call: FunctionCall) -> bool:
        """Whether `call` is what the mask offers when no function of a subset can be called: the subset's
        first function, marked so that every component keeps an allowed value. It is played as no_op."""
        return self._current().stand_in and call.function == self.spec.function_ids[0]

    def _current(self) -> ActionMasks:
        if self._masks is None:
            raise errors.ProtocolError("the action masks need an observation: call reset() first")
        return self._masks
