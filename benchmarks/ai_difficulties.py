"""The built-in AI's difficulties against each other on the two-player maps: N games per pair, the win table.

Each game runs in this process (no sockets): a Game with both slots played by a `Computer`, one game per seed
(the seed places the duel armies and draws the weapons' random cooldown delays). A cell is the row
difficulty's wins against the column's, from both slots (half the games each), as "wins-losses-ties".
`--pairs adjacent` plays only each difficulty against the next one (the ordering check, on Simple64 a
few seconds a game).
Run: python benchmarks/ai_difficulties.py [--games N] [--map DuelMarines,DuelTerranMixed,Simple64]
     [--pairs all|adjacent]
"""

from __future__ import annotations

import argparse
import itertools
import time

from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env.engine.computer import INTERFACE, PROFILES, Computer
from sc2env.engine.game import Game, Joining
from sc2env.engine.mapdef import builtin_definitions, parse_definition

STEP = 16  # loops per round: both AIs decide at their own reaction times inside it


def play(map_name: str, first: int, second: int, seed: int) -> int | None:
    """The result for the slot-1 AI (`first` difficulty) against `second` in slot 2."""
    definition = parse_definition(builtin_definitions()[map_name])
    game = Game(definition, seed)
    slots = [slot.player_id for slot in definition.players]
    game.join_all(
        [Joining(pid, INTERFACE, slot.race, f"AI {pid}") for pid, slot in zip(slots, definition.players)]
    )
    ais = [Computer(slots[0], first), Computer(slots[1], second)]
    while not game.ended:
        for ai in ais:
            if game.game_loop >= ai.next_decision:
                ai.decide(game)
                ai.next_decision = game.game_loop + ai.profile.reaction
        game.step(min(ai.next_decision for ai in ais) - game.game_loop)
    return game.result_for(slots[0])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10, help="games per pair and map (even: both slots)")
    parser.add_argument(
        "--map", default="DuelMarines,DuelTerranMixed,Simple64", help="comma-separated two-player maps"
    )
    parser.add_argument("--pairs", choices=("all", "adjacent"), default="all", help="which pairs play")
    parser.add_argument("--verbose", action="store_true", help="print the record after every game")
    parser.add_argument("--levels", default="", help="comma-separated difficulties (default: all six)")
    args = parser.parse_args()
    names = {d: sc_pb.Difficulty.Name(sc_pb.Difficulty.ValueType(d)) for d in PROFILES}
    for map_name in args.map.split(","):
        started = time.perf_counter()
        table: dict[tuple[int, int], list[int]] = {}
        levels = sorted(
            PROFILES if not args.levels else (sc_pb.Difficulty.Value(n) for n in args.levels.split(","))
        )
        pairs = (
            list(itertools.pairwise(levels))
            if args.pairs == "adjacent"
            else itertools.combinations(levels, 2)
        )
        for a, b in pairs:
            record = [0, 0, 0]  # a's wins, losses, ties
            for n in range(args.games):
                swap = n % 2 == 1
                result = play(map_name, *((b, a) if swap else (a, b)), seed=n)
                if result == sc_pb.Tie or result is None:
                    record[2] += 1
                elif (result == sc_pb.Victory) != swap:
                    record[0] += 1
                else:
                    record[1] += 1
                if args.verbose:
                    print(
                        f"    {names[a]} vs {names[b]}, game {n + 1}: {'-'.join(map(str, record))}",
                        flush=True,
                    )
            table[(a, b)] = record
            table[(b, a)] = [record[1], record[0], record[2]]
            print(f"  {names[a]} vs {names[b]}: {'-'.join(map(str, record))}", flush=True)
        width = max(map(len, names.values())) + 2
        print(f"\n{map_name}: row's wins-losses-ties against the column, {args.games} games a pair")
        print("".ljust(width) + "".join(names[d].rjust(width) for d in sorted(PROFILES)))
        for a in sorted(PROFILES):
            cells = [
                "-" if a == b or (a, b) not in table else "-".join(map(str, table[(a, b)]))
                for b in sorted(PROFILES)
            ]
            print(names[a].ljust(width) + "".join(c.rjust(width) for c in cells))
        print(f"({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
