"""Read a file a user named without hanging or filling memory: regular files only, and at most a cap.

Why: `open(path).read()` blocks for ever on a FIFO (or /dev/stdin) and reads /dev/zero until memory runs
out. Both the client (replays, map files and mini-game definitions it sends to the game) and the built-in
engine (replay paths, definition folders) read files they are given, with the caps below.
"""

from __future__ import annotations

import errno
import os
import stat
from typing import BinaryIO

MAX_REPLAY_BYTES = 256 << 20
"""The largest replay file sc2env reads, client and engine alike: real .SC2Replay files are a few MB, and the
built-in engine's a few kB a minute of play."""
MAX_MAP_BYTES = 256 << 20
"""The largest map file (.SC2Map) the client reads and sends to the game; real maps are tens of MB at most."""
MAX_DEFINITION_BYTES = 16 << 20
"""The largest mini-game definition (JSON) the client or the engine reads; the shipped ones are a few kB."""

_NOT_REGULAR = (
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)
_CHUNK = 1 << 20


def read_regular_file(path: str | os.PathLike[str], limit: int) -> bytes:
    """The bytes of `path` (symbolic links followed), a regular file of at most `limit` bytes.

    Raises OSError as `open_regular_file` does, also for a file that grows past `limit` while it is read.
    """
    with open_regular_file(path, limit) as file:
        size = os.fstat(file.fileno()).st_size
        data = file.read(min(size, limit) + 1)  # one byte more than the size tells whether it has grown
        while len(data) <= limit:  # it grew since (or is a /proc file, whose size reads as 0)
            more = file.read(min(_CHUNK, limit + 1 - len(data)))
            if not more:
                return data
            data += more
    raise _too_large(len(data), limit, path, "or more")


def open_regular_file(path: str | os.PathLike[str], limit: int | None = None) -> BinaryIO:
    """`path` (symbolic links followed) opened for reading in binary, if it is a regular file of at most
    `limit` bytes (None: any size).

    Raises OSError, whose `strerror` says what is wrong in words: FileNotFoundError, IsADirectoryError,
    PermissionError; EINVAL for a FIFO, device or socket (never opened in a way that blocks, never read);
    EFBIG for a file larger than `limit` (refused from its size before anything is read).
    """
    _check(os.stat(path), limit, path)
    # O_NONBLOCK: if the path became a FIFO since the stat, the open returns at once and fstat refuses it.
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    file = open(os.open(path, flags), "rb")  # noqa: SIM115 (returned open)
    try:
        _check(os.fstat(file.fileno()), limit, path)
    except BaseException:
        file.close()
        raise
    return file


def describe_size(size: int) -> str:
    """A byte count as people read it: "812 bytes", "3.0 MiB", "1.5 GiB"."""
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if size >= 1 << shift:
            return f"{size / (1 << shift):.1f} {unit}"
    return f"{size} bytes"


def _check(info: os.stat_result, limit: int | None, path: str | os.PathLike[str]) -> None:
    """Nothing for a regular file of at most `limit` bytes; OSError for anything else."""
    if stat.S_ISDIR(info.st_mode):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), os.fspath(path))
    if not stat.S_ISREG(info.st_mode):
        kind = next((name for test, name in _NOT_REGULAR if test(info.st_mode)), "a special file")
        raise OSError(errno.EINVAL, f"it is {kind}, not a regular file", os.fspath(path))
    if limit is not None and info.st_size > limit:
        raise _too_large(info.st_size, limit, path)


def _too_large(size: int, limit: int, path: str | os.PathLike[str], more: str = "") -> OSError:
    return OSError(
        errno.EFBIG,
        f"it is {describe_size(size)}{' ' + more if more else ''}, larger than the {describe_size(limit)} "
        "sc2env reads for a file of its kind",
        os.fspath(path),
    )
