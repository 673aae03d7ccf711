"""Build the protocol views of a game: observations (with spliced feature layers), game_info and data."""

from __future__ import annotations

import math

import numpy as np
from s2clientprotocol import data_pb2, raw_pb2, score_pb2, ui_pb2
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env.engine import rgb, wire
from sc2env.engine.game import Game
from sc2env.engine.render import NEUTRAL_PLAYER_ID, encode
from sc2env.gamedata import ABILITIES, UNIT_TYPES

_ALLIANCE_SELF, _ALLIANCE_NEUTRAL, _ALLIANCE_ENEMY = 1, 3, 4
_CURRICULUM = score_pb2.Score.Curriculum
_MAX_FOOD = 200
# Field numbers used to splice pre-encoded layers: Response.observation > ResponseObservation.observation >
# Observation.feature_layer_data > ObservationFeatureLayer.{renders, minimap_renders}.
_RESPONSE_OBSERVATION, _OBSERVATION, _FEATURE_LAYER_DATA, _RENDERS, _MINIMAP_RENDERS = 10, 3, 6, 1, 2


def observation(game: Game, response: sc_pb.Response) -> bytes:
    """Fill `response.observation` and return the serialized Response with the feature layers spliced in.

    Feature layers are encoded straight to bytes by the renderers and appended as a second occurrence of
    `Response.observation`; protobuf parsers merge repeated occurrences of a message field, so clients see
    one observation. This skips building and re-serializing ~40 ImageData messages per step.
    """
    obs = response.observation
    o = obs.observation
    o.game_loop = game.game_loop
    _player_common(game, o.player_common)
    _abilities(game, o)
    _score(game, o.score)
    o.raw_data.player.camera.x, o.raw_data.player.camera.y = game.player.camera
    interface = game.interface
    if interface.options.raw:
        _raw_units(game, o.raw_data)
    _ui(game, o.ui_data)
    if interface.render_screen or interface.render_minimap:
        rgb.render(game, o.render_data)
    for ability_id, result in game.action_errors:
        obs.action_errors.add(ability_id=ability_id, result=result)
    game.action_errors.clear()
    obs.actions.extend(game.echoed_actions)
    game.echoed_actions.clear()
    if game.ended:
        obs.player_result.add(player_id=game.player.player_id, result=game.result)
    head = response.SerializeToString()
    screen, minimap = game.screen_view(), game.minimap_view()
    pieces: list[bytes] = []
    if screen is not None:
        layers = game.screen_layers.render(screen, game.world, game.player, game.frames)
        pieces += [wire.field_header(_RENDERS, sum(map(len, layers)))] + layers
    if minimap is not None:
        layers = game.minimap_layers.render(minimap, game.world, game.player, game.frames,
                                            camera=game.camera_view())
        pieces += [wire.field_header(_MINIMAP_RENDERS, sum(map(len, layers)))] + layers
    if not pieces:
        return head
    size = sum(map(len, pieces))
    inner = wire.field_header(_FEATURE_LAYER_DATA, size)
    size += len(inner)
    outer = wire.field_header(_OBSERVATION, size)
    size += len(outer)
    return b"".join([head, wire.field_header(_RESPONSE_OBSERVATION, size), outer, inner] + pieces)


def _own_rows(game: Game) -> np.ndarray:
    return np.flatnonzero(game.world.owner == game.player.player_id)


def _player_common(game: Game, pc: sc_pb.PlayerCommon) -> None:
    w, p = game.world, game.player
    pc.player_id = p.player_id
    pc.minerals, pc.vespene = p.minerals, p.vespene
    food_cap = food_army = food_workers = 0.0
    army = idle_workers = 0
    for i in _own_rows(game).tolist():
        t = w.types[i]
        if w.build_progress[i] >= 1:
            food_cap += t.food_provided
        if t.worker:
            food_workers += t.food_required
            idle_workers += not w.orders[i]
        else:
            food_army += t.food_required
        army += t.army
    pc.food_cap = int(min(food_cap, _MAX_FOOD))
    pc.food_used = math.ceil(food_army + food_workers)
    pc.food_army, pc.food_workers = math.ceil(food_army), int(food_workers)
    pc.idle_worker_count, pc.army_count = idle_workers, army


