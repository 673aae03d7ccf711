"""Load-time checks of a mini-game definition's script: every action, event and placement against one
declarative table of fields, and the references, context names, nesting, recursion and limits between them.

Each error is a MapDefinitionError naming its field by path (`setup[2].spawn.count: expected a whole number
from 1 to 5000, got -5`), so that a broken definition is refused at create_game, not at join_game or in the
middle of a game. What only play can tell (a region crowded by units placed earlier) fails then with a
ScriptError naming the action.
"""

from __future__ import annotations

import dataclasses
import difflib
import math
from collections.abc import Iterator

from sc2env.engine.limits import (
    MAX_MAP_SIDE,
    MAX_RESOURCES,
    MAX_SCORE,
    MAX_SCRIPT_DEPTH,
    MAX_SPAWN_COUNT,
    MAX_UNITS,
)
from sc2env.engine.mapdef import RESULTS, MapDefinition, MapDefinitionError, Region, check_fields
from sc2env.engine.mapfields import (
    At,
    Facts,
    Kind,
    ability,
    choice,
    either,
    either_object,
    fail,
    fields,
    flag,
    is_whole,
    list_of,
    number,
    offset,
    point,
    reference,
    text,
    unit_type,
    whole,
)
from sc2env.engine.players import Player, Stats
from sc2env.gamedata import unit_type_by_name

MAX_PERIOD_LOOPS = 1 << 20  # a periodic trigger's period: about 13 hours of game time at most
MAX_OWNER = 16  # player ids: 0 is neutral, 1-15 players, 16 the game's own neutral id
BRANCHES = ("then", "else")
ORDER_TARGETS = (
    "target",
    "closest",
    "point",
)  # what an order is aimed at: at most one of them  # beside an `if`, the action lists it chooses between
PLACEMENT_BASES = ("point", "points", "region", "anchor")
# What a score may follow or be set from: the player's numbers and its statistics.
STATISTICS = frozenset(
    {f.name for f in dataclasses.fields(Player) if f.type in ("int", int)}
    | {f.name for f in dataclasses.fields(Stats) if f.type in ("float", float)}
) - {"player_id", "race"}


# ---- kinds of field particular to scripts ------------------------------------------------------------
group = reference("group", lambda f: f.groups, "no spawn creates it; ")
region = reference("region", lambda f: f.regions)
procedure = reference("procedure", lambda f: f.procedures)


def anchor(value, path, at):
    """A name some set_anchor sets, or {"group": g} (where g's first unit stands)."""
    if isinstance(value, dict):
        fields(required={"group": group})(value, path, at)
    else:
        reference("anchor", lambda f: f.anchors, "no set_anchor sets it; ")(value, path, at)


def hosted_player(value, path, at):
    """One of the map's player slots: the players whose resources, score and selection the engine keeps."""
    if not (is_whole(value) and value in at.facts.players):
        ids = " or ".join(map(str, at.facts.players))
        raise fail(path, f"one of the map's players, {ids} (its player slots)", value)


def unit_ref(value, path, at):
    """ "unit" or "other", where the trigger running the action gives that name."""
    if value not in ("unit", "other"):
        raise fail(path, '"unit" or "other" (the units a trigger is about)', value)
    if value not in at.context:
        have = " and ".join(sorted(at.context)) or "none"
        raise MapDefinitionError(
            f"{path}: {value!r} is not known here (known: {have}); a near trigger's actions know unit and "
            "other, a unit_died or unit_created trigger's know unit, setup's, every_loop's and every's none"
        )


# A unit group, or every living unit of a player ({"owner": p}: SMAC's maps order all of player 2).
units = either(
    unit_ref, fields(optional={"group": group, "owner": whole(0, MAX_OWNER)}, one_of=("group", "owner"))
)
statistic = choice(tuple(sorted(STATISTICS)))


def point_pair(value, path, at):
    """Two points: an order's target drawn uniformly from the box they span (the map's random point between)."""
    if not (isinstance(value, list) and len(value) == 2):
        raise fail(path, "two points [[x0, y0], [x1, y1]]", value)
    list_of(point)(value, path, at)


