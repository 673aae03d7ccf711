"""Lifecycles: an object's state as an enum, the moves allowed between states in one table, one routine to move."""

from __future__ import annotations

import enum
from collections.abc import Collection, Mapping
from typing import Generic, TypeVar

from sc2env import errors

S = TypeVar("S", bound=enum.Enum)


class LifecycleError(errors.SC2EnvError):
    """An object was moved between two states its lifecycle does not connect: a bug in sc2env."""


class Lifecycle(Generic[S]):
    """The state of one object (`owner`, for messages), changed only by `to`, along `transitions`."""

    def __init__(self, owner: str, initial: S, transitions: Mapping[S, Collection[S]]):
        missing = [state.name for state in type(initial) if state not in transitions]
        if missing:
            raise ValueError(f"{owner}'s lifecycle says nothing of the states {', '.join(missing)}")
        self.owner = owner
        self._state = initial
        self._transitions = {state: frozenset(targets) for state, targets in transitions.items()}

    @property
    def state(self) -> S:
        return self._state

    def to(self, new: S) -> S:
        """Move to `new` and return the state left; LifecycleError if the table has no such move."""
        old = self._state
        if new not in self._transitions[old]:
            allowed = ", ".join(sorted(state.name for state in self._transitions[old])) or "nothing"
            raise LifecycleError(
                f"{self.owner} cannot go from {old.name} to {new.name} (from {old.name}: {allowed}); this is a "
                "bug in sc2env, please report it with the traceback"
            )
        self._state = new
        return old

    def __repr__(self) -> str:
        return f"<{self.owner} {self._state.name}>"
