"""End to end: the real engine process, started by sc2env's launcher, played over a real websocket."""

from __future__ import annotations

import numpy as np
import pytest
from engine_helpers import (
    create_request,
    interface,
    join_request,
    layer,
    move_screen,
    screen_pixel,
    select_rect,
    spatial,
    units_of,
)
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env.engine import replay_file
from sc2env.errors import RequestError

MARINE, BEACON, SHARD = 48, 317, 1680


def start(controller, map_name: str, seed: int = 1, options=None) -> sc_pb.ResponseObservation:
    controller.create_game(create_request(map_name, seed))
    controller.join_game(join_request(options))
    return controller.observation()


def test_move_to_beacon_full_episode(controller):
    obs = start(controller, "MoveToBeacon", seed=7)
    assert obs.observation.game_loop == 0 and obs.observation.score.score == 0
    assert not obs.observation.abilities, "the marine starts unselected"
    obs = controller.act_step_observe([select_rect(0, 0, 63, 63)], 1)
    scores, jumps = [], 0
    while not obs.player_result:
        (marine,) = units_of(obs, MARINE)
        (beacon,) = units_of(obs, BEACON)
        target = screen_pixel(beacon.pos.x, beacon.pos.y)
        before = obs.observation.score.score
        obs = controller.act_step_observe([move_screen(*target)], 8)
        after = obs.observation.score.score
        assert after - before in (0, 1)
        if after > before:
            (marine,) = units_of(obs, MARINE)
            (new_beacon,) = units_of(obs, BEACON)
            jumps += 1
            assert (new_beacon.pos.x, new_beacon.pos.y) != (beacon.pos.x, beacon.pos.y)
            assert np.hypot(new_beacon.pos.x - marine.pos.x, new_beacon.pos.y - marine.pos.y) >= 5.0
        scores.append(after)
    assert obs.observation.game_loop == 1920
    assert controller.status == sc_pb.ended
    assert [r.player_id for r in obs.player_result] == [1]
    assert obs.player_result[0].result == sc_pb.Tie
    assert jumps == scores[-1] >= 20, "a scripted agent reaches the human score range (paper: 26)"
    again = controller.observation()  # observation keeps working after the end
    assert again.observation.score.score == scores[-1] and again.player_result
    assert controller.game_info().map_name == "MoveToBeacon"
    data = controller.data()  # and so does data
    marine = next(u for u in data.units if u.unit_id == MARINE)
    assert (marine.name, marine.movement_speed, marine.weapons[0].range) == ("Marine", 2.25, 5)
    assert next(a for a in data.abilities if a.ability_id == 16).remaps_to_ability_id == 3794
    saved = replay_file.decode(controller.save_replay().data)  # a .SC2Replay archive of the whole episode
    assert (saved.game_loop, saved.result, saved.score) == (1920, sc_pb.Tie, scores[-1])


def test_collect_mineral_shards_scores_respawns_and_ends(controller):
    obs = start(controller, "CollectMineralShards", seed=3)
    assert len(units_of(obs, MARINE)) == 2 and len(units_of(obs, SHARD)) == 20
    assert obs.observation.player_common.minerals == 0
    marines = units_of(obs, MARINE)
    for shard in units_of(obs, SHARD):
        assert min(np.hypot(shard.pos.x - m.pos.x, shard.pos.y - m.pos.y) for m in marines) >= 2.0
    obs = controller.act_step_observe([select_rect(0, 0, 63, 63)], 1)
    respawned = False
    previous_shards = 20
    while not obs.player_result:
        marine = units_of(obs, MARINE)[0]
        shards = units_of(obs, SHARD)
        nearest = min(shards, key=lambda s: np.hypot(s.pos.x - marine.pos.x, s.pos.y - marine.pos.y))
        before = obs.observation
        obs = controller.act_step_observe([move_screen(*screen_pixel(nearest.pos.x, nearest.pos.y))], 8)
        now = obs.observation
        assert now.score.score == now.player_common.minerals // 100
        collected = now.score.score - before.score.score
        assert now.player_common.minerals - before.player_common.minerals == 100 * collected
        count = len(units_of(obs, SHARD))
        if count > previous_shards:
            respawned = True
            assert count - (previous_shards - collected) == 20
        previous_shards = count
    assert respawned and obs.observation.score.score >= 20
    assert obs.observation.game_loop == 1920 and obs.player_result[0].result == sc_pb.Tie


