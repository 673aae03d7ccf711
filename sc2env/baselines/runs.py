"""A training run's directory: CSV logs and TensorBoard events, the checkpoint file, and stop signals."""

from __future__ import annotations

import csv
import os
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import torch

CHECKPOINT = "checkpoint.pt"

EPISODE_COLUMNS = ("global_step", "wall_time", "env", "score", "length", "invalid_actions")
UPDATE_COLUMNS = (
    "global_step", "wall_time", "update", "learning_rate", "policy_loss", "value_loss", "entropy",
    "approx_kl", "clip_fraction", "explained_variance", "invalid_action_rate", "steps_per_second",
)  # fmt: skip


class RunLog:
    """episodes.csv and updates.csv in the run directory, and TensorBoard events beside them. Resumed at a
    checkpoint's step, rows written after it are dropped, as TensorBoard's purge_step drops events."""

    def __init__(self, run_dir: Path, resumed_at: int | None, tensorboard: bool):
        self.files, self.writers = {}, {}
        for name, columns in (("episodes", EPISODE_COLUMNS), ("updates", UPDATE_COLUMNS)):
            path = run_dir / f"{name}.csv"
            rows = _rows_until(path, resumed_at) if resumed_at is not None else []
            self.files[name] = path.open("w", newline="")
            self.writers[name] = csv.writer(self.files[name])
            self.writers[name].writerows([columns, *rows])
        self.tensorboard = None
        if tensorboard:
            try:
                from torch.utils.tensorboard import SummaryWriter
            except ImportError as error:
                raise ImportError(
                    f"TensorBoard logging needs the tensorboard package ({error}): pip install "
                    "'sc2env-rl[train]', or pass --no-tensorboard"
                ) from None
            purge = None if resumed_at is None else resumed_at + 1
            self.tensorboard = SummaryWriter(str(run_dir), purge_step=purge)

    def episode(self, step: int, wall: float, env: int, score: float, length: int, invalid: int) -> None:
        self.writers["episodes"].writerow([step, f"{wall:.1f}", env, score, length, invalid])
        if self.tensorboard:
            self.tensorboard.add_scalar("episode/score", score, step, walltime=None)
            self.tensorboard.add_scalar("episode/length", length, step)

    def update(self, step: int, wall: float, update: int, values: dict[str, float]) -> None:
        self.writers["updates"].writerow(
            [step, f"{wall:.1f}", update, *(f"{values[c]:.6g}" for c in UPDATE_COLUMNS[3:])]
        )
        for file in self.files.values():
            file.flush()
        if self.tensorboard:
            for name, value in values.items():
                self.tensorboard.add_scalar(f"train/{name}", value, step)
            self.tensorboard.flush()

    def close(self) -> None:
        for file in self.files.values():
            file.close()
        if self.tensorboard:
            self.tensorboard.close()


def _rows_until(path: Path, step: int) -> list[list[str]]:
    if not path.exists():
        return []
    with path.open(newline="") as file:
        rows = list(csv.reader(file))[1:]
    return [row for row in rows if row and int(row[0]) <= step]


def save_checkpoint(run_dir: Path, checkpoint: dict[str, Any]) -> Path:
    """Write run_dir/checkpoint.pt under a temporary name first, so that a stop mid-write leaves the last
    checkpoint whole."""
    path = Path(run_dir) / CHECKPOINT
    torch.save(checkpoint, path.with_suffix(".tmp"))
    os.replace(path.with_suffix(".tmp"), path)
    return path


def load_checkpoint(run_dir: Path, format: str) -> dict[str, Any]:
    """A run directory's checkpoint.pt, checked to be of `format` (loaded as plain data: no code runs)."""
    path = Path(run_dir) / CHECKPOINT
    if not path.is_file():
        raise FileNotFoundError(f"{path} does not exist: --resume takes a run directory this trainer wrote")
    checkpoint = torch.load(path, map_location="cpu", weights_only=True)
    if not isinstance(checkpoint, dict) or checkpoint.get("format") != format:
        raise ValueError(f"{path} is not a checkpoint of this trainer ({format})")
    return checkpoint


class Stop:
    """Set by SIGTERM or the first Ctrl-C: the run checkpoints after its update. A second Ctrl-C interrupts."""

    requested = False


@contextmanager
def stop_on_signals() -> Iterator[Stop]:
    """SIGTERM and Ctrl-C set `requested` while the block runs, instead of ending the process at once; the
    handlers in place before are put back after it."""
    stop = Stop()
    if threading.current_thread() is not threading.main_thread():  # only the main thread may handle signals
        yield stop
        return

    def handle(signum: int, frame: Any) -> None:
        if stop.requested and signum == signal.SIGINT:
            raise KeyboardInterrupt
        stop.requested = True
        print(
            f"{signal.Signals(signum).name}: stopping after this update (Ctrl-C again to abort)", flush=True
        )

    previous = {s: signal.signal(s, handle) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield stop
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
