"""A player's actions (feature-layer, render, UI and raw) applied to the game: selection, commands, camera."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
from s2clientprotocol import error_pb2, raw_pb2, spatial_pb2, ui_pb2
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env.engine.orders import CANT_TARGET, ERROR, REPAIR, SUCCESS
from sc2env.engine.players import CONTROL_GROUPS
from sc2env.engine.render import View
from sc2env.gamedata import ABILITIES, Target

if TYPE_CHECKING:
    from sc2env.engine.game import Game

NOT_SUPPORTED = error_pb2.NotSupported
_CONTROL_GROUP = ui_pb2.ActionControlGroup
_IDLE_WORKER = ui_pb2.ActionSelectIdleWorker
_MULTI_PANEL = ui_pb2.ActionMultiPanel

_SELECT, _TOGGLE, _ALL_TYPE, _ADD_ALL_TYPE = (
    spatial_pb2.ActionSpatialUnitSelectionPoint.Select,
    spatial_pb2.ActionSpatialUnitSelectionPoint.Toggle,
    spatial_pb2.ActionSpatialUnitSelectionPoint.AllType,
    spatial_pb2.ActionSpatialUnitSelectionPoint.AddAllType,
)


def apply(game: Game, action: sc_pb.Action) -> int:
    """Apply one `Action`; returns its immediate `ActionResult`. Empty actions (no-ops) succeed."""
    result: int = SUCCESS
    if action.HasField("action_feature_layer"):
        result = _spatial(game, action.action_feature_layer, game.screen_view(), game.minimap_view())
    elif action.HasField("action_render"):
        result = _spatial(
            game, action.action_render, game.screen_view(render=True), game.minimap_view(render=True)
        )
    elif action.HasField("action_ui"):
        result = _ui(game, action.action_ui)
    elif action.HasField("action_raw"):
        result = _raw(game, action.action_raw)
    return result


# ---- feature-layer and render actions ---------------------------------------------------------------
def _spatial(
    game: Game, spatial: spatial_pb2.ActionSpatial, screen: View | None, minimap: View | None
) -> int:
    kind = spatial.WhichOneof("action")
    if kind is None:
        return SUCCESS
    if screen is None or minimap is None:
        return NOT_SUPPORTED  # this interface was not requested at join
    if kind == "unit_command":
        cmd = spatial.unit_command
        point = target = None
        if cmd.HasField("target_screen_coord"):
            c = cmd.target_screen_coord
            point = screen.pixel_to_world(c.x, c.y)
            target = _unit_at(game, screen, c.x, c.y)
        elif cmd.HasField("target_minimap_coord"):
            c = cmd.target_minimap_coord
            point = minimap.pixel_to_world(c.x, c.y)
        return command(game, cmd.ability_id, game.player.selection, point, target, cmd.queue_command)
    if kind == "camera_move":
        c = spatial.camera_move.center_minimap
        game.move_camera(*minimap.pixel_to_world(c.x, c.y))
        return SUCCESS
    if kind == "unit_selection_point":
        sel = spatial.unit_selection_point
        return _select_point(
            game, screen, sel.selection_screen_coord.x, sel.selection_screen_coord.y, sel.type
        )
    rect = spatial.unit_selection_rect
    return _select_rect(game, screen, rect.selection_screen_coord, rect.selection_add)


def _unit_at(game: Game, view: View, i: int, j: int) -> int | None:
    """The tag of the unit drawn at screen pixel (i, j), if it can be clicked."""
    if not (0 <= i < view.width and 0 <= j < view.height):
        return None
    index = game.frames.coverage(view, game.world, game.player)[0]
    row = int(index[j, i]) - 1
    if row < 0 or not game.world.types[row].selectable:
        return None
    return int(game.world.tag[row])


def _own(game: Game, tags) -> list[int]:
    w, pid = game.world, game.player.player_id
    return [t for t in tags if w.exists(t) and w.owner[w.slot(t)] == pid]


def _select_point(game: Game, view: View, i: int, j: int, kind: int) -> int:
    player = game.player
    tag = _unit_at(game, view, i, j)
    if tag is None:
        if kind == _SELECT:
            player.selection = []
        return SUCCESS
    if not _own(game, [tag]):  # other players' units are only ever selected alone
        if kind in (_SELECT, _ALL_TYPE):
            player.selection = [tag]
        return SUCCESS
    current = _own(game, player.selection)
    if kind == _SELECT:
        player.selection = [tag]
    elif kind == _TOGGLE:
        player.selection = [t for t in current if t != tag] if tag in current else current + [tag]
    else:
        w = game.world
        same = (
            (w.type_id == w.type_id[w.slot(tag)])
            & (w.owner == player.player_id)
            & view.contains(w.pos[:, 0], w.pos[:, 1])
        )
        tags = w.tags_where(same)
        base = current if kind == _ADD_ALL_TYPE else []
        player.selection = base + [t for t in tags if t not in base]
    return SUCCESS


def _select_rect(game: Game, view: View, rects, add: bool) -> int:
    w, player = game.world, game.player
    hit = np.zeros(w.n, bool)
    if w.n:
        fx, fy = view.world_to_pixel(w.pos[:, 0], w.pos[:, 1])
        rp = w.radius / view.scale
        for r in rects:
            x0, x1 = sorted((r.p0.x, r.p1.x))
            y0, y1 = sorted((r.p0.y, r.p1.y))
            nx = np.clip(fx, x0 - 0.5, x1 + 0.5)
            ny = np.clip(fy, y0 - 0.5, y1 + 0.5)
            hit |= np.hypot(fx - nx, fy - ny) <= rp
    selectable = np.array([t.selectable for t in w.types], bool) if w.n else hit
    mine = hit & selectable & (w.owner == player.player_id)
    tags = w.tags_where(mine)
    if not tags and not add:
        others = w.tags_where(hit & selectable)
        player.selection = others[:1]
        return SUCCESS
    base = _own(game, player.selection) if add else []
    player.selection = base + [t for t in tags if t not in base]
    return SUCCESS


# ---- unit commands -----------------------------------------------------------------------------------
def command(game: Game, ability_id: int, tags, point, target: int | None, queued: bool) -> int:
    """Order the units of `tags` the player owns to use `ability_id` (general or specific id); a failure is
    also reported in the next observation's `action_errors`.

    A screen point over a clickable unit targets that unit for abilities that accept units.
    """
    units = _own(game, tags)
    result = (
        game.orders.command(units, ability_id, point, target, queued)
        if units and ability_id in ABILITIES
        else ERROR
    )
    if result != SUCCESS:
        game.action_errors.append((ability_id, result))
    return result


# ---- UI actions --------------------------------------------------------------------------------------
def _ui(game: Game, ui: ui_pb2.ActionUI) -> int:
    kind = ui.WhichOneof("action") or ""
    # select_larva, select_warp_gates, cargo_panel: no larvae, warp gates or transports exist on the
    # engine's maps, so there is nothing to act on.
    handler = _UI_ACTIONS.get(kind)
    return handler(game, getattr(ui, kind)) if handler is not None else ERROR


def _control_group(game: Game, group: ui_pb2.ActionControlGroup) -> int:
    action, index = group.action, group.control_group_index
    if not 0 <= index < CONTROL_GROUPS:
        return ERROR
    player = game.player
    groups = player.control_groups
    selection = _own(game, player.selection)
    if action == _CONTROL_GROUP.Recall:
        recalled = _own(game, groups[index])
        if recalled:
            player.selection = recalled
        return SUCCESS
    if action in (_CONTROL_GROUP.SetAndSteal, _CONTROL_GROUP.AppendAndSteal):  # they leave the other groups
        for n in range(CONTROL_GROUPS):
            if n != index:
                groups[n] = [t for t in groups[n] if t not in selection]
    if action in (_CONTROL_GROUP.Set, _CONTROL_GROUP.SetAndSteal):
        groups[index] = list(selection)
    elif action in (_CONTROL_GROUP.Append, _CONTROL_GROUP.AppendAndSteal):
        groups[index] = groups[index] + [t for t in selection if t not in groups[index]]
    else:
        return ERROR
    return SUCCESS


def _select_army(game: Game, select: ui_pb2.ActionSelectArmy) -> int:
    player, w = game.player, game.world
    army = [t for t in _own(game, w.tag.tolist()) if w.types[w.slot(t)].army]
    base = _own(game, player.selection) if select.selection_add else []
    player.selection = base + [t for t in army if t not in base]
    return SUCCESS


def _select_idle_worker(game: Game, select: ui_pb2.ActionSelectIdleWorker) -> int:
    player, w = game.player, game.world
    idle = [t for t in _own(game, w.tag.tolist()) if w.types[w.slot(t)].worker and not w.orders[w.slot(t)]]
    if not idle:
        return ERROR
    current = _own(game, player.selection)
    fresh = [t for t in idle if t not in current] or idle
    chosen = {
        _IDLE_WORKER.Set: [fresh[0]],
        _IDLE_WORKER.Add: current + [fresh[0]],
        _IDLE_WORKER.All: idle,
        _IDLE_WORKER.AddAll: current + fresh,
    }.get(select.type)
    if chosen is None:
        return ERROR
    player.selection = list(dict.fromkeys(chosen))
    return SUCCESS


def _multi_panel(game: Game, panel: ui_pb2.ActionMultiPanel) -> int:
    player, w = game.player, game.world
    selection = player.selection
    if not 0 <= panel.unit_index < len(selection):
        return ERROR
    tag = selection[panel.unit_index]
    same = [t for t in selection if w.type_id[w.slot(t)] == w.type_id[w.slot(tag)]]
    player.selection = {
        _MULTI_PANEL.SingleSelect: [tag],
        _MULTI_PANEL.DeselectUnit: [t for t in selection if t != tag],
        _MULTI_PANEL.SelectAllOfType: same,
        _MULTI_PANEL.DeselectAllOfType: [t for t in selection if t not in same],
    }.get(panel.type, selection)
    return SUCCESS


def _production_panel(game: Game, panel: ui_pb2.ActionProductionPanelRemoveFromQueue) -> int:
    """Clicking a queue slot cancels that unit."""
    w = game.world
    selection = _own(game, game.player.selection)
    if len(selection) != 1:
        return ERROR
    i = w.slot(selection[0])
    return game.production.cancel(i, panel.unit_index) if w.types[i].queue_size else ERROR


def _toggle_autocast(game: Game, toggle: ui_pb2.ActionToggleAutocast) -> int:
    """Only Repair autocasts here, and it stays a manual order in the engine."""
    w = game.world
    return (
        SUCCESS
        if any(REPAIR in game.orders.card(w.slot(t)) for t in _own(game, game.player.selection))
        else ERROR
    )


_UI_ACTIONS: dict[str, Callable[[Game, Any], int]] = {
    "control_group": _control_group,
    "select_army": _select_army,
    "select_idle_worker": _select_idle_worker,
    "multi_panel": _multi_panel,
    "production_panel": _production_panel,
    "toggle_autocast": _toggle_autocast,
}
"""The ActionUI kinds the engine acts on (the field of the `action` oneof -> its handler)."""


# ---- raw actions -------------------------------------------------------------------------------------
def _raw(game: Game, raw: raw_pb2.ActionRaw) -> int:
    kind = raw.WhichOneof("action")
    ox, oy = game.raw_origin()  # raw_crop_to_playable_area: raw points are relative to the playable area
    if kind == "unit_command":
        cmd = raw.unit_command
        point = None
        if cmd.HasField("target_world_space_pos"):
            point = (cmd.target_world_space_pos.x + ox, cmd.target_world_space_pos.y + oy)
            if not _finite(point):  # NaN passes every clamp: the unit would stand nowhere for good
                game.action_errors.append((cmd.ability_id, ERROR))
                return ERROR
        target = cmd.target_unit_tag if cmd.HasField("target_unit_tag") else None
        if target is not None and not game.world.exists(target):
            game.action_errors.append((cmd.ability_id, CANT_TARGET))
            return CANT_TARGET
        tags = list(cmd.unit_tags)
        if game.interface.options.raw_affects_selection:  # the game selects the units it commands
            game.player.selection = list(dict.fromkeys(_own(game, tags)))
        return command(game, cmd.ability_id, tags, point, target, cmd.queue_command)
    if kind == "camera_move":
        p = raw.camera_move.center_world_space
        if not _finite((p.x, p.y)):
            return ERROR
        game.move_camera(p.x + ox, p.y + oy)
        return SUCCESS
    return ERROR if kind else SUCCESS


def echo_of(game: Game, action: sc_pb.Action, raw: bool) -> sc_pb.Action:
    """What the game echoes back for an action it took: a raw one with its feature-layer form too, a
    feature-layer one with its raw form too for a player with raw data (`raw`), the others as they came."""
    if action.HasField("action_raw"):
        return raw_echo(game, action)
    if action.HasField("action_feature_layer") and raw:
        return feature_echo(game, action)
    return action


def raw_echo(game: Game, action: sc_pb.Action) -> sc_pb.Action:
    """A raw action as the game echoes it back: with its feature-layer form added when the player has feature
    layers (a unit command aimed at the screen pixel of its target point or unit, clamped to the screen; a
    camera move at the minimap pixel), as the real game's recorded echoes show both forms."""
    screen, minimap = game.screen_view(), game.minimap_view()
    if screen is None and minimap is None:  # no feature-layer form to add: echoed as it came (a raw player)
        return action
    echo = sc_pb.Action()
    echo.CopyFrom(action)
    raw = action.action_raw
    kind = raw.WhichOneof("action")
    ox, oy = game.raw_origin()
    if kind == "unit_command" and screen is not None:
        cmd, out = raw.unit_command, echo.action_feature_layer.unit_command
        out.ability_id = cmd.ability_id
        if cmd.HasField("queue_command"):
            out.queue_command = cmd.queue_command
        target = None
        if cmd.HasField("target_world_space_pos"):
            target = (cmd.target_world_space_pos.x + ox, cmd.target_world_space_pos.y + oy)
        elif cmd.HasField("target_unit_tag") and game.world.exists(cmd.target_unit_tag):
            target = tuple(game.world.pos[game.world.slot(cmd.target_unit_tag)])
        if target is not None and _finite(target):
            out.target_screen_coord.x, out.target_screen_coord.y = _pixel(screen, target)
    elif (
        kind == "camera_move"
        and minimap is not None
        and _finite((raw.camera_move.center_world_space.x, raw.camera_move.center_world_space.y))
    ):
        p = raw.camera_move.center_world_space
        point = echo.action_feature_layer.camera_move.center_minimap
        point.x, point.y = _pixel(minimap, (p.x + ox, p.y + oy))
    return echo


