"""Calibrate the built-in engine against the SC2LE paper: a random and a scripted agent on all seven mini-games.

The random agent is the paper's random policy (uniform over the available functions, then uniform over each
argument's valid values, drawn from the env's action masks); the scripted agents are sc2env.agents' scripts.
Prints mean and max episode scores (the final curriculum score, as the paper reports) next to the paper's
Table 1. Run: python benchmarks/calibrate_minigames.py [--episodes 10] [--maps A,B] [--jobs 2] [--engine sc2] [--markdown]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from concurrent.futures import ProcessPoolExecutor

MAPS = (
    "MoveToBeacon",
    "CollectMineralShards",
    "FindAndDefeatZerglings",
    "DefeatRoaches",
    "DefeatZerglingsAndBanelings",
    "CollectMineralsAndGas",
    "BuildMarines",
)
# SC2LE paper (Vinyals et al. 2017), Table 1: (random mean, random max, human mean, grandmaster mean).
PAPER = {
    "MoveToBeacon": ("1", "6", "26", "28"),
    "CollectMineralShards": ("17", "35", "133", "177"),
    "FindAndDefeatZerglings": ("4", "19", "46", "61"),
    "DefeatRoaches": ("1", "46", "41", "215"),
    "DefeatZerglingsAndBanelings": ("23", "118", "729", "727"),
    "CollectMineralsAndGas": ("12", "750", "6880", "7566"),
    "BuildMarines": ("<1", "5", "138", "133"),
}


def play(job: tuple[str, str, int, int, str]) -> tuple[str, str, list[int], int, float]:
    """(map, agent kind, scores, agent steps, seconds) for `episodes` episodes of one agent on one map."""
    map_name, kind, episodes, seed, engine = job
    import gymnasium as gym

    import sc2env  # noqa: F401  (registers the envs)
    from sc2env.agents import make_agent, run_agent

    agent = make_agent(kind, map_name, seed=seed)
    env = gym.make(
        f"sc2env/{map_name}-v0",
        engine=engine,
        screen_size=64,
        minimap_size=64,
        step_mul=8,
        **agent.env_kwargs,
    )
    start = time.perf_counter()
    try:
        results = run_agent(env, agent, episodes, seed=seed)
    finally:
        env.close()
    return (
        map_name,
        kind,
        [e.score for e in results],
        sum(e.steps for e in results),
        time.perf_counter() - start,
    )


def table(rows: dict[tuple[str, str], tuple[list[int], int, float]], markdown: bool) -> str:
    header = (
        "map",
        "random mean",
        "random max",
        "paper random mean",
        "paper random max",
        "scripted mean",
        "scripted max",
        "paper human mean",
        "paper GM mean",
    )
    lines = []
    for name in MAPS:
        random_scores = rows.get((name, "random"), ([], 0, 0.0))[0]
        scripted_scores = rows.get((name, "scripted"), ([], 0, 0.0))[0]
        if not random_scores and not scripted_scores:
            continue
        paper = PAPER[name]

        def stats(scores):
            return (f"{statistics.fmean(scores):.1f}", str(max(scores))) if scores else ("-", "-")

        lines.append(
            (name, *stats(random_scores), paper[0], paper[1], *stats(scripted_scores), paper[2], paper[3])
        )
    if markdown:
        out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        out += ["| " + " | ".join(line) + " |" for line in lines]
        return "\n".join(out)
    widths = [max(len(str(x)) for x in column) for column in zip(header, *lines)]
    return "\n".join("  ".join(str(x).rjust(w) for x, w in zip(line, widths)) for line in [header, *lines])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=10, help="episodes per agent and map (default 10)")
    parser.add_argument("--maps", default=",".join(MAPS), help="comma-separated mini-games")
    parser.add_argument("--agents", default="random,scripted", help="random and/or scripted")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--engine", default="builtin", help="builtin, or sc2 to calibrate the real game")
    parser.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1), help="parallel games")
    parser.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    args = parser.parse_args()
    maps = [m for m in args.maps.split(",") if m]
    unknown = set(maps) - set(MAPS)
    if unknown:
        parser.error(f"unknown mini-games {sorted(unknown)}; known: {', '.join(MAPS)}")
    # The longest games first, so parallel workers finish together.
    jobs = [
        (m, kind, args.episodes, args.seed, args.engine)
        for m in reversed(maps)
        for kind in args.agents.split(",")
    ]
    rows: dict[tuple[str, str], tuple[list[int], int, float]] = {}
    started = time.perf_counter()
    with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for map_name, kind, scores, steps, seconds in pool.map(play, jobs):
            rows[(map_name, kind)] = (scores, steps, seconds)
            print(
                f"{map_name:28s} {kind:8s} scores {scores}  ({steps} steps, {steps / seconds:.0f} steps/s)",
                flush=True,
            )
    print(
        f"\n{args.episodes} episodes per agent and map, 64x64 feature layers, step_mul 8, engine {args.engine} "
        f"({time.perf_counter() - started:.0f} s)\n"
    )
    print(table(rows, args.markdown))


if __name__ == "__main__":
    main()
