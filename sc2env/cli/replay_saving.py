"""--save-replay: each episode's replay saved as it ends, and an account of those that could not be."""

from __future__ import annotations

import dataclasses
import os
import sys
from typing import TYPE_CHECKING

from sc2env.cli.options import UsageError
from sc2env.cli.text import one_line, shown
from sc2env.errors import SC2EnvError

if TYPE_CHECKING:
    from sc2env.env.env import SC2Env

LISTED = 10
"""The most lost replays named one by one (a full disk loses every one after it)."""


@dataclasses.dataclass(frozen=True)
class Saved:
    """What became of one episode's replay: its path, or why it could not be saved."""

    label: str
    episode: int
    finished: bool
    path: str | None = None
    error: str | None = None

    def __str__(self) -> str:
        return f"{self.label} episode {self.episode}" + ("" if self.finished else " (unfinished)")


class ReplaySaver:
    """Saves the replay of each episode as it ends (and of one a stop cut short), and tells which were lost.

    The command saves them itself, rather than through the env's save_replay_episodes: the env saves some at
    the next reset or at close(), where a replay that can't be written is a warning a command can't count.
    """

    def __init__(self, folder: str):
        self.folder = folder
        self.saved: list[Saved] = []

    def make_folder(self) -> None:
        """Make the folder now, so that a run whose replays could not be saved never starts."""
        path = self.folder
        if os.path.exists(path) and not os.path.isdir(path):
            raise UsageError(f"--save-replay {path} is a file, not a folder: give a folder for the replays")
        try:
            os.makedirs(path, exist_ok=True)
        except OSError as error:
            raise UsageError(
                f"--save-replay {path}: cannot make the folder ({error.strerror or error})"
            ) from None
        if not os.access(path, os.W_OK | os.X_OK):
            raise UsageError(f"--save-replay {path}: the folder is not writable; give one of yours")

    def save(self, env: SC2Env, label: str, episode: int, finished: bool = True) -> None:
        """Save the replay of the env's current (or just finished) episode; a failure is kept, not raised."""
        try:
            path = env.save_replay(self.folder)
        except (SC2EnvError, OSError) as error:
            self.saved.append(Saved(label, episode, finished, error=one_line(error)))
        else:
            self.saved.append(Saved(label, episode, finished, path=str(path)))

    @property
    def lost(self) -> list[Saved]:
        return [saved for saved in self.saved if saved.path is None]

    def report(self) -> None:
        """How many replays were saved where, and each lost one with the reason (on stderr)."""
        written = [saved for saved in self.saved if saved.path is not None]
        count = f"{len(written)} of {len(self.saved)}" if self.lost else str(len(written))
        watch = f" (watch one with sc2env replay {shown(written[-1].path or '', None)})" if written else ""
        print(f"replays: {count} saved in {shown(self.folder, None)}{watch}", file=sys.stderr)
        for saved in self.lost[:LISTED]:
            print(f"replays: {saved} not saved: {saved.error}", file=sys.stderr)
        if len(self.lost) > LISTED:
            print(f"replays: {len(self.lost) - LISTED} more not saved", file=sys.stderr)
