"""Protobuf wire-format helpers for splicing pre-serialized pieces (feature layers) into responses."""

from __future__ import annotations

import functools


def varint(value: int) -> bytes:
    out = bytearray()
    while value > 0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


@functools.lru_cache(maxsize=4096)
def field_header(number: int, length: int) -> bytes:
    """Tag and length of a length-delimited field (wire type 2) whose payload is `length` bytes."""
    return varint(number << 3 | 2) + varint(length)


def message_field(number: int, payload: bytes) -> bytes:
    return field_header(number, len(payload)) + payload


@functools.lru_cache(maxsize=1024)
def image_header(bits_per_pixel: int, width: int, height: int, data_length: int) -> bytes:
    """Everything of a serialized `ImageData{bits_per_pixel, size{x, y}, data}` that precedes the data bytes."""
    size = varint(1 << 3) + varint(width) + varint(2 << 3) + varint(height)
    return varint(1 << 3) + varint(bits_per_pixel) + message_field(2, size) + field_header(3, data_length)


def image_data(bits_per_pixel: int, width: int, height: int, data: bytes) -> bytes:
    """A serialized `ImageData`."""
    return image_header(bits_per_pixel, width, height, len(data)) + data
