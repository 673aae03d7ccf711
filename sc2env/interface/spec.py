"""The flat action layout: function component plus 13 argument components, as a MultiDiscrete would see it."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from sc2env.errors import InvalidActionError, MalformedActionError
from sc2env.interface.arguments import ARGUMENT_TYPES
from sc2env.interface.format import InterfaceFormat
from sc2env.interface.functions import FUNCTION_ARGUMENTS, FUNCTION_TARGETS, FUNCTIONS, Function, FunctionCall

ARGUMENT_NAMES: tuple[str, ...] = tuple(t.name for t in ARGUMENT_TYPES)
COMPONENT_NAMES: tuple[str, ...] = ("function", *ARGUMENT_NAMES)


def split_mask(flat: np.ndarray, offsets: np.ndarray) -> tuple[np.ndarray, ...]:
    """A flat mask (last axis) as views of its components, which start at `offsets` (the last entry: the
    total); a bool mask is viewed as int8, the dtype `MultiDiscrete.sample(mask=...)` takes."""
    flat = np.asarray(flat)
    if flat.dtype == np.bool_:
        flat = flat.view(np.int8)
    bounds = np.asarray(offsets).tolist()
    return tuple(flat[..., a:b] for a, b in itertools.pairwise(bounds))


@dataclass(frozen=True, eq=False)
class ActionSpec:
    """Sizes and offsets of the components `[function, screen, minimap, screen2, queued, ..., unload_id]`.

    Component 0 indexes `functions` (all of them, or a chosen subset); points are flattened as
    `y * width + x`. A flat mask is the concatenation of every component's mask, `total` long.
    """

    fmt: InterfaceFormat
    functions: tuple[int, ...]
    """Function ids, in the order of the function component's values."""
    nvec: np.ndarray = field(init=False)
    """Number of values of each of the 14 components."""
    offsets: np.ndarray = field(init=False)
    """Start of each component in a flat mask (15 entries; the last is `total`)."""
    function_arguments: np.ndarray = field(init=False)
    """(len(functions), 13) bool: which argument components each function uses."""
    function_position: np.ndarray = field(init=False)
    """(n_all_functions,) int: position of each function id in `functions`, or -1 when left out."""
    function_ids: np.ndarray = field(init=False, repr=False)
    """`functions` as an int64 array."""
    names: tuple[str, ...] = field(default=COMPONENT_NAMES, init=False, repr=False)
    """The 14 components' names: "function", then the argument types ("screen", "minimap", ...)."""
    function_names: tuple[str, ...] = field(init=False, repr=False)
    """The names of `functions`, in the same order."""

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        ids = np.array(self.functions, np.int64)
        nvec = np.array([len(ids), *ARGUMENT_TYPES.sizes(self.fmt)], np.int64)
        position = np.full(len(FUNCTIONS), -1, np.int64)
        position[ids] = np.arange(len(ids))
        for name, value in (
            ("nvec", nvec),
            ("offsets", np.concatenate([[0], np.cumsum(nvec)])),
            ("function_arguments", FUNCTION_ARGUMENTS[ids]),
            ("function_position", position),
            ("function_ids", ids),
        ):
            value.setflags(write=False)
            set_(self, name, value)
        set_(self, "function_names", tuple(FUNCTIONS[i].name for i in self.functions))

    @classmethod
    def from_format(
        cls, fmt: InterfaceFormat, functions: Sequence[int | str | Function] | None = None
    ) -> ActionSpec:
        """The layout for `fmt`, over all functions or over `functions` (ids, names or Functions)."""
        if functions is None:
            return cls(fmt, tuple(range(len(FUNCTIONS))))
        ids = []
        for f in functions:
            if isinstance(f, str):
                try:
                    f = FUNCTIONS[f]
                except KeyError:
                    raise ValueError(f"unknown function {f!r}") from None
            fid = int(f)
            if not 0 <= fid < len(FUNCTIONS):
                raise ValueError(f"unknown function id {fid}")
            ids.append(fid)
        if not ids or len(set(ids)) != len(ids):
            raise ValueError("functions must be a non-empty list without repeats")
        return cls(fmt, tuple(ids))

    @property
    def total(self) -> int:
        return int(self.offsets[-1])

    def segment(self, name: str) -> slice:
        """The slice of a flat mask that belongs to one component."""
        try:
            i = COMPONENT_NAMES.index(name)
        except ValueError:
            raise KeyError(
                f"no action component {name!r}; the components: {', '.join(COMPONENT_NAMES)}"
            ) from None
        return slice(int(self.offsets[i]), int(self.offsets[i + 1]))

    def split(self, flat: np.ndarray) -> tuple[np.ndarray, ...]:
        """The 14 component masks as views of a flat mask (last axis), e.g. for `MultiDiscrete.sample`; a bool
        mask (`action_masks()`) is viewed as int8, the dtype `sample(mask=...)` takes."""
        return split_mask(flat, self.offsets)

    def _positions(self, function_index) -> np.ndarray:
        """`function_index` as an array of function component values, checked."""
        index = np.asarray(function_index)
        if index.dtype.kind not in "iu" or ((index < 0) | (index >= len(self.function_ids))).any():
            raise IndexError(
                f"function_index must be positions in this action space's function component "
                f"(0..{len(self.function_ids) - 1}, the action vector's first value), not "
                f"{function_index!r}; ActionMasks.for_function takes a function id"
            )
        return index

    def conditional_mask(
        self, flat: np.ndarray, function_index, target_masks: np.ndarray | None = None
    ) -> np.ndarray:
        """Masks given the chosen function component value(s): argument components that function doesn't
        use are pinned to their value 0 (a one-hot), so they add no entropy. Works on (total,) with an int,
        or (batch, total) with (batch,) indices (or one int for every row); returns a copy.

        `target_masks` (the observation's `screen_target_masks`: (classes, h, w), or (batch, classes, h, w))
        also limits the screen argument to the chosen function's target class, as `ActionMasks.for_function`
        does (a class with no pixel leaves pixel 0, so the component keeps an allowed value).
        """
        out = np.array(flat, copy=True)
        batch = out.reshape(-1, self.total)
        index = self._positions(function_index)
        if index.ndim == 0:
            index = np.full(len(batch), index)
        elif index.shape != (len(batch),):  # rows left unconditioned, silently, before
            raise ValueError(
                f"{index.size} function indices for {len(batch)} masks: give one per row of the "
                f"batch (shape ({len(batch)},)), or one int for all"
            )
        unused = ~self.function_arguments[index]
        for a in range(len(ARGUMENT_TYPES)):
            rows = np.flatnonzero(unused[:, a])
            if rows.size:
                start, stop = int(self.offsets[a + 1]), int(self.offsets[a + 2])
                batch[rows, start:stop] = False
                batch[rows, start] = True
        if target_masks is not None:
            masks = np.asarray(target_masks)
            if masks.ndim != out.ndim + 2 or masks.shape[:-3] != out.shape[:-1]:
                raise ValueError(
                    f"target_masks of shape {masks.shape} do not match masks of shape {out.shape}: "
                    "give (classes, h, w) with one flat mask, (batch, classes, h, w) with a batch"
                )
            masks = masks.reshape(len(batch), masks.shape[-3], -1)  # (batch, classes, pixels)
            classes = FUNCTION_TARGETS[self.function_ids[index]]
            rows = np.flatnonzero(classes >= 0)
            if rows.size:
                screen = masks[rows, classes[rows]] != 0
                screen[~screen.any(axis=1), 0] = True
                batch[rows, self.segment("screen")] = screen
        return out

    def gate(self, function_index) -> np.ndarray:
        """(batch, 14) bool, or (14,) for one int: the components that count for the chosen function
        component value(s): the function itself and the arguments it takes.

        An autoregressive or per-component policy sums its components' log-probabilities (and entropies) over
        these only: an argument the function ignores was not part of the decision. Select with the gate, not
        multiply by it (a masked -inf times 0 is NaN): `gated_sum` does, for numpy arrays and torch tensors.
        """
        used = self.function_arguments[self._positions(function_index)]
        return np.concatenate([np.ones((*used.shape[:-1], 1), bool), used], axis=-1)

    def gated_sum(self, values, function_index):
        """Per-component `values` (batch, 14), e.g. log-probabilities or entropies, summed over the
        components `gate(function_index)` keeps: the log-probability (or entropy) of the call each row chose.
        `values` may be a numpy array or a torch tensor (the sum stays differentiable); `function_index` is
        the action vectors' first column, (batch,), or one int for (14,) values."""
        values = values if hasattr(values, "detach") else np.asarray(values)
        index = function_index.detach().cpu().numpy() if hasattr(function_index, "detach") else function_index
        gate = self.gate(index)
        if tuple(values.shape) != gate.shape:
            raise ValueError(
                f"values of shape {tuple(values.shape)} for function_index giving {gate.shape}: "
                f"give one value per component ({len(self.nvec)}) and per row"
            )
        # Selected, not multiplied: a masked-out value an ignored component holds (-inf) must not make NaN.
        if hasattr(values, "detach"):  # a torch tensor: the gate as a tensor on its device
            return values.where(values.new_tensor(gate, dtype=bool), values.new_zeros(())).sum(-1)
        return np.where(gate, values, 0).sum(-1)

    def to_call(self, vector: Sequence[int] | np.ndarray) -> FunctionCall:
        """The call a 14-component action vector expresses: the components the function doesn't take are
        ignored, but every component must be within its range (else MalformedActionError)."""
        given = vector
        try:
            vector = np.asarray(vector)
        except ValueError:  # ragged, e.g. a list holding a FunctionCall
            vector = np.empty(0, object)
        if vector.shape != (len(self.nvec),) or vector.dtype.kind not in "iuf":
            what = f"{vector.dtype} array" if isinstance(given, np.ndarray) else type(given).__name__
            raise MalformedActionError(
                f"an action is a vector of {len(self.nvec)} integers (the MultiDiscrete action space) or one "
                f"FunctionCall; got {what}{'' if vector.dtype == object else f' of shape {vector.shape}'}: {given!r:.80}"
            )
        if vector.dtype.kind == "f" and (vector != np.floor(vector)).any():  # NaN too
            k = int(np.argmax(vector != np.floor(vector)))
            raise MalformedActionError(f"{COMPONENT_NAMES[k]} component {vector[k]} is not a whole number")
        outside = (vector < 0) | (vector >= self.nvec)
        if outside.any():
            k = int(np.argmax(outside))
            raise MalformedActionError(
                f"{COMPONENT_NAMES[k]} component {vector[k]} is outside 0..{self.nvec[k] - 1}"
            )
        position = int(vector[0])
        func = FUNCTIONS[self.functions[position]]
        arguments: list[tuple[int, ...]] = []
        for arg_type in func.args:
            value = int(vector[arg_type.id + 1])
            if arg_type.kind == "point":
                width = arg_type.bounds(self.fmt)[0]
                arguments.append((value % width, value // width))
            else:
                arguments.append((value,))
        return FunctionCall(func.id, tuple(arguments))

    def to_vector(self, call: FunctionCall) -> np.ndarray:
        """The 14-component vector of a call; unused components are 0."""
        position = int(self.function_position[call.function]) if 0 <= call.function < len(FUNCTIONS) else -1
        if position < 0:
            raise InvalidActionError(f"function {call.function} is not in this action space")
        vector = np.zeros(len(self.nvec), np.int64)
        vector[0] = position
        for arg_type, value in zip(FUNCTIONS[call.function].args, call.arguments):
            if arg_type.kind == "point":
                vector[arg_type.id + 1] = value[1] * arg_type.bounds(self.fmt)[0] + value[0]
            else:
                vector[arg_type.id + 1] = value[0]
        return vector
