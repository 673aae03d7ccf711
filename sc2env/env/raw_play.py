"""What an env under actions="raw" keeps from step to step: the units' masks, the map's cells, the encoding."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from s2clientprotocol import query_pb2
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env import errors
from sc2env.interface import FeatureUnit, FunctionCall, Observation, PlayerRelative
from sc2env.interface.functions import TargetClass
from sc2env.interface.raw_actions import abilities_query, decode_raw_action, encode_raw_action
from sc2env.interface.raw_functions import RAW_FUNCTIONS, RawFunctionCall
from sc2env.interface.raw_masks import RawActionMasks
from sc2env.interface.raw_space import RawActionSpace
from sc2env.interface.transforms import CoordinateTransforms


class RawPlay:
    """The raw action layer of one env: set up per map (`start`), updated per observation (`observe`)."""

    def __init__(self, space: RawActionSpace, hide_specific_actions: bool):
        self.space = space
        self.hide_specific_actions = hide_specific_actions
        self.masks: RawActionMasks | None = None
        self.worlds: dict[TargetClass, np.ndarray] | None = None  # the raw cells of each target class
        self._units = np.zeros((0, len(FeatureUnit)), np.int64)  # the rows the last observation holds
        self._transforms: CoordinateTransforms | None = None

    def start(self, transforms: CoordinateTransforms) -> None:
        """A new game's map: its raw grid must be the space's."""
        grid = transforms.raw_grid_size
        resolution = self.space.resolution
        if grid != (resolution, resolution):
            raise ValueError(
                f"actions='raw' with raw_resolution={resolution} needs a map whose raw grid is "
                f"{resolution}×{resolution}; this map's is {grid[0]}×{grid[1]}: pass "
                f"raw_resolution={max(grid)}"
            )
        self._transforms = transforms
        self.worlds = self.space.world_masks(transforms)

    def query_with_step(self) -> list[tuple[str, query_pb2.RequestQuery]]:
        """The request to send behind the step's observation: what the units seen last can do after it."""
        return [("query", abilities_query(self._own_tags()))]

    def observe(
        self,
        obs: Observation,
        answered: list,
        query: Callable[[query_pb2.RequestQuery], object],
        episode_over: bool,
    ) -> np.ndarray:
        """The masks of a new observation, from the query sent with its step (`answered`, its answers) and, for
        units it did not ask about (new ones, or all after a reset), one more `query`; the flat mask (int8)."""
        self._units = np.asarray(obs.raw_units)[: self.space.max_units]
        abilities = list(answered[0].abilities) if answered and answered[0] is not None else []
        asked = {a.unit_tag for a in abilities}
        missing = [tag for tag in self._own_tags().tolist() if tag not in asked]
        refused = bool(answered) and answered[0] is None
        if missing and not (refused and episode_over):  # a game that ended may refuse queries
            try:
                abilities += query(abilities_query(missing)).abilities
            except errors.RequestError:
                if not episode_over:
                    raise  # a game that takes no queries mid-game can't give raw masks: say so
        self.masks = RawActionMasks(self._units, abilities, self.hide_specific_actions)
        return self.flat_mask().astype(np.int8)

    def calls(self, echoed, keep_none: bool = False) -> list[RawFunctionCall | None]:
        """The raw calls of the actions the game echoed, their units as rows of the observation they were
        chosen from (call before `observe` takes the new one); actions no raw function expresses are skipped
        (or, with `keep_none`, None in their place)."""
        tags = self._units[:, FeatureUnit.tag]
        calls = [
            decode_raw_action(action, tags, self._transforms, self.hide_specific_actions) for action in echoed
        ]
        return calls if keep_none else [call for call in calls if call is not None]

    def last_action_ids(self, echoed) -> np.ndarray:
        """The raw function ids of the actions the game echoed (those `calls` expresses), int32."""
        return np.array([call.function for call in self.calls(echoed)], np.int32)

    def flat_mask(self) -> np.ndarray:
        return self.space.flat_mask(self.masks, self.worlds[TargetClass.ANY])

    def conditional_mask(self, function: int, units: int | None = None) -> np.ndarray:
        return self.space.conditional_mask(self.masks, function, self.worlds, units)

    def call(self, action) -> RawFunctionCall:
        """The raw call of an action: a RawFunctionCall (checked) or a raw action vector."""
        if isinstance(action, FunctionCall):
            raise errors.MalformedActionError(
                f"{action} is a feature-layer FunctionCall; with actions='raw' give "
                "a RawFunctionCall (sc2env.interface.RAW_FUNCTIONS) or a raw vector"
            )
        if isinstance(action, RawFunctionCall):
            return RawFunctionCall.build(action.function, action.arguments)
        return self.space.to_call(action, self.masks)

    def encode(self, action) -> list[sc_pb.Action]:
        """The protocol actions for a raw action (none for no_op); Invalid/MalformedActionError as checked."""
        call = self.call(action)
        if call.function == RAW_FUNCTIONS.no_op.id:
            return []
        return [encode_raw_action(call, self._units[:, FeatureUnit.tag], self._transforms, self.masks)]

    def _own_tags(self) -> np.ndarray:
        return self._units[self._units[:, FeatureUnit.alliance] == PlayerRelative.SELF, FeatureUnit.tag]