def _abilities(game: Game, o: sc_pb.Observation) -> None:
    """The command-card abilities of the selected own units, plus Smart, each listed once."""
    w = game.world
    seen: dict[int, None] = {}
    for tag in game.player.selection:
        if not w.exists(tag):
            continue
        i = w.slot(tag)
        if w.owner[i] != game.player.player_id:
            continue
        card = w.types[i].command_card
        if card:
            seen.setdefault(1)
        for ability_id in card:
            seen.setdefault(ability_id)
    for ability_id in seen:
        o.abilities.add(ability_id=ability_id, requires_point=ABILITIES[ability_id].requires_point)


def _score(game: Game, score: score_pb2.Score) -> None:
    score.score_type = _CURRICULUM
    score.score = game.player.score
    details = score.score_details
    details.SetInParent()
    w = game.world
    for i in _own_rows(game).tolist():
        t = w.types[i]
        if t.worker:
            details.food_used.economy += t.food_required
        else:
            details.food_used.army += t.food_required
        if t.structure:
            details.total_value_structures += t.mineral_cost + t.vespene_cost
        else:
            details.total_value_units += t.mineral_cost + t.vespene_cost


def _raw_units(game: Game, raw: raw_pb2.ObservationRaw) -> None:
    w, pid = game.world, game.player.player_id
    view = game.camera_view()
    on_screen = view.contains(w.pos[:, 0], w.pos[:, 1]) if w.n else []
    selected = set(game.player.selection)
    z = game.definition.terrain_height
    for i in range(w.n):
        t = w.types[i]
        owner = int(w.owner[i])
        u = raw.units.add(display_type=raw_pb2.Visible, tag=int(w.tag[i]), unit_type=t.unit_id,
                          owner=owner or NEUTRAL_PLAYER_ID, facing=float(w.facing[i]), radius=float(w.radius[i]),
                          build_progress=float(w.build_progress[i]), cloak=raw_pb2.NotCloaked,
                          is_selected=int(w.tag[i]) in selected, is_on_screen=bool(on_screen[i]),
                          is_active=bool(w.orders[i]))
        u.alliance = _ALLIANCE_SELF if owner == pid else (_ALLIANCE_NEUTRAL if owner == 0 else _ALLIANCE_ENEMY)
        u.pos.x, u.pos.y, u.pos.z = float(w.pos[i, 0]), float(w.pos[i, 1]), z
        u.health, u.health_max = float(w.health[i]), float(w.health_max[i])
        u.shield, u.shield_max = float(w.shields[i]), float(w.shields_max[i])
        u.energy, u.energy_max = float(w.energy[i]), float(w.energy_max[i])
        if t.mineral_contents:
            u.mineral_contents = t.mineral_contents
        if t.vespene_contents:
            u.vespene_contents = t.vespene_contents
        for order in w.orders[i]:
            uo = u.orders.add(ability_id=order.ability_id, progress=order.progress)
            if order.target_tag:
                uo.target_unit_tag = order.target_tag
            elif order.point is not None:
                uo.target_world_space_pos.x, uo.target_world_space_pos.y = order.point
    terrain = game.terrain
    raw.map_state.visibility.MergeFromString(encode(8, terrain.visibility))
    raw.map_state.creep.MergeFromString(encode(1, terrain.creep))


def unit_info(game: Game, tag: int, info: ui_pb2.UnitInfo) -> None:
    w = game.world
    i = w.slot(tag)
    owner = int(w.owner[i])
    info.unit_type = int(w.type_id[i])
    info.player_relative = (_ALLIANCE_SELF if owner == game.player.player_id
                            else _ALLIANCE_NEUTRAL if owner == 0 else _ALLIANCE_ENEMY)
    info.health, info.max_health = int(w.health[i]), int(w.health_max[i])
    info.shields, info.max_shields = int(w.shields[i]), int(w.shields_max[i])
    info.energy, info.max_energy = int(w.energy[i]), int(w.energy_max[i])
    info.build_progress = float(w.build_progress[i])


