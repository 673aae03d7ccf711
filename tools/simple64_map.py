"""Write maps/melee/Simple64.json: the built-in engine's Simple64, two mirrored Terran bases on a 64 x 64 map.

One side is laid out here (player 1's main on a raised plateau in the north-west, one ramp down its south
cliff, its natural on the low ground below); player 2's is the same turned half a circle round the map's
centre, so the map is fair by construction. Run it after changing the layout: python tools/simple64_map.py
(tests/engine/test_simple64.py checks the shipped file is its output).
"""

from __future__ import annotations

import json
import pathlib
import sys

import numpy as np

from sc2env.engine.ground import encode_heights, encode_pathing

SIZE = 64
PLAYABLE = (2.0, 2.0, 62.0, 62.0)
TIME_LIMIT = 16 * 60 * 30  # PySC2's Melee maps: a 30-minute game, then a tie
MAIN = (15.5, 46.5)  # player 1's Command Center (5 x 5 footprint: centred on a half cell)
NATURAL = (15.5, 20.5)  # where player 1's natural Command Center would stand
# Relative to a town hall: the mineral line west of it (CollectMineralsAndGas's arc, moved out to the 3 cells
# a Command Center keeps from resources) and two geysers.
MINERALS = ((-8.5, 0), (-7.5, 1), (-8.5, -2), (-6.5, -6), (-6.5, 4), (-7.5, -5), (-7.5, 3), (-7.5, -3))
GEYSERS = ((-3, -8), (-3, 7))
# Twelve SCVs on the side of the Command Center away from its minerals.
SCV_OFFSETS = tuple((dx, dy) for dx in (3.5, 4.5) for dy in (2.5, 1.5, 0.5, -0.5, -1.5, -2.5))
# Heights: the mains' plateaus one cliff (2 units, as between the game's height levels) above the rest.
LOW, HIGH = 10.0, 12.0
# Player 1's main plateau (x0, y0, x1, y1 in whole cells, the ends excluded); a cliff face CLIFF cells wide runs
# along its open sides (south and east; the map's edge bounds the others): unpathable, halfway in height.
MAIN_AREA = (2, 36, 26, 62)
CLIFF = 2
# The ramp: 4 cells wide, down from the plateau's south edge through the cliff to the low ground, rising evenly
# over its length (a third of a unit a cell, so a unit on it sees the next cells up but not over the top);
# walled on both sides where it cuts into the plateau, open at its foot. Its top row (y = 37) meets the main.
RAMP = (20, 32, 24, 38)


def mirror(point: tuple[float, float]) -> list[float]:
    """Player 2's place for player 1's `point`: turned round the map's centre."""
    return [SIZE - point[0], SIZE - point[1]]


def at(origin: tuple[float, float], offsets) -> list[tuple[float, float]]:
    return [(origin[0] + dx, origin[1] + dy) for dx, dy in offsets]


def both(points: list[tuple[float, float]]) -> list[list[float]]:
    """Player 1's points, then player 2's mirrored ones."""
    return [list(p) for p in points] + [mirror(p) for p in points]


def rect_both(box: tuple[float, float, float, float]) -> tuple[list[float], list[float]]:
    x0, y0, x1, y1 = box
    return [x0, y0, x1, y1], [SIZE - x1, SIZE - y1, SIZE - x0, SIZE - y0]


def lose_when_no_buildings(loser: int) -> dict:
    """When `loser` has no structure left it has lost (a tie if the other side has none left either)."""
    winner = 3 - loser
    # The map's results are player 1's (the engine mirrors them for player 2).
    result = "Defeat" if loser == 1 else "Victory"
    return {
        "when": {"unit_died": {"owner": loser}},
        "do": [
            {
                "if": {"unit_count": {"owner": loser, "structures": True, "at_most": 0}},
                "then": [
                    {
                        "if": {"unit_count": {"owner": winner, "structures": True, "at_most": 0}},
                        "then": [{"end_game": {"result": "Tie"}}],
                        "else": [{"end_game": {"result": result}}],
                    }
                ],
            }
        ],
    }


