"""RequestQuery on the real engine process: available abilities per unit, building placement, pathing."""

from __future__ import annotations

import pytest
from engine_helpers import create_request, interface, join_request, units_of
from s2clientprotocol import common_pb2, error_pb2, query_pb2
from s2clientprotocol import sc2api_pb2 as sc_pb

MARINE, SCV, COMMAND_CENTER, MINERAL_FIELD, ROACH = 48, 45, 18, 341, 110
SUPPLY_DEPOT, MOVE = 319, 16


def start(controller, map_name: str, options=None) -> sc_pb.ResponseObservation:
    controller.create_game(create_request(map_name, 1))
    controller.join_game(join_request(options))
    return controller.observation()


def abilities_query(tags, ignore_resources=False) -> query_pb2.RequestQuery:
    query = query_pb2.RequestQuery(ignore_resource_requirements=ignore_resources)
    for tag in tags:
        query.abilities.add(unit_tag=tag)
    return query


def test_available_abilities_per_unit_in_the_order_asked(controller):
    obs = start(controller, "DefeatRoaches")
    marine, roach = units_of(obs, MARINE)[0], units_of(obs, ROACH)[0]
    answer = controller.query(abilities_query([marine.tag, roach.tag, 999_999]))
    mine, theirs, missing = answer.abilities
    assert (mine.unit_tag, mine.unit_type_id) == (marine.tag, MARINE)
    # The same buttons the command card shows for a selected marine (Smart, Stop, Move, Patrol, Hold, Attack).
    assert {(a.ability_id, a.requires_point) for a in mine.abilities} == {
        (1, True),
        (4, False),
        (16, True),
        (17, True),
        (18, False),
        (23, True),
    }
    assert (theirs.unit_tag, theirs.unit_type_id, len(theirs.abilities)) == (roach.tag, ROACH, 0)
    assert (missing.unit_tag, missing.unit_type_id, len(missing.abilities)) == (999_999, 0, 0)


def test_resource_requirements_are_ignored_only_when_asked(controller):
    obs = start(controller, "BuildMarines")
    scv = units_of(obs, SCV)[0]
    assert obs.observation.player_common.minerals < 100  # BuildMarines starts with 50: no depot (100) yet
    strict = controller.query(abilities_query([scv.tag])).abilities[0]
    relaxed = controller.query(abilities_query([scv.tag], ignore_resources=True)).abilities[0]
    assert SUPPLY_DEPOT not in {a.ability_id for a in strict.abilities}
    assert SUPPLY_DEPOT in {a.ability_id for a in relaxed.abilities}


def test_building_placement_answers_as_the_build_order_would(controller):
    obs = start(controller, "BuildMarines")
    cc = units_of(obs, COMMAND_CENTER)[0]
    field = units_of(obs, MINERAL_FIELD)[0]
    query = query_pb2.RequestQuery()
    for x, y, ability in (
        (cc.pos.x + 8, cc.pos.y + 8, SUPPLY_DEPOT),
        (cc.pos.x, cc.pos.y, SUPPLY_DEPOT),
        (field.pos.x, field.pos.y, SUPPLY_DEPOT),
        (cc.pos.x + 8, cc.pos.y + 8, MOVE),
        (-50, -50, SUPPLY_DEPOT),
    ):
        query.placements.add(ability_id=ability, target_pos=common_pb2.Point2D(x=x, y=y))
    results = [p.result for p in controller.query(query).placements]
    assert results == [
        error_pb2.Success,
        error_pb2.CantBuildOnThat,
        error_pb2.CantBuildOnThat,
        error_pb2.Error,
        error_pb2.CantBuildLocationInvalid,
    ]


def test_pathing_distance_from_a_unit_or_a_point(controller):
    obs = start(controller, "MoveToBeacon")
    marine = units_of(obs, MARINE)[0]
    query = query_pb2.RequestQuery()
    query.pathing.add(unit_tag=marine.tag, end_pos=common_pb2.Point2D(x=marine.pos.x - 3, y=marine.pos.y - 4))
    item = query.pathing.add()
    item.start_pos.x, item.start_pos.y = marine.pos.x, marine.pos.y
    item.end_pos.x, item.end_pos.y = marine.pos.x - 6, marine.pos.y - 8
    outside = query.pathing.add()
    outside.start_pos.x, outside.start_pos.y = marine.pos.x, marine.pos.y
    outside.end_pos.x, outside.end_pos.y = 0.5, 0.5  # the map's corner, off the playable area
    distances = [p.distance for p in controller.query(query).pathing]
    assert distances == pytest.approx([5.0, 10.0, 0.0], abs=1e-3)


def test_query_outside_a_game_is_refused(session):
    answer = sc_pb.Response.FromString(
        session.handle(sc_pb.Request(query=abilities_query([1])).SerializeToString())
    )
    assert answer.error == ["query is not valid in status launched (valid in: in_game, in_replay, ended)"]
    assert not answer.HasField("query")


def test_queries_take_raw_cropped_coordinates(controller):
    options = interface()
    options.raw_crop_to_playable_area = True  # raw points count from the playable area's corner
    obs = start(controller, "BuildMarines", options)
    cc = units_of(obs, COMMAND_CENTER)[0]
    query = query_pb2.RequestQuery()
    for dx in (8, 0):
        query.placements.add(
            ability_id=SUPPLY_DEPOT, target_pos=common_pb2.Point2D(x=cc.pos.x + dx, y=cc.pos.y + dx)
        )
    query.pathing.add(
        start_pos=common_pb2.Point2D(x=cc.pos.x + 4, y=cc.pos.y),
        end_pos=common_pb2.Point2D(x=cc.pos.x + 4, y=cc.pos.y + 2),
    )
    answer = controller.query(query)
    assert [p.result for p in answer.placements] == [error_pb2.Success, error_pb2.CantBuildOnThat]
    assert answer.pathing[0].distance == pytest.approx(2.0)


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf")])
def test_a_point_that_is_no_number_gets_a_per_query_answer_not_an_internal_error(controller, bad):
    # A NaN or infinite point reached math.floor (ValueError, OverflowError): the whole query answered
    # "internal error ... please report it". Placement answers CantBuildLocationInvalid, the game's code for
    # a target that is no place on the map; pathing answers 0, its "no path" (ResponseQueryPathing has no
    # error code). The other items of the query are answered as usual.
    obs = start(controller, "BuildMarines")
    cc = units_of(obs, COMMAND_CENTER)[0]
    scv = units_of(obs, SCV)[0]
    query = query_pb2.RequestQuery()
    for x, y in ((bad, cc.pos.y + 8), (cc.pos.x + 8, bad), (cc.pos.x + 8, cc.pos.y + 8)):
        query.placements.add(ability_id=SUPPLY_DEPOT, target_pos=common_pb2.Point2D(x=x, y=y))
    good = common_pb2.Point2D(x=scv.pos.x + 3, y=scv.pos.y)
    query.pathing.add(start_pos=common_pb2.Point2D(x=bad, y=scv.pos.y), end_pos=good)
    query.pathing.add(unit_tag=scv.tag, end_pos=common_pb2.Point2D(x=scv.pos.x, y=bad))
    query.pathing.add(unit_tag=scv.tag, end_pos=good)
    answer = controller.query(query)
    assert [p.result for p in answer.placements] == [
        error_pb2.CantBuildLocationInvalid,
        error_pb2.CantBuildLocationInvalid,
        error_pb2.Success,
    ]
    assert [p.distance for p in answer.pathing] == pytest.approx([0.0, 0.0, 3.0], abs=1e-3)
