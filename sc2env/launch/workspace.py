"""A game process's private temp dir and port, and removal of temp dirs whose owner was killed."""

from __future__ import annotations

import contextlib
import os
import pathlib
import re
import shutil
import tempfile
from typing import BinaryIO

import portpicker

try:
    import fcntl
except ImportError:  # not POSIX: owners are told apart by pid alone
    fcntl = None  # type: ignore[assignment]  # the module, or None where there is none

_PREFIX = "sc2env-"
# The owner's pid is part of the name, so a later sc2env process can tell a killed owner's dir.
_OWNED = re.compile(rf"^{_PREFIX}(\d+)-")
LOG_NAME = "output.log"


def make_temp_dir() -> tuple[pathlib.Path, BinaryIO]:
    """A fresh temp dir for one game process (its -tempDir) and its output log, open and locked.

    The lock (flock, released when the owner and its game have both gone) tells any sc2env process sharing
    the temp dir that the dir is in use, whichever pid namespace it lives in: a pid can be unknown there, or
    another process's. The dir takes its final name only once the lock is held.
    """
    staging = pathlib.Path(tempfile.mkdtemp(prefix=f".{_PREFIX}{os.getpid()}-"))
    log = None
    try:
        log = open(staging / LOG_NAME, "ab+")  # noqa: SIM115 - the caller closes it after remove_temp_dir()
        if fcntl is not None:
            # A file system without locks (ENOLCK): the owner's pid alone tells then.
            with contextlib.suppress(OSError):
                fcntl.flock(log, fcntl.LOCK_EX | fcntl.LOCK_NB)
        path = staging.with_name(staging.name[1:])
        staging.rename(path)
    except BaseException:
        if log is not None:
            log.close()
        remove_temp_dir(staging)
        raise
    return path, log


def remove_temp_dir(path: pathlib.Path) -> None:
    shutil.rmtree(path, ignore_errors=True)


def sweep_orphaned_temp_dirs(base: str | os.PathLike[str] | None = None) -> list[pathlib.Path]:
    """Remove sc2env temp dirs whose owning process no longer exists; the paths removed.

    close() and interpreter exit remove a process's temp dir; an owner killed with SIGKILL cannot, so
    every launch sweeps what such owners left behind. Its game died with it (parent-death signal).
    """
    base_dir = pathlib.Path(base or tempfile.gettempdir())
    removed: list[pathlib.Path] = []
    try:
        entries = list(os.scandir(base_dir))
    except OSError:
        return removed
    for entry in entries:
        match = _OWNED.match(entry.name)
        if (
            match
            and entry.is_dir(follow_symlinks=False)
            and not _in_use(pathlib.Path(entry.path), int(match.group(1)))
        ):
            remove_temp_dir(pathlib.Path(entry.path))
            removed.append(pathlib.Path(entry.path))
    return removed


def _in_use(path: pathlib.Path, pid: int) -> bool:
    """Whether a temp dir's owner (or its game) may still be using it: its owner's pid is alive here, or its
    log is locked (an owner in another pid namespace, whose pid means nothing here)."""
    if _alive(pid):
        return True
    if fcntl is None:
        return False
    try:
        with open(path / LOG_NAME, "rb") as log:
            fcntl.flock(log, fcntl.LOCK_EX | fcntl.LOCK_NB)  # let go when closed
    except FileNotFoundError:
        return False  # no log: nothing of a live owner's
    except OSError:  # held (BlockingIOError), or unreadable: not ours to remove
        return True
    return False


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: alive, and not ours to judge
        return True
    return True


def pick_port() -> int:
    """A free TCP port; portpicker never hands the same one out twice until it is returned."""
    return portpicker.pick_unused_port()


def port_is_free(port: int) -> bool:
    """Whether nothing listens on (or holds) `port` now."""
    return bool(portpicker.is_port_free(port))


def return_port(port: int) -> None:
    portpicker.return_port(port)