def feature_echo(game: Game, action: sc_pb.Action) -> sc_pb.Action:
    """A feature-layer action as the game echoes it back to a player with raw data on: with its raw form
    added, where it has one (a unit command from the selected own units, aimed at the unit under the clicked
    pixel when the ability takes units, else at the pixel's centre in the world; a camera move at the world
    point), as the real game's recorded echoes show. Selections have no raw form."""
    spatial = action.action_feature_layer
    kind = spatial.WhichOneof("action")
    screen, minimap = game.screen_view(), game.minimap_view()
    if screen is None or minimap is None or kind not in ("unit_command", "camera_move"):
        return action
    ox, oy = game.raw_origin()
    echo = sc_pb.Action()
    echo.CopyFrom(action)
    raw = echo.action_raw
    if kind == "camera_move":
        c = spatial.camera_move.center_minimap
        x, y = minimap.pixel_to_world(c.x, c.y)
        raw.camera_move.center_world_space.x, raw.camera_move.center_world_space.y = x - ox, y - oy
        return echo
    cmd = spatial.unit_command
    units = _own(game, game.player.selection)
    if not units:
        return action
    out = raw.unit_command
    out.ability_id = cmd.ability_id
    out.unit_tags.extend(units)
    if cmd.HasField("queue_command"):
        out.queue_command = cmd.queue_command
    point = target = None
    if cmd.HasField("target_screen_coord"):
        point = screen.pixel_to_world(cmd.target_screen_coord.x, cmd.target_screen_coord.y)
        target = _unit_at(game, screen, cmd.target_screen_coord.x, cmd.target_screen_coord.y)
    elif cmd.HasField("target_minimap_coord"):
        point = minimap.pixel_to_world(cmd.target_minimap_coord.x, cmd.target_minimap_coord.y)
    takes_units = cmd.ability_id in ABILITIES and ABILITIES[cmd.ability_id].target in (
        Target.UNIT,
        Target.POINT_OR_UNIT,
    )
    if target is not None and takes_units:
        out.target_unit_tag = target
    elif point is not None:
        out.target_world_space_pos.x, out.target_world_space_pos.y = point[0] - ox, point[1] - oy
    return echo


def _pixel(view: View, point: tuple[float, float]) -> tuple[int, int]:
    """The pixel of `view` holding a world point, or the nearest edge pixel for one outside."""
    i = math.floor((point[0] - view.left) / view.scale)
    j = math.floor((view.top - point[1]) / view.scale)
    return min(max(i, 0), view.width - 1), min(max(j, 0), view.height - 1)


def _finite(point: tuple[float, float]) -> bool:
    return math.isfinite(point[0]) and math.isfinite(point[1])
