"""Decode + masks for one real observation at 64×64 and 128×128: sc2env against PySC2 on the same messages.

The 128×128 message is `pysc2_obs_data1` from ../shared/realdata (21 screen and 9 minimap layers at 1, 8 and
32 bits per pixel, as the real game sent them). The 64×64 message is the same observation with every
layer subsampled by two and re-encoded at its own bit depth.

sc2env's figure is `ObservationDecoder.decode`: every array and the full action masks (function and
argument values). PySC2's is `Features.transform_obs`: every array and `available_actions`, its only mask.
Targets: sc2env at least 5× faster than PySC2, and under 150 µs at 64×64.

    python benchmarks/decode_masks.py [--seconds 2]
"""

from __future__ import annotations

import argparse
import lzma
import pathlib
import statistics
import sys
import time

import numpy as np
from s2clientprotocol import common_pb2
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env.interface import InterfaceFormat, ObservationDecoder

REALDATA = pathlib.Path(__file__).resolve().parents[1].parent / "shared" / "realdata"
_DTYPES = {1: np.uint8, 8: np.uint8, 32: np.dtype("<i4")}


def subsampled(response: sc_pb.ResponseObservation, step: int) -> sc_pb.ResponseObservation:
    """The same observation with every feature layer subsampled by `step`, each at its own bit depth."""
    out = sc_pb.ResponseObservation()
    out.CopyFrom(response)
    layers = out.observation.feature_layer_data
    for renders in (layers.renders, layers.minimap_renders):
        for _, image in renders.ListFields():
            width, height, bits = image.size.x, image.size.y, image.bits_per_pixel
            values = np.frombuffer(image.data, _DTYPES[bits])
            if bits == 1:
                values = np.unpackbits(values, count=width * height)
            values = values.reshape(height, width)[::step, ::step]
            image.data = (
                np.packbits(values).tobytes() if bits == 1 else values.astype(_DTYPES[bits]).tobytes()
            )
            image.size.y, image.size.x = values.shape
    return out


def per_call(fn, seconds: float) -> tuple[float, float]:
    """(best, median) µs per call over batches that together run for about `seconds`."""
    fn()
    batch = 1
    while True:
        start = time.perf_counter()
        for _ in range(batch):
            fn()
        if time.perf_counter() - start > 0.02:
            break
        batch *= 2
    times = []
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline or len(times) < 5:
        start = time.perf_counter()
        for _ in range(batch):
            fn()
        times.append((time.perf_counter() - start) / batch * 1e6)
    return min(times), statistics.median(times)


def layer_copy(response: sc_pb.ResponseObservation, size: int):
    """The least any decoder producing PySC2's arrays must do: read each layer's bytes out of the message and
    write them into one int32 (layers, y, x) stack, absent layers as zeros. No checks, no other field, no
    masks: a floor for `ObservationDecoder.decode`, not a decoder."""
    layers = response.observation.feature_layer_data
    out = np.empty((27 + 11, size * size), np.int32)

    def copy() -> None:
        row = 0
        for renders in (layers.renders, layers.minimap_renders):
            for _, image in renders.ListFields():
                data, bits = np.frombuffer(image.data, _DTYPES[image.bits_per_pixel]), image.bits_per_pixel
                out[row] = np.unpackbits(data) if bits == 1 else data
                row += 1
        out[row:] = 0

    return copy


def pysc2_transform(size: int):
    """PySC2's decoder for a square size, or None when pysc2-evolved isn't installed."""
    try:
        from pysc2_evolved.lib import features
    except ImportError:
        return None
    fmt = features.AgentInterfaceFormat(feature_dimensions=features.Dimensions(screen=size, minimap=size))
    return features.Features(fmt, map_size=common_pb2.Size2DI(x=184, y=184)).transform_obs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="time spent on each measurement")
    args = parser.parse_args()
    path = REALDATA / "pysc2_obs_data1.observation.pb.xz"
    if not path.exists():
        sys.exit(f"{path} is missing: this benchmark needs ../shared/realdata beside the checkout")
    with lzma.open(path) as compressed:
        full = sc_pb.ResponseObservation.FromString(compressed.read())

    print(f"{'size':>8} {'sc2env µs':>12} {'PySC2 µs':>12} {'ratio':>7}   (best / median per observation)")
    ratios, floors, best_64 = {}, {}, None
    for size, response in ((64, subsampled(full, 2)), (128, full)):
        decoder = ObservationDecoder(InterfaceFormat(screen_size=size, minimap_size=size))
        ours = per_call(lambda d=decoder, r=response: d.decode(r), args.seconds)
        if size == 64:
            best_64 = ours[0]
        pysc2 = pysc2_transform(size)
        if pysc2 is None:
            print(f"{size}×{size:<4} {ours[0]:7.1f} / {ours[1]:<5.1f}  (pysc2-evolved not installed)")
            continue
        theirs = per_call(lambda f=pysc2, r=response: f(r), args.seconds)
        floors[size] = per_call(layer_copy(response, size), args.seconds)[0], theirs[0]
        ratios[size] = theirs[0] / ours[0]
        print(
            f"{size}×{size:<4} {ours[0]:6.1f} / {ours[1]:<5.1f} {theirs[0]:6.1f} / {theirs[1]:<6.1f}"
            f" {ratios[size]:5.1f}×"
        )

    print(f"target < 150 µs at 64×64: {best_64:.1f} µs, {'met' if best_64 < 150 else 'NOT met'}")
    for size, (floor, theirs) in floors.items():
        print(
            f"layer copy alone at {size}×{size} (no checks, no other field, no masks): {floor:.1f} µs, "
            f"PySC2 / that = {theirs / floor:.1f}×: the most any decoder of these arrays could reach"
        )
    if ratios:
        shown = ", ".join(f"{ratio:.1f}× at {size}×{size}" for size, ratio in ratios.items())
        print(
            f"target ≥ 5× PySC2 on the same messages: {shown}, "
            f"{'met' if min(ratios.values()) >= 5 else 'NOT met'}"
        )

    fmt = InterfaceFormat(screen_size=64, minimap_size=64, screen_target_masks=True)
    decoder = ObservationDecoder(fmt)
    response = subsampled(full, 2)
    best, median = per_call(lambda: decoder.decode(response), args.seconds)
    print(f"64×64 with screen target masks: {best:.1f} / {median:.1f} µs")


if __name__ == "__main__":
    main()
