"""The protocol state machine and the map-definition interpreter, in process (no sockets)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from engine_helpers import create_request, join_request, move_screen, select_rect
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env.engine.mapdef import MapDefinitionError, builtin_definitions, parse_definition


def ask(session, **request) -> sc_pb.Response:
    return sc_pb.Response.FromString(session.handle(sc_pb.Request(**request).SerializeToString()))


def play(session, map_name="MoveToBeacon", map_data=b"", seed=1):
    create = create_request(map_name, seed)
    if map_data:
        create.local_map.map_data = map_data
    created = ask(session, create_game=create)
    assert not created.create_game.HasField("error"), created.create_game.error_details
    assert ask(session, join_game=join_request()).status == sc_pb.in_game


def test_beacon_spawn_region_excludes_the_centre_disc_and_keeps_its_distance():
    definition = parse_definition(builtin_definitions()["MoveToBeacon"])
    region = definition.regions["beacon_spawn"]
    points = region.sample(np.random.default_rng(0), 2000)
    assert (np.hypot(points[:, 0] - 33, points[:, 1] - 28) > 4).all()
    assert points[:, 0].min() >= 23.5002 and points[:, 1].max() <= 34.5


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_restart_replays_init_and_same_seed_gives_the_same_game(session, seed):
    from sc2env.engine.session import Session

    traces = []
    for s in (session, Session()):
        play(s, "CollectMineralShards", seed=seed)
        ask(s, action=sc_pb.RequestAction(actions=[select_rect(0, 0, 63, 63), move_screen(5, 5)]))
        ask(s, step=sc_pb.RequestStep(count=40))
        obs = ask(s, observation=sc_pb.RequestObservation()).observation
        traces.append(
            [(u.unit_type, round(u.pos.x, 6), round(u.pos.y, 6)) for u in obs.observation.raw_data.units]
        )
        restarted = ask(s, restart_game=sc_pb.RequestRestartGame())
        assert restarted.status == sc_pb.in_game
        obs = ask(s, observation=sc_pb.RequestObservation()).observation
        assert obs.observation.game_loop == 0 and obs.observation.player_common.minerals == 0
        assert len(obs.observation.raw_data.units) == 22
    assert traces[0] == traces[1]


def test_a_definition_sent_as_map_data_is_a_new_mini_game(session):
    spec = json.loads(builtin_definitions()["MoveToBeacon"])
    spec.update(name="TwoBeacons", time_limit=64)
    spec["setup"][1]["spawn"]["count"] = 2
    spec["triggers"][0]["do"][0] = {"score": {"add": 5}}
    play(session, "anything", map_data=json.dumps(spec).encode())
    obs = ask(session, observation=sc_pb.RequestObservation()).observation
    assert sum(u.unit_type == 317 for u in obs.observation.raw_data.units) == 2
    done = ask(session, step=sc_pb.RequestStep(count=100))
    assert done.status == sc_pb.ended and done.step.simulation_loop == 64
    info = ask(session, game_info=sc_pb.RequestGameInfo()).game_info
    assert info.map_name == "TwoBeacons"


@pytest.mark.parametrize(
    "change, message",
    [
        ({"time_limit": -3}, "time_limit"),
        ({"playable_area": [5, 5, 1, 1]}, "empty rectangle"),
        ({"setup": [{"teleport_everyone": {}}]}, "unknown action 'teleport_everyone'"),
        ({"setup": [{"spawn": {"type": "Marines", "owner": 1}}]}, "unknown unit type 'Marines'"),
        ({"triggers": [{"when": {"sometimes": {}}, "do": []}]}, "triggers[0].when"),
        ({"format": "something-else"}, "sc2env-minigame/1"),
        ({"time_limit": float("inf")}, "time_limit: expected a whole number, got inf"),
        ({"time_limit": 16.7}, "time_limit: expected a whole number, got 16.7"),
        ({"time_limit": True}, "time_limit: expected a whole number, got True"),
        ({"time_limit": 0}, "time_limit: a positive number of game loops"),
        ({"map_size": [0, 0]}, "map_size: 1 to 256 cells"),
        ({"map_size": [1e400, 64]}, "map_size: expected a whole number, got inf"),
        ({"map_size": [10**400, 64]}, "map_size: 1 to 256 cells"),
        ({"players": []}, "players: at least one"),
        ({"camera_start": [float("nan"), 3]}, "camera_start: expected a finite"),
        ({"playable_area": [0, 0, float("inf"), 5]}, "playable_area: expected finite numbers"),
        # These passed create_game, then failed later as internal errors (game_info, join, the time limit's step).
        ({"name": 7}, "name: expected a non-empty string, got 7"),
        ({"start_locations": [[1]]}, "start_locations: expected finite [x, y] pairs"),
        ({"terrain_height": float("nan")}, "terrain_height: expected a finite number, got nan"),
        (
            {"timeout_result": "Win"},
            "timeout_result: expected one of ('Victory', 'Defeat', 'Tie', 'Undecided')",
        ),
        ({"time_limit": 10**12}, "time_limit: a positive number of game loops up to 2147483647"),
        ({"triggers": [5]}, "triggers: expected a list of objects, got [5]"),
        ({"setup": [{"end_game": {"result": "Win"}}]}, "setup[0].end_game.result: expected one of"),
        ({"players": [{"player_id": 1, "race": "Elf"}]}, "players[0].race: expected one of"),
        ({"players": [5]}, "players[0]: expected an object"),
        ({"players": [{"player_id": 1, "race": ["Terran"]}]}, "players[0].race: expected one of"),
        ({"setup": [{"end_game": "Victory"}]}, "setup[0].end_game: expected an object"),
        ({"timeout_result": ["Tie"]}, "timeout_result: expected one of"),
        # Misspelt optional fields took their defaults without a word.
        ({"vison": "reveal_all"}, "the definition: unknown field 'vison'; did you mean 'vision'?"),
        (
            {"setup": [{"spawn": {"type": "Marine", "cuont": 3}}]},
            "setup[0].spawn: unknown field 'cuont'; did you mean 'count'?",
        ),
        ({"setup": [{"spawn": {"type": "Marine"}, "group": "army"}]}, "setup[0]: unknown field 'group'"),
        (
            {"setup": [{"spawn": {"type": "Marine", "at": {"point": [5, 5], "ofsets": [[1, 0]]}}}]},
            "setup[0].spawn.at: unknown field 'ofsets'; did you mean 'offsets'?",
        ),
        (
            {"setup": [{"if": {"group_count": {"group": "a", "atleast": 1}}, "then": []}]},
            "setup[0].if.group_count: unknown field 'atleast'; did you mean 'at_least'?",
        ),
        ({"setup": [{"if": {"group_count": {"group": "a"}}, "than": []}]}, "setup[0]: unknown field 'than'"),
        (
            {"triggers": [{"when": {"near": {"group": "a", "other": "b", "distanse": 1}}, "do": []}]},
            "triggers[0].when.near: unknown field 'distanse'; did you mean 'distance'?",
        ),
        ({"triggers": [{"when": {"every_loop": {}}, "then": []}]}, "triggers[0]: unknown field 'then'"),
        (
            {"players": [{"player_id": 1, "rase": "Zerg"}]},
            "players[0]: unknown field 'rase'; did you mean 'race'?",
        ),
        ({"regions": {"r": {"rect": [0, 0, 1, 1], "minos": []}}}, "regions.r: unknown field 'minos'"),
    ],
)
def test_broken_definitions_are_rejected_with_the_field_named(session, change, message):
    spec = json.loads(builtin_definitions()["MoveToBeacon"])
    spec.update(change)
    create = create_request("x")
    create.local_map.map_data = json.dumps(spec).encode()
    answer = ask(session, create_game=create)
    assert answer.create_game.error == sc_pb.ResponseCreateGame.InvalidMapData
    assert message in answer.create_game.error_details and answer.status == sc_pb.launched
    with pytest.raises(MapDefinitionError):
        from sc2env.engine.mapdef import parse_definition as parse
        from sc2env.engine.scenario import Scenario

        Scenario.validate(parse(json.dumps(spec)))


def test_json_nested_too_deeply_is_invalid_map_data(session):
    create = create_request("x")
    create.local_map.map_data = b'{"a":' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    answer = ask(session, create_game=create)
    assert answer.create_game.error == sc_pb.ResponseCreateGame.InvalidMapData
    assert "nested too deeply" in answer.create_game.error_details


def test_realtime_games_advance_with_the_clock(session):
    create = create_request("MoveToBeacon")
    create.realtime = True
    ask(session, create_game=create)
    ask(session, join_game=join_request())
    assert "realtime" in ask(session, step=sc_pb.RequestStep(count=8)).error[0]
    obs = ask(session, observation=sc_pb.RequestObservation(game_loop=6)).observation
    assert obs.observation.game_loop >= 6


def test_a_realtime_wait_ends_with_the_game(session):
    spec = json.loads(builtin_definitions()["MoveToBeacon"])
    spec.update(time_limit=16)
    create = create_request("x")
    create.local_map.map_data, create.realtime = json.dumps(spec).encode(), True
    ask(session, create_game=create)
    ask(session, join_game=join_request())
    # A loop past the end would never come: the answer comes at the end (0.7 s), not in a year.
    answer = ask(session, observation=sc_pb.RequestObservation(game_loop=10**9))
    assert answer.status == sc_pb.ended and answer.observation.observation.game_loop == 16


@pytest.mark.parametrize("ability_id", [-5, 99999])
def test_an_unknown_ability_fails_alone_and_is_reported_once(session, ability_id):
    play(session)
    select = select_rect(0, 0, 63, 63)
    command = move_screen(5, 5)
    command.action_feature_layer.unit_command.ability_id = ability_id
    answer = ask(session, action=sc_pb.RequestAction(actions=[select, command]))
    assert list(answer.action.result) == [1, 3]  # Success, then Error
    errors = ask(session, observation=sc_pb.RequestObservation()).observation.action_errors
    assert [(e.ability_id, e.result) for e in errors] == [(ability_id & 0xFFFFFFFF, 3)]
    ask(session, step=sc_pb.RequestStep(count=8))
    again = ask(session, observation=sc_pb.RequestObservation())
    assert not again.error and not again.observation.action_errors


@pytest.mark.parametrize("width", [float("nan"), float("inf"), 0.5, 1e-30, 300.0])
def test_a_camera_width_that_no_game_could_show_is_refused(session, width):
    ask(session, create_game=create_request("MoveToBeacon"))
    join = join_request()
    join.options.feature_layer.width = width
    answer = ask(session, join_game=join)
    assert answer.join_game.error == sc_pb.ResponseJoinGame.FeatureUnsupported
    assert "feature_layer.width must be between 1 and 256 world units" in answer.join_game.error_details
    join.options.feature_layer.width = 0  # unset: the default 24
    assert ask(session, join_game=join).status == sc_pb.in_game


def test_render_interface_draws_rgb_and_accepts_render_actions(session):
    ask(session, create_game=create_request("MoveToBeacon"))
    join = join_request()
    join.options.render.resolution.x, join.options.render.resolution.y = 128, 128
    join.options.render.minimap_resolution.x = join.options.render.minimap_resolution.y = 64
    ask(session, join_game=join)
    select = sc_pb.Action()
    rect = select.action_render.unit_selection_rect.selection_screen_coord.add()
    rect.p1.x, rect.p1.y = 127, 127
    assert list(ask(session, action=sc_pb.RequestAction(actions=[select])).action.result) == [1]
    obs = ask(session, observation=sc_pb.RequestObservation()).observation.observation
    screen = np.frombuffer(obs.render_data.map.data, np.uint8).reshape(128, 128, 3)
    assert obs.render_data.map.bits_per_pixel == 24 and obs.ui_data.single.unit.unit_type == 48
    assert (screen == (150, 255, 150)).all(axis=2).any(), "the selected marine is drawn in light green"
    assert obs.render_data.minimap.size.x == 64


def test_leave_game_returns_to_launched(session):
    play(session)
    assert ask(session, leave_game=sc_pb.RequestLeaveGame()).status == sc_pb.launched
    assert "not valid in status launched" in ask(session, observation=sc_pb.RequestObservation()).error[0]
    play(session, "CollectMineralShards")


def join_with(session, map_name: str = "MoveToBeacon", race: int = 1, **options) -> sc_pb.Response:
    """Create `map_name` and join it as `race` with these InterfaceOptions fields set; the join's answer."""
    assert not ask(session, create_game=create_request(map_name)).create_game.HasField("error")
    join = join_request()
    join.race = race
    for name, value in options.items():
        setattr(join.options, name, value)
    return ask(session, join_game=join)


