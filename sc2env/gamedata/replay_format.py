"""How a replay file starts: an MPQ archive (.SC2Replay), or sc2env's format 1. Shared by the engine, which
writes and reads replays, and the client side, which tells a replay file from any other before a game starts."""

from __future__ import annotations

SC2ENV_MAGIC = b"sc2env-replay/"
"""sc2env's replay format 1 (still read, no longer written) starts with it and b"1\\n"."""
MPQ_ARCHIVE_MAGIC = b"MPQ\x1a"
MPQ_USER_DATA_MAGIC = b"MPQ\x1b"
MPQ_HEADERS = (MPQ_ARCHIVE_MAGIC, MPQ_USER_DATA_MAGIC)
"""A .SC2Replay (StarCraft II's, and sc2env's from replay format 2 on) is an MPQ archive: the archive's
header, or a user data header before it (where a replay keeps its own header)."""


def is_replay(head: bytes) -> bool:
    """Whether bytes start as a replay does (sc2env's or StarCraft II's); what follows is the game's to judge."""
    return head.startswith(SC2ENV_MAGIC) or head[:4] in MPQ_HEADERS
