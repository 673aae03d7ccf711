"""Brief busy-waits for a socket's next bytes, which keep a fast request/answer ping-pong off the idle path.

Why: a process that sleeps between a game's answers wakes up slowly, and on virtual machines it then runs
its next few hundred microseconds measurably slower too (its core went idle and comes back cold). Measured
on the 2-core development VM: the engine's work per MoveToBeacon step took 390 us when it spun between
steps and 514 us when it slept; one SC2Env went from 740-810 to 960-1,090 steps/s with both ends
spinning. Each poll yields the CPU (sched_yield), so other runnable processes still get it.

The wait adapts: a wait whose window runs out, or whose yield took long because another process ran on
this core (more processes than cores, as with 4 games on 2 cores), makes the next 1, 2, 4, ... 64 waits
block at once; a wait answered within the window restores spinning. A slow peer (a real StarCraft II
step, an agent thinking for milliseconds) or a crowded machine therefore costs next to nothing.
"""

from __future__ import annotations

import os
import select
import time
from collections.abc import Sequence

# Where sched_yield is missing, polling still works; it just doesn't hand the CPU over between polls.
_yield_cpu = getattr(os, "sched_yield", lambda: None)
_MAX_BACKOFF = 64
_CONTENDED_S = 200e-6  # a yield that long: another process had this core (a poll and yield alone take ~2 us)


class SpinWait:
    """Poll file descriptors for up to `window_s` before the caller blocks on them (0 turns spinning off).

    `contended_s`: a yield that takes longer means another process wanted this core.
    """

    def __init__(self, window_s: float, contended_s: float = _CONTENDED_S):
        if not window_s >= 0:
            raise ValueError(f"a spin-wait window must be >= 0 seconds, not {window_s!r}")
        self.window_s = window_s
        self.contended_s = contended_s
        self._skip = 0  # waits left to block without spinning
        self._backoff = 0  # how many to skip after the next miss

    def wait(self, *fds: int) -> bool:
        """True as soon as one of `fds` is readable; False when the window ran out or spinning is off for now."""
        if self.window_s == 0 or min(fds, default=-1) < 0:  # off, or a closed socket (its reader reports it)
            return False
        if self._skip:
            self._skip -= 1
            return False
        end = time.perf_counter() + self.window_s
        poll = poller(fds).poll
        while True:
            if poll(0):
                self._backoff = 0
                return True
            now = time.perf_counter()
            if now >= end:
                break
            _yield_cpu()
            # A yield that took long means another process ran on this core meanwhile: the CPU is wanted
            # elsewhere (more processes than cores), so sleep instead.
            if time.perf_counter() - now > self.contended_s:
                break
        self._backoff = min(max(1, 2 * self._backoff), _MAX_BACKOFF)
        self._skip = self._backoff
        return False


def poller(fds: Sequence[int]) -> select.poll:
    """A poll object watching `fds` for input (or hang-up); unlike select(), poll takes descriptors above
    1023, which a process with many files or sockets open hands out."""
    watch = select.poll()
    for fd in fds:
        watch.register(fd, select.POLLIN)
    return watch