def ground() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Pathable, buildable and heights (h, w), row 0 at y = 0: player 1's side drawn, player 2's turned."""
    heights = np.full((SIZE, SIZE), LOW)
    pathable = np.zeros((SIZE, SIZE), bool)
    p0, p1 = int(PLAYABLE[0]), int(PLAYABLE[2])
    pathable[p0:p1, p0:p1] = True
    x0, y0, x1, y1 = MAIN_AREA
    # The cliff: the band round the plateau's south and east sides, then the plateau on top of it.
    pathable[y0 - CLIFF : y1, x0 : x1 + CLIFF] = False
    heights[y0 - CLIFF : y1, x0 : x1 + CLIFF] = (LOW + HIGH) / 2
    pathable[y0:y1, x0:x1] = True
    heights[y0:y1, x0:x1] = HIGH
    rx0, ry0, rx1, ry1 = RAMP
    rise = (np.arange(ry0, ry1) + 0.5 - ry0) / (ry1 - ry0)
    heights[ry0:ry1, rx0:rx1] = (LOW + (HIGH - LOW) * rise)[:, None]
    pathable[ry0:ry1, rx0:rx1] = True
    pathable[y0:ry1, [rx0 - 1, rx1]] = False  # the ramp's side walls inside the plateau
    heights[y0:ry1, [rx0 - 1, rx1]] = (LOW + HIGH) / 2
    buildable = pathable.copy()
    buildable[ry0:ry1, rx0:rx1] = False  # no building on a ramp, as in the game
    # Player 2's side: cell (x, y) of player 1's is cell (SIZE - 1 - x, SIZE - 1 - y) of player 2's.
    drawn = np.zeros((SIZE, SIZE), bool)
    drawn[y0 - CLIFF : y1, x0 : x1 + CLIFF] = True
    drawn[ry0:ry1, rx0:rx1] = True
    turned = drawn[::-1, ::-1]
    if (drawn & turned).any():
        raise SystemExit("the two mains overlap once turned: move MAIN_AREA or RAMP")
    for grid in (pathable, buildable, heights):
        grid[turned] = grid[::-1, ::-1][turned]
    return pathable, buildable, np.round(heights, 4)


def definition() -> dict:
    main1, main2 = rect_both(tuple(map(float, MAIN_AREA)))
    ramp1, ramp2 = rect_both(tuple(map(float, RAMP)))
    pathable, buildable, heights = ground()
    setup: list[dict] = [
        {
            "spawn": {
                "type": "MineralField",
                "owner": 0,
                "count": 16,
                "group": "main_minerals",
                "at": {"points": both(at(MAIN, MINERALS))},
                "facing": 0,
            }
        },
        {
            "spawn": {
                "type": "MineralField750",
                "owner": 0,
                "count": 16,
                "group": "natural_minerals",
                "at": {"points": both(at(NATURAL, MINERALS))},
                "facing": 0,
            }
        },
        {
            "spawn": {
                "type": "VespeneGeyser",
                "owner": 0,
                "count": 8,
                "group": "geysers",
                "at": {"points": both(at(MAIN, GEYSERS) + at(NATURAL, GEYSERS))},
                "facing": 0,
            }
        },
    ]
    for player, spot in ((1, list(MAIN)), (2, mirror(MAIN))):
        setup += [
            {
                "spawn": {
                    "type": "CommandCenter",
                    "owner": player,
                    "group": f"command_center{player}",
                    "at": {"point": spot},
                    "facing": 0,
                }
            },
            {
                "spawn": {
                    "type": "SCV",
                    "owner": player,
                    "count": 12,
                    "group": f"scvs{player}",
                    "at": f"scvs{player}",
                    "facing": 0,
                }
            },
            {"set_player": {"player": player, "minerals": 50, "vespene": 0}},
        ]
    offsets2 = [[-dx, -dy] for dx, dy in SCV_OFFSETS]
    return {
        "format": "sc2env-minigame/1",
        "name": "Simple64",
        "map_folder": "Melee",
        "opponent": "player",
        "description": (
            "PySC2's Simple64 melee map, Terran vs Terran: each side a main (8 mineral fields, 2 geysers, a "
            "Command Center and 12 SCVs, 50 minerals) on a plateau behind a cliff, with one ramp down to the "
            "low ground and its natural expansion (8 mineral fields, 2 geysers). Fog of war: the low ground "
            "does not see up the cliff. A side with no buildings left has lost (both at once: a tie); after "
            "30 game minutes, a tie."
        ),
        "map_size": [SIZE, SIZE],
        "playable_area": list(PLAYABLE),
        "camera_bounds": list(PLAYABLE),
        "camera_start": [SIZE / 2, SIZE / 2],
        "camera_locked": False,
        "vision": "fog",
        "pathing_grid": encode_pathing(pathable),
        "placement_grid": encode_pathing(buildable),
        "height_map": encode_heights(heights),
        "time_limit": TIME_LIMIT,
        "timeout_result": "Tie",
        "players": [
            {"player_id": 1, "race": "Terran", "name": "Player 1", "camera_start": list(MAIN)},
            {"player_id": 2, "race": "Terran", "name": "Player 2", "camera_start": mirror(MAIN)},
        ],
        "start_locations": [list(MAIN), mirror(MAIN)],
        "regions": {
            "main1": {"rect": main1},
            "main2": {"rect": main2},
            "ramp1": {"rect": ramp1},
            "ramp2": {"rect": ramp2},
            "natural1": {"circle": [*NATURAL, 8.0]},
            "natural2": {"circle": [*mirror(NATURAL), 8.0]},
        },
        "placements": {
            "scvs1": {"point": list(MAIN), "offsets": [list(o) for o in SCV_OFFSETS]},
            "scvs2": {"point": mirror(MAIN), "offsets": offsets2},
        },
        "setup": setup,
        "triggers": [lose_when_no_buildings(2), lose_when_no_buildings(1)],
    }


def main() -> None:
    out = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "maps/melee/Simple64.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(definition(), indent=2) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
