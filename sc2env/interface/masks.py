"""Which functions are available, and which values each argument may take, for one observation."""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple, cast

import numpy as np
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env.errors import InvalidActionError
from sc2env.interface.abilities import AbilityIndex
from sc2env.interface.arguments import ARGUMENT_TYPES
from sc2env.interface.functions import (
    FUNCTION_ARGUMENTS,
    FUNCTION_TARGETS,
    FUNCTIONS,
    FunctionCall,
    TargetClass,
)
from sc2env.interface.spec import ARGUMENT_NAMES, ActionSpec

_F = FUNCTIONS
_ALWAYS = (_F.no_op.id, _F.move_camera.id, _F.select_point.id, _F.select_rect.id, _F.select_control_group.id)
# UI functions that need something on the UI: (function, player_common field or ui panel).
_PLAYER_GATED = (
    (_F.select_idle_worker.id, "idle_worker_count"),
    (_F.select_army.id, "army_count"),
    (_F.select_warp_gates.id, "warp_gate_count"),
    (_F.select_larva.id, "larva_count"),
)
_PANEL_GATED = {"multi": _F.select_unit.id, "cargo": _F.unload.id, "production": _F.build_queue.id}
_A = {name: i for i, name in enumerate(ARGUMENT_NAMES)}


def available_function_ids(
    observation: sc_pb.Observation, index: AbilityIndex, on_unmatched: Callable[[int, bool], None]
) -> list[int]:
    """PySC2's available_actions, sorted: UI functions by UI state, ability functions by the abilities
    the game reports. An ability no function matches is passed to `on_unmatched` and skipped."""
    ids = list(_ALWAYS)
    player = observation.player_common
    for fid, name in _PLAYER_GATED:
        if getattr(player, name) > 0:
            ids.append(fid)
    panel = observation.ui_data.WhichOneof("panel")
    if panel in _PANEL_GATED:
        ids.append(_PANEL_GATED[panel])
    offered = index.offered
    for ability in observation.abilities:
        found = offered.get((ability.ability_id, ability.requires_point))
        if found:
            ids.extend(found)
        else:
            on_unmatched(ability.ability_id, ability.requires_point)
    return sorted(set(ids))


class UiCounts(NamedTuple):
    """The UI facts argument values depend on."""

    selection: bool
    """Something is selected (the game shows a unit panel)."""
    groups: tuple[int, ...]
    """The control groups (0-9) that hold units."""
    multi: int = 0
    """Units in the multi-select panel."""
    queue: int = 0
    """Entries in the production panel's build queue."""
    cargo: int = 0
    """Passengers in the cargo panel."""
    idle_workers: int = 0


