"""End to end, one scripted line of play per part-2 mini-game: the real engine process over a websocket."""

from __future__ import annotations

import numpy as np
from engine_helpers import (
    create_request,
    join_request,
    layer,
    move_screen,
    screen_pixel,
    select_rect,
    spatial,
    units_of,
)
from s2clientprotocol import sc2api_pb2 as sc_pb

MARINE, SCV, ZERGLING, BANELING, ROACH, CC, DEPOT, BARRACKS, MINERAL = 48, 45, 105, 9, 110, 18, 19, 21, 341
ARENA_CAMERA = (33.0001, 25.0)
ECONOMY_CAMERA = (32.9361, 24.998)


def start(controller, map_name: str, seed: int) -> sc_pb.ResponseObservation:
    controller.create_game(create_request(map_name, seed))
    controller.join_game(join_request())
    return controller.observation()


def raw_command(ability: int, tags, point=None, target: int | None = None) -> sc_pb.Action:
    action = sc_pb.Action()
    cmd = action.action_raw.unit_command
    cmd.ability_id = ability
    cmd.unit_tags.extend(tags)
    if point is not None:
        cmd.target_world_space_pos.x, cmd.target_world_space_pos.y = point
    if target is not None:
        cmd.target_unit_tag = target
    return action


def until_end(controller, obs, loops: int = 1000) -> sc_pb.ResponseObservation:
    while not obs.player_result:
        obs = controller.act_step_observe([], loops)
    return obs


def test_defeat_roaches_scores_kills_and_losses_and_brings_waves(controller):
    obs = start(controller, "DefeatRoaches", seed=4)
    assert len(units_of(obs, MARINE)) == 9 and len(units_of(obs, ROACH)) == 4
    assert {a.ability_id for a in obs.observation.abilities} == {1, 4, 16, 17, 18, 23}, "Marines preselected"
    scores, waves, lost = [0], 0, 0
    while not obs.player_result and waves < 2:
        roaches = units_of(obs, ROACH)
        target = min(roaches, key=lambda r: r.health)  # focus fire, through the feature screen
        before = obs
        obs = controller.act_step_observe(
            [move_screen(*screen_pixel(target.pos.x, target.pos.y), ability=3674)], 8
        )
        delta = obs.observation.score.score - before.observation.score.score
        killed = len(units_of(before, ROACH)) - len(units_of(obs, ROACH))
        died = len(units_of(before, MARINE)) - len(units_of(obs, MARINE))
        if len(units_of(obs, ROACH)) == 4 and len(units_of(before, ROACH)) < 4 and not obs.player_result:
            waves += 1  # all 4 died: +10 each, the survivors come back with 5 more, and 4 new Roaches
            new_marines = len(units_of(obs, MARINE))
            expected = len(units_of(before, MARINE)) + 5
            assert expected - 3 <= new_marines <= expected, "survivors re-created with 5 reinforcements"
            assert all(a.ability_id in (1, 4, 16, 17, 18, 23) for a in obs.observation.abilities)
            assert len(obs.observation.ui_data.multi.units) == new_marines, "all Marines selected again"
        else:
            lost += max(died, 0)
            assert delta == 10 * killed - max(died, 0)
        scores.append(obs.observation.score.score)
    assert waves >= 1 and scores[-1] >= 40
    assert obs.observation.score.score_details.killed_value_units >= 4 * 100
    obs = until_end(controller, obs)
    assert obs.observation.game_loop == 1920 or obs.player_result[0].result == sc_pb.Defeat


def test_defeat_zerglings_and_banelings_losing_all_marines_ends_the_game(controller):
    obs = start(controller, "DefeatZerglingsAndBanelings", seed=2)
    assert len(units_of(obs, MARINE)) == 9
    assert len(units_of(obs, ZERGLING)) == 6 and len(units_of(obs, BANELING)) == 4
    # Walk the column straight into the Zerg (Move: no shooting back): Banelings burst, Zerglings bite.
    zerg = units_of(obs, ZERGLING)[0]
    obs = controller.act_step_observe([move_screen(*screen_pixel(zerg.pos.x, zerg.pos.y), ability=3794)], 8)
    previous = obs
    while not obs.player_result:
        obs = controller.act_step_observe([], 8)
        marines_lost = len(units_of(previous, MARINE)) - len(units_of(obs, MARINE))
        zerg_dead = (
            len(units_of(previous, ZERGLING))
            + len(units_of(previous, BANELING))
            - len(units_of(obs, ZERGLING))
            - len(units_of(obs, BANELING))
        )
        assert obs.observation.score.score - previous.observation.score.score == 5 * zerg_dead - marines_lost
        previous = obs
    assert obs.player_result[0].result == sc_pb.Defeat and not units_of(obs, MARINE)
    assert obs.observation.game_loop < 1920
    assert len(units_of(obs, BANELING)) < 4, "Banelings burst on the Marines (and score for the agent)"
    assert controller.status == sc_pb.ended


