"""How long join_game takes when a map spawns many units: each new unit is placed at the nearest free spot.

The map is MoveToBeacon with its one Marine spawn asked for N Marines in the same playable area (22x16
world units; about 800 Marines fill it, the rest stand on top of others, as the game places them when no
spot is free) and its beacon placed anywhere in its region. The time is the engine's own (a Session in this
process): the same the single-threaded engine spends answering nobody else; CPU time as well, which a loaded
machine stretches less.
Run: python benchmarks/spawn_placement.py [--units 100,1000,3000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import time

from s2clientprotocol import common_pb2
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env.engine.mapdef import builtin_definitions
from sc2env.engine.session import Session


def crowded_beacon(units: int) -> bytes:
    """MoveToBeacon with `units` Marines spawned in its playable area."""
    spec = json.loads(builtin_definitions()["MoveToBeacon"])
    spec["setup"][0]["spawn"]["count"] = units
    spec["placements"]["beacon"] = {"region": "beacon_spawn"}  # 5 away from every Marine: no room for that
    return json.dumps(spec).encode()


def join_seconds(units: int) -> tuple[float, float, int]:
    """(seconds join_game took, CPU seconds it took, units in the game)."""
    session = Session()

    def ask(**request) -> sc_pb.Response:
        return sc_pb.Response.FromString(session.handle(sc_pb.Request(**request).SerializeToString()))

    create = sc_pb.RequestCreateGame(
        local_map=sc_pb.LocalMap(map_path="CrowdedBeacon", map_data=crowded_beacon(units)), random_seed=1
    )
    create.player_setup.add(type=sc_pb.Participant, race=common_pb2.Terran)
    created = ask(create_game=create)
    if created.create_game.HasField("error"):
        raise SystemExit(f"create_game refused the map: {created.create_game.error_details}")
    options = sc_pb.InterfaceOptions(raw=True, score=True)
    options.feature_layer.width = 24
    options.feature_layer.resolution.x = options.feature_layer.resolution.y = 64
    options.feature_layer.minimap_resolution.x = options.feature_layer.minimap_resolution.y = 64
    start, cpu = time.perf_counter(), time.process_time()
    joined = ask(join_game=sc_pb.RequestJoinGame(race=common_pb2.Terran, options=options))
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    if joined.error or joined.join_game.HasField("error"):
        raise SystemExit(f"join_game failed: {list(joined.error) or joined.join_game.error_details}")
    return seconds, cpu, session.game.world.n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--units", default="100,1000,3000", help="comma-separated Marine counts")
    parser.add_argument("--repeat", type=int, default=3, help="runs per count (the best is shown)")
    args = parser.parse_args()
    print(f"{'units':>6} {'join_game s':>12} {'CPU s':>7} {'CPU ms/unit':>12}")
    for units in (int(n) for n in args.units.split(",")):
        best, cpu, placed = min(join_seconds(units) for _ in range(args.repeat))
        print(
            f"{units:>6} {best:>12.3f} {cpu:>7.3f} {cpu * 1000 / units:>12.2f}  ({placed} units in the game)"
        )


if __name__ == "__main__":
    main()
