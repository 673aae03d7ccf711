"""What the World's behaviour columns hold, each family in one place: combat modes (World.mode), worker phases
(World.phase) and cargo kinds (World.cargo_kind).

They are classes of plain int constants rather than IntEnums: numpy compares a column with a plain int several
times faster than with an IntEnum member (an int subclass takes its slow path), and the hot paths do that on
every batch of loops.
"""

from __future__ import annotations


class CombatMode:
    """What a unit's current order lets its weapon do (World.mode)."""

    PASSIVE = 0  # nothing: moving, harvesting, building, or no weapon at all
    IDLE = 1  # acquires what comes within scan range, chases it up to the leash, fights back
    ATTACK_MOVE = 2  # acquires on the way to its point (and on patrol)
    ATTACK_UNIT = 3  # attacks its one target
    HOLDING = 4  # Hold Position: fires at what comes within range, never chases


class Phase:
    """A worker's step in harvesting, repairing or constructing (World.phase); NONE otherwise."""

    NONE = 0
    TO_RESOURCE = 1
    WAITING = 2  # at a resource another worker is harvesting
    HARVESTING = 3
    PAUSING = 4  # after harvesting, before it walks back
    RETURNING = 5
    TO_REPAIR = 6
    REPAIRING = 7
    CONSTRUCTING = 8


class Cargo:
    """What a worker carries back (World.cargo_kind)."""

    NONE = 0
    MINERALS = 1
    VESPENE = 2
