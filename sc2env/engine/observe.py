"""Build the protocol views of a game: observations (with spliced feature layers), game_info and data."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from s2clientprotocol import data_pb2, raw_pb2
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env.engine import rgb, wire
from sc2env.engine.frame import CARRY_GAS, CARRY_MINERALS, NEUTRAL_PLAYER_ID
from sc2env.engine.game import Game
from sc2env.engine.map_types import TypeIds
from sc2env.engine.orders import GATHER, RETURN, Order
from sc2env.engine.raw_grids import crop
from sc2env.engine.render import encode
from sc2env.engine.type_tables import DROPOFF_TYPES, HARVESTED_TYPES, WORKER_TYPES
from sc2env.engine.unit_states import Cargo
from sc2env.gamedata import ABILITIES, REAL_TYPE_COUNT, UNIT_TYPES, UnitType, unit_ids

# Field numbers used to splice pre-encoded layers: Response.observation > ResponseObservation.observation >
# Observation.feature_layer_data > ObservationFeatureLayer.{renders, minimap_renders}.
_RESPONSE_OBSERVATION, _OBSERVATION, _FEATURE_LAYER_DATA, _RENDERS, _MINIMAP_RENDERS = 10, 3, 6, 1, 2


Layers = tuple[tuple[int, bytes | bytearray], ...]
"""An observation's feature layers as the renderers encoded them: per stack, its ObservationFeatureLayer field
number (renders, minimap_renders) and its serialized FeatureLayers message (reused by the next observation)."""
NO_LAYERS: Layers = ()


def observation(game: Game, response: sc_pb.Response) -> Layers:
    """Fill `response.observation`, all but its feature layers, and return those as the renderers encoded them.

    The layers are encoded straight to bytes by the renderers (see `spliced` and `merge_layers`), which skips
    building and re-serializing ~40 ImageData messages per step.
    """
    obs = response.observation
    observed = obs.observation
    observed.game_loop = game.game_loop
    interface = game.interface
    game.panels.fill(observed, score=interface.options.score)
    ox, oy = game.raw_origin()
    camera = observed.raw_data.player.camera
    camera.x, camera.y = game.player.camera[0] - ox, game.player.camera[1] - oy
    if interface.options.raw:
        _raw_units(game, observed.raw_data)
    game.panels.ui(observed.ui_data)
    if interface.render_screen or interface.render_minimap:
        rgb.render(game, observed.render_data)
    for ability_id, result in game.action_errors:  # echoed as the game's C++ would: int32 -> uint32
        obs.action_errors.add(ability_id=ability_id & 0xFFFFFFFF, result=result)
    game.action_errors.clear()
    obs.actions.extend(game.echoed_actions)
    game.echoed_actions.clear()
    if game.ended:
        for player_id in game.seat_ids:  # as the game does: every player's result, to everyone
            obs.player_result.add(player_id=player_id, result=game.result_for(player_id) or sc_pb.Undecided)
    screen, minimap = game.screen_view(), game.minimap_view()
    layers: list[tuple[int, bytes | bytearray]] = []
    if screen is not None:
        encoded = game.screen_layers.render(screen, game.world, game.player, game.frames)
        layers.append((_RENDERS, encoded))
    if minimap is not None:
        encoded = game.minimap_layers.render(
            minimap, game.world, game.player, game.frames, camera=game.camera_view()
        )
        layers.append((_MINIMAP_RENDERS, encoded))
    return tuple(layers)


def spliced(head: bytes, layers: Layers) -> list[bytes | bytearray]:
    """A serialized Response (`head`) with `layers` spliced in, as pieces to write one after the other.

    The layers go in a second occurrence of `Response.observation`: protobuf parsers merge repeated occurrences
    of a message field, so clients see one observation. The ~170 KiB answer is not copied into one buffer.
    """
    if not layers:
        return [head]
    pieces: list[bytes | bytearray] = []
    for number, encoded in layers:
        pieces += (wire.field_header(number, len(encoded)), encoded)
    size = sum(map(len, pieces))
    inner = wire.field_header(_FEATURE_LAYER_DATA, size)
    size += len(inner)
    outer = wire.field_header(_OBSERVATION, size)
    size += len(outer)
    return [head, wire.field_header(_RESPONSE_OBSERVATION, size), outer, inner, *pieces]


def merge_layers(response: sc_pb.Response, layers: Layers) -> None:
    """Put `layers` into `response`'s observation, as a client parsing `spliced(...)` would see them."""
    if not layers:
        return
    data = response.observation.observation.feature_layer_data
    for number, encoded in layers:
        stack = data.renders if number == _RENDERS else data.minimap_renders
        stack.SetInParent()
        stack.MergeFromString(encoded)  # type: ignore[arg-type]  # upb parses a bytearray as bytes