actions_kind: Kind  # defined below: an action list, one level deeper


def placement(value, path, at):
    """A placement: the name of one in `placements`, or a spec."""
    if isinstance(value, str):
        reference("placement", lambda f: f.placements)(value, path, at)
        return
    _PLACEMENT(value, path, at)
    if ("away_from" in value or "min_distance" in value) and "region" not in value:
        raise MapDefinitionError(f"{path}: away_from and min_distance apply to region placements only")
    if "offsets" in value and "formation" in value:
        raise MapDefinitionError(f"{path}: give offsets or a formation, not both")
    if "spacing" in value and "formation" not in value:
        raise MapDefinitionError(f"{path}: spacing goes with a formation")


_DISTANCE = number(0, 2 * MAX_MAP_SIDE)
_PLACEMENT = fields(
    optional={
        "point": point,
        "points": list_of(point),
        "region": region,
        "anchor": anchor,
        "offsets": list_of(offset),
        "formation": choice(("column",)),
        "spacing": number(0, MAX_MAP_SIDE),
        "away_from": either(group, list_of(fields(required={"group": group, "min_distance": _DISTANCE}))),
        "min_distance": _DISTANCE,
    },
    one_of=PLACEMENT_BASES,
)
_COUNT = whole(0, MAX_UNITS)
_RESOURCE = whole(0, MAX_RESOURCES)
_SCORE = whole(-MAX_SCORE, MAX_SCORE)


def deeper(kind: Kind) -> Kind:
    """`kind` one level deeper in the script's nesting, which MAX_SCRIPT_DEPTH bounds."""

    def check(value, path, at):
        depth = at.depth + 1
        if depth > MAX_SCRIPT_DEPTH:
            raise MapDefinitionError(
                f"{path}: nested more than {MAX_SCRIPT_DEPTH} deep (if, random and run inside one another)"
            )
        at.script.deepest = max(at.script.deepest, depth)
        kind(value, path, dataclasses.replace(at, depth=depth))

    return check


def run(value, path, at):
    """`run`: a procedure, checked (once per context) with the depth its body reaches from here."""
    procedure(value, path, at)
    depth = at.depth + 1 + at.script.height(value, at.context, path)
    if depth > MAX_SCRIPT_DEPTH:
        raise MapDefinitionError(
            f"{path}: nested more than {MAX_SCRIPT_DEPTH} deep (if, random and run inside one another)"
        )
    at.script.deepest = max(at.script.deepest, depth)


