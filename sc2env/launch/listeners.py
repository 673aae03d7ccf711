"""Who listens on a TCP port (Linux /proc), so a launch never takes another program's game for its own."""

from __future__ import annotations

import enum
import os

_TABLES = ("/proc/net/tcp", "/proc/net/tcp6")
_LISTEN = "0A"  # TCP_LISTEN, as /proc/net/tcp writes the state


class Listener(enum.Enum):
    NONE = "nothing listens on the port yet"
    OURS = "the process group listens on the port"
    FOREIGN = "another process listens on the port"
    UNKNOWN = "cannot tell (no /proc)"


def port_listener(port: int, group: int) -> Listener:
    """Who holds the socket listening on `port`: process group `group` (a child we started in its own
    session, or anything it started), another process, nobody yet, or UNKNOWN where /proc cannot say."""
    inodes = _listening_inodes(port)
    if inodes is None:
        return Listener.UNKNOWN
    if not inodes:
        return Listener.NONE
    # The leader first: a game listens itself, and a wrapper script's game is found by the group scan.
    held = _socket_inodes(group)
    if held is None:
        return Listener.UNKNOWN
    if held & inodes or any(other & inodes for other in _group_sockets(group)):
        return Listener.OURS
    return Listener.FOREIGN


def _listening_inodes(port: int) -> set[int] | None:
    """The inodes of the sockets listening on `port` (IPv4 and IPv6), or None where no table is readable."""
    needle = f":{port:04X} "
    found: set[int] = set()
    readable = False
    for table in _TABLES:
        try:
            with open(table, encoding="ascii") as rows:
                lines = rows.readlines()
        except OSError:
            continue
        readable = True
        for line in lines:
            if needle not in line:  # most rows: the cheap test first, on machines with many connections
                continue
            fields = line.split()
            # sl, local address, remote address, state, queues, timer, retransmits, uid, timeout, inode
            if len(fields) > 9 and fields[3] == _LISTEN and fields[1].endswith(needle.rstrip()):
                found.add(int(fields[9]))
    return found if readable else None


def _socket_inodes(pid: int) -> set[int] | None:
    """The inodes of the sockets process `pid` holds, or None if its descriptors cannot be read."""
    fd_dir = f"/proc/{pid}/fd"
    try:
        names = os.listdir(fd_dir)
    except OSError:
        return None
    inodes = set()
    for name in names:
        try:
            target = os.readlink(f"{fd_dir}/{name}")
        except OSError:  # closed meanwhile
            continue
        if target.startswith("socket:["):
            inodes.add(int(target[8:-1]))
    return inodes


def _group_sockets(group: int):
    """The socket inodes of each other process in process group `group`."""
    try:
        pids = [int(name) for name in os.listdir("/proc") if name.isdigit() and int(name) != group]
    except OSError:
        return
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat", encoding="utf-8", errors="replace") as stat:
                # pid (comm) state ppid pgrp ...: comm may hold spaces and parentheses, so split after it
                pgrp = int(stat.read().rsplit(")", 1)[1].split()[2])
        except (OSError, IndexError, ValueError):
            continue
        if pgrp == group:
            held = _socket_inodes(pid)
            if held:
                yield held
