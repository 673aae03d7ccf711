"""Ctrl-C and SIGTERM: how a command stops on them, holds them while a file is finished, and reports them."""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from types import FrameType


class Terminated(KeyboardInterrupt):
    """SIGTERM, handled like Ctrl-C (the games are closed on the way out) but reported as itself."""


def interrupt(signum: int, frame: FrameType | None) -> None:
    """The SIGTERM handler of a command: stop as Ctrl-C does."""
    raise stop_for(signum)


def stop_for(signum: int) -> KeyboardInterrupt:
    """Ctrl-C as itself; another signal (SIGTERM) as Terminated, naming it."""
    return (
        KeyboardInterrupt()
        if signum == signal.SIGINT
        else Terminated(f"terminated by {signal.Signals(signum).name}")
    )


def stopped_by(stop: KeyboardInterrupt) -> str:
    """What stopped the command, in a few words."""
    return str(stop) if isinstance(stop, Terminated) else "interrupted"


def exit_code(stop: KeyboardInterrupt) -> int:
    """128 + the signal's number, as shells report it: 130 for Ctrl-C, 143 for SIGTERM."""
    return 128 + (signal.SIGTERM if isinstance(stop, Terminated) else signal.SIGINT)


@contextlib.contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """SIGTERM stops the command as Ctrl-C does, while inside: `timeout`, job schedulers and containers stop
    jobs with it, and the games must be closed on the way out. Left alone where a program set its own."""
    ours = (
        signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
        and threading.current_thread() is threading.main_thread()
    )
    if ours:
        signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        if ours:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)


@contextlib.contextmanager
def signals_held(doing: str | None = None) -> Iterator[list[int]]:
    """Ctrl-C and SIGTERM (where Python handles them) wait while inside; yields the signals held.

    Why: an interrupt that lands while imageio-ffmpeg writes a frame makes it kill its encoder, and the video
    is left unplayable. A second signal acts at once (a write may be stuck on a hung encoder). Without
    `doing` a held signal acts at the end, a frame later than it came; with it (finishing a file the user
    waits for) the first is announced with that word and left to the caller, who has the file to finish.
    """
    held: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield held
        return
    previous: dict[int, Callable[[int, FrameType | None], object]] = {}

    def hold(signum: int, frame: FrameType | None) -> None:
        held.append(signum)
        if len(held) > 1:
            previous[signum](signum, frame)
        elif doing is not None:
            print(f"\nsc2env: {doing} ({signal.Signals(signum).name} again abandons it)", file=sys.stderr)

    for signum in (signal.SIGINT, signal.SIGTERM):
        handler = signal.getsignal(signum)
        if callable(handler):  # SIG_DFL, SIG_IGN or a handler set outside Python: left alone
            previous[signum] = handler
            signal.signal(signum, hold)
    try:
        yield held
    finally:
        for held_signal, handler in previous.items():
            signal.signal(held_signal, handler)
    if len(held) == 1 and doing is None:  # (not when the block raised: a second signal already acted)
        previous[held[0]](held[0], None)


def held_stop(signals: list[int]) -> KeyboardInterrupt | None:
    """The stop a signal held while a file was finished stands for (Ctrl-C or SIGTERM), if one was."""
    return stop_for(signals[0]) if signals else None