def test_a_random_race_is_reported_as_requested(session):
    assert join_with(session, race=4).status == sc_pb.in_game  # Random
    player = ask(session, game_info=sc_pb.RequestGameInfo()).game_info.player_info[0]
    assert player.race_requested == 4 and player.race_actual == 1, "asked Random, plays the map's Terran"


def test_game_info_names_the_player_as_join_game_did(session):
    for name in ("alice", ""):  # the map slot's name when join_game gives none (it said "Player" always)
        assert not ask(session, create_game=create_request("MoveToBeacon")).create_game.HasField("error")
        join = join_request()
        join.player_name = name
        ask(session, join_game=join)
        player = ask(session, game_info=sc_pb.RequestGameInfo()).game_info.player_info[0]
        assert player.player_name == (
            name or json.loads(builtin_definitions()["MoveToBeacon"])["players"][0].get("name", "Player 1")
        )


def test_the_score_is_sent_only_when_the_interface_asks_for_it(session):
    for wanted in (True, False):
        assert join_with(session, score=wanted).status == sc_pb.in_game
        obs = ask(session, observation=sc_pb.RequestObservation()).observation.observation
        assert obs.HasField("score") == wanted
        assert ask(session, leave_game=sc_pb.RequestLeaveGame()).status == sc_pb.launched


