"""SharedBatch: a vector env's batched observations in one block of shared memory, one array per key."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from multiprocessing import shared_memory

import numpy as np
import numpy.typing as npt
from gymnasium import spaces

_ALIGN = 64  # each array starts on a cache line


@dataclasses.dataclass(frozen=True)
class BatchLayout:
    """Where each observation key's (num_envs, *shape) array lies in the block: what a worker needs to attach."""

    name: str
    size: int
    arrays: tuple[tuple[str, tuple[int, ...], str, int], ...]  # (key, shape, dtype, offset)

    @classmethod
    def of(cls, name: str, space: spaces.Dict, num_envs: int) -> BatchLayout:
        """The layout of a Dict of Boxes' batch (an observation space)."""
        fields: list[tuple[str, tuple[int, ...], npt.DTypeLike]] = []
        for key, box in space.spaces.items():
            if not isinstance(box, spaces.Box):
                raise TypeError(f"shared observations take Box spaces; {key!r} is {box!r}")
            fields.append((key, box.shape, box.dtype))
        return cls.of_fields(name, fields, num_envs)

    @classmethod
    def of_fields(
        cls, name: str, fields: Sequence[tuple[str, tuple[int, ...], npt.DTypeLike]], num_envs: int
    ) -> BatchLayout:
        """The layout of (key, shape per sub-env, dtype) arrays, `num_envs` rows each."""
        arrays, offset = [], 0
        for key, shape, dtype in fields:
            batched = (num_envs, *shape)
            arrays.append((key, batched, np.dtype(dtype).str, offset))
            offset += -(-int(np.prod(batched)) * np.dtype(dtype).itemsize // _ALIGN) * _ALIGN
        return cls(name, max(offset, 1), tuple(arrays))


class SharedBatch:
    """The arrays of a BatchLayout over one SharedMemory block; the creator unlinks it, attachers only close."""

    def __init__(self, memory: shared_memory.SharedMemory, layout: BatchLayout, owner: bool) -> None:
        self._memory: shared_memory.SharedMemory | None = memory
        self.layout = layout
        self.owner = owner
        self.arrays: dict[str, np.ndarray] = {
            key: np.ndarray(shape, np.dtype(dtype), memory.buf, offset)
            for key, shape, dtype, offset in layout.arrays
        }

    @classmethod
    def create(cls, space: spaces.Dict, num_envs: int) -> SharedBatch:
        """A new block for a batch of `space`'s observations."""
        return cls.create_for(BatchLayout.of("", space, num_envs))

    @classmethod
    def create_for(cls, probe: BatchLayout) -> SharedBatch:
        """A new block laid out as `probe` (its name is the block's own)."""
        memory = shared_memory.SharedMemory(create=True, size=probe.size)
        return cls(memory, dataclasses.replace(probe, name=memory.name), owner=True)

    @classmethod
    def attach(cls, layout: BatchLayout) -> SharedBatch:
        return cls(shared_memory.SharedMemory(name=layout.name), layout, owner=False)

    def rows(self, index: int) -> dict[str, np.ndarray]:
        """One sub-env's row of every array: views into the block, to write its observations into."""
        return {key: array[index] for key, array in self.arrays.items()}

    def row(self, index: int) -> dict[str, np.ndarray]:
        """A copy of one sub-env's observation."""
        return {key: array[index].copy() for key, array in self.arrays.items()}

    def close(self) -> None:
        """Let go of the block (the creator also removes it). Idempotent."""
        if self._memory is None:
            return
        memory, self._memory = self._memory, None
        self.arrays = {}  # numpy views hold the buffer: drop them before closing it
        memory.close()
        if self.owner:
            memory.unlink()
