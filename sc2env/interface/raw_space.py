"""The raw action layout: [function, queued, units, target, world] as a MultiDiscrete would see it, and its masks."""

from __future__ import annotations

import operator
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from sc2env.errors import InvalidActionError, MalformedActionError
from sc2env.interface.functions import TargetClass
from sc2env.interface.raw_functions import RAW_FUNCTION_TARGETS, RAW_FUNCTIONS, RawFunctionCall
from sc2env.interface.raw_masks import RawActionMasks
from sc2env.interface.spec import split_mask
from sc2env.interface.transforms import CoordinateTransforms

RAW_COMPONENT_NAMES = ("function", "queued", "units", "target", "world")
_ARGUMENT_COMPONENT = {"queued": 1, "unit_tags": 2, "target_unit_tag": 3, "world": 4}


@dataclass(frozen=True, eq=False)
class RawActionSpace:
    """Sizes, offsets and conversions of the raw action vector `[function, queued, units, target, world]`.

    `units` is a row of raw_units (0..max_units-1), or `max_units` for every own unit that can use the
    function now (a group command); `target` a row of raw_units; `world` a raw cell flattened as
    y * resolution + x. Components the function doesn't take are ignored.
    """

    max_units: int
    resolution: int
    nvec: np.ndarray = field(init=False)
    offsets: np.ndarray = field(init=False)
    names: tuple[str, ...] = field(default=RAW_COMPONENT_NAMES, init=False, repr=False)
    _segments: dict[str, slice] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        nvec = np.array(
            [len(RAW_FUNCTIONS), 2, self.max_units + 1, self.max_units, self.resolution**2], np.int64
        )
        offsets = np.concatenate([[0], np.cumsum(nvec)])
        for name, value in (("nvec", nvec), ("offsets", offsets)):
            value.setflags(write=False)
            object.__setattr__(self, name, value)
        object.__setattr__(
            self,
            "_segments",
            {
                name: slice(int(a), int(b))
                for name, a, b in zip(RAW_COMPONENT_NAMES, offsets[:-1], offsets[1:])
            },
        )

    @property
    def all_able(self) -> int:
        """The `units` value that commands every own unit able to use the function."""
        return self.max_units

    @property
    def total(self) -> int:
        return int(self.offsets[-1])

    def segment(self, name: str) -> slice:
        """The slice of a flat mask that belongs to one component."""
        return self._segments[name]

    def split(self, flat: np.ndarray) -> tuple[np.ndarray, ...]:
        """The 5 component masks as views of a flat mask (last axis), e.g. for `MultiDiscrete.sample`; a bool
        mask (`action_masks()`) is viewed as int8, the dtype `sample(mask=...)` takes."""
        return split_mask(flat, self.offsets)

    def to_call(self, vector: Sequence[int] | np.ndarray, masks: RawActionMasks) -> RawFunctionCall:
        """The raw call a vector stands for; `masks` expands `units = max_units` into the able units' rows."""
        given = vector
        vector = np.asarray(vector)
        if vector.shape != (len(self.nvec),) or vector.dtype.kind not in "iu":
            raise MalformedActionError(
                f"a raw action is a vector of {len(self.nvec)} integers "
                f"({', '.join(RAW_COMPONENT_NAMES)}) or a RawFunctionCall; got {given!r:.80}"
            )
        outside = (vector < 0) | (vector >= self.nvec)
        if outside.any():
            k = int(np.argmax(outside))
            raise MalformedActionError(
                f"{RAW_COMPONENT_NAMES[k]} component {vector[k]} is outside 0..{self.nvec[k] - 1}"
            )
        func = RAW_FUNCTIONS[int(vector[0])]
        arguments: list[tuple[int, ...]] = []
        for arg in func.args:
            value = int(vector[_ARGUMENT_COMPONENT[arg.name]])
            if arg.name == "world":
                arguments.append((value % self.resolution, value // self.resolution))
            elif arg.name == "unit_tags" and value == self.all_able:
                rows = np.flatnonzero(masks.units_for(func.id)).tolist()
                if not rows:
                    raise InvalidActionError(
                        f"{func.name}: units={self.all_able} (every able unit) names none: "
                        "no unit can use it now"
                    )
                arguments.append(tuple(rows))
            else:
                arguments.append((value,))
        return RawFunctionCall(func.id, tuple(arguments))

    def to_vector(self, call: RawFunctionCall, masks: RawActionMasks | None = None) -> np.ndarray:
        """The vector of a call. More than one commanded unit is expressible only as every able unit."""
        func = RAW_FUNCTIONS[call.function]
        vector = np.zeros(len(self.nvec), np.int64)
        vector[0] = func.id
        for arg, value in zip(func.args, call.arguments):
            k = _ARGUMENT_COMPONENT[arg.name]
            if arg.name == "world":
                if not all(0 <= v < self.resolution for v in value):
                    raise InvalidActionError(
                        f"{call}: the point is outside the {self.resolution}×{self.resolution} "
                        "raw grid of the world component"
                    )
                vector[k] = value[1] * self.resolution + value[0]
            elif arg.name == "unit_tags" and len(value) > 1:
                able = () if masks is None else tuple(np.flatnonzero(masks.units_for(func.id)).tolist())
                if tuple(sorted(value)) != able:
                    raise InvalidActionError(
                        f"{call}: a raw action vector commands one unit or every unit able "
                        f"to (units={self.all_able}); give this call as a RawFunctionCall"
                    )
                vector[k] = self.all_able
            else:
                if value[0] >= self.nvec[k]:
                    raise InvalidActionError(f"{call}: row {value[0]} is beyond max_units={self.max_units}")
                vector[k] = value[0]
        return vector

    def world_mask(
        self, transforms: CoordinateTransforms, target: TargetClass = TargetClass.ANY
    ) -> np.ndarray:
        """(resolution²,) bool: the raw cells whose centre lies in the playable area, and for the pathable and
        placeable target classes also on the map's pathing or placement grid (as game_info gives them)."""
        centres = np.arange(self.resolution) + 0.5
        x, y = transforms.world_to_raw.back(np.stack(np.meshgrid(centres, centres), axis=-1)).transpose(
            2, 0, 1
        )
        info = transforms.map_info
        x0, y0, x1, y1 = info.playable_area
        inside = (x >= x0) & (x < x1) & (y >= y0) & (y < y1)
        if target is TargetClass.PATHABLE:
            inside &= info.sample(info.pathing, x, y)
        elif target is TargetClass.PLACEABLE:
            inside &= info.sample(info.placement, x, y)
        return inside.ravel()

    def world_masks(self, transforms: CoordinateTransforms) -> dict[TargetClass, np.ndarray]:
        """`world_mask` of every target class (what the env keeps for the game's map)."""
        return {target: self.world_mask(transforms, target) for target in TargetClass}

    def flat_mask(self, masks: RawActionMasks, world: np.ndarray) -> np.ndarray:
        """The unconditional mask: available functions, both queued values, the rows of units that can do
        something (and every able unit), the rows of units present, the playable cells; every component keeps
        at least one value."""
        out = np.zeros(self.total, bool)
        out[self.segment("function")] = masks.functions
        out[self.segment("queued")] = True
        rows = min(len(masks.units), self.max_units)
        able = masks.unit_functions[:rows].any(axis=1)
        units = out[self.segment("units")]
        units[:rows] = able
        units[self.all_able] = able.any()
        out[self.segment("target")][:rows] = True
        out[self.segment("world")] = world
        return self._keep_one(out)

    def conditional_mask(
        self,
        masks: RawActionMasks,
        function: int,
        worlds: Mapping[TargetClass, np.ndarray],
        units: int | None = None,
    ) -> np.ndarray:
        """The mask given the chosen function (and, optionally, the chosen units value): the units able to
        use it (and all of them), the targets its class allows (not the one commanded unit itself), the
        cells of its class if it takes a point (`worlds`, from `world_masks`: building sites on the
        placement grid, say); components it doesn't take pinned to 0."""
        try:
            if isinstance(function, (bool, np.bool_)):
                raise TypeError
            index = operator.index(function)  # ints, numpy ints and RawFunctions
        except TypeError:
            index = -1
        if not 0 <= index < len(RAW_FUNCTIONS):
            raise ValueError(
                f"function must be a raw function id (the action's first component, 0.."
                f"{len(RAW_FUNCTIONS) - 1}), not {function!r}"
            )
        func = RAW_FUNCTIONS[index]
        out = np.zeros(self.total, bool)
        out[self.segment("function")][func.id] = True
        takes = {a.name for a in func.args}
        rows = min(len(masks.units), self.max_units)
        if "queued" in takes:
            out[self.segment("queued")] = True
        if "unit_tags" in takes:
            able = masks.units_for(func.id)[:rows]
            out[self.segment("units")][:rows] = able
            out[self.segment("units")][self.all_able] = able.any()
        if "target_unit_tag" in takes:
            one = None if units is None or units == self.all_able else int(units)
            if units == self.all_able and np.count_nonzero(masks.units_for(func.id)[:rows]) == 1:
                one = int(np.flatnonzero(masks.units_for(func.id)[:rows])[0])  # "every able unit" is this one
            out[self.segment("target")][:rows] = masks.targets_for(func.id, one)[:rows]
        if "world" in takes:
            target = RAW_FUNCTION_TARGETS[func.id]
            out[self.segment("world")] = worlds[TargetClass(int(target)) if target >= 0 else TargetClass.ANY]
        return self._keep_one(out)

    def _keep_one(self, out: np.ndarray) -> np.ndarray:
        for name in RAW_COMPONENT_NAMES:
            part = out[self.segment(name)]
            if not part.any():
                part[0] = True
        return out
