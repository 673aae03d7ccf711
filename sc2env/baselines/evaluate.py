"""Score a trained PPO run's policy over a set number of fresh episodes: the final figure docs/baselines.md reports.

Training logs score the episodes a run played while it learned, each by a slightly different policy. This
plays the checkpoint's policy alone, frozen, on the same seeded games for every run: every game plays the same
number of whole episodes from its reset (so that short episodes are not over-counted, as taking the first N
to end would), with actions sampled as in training or, with `--greedy`, the most likely call. `--untrained`
plays the policy the run started from instead (its seed's initial weights): what training added is the
difference.

    python -m sc2env.baselines.evaluate runs/DefeatRoaches__full__s1 --episodes 100

writes `evaluation-sampled.json` (`evaluation-greedy.json`, `evaluation-untrained-sampled.json`, ...) into
the run's directory and prints its mean.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch

from sc2env.baselines.ppo import (
    CHECKPOINT_FORMAT,
    PPOConfig,
    initial_agent,
    inputs,
    make_envs,
    sample_actions,
)
from sc2env.baselines.runs import load_checkpoint

EVALUATION_SEED = 10_000_000  # one fixed seed, so that runs are compared on the same games


@dataclasses.dataclass(frozen=True)
class Evaluation:
    """A frozen policy's scores over whole episodes."""

    run_dir: str
    global_step: int  # 0 for the untrained policy
    greedy: bool
    untrained: bool
    seed: int
    scores: tuple[float, ...]
    lengths: tuple[int, ...]
    invalid_actions: tuple[int, ...]

    @property
    def mean(self) -> float:
        return statistics.fmean(self.scores)

    @property
    def sd(self) -> float:
        return statistics.pstdev(self.scores)

    @property
    def file_name(self) -> str:
        return f"evaluation-{'untrained-' if self.untrained else ''}{'greedy' if self.greedy else 'sampled'}.json"

    def to_json(self) -> dict[str, Any]:
        return {**dataclasses.asdict(self), "episodes": len(self.scores), "mean": self.mean, "sd": self.sd}

    def summary(self) -> str:
        policy = ("untrained, " if self.untrained else "") + ("greedy" if self.greedy else "sampled")
        return (
            f"{self.run_dir}: step {self.global_step:,}, {len(self.scores)} episodes ({policy}): "
            f"mean {self.mean:.1f}, sd {self.sd:.1f}, min {min(self.scores):g}, max {max(self.scores):g}"
        )


def quotas(episodes: int, num_envs: int) -> np.ndarray:
    """Whole episodes each game plays: `episodes` split as evenly as possible."""
    return np.array([episodes // num_envs + (i < episodes % num_envs) for i in range(num_envs)])


def evaluate_run(
    run_dir: str | Path,
    episodes: int = 100,
    *,
    greedy: bool = False,
    untrained: bool = False,
    seed: int = EVALUATION_SEED,
    num_envs: int | None = None,
) -> Evaluation:
    """Play the checkpoint's policy in `run_dir` (with `untrained`, the policy the run started from) for
    `episodes` whole episodes and return their scores."""
    if episodes < 1:
        raise ValueError(f"episodes must be at least 1, not {episodes}")
    checkpoint = load_checkpoint(Path(run_dir), CHECKPOINT_FORMAT)
    saved = checkpoint["config"]
    config = PPOConfig(**{**saved, "num_envs": min(num_envs or saved["num_envs"], episodes)})
    torch.set_num_threads(config.threads)
    want = quotas(episodes, config.num_envs)
    done_count = np.zeros(config.num_envs, int)
    scores: list[float] = []
    lengths: list[int] = []
    invalid: list[int] = []
    returns = np.zeros(config.num_envs)
    steps = np.zeros(config.num_envs, int)
    wrong = np.zeros(config.num_envs, int)
    generator = None if greedy else torch.Generator().manual_seed(seed)
    envs = make_envs(config)
    try:
        spec = envs.action_spec
        agent = initial_agent(config, spec)
        if not untrained:
            agent.load_state_dict(checkpoint["model"])
        agent.eval()
        functions = int(spec.nvec[0])
        obs, _ = envs.reset(seed=seed)
        while (done_count < want).any():
            with torch.no_grad():
                logits, _ = agent(*inputs(obs, functions))
            actions, _ = sample_actions(
                logits, obs["action_mask"] != 0, config.masks, spec, generator, obs.get("screen_target_masks")
            )
            obs, reward, terminated, truncated, info = envs.step(actions)
            returns += reward
            steps += 1
            wrong += info["invalid_action"].astype(int)
            for i in np.flatnonzero(terminated | truncated):
                if (
                    done_count[i] < want[i]
                ):  # a game past its quota plays on unrecorded until the others finish
                    scores.append(float(returns[i]))
                    lengths.append(int(steps[i]))
                    invalid.append(int(wrong[i]))
                    done_count[i] += 1
                returns[i], steps[i], wrong[i] = 0.0, 0, 0
    finally:
        envs.close()
    return Evaluation(
        str(run_dir),
        0 if untrained else int(checkpoint["global_step"]),
        greedy,
        untrained,
        seed,
        tuple(scores),
        tuple(lengths),
        tuple(invalid),
    )


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m sc2env.baselines.evaluate",
        description="Score PPO runs' checkpoints over whole fresh episodes.",
    )
    p.add_argument("run_dirs", nargs="+", metavar="RUN_DIR", help="a run directory holding checkpoint.pt")
    p.add_argument("--episodes", type=int, default=100, help="whole episodes to score (default: 100)")
    p.add_argument("--greedy", action="store_true", help="play the most likely call instead of sampling")
    p.add_argument(
        "--untrained", action="store_true", help="play the run's starting policy (its seed's initial weights)"
    )
    p.add_argument("--seed", type=int, default=EVALUATION_SEED, help="games' and sampling's seed")
    p.add_argument("--num-envs", type=int, help="games side by side (default: the run's)")
    p.add_argument("--no-write", dest="write", action="store_false", help="print only: write no JSON file")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    for run_dir in args.run_dirs:
        try:
            result = evaluate_run(
                run_dir,
                args.episodes,
                greedy=args.greedy,
                untrained=args.untrained,
                seed=args.seed,
                num_envs=args.num_envs,
            )
        except (ValueError, FileNotFoundError) as error:
            print(f"error: {run_dir}: {error}", file=sys.stderr)
            return 2
        print(result.summary(), flush=True)
        if args.write:
            (Path(run_dir) / result.file_name).write_text(json.dumps(result.to_json(), indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
