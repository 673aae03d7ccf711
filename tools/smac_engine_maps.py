"""Turn SMAC's scenario descriptions (maps/smac/source/<map>.json) into built-in engine definitions (maps/smac/).

Each definition plays the scenario as the map does: the same units at the same points, the same orders for
player 2, the same respawn rule, fog and the black mask off, no time limit. It lists the SHA-256 of the real
map file (the description's `source`), so the engine plays a game created with those bytes as `map_data`.
A map that needs what the engine does not have yet (a unit type, cell-by-cell pathing, an order kind) is
not written: the tool names what is missing. Output is deterministic.

Usage (from the repository root):
    python tools/smac_engine_maps.py            # write maps/smac/<map>.json for every convertible map
    python tools/smac_engine_maps.py --check    # write nothing; exit 1 if a written file is out of date
"""

from __future__ import annotations

import argparse
import json
import math
import pathlib
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
SOURCE = ROOT / "maps" / "smac" / "source"
OUT = ROOT / "maps" / "smac"
sys.path.insert(0, str(ROOT))

from sc2env.engine.ground import encode_heights, encode_pathing  # noqa: E402
from sc2env.gamedata import ABILITIES, MAP_OWN_TYPES, unit_type_by_name  # noqa: E402
from sc2env.gamedata.units import PROTOSS, TERRAN, ZERG  # noqa: E402
from sc2env.mapfiles import DEFINITION_FORMAT, MAX_GAME_LOOPS  # noqa: E402

MAP_FOLDER = "SMAC_Maps"
# The engine's ability ids by the map's (ability, command index): ("attack", 0) -> 23, the specific Attack.
ABILITY_IDS = {(a.link_name, a.link_index): a.ability_id for a in ABILITIES.values()}
LOOPS_PER_GAME_SECOND = 16  # game time: 16 loops a game second (22.4 a real second at "faster")
DEFAULT_FACING = 3 * math.pi / 2  # the game's default facing for created units: 270 degrees (south)
# Fields of a map's own type the engine plays from its own data: each is checked against it, so a map whose
# copy differs from the real unit is refused instead of played with the wrong stats.
# (The map writes 4 decimals: 2.9531 for the data's 2.953125.)
CHECKED_FIELDS = {
    "LifeMax": "health",
    "ShieldsMax": "shields",
    "Speed": "speed",
    "Sight": "sight",
    "Radius": "radius",
    "LifeArmor": "armor",
    "EnergyMax": "energy",
    "EnergyStart": "energy_start",
    "EnergyRegenRate": "energy_regen",
    "ShieldRegenRate": "shield_regen",
    "ShieldRegenDelay": "shield_regen_delay",
}
# Overrides of real types the engine can ignore: supply (SMAC's enemy needs none, the engine enforces none).
IGNORED_OVERRIDES = {"Food"}


class ConversionError(ValueError):
    """A description the engine cannot play yet; the message names what is missing."""


def _point(description: dict, ref: dict) -> list[float]:
    if set(ref) != {"point"}:
        raise ConversionError(f"target {ref!r}: only named points are played yet")
    for point in description["points"]:
        if point["name"] == ref["point"]:
            return [float(v) for v in point["position"][:2]]
    raise ConversionError(f"no point named {ref['point']!r}")


def _owner(units: dict) -> int:
    spec = units.get("units_of")
    if not (isinstance(spec, dict) and spec.get("region") == "entire_map" and set(units) == {"units_of"}):
        raise ConversionError(f"units {units!r}: only all units of a player are played yet")
    return int(spec["player"])


def _target(description: dict, target: dict) -> dict:
    """The engine order's target fields for the map's: a point, a random point between two, or a unit group."""
    if set(target) == {"random_point_between"}:
        return {"point_between": [_point(description, ref) for ref in target["random_point_between"]]}
    if set(target) == {"units"} and set(target["units"]) == {"group"}:
        return {"target": {"group": target["units"]["group"]}}
    return {"point": _point(description, target)}


