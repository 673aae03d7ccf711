"""Answer RequestQuery: units' available abilities, building placement, and pathing distances."""

from __future__ import annotations

import math

from s2clientprotocol import error_pb2, query_pb2

from sc2env.engine.building import BUILT_BY
from sc2env.engine.game import Game
from sc2env.engine.panels import abilities_field, unit_abilities


def answer_query(game: Game, request: query_pb2.RequestQuery, out: query_pb2.ResponseQuery) -> None:
    """Fill `out` with one answer per asked item, in the order asked (the game's own answer shape)."""
    ox, oy = game.raw_origin()  # query points are raw coordinates, relative to raw_crop's origin
    for asked in request.abilities:
        out.abilities.add().CopyFrom(_abilities(game, asked.unit_tag, request.ignore_resource_requirements))
    for placement in request.placements:
        x, y = placement.target_pos.x + ox, placement.target_pos.y + oy
        out.placements.add(result=_placement(game, placement.ability_id, x, y))
    for path in request.pathing:
        out.pathing.add(distance=_distance(game, path, ox, oy))


def _abilities(game: Game, tag: int, ignore_resources: bool) -> query_pb2.ResponseQueryAvailableAbilities:
    """The abilities an own unit can use now; a unit of another player or no unit at all gets none."""
    answer = query_pb2.ResponseQueryAvailableAbilities(unit_tag=tag)
    w = game.world
    if not w.exists(tag):
        return answer
    i = w.slot(tag)
    answer.unit_type_id = int(game.type_ids.reported[w.type_id[i]])
    if w.owner[i] != game.player.player_id or w.hidden[i]:
        return answer
    abilities = unit_abilities(game, i, bool(w.build_progress[i] >= 1), ignore_resources)
    answer.MergeFromString(abilities_field(tuple(abilities), query_pb2.ResponseQueryAvailableAbilities))
    return answer


def _placement(game: Game, ability_id: int, x: float, y: float) -> int:
    """Whether the structure `ability_id` builds may stand centred at (x, y): Success or the game's error."""
    built = BUILT_BY.get(ability_id)
    if built is None or not built.structure:
        return error_pb2.Error  # not a building ability: the game answers the same
    if not (math.isfinite(x) and math.isfinite(y)):
        # NaN or infinity is no place on the map: the game's code for a site off the map.
        return error_pb2.CantBuildLocationInvalid
    cx, cy = game.building.snap(built, x, y)
    return game.building.placement_error(built, cx, cy)


def _distance(game: Game, item: query_pb2.RequestQueryPathing, ox: int, oy: int) -> float:
    """The walking distance from a unit (or a point) to `end_pos`; 0 where the game finds no path.

    Simplified: the straight line between two pathable points (mini-game maps are open fields; units walk
    round what stands in the way, which this does not count).
    """
    w = game.world
    if item.HasField("unit_tag"):
        if not w.exists(item.unit_tag):
            return 0.0
        start = tuple(w.pos[w.slot(item.unit_tag)])
    else:
        start = (item.start_pos.x + ox, item.start_pos.y + oy)
    end = (item.end_pos.x + ox, item.end_pos.y + oy)
    if not (_pathable(game, *start) and _pathable(game, *end)):
        return 0.0
    return float(math.dist(start, end))


def _pathable(game: Game, x: float, y: float) -> bool:
    """Whether (x, y) is on pathable ground; NaN or infinity is nowhere, so no path leads there (distance 0:
    ResponseQueryPathing has no error code)."""
    if not (math.isfinite(x) and math.isfinite(y)):
        return False
    grid = game.terrain.pathable
    col, row = math.floor(x), math.floor(y)
    return 0 <= row < grid.shape[0] and 0 <= col < grid.shape[1] and bool(grid[row, col])
