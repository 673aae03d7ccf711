"""What a replay costs the engine: its size, and the time to write it (save_replay) and read it (replay_info).

    python benchmarks/replay_files.py [--map CollectMineralShards] [--loops 1920] [--repeat 50]

Plays `--loops` game loops of a random agent (an action every 8 loops) in the engine, in this process, then
times the replay's encoding and decoding (the median of `--repeat` runs).
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
from s2clientprotocol import common_pb2
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env.engine import replay_file
from sc2env.engine.session import Session


def ask(session: Session, **request) -> sc_pb.Response:
    return sc_pb.Response.FromString(session.handle(sc_pb.Request(**request).SerializeToString()))


def play(map_name: str, loops: int) -> Session:
    """A game of `loops` loops (or to its end): a random screen click or a select-all every 8 loops."""
    session = Session()
    create = sc_pb.RequestCreateGame(local_map=sc_pb.LocalMap(map_path=f"mini_games/{map_name}.SC2Map"))
    create.random_seed = 1
    create.player_setup.add(type=sc_pb.Participant, race=common_pb2.Terran)
    ask(session, create_game=create)
    options = sc_pb.InterfaceOptions(raw=True, score=True)
    options.feature_layer.width = 24
    options.feature_layer.resolution.x = options.feature_layer.resolution.y = 64
    options.feature_layer.minimap_resolution.x = options.feature_layer.minimap_resolution.y = 64
    ask(session, join_game=sc_pb.RequestJoinGame(race=common_pb2.Terran, options=options))
    rng = np.random.default_rng(1)
    for n in range(loops // 8):
        if session.status != sc_pb.in_game:
            break
        action = sc_pb.Action()
        if n % 5 == 0:
            action.action_ui.select_army.SetInParent()
        else:
            command = action.action_feature_layer.unit_command
            command.ability_id = 3794  # Move_screen
            command.target_screen_coord.x, command.target_screen_coord.y = (
                int(v) for v in rng.integers(0, 64, 2)
            )
        ask(session, action=sc_pb.RequestAction(actions=[action]))
        ask(session, step=sc_pb.RequestStep(count=8))
    return session


def median_ms(work, repeat: int) -> float:
    samples = []
    for _ in range(repeat):
        started = time.perf_counter()
        work()
        samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--map", default="CollectMineralShards")
    parser.add_argument("--loops", type=int, default=1920)
    parser.add_argument("--repeat", type=int, default=50)
    args = parser.parse_args()
    session = play(args.map, args.loops)
    recorded = replay_file.record(session.game)
    data = replay_file.encode(recorded)
    write_ms = median_ms(lambda: replay_file.encode(replay_file.record(session.game)), args.repeat)
    read_ms = median_ms(lambda: replay_file.decode(data), args.repeat)
    print(f"{args.map}, {recorded.game_loop} loops, {recorded.action_count} actions, starts {data[:4]!r}")
    print(f"replay size {len(data):>8} bytes")
    print(f"write       {write_ms:8.2f} ms (record + encode, median of {args.repeat})")
    print(f"read        {read_ms:8.2f} ms (decode, median of {args.repeat})")


if __name__ == "__main__":
    main()