def _raw_units(game: Game, raw: raw_pb2.ObservationRaw) -> None:
    """The units the player sees (its own with their orders and rally points) and the map state."""
    w, pid = game.world, game.player.player_id
    ox, oy = game.raw_origin()
    view = game.camera_view()
    shown = game.frames.shown(w, game.player)
    rows = range(w.n) if shown is None else np.flatnonzero(shown).tolist()
    selected = set(game.player.selection)
    heights = game.terrain.heights if game.definition.ground.heights is not None else None
    z = game.definition.terrain_height
    # The ground under each unit, all at once (a map with a height map), else the map's one height.
    if heights is not None and w.n:
        cell_y = np.clip(w.pos[:, 1].astype(int), 0, heights.shape[0] - 1)
        cell_x = np.clip(w.pos[:, 0].astype(int), 0, heights.shape[1] - 1)
        zs = heights[cell_y, cell_x].astype(float).tolist()
    else:
        zs = [z] * w.n
    harvesters = _harvesters(game)
    # Every column as Python values at once: reading numpy scalars field by field cost more than the fields.
    # On screen: the same comparisons as View.contains, on Python floats (a few units: cheaper than arrays).
    left, right, bottom, top = view.edges()
    heads = w.per_rows(("raw heads", pid), lambda: _raw_heads(game, pid))
    tags, facings, radii = w.tag.tolist(), w.facing.tolist(), w.radius.tolist()
    progress, world_xs, world_ys = w.build_progress.tolist(), w.pos[:, 0].tolist(), w.pos[:, 1].tolist()
    xs = [x - ox for x in world_xs] if ox else world_xs  # (Python floats subtract as float64 arrays do)
    ys = [y - oy for y in world_ys] if oy else world_ys
    health, health_max = w.health.tolist(), w.health_max.tolist()
    shields, shields_max = w.shields.tolist(), w.shields_max.tolist()
    energy, energy_max = w.energy.tolist(), w.energy_max.tolist()
    contents, cooldowns = w.contents.tolist(), w.cooldown.tolist()
    engaged, cargo = w.engaged.tolist(), w.cargo_kind.tolist()
    rallies = game.orders.rally
    add = raw.units.add
    for i in rows:
        tag, orders = tags[i], w.orders[i]
        unit_type_id, owner, alliance, minerals, vespene, cooldown = heads[i]
        unit = add(
            display_type=raw_pb2.Visible,
            tag=tag,
            unit_type=unit_type_id,
            owner=owner,
            facing=facings[i],
            radius=radii[i],
            build_progress=progress[i],
            cloak=raw_pb2.NotCloaked,
            is_selected=tag in selected,
            is_on_screen=left <= world_xs[i] < right and bottom < world_ys[i] <= top,
            is_active=bool(orders),
            alliance=alliance,
            health=health[i],
            health_max=health_max[i],
            shield=shields[i],
            shield_max=shields_max[i],
            energy=energy[i],
            energy_max=energy_max[i],
        )
        pos = unit.pos  # (each `unit.pos` looks the field up again)
        pos.x, pos.y, pos.z = xs[i], ys[i], zs[i]
        if minerals:
            unit.mineral_contents = int(contents[i])
        if vespene:
            unit.vespene_contents = int(contents[i])
        if tag in harvesters:
            unit.assigned_harvesters, unit.ideal_harvesters = harvesters[tag]
        if cooldown:
            unit.weapon_cooldown = max(cooldowns[i], 0.0)  # below 0: how late a ready weapon fires
        if engaged[i]:
            unit.engaged_target_tag = engaged[i]
        if cargo[i]:
            unit.buff_ids.append(CARRY_MINERALS if cargo[i] == Cargo.MINERALS else CARRY_GAS)
        if alliance == raw_pb2.Self:  # other players' orders and rally points are not reported
            rally = rallies.get(tag)
            if rally is not None:
                _add_rally(unit, rally, ox, oy)
            _add_orders(unit, orders, ox, oy)
    area, grids = game.raw_area(), game.raw_grids
    raw.map_state.visibility.MergeFromString(grids.encoded(8, game.vision.grid(), area, game.vision.version))
    raw.map_state.creep.MergeFromString(grids.encoded(1, game.terrain.creep, area))


