"""Run a mini-game definition's script: setup actions, unit groups, placements and triggers (the map's rules)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from sc2env.engine import mapcheck, placements
from sc2env.engine.limits import MAX_RESOURCES, MAX_UNITS
from sc2env.engine.mapdef import RESULTS, MapDefinition, ScriptError
from sc2env.engine.type_tables import STRUCTURE_TYPES
from sc2env.gamedata import specific_ability, unit_type_by_name

if TYPE_CHECKING:
    from sc2env.engine.combat import Death
    from sc2env.engine.game import Game
    from sc2env.engine.movement import AnyTrajectory

EVENTS = tuple(mapcheck.EVENTS)
_INT32 = (1 << 31) - 1  # the score travels as an int32


class Scenario:
    """The map script of one game: runs `setup`, watches `triggers`, keeps named unit groups and anchors.

    Actions and events are plain JSON objects with one key naming them (`{"spawn": {...}}`); each action
    maps to one `_do_<name>` method here, so a new mechanic is one method plus its docs. Trigger context
    names: `"unit"` (the unit that caused the event: the group member, the dead or the new unit) and
    `"other"`.
    """

    def __init__(self, game: Game):
        self.game = game
        self.definition: MapDefinition = game.definition
        self.world = game.world
        self.players = game.players
        self.rng = game.rng
        self.groups: dict[str, list[int]] = {}
        self.anchors: dict[str, np.ndarray] = {}
        self.tracked: dict[int, list[str]] = {}  # player -> statistics the score follows every loop
        self.result: int | None = None  # set by `end_game`
        self._where = mapcheck.action_paths(self.definition)  # id(action) -> its path, for ScriptError
        triggers = self.definition.triggers
        self._by_event = {event: [t for t in triggers if event in t["when"]] for event in EVENTS}
        self._near = self._by_event["near"]

    def until_periodic(self, game_loop: int, batch: int) -> int:
        """`batch` cut so that it ends at the next loop a periodic (`every`) trigger fires."""
        for trigger in self._by_event["every"]:
            period = int(trigger["when"]["every"]["loops"])
            batch = min(batch, period - game_loop % period)
        return batch

    @property
    def per_loop(self) -> bool:
        """Whether a trigger runs every loop, so the game must be simulated loop by loop."""
        return bool(self._by_event["every_loop"])

    # ---- validation ---------------------------------------------------------------------------------
    @staticmethod
    def validate(definition: MapDefinition) -> None:
        """Check every action, event and reference up front so a broken definition fails at create_game."""
        mapcheck.check(definition)

    # ---- lifecycle ----------------------------------------------------------------------------------
    def start(self) -> None:
        """Run the map's initialisation on an empty world."""
        self.groups, self.anchors, self.tracked = {}, {}, {}
        self.result = None
        self._run(self.definition.setup, {})

    def first_event(self, trajectory: AnyTrajectory | None, k: int) -> tuple[int, bool]:
        """(t, fires): the first of the next k loops (1-based) at which a `near` trigger fires, else (k, False)."""
        if not self._near or not self.world.n:
            return k, False
        positions = self.world.pos[None] if trajectory is None else trajectory.positions()
        first, fires = k, False
        for trigger in self._near:
            hits = self._near_matrix(trigger["when"]["near"], positions)
            if hits is not None:
                loops = np.flatnonzero(hits.any(axis=(1, 2)))
                if len(loops):
                    fires = True
                    first = min(first, 1 if trajectory is None else int(loops[0]) + 1)
        return first, fires

    def after_loop(self, near_may_fire: bool, deaths: list[Death], created: list[int]) -> None:
        """Fire the triggers whose events happened in the loops just simulated.

        `near_may_fire=False` skips the proximity checks when `first_event` showed none can hold.
        """
        if deaths:
            self._deaths(deaths)
        for tag in created:
            unit = self._facts(tag)
            for trigger in self._by_event["unit_created"]:
                if self.result is None and self._matches(trigger["when"]["unit_created"], unit, set()):
                    self._run(trigger["do"], {"unit": tag})
        for trigger in self._near if near_may_fire else ():
            spec = trigger["when"]["near"]
            hits = self._near_matrix(spec, self.world.pos[None])
            if hits is None or not hits.any():
                continue
            a_tags, b_tags = self.alive(spec["group"]), self.alive(spec["other"])
            for a, b in np.argwhere(hits[0]).tolist():
                ta, tb = a_tags[a], b_tags[b]
                if self.world.exists(ta) and self.world.exists(tb) and self._pair_near(spec, ta, tb):
                    self._run(trigger["do"], {"unit": ta, "other": tb})
        for trigger in self._by_event["every_loop"]:
            self._run(trigger["do"], {})
        for trigger in self._by_event["every"]:
            if self.game.game_loop % int(trigger["when"]["every"]["loops"]) == 0:
                self._run(trigger["do"], {})
        for player_id, names in self.tracked.items():
            player = self.players[player_id]
            player.score = _score(sum(self._property(player, name) for name in names))

    def _deaths(self, deaths: list[Death]) -> None:
        if self.result is not None:
            return
        # Group membership is read before any trigger runs: one trigger's group_count prunes the dead.
        memberships = [{g for g, tags in self.groups.items() if d.tag in tags} for d in deaths]
        # Every death of the loop fires its triggers, also after one of them ended the game (as the game
        # runs one trigger per death): two Marines lost in the last loop cost 2, not 1. After the end only
        # their score actions run (`_run`), and the first result stands.
        for death, groups in zip(deaths, memberships):
            unit = {"owner": death.owner, "type": death.type_id}
            for trigger in self._by_event["unit_died"]:
                if self._matches(trigger["when"]["unit_died"], unit, groups):
                    self._run(trigger["do"], {"unit": death.tag})

    def _facts(self, tag: int) -> dict:
        i = self.world.slot(tag)
        return {"owner": int(self.world.owner[i]), "type": int(self.world.type_id[i])}

    @staticmethod
    def _matches(spec: dict, unit: dict, groups: set) -> bool:
        if "owner" in spec and unit["owner"] != spec["owner"]:
            return False
        if "type" in spec and unit["type"] != unit_type_by_name(spec["type"]).unit_id:
            return False
        return "group" not in spec or spec["group"] in groups

    # ---- conditions ---------------------------------------------------------------------------------
    def alive(self, group: str) -> list[int]:
        tags = [t for t in self.groups.get(group, []) if self.world.exists(t)]
        self.groups[group] = tags
        return tags

    def anchor(self, ref) -> np.ndarray:
        """A named point set by `set_anchor`, or {"group": g}: where the first unit of g stands."""
        if isinstance(ref, dict):
            tags = self.alive(ref["group"])
            if not tags:
                raise ScriptError(f"the anchor group {ref['group']!r} has no units left")
            return self.world.pos[self.world.slot(tags[0])].copy()
        if ref not in self.anchors:
            raise ScriptError(f"the anchor {ref!r} is used before a set_anchor sets it")
        return self.anchors[ref]

    def _near_matrix(self, spec: dict, positions: np.ndarray) -> np.ndarray | None:
        """Boolean (loops, |group|, |other|): which pairs are within `distance` at each loop."""
        a, b = self.alive(spec["group"]), self.alive(spec["other"])
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
        ((name, spec),) = condition.items()  # one condition (mapcheck)
        if name == "unit_count":
            w = self.world
            counted = (w.owner == int(spec["owner"])) & (w.health > 0)
            if spec.get("structures"):
                counted &= STRUCTURE_TYPES[w.type_id]
            count = int(counted.sum())
        else:
            count = len(self.alive(spec["group"]))
        return (
            count <= spec.get("at_most", count)
            and count >= spec.get("at_least", count)
            and count == spec.get("equals", count)
        )

    @staticmethod
    def _property(player, name: str) -> float:
        return getattr(player, name) if hasattr(player, name) else getattr(player.stats, name)

    # ---- actions ------------------------------------------------------------------------------------
    def _run(self, actions: list, ctx: dict) -> None:
        for action in actions:
            name = next(key for key in action if key not in mapcheck.BRANCHES)
            if self.result is not None and name != "score":
                continue  # the game has ended: what happened in its last loop still scores, nothing else runs
            handler: Callable = getattr(self, f"_do_{name}")
            try:
                handler(action, ctx)
            except ScriptError as e:  # the innermost action names itself; those round it pass it on
                if e.where is None:
                    raise ScriptError(str(e), where=f"{self._where.get(id(action), '?')}.{name}") from None
                raise

    def _unit(self, ref, ctx: dict) -> int:
        return ctx[ref] if isinstance(ref, str) else int(ref)

    def _tags(self, ref, ctx: dict) -> list[int]:
        """Units an action applies to: "unit" / "other" from the context, {"group": g}, or {"owner": p} (every
        living unit of player p)."""
        if isinstance(ref, dict) and "owner" in ref:
            w = self.world
            return w.tag[(w.owner == int(ref["owner"])) & (w.health > 0)].tolist()
        if isinstance(ref, dict):
            return self.alive(ref["group"])
        tag = self._unit(ref, ctx)
        return [tag] if self.world.exists(tag) else []

    def _join(self, group: str | None, tags: list[int]) -> None:
        if group:
            self.groups.setdefault(group, []).extend(tags)

    def _do_spawn(self, action: dict, ctx: dict) -> None:
        spec = action["spawn"]
        unit_type = unit_type_by_name(spec["type"])
        group = spec.get("group")
        count = int(spec.get("count", 1))
        owner = int(spec.get("owner", 1))
        if self.world.n + count > MAX_UNITS:
            raise ScriptError(
                f"{count} more units would make {self.world.n + count}, over the engine's {MAX_UNITS} at once"
            )
        at = spec.get("at", {"region": "playable_area"})
        tags = []
        for x, y in placements.points(self, at, count, group).tolist():
            facing = float(spec["facing"]) if "facing" in spec else float(self.rng.uniform(0, 2 * np.pi))
            tag = self.game.spawn_unit(unit_type, owner, x, y, facing, place=True)
            if "health" in spec:
                self.world.health[self.world.slot(tag)] = float(spec["health"])
            tags.append(tag)
            # Keep later points of the same spawn away from this unit too (away_from its own group).
            self._join(group, [tag])
        if spec.get("select") and owner in self.players:
            self.players[owner].selection.extend(tags)

    def _do_recreate(self, action: dict, ctx: dict) -> None:
        """Replace each unit of a group by a new one of the same type and owner at `at`, keeping its life
        (new tags: orders, selection and control groups lose it)."""
        spec = action["recreate"]
        group = spec["group"]
        old = self.alive(group)
        points = placements.points(self, spec["at"], len(old)) if old else np.empty((0, 2))
        new = []
        for tag, (x, y) in zip(old, np.asarray(points).tolist()):
            i = self.world.slot(tag)
            unit_type, owner, life = (
                self.world.types[i],
                int(self.world.owner[i]),
                float(self.world.health[i]),
            )
            facing = float(self.world.facing[i])
            self.game.remove_unit(tag)
            new_tag = self.game.spawn_unit(unit_type, owner, x, y, facing, place=True)
            self.world.health[self.world.slot(new_tag)] = life
            new.append(new_tag)
        self.groups[group] = new

    def _do_arrange(self, action: dict, ctx: dict) -> None:
        """Teleport every unit of a group to the points of `at` (a formation), in group order, each to the
        nearest free spot to its point: a column running past the playable area (DefeatRoaches' later waves)
        or onto another unit must not leave units stacked on one point, which idle units never leave."""
        spec = action["arrange"]
        tags = self.alive(spec["group"])
        if not tags:
            return
        w = self.world
        rows = [w.slot(tag) for tag in tags]
        hidden = w.hidden[rows].copy()
        w.hidden[rows] = True  # the group's old places don't block its new ones
        for tag, row, was_hidden, (x, y) in zip(
            tags, rows, hidden, placements.points(self, spec["at"], len(tags)).tolist()
        ):
            w.teleport(tag, *w.free_spot(x, y, float(w.radius[row])))
            w.hidden[row] = was_hidden
        w.settle()

    def _do_move_unit(self, action: dict, ctx: dict) -> None:
        spec = action["move_unit"]
        tag = self._unit(spec["unit"], ctx)
        if not self.world.exists(tag):
            return  # removed by an earlier action of the same trigger
        x, y = placements.points(self, spec["to"], 1)[0]
        self.world.teleport(tag, float(x), float(y))

    def _do_set_anchor(self, action: dict, ctx: dict) -> None:
        spec = action["set_anchor"]
        self.anchors[spec["name"]] = placements.points(self, spec["at"], 1)[0]

    def _do_random(self, action: dict, ctx: dict) -> None:
        """Run one of the listed action lists, chosen uniformly."""
        branches = action["random"]
        self._run(branches[int(self.rng.integers(len(branches)))], ctx)

    def _do_remove(self, action: dict, ctx: dict) -> None:
        spec = action["remove"]
        if isinstance(spec, dict) and "all_except" in spec:
            keep = {t for g in spec["all_except"] for t in self.alive(g)}
            tags = [t for t in self.world.tag.tolist() if t not in keep]
            self.game.combat.cancel_missiles()
        else:
            tags = self._tags(spec, ctx)
        for tag in tags:
            if self.world.exists(tag):
                self.game.remove_unit(tag)

    def _do_order(self, action: dict, ctx: dict) -> None:
        """Command a group as the map script does (regardless of command-card restrictions)."""
        spec = action["order"]
        w = self.world
        target = None
        if "target" in spec:
            targets = self._tags(spec["target"], ctx)
            if not targets:
                return  # the target is gone (a mined-out field): the order is lost, as in the game
            target = targets[0]
        candidates: list[int] = []
        if "closest" in spec:
            candidates = [w.slot(t) for t in self._tags(spec["closest"], ctx)]
            if not candidates:
                return  # nobody to go at: the map's order targets no unit and is lost
        point = tuple(spec["point"]) if "point" in spec else None
        if "point_between" in spec:  # one point for the whole order, from the game's seeded generator
            ends = np.array(spec["point_between"], float)
            point = tuple(float(v) for v in self.rng.uniform(ends.min(axis=0), ends.max(axis=0)))
        for tag in self._tags(spec["units"], ctx):
            i = w.slot(tag)
            if spec.get("idle_only") and (w.orders[i] or w.engaged[i]):
                continue  # busy: an order of its own, or a target it acquired
            if candidates:
                d = w.pos[candidates] - w.pos[i]
                target = int(w.tag[candidates[int(np.argmin(np.hypot(d[:, 0], d[:, 1])))]])
            ability = specific_ability(spec["ability"], w.types[i].command_card) or spec["ability"]
            self.game.orders.issue(i, ability, point, target, bool(spec.get("queued", False)))

    def _do_give(self, action: dict, ctx: dict) -> None:
        spec = action["give"]
        to = spec["to"]
        if isinstance(to, str) and not self.world.exists(ctx[to]):
            return  # removed by an earlier action of the same trigger: its owner is not known any more
        player_id = int(self.world.owner[self.world.slot(ctx[to])]) if isinstance(to, str) else int(to)
        player = self.players.get(player_id)
        if player is not None:
            player.minerals = min(player.minerals + int(spec.get("minerals", 0)), MAX_RESOURCES)
            player.vespene = min(player.vespene + int(spec.get("vespene", 0)), MAX_RESOURCES)

    def _do_set_player(self, action: dict, ctx: dict) -> None:
        spec = action["set_player"]
        player = self.players[int(spec.get("player", self.game.player_id))]
        for key in ("minerals", "vespene"):
            if key in spec:
                setattr(player, key, int(spec[key]))

    def _do_score(self, action: dict, ctx: dict) -> None:
        """`add` n, `set` n or {player_property, divide}, or `track` a list of statistics from now on."""
        spec = action["score"]
        player_id = int(spec.get("player", self.game.player_id))
        player = self.players[player_id]
        if "add" in spec:
            player.score = _score(player.score + int(spec["add"]))
        elif "track" in spec:
            self.tracked[player_id] = list(spec["track"])
        elif isinstance(spec.get("set"), dict):
            source = spec["set"]
            player.score = _score(
                self._property(player, source["player_property"]) // source.get("divide", 1)
            )
        else:
            player.score = _score(spec["set"])

    def _do_if(self, action: dict, ctx: dict) -> None:
        branch = "then" if self._check(action["if"]) else "else"
        self._run(action.get(branch, []), ctx)

    def _do_run(self, action: dict, ctx: dict) -> None:
        self._run(self.definition.procedures[action["run"]], ctx)

    def _do_select(self, action: dict, ctx: dict) -> None:
        spec = action["select"]
        player = self.players[int(spec.get("player", self.game.player_id))]
        base = player.selection if spec.get("add") else []
        player.selection = base + [t for t in self.alive(spec["group"]) if t not in base]

    def _do_end_game(self, action: dict, ctx: dict) -> None:
        if self.result is None:
            self.result = RESULTS[action["end_game"].get("result", "Tie")]


def _score(value: float) -> int:
    """A score as the game keeps it: whole, and within int32 (what it travels as)."""
    return int(min(max(value, -_INT32), _INT32))
