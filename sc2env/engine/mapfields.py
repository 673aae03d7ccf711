"""Kinds of field in a mini-game definition's script: one small check per kind (whole numbers and numbers in
their ranges, text, flags, choices, unit types, abilities, points and offsets, lists, objects with their
fields, names the definition gives), each raising MapDefinitionError that names the field by its path.

`sc2env.engine.mapcheck` builds its table of actions, events and placements from these.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sc2env.engine.limits import MAX_MAP_SIDE
from sc2env.engine.mapdef import MapDefinitionError, check_fields, is_number
from sc2env.gamedata import ABILITIES, MAP_OWN_TYPES, unit_type_by_name

if TYPE_CHECKING:
    from sc2env.engine.mapcheck import Script


@dataclass(frozen=True)
class Facts:
    """What references are checked against: names the definition gives, and its map."""

    groups: frozenset[str]  # every group some spawn creates
    anchors: frozenset[str]  # every anchor some set_anchor sets
    regions: frozenset[str]
    placements: frozenset[str]
    procedures: frozenset[str]
    player: int  # the map's first player (scripts default to it)
    players: tuple[int, ...]  # every slot's (scripts may set their resources, score and selection)
    size: tuple[int, int]


@dataclass(frozen=True)
class At:
    """Where a part is checked: the script it belongs to, the trigger context names its actions may use
    (`unit`, `other`), and how deep in `if`, `random` and `run` it sits."""

    script: Script
    context: frozenset[str] = frozenset()
    depth: int = 0

    @property
    def facts(self) -> Facts:
        return self.script.facts


Kind = Callable[[object, str, At], None]
"""A field's check: (value, path, where) -> None, raising MapDefinitionError naming the path."""


def fail(path: str, expected: str, value: object) -> MapDefinitionError:
    return MapDefinitionError(f"{path}: expected {expected}, got {value!r}"[:400])


def is_whole(value: object) -> bool:
    return is_number(value) and float(value).is_integer()  # type: ignore[arg-type]


# ---- kinds of field -----------------------------------------------------------------------------------
def whole(lo: int, hi: int) -> Kind:
    def check(value, path, at):
        if not (is_whole(value) and lo <= value <= hi):
            raise fail(path, f"a whole number from {lo} to {hi}", value)

    return check


def number(lo: float, hi: float, low_open: bool = False) -> Kind:
    """A finite number from `lo` (or, `low_open`, over it) to `hi`."""
    bounds = f"above {lo:g} and at most {hi:g}" if low_open else f"from {lo:g} to {hi:g}"

    def check(value, path, at):
        if not (is_number(value) and (lo < value if low_open else lo <= value) and value <= hi):
            raise fail(path, f"a number {bounds}", value)

    return check


def text(value, path, at):
    if not (isinstance(value, str) and value):
        raise fail(path, "a non-empty string", value)


def flag(value, path, at):
    if not isinstance(value, bool):
        raise fail(path, "true or false", value)


def choice(values) -> Kind:
    def check(value, path, at):
        if not (isinstance(value, str) and value in values):
            raise fail(path, f"one of {', '.join(values)}", value)

    return check


def unit_type(value, path, at):
    try:
        unit_type_by_name(value)
    except (KeyError, TypeError) as e:
        raise MapDefinitionError(f"{path}: {e.args[0] if isinstance(e, KeyError) else e}") from None
    if value in MAP_OWN_TYPES and value not in at.script.definition.map_types:
        raise MapDefinitionError(f"{path}: {value!r} is a map's own type: list it in map_types")


def ability(value, path, at):
    if not (is_whole(value) and value in ABILITIES):
        raise fail(path, f"an ability id the engine knows ({', '.join(map(str, sorted(ABILITIES)))})", value)


def point(value, path, at):
    w, h = at.facts.size
    if not (isinstance(value, list) and len(value) == 2 and all(map(is_number, value))):
        raise fail(path, "a point [x, y]", value)
    if not (0 <= value[0] <= w and 0 <= value[1] <= h):
        raise fail(path, f"a point on the map (0 to {w}, 0 to {h})", value)


def offset(value, path, at):
    if not (isinstance(value, list) and len(value) == 2 and all(map(is_number, value))):
        raise fail(path, "an offset [dx, dy]", value)
    if max(abs(value[0]), abs(value[1])) > MAX_MAP_SIDE:
        raise fail(path, f"an offset of at most {MAX_MAP_SIDE} a side", value)


def list_of(kind: Kind, least: int = 1) -> Kind:
    def check(value, path, at):
        if not (isinstance(value, list) and len(value) >= least):
            raise fail(path, f"a list of {'at least one item' if least else 'items'}", value)
        for n, item in enumerate(value):
            kind(item, f"{path}[{n}]", at)

    return check


def either(for_text: Kind, otherwise: Kind) -> Kind:
    """`for_text` for a string, `otherwise` for anything else (the two shapes some fields take)."""

    def check(value, path, at):
        (for_text if isinstance(value, str) else otherwise)(value, path, at)

    return check


def either_object(for_object: Kind, otherwise: Kind) -> Kind:
    """`for_object` for an object, `otherwise` for anything else."""

    def check(value, path, at):
        (for_object if isinstance(value, dict) else otherwise)(value, path, at)

    return check


def fields(required: dict | None = None, optional: dict | None = None, one_of: tuple = ()) -> Kind:
    """An object with `required` and `optional` fields (name -> kind) and, if given, exactly one of `one_of`."""
    required, optional = required or {}, optional or {}
    known = {**required, **optional}

    def check(value, path, at):
        if not isinstance(value, dict):
            raise fail(path, f"an object with {', '.join(known) or 'no fields'}", value)
        check_fields(value, known, path)
        for name in required:
            if name not in value:
                raise MapDefinitionError(f"{path}: missing field {name!r}")
        if one_of and sum(name in value for name in one_of) != 1:
            raise MapDefinitionError(f"{path}: give exactly one of {', '.join(one_of)}")
        for name, item in value.items():
            known[name](item, f"{path}.{name}", at)

    return check


def reference(kind: str, of: Callable[[Facts], frozenset[str]], made_by: str = "") -> Kind:
    """A name that must be one the definition gives (a group some spawn creates, a region, ...)."""

    def check(value, path, at):
        text(value, path, at)
        names = of(at.facts)
        if value not in names:
            known = ", ".join(sorted(names)) or "none"
            raise MapDefinitionError(f"{path}: no {kind} {value!r} ({made_by}known: {known})"[:400])

    return check