def test_find_and_defeat_zerglings_fog_camera_and_timer(controller):
    obs = start(controller, "FindAndDefeatZerglings", seed=6)
    assert len(units_of(obs, ZERGLING)) == 2 and len(units_of(obs, MARINE)) == 3
    minimap = layer(obs, "visibility_map", minimap=True)
    assert (minimap == 2).sum() < (minimap == 0).sum(), "mostly unexplored"
    target = units_of(obs, ZERGLING)[0]
    score = 0
    for _ in range(40):
        visible = units_of(obs, ZERGLING)
        if visible:
            target = visible[0]
        action = (
            raw_command(23, [u.tag for u in units_of(obs, MARINE)], target=target.tag)
            if visible
            else raw_command(23, [u.tag for u in units_of(obs, MARINE)], point=(target.pos.x, target.pos.y))
        )
        obs = controller.act_step_observe([action], 8)
        if obs.observation.score.score > score:
            score = obs.observation.score.score
            break
    assert score >= 1, "a Zergling killed: +1"
    camera = obs.observation.raw_data.player.camera
    assert (camera.x, camera.y) == (32.0001, 25.0) or abs(camera.x - 32) < 1e-3
    obs = controller.act_step_observe([spatial("camera_move", center_minimap=(15, 50))], 1)
    camera = obs.observation.raw_data.player.camera
    assert abs(camera.x - 15.5) < 0.01 and abs(camera.y - 13.5) < 0.01, "the camera is free on this map"
    rows, cols = np.nonzero(layer(obs, "camera", minimap=True))
    assert cols.min() <= 4 and rows.max() >= 60
    obs = until_end(controller, obs, 1000)
    assert obs.observation.game_loop == 2880 or obs.player_result[0].result == sc_pb.Defeat


def test_collect_minerals_and_gas_gathering_raises_the_score(controller):
    obs = start(controller, "CollectMineralsAndGas", seed=3)
    assert len(units_of(obs, SCV)) == 12 and len(units_of(obs, MINERAL)) == 16
    assert obs.observation.score.score == 50 and obs.observation.player_common.minerals == 50
    assert obs.observation.player_common.idle_worker_count == 12
    obs = controller.act_step_observe([select_rect(0, 0, 63, 63)], 1)
    assert obs.observation.score.score == 0, "from the first loop the score follows the collected total"
    field = min(units_of(obs, MINERAL), key=lambda u: (u.pos.x - 24) ** 2 + (u.pos.y - 25.5) ** 2)
    obs = controller.act_step_observe(
        [move_screen(*screen_pixel(field.pos.x, field.pos.y, camera=ECONOMY_CAMERA), ability=3666)], 8
    )
    assert all(u.orders[0].ability_id == 295 for u in units_of(obs, SCV))
    obs = controller.act_step_observe([], 800)
    collected = obs.observation.score.score_details.collected_minerals
    assert (
        obs.observation.score.score == collected > 200
        and obs.observation.player_common.minerals == 50 + collected
    )
    obs = until_end(controller, obs, 2000)
    assert obs.observation.game_loop == 6720 and obs.player_result[0].result == sc_pb.Tie
    assert obs.observation.score.score > 2000


def test_build_marines_depot_barracks_marine_and_timer(controller):
    obs = start(controller, "BuildMarines", seed=5)
    assert obs.observation.player_common.minerals == 50 and obs.observation.score.score == 0
    obs = controller.act_step_observe([], 480)  # the SCVs mine from the start
    minerals = obs.observation.player_common.minerals
    assert minerals >= 150
    scv = units_of(obs, SCV)[0]
    obs = controller.act_step_observe([raw_command(319, [scv.tag], point=(36, 33))], 8)
    assert [e.result for e in obs.action_errors] == []
    while obs.observation.player_common.food_cap < 23:
        obs = controller.act_step_observe([], 64)
    while obs.observation.player_common.minerals < 150:
        obs = controller.act_step_observe([], 32)
    scv = units_of(obs, SCV)[1]
    obs = controller.act_step_observe([raw_command(321, [scv.tag], point=(38.5, 25.5))], 8)
    while not [u for u in units_of(obs, BARRACKS) if u.build_progress == 1]:
        obs = controller.act_step_observe([], 64)
    (rax,) = units_of(obs, BARRACKS)
    obs = controller.act_step_observe([raw_command(560, [rax.tag])], 8)
    assert obs.observation.score.score == 0
    obs = controller.act_step_observe([], 400)
    assert obs.observation.score.score == 1 and len(units_of(obs, MARINE)) == 1, "+1 per Marine trained"
    obs = until_end(controller, obs, 4000)
    assert obs.observation.game_loop == 14400 and obs.player_result[0].result == sc_pb.Tie


def test_defeat_roaches_timer_ends_in_a_tie_when_nobody_fights(controller):
    obs = start(controller, "DefeatRoaches", seed=4)  # the two sides start out of each other's sight
    obs = until_end(controller, obs, 500)
    assert obs.observation.game_loop == 1920 and obs.player_result[0].result == sc_pb.Tie
    assert obs.observation.score.score == 0 and len(units_of(obs, MARINE)) == 9
    assert controller.status == sc_pb.ended
