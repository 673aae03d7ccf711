"""Raw actions: unit commands by raw_units row, `[function, queued, units, target, world]`, masked by what the
game says each unit can do."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from google.protobuf.message import Message
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env import errors
from sc2env.env.action_mode import ActionMode, Ask
from sc2env.interface import (
    RAW_FUNCTIONS,
    FeatureUnit,
    FunctionCall,
    Observation,
    ObservationDecoder,
    PlayerRelative,
    RawActionMasks,
    RawActionSpace,
    RawFunctionCall,
    TargetClass,
    abilities_query,
    decode_raw_action,
    encode_raw_action,
)
from sc2env.interface.transforms import CoordinateTransforms


def several_calls(action: Any) -> list[RawFunctionCall] | None:
    """The calls of an action that is a list (or tuple) of RawFunctionCalls, else None (one call, or a
    vector: a list of numbers). An empty list is no call at all."""
    if isinstance(action, RawFunctionCall) or not isinstance(action, (list, tuple)):
        return None
    if not action:
        return []
    if not all(isinstance(call, RawFunctionCall) for call in action):
        if any(isinstance(call, (RawFunctionCall, FunctionCall)) for call in action):
            raise errors.MalformedActionError(
                "several calls in one step must all be RawFunctionCalls (sc2env.interface.RAW_FUNCTIONS); "
                f"got {[type(call).__name__ for call in action]}"
            )
        return None
    return list(action)


class RawActions(ActionMode):
    """The raw action layout of one env: set up per map (`start`), its masks made per observation (`observe`)
    from the game's answer to the abilities query each step asks behind its observation."""

    def __init__(self, space: RawActionSpace, hide_specific_actions: bool):
        self.space = space
        self.names = space.names
        self.nvec = space.nvec
        self.hide_specific_actions = hide_specific_actions
        self.masks: RawActionMasks | None = None
        """Which raw functions each row of the latest raw_units can use now, and their targets."""
        self._worlds: dict[TargetClass, np.ndarray] | None = None  # the raw cells of each target class
        self._units = np.zeros((0, len(FeatureUnit)), np.int64)  # the rows the latest observation holds
        self._transforms: CoordinateTransforms | None = None

    def start(self, decoder: ObservationDecoder) -> None:
        """A new game's map: its raw grid must be the space's."""
        transforms = decoder.transforms
        if transforms is None:
            raise ValueError("raw actions need the game's game_info: ObservationDecoder(fmt, game_info)")
        grid = transforms.raw_grid_size
        resolution = self.space.resolution
        if grid != (resolution, resolution):
            raise ValueError(
                f"actions='raw' with raw_resolution={resolution} needs a map whose raw grid is "
                f"{resolution}×{resolution}; this map's is {grid[0]}×{grid[1]}: pass "
                f"raw_resolution={max(grid)}"
            )
        self._transforms = transforms
        self._worlds = self.space.world_masks(transforms)

    def step_requests(self) -> Sequence[tuple[str, Message]]:
        """What the units seen last can do after the step."""
        return [("query", abilities_query(self._own_tags()))]

    def observe(
        self,
        obs: Observation,
        echoed: Sequence[sc_pb.Action],
        answers: Sequence[Any],
        ask: Ask,
        ended: bool,
    ) -> dict[str, np.ndarray]:
        """The masks of a new observation, from the query sent with its step (`answers`) and, for units it did
        not ask about (new ones, or all after a reset), one more query (`ask`)."""
        # The echoed commands first: their units are rows of the observation they were chosen from.
        last_actions = np.array([call.function for call in self._calls(echoed) if call is not None], np.int32)
        self._units = np.asarray(obs.raw_units)[: self.space.max_units]
        abilities = list(answers[0].abilities) if answers and answers[0] is not None else []
        asked = {a.unit_tag for a in abilities}
        missing = [tag for tag in self._own_tags().tolist() if tag not in asked]
        refused = bool(answers) and answers[0] is None
        if missing and not (refused and ended):  # a game that ended may refuse queries
            try:
                abilities += ask(abilities_query(missing)).abilities
            except errors.RequestError:
                if not ended:
                    raise  # a game that takes no queries mid-game can't give raw masks: say so
        self.masks = RawActionMasks(self._units, abilities, self.hide_specific_actions)
        return {"action_mask": self.flat_mask(), "last_actions": last_actions}

    def flat_mask(self) -> np.ndarray:
        masks, worlds = self._current()
        return self.space.flat_mask(masks, worlds[TargetClass.ANY])

    def split_mask(self, flat: np.ndarray) -> tuple[np.ndarray, ...]:
        return self.space.split(flat)

    def conditional_mask(self, function: int, units: int | None = None) -> np.ndarray:
        masks, worlds = self._current()
        return self.space.conditional_mask(masks, function, worlds, units)

    def encode(self, action: Any) -> list[sc_pb.Action]:
        """The protocol actions of one raw call (a RawFunctionCall or a raw vector), or of a list of
        RawFunctionCalls, sent in that order in one step (an empty list: none). A list is checked whole: one
        call not allowed refuses the step's every call, naming it."""
        calls = several_calls(action)
        if calls is None:
            return self._encode_one(action)
        actions: list[sc_pb.Action] = []
        for i, call in enumerate(calls):
            try:
                actions += self._encode_one(call)
            except errors.InvalidActionError as error:
                raise type(error)(f"call {i + 1} of {len(calls)} ({call}): {error}") from None
        return actions

    def _encode_one(self, action: Any) -> list[sc_pb.Action]:
        call = self._call(action)
        if call.function == RAW_FUNCTIONS.no_op.id:
            return []
        masks, _ = self._current()
        assert self._transforms is not None  # set with the worlds
        return [encode_raw_action(call, self._units[:, FeatureUnit.tag], self._transforms, masks)]

    def to_vector(self, call: Any) -> np.ndarray:
        return self.space.to_vector(self._call(call), self.masks)

    def to_call(self, vector: Any) -> RawFunctionCall:
        return self.space.to_call(vector, self._current()[0])

    def recorded(self, echoed: Sequence[sc_pb.Action]) -> tuple[list[Any], list[str]]:
        """The recorded raw commands, their units as rows of the observation they were chosen from; kept only
        where an action vector can hold them (one unit, or every unit able to)."""
        calls: list[Any] = []
        left_out = []
        for action, call in zip(echoed, self._calls(echoed)):
            if call is None:
                left_out.append(
                    "an action in no raw form (a selection or UI action: raw commands name their units "
                    "themselves)"
                    if not action.HasField("action_raw")
                    else "a raw command whose units are not among the rows watched (a smaller max_units?)"
                )
                continue
            try:
                self.space.to_vector(call, self.masks)
            except errors.InvalidActionError as error:
                left_out.append(f"a raw command no action vector holds ({error})")
            else:
                calls.append(call)
        return calls, left_out

    def no_op_vector(self) -> np.ndarray:
        return self.space.to_vector(RAW_FUNCTIONS.no_op(), self.masks)

    def offered_functions(self) -> list[int] | None:
        """The raw functions some unit can use now (the viewer lists them)."""
        return np.flatnonzero(self._current()[0].functions).tolist()

    def _calls(self, echoed: Sequence[sc_pb.Action]) -> list[RawFunctionCall | None]:
        """The raw calls of the actions the game echoed, their units as rows of the latest observation; None
        for one no raw function expresses."""
        if self._transforms is None:
            return [None] * len(echoed)
        tags = self._units[:, FeatureUnit.tag]
        return [decode_raw_action(a, tags, self._transforms, self.hide_specific_actions) for a in echoed]

    def _call(self, action: Any) -> RawFunctionCall:
        """The raw call of an action: a RawFunctionCall (checked) or a raw action vector."""
        if isinstance(action, FunctionCall):
            raise errors.MalformedActionError(
                f"{action} is a feature-layer FunctionCall; with actions='raw' give "
                "a RawFunctionCall (sc2env.interface.RAW_FUNCTIONS) or a raw vector"
            )
        if isinstance(action, RawFunctionCall):
            return RawFunctionCall.build(action.function, action.arguments)
        return self.space.to_call(action, self._current()[0])

    def _current(self) -> tuple[RawActionMasks, dict[TargetClass, np.ndarray]]:
        if self.masks is None or self._worlds is None:
            raise errors.ProtocolError("the raw masks need an observation: call reset() first")
        return self.masks, self._worlds

    def _own_tags(self) -> np.ndarray:
        return self._units[self._units[:, FeatureUnit.alliance] == PlayerRelative.SELF, FeatureUnit.tag]
