"""Learning curves of the PPO baselines as PNGs: episode score against env steps, mean and spread over seeds.

    python -m sc2env.baselines.plot runs --out plots            # plots/<map>.png, and plots/all.png
    python -m sc2env.baselines.plot runs --table                # final scores as a Markdown table

Every directory under the given ones that holds a run of `sc2env.baselines.ppo` (config.json and
episodes.csv) is read. Runs are grouped by map, mask mode and any other setting in which they differ (a
seed, the length of a run and where it ran don't count); a run's curve at step s is the mean score of
its last `--window` episodes finished by s, and a group's line is the mean of its seeds' curves, with the
band from the lowest to the highest seed (a single seed has no band). The SC2LE paper's FullyConv score is
drawn as a dashed line for reference.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import textwrap
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import numpy as np

PAPER_FULLYCONV = {
    "MoveToBeacon": 26,
    "CollectMineralShards": 103,
    "FindAndDefeatZerglings": 45,
    "DefeatRoaches": 100,
    "DefeatZerglingsAndBanelings": 62,
    "CollectMineralsAndGas": 3978,
    "BuildMarines": 3,
}
"""The SC2LE paper's best FullyConv mean scores (Vinyals et al. 2017, table 1)."""

MASK_COLOURS = {"full": "tab:blue", "function": "tab:orange", "none": "tab:red"}
SAME_RUN = ("map", "masks", "seed", "total_timesteps", "save_every", "tensorboard", "threads", "engine")
"""Config keys that don't make runs differ in kind: the group key's own, and how long and where a run went."""


@dataclass(frozen=True)
class Run:
    """One run's finished episodes, in the order they ended."""

    path: Path
    map: str
    masks: str
    seed: int
    settings: tuple[tuple[str, str], ...]
    """The run's other settings (all but SAME_RUN), as (name, value) text: runs with other settings are
    another group."""
    steps: np.ndarray
    wall: np.ndarray
    scores: np.ndarray

    def curve(self, grid: np.ndarray, window: int, x: str = "steps") -> np.ndarray:
        """The mean score of the last `window` episodes finished by each grid point (NaN before the first)."""
        ends = np.searchsorted(self.steps if x == "steps" else self.wall, grid, side="right")
        sums = np.concatenate([[0.0], np.cumsum(self.scores)])
        starts = np.maximum(ends - window, 0)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(ends > 0, (sums[ends] - sums[starts]) / (ends - starts), np.nan)


def load_runs(roots: Iterable[str | Path]) -> list[Run]:
    """Every run under `roots` (a run directory itself, or any folder above run directories) that has
    finished an episode."""
    runs = []
    for root in roots:
        root = Path(root)
        if not root.exists():
            raise FileNotFoundError(f"{root} does not exist: give run directories or folders holding them")
        for config_path in sorted({*root.glob("config.json"), *root.rglob("*/config.json")}):
            episodes = config_path.parent / "episodes.csv"
            if not episodes.is_file():
                continue
            config = json.loads(config_path.read_text())
            with episodes.open(newline="") as file:
                rows = list(csv.DictReader(file))
            if not rows:  # no episode finished yet: nothing to draw
                continue
            runs.append(
                Run(
                    config_path.parent,
                    Path(config["map"]).stem,
                    config["masks"],
                    int(config["seed"]),
                    tuple(sorted((k, str(v)) for k, v in config.items() if k not in SAME_RUN)),
                    np.array([int(r["global_step"]) for r in rows], np.int64),
                    np.array([float(r["wall_time"]) for r in rows]),
                    np.array([float(r["score"]) for r in rows]),
                )
            )
    return runs


class Group(NamedTuple):
    """Seeds of one setting: a line of a plot and a row of the table."""

    map: str
    masks: str
    settings: tuple[tuple[str, str], ...]
    label: str
    """masks=..., and the settings in which this group differs from other groups of its map."""


def groups(runs: Sequence[Run]) -> dict[Group, list[Run]]:
    """Runs by map, mask mode and other settings, in a stable order: maps as first seen, masks full,
    function, none."""
    order = {mode: i for i, mode in enumerate(MASK_COLOURS)}
    keyed: dict[tuple[str, str, tuple], list[Run]] = {}
    for run in sorted(runs, key=lambda r: (order.get(r.masks, len(order)), r.seed)):
        keyed.setdefault((run.map, run.masks, run.settings), []).append(run)
    maps = list(dict.fromkeys(run.map for run in runs))
    grouped = {}
    for (name, masks, settings), members in sorted(
        keyed.items(), key=lambda item: (maps.index(item[0][0]), order.get(item[0][1], 9))
    ):
        others = [dict(key[2]) for key in keyed if key[0] == name]
        differ = [k for k, v in settings if any(o.get(k) != v for o in others)]
        named = [_setting_label(k, dict(settings)[k], others) for k in differ]
        label = ", ".join([f"masks={masks}", *named])
        grouped[Group(name, masks, settings, label)] = members
    return grouped


