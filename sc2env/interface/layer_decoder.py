"""Feature layers of an observation -> (layers, y, x) int32 stacks, with as little work per layer as possible.

Each layer's bytes are read once from the message (`ListFields`, one C call per stack) and converted
straight into its row of the stack; 1-bit layers are unpacked together. There are no large temporary
buffers: on a VM a fresh multi-hundred-kB allocation can cost more in page faults than the decoding.
"""

from __future__ import annotations

import numpy as np
from s2clientprotocol import common_pb2, spatial_pb2

from sc2env.errors import ProtocolError
from sc2env.interface.layers import LAYER_DTYPES, MINIMAP_LAYERS, SCREEN_LAYERS, Layer



def _field_index(message_type: type, layers: tuple[Layer, ...]) -> dict[int, int]:
    """{protobuf field number: layer index} for the layers a message type has."""
    fields = message_type.DESCRIPTOR.fields_by_name
    return {fields[layer.name].number: layer.index for layer in layers if layer.name in fields}


_SCREEN_INDEX = _field_index(spatial_pb2.FeatureLayers, SCREEN_LAYERS)
_MINIMAP_INDEX = _field_index(spatial_pb2.FeatureLayersMinimap, MINIMAP_LAYERS)


def decode_stack(renders, out: np.ndarray, what: str, size: common_pb2.Size2DI) -> None:
    """Write the layers of a `FeatureLayers` (what="screen") or `FeatureLayersMinimap` (what="minimap")
    message into `out` (layers, h, w); layers that are absent or empty (0×0) become zeros. `size` is the
    expected (w, h) as a message, compared with each layer's in one call.

    Raises `ProtocolError` for a layer of another size, an unknown bit depth or the wrong byte count.
    """
    layers, index_of = (
        (SCREEN_LAYERS, _SCREEN_INDEX) if what == "screen" else (MINIMAP_LAYERS, _MINIMAP_INDEX)
    )
    count, height, width = out.shape
    n = height * width
    rows = out.reshape(count, n)
    missing = (1 << count) - 1
    # Layers are gathered by bit depth and converted one group at a time: a numpy call per layer costs more
    # than the conversion itself at these sizes.
    groups: dict[int, tuple[list[int], list[bytes]]] = {}
    lengths = {1: (n + 7) // 8, 8: n, 16: 2 * n, 32: 4 * n}
    # The game renders every layer of a stack at one resolution, so one size comparison (a slow protobuf
    # call) covers them all; the byte count, checked per layer, catches any layer that differs in area.
    sized = False
    for field, image in renders.ListFields():
        index = index_of.get(field.number)
        if index is None:
            continue  # a layer this version of sc2env doesn't know
        bits = image.bits_per_pixel
        data = image.data
        if lengths.get(bits) != len(data) or not (sized or image.size == size):
            if image.size.x == 0 or image.size.y == 0:
                continue  # a layer this game build leaves empty
            raise _layer_error(what, layers[index].name, image, width, height)
        sized = True
        missing &= ~(1 << index)
        group = groups.get(bits)
        if group is None:
            group = groups[bits] = ([], [])
        group[0].append(index)
        group[1].append(data)
    for bits, (indices, chunks) in groups.items():
        joined = chunks[0] if len(chunks) == 1 else b"".join(chunks)
        if bits == 1:
            if n % 8 == 0:  # whole bytes per layer: unpack them all in one go
                packed = np.frombuffer(joined, np.uint8).reshape(len(indices), -1)
                rows[indices] = np.unpackbits(packed, axis=1)
            else:
                for index, data in zip(indices, chunks):
                    rows[index] = np.unpackbits(np.frombuffer(data, np.uint8), count=n)
        else:
            rows[indices] = np.frombuffer(joined, LAYER_DTYPES[bits]).reshape(len(indices), n)
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


def _layer_error(what: str, name: str, image, width: int, height: int) -> ProtocolError:
    if (image.size.x, image.size.y) != (width, height):
        return ProtocolError(
            f"{what} layer {name} is {image.size.x}×{image.size.y}, but the interface format asks for "
            f"{width}×{height}"
        )
    return ProtocolError(
        f"{what} layer {name} is {width}×{height} at {image.bits_per_pixel} bits per pixel but has "
        f"{len(image.data)} bytes; feature layers use 1, 8, 16 or 32 bits"
    )