def _ui(game: Game, ui: ui_pb2.ObservationUI) -> None:
    w = game.world
    for index, group in enumerate(game.player.control_groups):
        tags = [t for t in group if w.exists(t)]
        if tags:
            ui.groups.add(control_group_index=index, leader_unit_type=int(w.type_id[w.slot(tags[0])]),
                          count=len(tags))
    selection = [t for t in game.player.selection if w.exists(t)]
    if len(selection) == 1:
        unit_info(game, selection[0], ui.single.unit)
    elif selection:
        for tag in selection:
            unit_info(game, tag, ui.multi.units.add())


def game_info(game: Game) -> sc_pb.ResponseGameInfo:
    d = game.definition
    info = sc_pb.ResponseGameInfo(map_name=d.name, local_map_path=d.path)
    info.player_info.add(player_id=game.player.player_id, type=sc_pb.Participant, race_requested=game.race,
                         race_actual=game.race, player_name=d.players[0].name if d.players else "Player")
    raw = info.start_raw
    raw.map_size.x, raw.map_size.y = d.map_size
    terrain = game.terrain
    raw.pathing_grid.MergeFromString(encode(1, terrain.pathable))
    raw.placement_grid.MergeFromString(encode(1, terrain.buildable))
    raw.terrain_height.MergeFromString(encode(8, terrain.height))
    b = d.playable_area
    raw.playable_area.p0.x, raw.playable_area.p0.y = math.floor(b.x0), math.floor(b.y0)
    raw.playable_area.p1.x, raw.playable_area.p1.y = math.ceil(b.x1), math.ceil(b.y1)
    for x, y in d.start_locations:
        raw.start_locations.add(x=x, y=y)
    info.options.CopyFrom(game.interface.options)
    return info


def game_data(request: sc_pb.RequestData) -> sc_pb.ResponseData:
    """The engine's abilities and unit types as `ResponseData` (upgrades, buffs and effects: none exist)."""
    data = sc_pb.ResponseData()
    if request.ability_id:
        for a in ABILITIES.values():
            data.abilities.add(ability_id=a.ability_id, link_name=a.link_name, link_index=a.link_index,
                               button_name=a.button_name, friendly_name=a.friendly_name, hotkey=a.hotkey,
                               remaps_to_ability_id=a.remaps_to, available=True, target=int(a.target),
                               allow_minimap=a.allow_minimap, is_building=a.building,
                               footprint_radius=a.footprint_radius)
    if request.unit_type_id:
        for t in UNIT_TYPES.values():
            u = data.units.add(unit_id=t.unit_id, name=t.name, available=True, cargo_size=t.cargo_size,
                               mineral_cost=t.mineral_cost, vespene_cost=t.vespene_cost,
                               food_required=t.food_required, food_provided=t.food_provided,
                               ability_id=t.build_ability, race=t.race, build_time=t.build_time,
                               has_minerals=t.mineral_contents > 0, has_vespene=t.vespene_contents > 0,
                               sight_range=t.sight, movement_speed=t.speed, armor=t.armor,
                               tech_requirement=t.tech_requirement)
            u.attributes.extend(data_pb2.Attribute.Value(a) for a in t.attributes)
            if t.weapon is not None:
                wpn = u.weapons.add(type=t.weapon.target, damage=t.weapon.damage, attacks=t.weapon.attacks,
                                    range=t.weapon.range, speed=t.weapon.cooldown)
                for attribute, bonus in t.weapon.bonus:
                    wpn.damage_bonus.add(attribute=data_pb2.Attribute.Value(attribute), bonus=bonus)
    return data

