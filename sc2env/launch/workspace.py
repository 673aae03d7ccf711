"""A game process's private temp dir and port, and removal of temp dirs whose owner was killed."""

from __future__ import annotations

import os
import pathlib
import re
import shutil
import tempfile

import portpicker

_PREFIX = "sc2env-"
# The owner's pid is part of the name, so a later sc2env process can tell a killed owner's dir.
_OWNED = re.compile(rf"^{_PREFIX}(\d+)-")


def make_temp_dir() -> pathlib.Path:
    """A fresh temp dir for one game process (its -tempDir and its output log)."""
    return pathlib.Path(tempfile.mkdtemp(prefix=f"{_PREFIX}{os.getpid()}-"))


def remove_temp_dir(path: pathlib.Path) -> None:
    shutil.rmtree(path, ignore_errors=True)


def sweep_orphaned_temp_dirs(base: str | os.PathLike[str] | None = None) -> list[pathlib.Path]:
    """Remove sc2env temp dirs whose owning process no longer exists; the paths removed.

    close() and interpreter exit remove a process's temp dir; an owner killed with SIGKILL cannot, so
    every launch sweeps what such owners left behind. Its game died with it (parent-death signal).
    """
    base_dir = pathlib.Path(base or tempfile.gettempdir())
    removed = []
    try:
        entries = list(os.scandir(base_dir))
    except OSError:
        return removed
    for entry in entries:
        match = _OWNED.match(entry.name)
        if match and entry.is_dir(follow_symlinks=False) and not _alive(int(match.group(1))):
            remove_temp_dir(pathlib.Path(entry.path))
            removed.append(pathlib.Path(entry.path))
    return removed


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