def test_restart_from_in_game_and_after_the_end(controller):
    obs = start(controller, "MoveToBeacon", seed=5)
    first = units_of(obs, MARINE)[0].pos
    controller.act_step_observe([select_rect(0, 0, 63, 63)], 100)
    controller.restart_game()
    obs = controller.observation()
    assert obs.observation.game_loop == 0 and obs.observation.score.score == 0
    assert not obs.observation.abilities, "restart clears the selection"
    assert (units_of(obs, MARINE)[0].pos.x, units_of(obs, MARINE)[0].pos.y) != (first.x, first.y)
    controller.step(1920)
    assert controller.status == sc_pb.ended
    assert controller.observation().player_result
    controller.restart_game()
    assert controller.status == sc_pb.in_game
    obs = controller.observation()
    assert obs.observation.game_loop == 0 and not obs.player_result
    controller.create_game(create_request("CollectMineralShards"))  # re-create without leave
    controller.join_game(join_request())
    assert len(units_of(controller.observation(), SHARD)) == 20


SCREEN_BPP = {
    "height_map": 8,
    "visibility_map": 8,
    "creep": 1,
    "power": 1,
    "player_id": 8,
    "player_relative": 8,
    "unit_type": 32,
    "selected": 1,
    "unit_hit_points": 32,
    "unit_hit_points_ratio": 8,
    "unit_energy": 32,
    "unit_energy_ratio": 8,
    "unit_shields": 32,
    "unit_shields_ratio": 8,
    "unit_density": 8,
    "unit_density_aa": 8,
    "effects": 8,
    "hallucinations": 1,
    "cloaked": 1,
    "blip": 1,
    "buffs": 32,
    "buff_duration": 8,
    "active": 1,
    "build_progress": 8,
    "pathable": 1,
    "buildable": 1,
    "placeholder": 1,
}
# The minimap's unit_type is a cheating layer (unit types under the fog): sent only with allow_cheating_layers.
MINIMAP_BPP = {
    "height_map": 8,
    "visibility_map": 8,
    "creep": 1,
    "camera": 1,
    "player_id": 8,
    "player_relative": 8,
    "selected": 1,
    "alerts": 1,
    "pathable": 1,
    "buildable": 1,
}


def test_the_minimap_unit_type_layer_comes_only_with_cheating_layers(controller):
    options = interface(minimap=64)
    options.feature_layer.allow_cheating_layers = True
    obs = start(controller, "MoveToBeacon", seed=11, options=options)
    minimap = obs.observation.feature_layer_data.minimap_renders
    assert {f.name: v.bits_per_pixel for f, v in minimap.ListFields()} == MINIMAP_BPP | {"unit_type": 32}
    assert MARINE in layer(obs, "unit_type", minimap=True)


def test_layer_shapes_bpp_and_geometry(controller):
    obs = start(controller, "MoveToBeacon", seed=11, options=interface(screen=84, minimap=48))
    info = controller.game_info()
    assert (
        info.options.feature_layer.resolution.x == 84
        and info.options.feature_layer.minimap_resolution.x == 48
    )
    assert info.start_raw.map_size.x == 64 and info.player_info[0].race_requested == 1
    renders = obs.observation.feature_layer_data.renders
    minimap = obs.observation.feature_layer_data.minimap_renders
    assert {f.name: v.bits_per_pixel for f, v in renders.ListFields()} == SCREEN_BPP
    assert {f.name: v.bits_per_pixel for f, v in minimap.ListFields()} == MINIMAP_BPP
    for name in SCREEN_BPP:
        assert layer(obs, name).shape == (84, 84)
    for name in MINIMAP_BPP:
        assert layer(obs, name, minimap=True).shape == (48, 48)
    (marine,) = units_of(obs, MARINE)
    i, j = screen_pixel(marine.pos.x, marine.pos.y, res=84)
    assert layer(obs, "unit_type")[j, i] == MARINE, "row 0 is the top of the screen"
    assert layer(obs, "player_relative")[j, i] == 1 and layer(obs, "unit_hit_points")[j, i] == 45
    assert layer(obs, "unit_hit_points_ratio")[j, i] == 255 and layer(obs, "player_id")[j, i] == 1
    (beacon,) = units_of(obs, BEACON)
    bi, bj = screen_pixel(beacon.pos.x, beacon.pos.y, res=84)
    assert layer(obs, "unit_type")[bj, bi] == BEACON and layer(obs, "player_id")[bj, bi] == 16
    # The playable area (y 20..36) sits in the upper part of a screen centred 3 below its centre: pixel row
    # j has its centre at y = 25 + 12 - (j + 0.5) * 24/84.
    pathable = layer(obs, "pathable")
    rows = np.flatnonzero(pathable.any(axis=1))
    wpp = 24 / 84
    assert rows.min() == int((37 - 36) / wpp - 0.5) + 1 and rows.max() == int((37 - 20) / wpp - 0.5)
    assert (layer(obs, "visibility_map") == 2 * pathable).all()
    # Minimap: scale 64/48 from the top-left; the marine is drawn where its world point falls.
    s = 64 / 48
    assert (
        layer(obs, "player_relative", minimap=True)[int((64 - marine.pos.y) / s), int(marine.pos.x / s)] == 1
    )
    camera = layer(obs, "camera", minimap=True)
    rows, cols = np.nonzero(camera)
    assert cols.min() == pytest.approx((33 - 12) / s, abs=1) and cols.max() == pytest.approx(
        (33 + 12) / s, abs=1
    )


