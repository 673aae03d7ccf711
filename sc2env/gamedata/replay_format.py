"""How a replay file starts: sc2env's own format, and StarCraft II's (an MPQ archive). Shared by the engine,
which reads replays, and the client side, which tells a replay file from any other before a game starts."""

from __future__ import annotations

SC2ENV_MAGIC = b"sc2env-replay/"
"""An sc2env replay starts with it, the format version in ASCII digits and a newline: b"sc2env-replay/1\\n"."""
MPQ_HEADERS = (b"MPQ\x1a", b"MPQ\x1b")
"""A StarCraft II replay (.SC2Replay) is an MPQ archive: its header, or a user-data header before it."""


def is_replay(head: bytes) -> bool:
    """Whether bytes start as a replay does (sc2env's or StarCraft II's); what follows is the game's to judge."""
    return head.startswith(SC2ENV_MAGIC) or head[:4] in MPQ_HEADERS
