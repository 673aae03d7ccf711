"""SpinWait: polls a socket briefly, backs off after misses, and never polls when off."""

from __future__ import annotations

import socket
import threading

import pytest

from sc2env.spinwait import SpinWait

# Tests of the window itself don't count slow yields as contention: on a busy test machine they happen.
PATIENT = float("inf")


@pytest.fixture
def pair():
    a, b = socket.socketpair()
    yield a, b
    a.close()
    b.close()


def test_readable_socket_is_seen_at_once(pair):
    reader, writer = pair
    writer.send(b"x")
    assert SpinWait(10.0).wait(reader.fileno()) is True  # a 10 s window: returning means it saw the byte


def test_any_of_several_sockets_ends_the_wait(pair):
    quiet, _ = socket.socketpair()
    reader, writer = pair
    writer.send(b"x")
    try:
        assert SpinWait(10.0).wait(quiet.fileno(), reader.fileno()) is True
        assert (
            SpinWait(10.0).wait(reader.fileno(), -1) is False
        )  # a closed one among them: left to its reader
    finally:
        quiet.close()


def test_bytes_arriving_during_the_window_end_the_wait(pair):
    reader, writer = pair
    timer = threading.Timer(0.01, writer.send, (b"x",))
    timer.start()
    try:
        assert SpinWait(10.0, PATIENT).wait(reader.fileno()) is True
    finally:
        timer.cancel()


class FakeClock:
    """Stands in for the time module in sc2env.spinwait: each reading is `tick` seconds after the last."""

    def __init__(self, tick: float):
        self.now, self.tick = 0.0, tick

    def perf_counter(self) -> float:
        self.now += self.tick
        return self.now


def test_a_miss_lasts_the_window_then_backs_off_exponentially(pair, monkeypatch):
    reader, _ = pair
    clock = FakeClock(0.0001)
    monkeypatch.setattr("sc2env.spinwait.time", clock)
    spin = SpinWait(0.002, PATIENT)
    assert spin.wait(reader.fileno()) is False
    assert clock.now >= 0.002  # it polled until the window was over
    skipped = []
    for _ in range(4):  # each miss skips twice as many of the waits after it: 1, 2, 4, 8
        n = 0
        while spin._skip:
            assert spin.wait(reader.fileno()) is False
            n += 1
        skipped.append(n)
        assert spin.wait(reader.fileno()) is False  # spins again, and misses again
    assert skipped == [1, 2, 4, 8]


def test_a_hit_restores_spinning_at_once(pair):
    reader, writer = pair
    spin = SpinWait(0.001)
    for _ in range(3):
        assert not spin.wait(reader.fileno())
        while spin._skip:
            spin.wait(reader.fileno())
    writer.send(b"x")
    assert spin.wait(reader.fileno()) is True
    reader.recv(1)
    assert not spin.wait(reader.fileno()) and spin._skip == 1  # the backoff started over


def test_a_contended_core_ends_the_wait_and_backs_off(pair, monkeypatch):
    reader, _ = pair
    yields = []
    monkeypatch.setattr("sc2env.spinwait._yield_cpu", lambda: yields.append(1))
    monkeypatch.setattr("sc2env.spinwait.time", FakeClock(0.001))
    spin = SpinWait(10.0, contended_s=0.0)  # every yield counts as another process having run
    assert spin.wait(reader.fileno()) is False
    assert len(yields) == 1 and spin._skip == 1  # after the first yield, long before the 10 s window


def test_window_zero_never_polls(pair):
    reader, writer = pair
    writer.send(b"x")
    assert SpinWait(0).wait(reader.fileno()) is False


def test_a_closed_socket_is_left_to_its_reader():
    assert SpinWait(10.0).wait(-1) is False  # at once: no poll of an invalid descriptor


@pytest.mark.parametrize("window", [-0.001, float("nan")])
def test_bad_windows_are_refused(window):
    with pytest.raises(ValueError, match="spin-wait window"):
        SpinWait(window)
