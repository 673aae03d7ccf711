"""Win rates on the two-player maps: agents against every built-in AI difficulty, and the AI against itself.

Each agent game is `gymnasium.make("sc2env/<map>-v0", opponent="computer:<level>")` over a real socket, one
game per seed (0..N-1: the seed places the armies), the agent in slot 1. The AI-against-AI games run in this
process through benchmarks/ai_difficulties.py (both slots, half the games each). A cell is "won-lost-tied"
for the row. With --write FILE each map's tables replace what stands between that map's markers in FILE
(`<!-- win-rates:MAP:start -->` ... `<!-- win-rates:MAP:end -->`, docs/multiplayer.md); other maps' blocks stay.
Run: python benchmarks/win_rates.py [--games 20] [--map DuelMarines,...] [--agents random,scripted]
     [--ai-games N] [--write FILE]
"""

from __future__ import annotations

import argparse
import itertools
import pathlib
import sys
import time

import gymnasium as gym
from s2clientprotocol import sc2api_pb2 as sc_pb

import sc2env  # noqa: F401  (registers the ids)
from sc2env.agents import make_agent, run_episode

LEVELS = ("very_easy", "easy", "medium", "medium_hard", "hard", "harder")
"""The built-in engine's AI difficulties, easiest first."""
ENV = dict(engine="builtin", screen_size=32, minimap_size=32, step_mul=8)


def markers(map_name: str) -> tuple[str, str]:
    """The comments around `map_name`'s tables in a document --write fills."""
    return f"<!-- win-rates:{map_name}:start -->", f"<!-- win-rates:{map_name}:end -->"


def replace_blocks(text: str, blocks: dict[str, str]) -> str:
    """`text` with each map's block put between its markers; a map without markers in `text` is an error."""
    for map_name, block in blocks.items():
        start, end = markers(map_name)
        head, found, rest = text.partition(start)
        _, found_end, tail = rest.partition(end)
        if not found or not found_end:
            raise ValueError(f"no {start} ... {end} markers: add them where {map_name}'s tables go")
        text = f"{head}{start}\n{block}\n{end}{tail}"
    return text


def agent_record(map_name: str, agent_name: str, level: str, games: int) -> tuple[int, int, int]:
    """(won, lost, tied) of `agent_name` in slot 1 against the AI at `level`, one game per seed."""
    record = [0, 0, 0]
    agent = make_agent(agent_name, map_name, seed=0)
    env = gym.make(
        f"sc2env/{map_name}-v0", opponent=f"computer:{level}", **ENV, **dict(type(agent).env_kwargs)
    )
    try:
        for seed in range(games):
            episode = run_episode(env, agent, seed=seed, setup=seed == 0)
            record[0 if episode.outcome > 0 else 1 if episode.outcome < 0 else 2] += 1
    finally:
        env.close()
    return record[0], record[1], record[2]


def ai_record(map_name: str, first: str, second: str, games: int) -> tuple[int, int, int]:
    """(won, lost, tied) of the AI at `first` against `second`, half the games from each slot."""
    sys.path.insert(0, str(pathlib.Path(__file__).parent))
    from ai_difficulties import play  # the in-process AI-against-AI game of that benchmark

    ids = {name: sc_pb.Difficulty.Value("".join(p.capitalize() for p in name.split("_"))) for name in LEVELS}
    record = [0, 0, 0]
    for n in range(games):
        swap = n % 2 == 1
        result = play(map_name, *((ids[second], ids[first]) if swap else (ids[first], ids[second])), seed=n)
        if result in (sc_pb.Tie, None):
            record[2] += 1
        elif (result == sc_pb.Victory) != swap:
            record[0] += 1
        else:
            record[1] += 1
    return record[0], record[1], record[2]


def cell(record: tuple[int, int, int]) -> str:
    return "-".join(str(n) for n in record)


def tables(map_name: str, agents: list[str], games: int, ai_games: int) -> str:
    started = time.perf_counter()
    header = "| agent \\ AI | " + " | ".join(LEVELS) + " |"
    lines = [f"**{map_name}**, {games} games a cell (won-lost-tied, the row's):", ""]
    if agents:
        lines += [header, "|" + "---|" * (len(LEVELS) + 1)]
    for agent in agents:
        row = [cell(agent_record(map_name, agent, level, games)) for level in LEVELS]
        lines.append(f"| {agent} | " + " | ".join(row) + " |")
        print(lines[-1], file=sys.stderr, flush=True)
    if not ai_games:
        lines += ["", f"({time.perf_counter() - started:.0f} s)"]
        return "\n".join(lines)
    lines += ["", f"The AI against itself, {ai_games} games a cell:", ""]
    lines += ["| AI \\ AI | " + " | ".join(LEVELS) + " |", "|" + "---|" * (len(LEVELS) + 1)]
    records = {pair: ai_record(map_name, *pair, ai_games) for pair in itertools.combinations(LEVELS, 2)}
    for row in LEVELS:
        cells = []
        for column in LEVELS:
            if row == column:
                cells.append("")
            elif (row, column) in records:
                cells.append(cell(records[row, column]))
            else:
                won, lost, tied = records[column, row]
                cells.append(cell((lost, won, tied)))
        lines.append(f"| {row} | " + " | ".join(cells) + " |")
    lines.append("")
    lines.append(f"({time.perf_counter() - started:.0f} s)")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20, help="games per cell")
    parser.add_argument("--map", default="DuelMarines,DuelTerranMixed,DuelZerglingsBanelings")
    parser.add_argument("--agents", default="random,scripted")
    parser.add_argument("--ai-games", type=int, help="games per cell of the AI-against-AI table (0: none)")
    parser.add_argument("--write", type=pathlib.Path, help="put the tables between the markers of this file")
    args = parser.parse_args()
    maps = args.map.split(",")
    if args.write is not None:  # before the games: a missing marker should not cost a run
        try:
            replace_blocks(args.write.read_text(encoding="utf-8"), dict.fromkeys(maps, ""))
        except (OSError, ValueError) as error:
            raise SystemExit(f"--write {args.write}: {error}") from None
    blocks = {}
    for map_name in maps:
        ai_games = args.games if args.ai_games is None else args.ai_games
        agents = [name for name in args.agents.split(",") if name]  # --agents "": the AI's table alone
        blocks[map_name] = tables(map_name, agents, args.games, ai_games)
        print(blocks[map_name], flush=True)
    if args.write is not None:
        text = replace_blocks(args.write.read_text(encoding="utf-8"), blocks)
        args.write.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