def _actions(description: dict, actions: list) -> tuple[list, bool]:
    """The engine's actions for the map's, and whether they turn fog and the black mask off."""
    out: list = []
    reveal = False
    for action in actions:
        ((name, spec),) = action.items()
        if name == "set_visibility":
            if spec.get("enabled") is not False:
                raise ConversionError(f"{action!r}: only turning fog and the mask off is played")
            reveal = True
        elif name == "group_clear":
            # A group holds the living units the map put in it: those of an earlier spawn are dead whenever the
            # map clears it (at start, and when both sides are gone), so clearing it changes nothing.
            continue
        elif name == "group_add":
            last = out[-1]["spawn"] if out and "spawn" in out[-1] else None
            if spec.get("unit") != "last_created" or last is None or last["count"] != 1 or "group" in last:
                raise ConversionError(f"{action!r}: only adding the unit just created to a group is played")
            last["group"] = spec["to"]["group"]
        elif name == "spawn":
            out.append(
                {
                    "spawn": {
                        "type": spec["unit_type"],
                        "count": int(spec["count"]),
                        "owner": int(spec["player"]),
                        "at": {"point": _point(description, spec["at"])},
                        "facing": DEFAULT_FACING,
                    }
                }
            )
        elif name == "order":
            ability = ABILITY_IDS.get((spec.get("ability"), spec.get("command_index", 0)))
            if ability is None or spec.get("queue") != "replace" or "units" not in spec:
                raise ConversionError(
                    f"{action!r}: only replacing orders of the engine's abilities are played"
                )
            out.append(
                {
                    "order": {
                        "units": {"owner": _owner(spec["units"])},
                        "ability": ability,
                        **_target(description, spec["target"]),
                    }
                }
            )
        else:
            raise ConversionError(f"action {name!r} is not played yet")
    return out, reveal


def _none_left(condition: dict) -> list[int]:
    """The players of a condition "no living unit of player p, and of player q ..." (the respawn rule)."""
    terms = condition["all"] if set(condition) == {"all"} else [condition]
    players = []
    for term in terms:
        left, op, right = term.get("compare", (None, None, None))
        if (
            op != "=="
            or right != 0
            or not isinstance(left, dict)
            or left.get("count", {}).get("which") != "alive"
        ):
            raise ConversionError(f"condition {term!r}: only 'no living unit of a player' is played yet")
        players.append(_owner(left["count"]["units"]))
    return players


def _nested_if(players: list[int], then: list) -> list:
    for player in reversed(players):
        then = [{"if": {"unit_count": {"owner": player, "equals": 0}}, "then": then}]
    return then


def _unit_types(description: dict) -> list[str]:
    """The map's own types in its catalog's order, each checked against the engine's copy of the real one."""
    own = []
    for name, entry in description["unit_types"].items():
        fields = entry["fields"]
        if entry["kind"] == "override":
            changed = set(fields) - IGNORED_OVERRIDES
            if changed:
                raise ConversionError(f"{name}: the map changes {sorted(changed)} of the real type")
            continue
        if name not in MAP_OWN_TYPES:
            raise ConversionError(f"{name}: a new unit type the engine does not know")
        try:
            unit_type = unit_type_by_name(name)
        except KeyError:
            # Kept in the numbering (SMACv2 counts the map's types); refused below if the map spawns it.
            own.append(name)
            continue
        if fields.get("DefaultAcquireLevel") != "Passive" or fields.get("Response") != "Nothing":
            raise ConversionError(f"{name}: only passive types (no acquiring, no response) are played")
        for field, attribute in CHECKED_FIELDS.items():
            if field in fields and not math.isclose(
                float(fields[field]), getattr(unit_type, attribute), rel_tol=1e-4
            ):
                raise ConversionError(
                    f"{name}: {field} {fields[field]} in the map, {getattr(unit_type, attribute)} in the engine"
                )
        own.append(name)
    return own


def _plays(name: str) -> bool:
    try:
        unit_type_by_name(name)
    except KeyError:
        return False
    return True


