"""The map facts SMAC reads from game_info: size, playable extent, pathing and (y-flipped) terrain height."""

from __future__ import annotations

import dataclasses

import numpy as np
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env.errors import ProtocolError


@dataclasses.dataclass(frozen=True)
class MapGrids:
    """One map as SMAC sees it.

    map_x, map_y:     the map's size in cells.
    max_distance_x/y: the playable area's width and height (the state's position normalisers).
    pathing:          bool (map_x, map_y), indexed [x, y]: whether ground units may stand on the cell.
    terrain_height:   float (map_x, map_y), indexed [x, y], heights / 255 **flipped in y** (SMAC reads the grid
                      upside down, and its observations carry that; kept for the same numbers).
    """

    map_x: int
    map_y: int
    max_distance_x: float
    max_distance_y: float
    pathing: np.ndarray
    terrain_height: np.ndarray
    # The grids with a border of one cell holding what SMAC takes off the map (pathing for moves: no; pathing
    # and height features: 1), so lookups need no bounds test: any cell off the map clips onto the border.
    _walkable: np.ndarray = dataclasses.field(init=False, repr=False)
    _pathing_feature: np.ndarray = dataclasses.field(init=False, repr=False)
    _height_feature: np.ndarray = dataclasses.field(init=False, repr=False)
    _walkable_last: np.ndarray = dataclasses.field(init=False, repr=False)  # its last (x, y) cell

    def __post_init__(self) -> None:
        object.__setattr__(self, "_walkable", np.pad(self.pathing, 1, constant_values=False))
        object.__setattr__(self, "_walkable_last", np.array(self._walkable.shape) - 1)
        object.__setattr__(
            self, "_pathing_feature", np.pad(self.pathing.astype(np.float64), 1, constant_values=1.0)
        )
        object.__setattr__(self, "_height_feature", np.pad(self.terrain_height, 1, constant_values=1.0))

    @classmethod
    def from_game_info(cls, info: sc_pb.ResponseGameInfo) -> MapGrids:
        raw = info.start_raw
        map_x, map_y = raw.map_size.x, raw.map_size.y
        area = raw.playable_area
        return cls(
            map_x=map_x,
            map_y=map_y,
            max_distance_x=float(area.p1.x - area.p0.x),
            max_distance_y=float(area.p1.y - area.p0.y),
            pathing=_pathing(raw.pathing_grid, map_x, map_y),
            terrain_height=_rows(raw.terrain_height, map_x, map_y, 8)[::-1].T / 255,
        )

    def walkable(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Whether each integer cell (x, y) is on the map and pathable."""
        return self._at(self._walkable, x, y)

    def walkable_cells(self, cells: np.ndarray) -> np.ndarray:
        """`walkable` of integer cells given as (..., 2) (x, y) pairs."""
        padded = self._walkable
        inside = np.minimum(np.maximum(cells + 1, 0), self._walkable_last)
        return padded[inside[..., 0], inside[..., 1]]

    def pathing_feature(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """SMAC's pathing features: 1.0 pathable, 0.0 not, 1.0 off the map."""
        return self._at(self._pathing_feature, x, y)

    def height_feature(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """SMAC's (flipped) height features: height / 255, 1.0 off the map."""
        return self._at(self._height_feature, x, y)

    @staticmethod
    def _at(padded: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        width, height = padded.shape
        # maximum and minimum rather than np.clip: the same, without np.clip's own checks (most of its cost)
        return padded[
            np.minimum(np.maximum(x + 1, 0), width - 1), np.minimum(np.maximum(y + 1, 0), height - 1)
        ]


def _rows(image, map_x: int, map_y: int, bits: int) -> np.ndarray:
    """An ImageData as (rows from y = 0, columns x), checked against the map's size."""
    width, height = image.size.x or map_x, image.size.y or map_y
    if (
        image.bits_per_pixel != bits
        or (width, height) != (map_x, map_y)
        or len(image.data) * 8 != width * height * bits
    ):
        raise ProtocolError(
            f"game_info's grid is {width}x{height} at {image.bits_per_pixel} bits per pixel with "
            f"{len(image.data)} bytes; expected {map_x}x{map_y} at {bits}"
        )
    data = np.frombuffer(image.data, np.uint8)
    if bits == 1:
        data = np.unpackbits(data)  # most significant bit first, as the game packs them
    return data.reshape(height, width)


def _pathing(image, map_x: int, map_y: int) -> np.ndarray:
    if (
        image.bits_per_pixel == 8
    ):  # old builds: one byte per cell, 0 pathable, rows from the top (as SMAC reads)
        return _rows(image, map_x, map_y, 8)[::-1].T == 0
    return _rows(image, map_x, map_y, 1).T.astype(bool)