def _setting_label(key: str, value: str, others: Sequence[dict[str, str]]) -> str:
    """`key=value`, but a function list as its size and what it leaves out of the map's other lists (a
    dozen names would fill a legend)."""
    if key != "functions" or value == "all":
        return f"{key}={value}"
    names = value.split(",")
    union = dict.fromkeys(name for o in others if o.get(key, "all") != "all" for name in o[key].split(","))
    missing = [name for name in union if name not in names]
    return f"{len(names)} functions" + (f" (without {', '.join(missing)})" if missing else "")


def _draw(axes, map_name: str, grouped: dict[Group, list[Run]], window: int, x: str) -> None:
    styles = ("-", "--", ":", "-.")  # one per setting of the map's runs other than masks and seed
    mine = {group: members for group, members in grouped.items() if group.map == map_name}
    variants = list(dict.fromkeys(group.settings for group in mine))
    for group, members in mine.items():
        end = max(float(r.steps[-1] if x == "steps" else r.wall[-1]) for r in members)
        grid = np.linspace(0, end, 200)
        curves = np.array([r.curve(grid, window, x) for r in members])
        with warnings.catch_warnings():  # grid points before every seed's first episode are all NaN
            warnings.simplefilter("ignore", RuntimeWarning)
            mean, low, high = np.nanmean(curves, 0), np.nanmin(curves, 0), np.nanmax(curves, 0)
        scale = 1 / 3600 if x == "wall" else 1.0
        colour, style = MASK_COLOURS.get(group.masks), styles[variants.index(group.settings) % len(styles)]
        seeds = f"{len(members)} seed{'s' * (len(members) > 1)}"
        label = textwrap.fill(f"{group.label} ({seeds})", 60, subsequent_indent="  ")
        axes.plot(grid * scale, mean, color=colour, linestyle=style, label=label)
        if len(members) > 1:
            axes.fill_between(grid * scale, low, high, color=colour, alpha=0.2)
    if map_name in PAPER_FULLYCONV:
        axes.axhline(
            PAPER_FULLYCONV[map_name], color="grey", linestyle="--", linewidth=1, label="SC2LE FullyConv"
        )
    axes.set_title(map_name)
    axes.set_xlabel("env steps" if x == "steps" else "wall time (hours)")
    axes.set_ylabel(f"episode score (mean of last {window})")
    axes.grid(alpha=0.3)
    # Below the axes: labels naming settings are long, and inside they would hide the curves.
    axes.legend(fontsize="small", loc="upper center", bbox_to_anchor=(0.5, -0.24))


def plot(runs: Sequence[Run], out: str | Path, window: int = 100, x: str = "steps") -> list[Path]:
    """Write <out>/<map>.png for every map, and <out>/all.png with one panel per map when there are several."""
    import matplotlib

    matplotlib.use("Agg")  # files only: no display needed
    import matplotlib.pyplot as plt

    if not runs:
        raise ValueError("no runs to plot: no directory with config.json and episodes.csv was found")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    grouped = groups(runs)
    maps = list(dict.fromkeys(group.map for group in grouped))
    written = []
    for name in maps:
        figure, axes = plt.subplots(figsize=(6, 4), layout="constrained")
        _draw(axes, name, grouped, window, x)
        written.append(out / f"{name}.png")
        figure.savefig(written[-1], dpi=120)
        plt.close(figure)
    if len(maps) > 1:
        columns = min(3, len(maps))
        rows = -(-len(maps) // columns)
        figure, grid = plt.subplots(
            rows, columns, figsize=(6 * columns, 4.5 * rows), layout="constrained", squeeze=False
        )
        for axes, name in zip(grid.flat, maps):
            _draw(axes, name, grouped, window, x)
        for axes in list(grid.flat)[len(maps) :]:
            axes.set_visible(False)
        written.append(out / "all.png")
        figure.savefig(written[-1], dpi=100)
        plt.close(figure)
    return written


def table(runs: Sequence[Run], window: int = 100) -> str:
    """A Markdown table: per group, the env steps every seed reached and the final score (the mean of each
    seed's last `window` episodes; mean ± std over seeds)."""
    lines = ["| map | run | seeds | env steps | final score |", "|---|---|---|---|---|"]
    for group, members in groups(runs).items():
        finals = np.array([r.scores[-window:].mean() for r in members])
        steps = min(int(r.steps[-1]) for r in members)
        score = f"{finals.mean():.1f}" + (f" ± {finals.std():.1f}" if len(finals) > 1 else "")
        lines.append(f"| {group.map} | {group.label} | {len(members)} | {steps:,} | {score} |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m sc2env.baselines.plot", description=__doc__.splitlines()[0])
    p.add_argument("roots", nargs="+", help="run directories, or folders holding them (e.g. runs)")
    p.add_argument("--out", default="plots", help="folder for the PNGs (default: plots)")
    p.add_argument("--window", type=int, default=100, help="episodes averaged at each point (default: 100)")
    p.add_argument("--x", choices=("steps", "wall"), default="steps", help="x axis: env steps or wall time")
    p.add_argument("--table", action="store_true", help="print the final scores as a Markdown table")
    args = p.parse_args(argv)
    if args.window < 1:
        p.error("--window must be at least 1")
    try:
        runs = load_runs(args.roots)
        for path in plot(runs, args.out, args.window, args.x):
            print(path)
    except (FileNotFoundError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if args.table:
        print(table(runs, args.window))
    return 0


if __name__ == "__main__":
    sys.exit(main())