def test_selection_abilities_ui_and_control_groups(controller):
    obs = start(controller, "CollectMineralShards", seed=2)
    a, b = units_of(obs, MARINE)
    obs = controller.act_step_observe(
        [spatial("unit_selection_point", selection_screen_coord=screen_pixel(a.pos.x, a.pos.y))], 1
    )
    assert {(x.ability_id, x.requires_point) for x in obs.observation.abilities} == {
        (1, True),
        (4, False),
        (16, True),
        (17, True),
        (18, False),
        (23, True),
    }
    assert obs.observation.ui_data.single.unit.unit_type == MARINE
    assert (
        layer(obs, "selected").sum() >= 1 and [u.is_selected for u in units_of(obs, MARINE)].count(True) == 1
    )
    toggle = spatial("unit_selection_point", selection_screen_coord=screen_pixel(b.pos.x, b.pos.y), type=2)
    obs = controller.act_step_observe([toggle], 1)
    assert len(obs.observation.ui_data.multi.units) == 2
    set_group = sc_pb.Action()
    set_group.action_ui.control_group.action, set_group.action_ui.control_group.control_group_index = 2, 4
    click_empty = spatial("unit_selection_point", selection_screen_coord=(0, 63))  # off the playable area
    obs = controller.act_step_observe([set_group, click_empty], 1)
    assert not obs.observation.abilities and not obs.observation.ui_data.HasField("multi")
    assert [(g.control_group_index, g.leader_unit_type, g.count) for g in obs.observation.ui_data.groups] == [
        (4, MARINE, 2)
    ]
    recall = sc_pb.Action()
    recall.action_ui.control_group.action, recall.action_ui.control_group.control_group_index = 1, 4
    obs = controller.act_step_observe([recall], 1)
    assert len(obs.observation.ui_data.multi.units) == 2
    single = sc_pb.Action()
    single.action_ui.multi_panel.type, single.action_ui.multi_panel.unit_index = 1, 1
    obs = controller.act_step_observe([single], 1)
    assert obs.observation.ui_data.single.unit.unit_type == MARINE
    army = sc_pb.Action()
    army.action_ui.select_army.selection_add = False
    obs = controller.act_step_observe([army], 1)
    assert len(obs.observation.ui_data.multi.units) == 2 and obs.observation.player_common.army_count == 2
    assert [a.action_ui.select_army for a in obs.actions] == [army.action_ui.select_army], (
        "actions are echoed"
    )


def test_select_all_of_a_type_add_and_enemies(controller):
    obs = start(controller, "DefeatRoaches", seed=3)
    marines, roach = units_of(obs, MARINE), units_of(obs, 110)[0]

    def click(unit, kind):
        return spatial(
            "unit_selection_point", selection_screen_coord=screen_pixel(unit.pos.x, unit.pos.y), type=kind
        )

    def selected(obs):
        return sorted(u.unit_type for u in obs.observation.raw_data.units if u.is_selected)

    obs = controller.act_step_observe([click(marines[0], 1)], 1)
    assert selected(obs) == [MARINE]
    obs = controller.act_step_observe([click(marines[0], 3)], 1)  # AllType: every Marine on the screen
    assert selected(obs) == [MARINE] * 9
    i, j = screen_pixel(marines[3].pos.x, marines[3].pos.y)
    obs = controller.act_step_observe(
        [click(marines[0], 1), select_rect(i - 1, j - 1, i + 1, j + 1, add=True)], 1
    )
    assert selected(obs) == [MARINE] * 2, "a rectangle with selection_add adds to the selection"
    obs = controller.act_step_observe([click(roach, 4)], 1)  # AddAllType on an enemy: not mixed in
    assert selected(obs) == [MARINE] * 2
    obs = controller.act_step_observe([click(roach, 1)], 1)  # an enemy alone: shown, not commanded
    assert selected(obs) == [110] and not obs.observation.abilities
    assert obs.observation.ui_data.single.unit.player_relative == 4


