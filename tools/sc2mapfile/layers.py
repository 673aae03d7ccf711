"""The binary members of an .SC2Map: the MapInfo header and the terrain layers (cliffs, heights, cell flags).

Layouts as found in SMAC's and SMACv2's maps (little-endian throughout; docs/smac.md has the tables):

- `MapInfo`: "IpaM", u32 version (39), u32 editor build, u32 0, u32 width, u32 height, u32 small and u32
  large preview type (a C string path follows a type of 2), two C strings, u32, u32, C string fog type,
  C string tileset, u32 left, bottom, right, top of the map bounds, u32 base height in 1/4096 units; the
  rest (load screen, players and their races) is not read.
- `t3CellFlags` ("LFCT"): u32 width at 24, u32 height at 28, then one byte per cell from offset 32.
- `t3SyncCliffLevel` ("CLIF"): u32 width at 8, u32 height at 12, then one u16 per cell from offset 32:
  64 per cliff level (0, 64, 128), ramps in between (72, 88, 104 on a ramp from level 1 to 2).
- `t3SyncHeightMap` ("SMAP"): u32 width at 8, u32 height at 12 (vertices, one more than cells each way),
  then from offset 64 a (u16 height in 1/256 world units, u16 cliff level) pair per vertex.
- `CellAttribute_Cpl`: u32 header, then one byte per cell, 255 where creep is painted.
Rows run from y = 0 (the bottom of the map, world coordinates) upwards; each row runs x = 0, 1, ...
"""

from __future__ import annotations

import dataclasses
import struct


class LayerError(ValueError):
    """A binary member does not have the layout this reader knows; the message names the member."""


@dataclasses.dataclass(frozen=True)
class MapInfo:
    version: int
    editor_build: int
    map_size: tuple[int, int]
    bounds: tuple[int, int, int, int]  # left, bottom, right, top
    base_height: float
    fog: str
    tileset: str

    def to_json(self) -> dict:
        return {
            "version": self.version,
            "editor_build": self.editor_build,
            "map_size": list(self.map_size),
            "bounds": list(self.bounds),
            "base_height": self.base_height,
            "fog": self.fog,
            "tileset": self.tileset,
        }


class _Reader:
    def __init__(self, data: bytes, member: str) -> None:
        self.data, self.member, self.at = data, member, 0

    def u32(self) -> int:
        if self.at + 4 > len(self.data):
            raise LayerError(f"{self.member} ends at byte {len(self.data)}, inside a field at {self.at}")
        (value,) = struct.unpack_from("<I", self.data, self.at)
        self.at += 4
        return int(value)

    def cstring(self) -> str:
        end = self.data.find(b"\0", self.at)
        if end < 0:
            raise LayerError(f"{self.member} has an unterminated string at byte {self.at}")
        text = self.data[self.at : end].decode("utf-8")
        self.at = end + 1
        return text


def read_map_info(data: bytes) -> MapInfo:
    """The header fields of a MapInfo member (version 39, the editor's format since patch 4.x)."""
    if data[:4] != b"IpaM":
        raise LayerError(f"MapInfo starts with {data[:4]!r}, not b'IpaM'")
    reader = _Reader(data, "MapInfo")
    reader.at = 4
    version, editor_build, _zero, width, height = (reader.u32() for _ in range(5))
    if version != 39:
        raise LayerError(f"MapInfo version {version}; this reader knows version 39")
    for _preview in ("small", "large"):
        if reader.u32() == 2:
            reader.cstring()
    reader.cstring(), reader.cstring(), reader.u32(), reader.u32()
    fog, tileset = reader.cstring(), reader.cstring()
    left, bottom, right, top = (reader.u32() for _ in range(4))
    base_height = reader.u32() / 4096
    if not (0 <= left < right <= width and 0 <= bottom < top <= height):
        raise LayerError(f"MapInfo bounds {(left, bottom, right, top)} do not fit a {width}x{height} map")
    return MapInfo(
        version, editor_build, (width, height), (left, bottom, right, top), base_height, fog, tileset
    )


def _grid(data: bytes, member: str, magic: bytes, size_at: int, start: int, fmt: str) -> list[list[int]]:
    if data[:4] != magic:
        raise LayerError(f"{member} starts with {data[:4]!r}, not {magic!r}")
    width, height = struct.unpack_from("<II", data, size_at)
    count = width * height * len(fmt)
    if len(data) < start + count * struct.calcsize("<" + fmt[0]):
        raise LayerError(f"{member} is {len(data)} bytes, too short for {width}x{height} {fmt!r} entries")
    values = struct.unpack_from(f"<{count}{fmt[0]}", data, start)
    row = width * len(fmt)
    return [list(values[y * row : (y + 1) * row]) for y in range(height)]


def read_cell_flags(data: bytes) -> list[list[int]]:
    """t3CellFlags: one byte per cell; bit 0 set = not pathable (see docs/smac.md for how that was found)."""
    return _grid(data, "t3CellFlags", b"LFCT", 24, 32, "B")


def read_cliff_levels(data: bytes) -> list[list[int]]:
    """t3SyncCliffLevel: the cliff level of each cell, 64 per level, ramps in between."""
    return _grid(data, "t3SyncCliffLevel", b"CLIF", 8, 32, "H")


def read_sync_heights(data: bytes) -> tuple[list[list[float]], list[list[int]]]:
    """t3SyncHeightMap: (height in world units, cliff level) of each vertex, the heights gameplay uses."""
    pairs = _grid(data, "t3SyncHeightMap", b"SMAP", 8, 64, "HH")
    heights = [[raw / 256 for raw in row[0::2]] for row in pairs]
    levels = [row[1::2] for row in pairs]
    return heights, levels


def read_creep(data: bytes, size: tuple[int, int]) -> list[list[int]]:
    """CellAttribute_Cpl: 1 where creep is painted, per cell."""
    width, height = size
    if len(data) != 4 + width * height:
        raise LayerError(
            f"CellAttribute_Cpl is {len(data)} bytes; a {width}x{height} map needs {4 + width * height}"
        )
    cells = data[4:]
    if set(cells) - {0, 255}:
        raise LayerError(
            f"CellAttribute_Cpl holds values {sorted(set(cells) - {0, 255})}; this reader knows 0 and 255"
        )
    return [[1 if cells[y * width + x] else 0 for x in range(width)] for y in range(height)]
