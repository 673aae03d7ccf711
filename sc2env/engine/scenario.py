"""Run a mini-game definition's script: setup actions, unit groups, placements and triggers (the map's rules)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from sc2env.engine.mapdef import MapDefinition, MapDefinitionError
from sc2env.engine.players import Player
from sc2env.engine.world import World
from sc2env.gamedata import unit_type_by_name

RESULTS = {"Victory": 1, "Defeat": 2, "Tie": 3, "Undecided": 4}
_PLACEMENT_TRIES = 10_000


class Scenario:
    """The map script of one game: runs `setup`, watches `triggers`, keeps named unit groups.

    Actions and events are plain JSON objects with one key naming them (`{"spawn": {...}}`); each name maps
    to one method here (`_do_spawn`, `_when_near`), so a new mechanic is one method plus its docs.
    Trigger context names: `"unit"` (the group member that caused the event) and `"other"`.
    """

    def __init__(self, definition: MapDefinition, world: World, players: dict[int, Player],
                 rng: np.random.Generator):
        self.definition = definition
        self.world = world
        self.players = players
        self.rng = rng
        self.groups: dict[str, list[int]] = {}
        self.result: int | None = None  # set by `end_game`
        self._near = [t for t in definition.triggers if "near" in t["when"]]
        self._every_loop = [t for t in definition.triggers if "every_loop" in t["when"]]

    @property
    def per_loop(self) -> bool:
        """Whether a trigger runs every loop, so the game must be simulated loop by loop."""
        return bool(self._every_loop)

    @staticmethod
    def validate(definition: MapDefinition) -> None:
        """Check every action, event and reference up front so a broken definition fails at create_game."""
        def actions(items, where):
            if not isinstance(items, list):
                raise MapDefinitionError(f"{where}: expected a list of actions")
            for n, item in enumerate(items):
                if not (isinstance(item, dict) and len(item) >= 1):
                    raise MapDefinitionError(f"{where}[{n}]: an action is an object like {{'spawn': {{...}}}}")
                name = next(iter(item))
                if not hasattr(Scenario, f"_do_{name}"):
                    raise MapDefinitionError(f"{where}[{n}]: unknown action {name!r}")
                if name == "if":
                    actions(item.get("then", []), f"{where}[{n}].then")
                    actions(item.get("else", []), f"{where}[{n}].else")
                if name == "run" and item["run"] not in definition.procedures:
                    raise MapDefinitionError(f"{where}[{n}]: no procedure {item['run']!r}")
                if name == "spawn":
                    try:
                        unit_type_by_name(item["spawn"]["type"])
                    except KeyError as e:
                        raise MapDefinitionError(f"{where}[{n}].spawn: {e.args[0]}") from None

        actions(definition.setup, "setup")
        for key, body in definition.procedures.items():
            actions(body, f"procedures.{key}")
        for n, trigger in enumerate(definition.triggers):
            when = trigger.get("when", {})
            if not (isinstance(when, dict) and len(when) == 1 and next(iter(when)) in ("near", "every_loop")):
                raise MapDefinitionError(f"triggers[{n}].when: expected {{'near': ...}} or {{'every_loop': {{}}}}")
            actions(trigger.get("do", []), f"triggers[{n}].do")

    # ---- lifecycle ----------------------------------------------------------------------------------
    def start(self) -> None:
        """Run the map's initialisation on an empty world."""
        self.groups = {}
        self.result = None
        self._run(self.definition.setup, {})

    def first_event(self, trajectory: np.ndarray | None, k: int) -> tuple[int, bool]:
        """(t, fires): the first of the next k loops (1-based) at which a `near` trigger fires, else (k, False)."""
        if not self._near or not self.world.n:
            return k, False
        positions = self.world.pos[None] if trajectory is None else trajectory
        first, fires = k, False
        for trigger in self._near:
            hits = self._near_matrix(trigger["when"]["near"], positions)
            if hits is not None:
                loops = np.flatnonzero(hits.any(axis=(1, 2)))
                if len(loops):
                    fires = True
                    first = min(first, 1 if trajectory is None else int(loops[0]) + 1)
        return first, fires

    def after_loop(self, near_may_fire: bool = True) -> None:
        """Fire the triggers whose conditions hold after the loop just simulated.

        `near_may_fire=False` skips the proximity checks when `first_event` showed none can hold.
        """
        for trigger in self._near if near_may_fire else ():
            spec = trigger["when"]["near"]
            hits = self._near_matrix(spec, self.world.pos[None])
            if hits is None or not hits.any():
                continue
            a_tags, b_tags = self._alive(spec["group"]), self._alive(spec["other"])
            for a, b in np.argwhere(hits[0]).tolist():
                ta, tb = a_tags[a], b_tags[b]
                if self.world.exists(ta) and self.world.exists(tb) and self._pair_near(spec, ta, tb):
                    self._run(trigger["do"], {"unit": ta, "other": tb})
        for trigger in self._every_loop:
            self._run(trigger["do"], {})

    # ---- conditions ---------------------------------------------------------------------------------
    def _alive(self, group: str) -> list[int]:
        tags = [t for t in self.groups.get(group, []) if self.world.exists(t)]
        self.groups[group] = tags
        return tags

    def _near_matrix(self, spec: dict, positions: np.ndarray) -> np.ndarray | None:
        """Boolean (loops, |group|, |other|): which pairs are within `distance` at each loop."""
        a, b = self._alive(spec["group"]), self._alive(spec["other"])
        if not a or not b:
            return None
        ia = [self.world.slot(t) for t in a]
        ib = [self.world.slot(t) for t in b]
        d = positions[:, ia, None, :] - positions[:, None, ib, :]
        dist = np.hypot(d[..., 0], d[..., 1])
        if spec.get("measure", "centre") == "edge":
            dist = dist - self.world.radius[ia][:, None] - self.world.radius[ib][None, :]
        return dist <= spec["distance"]

    def _pair_near(self, spec: dict, ta: int, tb: int) -> bool:
        w = self.world
        i, j = w.slot(ta), w.slot(tb)
        dist = float(np.hypot(*(w.pos[i] - w.pos[j])))
        if spec.get("measure", "centre") == "edge":
            dist -= w.radius[i] + w.radius[j]
        return dist <= spec["distance"]

    def _check(self, condition: dict) -> bool:
        (name, spec), = condition.items()
        if name != "group_count":
            raise MapDefinitionError(f"unknown condition {name!r}; known: group_count")
        count = len(self._alive(spec["group"]))
        return (count <= spec.get("at_most", count) and count >= spec.get("at_least", count)
                and count == spec.get("equals", count))

    # ---- actions ------------------------------------------------------------------------------------
    def _run(self, actions: list, ctx: dict) -> None:
        for action in actions:
            name = next(iter(action))
            handler: Callable = getattr(self, f"_do_{name}")
            handler(action, ctx)
            if self.result is not None:
                return

    def _unit(self, ref, ctx: dict) -> int:
        return ctx[ref] if isinstance(ref, str) else int(ref)

    def _points(self, at, count: int, group: str | None = None) -> np.ndarray:
        """Positions for `count` units from a placement spec (or the name of one in `placements`).

        When the units join `group` and the spec keeps away from that same group, each new point also keeps
        away from the points chosen before it (FindAndDefeatZerglings' spacing rule).
        """
        if isinstance(at, str):
            at = self.definition.placements[at]
        if "point" in at:
            return np.tile(np.asarray(at["point"], float), (count, 1))
        region = self.definition.regions[at["region"]]
        if "away_from" not in at:
            return region.sample(self.rng, count)
        points = []
        for _ in range(count):
            extra = points if at["away_from"] == group else []
            points.append(self._point_away(region, at["away_from"], float(at["min_distance"]), extra))
        return np.array(points)

    def _point_away(self, region, group: str, distance: float, extra: list) -> np.ndarray:
        """A region point at least `distance` from every unit of `group` (SC2 scripts re-roll until it is)."""
        w = self.world
        others = w.pos[[w.slot(t) for t in self._alive(group)]] if self._alive(group) else np.empty((0, 2))
        others = np.concatenate([others, np.asarray(extra).reshape(-1, 2)])
        for _ in range(_PLACEMENT_TRIES):
            p = region.sample(self.rng, 1)[0]
            if not len(others) or np.hypot(*(others - p).T).min() >= distance:
                return p
        raise MapDefinitionError(f"no point of the region is {distance} away from group {group!r}")

    def _do_spawn(self, action: dict, ctx: dict) -> None:
        spec = action["spawn"]
        unit_type = unit_type_by_name(spec["type"])
        group = spec.get("group")
        count = int(spec.get("count", 1))
        points = self._points(spec.get("at", {"region": "playable_area"}), count, group)
        owner = int(spec.get("owner", 1))
        tags = []
        for x, y in points.tolist():
            facing = float(spec["facing"]) if "facing" in spec else float(self.rng.uniform(0, 2 * np.pi))
            tags.append(self.world.spawn(unit_type, owner, x, y, facing))
        if group:
            self.groups.setdefault(group, []).extend(tags)
        if spec.get("select") and owner in self.players:
            self.players[owner].selection.extend(tags)
        self.world.settle()

    def _do_move_unit(self, action: dict, ctx: dict) -> None:
        spec = action["move_unit"]
        tag = self._unit(spec["unit"], ctx)
        x, y = self._points(spec["to"], 1)[0]
        self.world.teleport(tag, float(x), float(y))

    def _do_remove(self, action: dict, ctx: dict) -> None:
        spec = action["remove"]
        tags = self._alive(spec["group"]) if isinstance(spec, dict) else [self._unit(spec, ctx)]
        for tag in tags:
            if self.world.exists(tag):
                self.world.remove(tag)
        for player in self.players.values():
            player.forget(self.world.exists)

    def _do_give(self, action: dict, ctx: dict) -> None:
        spec = action["give"]
        to = spec["to"]
        player_id = int(self.world.owner[self.world.slot(ctx[to])]) if isinstance(to, str) else int(to)
        player = self.players.get(player_id)
        if player is not None:
            player.minerals += int(spec.get("minerals", 0))
            player.vespene += int(spec.get("vespene", 0))

    def _do_set_player(self, action: dict, ctx: dict) -> None:
        spec = action["set_player"]
        player = self.players[int(spec.get("player", 1))]
        for key in ("minerals", "vespene"):
            if key in spec:
                setattr(player, key, int(spec[key]))

    def _do_score(self, action: dict, ctx: dict) -> None:
        spec = action["score"]
        player = self.players[int(spec.get("player", 1))]
        if "add" in spec:
            player.score += int(spec["add"])
        elif isinstance(spec.get("set"), dict):
            source = spec["set"]
            player.score = int(getattr(player, source["player_property"]) // source.get("divide", 1))
        else:
            player.score = int(spec["set"])

    def _do_if(self, action: dict, ctx: dict) -> None:
        branch = "then" if self._check(action["if"]) else "else"
        self._run(action.get(branch, []), ctx)

    def _do_run(self, action: dict, ctx: dict) -> None:
        self._run(self.definition.procedures[action["run"]], ctx)

    def _do_select(self, action: dict, ctx: dict) -> None:
        spec = action["select"]
        player = self.players[int(spec.get("player", 1))]
        base = player.selection if spec.get("add") else []
        player.selection = base + [t for t in self._alive(spec["group"]) if t not in base]

    def _do_end_game(self, action: dict, ctx: dict) -> None:
        self.result = RESULTS[action["end_game"].get("result", "Tie")]