class _RawHead(NamedTuple):
    """What a player sees of a unit that follows from its type and owner alone."""

    unit_type: int  # the type id the game reports
    owner: int  # as the game reports it (neutral units: NEUTRAL_PLAYER_ID)
    alliance: int
    minerals: bool  # holds minerals
    vespene: bool  # holds vespene
    cooldown: bool  # its weapon cooldown is reported (own armed units only)


def _raw_heads(game: Game, pid: int) -> list[_RawHead]:
    """Each row's _RawHead for player `pid` (a per-row fact)."""
    reported = game.type_ids.reported
    heads = []
    for unit_type, owner in zip(game.world.types, game.world.owner.tolist()):
        alliance = raw_pb2.Self if owner == pid else (raw_pb2.Neutral if owner == 0 else raw_pb2.Enemy)
        heads.append(
            _RawHead(
                int(reported[unit_type.unit_id]),
                owner or NEUTRAL_PLAYER_ID,
                alliance,
                bool(unit_type.mineral_contents),
                unit_type.has_vespene,
                unit_type.weapon is not None and owner == pid,
            )
        )
    return heads


def _add_rally(unit: raw_pb2.Unit, rally: Order, ox: int, oy: int) -> None:
    target = unit.rally_targets.add()
    if rally.target_tag:
        target.tag = rally.target_tag
    if rally.point is not None:
        target.point.x, target.point.y = rally.point[0] - ox, rally.point[1] - oy


def _add_orders(unit: raw_pb2.Unit, orders: list[Order], ox: int, oy: int) -> None:
    for order in orders:
        raw_order = unit.orders.add(ability_id=order.ability_id, progress=order.progress)
        if order.target_tag:
            raw_order.target_unit_tag = order.target_tag
        elif order.point is not None:
            point = raw_order.target_world_space_pos
            point.x, point.y = order.point[0] - ox, order.point[1] - oy


def _harvesters(game: Game) -> dict[int, tuple[int, int]]:
    """(assigned, ideal) workers of each own town hall (2 per mineral field within 10) and refinery (3)."""
    w, pid = game.world, game.player.player_id
    halls, refineries = w.per_rows(("harvest sites", pid), lambda: _harvest_sites(game))
    if not len(halls) and not len(refineries):
        return {}
    own, harvested, worker = w.owner == pid, HARVESTED_TYPES[w.type_id], WORKER_TYPES[w.type_id]
    workers = [
        i
        for i in np.flatnonzero(own & worker & (w.harvest_tag != 0)).tolist()
        if w.orders[i] and w.orders[i][0].ability_id in (GATHER, RETURN)
    ]
    targets = w.harvest_tag[workers]
    fields = np.flatnonzero((w.owner == 0) & harvested)
    out: dict[int, tuple[int, int]] = {}
    for i in halls.tolist():
        near = set(w.tag[fields[np.hypot(*(w.pos[fields] - w.pos[i]).T) <= 10]].tolist())
        out[int(w.tag[i])] = (sum(t in near for t in targets.tolist()), 2 * len(near))
    for i in refineries.tolist():
        out[int(w.tag[i])] = (int((targets == w.tag[i]).sum()), 3 if w.contents[i] > 0 else 0)
    return out


def _harvest_sites(game: Game) -> tuple[np.ndarray, np.ndarray]:
    """The player's finished town halls and refineries (rows): a per-row fact, since a structure finishing
    changes the rows' version."""
    w = game.world
    own_finished = (w.owner == game.player.player_id) & (w.build_progress >= 1)
    return (
        np.flatnonzero(own_finished & DROPOFF_TYPES[w.type_id]),
        np.flatnonzero(own_finished & HARVESTED_TYPES[w.type_id]),
    )