def _periodic(event: dict, actions: list) -> dict:
    """SMACv2's trigger "every 0.5 game seconds, each unit of player p with no order attacks the closest unit
    of player q" as the engine's periodic order of idle units."""
    if event.get("clock") != "game":
        raise ConversionError(f"periodic event {event!r}: only game-time periods are played")
    loops = float(event["seconds"]) * LOOPS_PER_GAME_SECOND
    if not (loops >= 1 and loops.is_integer()):
        raise ConversionError(f"periodic event {event!r}: the period is no whole number of game loops")
    try:
        ((name, each),) = actions[0].items()
        assert len(actions) == 1 and name == "for_each_unit"
        ((kind, branch),) = each["do"][0].items()
        assert len(each["do"]) == 1 and kind == "if" and not branch.get("else")
        assert branch["condition"] == {"compare": [{"order_count": "each_unit"}, "==", 0]}
        ((kind, order),) = branch["then"][0].items()
        assert len(branch["then"]) == 1 and kind == "order" and order["unit"] == "each_unit"
        closest = order["target"]["unit"]["closest"]
        assert closest["to"] == {"position_of": "each_unit"} and order["queue"] == "replace"
    except (AssertionError, KeyError, TypeError, ValueError, IndexError):
        raise ConversionError(
            f"periodic actions {actions!r}: only 'each idle unit of a player attacks the closest unit of "
            "another' is played yet"
        ) from None
    ability = ABILITY_IDS.get((order.get("ability"), order.get("command_index", 0)))
    if ability is None:
        raise ConversionError(f"periodic order {order!r}: not one of the engine's abilities")
    return {
        "when": {"every": {"loops": int(loops)}},
        "do": [
            {
                "order": {
                    "units": {"owner": _owner(each["in"])},
                    "idle_only": True,
                    "ability": ability,
                    "closest": {"owner": _owner(closest["of"])},
                }
            }
        ],
    }


def _spawned_types(actions: list) -> set[str]:
    return {a["spawn"]["type"] for a in actions if "spawn" in a}


def _terrain(description: dict) -> tuple[dict, dict]:
    """The definition's ground: a pathable rectangle and one height when the pathable cells are a rectangle
    (so such maps play as before), else the pathing grid and the height map cell by cell."""
    terrain = description["terrain"]
    pathable = (np.array(terrain["cell_flags"]) & 1) == 0  # t3CellFlags bit 0: unpathable
    vertices = np.array(terrain["vertex_height"])
    ys, xs = np.nonzero(pathable)
    x0, x1, y0, y1 = int(xs.min()), int(xs.max()) + 1, int(ys.min()), int(ys.max()) + 1
    if pathable.sum() == (x1 - x0) * (y1 - y0):
        heights = vertices[y0 : y1 + 1, x0 : x1 + 1]
        return {"pathable_area": [x0, y0, x1, y1]}, {"terrain_height": round(float(np.median(heights)), 4)}
    # A cell's height: the mean of its four corners, to the raw grid's precision (32 / 255 a step), so that
    # the height map holds few levels and reports the same bytes.
    cells = (vertices[:-1, :-1] + vertices[1:, :-1] + vertices[:-1, 1:] + vertices[1:, 1:]) / 4
    steps = np.round((cells + 16) * 255 / 32)
    return (
        {"pathing_grid": encode_pathing(pathable)},
        {"height_map": encode_heights(np.round(steps * 32 / 255 - 16, 4))},
    )


def convert(description: dict) -> dict:
    """The engine definition of one scenario description; ConversionError says why it can't be one yet."""
    name = description["name"]
    try:
        return _convert(description)
    except ConversionError as error:
        raise ConversionError(f"{name}: {error}") from None


