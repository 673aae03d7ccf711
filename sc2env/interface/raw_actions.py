"""RawFunctionCall <-> `ActionRaw` (raw units named by their rows), and the query for what units can do."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

import numpy as np
from s2clientprotocol import query_pb2
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env.errors import InvalidActionError
from sc2env.interface.raw_functions import (
    RAW_ABILITY_INDEX,
    RAW_FUNCTIONS,
    RawFunctionCall,
    RawFunctionKind,
    lookup_raw_function,
)
from sc2env.interface.transforms import CoordinateTransforms

if TYPE_CHECKING:
    from sc2env.interface.raw_masks import RawActionMasks

K = RawFunctionKind


def encode_raw_action(
    call: RawFunctionCall,
    tags: np.ndarray,
    transforms: CoordinateTransforms,
    masks: RawActionMasks | None = None,
) -> sc_pb.Action:
    """The `Action` (action_raw) for a raw call whose units are rows of `tags` (the observation's raw_units
    tag column); no_op is an empty Action. InvalidActionError names the row, point or function at fault; with
    `masks`, a function no named unit can use now, or a target its class excludes, is refused too."""
    func = lookup_raw_function(call.function)
    if len(call.arguments) != len(func.args):
        call = RawFunctionCall.build(func, call.arguments)  # raises, naming what the function takes
    args = dict(zip((a.name for a in func.args), call.arguments))
    for name in ("unit_tags", "target_unit_tag"):
        outside = [r for r in args.get(name, ()) if r >= len(tags)]
        if outside:
            raise InvalidActionError(
                f"{func.name}: {name} row {outside[0]} names no unit: there are {len(tags)} "
                "rows (units are named by their row in the latest observation's raw_units, "
                "which the env cuts at max_units)"
            )
    if "world" in args:
        width, height = transforms.raw_grid_size
        x, y = args["world"]
        if not (0 <= x < width and 0 <= y < height):
            raise InvalidActionError(
                f"{func.name}: the point ({x}, {y}) is off the map: raw points lie in {width}×{height}"
            )
    if masks is not None:
        masks.check(call)
    action = sc_pb.Action()
    if func.kind is K.NO_OP:
        return action
    raw = action.action_raw
    if func.kind is K.MOVE_CAMERA:
        target = raw.camera_move.center_world_space
        target.x, target.y = _world(args["world"], transforms)
        return action
    unit_tags = [int(tags[r]) for r in args["unit_tags"]]
    if func.kind is K.AUTOCAST:
        raw.toggle_autocast.ability_id = func.ability_id
        raw.toggle_autocast.unit_tags.extend(unit_tags)
        return action
    command = raw.unit_command
    command.ability_id = func.ability_id
    command.unit_tags.extend(unit_tags)
    command.queue_command = bool(args["queued"][0])
    if func.kind is K.POINT:
        command.target_world_space_pos.x, command.target_world_space_pos.y = _world(args["world"], transforms)
    elif func.kind is K.UNIT:
        command.target_unit_tag = int(tags[args["target_unit_tag"][0]])
    return action


def _world(point: tuple[int, ...], transforms: CoordinateTransforms) -> tuple[float, float]:
    """A raw cell's centre in world coordinates."""
    x, y = transforms.world_to_raw.back_pixel(point).tolist()
    return x, y


def decode_raw_action(
    action: sc_pb.Action,
    tags: np.ndarray,
    transforms: CoordinateTransforms,
    hide_specific_actions: bool = True,
) -> RawFunctionCall | None:
    """The raw call an `Action` expresses, its units as rows of `tags` (the raw_units the action was chosen
    from), or None when no raw function does: a UI or spatial action, an unknown ability, or a command whose
    units (or target) are all gone from `tags`. An empty Action is no_op."""
    if not action.HasField("action_raw"):
        return None if action.ListFields() else RAW_FUNCTIONS.no_op()
    raw = action.action_raw
    reverse = RAW_ABILITY_INDEX[hide_specific_actions].reverse
    row_of = {int(t): r for r, t in enumerate(np.asarray(tags).tolist())}
    field = raw.WhichOneof("action")
    if field == "camera_move":
        p = raw.camera_move.center_world_space
        return RawFunctionCall(RAW_FUNCTIONS.raw_move_camera.id, (_raw_point(p.x, p.y, transforms),))
    if field == "toggle_autocast":
        autocast = raw.toggle_autocast
        rows = tuple(row_of[t] for t in autocast.unit_tags if t in row_of)
        fid = reverse.get((autocast.ability_id, K.AUTOCAST))
        return None if fid is None or not rows else RawFunctionCall(fid, (rows,))
    message = raw.unit_command
    rows = tuple(row_of[t] for t in message.unit_tags if t in row_of)
    if field != "unit_command" or not rows:
        return None
    target = message.WhichOneof("target")
    kind = {"target_world_space_pos": K.POINT, "target_unit_tag": K.UNIT, None: K.QUICK}[target]
    fid = reverse.get((message.ability_id, kind))
    if fid is None:
        return None
    queued = (int(message.queue_command),)
    if kind is K.POINT:
        point = message.target_world_space_pos
        return RawFunctionCall(fid, (queued, rows, _raw_point(point.x, point.y, transforms)))
    if kind is K.UNIT:
        if message.target_unit_tag not in row_of:
            return None
        return RawFunctionCall(fid, (queued, rows, (row_of[message.target_unit_tag],)))
    return RawFunctionCall(fid, (queued, rows))


def _raw_point(x: float, y: float, transforms: CoordinateTransforms) -> tuple[int, int]:
    px, py = transforms.world_to_raw.fwd_pixel((x, y)).tolist()
    return px, py


def abilities_query(
    tags: Iterable[int], ignore_resource_requirements: bool = False
) -> query_pb2.RequestQuery:
    """The RequestQuery asking what each unit of `tags` can do now (for `RawActionMasks`)."""
    query = query_pb2.RequestQuery(ignore_resource_requirements=ignore_resource_requirements)
    for tag in tags:
        query.abilities.add(unit_tag=int(tag))
    return query
