"""The engine against fuzzed input, bounded for the suite: Hypothesis, derandomized (the same cases every run),
well under a minute. Random requests in a game, mutated map definitions and replays get answers and never an
internal error; the frame parser takes any byte stream apart as RFC 6455 says; a real engine process goes on
serving after any stream. tools/fuzz_engine.py runs the same generators for as long as asked."""

from __future__ import annotations

import functools
import importlib.util
import math
import os
import pathlib
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sc2env.engine.server import FrameReader, MessageTooBig

TOOL = pathlib.Path(__file__).resolve().parents[2] / "tools" / "fuzz_engine.py"


def _load_fuzzer():
    if "fuzz_engine" not in sys.modules:
        spec = importlib.util.spec_from_file_location("fuzz_engine", TOOL)
        module = importlib.util.module_from_spec(spec)
        sys.modules["fuzz_engine"] = module
        spec.loader.exec_module(module)
    return sys.modules["fuzz_engine"]


fuzz = _load_fuzzer()
BOUNDED = settings(
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
RANDOMS = st.randoms(use_true_random=False)


def no_findings(case, *args) -> None:
    findings = fuzz.Findings()
    case(*args, findings, math.inf)
    assert findings.found == []


@settings(BOUNDED, max_examples=100)
@given(RANDOMS)
def test_random_requests_in_a_game_are_answered_never_with_an_internal_error(rng):
    no_findings(fuzz.requests_case, rng)


@settings(BOUNDED, max_examples=150)
@given(RANDOMS)
def test_mutated_definitions_are_refused_or_played_never_with_an_internal_error(rng):
    no_findings(fuzz.definitions_case, rng)


@functools.lru_cache(maxsize=1)
def recorded() -> bytes:
    return fuzz.recorded_replay()


@settings(BOUNDED, max_examples=100)
@given(RANDOMS)
def test_mutated_replays_are_refused_or_watched_never_with_an_internal_error(rng):
    no_findings(fuzz.replays_case, rng, recorded())


# ---- the frame parser ---------------------------------------------------------------------------------
FRAMES = st.lists(
    st.tuples(
        st.sampled_from([0x1, 0x2, 0x9, 0xA]),  # text, binary, ping, pong: whole frames
        st.binary(max_size=300),
        st.binary(min_size=4, max_size=4),
    ),
    max_size=6,
).map(lambda frames: [(op, p[:125] if op >= 0x8 else p, key) for op, p, key in frames])


def encode(opcode: int, payload: bytes, key: bytes) -> bytes:
    n = len(payload)
    head = bytes((0x80 | opcode,)) + (
        bytes((0x80 | n,)) if n < 126 else bytes((0x80 | 126,)) + n.to_bytes(2, "big")
    )
    return head + key + bytes(b ^ key[i % 4] for i, b in enumerate(payload))


@settings(BOUNDED, max_examples=200)
@given(FRAMES, st.lists(st.integers(min_value=0, max_value=4000), max_size=8))
def test_frames_split_anywhere_come_out_whole_and_in_order(frames, cuts):
    data = b"".join(encode(*frame) for frame in frames)
    reader, out = FrameReader(), []
    start = 0
    for cut in sorted({min(c, len(data)) for c in cuts}) + [len(data)]:
        out += reader.feed(data[start:cut])
        start = cut
    assert [(op, bytes(p)) for op, _, p in out] == [(op, p) for op, p, _ in frames]
    assert all(fin for _, fin, _ in out) and reader.buffered == 0


@settings(BOUNDED, max_examples=300)
@given(st.binary(max_size=3000), st.integers(min_value=1, max_value=600))
def test_any_bytes_are_frames_or_a_protocol_error_and_never_more_than_the_limit_is_held(data, step):
    reader = FrameReader(max_bytes=1000)
    try:
        for start in range(0, len(data), step):
            for opcode, _, payload in reader.feed(data[start : start + step]):
                assert len(payload) <= 1000 and (opcode < 0x8 or len(payload) <= 125)
            assert reader.buffered <= 1000 + 14 + step  # one unfinished frame and one read, at most
    except MessageTooBig as e:
        assert "more than the engine takes (1000)" in str(e)
    except ValueError as e:
        assert str(e).startswith("websocket protocol error")


# ---- a real engine process ----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def engine():
    process = fuzz.Engine()
    yield process
    process.close()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="starts an engine process")
@settings(
    BOUNDED,
    max_examples=40,
    suppress_health_check=[*BOUNDED.suppress_health_check, HealthCheck.function_scoped_fixture],
)
@given(RANDOMS)
def test_the_engine_goes_on_serving_after_any_byte_stream(engine, rng):
    findings = fuzz.Findings()
    fuzz.frames_case(rng, engine, findings)
    assert findings.found == []


def test_the_fuzz_script_runs_for_the_time_asked_and_reports():
    import subprocess

    done = subprocess.run(
        [sys.executable, str(TOOL), "--minutes", "0.05", "--seed", "7"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "findings: 0 (none)" in done.stdout and "requests" in done.stdout.split("ran ", 1)[1]