def _convert(description: dict) -> dict:
    info = description["map_info"]
    own = _unit_types(description)
    setup, respawn, reveal = None, None, False
    periodic: list[dict] = []
    for trigger in description["triggers"]:
        events = trigger["events"]
        if events == [{"map_init": {}}] and not trigger["conditions"]:
            setup, reveal = _actions(description, trigger["actions"])
        elif events == [{"unit_died": {"unit": "any"}}] and len(trigger["conditions"]) == 1:
            respawn = (_none_left(trigger["conditions"][0]), _actions(description, trigger["actions"])[0])
        elif len(events) == 1 and "periodic" in events[0] and not trigger["conditions"]:
            periodic.append(_periodic(events[0]["periodic"], trigger["actions"]))
        else:
            raise ConversionError(f"trigger {trigger['name']!r}: its events are not played yet")
    if setup is None:
        raise ConversionError("no map-start trigger")
    unplayed = sorted(n for n in own if not _plays(n))
    spawned_unplayed = sorted(set(unplayed) & _spawned_types(setup))
    if spawned_unplayed:
        name = spawned_unplayed[0]
        raise ConversionError(f"{name}: the engine does not play {MAP_OWN_TYPES[name]} yet")
    races = {}
    for action in setup:
        if "spawn" in action:
            unit = action["spawn"]
            races.setdefault(unit["owner"], _race(unit["type"]))
    ground, height = _terrain(description)
    definition: dict = {
        "format": DEFINITION_FORMAT,
        "name": description["name"],
        "description": _sentence(description, setup),
        "map_folder": MAP_FOLDER,
        "map_files": [description["source"]["sha256"]],
        "map_size": info["map_size"],
        "playable_area": info["bounds"],
        **ground,
        "vision": "reveal_all" if reveal else "fog",
        **height,
        "time_limit": MAX_GAME_LOOPS,
        # A player the map spawns nothing for (SMACv2's map: the client creates every unit) plays any race.
        "players": [{"player_id": p, "race": races.get(p, "Random"), "name": f"Player {p}"} for p in (1, 2)],
        "map_types": own,
        "procedures": {"spawn": setup} if setup else {},
        "setup": [{"run": "spawn"}] if setup else [],
        "triggers": list(periodic),
    }
    if respawn is not None:
        players, actions = respawn
        if actions != setup:
            raise ConversionError("the respawn trigger does other than the map start: not played yet")
        definition["triggers"].append(
            {"when": {"unit_died": {}}, "do": _nested_if(players, [{"run": "spawn"}])}
        )
    undefined = {n for n in _spawned_types(setup) if n in MAP_OWN_TYPES} - set(own)
    if undefined:
        raise ConversionError(f"spawns {sorted(undefined)}, which the map does not define")
    return definition


def _race(type_name: str) -> str:
    """The engine's race name of a unit type; ConversionError for a type the engine does not play."""
    try:
        race = unit_type_by_name(type_name).race
    except KeyError:
        raise ConversionError(f"the engine does not play {type_name} yet") from None
    return {TERRAN: "Terran", PROTOSS: "Protoss", ZERG: "Zerg"}[race]


def _sentence(description: dict, setup: list) -> str:
    if not setup:
        return (
            f"SMACv2's {description['name']} (from {description['source']['file']}): an empty flat arena; the "
            "client creates both sides' units with debug commands. Every half game second each idle unit of "
            "player 2 attacks the closest unit of player 1."
        )
    sides: dict[int, list[str]] = {}
    starts: dict[int, list[list[float]]] = {}
    for action in setup:
        if "spawn" in action:
            unit = action["spawn"]
            sides.setdefault(unit["owner"], []).append(f"{unit['count']} {unit['type']}")
            starts.setdefault(unit["owner"], []).append(unit["at"]["point"])
    teams = " vs ".join(", ".join(units) for _, units in sorted(sides.items()))
    orders = [a["order"] for a in setup if "order" in a]
    if not orders:
        attack = "Player 2 gets no order"
    elif "point_between" in orders[0]:
        attack = "Player 2 attack-moves to a random point between player 1's two points"
    elif "target" in orders[0]:
        attack = f"Player 2 attacks the units of group {orders[0]['target']['group']!r} (player 1's)"
    elif orders[0]["point"] in starts.get(1, []):
        attack = "Player 2 attack-moves at player 1's point"
    else:
        attack = f"Player 2 attack-moves to ({orders[0]['point'][0]:g}, {orders[0]['point'][1]:g})"
    return (
        f"SMAC's {description['name']} (from {description['source']['file']}): {teams}. {attack}; when no unit "
        "of either player is left, both sides come back."
    )


def dumps(definition: dict) -> str:
    return json.dumps(definition, indent=2) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if a file would change")
    args = parser.parse_args(argv)
    stale = []
    for source in sorted(SOURCE.glob("*.json")):
        description = json.loads(source.read_text())
        target = OUT / f"{source.stem}.json"
        try:
            text = dumps(convert(description))
        except ConversionError as error:
            print(f"not converted: {error}")
            if target.exists():
                stale.append(target)
            continue
        if args.check:
            if not target.exists() or target.read_text() != text:
                stale.append(target)
            continue
        target.write_text(text)
        print(f"{target.relative_to(ROOT)}: {description['name']}")
    if stale:
        print("out of date (run tools/smac_engine_maps.py): " + ", ".join(map(str, stale)), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