class ActionMasks:
    """The flat mask `function ‖ screen ‖ minimap ‖ ... ‖ unload_id` for one observation, and views of it.

    Every component has at least one allowed value. An argument no available function uses is pinned
    to value 0. Masks are bool; `flat.view(np.int8)` gives Gymnasium's int8 without a copy.
    """

    __slots__ = ("flat", "idle", "spec", "stand_in", "target_masks")

    def __init__(
        self,
        spec: ActionSpec,
        flat: np.ndarray,
        target_masks: np.ndarray | None = None,
        stand_in: bool = False,
        idle: dict[int, str] | None = None,
    ):
        self.spec = spec
        self.flat = flat
        self.target_masks = target_masks
        """(classes, height, width) bool screen target masks by `TargetClass`, when enabled."""
        self.stand_in = stand_in
        """Nothing of the action space can be called now: the mask offers the first function with every
        argument at 0 only so that no component is empty (SC2Env plays that choice as no_op)."""
        self.idle = idle or {}
        """Functions the game offers that are masked out because an argument of theirs has no value now:
        function id -> that argument's name (select_control_group with no group and nothing selected)."""

    @property
    def function(self) -> np.ndarray:
        """The function component: one entry per function of the spec."""
        return self.flat[: len(self.spec.functions)]

    def argument(self, name: str) -> np.ndarray:
        """One argument's value mask (a view; points are flattened y * width + x)."""
        return self.flat[self.spec.segment(name)]

    @property
    def arguments(self) -> dict[str, np.ndarray]:
        """Every argument's value mask, by name."""
        return {name: self.argument(name) for name in ARGUMENT_NAMES}

    @property
    def available_function_ids(self) -> np.ndarray:
        """Ids of the functions that may be called now."""
        return self.spec.function_ids[self.function]

    def split(self) -> tuple[np.ndarray, ...]:
        """The 14 component masks as int8 views, the form `MultiDiscrete.sample(mask=...)` takes."""
        return self.spec.split(self.flat)  # bool, viewed as int8 there

    def for_function(self, function: int | str) -> np.ndarray:
        """A copy of the flat mask conditioned on calling `function` (an id or a name): unused arguments
        pinned to 0 and, with target masks, the screen argument limited to the function's own target class."""
        function_id = FUNCTIONS[function].id  # a clear error for an unknown id or name
        position = int(self.spec.function_position[function_id])
        if position < 0:
            raise InvalidActionError(f"{FUNCTIONS[function_id].name} is not in this action space")
        return self.spec.conditional_mask(self.flat, position, self.target_masks)

    def check(self, call: FunctionCall) -> None:
        """Raise `InvalidActionError` unless the call is available now with every argument value allowed."""
        func = FUNCTIONS[call.function]
        position = int(self.spec.function_position[call.function])
        if position < 0:
            raise InvalidActionError(f"{func.name} is not in this action space")
        if self.stand_in:
            stand_in = FUNCTIONS[int(self.spec.function_ids[0])].name
            raise InvalidActionError(
                f"no function of this action space can be called now: the mask offers only "
                f"{stand_in} (the function component's value 0, every argument 0) as a "
                "stand-in, so that no component is empty, and SC2Env plays that as no_op"
            )
        if not self.flat[position]:
            if func.id in self.idle:
                argument = self.idle[func.id]
                raise InvalidActionError(
                    f"{func.name} can't be called now: its {argument} has no allowed value "
                    f"({_NO_VALUE[argument]})"
                )
            raise InvalidActionError(
                f"{func.name} is not available now; available: "
                + ", ".join(FUNCTIONS[int(i)].name for i in self.available_function_ids)
            )
        # The arguments the function takes keep their own segments in its conditional mask; read those
        # directly instead of copying the mask. A screen point is checked against the flat mask's union of
        # the available functions' target classes, not the function's own class: policies that mask each
        # component on its own (MaskablePPO) cannot tie the point to the function, and the game itself
        # answers a point it cannot use (an ActionResult), so target masks guide and never forbid more.
        fmt = self.spec.fmt
        for arg_type, value in zip(func.args, call.arguments):
            allowed = self.flat[self.spec.segment(arg_type.name)]
            index = value[1] * arg_type.bounds(fmt)[0] + value[0] if arg_type.kind == "point" else value[0]
            if not allowed[index]:
                if arg_type.kind == "point":
                    shown, hint = f"({value[0]}, {value[1]})", ""
                elif arg_type.values is not None:  # with their names: "0 (recall)" says what was refused
                    shown = _named(arg_type.values, value[0])
                    hint = "; allowed now: " + (
                        ", ".join(_named(arg_type.values, v) for v in np.flatnonzero(allowed).tolist())
                        or "none"
                    )
                else:
                    shown, hint = str(value[0]), f"; allowed now: {np.flatnonzero(allowed).tolist()}"
                raise InvalidActionError(f"{func.name}: {arg_type.name} {shown} is not allowed now{hint}")


_NO_VALUE = {
    "control_group_id": "no control group holds units, and nothing is selected to put in one",
    "select_unit_id": "no multi-unit selection panel",
    "select_worker": "no idle worker",
    "build_queue_id": "the production queue is empty",
    "unload_id": "no passengers",
}


def _named(values, value: int) -> str:
    """An enum argument's value with its name, as "0 (recall)"."""
    return f"{value} ({values(value).name})" if 0 <= value < len(values) else str(value)