# ---- the table: each action's body, each event's spec and the context it gives its actions ------------
ACTIONS: dict[str, Kind] = {
    "spawn": fields(
        required={"type": unit_type},
        optional={
            "group": text,
            "count": whole(1, MAX_SPAWN_COUNT),
            "owner": whole(0, MAX_OWNER),
            "at": placement,
            "facing": number(-1e6, 1e6),
            "health": number(0, 1e9, True),
            "select": flag,
        },
    ),
    "recreate": fields(required={"group": group, "at": placement}),
    "arrange": fields(required={"group": group, "at": placement}),
    "move_unit": fields(required={"unit": unit_ref, "to": placement}),
    "set_anchor": fields(required={"name": text, "at": placement}),
    "remove": either(
        unit_ref,
        fields(optional={"group": group, "all_except": list_of(group)}, one_of=("group", "all_except")),
    ),
    # `closest`: each unit is sent at the living unit of these closest to it (SMACv2's map); `point_between`:
    # one point drawn from the box two points span (2m_vs_1z); `idle_only`:
    # only units with no order and no target of their own are ordered.
    "order": fields(
        required={"units": units, "ability": ability},
        optional={
            "target": units,
            "closest": units,
            "point": point,
            "point_between": point_pair,
            "queued": flag,
            "idle_only": flag,
        },
    ),
    "give": fields(
        required={"to": either(unit_ref, whole(0, MAX_OWNER))},
        optional={"minerals": _RESOURCE, "vespene": _RESOURCE},
    ),
    "set_player": fields(optional={"player": hosted_player, "minerals": _RESOURCE, "vespene": _RESOURCE}),
    "score": fields(
        optional={
            "player": hosted_player,
            "add": _SCORE,
            "set": either_object(
                fields(required={"player_property": statistic}, optional={"divide": number(0, 1e9, True)}),
                _SCORE,
            ),
            "track": list_of(statistic),
        },
        one_of=("add", "set", "track"),
    ),
    "select": fields(required={"group": group}, optional={"player": hosted_player, "add": flag}),
    "end_game": fields(optional={"result": choice(tuple(RESULTS))}),
    # How many living units a group has, or a player has (any unit of theirs; with `structures`, only its
    # structures, finished or not: the melee rule "a side with no buildings has lost").
    "if": fields(
        optional={
            "group_count": fields(
                required={"group": group}, optional={"at_least": _COUNT, "at_most": _COUNT, "equals": _COUNT}
            ),
            "unit_count": fields(
                required={"owner": whole(0, MAX_OWNER)},
                optional={"at_least": _COUNT, "at_most": _COUNT, "equals": _COUNT, "structures": flag},
            ),
        },
        one_of=("group_count", "unit_count"),
    ),
    "random": list_of(lambda v, p, a: deeper(actions_kind)(v, p, a)),
    "run": run,
}
EVENTS: dict[str, tuple[Kind, frozenset[str]]] = {
    "near": (
        fields(
            required={"group": group, "other": group, "distance": _DISTANCE},
            optional={"measure": choice(("centre", "edge"))},
        ),
        frozenset({"unit", "other"}),
    ),
    "every_loop": (fields(), frozenset()),
    # A periodic trigger: at every game loop that is a multiple of `loops` (SMACv2's "every 0.5 game seconds").
    "every": (fields(required={"loops": whole(1, MAX_PERIOD_LOOPS)}), frozenset()),
    "unit_died": (
        fields(optional={"owner": whole(0, MAX_OWNER), "type": unit_type, "group": group}),
        frozenset({"unit"}),
    ),
    "unit_created": (
        fields(optional={"owner": whole(0, MAX_OWNER), "type": unit_type, "group": group}),
        frozenset({"unit"}),
    ),
}


# ---- actions, triggers, and the script as a whole -----------------------------------------------------
def action(value, path, at):
    """One action object: {"spawn": {...}}, or {"if": {...}, "then": [...], "else": [...]}."""
    if not (isinstance(value, dict) and value):
        raise fail(path, 'an action, an object like {"spawn": {...}}', value)
    name = next((key for key in value if key in ACTIONS), None)
    if name is None:
        key = next(iter(value))
        near = difflib.get_close_matches(str(key), ACTIONS, n=1)
        hint = f"; did you mean {near[0]!r}?" if near else ""
        raise MapDefinitionError(
            f"{path}: unknown action {key!r}{hint} (known: {', '.join(sorted(ACTIONS))})"
        )
    check_fields(value, {name, *BRANCHES} if name == "if" else {name}, path)  # one action an object
    ACTIONS[name](value[name], f"{path}.{name}", at)
    if name == "spawn":
        _spawn_fits(value[name], f"{path}.{name}", at)
    if name == "order" and sum(k in value[name] for k in ORDER_TARGETS) > 1:
        given = " and ".join(k for k in ORDER_TARGETS if k in value[name])
        raise MapDefinitionError(f"{path}.order: give one of {', '.join(ORDER_TARGETS)}, not {given}")
    for branch in BRANCHES if name == "if" else ():
        if branch in value:
            deeper(actions_kind)(value[branch], f"{path}.{branch}", at)


actions_kind = list_of(action, least=0)


def trigger(value, path, at):
    fields(required={"when": lambda v, p, a: None, "do": lambda v, p, a: None})(value, path, at)
    when = value["when"]
    if not (isinstance(when, dict) and len(when) == 1 and next(iter(when)) in EVENTS):
        raise fail(f"{path}.when", "one of " + ", ".join(f'{{"{e}": {{...}}}}' for e in EVENTS), when)
    ((event, spec),) = when.items()
    kind, context = EVENTS[event]
    kind(spec, f"{path}.when.{event}", at)
    actions_kind(value["do"], f"{path}.do", dataclasses.replace(at, context=context))


