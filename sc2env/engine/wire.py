"""Protobuf wire-format helpers for splicing pre-serialized pieces (feature layers) into responses."""

from __future__ import annotations


def varint(value: int) -> bytes:
    out = bytearray()
    while value > 0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def field_header(number: int, length: int) -> bytes:
    """Tag and length of a length-delimited field (wire type 2) whose payload is `length` bytes."""
    return varint(number << 3 | 2) + varint(length)


def message_field(number: int, payload: bytes) -> bytes:
    return field_header(number, len(payload)) + payload


def image_data(bits_per_pixel: int, width: int, height: int, data: bytes) -> bytes:
    """A serialized `ImageData{bits_per_pixel, size{x, y}, data}`."""
    size = varint(1 << 3) + varint(width) + varint(2 << 3) + varint(height)
    return varint(1 << 3) + varint(bits_per_pixel) + message_field(2, size) + message_field(3, data)