class MaskBuilder:
    """Builds `ActionMasks` for one `ActionSpec`, with the layout work done once (see docs/interface.md).

    The segments that depend only on which arguments are in use come from a cached template; only the
    function entries and the UI-dependent segments are written per observation.
    """

    _DYNAMIC = ("control_group_act", "control_group_id", "select_unit_id", "build_queue_id", "unload_id")

    def __init__(self, spec: ActionSpec, target_masks: bool = False):
        self.spec = spec
        self._targets = target_masks
        self._segments = {
            name: (int(spec.offsets[i + 1]), int(spec.offsets[i + 2]))
            for i, name in enumerate(ARGUMENT_NAMES)
        }
        self._position = spec.function_position.tolist()
        self._bits = (
            (spec.function_arguments.astype(np.int64) << np.arange(len(ARGUMENT_TYPES))).sum(1).tolist()
        )
        self._target_of = FUNCTION_TARGETS.tolist()
        # The functions to drop when an id argument they take has no allowed value.
        self._takers = {
            name: frozenset(np.flatnonzero(FUNCTION_ARGUMENTS[:, _A[name]]).tolist())
            for name in ("control_group_id", "select_unit_id", "select_worker", "build_queue_id", "unload_id")
        }
        self._templates: dict[int, np.ndarray] = {}
        # Without target masks a mask depends only on (available ids, UI counts), which repeat step after step.
        self._built: dict[tuple, tuple[np.ndarray, np.ndarray | None, bool, dict[int, str]]] = {}

    def _template(self, used: int) -> np.ndarray:
        """The flat mask for a set of arguments in use (bit i: argument i), UI-dependent parts left empty."""
        template = self._templates.get(used)
        if template is None:
            template = np.zeros(self.spec.total, bool)
            dynamic = set(self._DYNAMIC) | ({"screen"} if self._targets else set())
            for i, (name, (start, stop)) in enumerate(self._segments.items()):
                if not used >> i & 1:
                    template[start] = True  # an argument no available function takes: pinned to value 0
                elif name not in dynamic:
                    template[start:stop] = True  # any value will do
            if len(self._templates) >= 256:
                self._templates.clear()
            self._templates[used] = template
        return template

    def __call__(
        self, available_ids: list[int], ui: UiCounts, target_masks: np.ndarray | None = None
    ) -> ActionMasks:
        if target_masks is not None:
            return ActionMasks(self.spec, *self._build(available_ids, ui, target_masks))
        key = (tuple(available_ids), ui)
        built = self._built.get(key)
        if built is None:
            if len(self._built) >= 256:
                self._built.clear()
            built = self._built[key] = self._build(available_ids, ui, None)
        flat, targets, stand_in, idle = built
        return ActionMasks(
            self.spec, flat.copy(), targets, stand_in, dict(idle)
        )  # copies: callers may change theirs

    def _build(
        self, available_ids: list[int], ui: UiCounts, target_masks: np.ndarray | None
    ) -> tuple[np.ndarray, np.ndarray | None, bool, dict[int, str]]:
        """ActionMasks' fields: the flat mask (see __call__), the target masks, whether it is the stand-in (see
        `ActionMasks.stand_in`), and the functions offered whose arguments have no value (`ActionMasks.idle`)."""
        drop: dict[int, str] = {}
        for name, has_values in (
            ("control_group_id", ui.selection or ui.groups),
            ("select_unit_id", ui.multi),
            ("select_worker", ui.idle_workers),
            ("build_queue_id", ui.queue),
            ("unload_id", ui.cargo),
        ):
            if not has_values:
                drop.update(dict.fromkeys(self._takers[name], name))
        nonempty = (
            None
            if target_masks is None
            else cast("list[bool]", target_masks.reshape(len(target_masks), -1).any(1).tolist())
        )
        positions, idle = [], {}
        for fid in available_ids:
            position = self._position[fid]
            if position < 0:
                continue
            if fid in drop:
                idle[fid] = drop[fid]
                continue
            target = self._target_of[fid]
            if nonempty is not None and target >= 0 and not nonempty[target]:
                continue  # nowhere on screen to aim it
            positions.append(position)
        if not positions:  # nothing of this action space can be called: the stand-in, arguments pinned
            flat = self._template(0).copy()
            flat[0] = True
            return flat, target_masks, True, idle
        used = 0
        for position in positions:
            used |= self._bits[position]

        flat = self._template(used).copy()
        flat[positions] = True
        segments = self._segments
        if used >> _A["control_group_act"] & 1:
            start, stop = segments["control_group_act"]
            flat[start] = bool(ui.groups)
            flat[start + 1 : stop] = ui.selection
            # set and set_and_steal with nothing selected empty a group, as the game takes them (PySC2 offers
            # them then too); appending nothing does nothing.
            flat[start + 1] = flat[start + 3] = ui.selection or bool(ui.groups)
        if used >> _A["control_group_id"] & 1:
            start, stop = segments["control_group_id"]
            if ui.selection:
                flat[start:stop] = True
            else:
                for group in ui.groups:
                    flat[start + group] = True
        for name, count in (
            ("select_unit_id", ui.multi),
            ("build_queue_id", ui.queue),
            ("unload_id", ui.cargo),
        ):
            if used >> _A[name] & 1:
                start, stop = segments[name]
                flat[start : min(start + count, stop)] = True
        if target_masks is not None and used >> _A["screen"] & 1:
            start, stop = segments["screen"]
            classes = {self._target_of[self.spec.functions[p]] for p in positions} - {-1}
            if TargetClass.ANY in classes:
                flat[start:stop] = True
            else:
                flat[start:stop] = target_masks[sorted(classes)].any(axis=0).ravel()
        return flat, target_masks, False, idle