def test_move_orders_queue_and_general_specific_ids(controller):
    obs = start(controller, "MoveToBeacon", seed=4)
    controller.act_step_observe([select_rect(0, 0, 63, 63)], 1)
    left, right = (8, 10), (56, 10)
    obs = controller.act_step_observe(
        [move_screen(*left, ability=16), move_screen(*right, 3794, queued=True)], 1
    )
    (marine,) = units_of(obs, MARINE)
    assert [o.ability_id for o in marine.orders] == [16, 16], "general ids are reported as specific ones"
    before = marine.pos
    obs = controller.act_step_observe([], 16)
    after = units_of(obs, MARINE)[0].pos
    assert np.hypot(after.x - before.x, after.y - before.y) == pytest.approx(2.25, abs=1e-3), (
        "16 loops at 2.25/s"
    )
    assert after.x < before.x, "heading for the first order's point"
    obs = controller.act_step_observe([spatial("unit_command", ability_id=3665)], 1)
    assert not units_of(obs, MARINE)[0].orders
    attack = controller.act_step_observe([move_screen(32, 10, ability=3674)], 1)
    assert [o.ability_id for o in units_of(attack, MARINE)[0].orders] == [23]
    bad = controller.act_step_observe([spatial("unit_command", ability_id=3794)], 1)  # Move without a target
    assert [(e.ability_id, e.result) for e in bad.action_errors] == [(3794, 3)]


def test_camera_moves_clamp_and_show_on_the_minimap(controller):
    start(controller, "MoveToBeacon", seed=1)
    obs = controller.act_step_observe([spatial("camera_move", center_minimap=(32, 32))], 1)
    camera = obs.observation.raw_data.player.camera
    assert (camera.x, camera.y) == pytest.approx((33.0001, 25)), "the single-screen maps lock the camera"
    start(controller, "FindAndDefeatZerglings", seed=1)
    obs = controller.act_step_observe([spatial("camera_move", center_minimap=(32, 32))], 1)
    assert (
        obs.observation.raw_data.player.camera.x,
        obs.observation.raw_data.player.camera.y,
    ) == pytest.approx((32.5, 31.5))
    obs = controller.act_step_observe([spatial("camera_move", center_minimap=(0, 0))], 1)
    camera = obs.observation.raw_data.player.camera
    assert (camera.x, camera.y) == (10, 44), "clamped to the map's camera bounds"
    rows, cols = np.nonzero(layer(obs, "camera", minimap=True))
    # The 24x24 footprint centred on (10, 44) covers y 32..56 and x -2..22 (clipped to the map).
    assert (rows.min(), rows.max(), cols.min(), cols.max()) == (64 - 56, 64 - 32 - 1, 0, 21)


def test_same_seed_same_game(engine):
    from sc2env.client.controller import Controller

    traces = []
    for _ in range(2):
        with Controller(engine) as c:
            obs = start(c, "CollectMineralShards", seed=42)
            obs = c.act_step_observe([select_rect(0, 0, 63, 63)], 1)
            obs = c.act_step_observe([move_screen(10, 20)], 80)
            traces.append([(u.unit_type, u.pos.x, u.pos.y) for u in obs.observation.raw_data.units])
    assert traces[0] == traces[1]


def test_unknown_map_is_a_typed_error(controller):
    with pytest.raises(RequestError) as error:
        controller.create_game(create_request("NoSuchMap"))
    assert error.value.error == "MissingMap" and "MoveToBeacon" in error.value.details
    assert controller.ping().base_build == 75689, "the engine keeps serving"


def test_raw_actions_are_echoed_with_their_feature_layer_form(controller):
    obs = start(controller, "DefeatRoaches", seed=2)
    marines, roach = units_of(obs, MARINE), units_of(obs, 110)[0]
    move, attack, camera = sc_pb.Action(), sc_pb.Action(), sc_pb.Action()
    command = move.action_raw.unit_command
    command.ability_id, command.queue_command = 16, True
    command.unit_tags.extend(m.tag for m in marines)
    command.target_world_space_pos.x, command.target_world_space_pos.y = 30.0, 28.0
    command = attack.action_raw.unit_command
    command.ability_id, command.target_unit_tag = 3674, roach.tag
    command.unit_tags.append(marines[0].tag)
    camera.action_raw.camera_move.center_world_space.x = 20.0
    camera.action_raw.camera_move.center_world_space.y = 40.5
    obs = controller.act_step_observe([move, attack, camera], 1)
    echoed_move, echoed_attack, echoed_camera = obs.actions
    assert echoed_move.action_raw == move.action_raw and echoed_attack.action_raw == attack.action_raw
    feature = echoed_move.action_feature_layer.unit_command
    assert (feature.ability_id, feature.queue_command) == (16, True)
    assert (feature.target_screen_coord.x, feature.target_screen_coord.y) == screen_pixel(30.0, 28.0)
    feature = echoed_attack.action_feature_layer.unit_command
    assert (feature.ability_id, feature.target_screen_coord.x, feature.target_screen_coord.y) == (
        3674,
        *screen_pixel(roach.pos.x, roach.pos.y),
    )  # where the Roach stood
    minimap = echoed_camera.action_feature_layer.camera_move.center_minimap
    assert (minimap.x, minimap.y) == (20, 23)  # the 64x64 minimap over the 64x64 map: row 23 holds y 40-41
