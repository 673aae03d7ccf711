"""Win rates of a random policy and of SMAC's scripted focus-fire policy on the SMAC scenarios the engine plays.

For every scenario (default: each one the built-in engine plays, `sc2env maps`), `--episodes` episodes of
each policy against the scenario's enemy (the map's attack-move order and the units' own behaviour):

- random: each agent picks uniformly among its available actions (SMAC's usual sanity baseline);
- heuristic: SMAC's `heuristic_ai` (sc2env.smac.heuristic): each agent keeps attacking one enemy, the
  closest when it picked it, until that enemy dies; a Medivac heals the closest damaged ally.

Beside them, the heuristic's win rate SMAC's paper reports (Samvelyan et al. 2019, "The StarCraft
Multi-Agent Challenge", the heuristic column of its table of test win rates, on StarCraft II 4.6.2.69232
against difficulty 7; as recalled, not checked against the paper's table); the paper gives it for 14 of
the 23 scenarios. A row is printed as soon as its scenario is done, and the Markdown table (and a JSON
copy) goes to --out at the end.

    python benchmarks/smac_win_rates.py [--episodes 100] [--map 3m,2s3z] [--out runs/win_rates.md]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import pathlib
import time

import numpy as np

from sc2env.mapfiles import definitions_dir
from sc2env.smac import StarCraft2Env
from sc2env.smac.scenarios import SMAC_SCENARIOS

PAPER_HEURISTIC = {
    "2s_vs_1sc": 0,
    "2s3z": 90,
    "3s5z": 42,
    "1c3s5z": 81,
    "10m_vs_11m": 12,
    "2c_vs_64zg": 0,
    "bane_vs_bane": 43,
    "5m_vs_6m": 0,
    "3s_vs_5z": 0,
    "3s5z_vs_3s6z": 0,
    "6h_vs_8z": 0,
    "27m_vs_30m": 0,
    "MMM2": 0,
    "corridor": 0,
}
"""The heuristic's test win rate in % in SMAC's paper (its table of results; scenarios it lists only)."""

POLICIES = ("random", "heuristic")


@dataclasses.dataclass
class Outcome:
    """One policy's episodes on one scenario."""

    episodes: int = 0
    wins: int = 0
    timeouts: int = 0
    steps: int = 0
    total_return: float = 0.0
    seconds: float = 0.0

    @property
    def win_rate(self) -> float:
        return self.wins / self.episodes if self.episodes else 0.0


def engine_scenarios() -> list[str]:
    """SMAC's scenarios the built-in engine ships a definition for, in SMAC's order."""
    shipped = {path.stem for path in (definitions_dir() / "smac").glob("*.json")}
    return [name for name in SMAC_SCENARIOS if name in shipped]


def play(map_name: str, policy: str, episodes: int, seed: int, engine: str) -> Outcome:
    """`episodes` episodes of `policy` on one game of `map_name`."""
    env = StarCraft2Env(map_name=map_name, engine=engine, seed=seed, heuristic_ai=policy == "heuristic")
    rng = np.random.default_rng(seed)
    outcome = Outcome()
    start = time.perf_counter()
    try:
        for _ in range(episodes):
            env.reset()
            terminated, info = False, {}
            while not terminated:
                avail = np.array(env.get_avail_actions())
                # The heuristic ignores the actions given; random ones are as good as any.
                actions = np.argmax(rng.random(avail.shape) * avail, axis=1)
                reward, terminated, info = env.step(actions)
                outcome.total_return += reward
                outcome.steps += 1
            outcome.episodes += 1
            outcome.wins += bool(info.get("battle_won"))
            outcome.timeouts += bool(info.get("episode_limit"))
    finally:
        env.close()
    outcome.seconds = time.perf_counter() - start
    return outcome


def row(map_name: str, outcomes: dict[str, Outcome]) -> str:
    """A Markdown table row: win rates, the paper's heuristic figure, mean episode length and time-outs."""
    cells = [map_name]
    for policy in POLICIES:
        o = outcomes.get(policy)
        cells.append(f"{o.win_rate:.0%} ({o.steps / o.episodes:.0f} steps, {o.timeouts} t/o)" if o else "-")
    paper = PAPER_HEURISTIC.get(map_name)
    cells.append(f"{paper}%" if paper is not None else "not reported")
    return "| " + " | ".join(cells) + " |"


HEADER = (
    "| scenario | random: win rate (mean episode length, time-outs) | heuristic | SMAC paper, heuristic |\n"
    "|---|---|---|---|"
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=100)
    parser.add_argument("--map", help="comma-separated scenarios (default: every one the engine plays)")
    parser.add_argument("--policy", default=",".join(POLICIES), help="random, heuristic or both")
    parser.add_argument("--engine", default="builtin")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=pathlib.Path, help="write the Markdown table here (and a .json)")
    args = parser.parse_args()
    maps = args.map.split(",") if args.map else engine_scenarios()
    policies = args.policy.split(",")
    unknown = [p for p in policies if p not in POLICIES]
    if unknown:
        parser.error(f"unknown --policy {', '.join(unknown)}: choose from {', '.join(POLICIES)}")
    print(f"{args.episodes} episodes per policy, engine {args.engine}\n{HEADER}", flush=True)
    lines, results = [], {}
    for map_name in maps:
        outcomes = {p: play(map_name, p, args.episodes, args.seed, args.engine) for p in policies}
        results[map_name] = {
            p: {**dataclasses.asdict(o), "win_rate": o.win_rate} for p, o in outcomes.items()
        }
        lines.append(row(map_name, outcomes))
        print(lines[-1], flush=True)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(f"{HEADER}\n" + "\n".join(lines) + "\n")
        args.out.with_suffix(".json").write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
