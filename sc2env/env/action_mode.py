"""What an env's actions are, behind one interface: feature-layer function calls or raw unit commands."""

from __future__ import annotations

import abc
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from google.protobuf.message import Message
from gymnasium import spaces
from s2clientprotocol import query_pb2
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env.interface import Observation, ObservationDecoder
from sc2env.interface.spec import split_mask

Ask = Callable[[query_pb2.RequestQuery], query_pb2.ResponseQuery]
"""Sends a query to the game and returns its answer (the match's `query`)."""


class ActionMode(abc.ABC):
    """One layout of actions: its MultiDiscrete vector, masks, and conversions to and from the game's actions.

    An env holds one, chosen from its config once; it delegates every action question to it. The mode keeps
    what it needs of the latest observation (`observe`), so its masks and encodings refer to what the agent
    saw. Calls are `FunctionCall`s or `RawFunctionCall`s, vectors the MultiDiscrete's values.
    """

    names: tuple[str, ...]
    """The components of an action vector, in order."""
    nvec: np.ndarray
    """How many values each component takes."""

    @property
    def action_space(self) -> spaces.MultiDiscrete:
        return spaces.MultiDiscrete(self.nvec)

    @property
    def mask_size(self) -> int:
        """The length of the flat mask (every component's values, concatenated)."""
        return int(self.nvec.sum())

    @abc.abstractmethod
    def start(self, decoder: ObservationDecoder) -> None:
        """A new game (and map): what the mode needs of it (coordinate transforms, the map's cells)."""

    def step_requests(self) -> Sequence[tuple[str, Message]]:
        """Requests to send behind a step's observation, in the same round trip; their answers go to the next
        `observe`. None by default."""
        return ()

    @abc.abstractmethod
    def observe(
        self,
        obs: Observation,
        echoed: Sequence[sc_pb.Action],
        answers: Sequence[Any],
        ask: Ask,
        ended: bool,
    ) -> dict[str, np.ndarray]:
        """Take in a new observation: `echoed` are the actions the game reports for the step that led to it,
        `answers` the answers to `step_requests` (empty after a reset), `ask` sends a query of its own if the
        mode needs one, `ended` says the episode has ended (the game may refuse queries then). Returns the
        entries of the env's observation the mode fills: `action_mask` and `last_actions`."""

    @abc.abstractmethod
    def flat_mask(self) -> np.ndarray:
        """The current flat action mask, bool (a copy)."""

    def split_mask(self, flat: np.ndarray) -> tuple[np.ndarray, ...]:
        """A flat mask (last axis; a batch too) as the per-component masks `MultiDiscrete.sample(mask=...)`
        takes: int8 views, also of a bool mask."""
        return split_mask(flat, np.concatenate([[0], np.cumsum(self.nvec)]))

    @abc.abstractmethod
    def conditional_mask(self, function: int, units: int | None = None) -> np.ndarray:
        """The current flat mask (bool, a copy) given the action's first component, `function`: the arguments
        it does not take pinned to 0, the others narrowed to what it can use (raw actions: also given the
        `units` component, if chosen)."""

    @abc.abstractmethod
    def encode(self, action: Any) -> list[sc_pb.Action]:
        """The game's actions for an action vector or call (none for no_op): MalformedActionError for what is
        no action of this layout, InvalidActionError for one the current masks refuse."""

    @abc.abstractmethod
    def to_vector(self, call: Any) -> np.ndarray:
        """The action vector of a call (InvalidActionError if it has no place in this layout)."""

    @abc.abstractmethod
    def to_call(self, vector: Any) -> Any:
        """The call an action vector stands for (no availability check)."""

    @abc.abstractmethod
    def recorded(self, echoed: Sequence[sc_pb.Action]) -> tuple[list[Any], list[str]]:
        """The calls of actions a replay recorded that this layout's vectors can hold, and why each other one
        was left out (for ReplayWatcher; call before `observe` takes the next observation)."""

    @abc.abstractmethod
    def no_op_vector(self) -> np.ndarray:
        """The vector of no action (a replay step in which the player did nothing)."""

    def offered_functions(self) -> list[int] | None:
        """For the viewer: the function ids on offer when the observation does not say them itself (raw
        actions), else None."""
        return None
