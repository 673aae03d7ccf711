"""The client's own websocket framing: what the engine's frame reader (and any RFC 6455 server) accepts."""

from __future__ import annotations

import pytest

from sc2env.client.connection import binary_frames
from sc2env.engine.server import FrameReader

SIZES = [0, 1, 125, 126, 65535, 65536, 70001]


@pytest.mark.parametrize("size", SIZES)
def test_one_frame_of_each_length_form(size):
    payload = bytes(range(256)) * (size // 256) + bytes(size % 256)
    data = binary_frames([payload])
    assert data[0] == 0x82  # FIN + BINARY
    assert data[1] & 0x80  # masked, as a client must
    [(opcode, fin, body)] = FrameReader().feed(data)
    assert (opcode, fin, bytes(body)) == (2, True, payload)


def test_frames_back_to_back_each_with_its_own_key():
    payloads = [b"\x08\x01action", b"\x08\x02" * 70, b"", b"x" * 200]
    data = binary_frames(payloads)
    assert [bytes(body) for _, _, body in FrameReader().feed(data)] == payloads
    # Read split anywhere, the same frames come out.
    reader = FrameReader()
    out = reader.feed(data[:7]) + reader.feed(data[7:150]) + reader.feed(data[150:])
    assert [bytes(body) for _, _, body in out] == payloads
    assert len({binary_frames([b"same"])[2:6] for _ in range(8)}) > 1  # a fresh random key each time