def _spawn_fits(body: dict, path: str, at: At) -> None:
    """What a spawn's fields say together: health within the type's, and room for units that keep apart."""
    kind = unit_type_by_name(body["type"])
    if "health" in body and body["health"] > kind.health:
        raise fail(f"{path}.health", f"at most a {body['type']}'s {kind.health:g} hit points", body["health"])
    spec = body.get("at")
    spec = at.script.definition.placements.get(spec) if isinstance(spec, str) else spec
    if not (isinstance(spec, dict) and "region" in spec and "away_from" in spec and "group" in body):
        return
    rules = spec["away_from"]
    if isinstance(rules, str):
        rules = [{"group": rules, "min_distance": spec.get("min_distance", 0.0)}]
    count = body.get("count", 1)
    for rule in rules:
        distance = rule["min_distance"]
        if rule["group"] == body["group"] and distance > 0:
            room = most_apart(at.script.definition.regions[spec["region"]], distance)
            if count > room:
                raise MapDefinitionError(
                    f"{path}.count: {count} units can't each keep {distance:g} from one another in region "
                    f"{spec['region']!r}: at most {room} fit; lower the count or the min_distance"
                )


def most_apart(area: Region, distance: float) -> int:
    """An upper bound on how many points of `area` can be `distance` from one another: discs of half that
    radius round them are disjoint and inside its bounding box grown by as much."""
    x0, y0, x1, y1 = area.bounds()
    return int((x1 - x0 + distance) * (y1 - y0 + distance) / (math.pi * distance * distance / 4))


class Script:
    """The checks of one definition's script, with what they keep: the deepest nesting reached, and each
    procedure's nesting depth per context (a procedure is checked once per context it is run in)."""

    def __init__(self, definition: MapDefinition):
        self.definition = definition
        every = [definition.setup, *definition.procedures.values()]
        every += [t.get("do") for t in definition.triggers if isinstance(t, dict)]
        found = list(_actions(every))
        self.facts = Facts(
            groups=frozenset(_name(b, "group") for n, b in found if n == "spawn" and _name(b, "group")),
            anchors=frozenset(_name(b, "name") for n, b in found if n == "set_anchor" and _name(b, "name")),
            regions=frozenset(definition.regions),
            placements=frozenset(definition.placements),
            procedures=frozenset(definition.procedures),
            player=definition.players[0].player_id,
            players=tuple(slot.player_id for slot in definition.players),
            size=definition.map_size,
        )
        self.deepest = 0
        self._heights: dict[tuple[str, frozenset[str]], int] = {}

    def check(self) -> None:
        d = self.definition
        self._layout()
        self._no_recursion()
        top = At(self)
        # In the order they run: what a change broke is found first where it was made.
        actions_kind(d.setup, "setup", top)
        for n, item in enumerate(d.triggers):
            trigger(item, f"triggers[{n}]", top)
        for name in d.procedures:  # never run: nothing it refers to is missing when it runs
            if not any(key[0] == name for key in self._heights):
                self.height(name, frozenset(("unit", "other")), f"procedures.{name}")
        for name, spec in d.placements.items():
            if not isinstance(spec, dict):  # a named placement is a spec, not the name of another
                raise fail(f"placements.{name}", "a placement object", spec)
            placement(spec, f"placements.{name}", top)

    def _layout(self) -> None:
        """What must lie on the map lies on it, regions have area, and the rest of the layout is in range."""
        definition = self.definition
        w, h = definition.map_size

        def on_map(box, path: str) -> None:
            x0, y0, x1, y1 = box
            if not (min(x0, y0) >= 0 and x1 <= w and y1 <= h):
                raise MapDefinitionError(f"{path}: must lie on the map (0 to {w}, 0 to {h}), got {list(box)}")

        for name in ("playable_area", "camera_bounds"):
            b = getattr(definition, name)
            on_map((b.x0, b.y0, b.x1, b.y1), name)
        for name, area in definition.regions.items():
            for n, shape in enumerate(area.shapes):
                on_map(shape.box(), f"regions.{name}" + (f" (shape {n + 1})" if len(area.shapes) > 1 else ""))
            if area.area() == 0:
                raise MapDefinitionError(f"regions.{name}: has no area (its minus shapes cover all of it)")
        for n, (x, y) in enumerate(definition.start_locations):
            on_map((x, y, x, y), f"start_locations[{n}]")
        if not -16 <= definition.terrain_height <= 16:  # the height map spans -16 to 16 (render.Terrain)
            raise fail("terrain_height", "a number from -16 to 16", definition.terrain_height)
        if not isinstance(definition.description, str):
            raise fail("description", "a string", definition.description)
        for name, card in definition.command_cards.items():
            unit_type(name, f"command_cards.{name}", At(self))
            list_of(ability, least=0)(card, f"command_cards.{name}", At(self))

    def height(self, name: str, context: frozenset[str], caller: str) -> int:
        """How deep procedure `name`'s body nests, checking it first if it was not yet in this context."""
        key = (name, context)
        if key not in self._heights:
            outer, self.deepest = self.deepest, 0
            try:
                actions_kind(self.definition.procedures[name], f"procedures.{name}", At(self, context))
            except MapDefinitionError as e:
                raise MapDefinitionError(f"{e} (run from {caller})") from None
            finally:
                self.deepest, height = outer, self.deepest
            self._heights[key] = height
        return self._heights[key]

    def _no_recursion(self) -> None:
        """Refuse a procedure that runs itself, directly or through others: its script would never end."""
        calls = {
            name: {b for n, b in _actions([body]) if n == "run" and isinstance(b, str)}
            for name, body in self.definition.procedures.items()
        }
        done: set[str] = set()

        def visit(name: str, chain: list[str]) -> None:
            if name in chain:
                loop = " -> ".join(chain[chain.index(name) :] + [name])
                raise MapDefinitionError(
                    f"procedures.{name}: runs itself ({loop}); a procedure may not run itself, directly or "
                    "through others"
                )
            if name in done or name not in calls:
                return
            for callee in sorted(calls[name]):
                visit(callee, [*chain, name])
            done.add(name)

        for name in calls:
            visit(name, [])


