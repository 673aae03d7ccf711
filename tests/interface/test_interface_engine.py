"""End to end: the built-in engine process over a real websocket, decoded and driven through the interface."""

from __future__ import annotations

import numpy as np
import pytest
from s2clientprotocol import common_pb2
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env.interface import (
    FUNCTIONS,
    InterfaceFormat,
    ObservationDecoder,
    TargetClass,
    decode_action,
    encode_action,
)

MARINE, BEACON = 48, 317


@pytest.fixture(scope="module")
def game():
    """A MoveToBeacon game on the engine, joined with an InterfaceFormat: (controller, fmt, decoder)."""
    from sc2env.client.controller import Controller
    from sc2env.launch import launch

    fmt = InterfaceFormat(screen_size=64, minimap_size=48, use_feature_units=True, screen_target_masks=True)
    process = launch(engine="builtin")
    try:
        with Controller(process) as controller:
            create = sc_pb.RequestCreateGame(
                local_map=sc_pb.LocalMap(map_path="mini_games/MoveToBeacon.SC2Map"), random_seed=5
            )
            create.player_setup.add(type=sc_pb.Participant, race=common_pb2.Terran)
            controller.create_game(create)
            controller.join_game(
                sc_pb.RequestJoinGame(race=common_pb2.Terran, options=fmt.to_interface_options())
            )
            decoder = ObservationDecoder(fmt, controller.game_info())  # also checks the echoed options
            yield controller, fmt, decoder
    finally:
        process.close()


def units(obs, unit_type: int) -> np.ndarray:
    return obs.feature_units[obs.feature_units.unit_type == unit_type]


def test_engine_observations_decode_and_actions_round_trip(game):
    controller, fmt, decoder = game
    obs = decoder.decode(controller.observation())
    assert obs.feature_screen.shape == (27, 64, 64) and obs.feature_minimap.shape == (11, 48, 48)
    assert obs.available_actions.tolist() == [0, 1, 2, 3, 4, 7]  # an army, nothing selected
    for unit_type in (MARINE, BEACON):
        (unit,) = units(obs, unit_type)
        assert obs.feature_screen.unit_type[unit[13], unit[12]] == unit_type
    assert obs.feature_minimap.camera.any()

    # The transforms agree with the engine's rendering: camera centre and marine on screen and minimap.
    transforms = decoder.transforms
    camera_x, camera_y = obs.camera_minimap
    assert obs.feature_minimap.camera[camera_y, camera_x]
    assert transforms.world_to_screen(obs.camera_world).fwd_pixel(obs.camera_world).tolist() == [32, 32]
    (marine,) = units(obs, MARINE)
    world = transforms.world_to_screen(obs.camera_world).back_pixel(marine[[12, 13]])
    x, y = transforms.world_to_minimap.fwd_pixel(world)
    assert (obs.feature_minimap.player_relative[y - 1 : y + 2, x - 1 : x + 2] == 1).any()

    calls = [FUNCTIONS.select_army("select")]
    response = controller.act_step_observe([encode_action(c, fmt, obs.masks) for c in calls], 1)
    obs = decoder.decode(response)
    assert [decode_action(a, fmt) for a in response.actions] == calls  # the engine echoes what it did
    assert obs.last_actions.tolist() == [FUNCTIONS.select_army.id]
    assert obs.single_select.unit_type.tolist() == [MARINE] or obs.multi_select.unit_type.tolist() == [MARINE]
    assert {FUNCTIONS.Move_screen.id, FUNCTIONS.Attack_screen.id} <= set(obs.masks.available_function_ids)
    assert obs.feature_screen.selected.sum() > 0
    for part in obs.masks.split():
        assert part.any()
    targets = obs.target_masks
    np.testing.assert_array_equal(targets[TargetClass.PATHABLE], obs.feature_screen.pathable != 0)
    np.testing.assert_array_equal(targets[TargetClass.OWN_UNIT], obs.feature_screen.player_relative == 1)
    assert targets[TargetClass.OWN_UNIT].any() and obs.masks.argument("screen").all()  # Move_screen: anywhere

    score = 0
    for _ in range(40):
        (beacon,) = units(obs, BEACON)
        move = FUNCTIONS.Move_screen("now", (int(beacon[12]), int(beacon[13])))
        response = controller.act_step_observe([encode_action(move, fmt, obs.masks)], 8)
        obs = decoder.decode(response)
        assert [decode_action(a, fmt) for a in response.actions] == [move]
        score = obs.score_cumulative.score
        if score >= 2 or response.player_result:
            break
    assert score >= 2, "moving to the decoded beacon position scores"
