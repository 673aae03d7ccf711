"""Feature layers of an observation -> (layers, y, x) stacks, with as little work per layer as possible.

Each layer's bytes are read once from the message (`ListFields`, one C call per stack) and copied straight
into its row of the stack; packed 1-bit layers are unpacked together. There are no large temporary
buffers: on a VM a fresh multi-hundred-kB allocation can cost more in page faults than the decoding.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from s2clientprotocol import common_pb2, spatial_pb2

from sc2env.errors import ProtocolError
from sc2env.interface.layers import LAYER_DTYPES, MINIMAP_LAYERS, SCREEN_LAYERS

Narrow = Callable[[int, np.ndarray, np.ndarray], None]
"""Writes what a narrow (uint8) stack stores for a wider layer: (output row, the layer's values, that row)."""


class StackDecoder:
    """Decodes one kind of stack ("screen" or "minimap") into arrays of its layers, all or a selection.

    `layers` names the layers to keep, in the order of the output rows (default: the whole table, as
    `Observation.feature_screen` / `feature_minimap` hold them).
    """

    def __init__(self, what: str, size: tuple[int, int], layers: Sequence[str] | None = None):
        table, message = (
            (SCREEN_LAYERS, spatial_pb2.FeatureLayers)
            if what == "screen"
            else (MINIMAP_LAYERS, spatial_pb2.FeatureLayersMinimap)
        )
        names = [layer.name for layer in table] if layers is None else list(layers)
        by_name = {layer.name: layer for layer in table}
        fields = message.DESCRIPTOR.fields_by_name
        self.what = what
        self.layers = [by_name[name] for name in names]
        # protobuf field number -> output row, for the kept layers this protocol version has
        self._row_of_field = {fields[name].number: row for row, name in enumerate(names) if name in fields}
        self.width, self.height = size
        self._size = common_pb2.Size2DI(x=self.width, y=self.height)
        n = self.width * self.height
        self._lengths = {1: (n + 7) // 8, 8: n, 16: 2 * n, 32: 4 * n}

    def decode(self, renders, out: np.ndarray, narrow: Narrow | None = None) -> None:
        """Write the kept layers of a FeatureLayers / FeatureLayersMinimap message into `out` (rows, h, w).

        Layers absent or empty (0×0) become zeros. `out` may be int32 (the game's values) or narrower, e.g.
        uint8: 1- and 8-bit layers fit as they are, and 16- and 32-bit ones go through `narrow` (required then).
        Raises ProtocolError for a layer of another size, an unknown bit depth or the wrong byte count.
        """
        count = len(self.layers)
        n = self.width * self.height
        rows = out.reshape(count, n)
        missing = (1 << count) - 1
        narrowing = rows.dtype.itemsize == 1
        # Each layer goes straight into its row, one plain copy (a grouped, fancy-indexed copy measured twice as
        # slow at 128x128, where the stack outgrows the cache); packed 1-bit layers are unpacked together.
        packed: tuple[list[int], list[bytes]] = ([], [])
        lengths = self._lengths
        # The game renders every layer of a stack at one resolution, so one size comparison (a slow protobuf
        # call) covers them all; the byte count, checked per layer, catches any layer that differs in area.
        sized = False
        # A uint8 stack takes the 8-bit layers' bytes as they are: a memoryview slice assignment is a plain
        # copy, without making an array of each layer and going through numpy's indexing.
        flat = rows.data.cast("B") if narrowing and rows.flags.c_contiguous else None
        for field, image in renders.ListFields():
            row = self._row_of_field.get(field.number)
            if row is None:
                continue  # a layer not kept, or one this version of sc2env doesn't know
            bits = image.bits_per_pixel
            data = image.data
            if lengths.get(bits) != len(data) or not (sized or image.size == self._size):
                if image.size.x == 0 or image.size.y == 0:
                    continue  # a layer this game build leaves empty
                raise self._layer_error(self.layers[row].name, image)
            sized = True
            missing &= ~(1 << row)
            if bits == 1:
                packed[0].append(row)
                packed[1].append(data)
            elif bits > 8 and narrowing:
                if narrow is None:
                    raise ValueError(f"a {rows.dtype} stack needs `narrow` for the {bits}-bit layers")
                narrow(row, np.frombuffer(data, LAYER_DTYPES[bits]), rows[row])
            elif flat is not None and bits == 8:
                flat[row * n : (row + 1) * n] = data
            else:
                rows[row] = np.frombuffer(data, LAYER_DTYPES[bits])
        indices, chunks = packed
        if indices and n % 8 == 0:  # whole bytes per layer: unpack them all in one go
            joined = np.frombuffer(chunks[0] if len(chunks) == 1 else b"".join(chunks), np.uint8)
            unpacked = np.unpackbits(joined.reshape(len(indices), -1), axis=1)
            if narrowing:
                rows[indices] = unpacked
            else:  # widening to int32: row by row is faster than one fancy-indexed copy
                for k, index in enumerate(indices):
                    rows[index] = unpacked[k]
        else:
            for index, data in zip(indices, chunks):
                rows[index] = np.unpackbits(np.frombuffer(data, np.uint8), count=n)
        index = 0
        while missing:  # zero the absent layers, a run of consecutive ones at a time
            if missing & 1:
                stop = index
                while missing & 1:
                    missing >>= 1
                    stop += 1
                rows[index:stop] = 0
                index = stop
            else:
                missing >>= 1
                index += 1

    def _layer_error(self, name: str, image) -> ProtocolError:
        if (image.size.x, image.size.y) != (self.width, self.height):
            return ProtocolError(
                f"{self.what} layer {name} is {image.size.x}×{image.size.y}, but the interface format asks for "
                f"{self.width}×{self.height}"
            )
        return ProtocolError(
            f"{self.what} layer {name} is {self.width}×{self.height} at {image.bits_per_pixel} bits per pixel "
            f"but has {len(image.data)} bytes; feature layers use 1, 8, 16 or 32 bits"
        )


class LayerStacks:
    """The feature layers of one observation: PySC2's int32 stacks of every layer, decoded from the message at
    first use (`stacks`), or any selection straight into arrays of another form (`decode_into`: the env's uint8
    ones) without them. Pickled, it keeps only the int32 stacks."""

    def __init__(
        self,
        message: spatial_pb2.ObservationFeatureLayer | None,
        decode: Callable[[spatial_pb2.ObservationFeatureLayer], tuple[np.ndarray, np.ndarray]] | None = None,
        stacks: tuple[np.ndarray, np.ndarray] | None = None,
    ):
        self._message = message
        self._decode = decode
        self._stacks = stacks

    @property
    def stacks(self) -> tuple[np.ndarray, np.ndarray]:
        """(screen, minimap): (layers, y, x) int32 stacks of every layer in table order."""
        if self._stacks is None:
            if self._message is None or self._decode is None:
                raise ProtocolError(
                    "these feature layers hold neither stacks nor a message to decode them from"
                )
            self._stacks = self._decode(self._message)
        return self._stacks

    def decode_into(self, decoder: StackDecoder, out: np.ndarray, narrow: Narrow | None = None) -> None:
        """Decode `decoder`'s layers of the message into `out` (see StackDecoder.decode)."""
        if self._message is None:
            raise ProtocolError(
                "these feature layers were pickled with their int32 stacks only: read them from "
                "feature_screen / feature_minimap"
            )
        message = self._message
        decoder.decode(message.renders if decoder.what == "screen" else message.minimap_renders, out, narrow)

    def __getstate__(self) -> dict:
        return {"_message": None, "_decode": None, "_stacks": self.stacks}