def test_raw_commands_select_their_units_when_the_interface_says_so(session):
    for affects in (False, True):
        assert (
            join_with(session, "CollectMineralShards", raw_affects_selection=affects).status == sc_pb.in_game
        )
        obs = ask(session, observation=sc_pb.RequestObservation()).observation.observation
        marines = [u.tag for u in obs.raw_data.units if u.unit_type == 48]
        assert len(marines) == 2 and not any(u.is_selected for u in obs.raw_data.units)
        action = sc_pb.Action()
        cmd = action.action_raw.unit_command
        cmd.ability_id, cmd.unit_tags[:] = 16, marines[:1] * 2  # a tag twice selects its unit once
        cmd.target_world_space_pos.x, cmd.target_world_space_pos.y = 30, 30
        ask(session, action=sc_pb.RequestAction(actions=[action]))
        obs = ask(session, observation=sc_pb.RequestObservation()).observation.observation
        assert [u.tag for u in obs.raw_data.units if u.is_selected] == (marines[:1] if affects else [])
        assert ask(session, leave_game=sc_pb.RequestLeaveGame()).status == sc_pb.launched


def test_raw_crop_to_playable_area_makes_the_playable_areas_corner_the_origin(session):
    # PySC2's bin/play joins with it. Raw positions, grids, the map size and raw action points are all
    # relative to the playable area (whole cells), so a unit at world (x, y) shows at (x - x0, y - y0).
    def raw_view(crop: bool):
        assert join_with(session, raw=True, raw_crop_to_playable_area=crop).status == sc_pb.in_game
        info = ask(session, game_info=sc_pb.RequestGameInfo()).game_info
        obs = ask(session, observation=sc_pb.RequestObservation()).observation.observation
        return info.start_raw, obs.raw_data

    whole, whole_units = raw_view(False)
    cropped, cropped_units = raw_view(True)
    x0, y0 = whole.playable_area.p0.x, whole.playable_area.p0.y
    width, height = whole.playable_area.p1.x - x0, whole.playable_area.p1.y - y0
    assert (cropped.map_size.x, cropped.map_size.y) == (width, height) and (x0, y0) != (0, 0)
    assert (cropped.playable_area.p0.x, cropped.playable_area.p0.y) == (0, 0)
    assert (cropped.playable_area.p1.x, cropped.playable_area.p1.y) == (width, height)
    for grid in ("pathing_grid", "placement_grid", "terrain_height"):
        image = getattr(cropped, grid)
        assert (image.size.x, image.size.y) == (width, height), grid
    pairs = list(zip(whole_units.units, cropped_units.units))
    assert pairs and all(
        a.tag == b.tag and (a.pos.x - x0, a.pos.y - y0) == pytest.approx((b.pos.x, b.pos.y)) for a, b in pairs
    )
    assert (cropped_units.player.camera.x, cropped_units.player.camera.y) == pytest.approx(
        (whole_units.player.camera.x - x0, whole_units.player.camera.y - y0)
    )
    visibility = cropped_units.map_state.visibility
    assert (visibility.size.x, visibility.size.y) == (width, height)
    # A raw move to cropped (5, 6) walks to world (x0 + 5, y0 + 6).
    marine = next(u for u in cropped_units.units if u.unit_type == 48)
    move = sc_pb.Action()
    move.action_raw.unit_command.ability_id = 16
    move.action_raw.unit_command.unit_tags.append(marine.tag)
    (
        move.action_raw.unit_command.target_world_space_pos.x,
        move.action_raw.unit_command.target_world_space_pos.y,
    ) = 5, 6
    ask(session, action=sc_pb.RequestAction(actions=[move]))
    ask(session, step=sc_pb.RequestStep(count=2))
    order = next(
        u
        for u in ask(session, observation=sc_pb.RequestObservation()).observation.observation.raw_data.units
        if u.tag == marine.tag
    ).orders[0]
    assert (order.target_world_space_pos.x, order.target_world_space_pos.y) == (5, 6)  # in cropped terms too
    world = session.game.world
    assert tuple(world.goal[world.slot(marine.tag)]) == (x0 + 5, y0 + 6)


