"""The observation layout's integer rows read from the message: every `Scalars` row in one conversion (a view
each), every `Ints` row as an array; compiled from the table once, checked against the protocol."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from operator import attrgetter
from typing import Any, NamedTuple

import numpy as np
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env.interface.observation_layout import Entry, Ints, Scalars, fixed_size


def _field(message: Descriptor | None, path: str) -> FieldDescriptor:
    """The field a dotted path names in a message type; ValueError naming the first unknown part."""
    field = None
    for part in path.split("."):
        if message is None or part not in message.fields_by_name:
            raise ValueError(f"the observation layout reads {path!r}, but {part!r} is no field there")
        field = message.fields_by_name[part]
        message = field.message_type
    assert field is not None  # a path has a part
    return field


def _repeated(field: FieldDescriptor) -> bool:
    try:
        return bool(field.is_repeated)
    except AttributeError:  # a protobuf before `is_repeated` (6.32)
        return field.label == field.LABEL_REPEATED  # type: ignore[attr-defined]  # gone from newer stubs


class ScalarBlock:
    """Every `Scalars` entry of the layout: the message's integers read in one go into one int32 array, which
    each entry is a view of.

    The paths are compiled into a tree of messages, so that each message is fetched once and its fields in one
    call; a message the game left out (no score, no cargo panel) is not touched: its fields are 0.
    """

    def __init__(self, entries: Sequence[Entry]):
        paths: list[str] = []
        self._views: list[tuple[str, int, int, tuple[int, ...] | None, type[np.ndarray] | None]] = []
        for entry in entries:
            assert isinstance(entry.source, Scalars)
            for path in entry.source.paths:
                field = _field(sc_pb.Observation.DESCRIPTOR, path)
                if _repeated(field) or field.message_type is not None or field.default_value != 0:
                    raise ValueError(f"the observation layout reads {path!r} as an integer; it is not one")
            size = len(entry.source.paths)
            shape = _decoded_shape(entry)
            self._views.append(
                (
                    entry.name,
                    len(paths),
                    len(paths) + size,
                    shape if len(shape) > 1 else None,  # a 1-d slice needs no reshape, a plain one no view
                    entry.view if entry.view is not np.ndarray else None,
                )
            )
            paths += entry.source.paths
        self._read = _reader(_compile([path.split(".") for path in paths]))

    def read(self, observation: sc_pb.Observation, into: dict[str, Any]) -> None:
        """Put each entry's array (a view of one new array) in `into`."""
        values: list[int] = []
        self._read(observation, values)
        block = np.array(values, np.int32)
        for name, start, stop, shape, view in self._views:
            part = block[start:stop] if shape is None else block[start:stop].reshape(shape)
            into[name] = part if view is None else part.view(view)


class _Step(NamedTuple):
    """One step of `_read`: a run of a message's own fields (`fields` gets them all); a table of sibling
    messages with the same fields (`rows` gets the messages, `fields` each one's fields); or a sub-message
    `name` that `inner` steps read (`size` values: zeros when the game left it out)."""

    name: str = ""
    fields: Any = None
    rows: Any = None
    inner: list[_Step] | None = None
    size: int = 0
    names: tuple[str, ...] = ()


def _compile(paths: list[list[str]]) -> list[_Step]:
    """Reading steps for field paths (lists of names, relative to one message), in their order."""
    steps = []
    for head, grouped in itertools.groupby(paths, key=lambda path: path[0] if len(path) > 1 else ""):
        group = list(grouped)
        if head:
            steps.append(_Step(head, inner=_compile([path[1:] for path in group]), size=len(group)))
        else:
            names = tuple(path[0] for path in group)
            steps.append(_Step(fields=attrgetter(*names), size=len(names), names=names))
    return _tables(steps)


def _tables(steps: list[_Step]) -> list[_Step]:
    """Consecutive sub-messages made of the same run of fields merged into one table step."""
    out: list[_Step] = []
    for shape, grouped in itertools.groupby(steps, key=_row_shape):
        group = list(grouped)
        if shape is None or len(group) < 2:
            out += group
        else:
            rows = attrgetter(*(step.name for step in group))
            first = group[0].inner
            assert first is not None  # a row's step: one run of fields (_row_shape)
            out.append(_Step(fields=first[0].fields, rows=rows, size=sum(s.size for s in group)))
    return out


def _row_shape(step: _Step) -> tuple[str, ...] | None:
    """The field names of a sub-message step that is one run of two or more fields (a table's row), else None."""
    inner = step.inner
    if inner is None or len(inner) != 1 or inner[0].inner is not None or inner[0].size < 2:
        return None
    return inner[0].names


Reader = Callable[[Any, list[int]], None]
"""Appends a message's values to a list, in the order of the paths it was compiled from."""


def _reader(steps: list[_Step]) -> Reader:
    """One function per step, chosen here once rather than branched on at every read (a few µs a step)."""
    parts = [_step_reader(step) for step in steps]
    if len(parts) == 1:
        return parts[0]

    def read(message: Any, out: list[int]) -> None:
        for part in parts:
            part(message, out)

    return read


def _step_reader(step: _Step) -> Reader:
    fields, rows, name = step.fields, step.rows, step.name
    if step.inner is None and rows is not None:

        def read_rows(message: Any, out: list[int]) -> None:
            for row in rows(message):
                out.extend(fields(row))

        return read_rows
    if step.inner is None and step.size == 1:
        return lambda message, out: out.append(fields(message))
    if step.inner is None:
        return lambda message, out: out.extend(fields(message))
    inner, zeros = _reader(step.inner), (0,) * step.size

    def read_message(message: Any, out: list[int]) -> None:
        if message.HasField(name):
            inner(getattr(message, name), out)
        else:
            out.extend(zeros)  # reading a message that is not there would make one, field by field

    return read_message


def _decoded_shape(entry: Entry) -> tuple[int, ...]:
    """A fixed entry's shape (its axes are numbers and enums)."""
    return tuple(fixed_size(axis) for axis in entry.shape)


class IntFields:
    """Every `Ints` entry of the layout: an integer field (or list) of the ResponseObservation as an array."""

    def __init__(self, entries: Sequence[Entry]):
        self._fields = []
        for entry in entries:
            source = entry.source
            assert isinstance(source, Ints)
            repeated = _repeated(_field(sc_pb.ResponseObservation.DESCRIPTOR, source.path))
            self._fields.append(
                (
                    entry.name,
                    attrgetter(source.path),
                    attrgetter(source.item) if source.item else None,
                    repeated,
                    source.dtype,
                )
            )

    def read(self, response: sc_pb.ResponseObservation, out: dict[str, Any]) -> None:
        """Put each entry's array (new) in `out`."""
        for name, get, item, repeated, dtype in self._fields:
            value = get(response)
            if not repeated:
                out[name] = np.array((value,), dtype)
            elif not len(value):  # usually: quick when empty
                out[name] = np.zeros(0, dtype)
            else:
                out[name] = np.array([item(v) for v in value] if item is not None else value, dtype)
