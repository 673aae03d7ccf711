"""FunctionCall -> `Action` proto with validation, and `Action` -> FunctionCall for last_actions."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from s2clientprotocol import sc2api_pb2 as sc_pb
from s2clientprotocol import spatial_pb2

from sc2env.errors import MalformedActionError
from sc2env.interface.abilities import ABILITY_INDEX
from sc2env.interface.format import InterfaceFormat
from sc2env.interface.functions import FUNCTIONS, Function, FunctionCall, FunctionKind, lookup_function

if TYPE_CHECKING:
    from sc2env.interface.masks import ActionMasks

K = FunctionKind

# UI functions: kind -> (ActionUI field, ((message field, argument position, protocol offset), ...)).
# The protocol's enums start at 1 where ours start at 0; an offset of None marks a boolean field.
_UI_FIELDS: dict[FunctionKind, tuple[str, tuple[tuple[str, int, int | None], ...]]] = {
    K.SELECT_CONTROL_GROUP: ("control_group", (("action", 0, 1), ("control_group_index", 1, 0))),
    K.SELECT_UNIT: ("multi_panel", (("type", 0, 1), ("unit_index", 1, 0))),
    K.SELECT_IDLE_WORKER: ("select_idle_worker", (("type", 0, 1),)),
    K.SELECT_ARMY: ("select_army", (("selection_add", 0, None),)),
    K.SELECT_WARP_GATES: ("select_warp_gates", (("selection_add", 0, None),)),
    K.SELECT_LARVA: ("select_larva", ()),
    K.UNLOAD: ("cargo_panel", (("unit_index", 0, 0),)),
    K.BUILD_QUEUE: ("production_panel", (("unit_index", 0, 0),)),
}


def as_function_call(call: Any) -> FunctionCall:
    """Accept our FunctionCall, or anything with `.function` and `.arguments` (e.g. PySC2's)."""
    if (
        isinstance(call, FunctionCall)
        and type(call.function) is int
        and type(call.arguments) is tuple
        and all(
            type(argument) is tuple and all(type(v) is int for v in argument) for argument in call.arguments
        )
    ):
        return call  # as FunctionCall.build makes them
    try:
        function, arguments = call.function, call.arguments
    except AttributeError:
        raise MalformedActionError(f"expected a FunctionCall, got {type(call).__name__}: {call!r}") from None
    # Made directly, as PySC2's code does (a name or a Function, arguments as lists): checked like build().
    return FunctionCall.build(function, arguments)


def validate_call(call: FunctionCall, fmt: InterfaceFormat, masks: ActionMasks | None = None) -> Function:
    """Raise `InvalidActionError` naming the function and argument at fault; return the function.

    Checks the id, the argument count and every value against its static range (both axes of points): a call
    failing these is no action of the interface at all (`MalformedActionError`). With `masks` (from the
    current observation), also checks that the function is available now and that every argument value is
    allowed by its value mask (`InvalidActionError`).
    """
    func = lookup_function(call.function)
    if len(call.arguments) != len(func.args):
        wanted = ", ".join(a.name for a in func.args) or "no arguments"
        raise MalformedActionError(
            f"{func.name} takes {len(func.args)} argument(s) ({wanted}); "
            f"got {len(call.arguments)}: {call.arguments!r}"
        )
    for arg_type, value in zip(func.args, call.arguments):
        bounds = arg_type.bounds(fmt)
        if len(value) != len(bounds):
            raise MalformedActionError(
                f"{func.name}: {arg_type.name} takes {len(bounds)} value(s); got {value!r}"
            )
        if not all(0 <= v < b for v, b in zip(value, bounds)):
            if arg_type.kind == "point":
                raise MalformedActionError(
                    f"{func.name} needs a {arg_type.space} point; ({value[0]}, {value[1]}) is outside "
                    f"{bounds[0]}×{bounds[1]}"
                )
            raise MalformedActionError(
                f"{func.name}: {arg_type.name} must be in 0..{bounds[0] - 1}; got {value[0]}"
            )
    if masks is not None:
        masks.check(call)
    return func


def encode_action(
    call: FunctionCall | Any, fmt: InterfaceFormat, masks: ActionMasks | None = None
) -> sc_pb.Action:
    """The `Action` proto for a call; `no_op` is an empty Action. See `validate_call` for the checks."""
    call = as_function_call(call)
    func = validate_call(call, fmt, masks)
    action = sc_pb.Action()
    kind, args = func.kind, call.arguments
    if kind is K.NO_OP:
        return action
    if kind in _UI_FIELDS:
        field, assignments = _UI_FIELDS[kind]
        message = getattr(action.action_ui, field)
        message.SetInParent()
        for name, position, offset in assignments:
            value = args[position][0]
            setattr(message, name, bool(value) if offset is None else value + offset)
        return action
    if kind is K.AUTOCAST:
        action.action_ui.toggle_autocast.ability_id = func.ability_id
        return action

    spatial = action.action_feature_layer if fmt.action_space == "features" else action.action_render
    if kind is K.MOVE_CAMERA:
        target = spatial.camera_move.center_minimap
        target.x, target.y = args[0]
    elif kind is K.SELECT_POINT:
        point = spatial.unit_selection_point
        point.selection_screen_coord.x, point.selection_screen_coord.y = args[1]
        point.type = spatial_pb2.ActionSpatialUnitSelectionPoint.Type.ValueType(args[0][0] + 1)  # starts at 1
    elif kind is K.SELECT_RECT:
        rect_select = spatial.unit_selection_rect
        (x0, y0), (x1, y1) = args[1], args[2]
        rect = rect_select.selection_screen_coord.add()
        rect.p0.x, rect.p0.y = min(x0, x1), min(y0, y1)
        rect.p1.x, rect.p1.y = max(x0, x1), max(y0, y1)
        rect_select.selection_add = bool(args[0][0])
    else:  # QUICK, SCREEN, MINIMAP
        command = spatial.unit_command
        command.ability_id = func.ability_id
        command.queue_command = bool(args[0][0])
        if kind is K.SCREEN:
            command.target_screen_coord.x, command.target_screen_coord.y = args[1]
        elif kind is K.MINIMAP:
            command.target_minimap_coord.x, command.target_minimap_coord.y = args[1]
    return action


def action_function_id(action: sc_pb.Action, fmt: InterfaceFormat) -> int | None:
    """The id of the function an `Action` expresses, or None when none does (what last_actions reports).

    An empty Action is `no_op`. None comes back for raw-only actions, unknown abilities (dances, map
    abilities) and abilities used in a form no function has (e.g. Smart without a target).
    Specific abilities read back as their general function under `hide_specific_actions`.
    """
    reverse = ABILITY_INDEX[fmt.hide_specific_actions].reverse
    ui_field = action.action_ui.WhichOneof("action")
    if ui_field == "toggle_autocast":
        return reverse.get((action.action_ui.toggle_autocast.ability_id, K.AUTOCAST))
    if ui_field is not None:
        return _UI_FUNCTION_OF_FIELD[ui_field]
    features = fmt.action_space == "features"
    spatial = action.action_feature_layer if features else action.action_render
    field = spatial.WhichOneof("action")
    if field == "unit_command":
        command = spatial.unit_command
        return reverse.get((command.ability_id, _KIND_OF_TARGET[command.WhichOneof("target")]))
    if field == "unit_selection_rect" and not spatial.unit_selection_rect.selection_screen_coord:
        return None
    if field is not None:
        return _SPATIAL_FUNCTION_OF_FIELD[field]
    if action.HasField("action_raw") or action.HasField(
        "action_render" if features else "action_feature_layer"
    ):
        return None  # not expressible as a function of this format
    return FUNCTIONS.no_op.id


def decode_action(action: sc_pb.Action, fmt: InterfaceFormat) -> FunctionCall | None:
    """The call an `Action` expresses, or None when no function expresses it (see `action_function_id`)."""
    function_id = action_function_id(action, fmt)
    if function_id is None:
        return None
    kind = FUNCTIONS[function_id].kind
    if kind in _UI_FIELDS:
        field, assignments = _UI_FIELDS[kind]
        message = getattr(action.action_ui, field)
        values = [(int(getattr(message, name)) - (offset or 0),) for name, _, offset in assignments]
        return FunctionCall(function_id, tuple(values))
    spatial = action.action_feature_layer if fmt.action_space == "features" else action.action_render
    if kind is K.MOVE_CAMERA:
        point = spatial.camera_move.center_minimap
        return FunctionCall(function_id, ((point.x, point.y),))
    if kind is K.SELECT_POINT:
        select_point = spatial.unit_selection_point
        point = select_point.selection_screen_coord
        return FunctionCall(function_id, ((max(select_point.type - 1, 0),), (point.x, point.y)))
    if kind is K.SELECT_RECT:
        select_rect = spatial.unit_selection_rect
        rect = select_rect.selection_screen_coord[0]
        return FunctionCall(
            function_id, ((int(select_rect.selection_add),), (rect.p0.x, rect.p0.y), (rect.p1.x, rect.p1.y))
        )
    if kind in (K.QUICK, K.SCREEN, K.MINIMAP):
        command = spatial.unit_command
        queued = (int(command.queue_command),)
        if kind is K.QUICK:
            return FunctionCall(function_id, (queued,))
        point = command.target_screen_coord if kind is K.SCREEN else command.target_minimap_coord
        return FunctionCall(function_id, (queued, (point.x, point.y)))
    return FunctionCall(function_id, ())  # no_op, autocast


_UI_FUNCTION_OF_FIELD = {
    field: f.id for f in FUNCTIONS for kind, (field, _) in _UI_FIELDS.items() if f.kind is kind
}
_SPATIAL_FUNCTION_OF_FIELD = {
    "camera_move": FUNCTIONS.move_camera.id,
    "unit_selection_point": FUNCTIONS.select_point.id,
    "unit_selection_rect": FUNCTIONS.select_rect.id,
}
_KIND_OF_TARGET = {"target_screen_coord": K.SCREEN, "target_minimap_coord": K.MINIMAP, None: K.QUICK}
