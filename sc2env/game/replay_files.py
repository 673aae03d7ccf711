"""Replay files: write a match's replay under a fresh name, read one's bytes, and the error for both."""

from __future__ import annotations

import datetime
import os
import pathlib

from sc2env import errors
from sc2env.safefile import MAX_REPLAY_BYTES, read_regular_file

REPLAY_SUFFIX = ".SC2Replay"


class ReplayError(errors.SC2EnvError):
    """A replay that can't be read or watched: a missing or unreadable file, or one the game refused."""


def write_replay(data: bytes, replay_dir: str | os.PathLike[str], prefix: str) -> pathlib.Path:
    """Write replay bytes to `replay_dir/<prefix>_<UTC time>.SC2Replay` (made if missing); returns the path.

    The name never replaces a file: several envs saving in the same microsecond get `-1`, `-2`, ... added.
    """
    if not data:
        raise ReplayError(
            "the game returned an empty replay: this game (or its version) does not record replays"
        )
    if "/" in prefix or os.sep in prefix:
        raise ReplayError(
            f"the replay's file name prefix {prefix!r} has a path separator: give the folder as "
            f"replay_dir and a plain name as prefix"
        )
    folder = pathlib.Path(replay_dir).expanduser()
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise ReplayError(
            f"replay_dir {folder} is a file, not a folder: give a folder for the replays"
        ) from None
    except OSError as error:
        raise ReplayError(f"cannot make the replay folder {folder}: {error.strerror or error}") from error
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H-%M-%S.%f")
    stem = f"{prefix}_{stamp}" if prefix else stamp
    for attempt in range(1000):
        path = folder / f"{stem}{'' if attempt == 0 else f'-{attempt}'}{REPLAY_SUFFIX}"
        try:
            with open(path, "xb") as file:
                file.write(data)
            return path
        except FileExistsError:
            continue
        except BaseException as error:  # a partial file is no replay (disk full, Ctrl-C): leave none behind
            path.unlink(missing_ok=True)
            if isinstance(error, OSError):
                raise ReplayError(f"cannot write the replay {path}: {error.strerror or error}") from error
            raise
    raise ReplayError(f"could not find a free file name for {stem}{REPLAY_SUFFIX} in {folder}")


def read_replay(replay: str | os.PathLike[str] | bytes) -> bytes:
    """A replay's bytes: `replay` is its path, or already its bytes."""
    if isinstance(replay, (bytes, bytearray, memoryview)):
        data = bytes(replay)
        where = "the replay data"
    else:
        path = pathlib.Path(replay).expanduser()
        where = str(path)
        try:
            data = read_regular_file(path, MAX_REPLAY_BYTES)
        except FileNotFoundError:
            raise ReplayError(f"no replay at {path}: give the path of a {REPLAY_SUFFIX} file") from None
        except IsADirectoryError:
            raise ReplayError(f"{path} is a folder: give the path of a {REPLAY_SUFFIX} file in it") from None
        except OSError as error:
            raise ReplayError(
                f"could not read the replay {path}: {error.strerror or error}; give the path of a "
                f"{REPLAY_SUFFIX} file"
            ) from None
    if not data:
        raise ReplayError(
            f"{where} is empty: it is no replay (a game that does not record replays wrote it?)"
        )
    return data
