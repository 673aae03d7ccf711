"""The built-in engine's limits: what one request, one map definition or one connection may cost.

Every limit lives here, so the checks that enforce them, their error messages and docs/engine.md agree.
The connection limits are defaults of the engine's command line (`python -m sc2env.engine --help`); the
others are fixed, chosen far above what any mini-game or agent needs and low enough that no single request
keeps the single-threaded engine busy for more than seconds.
"""

from __future__ import annotations

from dataclasses import dataclass

# ---- one map definition -------------------------------------------------------------------------------
MAX_MAP_SIDE = 256
"""Cells a side of a map (the largest StarCraft II map)."""
MAX_SPAWN_COUNT = 5000
"""Units one spawn action may create."""
MAX_UNITS = 10_000
"""Units alive at once: a script that would pass it stops with an error naming its action. (Placing them at
join_game takes about half a millisecond of CPU each: benchmarks/spawn_placement.py.)"""
MAX_SCRIPT_DEPTH = 32
"""Nesting of a map script's actions: `if`, `random` and `run` (a procedure) inside one another."""
MAX_RESOURCES = 1_000_000_000
"""The most minerals (or vespene) a player may hold, and a script give or set at once (they travel as
uint32)."""
MAX_SCORE = 1 << 30
"""The most score a script may add or set at once; the score itself stays within int32, as it travels."""


# ---- one request --------------------------------------------------------------------------------------
MAX_STEP_LOOPS = 1 << 16
"""Game loops one RequestStep may ask for (about 49 minutes of game time at "faster" speed); a recorded step
of a replay is bounded alike. A map that runs a trigger every loop costs ~50-200 us a loop: seconds at most."""
MAX_ACTIONS = 4096
"""Actions in one RequestAction (a multi-agent client sends one per unit: SMAC's biggest maps have ~100)."""
MAX_QUERY_ITEMS = 4096
"""Items (pathing, abilities and placements together) in one RequestQuery."""
MAX_RESOLUTION = 1024
"""Pixels a side of a feature layer or RGB render (screen or minimap). Every layer and an RGB render at
1024x1024 make a 50 MB observation that takes about a second; at 4096x4096 it was 600 MB."""
MAX_OBSERVERS = 4
"""Observers one two-player game seats (PlayerSetup of type Observer): each is an engine process and a
link that every game loop waits for."""
MAX_CAMERA_WIDTH = MAX_MAP_SIDE
"""World units the screen may span (InterfaceOptions.*.width): the largest map's side."""
WORK_CHECK_S = 0.25
"""How often (seconds of work) a long step checks that its client is still there to take the answer."""


# ---- one connection -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class ConnectionLimits:
    """What the websocket server allows one client (the engine's command line sets them).

    max_message_bytes: the largest request (a whole message, across its fragments); a bigger one closes the
      connection with 1009 "message too big" before it is read. create_game's map_data and start_replay's
      replay_data are the big ones: a mini-game definition is a few kB, a replay a few kB a minute.
    message_timeout_s: seconds a request may take to arrive once its first byte has (a client that sends half
      a frame and stalls would hold the one client slot for ever); None waits for ever.
    idle_timeout_s: seconds a connected client may send nothing before it is dropped; None (the default)
      never drops an idle client (an agent's learner may pause between steps for minutes).
    send_timeout_s: seconds an answer may wait for a client that does not read it; None waits for ever.
    """

    max_message_bytes: int = 64 << 20
    message_timeout_s: float | None = 60.0
    idle_timeout_s: float | None = None
    send_timeout_s: float | None = 60.0