def game_info(game: Game) -> sc_pb.ResponseGameInfo:
    d = game.definition
    info = sc_pb.ResponseGameInfo(map_name=d.name, local_map_path=d.path)
    for player_id in game.seat_ids:  # every player, in slot order, as the game lists them
        with game.viewing(player_id):
            info.player_info.add(
                player_id=player_id,
                type=sc_pb.Participant,
                race_requested=game.race_requested,
                race_actual=game.race,
                player_name=game.player_name,
            )
    raw = info.start_raw
    # Under raw_crop_to_playable_area the map is the playable area, its corner the origin (inferred from
    # the option's description: the real game's cropped game_info is unrecorded).
    x0, y0, x1, y1 = game.playable_cells()
    ox, oy = game.raw_origin()
    raw.map_size.x, raw.map_size.y = d.map_size if game.raw_area() is None else (x1 - x0, y1 - y0)
    terrain = game.terrain
    raw.pathing_grid.MergeFromString(encode(1, crop(terrain.pathable, game.raw_area())))
    raw.placement_grid.MergeFromString(encode(1, crop(terrain.buildable, game.raw_area())))
    raw.terrain_height.MergeFromString(encode(8, crop(terrain.height, game.raw_area())))
    raw.playable_area.p0.x, raw.playable_area.p0.y = x0 - ox, y0 - oy
    raw.playable_area.p1.x, raw.playable_area.p1.y = x1 - ox, y1 - oy
    for x, y in d.start_locations:
        raw.start_locations.add(x=x - ox, y=y - oy)
    info.options.CopyFrom(game.interface.options)
    return info


REAL_TYPE_NAMES: dict[int, str] = {
    int(t): t.name for race in unit_ids.__all__ for t in getattr(unit_ids, race)
}
"""The real game's unit type names by id (those the engine lists without playing them)."""


def _add_unit_data(data: sc_pb.ResponseData, unit_type: UnitType) -> None:
    unit = data.units.add(
        unit_id=unit_type.unit_id,
        name=unit_type.name,
        available=True,
        cargo_size=unit_type.cargo_size,
        mineral_cost=unit_type.mineral_cost,
        vespene_cost=unit_type.vespene_cost,
        food_required=unit_type.food_required,
        food_provided=unit_type.food_provided,
        ability_id=unit_type.build_ability,
        race=unit_type.race,
        build_time=unit_type.build_time,
        has_minerals=unit_type.mineral_contents > 0,
        has_vespene=unit_type.has_vespene,
        sight_range=unit_type.sight,
        movement_speed=unit_type.speed,
        armor=unit_type.armor,
        tech_requirement=unit_type.tech_requirement,
        tech_alias=unit_type.tech_alias,
        unit_alias=unit_type.unit_alias,
    )
    unit.attributes.extend(data_pb2.Attribute.Value(a) for a in unit_type.attributes)
    if unit_type.weapon is not None:
        weapon = unit.weapons.add(
            type=unit_type.weapon.target,
            damage=unit_type.weapon.damage,
            attacks=unit_type.weapon.attacks,
            range=unit_type.weapon.range,
            speed=unit_type.weapon.cooldown,
        )
        for attribute, bonus in unit_type.weapon.bonus:
            weapon.damage_bonus.add(attribute=data_pb2.Attribute.Value(attribute), bonus=bonus)


def game_data(request: sc_pb.RequestData, type_ids: TypeIds | None = None) -> sc_pb.ResponseData:
    """The engine's abilities and unit types as `ResponseData` (upgrades, buffs and effects: none exist): every
    real type id, then the map's own types (`type_ids`) with the ids the game gives them."""
    data = sc_pb.ResponseData()
    if request.ability_id:
        for ability in ABILITIES.values():
            data.abilities.add(
                ability_id=ability.ability_id,
                link_name=ability.link_name,
                link_index=ability.link_index,
                button_name=ability.button_name,
                friendly_name=ability.friendly_name,
                hotkey=ability.hotkey,
                remaps_to_ability_id=ability.remaps_to,
                available=True,
                target=int(ability.target),
                allow_minimap=ability.allow_minimap,
                is_building=ability.building,
                footprint_radius=ability.footprint_radius,
            )
    if request.unit_type_id:
        # As the real game: an entry for every type id it has, so that a client counting them finds the map's
        # own types after the real ones (SMACv2 takes len(units) - 9 as its first agent type). The types the
        # engine does not play are listed by name only, not available.
        played: dict[int, UnitType] = {
            t.unit_id: t for t in UNIT_TYPES.values() if t.unit_id < REAL_TYPE_COUNT
        }
        if type_ids is not None:
            played.update((t.unit_id, t) for t in type_ids.own)
        names = dict(REAL_TYPE_NAMES)
        if type_ids is not None:
            names.update(type_ids.unplayed)
        last = max([REAL_TYPE_COUNT - 1, *played, *names])
        for unit_id in range(last + 1):
            unit_type = played.get(unit_id)
            if unit_type is None:
                data.units.add(unit_id=unit_id, name=names.get(unit_id, ""), available=False)
            else:
                _add_unit_data(data, unit_type)
    return data
