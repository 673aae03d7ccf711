"""Write maps/melee/Simple64.json: the built-in engine's Simple64, two mirrored Terran bases on a 64 x 64 map.

One side is laid out here (player 1's main in the north-west, its natural below it); player 2's is the same
turned half a circle round the map's centre, so the map is fair by construction. Run it after changing the
layout: python tools/simple64_map.py (tests/engine/test_simple64.py checks the shipped file is its output).
"""

from __future__ import annotations

import json
import pathlib
import sys

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
# Player 1's main plateau and the ramp down from it (south-east corner); the cliff is the plateau's edge.
MAIN_AREA = (2.0, 36.0, 26.0, 62.0)
RAMP = (26.0, 36.0, 30.0, 40.0)


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


def definition() -> dict:
    main1, main2 = rect_both(MAIN_AREA)
    ramp1, ramp2 = rect_both(RAMP)
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
            "Command Center and 12 SCVs, 50 minerals) with a ramp down to the middle, and a natural expansion "
            "(8 mineral fields, 2 geysers). Fog of war. A side with no buildings left has lost (both at "
            "once: a tie); after 30 game minutes, a tie."
        ),
        "map_size": [SIZE, SIZE],
        "playable_area": list(PLAYABLE),
        "camera_bounds": list(PLAYABLE),
        "camera_start": [SIZE / 2, SIZE / 2],
        "camera_locked": False,
        "vision": "fog",
        "terrain_height": 10.0,
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
