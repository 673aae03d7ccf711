"""StepRecord: a worker vector env's rewards, episode ends, actions and usual info keys, in shared memory."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces

from sc2env.env.env import SCORE_DETAIL_NAMES
from sc2env.env.shared_batch import BatchLayout, SharedBatch


@dataclasses.dataclass(frozen=True)
class InfoColumn:
    """One key of an SC2Env's info that the record carries: its Python type (int, bool, or str, which the
    pipe carries when it is not `kind()`, the empty string), and for a dict of ints the dict's keys."""

    key: str
    kind: type
    keys: tuple[str, ...] = ()

    def fits(self, value: Any) -> bool:
        """Whether `value` is what this column holds (its exact type: Gymnasium batches by type)."""
        if self.keys:
            return (
                type(value) is dict
                and tuple(value) == self.keys
                and all(type(v) is int for v in value.values())
            )
        return type(value) is self.kind


INFO_COLUMNS = (
    InfoColumn("game_loop", int),
    InfoColumn("score", int),
    InfoColumn("score_details", int, SCORE_DETAIL_NAMES),
    InfoColumn("outcome", int),
    InfoColumn("episode_steps", int),
    InfoColumn("invalid_action", bool),
    InfoColumn("invalid_action_reason", str),
)
"""The keys every SC2Env step's and reset's info has (SC2Env._info). An info missing one, or holding a value of
another type, goes through the pipe whole; keys not here (replay_path, crash, ...) go through it beside."""

Leftover = dict[str, Any] | None
"""What of one sub-env's info the pipe carries: None (all of it is in the record) or a dict of the rest."""


class StepRecord:
    """Per sub-env: the reward, terminated and truncated of its last step, the action of the next one (for
    an action space of one integer array) and the INFO_COLUMNS of its last info, in one block of shared memory.

    The worker writes a sub-env's results with `put` (which gives back what the pipe must carry); the vector
    env reads them all with `infos`, building Gymnasium's batched infos a column at a time instead of a key
    at a time per sub-env.
    """

    def __init__(self, batch: SharedBatch) -> None:
        self._batch = batch
        arrays = batch.arrays
        self.rewards, self.terminations, self.truncations = (
            arrays["reward"],
            arrays["terminated"],
            arrays["truncated"],
        )
        self.actions: np.ndarray | None = arrays.get("action")
        self._columns = [
            (column, arrays[f"info:{column.key}"]) for column in INFO_COLUMNS if column.kind is not str
        ]
        self._written = arrays["info written"]

    @staticmethod
    def layout_for(num_envs: int, action_space: spaces.Space) -> BatchLayout:
        """The record's layout for `num_envs` sub-envs (the name is the block's, given when made)."""
        fields: list[tuple[str, tuple[int, ...], Any]] = [
            ("reward", (), np.float64),
            ("terminated", (), np.bool_),
            ("truncated", (), np.bool_),
            ("info written", (), np.bool_),
        ]
        if _shares_actions(action_space):
            assert action_space.shape is not None
            fields.append(("action", action_space.shape, action_space.dtype))
        for column in INFO_COLUMNS:
            if column.kind is not str:
                shape = (len(column.keys),) if column.keys else ()
                fields.append((f"info:{column.key}", shape, np.bool_ if column.kind is bool else np.int64))
        return BatchLayout.of_fields("", fields, num_envs)

    @classmethod
    def create(cls, num_envs: int, action_space: spaces.Space) -> StepRecord:
        return cls(SharedBatch.create_for(cls.layout_for(num_envs, action_space)))

    @classmethod
    def attach(cls, layout: BatchLayout) -> StepRecord:
        return cls(SharedBatch.attach(layout))

    @property
    def layout(self) -> BatchLayout:
        """What a worker needs to attach the record."""
        return self._batch.layout

    def put_action(self, actions: Any) -> bool:
        """Write a batch of actions into the record if they are one array of the action space's shape and type
        (the workers read them there); False if they must go through the pipe."""
        shared = self.actions
        if (
            shared is None
            or not isinstance(actions, np.ndarray)
            or actions.shape != shared.shape
            or actions.dtype != shared.dtype
        ):
            return False
        shared[...] = actions
        return True

    def put(
        self, index: int, reward: float, terminated: bool, truncated: bool, info: Mapping[str, Any]
    ) -> Leftover:
        """Write sub-env `index`'s step (a reset: 0.0, False, False) and what of `info` fits; return the rest."""
        self.rewards[index] = reward
        self.terminations[index] = terminated
        self.truncations[index] = truncated
        if not all(column.key in info and column.fits(info[column.key]) for column in INFO_COLUMNS):
            self._written[index] = False
            return dict(info)
        self._written[index] = True
        for column, array in self._columns:
            value = info[column.key]
            array[index] = tuple(value.values()) if column.keys else value
        rest = {
            key: value
            for key, value in info.items()
            if key not in _COLUMN_KEYS or (key in _TEXT_KEYS and value != "")
        }
        return rest or None

    def infos(self, num_envs: int, indices: Sequence[int]) -> dict[str, Any]:
        """Gymnasium's batched infos of the sub-envs `indices` as far as the record holds them, as
        VectorEnv._add_info makes them from each sub-env's info: an array per key (zero, or None for text,
        where a sub-env has none) and a mask `_key` of the sub-envs that have it. The caller adds the leftovers
        (`put`'s answers) after these, with `_add_info`."""
        present = np.zeros(num_envs, bool)
        present[list(indices)] = True
        present &= self._written
        infos: dict[str, Any] = {}
        if not present.any():
            return infos
        absent = ~present
        for column in INFO_COLUMNS:
            if column.kind is str:
                values = np.full(num_envs, None, object)
                values[present] = column.kind()  # the pipe brings the others (added by the caller)
            else:
                values = self._batch.arrays[f"info:{column.key}"].copy()
                values[absent] = 0
            if column.keys:
                inner: dict[str, Any] = {}
                for k, key in enumerate(column.keys):
                    inner[key], inner[f"_{key}"] = values[:, k].copy(), present.copy()
                infos[column.key] = inner
            else:
                infos[column.key] = values
            infos[f"_{column.key}"] = present.copy()
        return infos

    def close(self) -> None:
        """Let go of the block (its creator also removes it). Idempotent."""
        self._columns = []
        self.actions = None
        self._batch.close()


_COLUMN_KEYS = frozenset(column.key for column in INFO_COLUMNS)
_TEXT_KEYS = frozenset(column.key for column in INFO_COLUMNS if column.kind is str)


def _shares_actions(space: spaces.Space) -> bool:
    """Whether actions of `space` are one integer array (MultiDiscrete, an integer Box) the record can hold."""
    return (
        isinstance(space, (spaces.MultiDiscrete, spaces.Box))
        and space.shape is not None
        and np.issubdtype(space.dtype, np.integer)
    )