def _name(body: object, key: str) -> str:
    """body[key] if body is an object whose `key` is a string, else "" (an unnamed or malformed action)."""
    name = body.get(key) if isinstance(body, dict) else None
    return name if isinstance(name, str) else ""


def _actions(lists) -> Iterator[tuple[str, object]]:
    """(name, body) of every action in the action lists `lists` and the lists nested in them (if's branches,
    random's choices), whatever their shape: for the names a definition gives, before it is checked."""
    stack = [items for items in lists if isinstance(items, list)]
    while stack:
        for item in stack.pop():
            if not isinstance(item, dict):
                continue
            for name, body in item.items():
                if name in BRANCHES and isinstance(body, list):
                    stack.append(body)
                elif name == "random" and isinstance(body, list):
                    stack += [branch for branch in body if isinstance(branch, list)]
                else:
                    yield name, body


def check(definition: MapDefinition) -> None:
    """Check the definition's layout and script (setup, procedures, placements, triggers);
    MapDefinitionError names the first broken field."""
    Script(definition).check()


def action_paths(definition: MapDefinition) -> dict[int, str]:
    """id() of every action object of a (checked) definition -> its path, for errors met while it runs."""
    paths: dict[int, str] = {}
    lists = [(definition.setup, "setup")]
    lists += [(body, f"procedures.{name}") for name, body in definition.procedures.items()]
    lists += [(t["do"], f"triggers[{n}].do") for n, t in enumerate(definition.triggers)]
    while lists:
        items, path = lists.pop()
        for n, item in enumerate(items):
            here = f"{path}[{n}]"
            paths[id(item)] = here
            lists += [(item[branch], f"{here}.{branch}") for branch in BRANCHES if branch in item]
            if "random" in item:
                lists += [(branch, f"{here}.random[{k}]") for k, branch in enumerate(item["random"])]
    return paths
