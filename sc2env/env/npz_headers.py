"""The shapes and dtypes an .npz declares, read from its arrays' headers without reading the arrays."""

from __future__ import annotations

import dataclasses
import math
import zipfile
from typing import BinaryIO

import numpy as np
from numpy.lib import format as npy

_HEADER_READERS = {(1, 0): npy.read_array_header_1_0, (2, 0): npy.read_array_header_2_0}
_MAX_HEADER_BYTES = 10_000  # numpy's own default limit on a header it parses


@dataclasses.dataclass(frozen=True)
class ArrayHeader:
    """One entry of an .npz as its header declares it: `nbytes` is what numpy allocates to load it."""

    shape: tuple[int, ...]
    dtype: np.dtype

    @property
    def nbytes(self) -> int:
        return math.prod(self.shape) * self.dtype.itemsize

    def describe(self) -> str:
        """`(20, 14) int64`, as messages show an entry."""
        return f"{self.shape} {self.dtype}"


def read_headers(file: BinaryIO) -> dict[str, ArrayHeader]:
    """Each entry's declared shape and dtype, by name (as `numpy.load` names them: without `.npy`).

    Raises ValueError when `file` is no .npz, an entry is no .npy array numpy would load without pickle, or
    an entry's header declares more (or fewer) bytes than the entry holds: a header that asks numpy for
    gigabytes from a small entry is refused here, before anything is allocated.
    """
    try:
        archive = zipfile.ZipFile(file)
    except (zipfile.BadZipFile, OSError) as error:
        raise ValueError(f"it is not an .npz file (a zip archive of arrays): {error}") from None
    headers = {}
    with archive:
        for member in archive.infolist():
            name = member.filename.removesuffix(".npy")
            headers[name] = _read_header(archive, member, name)
    return headers


def _read_header(archive: zipfile.ZipFile, member: zipfile.ZipInfo, name: str) -> ArrayHeader:
    try:
        with archive.open(member) as entry:
            version = npy.read_magic(entry)
            read = _HEADER_READERS.get(version)
            if read is None:
                raise ValueError(f"its .npy format version {version} is not one sc2env reads")
            shape, _fortran_order, dtype = read(entry, max_header_size=_MAX_HEADER_BYTES)
            header_bytes = entry.tell()
    except (ValueError, EOFError, zipfile.BadZipFile, OSError) as error:
        raise ValueError(f"entry {name!r} is not a numpy array: {error}") from None
    if dtype.hasobject:
        raise ValueError(f"entry {name!r} holds Python objects, which are loaded only with pickle")
    if any(side < 0 for side in shape):
        raise ValueError(f"entry {name!r} declares the shape {tuple(shape)}, with a negative side")
    header = ArrayHeader(tuple(shape), dtype)
    if header_bytes + header.nbytes != member.file_size:
        raise ValueError(
            f"entry {name!r} declares {header.describe()} ({header.nbytes:,} bytes) but holds "
            f"{member.file_size - header_bytes:,} bytes of data: the file is damaged"
        )
    return header