def test_raw_points_that_are_not_numbers_are_refused(session):
    # NaN passed every clamp: a Marine moved to (nan, 30) stood nowhere for good (never seen, never killed) and
    # a build there was an internal error; a camera at NaN showed nothing.
    assert join_with(session, "CollectMineralShards").status == sc_pb.in_game
    obs = ask(session, observation=sc_pb.RequestObservation()).observation.observation
    marine = next(u.tag for u in obs.raw_data.units if u.unit_type == 48)
    for x in (float("nan"), float("inf")):
        move = sc_pb.Action()
        cmd = move.action_raw.unit_command
        cmd.ability_id, cmd.unit_tags[:] = 16, [marine]
        cmd.target_world_space_pos.x, cmd.target_world_space_pos.y = x, 30
        camera = sc_pb.Action()
        camera.action_raw.camera_move.center_world_space.x = x
        answer = ask(session, action=sc_pb.RequestAction(actions=[move, camera]))
        assert not answer.error and list(answer.action.result) == [3, 3]  # Error, Error
    ask(session, step=sc_pb.RequestStep(count=32))
    obs = ask(session, observation=sc_pb.RequestObservation()).observation.observation
    positions = [(u.pos.x, u.pos.y) for u in obs.raw_data.units if u.unit_type == 48]
    assert np.isfinite(positions).all() and np.isfinite(obs.raw_data.player.camera.x)
