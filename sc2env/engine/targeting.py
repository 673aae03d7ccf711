"""Targeting: which unit each armed unit attacks (acquiring, keeping and giving up targets), chasing, and when it
fires; decided before each batch of loops."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from sc2env.engine.fast import count_nonzero as _count
from sc2env.engine.type_tables import per_type, type_mask
from sc2env.engine.unit_states import CombatMode
from sc2env.gamedata.units import AIR, GROUND

if TYPE_CHECKING:
    from sc2env.engine.game import Game

# While units fight, decisions (targets, chasing, firing) are taken every TICK loops. A weapon that became
# ready in between fires at the next decision with its cooldown shortened by the wait, so rates of fire stay
# exact; a shot lands at most TICK - 1 loops late (the game's own random attack delay spans 3 loops).
TICK = 4
_LEASH = 21.0  # how far an idle unit chases from where it acquired its target (AcquireLeashRadius)
_RANGE_SLOP = 1.0  # a unit already firing keeps its target until it is this far beyond range
_SLACK = 1e-6  # distance tolerance of range checks (float noise of units resting exactly at a range)
# Per unit type id (index with World.type_id): how close it attacks from and how far it looks for targets, whether
# it acquires targets by itself, whether it can be attacked, and its target preference: lower is preferred,
# threats first, then AttackTargetPriority (units 20, structures 11).
_ATTACK_RANGE = per_type(lambda t: t.attack_range)
_SCAN_RANGE = per_type(lambda t: t.scan_range)
_AUTO_ACQUIRES = type_mask(lambda t: t.auto_acquire and t.can_attack)
_TARGETABLE = type_mask(lambda t: not t.invulnerable and t.health > 0)
_CAN_ATTACK = type_mask(lambda t: t.can_attack)
# By attacker type id: which planes its weapon hits (1 ground, 2 air, 3 both; a burst hits the ground), and by
# target type id its planes (2 for air units, 3 for the Colossus, hit from both).
_HITS = per_type(
    lambda t: t.weapon.target if t.weapon is not None else GROUND if t.burst is not None else 0, np.int8
)
_PLANE = per_type(lambda t: t.planes, np.int8)
_PREFERENCE = per_type(lambda t: (0 if t.can_attack else 1000) + (20 - (11 if t.structure else 20)) * 100)


@dataclass(frozen=True)
class _Targets:
    """The rows units may attack, and what choosing among them needs."""

    rows: np.ndarray
    owners: np.ndarray
    radii: np.ndarray
    boxes: bool  # some is a structure or resource, measured to its footprint box
    preference: np.ndarray  # lower is preferred (see _PREFERENCE)
    index_of: dict[int, int]  # tag -> its position among the rows
    tags: list[int]
    tiers: list[float] | None  # the preferences, when they differ in tier (else no tier decides anything)
    air: bool  # some is an air unit


@dataclass(frozen=True)
class _RowFacts:
    """Per-row constants of targeting, kept while the rows stay (World.per_rows): each row's attack range, scan
    range and whether it acquires by itself (as lists), which rows may be attacked, and those targets when no
    unit is hidden."""

    ranges: list[float]
    scans: list[float]
    autos: list[bool]
    targetable: np.ndarray
    targets: _Targets
    can_attack: np.ndarray  # which rows have a weapon
    hostile: np.ndarray  # rows x targets: which may attack which (see _hostile; read only)


@dataclass(slots=True)  # made before every batch: a frozen dataclass's __init__ costs several times more
class _Decisions:
    """Per armed unit: its target (index among the targets, -1 for none), whether that is in range, whether it
    looks for another, whether it acquires targets by itself, how far it looks and from how close it attacks;
    and which units look only for a target of a better tier."""

    target: list[int]
    in_range: list[bool]
    wants: list[bool]
    acquiring: list[bool]
    scan: list[float]
    reach: list[float]
    upgrading: set[int]


def _hostile(owners: np.ndarray, kinds: np.ndarray, targets: _Targets, type_id: np.ndarray) -> np.ndarray:
    """Attackers (their owners and type ids) x targets: whether each may take each as a target (an enemy, in a
    plane its weapon hits; `type_id`: every row's type id)."""
    hostile = owners[:, None] != targets.owners
    if targets.air:  # a weapon that can't hit a unit's plane never takes it as a target
        hostile &= (_HITS[kinds][:, None] & _PLANE[type_id[targets.rows]]) != 0
    return hostile


class Targeting:
    """The targeting of one game. `decide` runs before each batch of loops: each armed unit keeps, gives up or
    acquires a target, chases it or stops in range, and fires when its weapon is ready (`fire(row, target
    row, loops late)`)."""

    def __init__(self, game: Game, fire: Callable[[int, int, float], None]):
        self.game = game
        self.world = game.world
        self._fire = fire
        # Tags of the units that were out of range of their targets at the last decision.
        self._chasing: set[int] = set()

    def decide(self, limit: int) -> int:
        """Take the decisions; returns how many loops, up to `limit`, may pass before the next ones."""
        w = self.world
        facts = w.per_rows("combat", self._row_facts)
        armed, targets = self._armed_and_targets(facts)
        if not len(armed) or not len(targets.rows):
            return limit
        if targets is facts.targets:  # no one hidden: the rows' table, kept per rows
            hostile = facts.hostile if len(armed) == w.n else facts.hostile[armed]
        else:
            hostile = _hostile(w.owner[armed], w.type_id[armed], targets, w.type_id)
        engaged = w.engaged[armed]
        if not _count(hostile) and not _count(engaged):
            return limit  # one side only and no explicit attacks: nothing to fight
        gap = self._gaps(armed, targets.rows, targets.radii, targets.boxes)
        modes = w.mode[armed]
        decisions = self._judge_targets(armed, modes, engaged, gap, targets, facts)
        self._acquire(decisions, gap, hostile, targets)
        new_targets = [targets.tags[c] if c >= 0 else 0 for c in decisions.target]
        self._apply(armed, engaged, new_targets, decisions.in_range, modes)
        if any(new_targets):
            limit = min(limit, TICK)
        # The approach bound is at least a tick: with limit <= TICK it could not shorten the batch.
        if limit > TICK:
            quiet = np.array([a and not e for a, e in zip(decisions.acquiring, new_targets)])
            if _count(quiet):
                room = gap[quiet] - np.array(decisions.scan)[quiet][:, None]
                limit = self._approach_bound(limit, armed[quiet], targets.rows, room, hostile[quiet])
        return limit

    def _row_facts(self) -> _RowFacts:
        w = self.world
        kinds = w.type_id
        targetable = _TARGETABLE[kinds] & (w.owner != 0)
        targets = self._targets(targetable.nonzero()[0])
        return _RowFacts(
            _ATTACK_RANGE[kinds].tolist(),
            _SCAN_RANGE[kinds].tolist(),
            _AUTO_ACQUIRES[kinds].tolist(),
            targetable,
            targets,
            _CAN_ATTACK[kinds],
            _hostile(w.owner, kinds, targets, kinds),
        )

    def _armed_and_targets(self, facts: _RowFacts) -> tuple[np.ndarray, _Targets]:
        """The rows whose orders let them use a weapon, and the rows they may attack (no hidden unit is
        either: workers inside a refinery)."""
        w = self.world
        mode = w.mode
        if _count(w.hidden):
            seen = ~w.hidden
            armed = ((mode != CombatMode.PASSIVE) & seen & _CAN_ATTACK[w.type_id]).nonzero()[0]
            return armed, self._targets((facts.targetable & seen).nonzero()[0])
        return ((mode != CombatMode.PASSIVE) & facts.can_attack).nonzero()[0], facts.targets

    def _targets(self, rows: np.ndarray) -> _Targets:
        w = self.world
        tags = w.tag[rows].tolist()
        preference = _PREFERENCE[w.type_id[rows]]
        # Only worth a look at each decision when the targets' tiers differ (tiers are 100 or more apart).
        tiers = preference.tolist() if len(rows) > 1 and np.ptp(preference) >= 100 else None
        return _Targets(
            rows,
            w.owner[rows],
            w.radius[rows],
            bool(_count(w.obstacle[rows])),
            preference,
            {tag: k for k, tag in enumerate(tags)},
            tags,
            tiers,
            bool(_count(_PLANE[w.type_id[rows]] & AIR)),
        )

    def _judge_targets(
        self,
        armed: np.ndarray,
        modes: np.ndarray,
        engaged: np.ndarray,
        gap: np.ndarray,
        targets: _Targets,
        facts: _RowFacts,
    ) -> _Decisions:
        """Per armed unit, in Python (a few dozen at most): the target it has, whether that is in range, and
        whether it should look for another. A unit keeps a target it acquired while in range, unless one of a
        better tier (threat, then priority) comes into range."""
        w = self.world
        ranges, scans, autos, index_of, tiers = (
            facts.ranges,
            facts.scans,
            facts.autos,
            targets.index_of,
            targets.tiers,
        )
        best_tier = min(tiers) if tiers is not None else math.inf  # (only read when tiers differ)
        firing, gaps = w.firing[armed].tolist(), gap.tolist()
        target_of: list[int] = []
        in_range: list[bool] = []
        wants: list[bool] = []
        acquiring: list[bool] = []
        scan: list[float] = []
        reach_of: list[float] = []
        upgrading: set[int] = set()
        holding_mode, idle_mode, attack_move, attack_unit = (
            CombatMode.HOLDING,
            CombatMode.IDLE,
            CombatMode.ATTACK_MOVE,
            CombatMode.ATTACK_UNIT,
        )
        for k, (i, mode, tag) in enumerate(zip(armed.tolist(), modes.tolist(), engaged.tolist())):
            reach = ranges[i]
            holding, idle = mode == holding_mode, mode == idle_mode
            acquires = mode == attack_move or holding or (idle and autos[i])
            target = index_of.get(tag, -1)
            if idle and target >= 0 and self._beyond_leash(i):  # chased too far from where it acquired it
                target = -1
            if target >= 0:
                gap_now = gaps[k][target]
                near = gap_now <= reach + _SLACK or (firing[k] and gap_now <= reach + _RANGE_SLOP)
            else:
                near = False  # (no gap is within an infinite distance's reach)
            # Look for another when there is none, or the target is out of reach while another may be in it.
            another = acquires and (target < 0 or (not near and mode != attack_unit))
            if tiers is not None and acquires and target >= 0 and near and tiers[target] > best_tier:
                another = True
                upgrading.add(k)
            target_of.append(target)
            in_range.append(near)
            wants.append(another)
            acquiring.append(acquires)
            scan.append(reach if holding else scans[i])
            reach_of.append(reach)
        return _Decisions(target_of, in_range, wants, acquiring, scan, reach_of, upgrading)

    def _beyond_leash(self, i: int) -> bool:
        """Whether row i is further than the leash from where it acquired its target."""
        (x, y), (x0, y0) = self.world.pos[i].tolist(), self.world.leash[i].tolist()
        return (x - x0) * (x - x0) + (y - y0) * (y - y0) > _LEASH * _LEASH

    def _acquire(
        self, decisions: _Decisions, gap: np.ndarray, hostile: np.ndarray, targets: _Targets
    ) -> None:
        """Give the units that look for a target the best hostile one within their scan range: threats, then
        priority, then the nearest (a unit upgrading keeps its target unless the new one is in range)."""
        wanting = [k for k, wants in enumerate(decisions.wants) if wants]
        if not wanting:
            return
        if len(wanting) == len(decisions.wants):  # everyone looks: no rows to gather
            gap_w, hostile_w, scan = gap, hostile, np.array(decisions.scan)
        else:
            gap_w, hostile_w = gap[wanting], hostile[wanting]
            scan = np.array([decisions.scan[k] for k in wanting])
        candidates = hostile_w & (gap_w <= scan[:, None] + _SLACK)
        if not _count(candidates):
            return
        key = np.where(candidates, gap_w + targets.preference, np.inf)
        best = key.argmin(axis=1)
        picked = np.arange(len(wanting))
        target_of, in_range, tiers = decisions.target, decisions.in_range, targets.tiers
        found = zip(wanting, best.tolist(), key[picked, best].tolist(), gap_w[picked, best].tolist())
        for k, b, best_key, best_gap in found:
            reach = decisions.reach[k]
            if (
                k in decisions.upgrading
                and tiers is not None
                and not (best_gap <= reach + _SLACK and tiers[b] < tiers[target_of[k]] - 50)
            ):
                continue  # no better tier within range: the target in range stays
            if math.isfinite(best_key) and (target_of[k] < 0 or best_gap <= reach):
                target_of[k], in_range[k] = b, best_gap <= reach + _SLACK

    def _gaps(
        self, armed: np.ndarray, targets: np.ndarray, target_radii: np.ndarray, boxes: bool
    ) -> np.ndarray:
        """Edge-to-edge distances (armed x targets); structures are measured to their footprint box."""
        w = self.world
        every = len(armed) == w.n  # every row is armed (often every row is a target too): no gathering
        armed_pos = w.pos if every else w.pos[armed]
        target_pos = w.pos if len(targets) == w.n else w.pos[targets]  # every row a target: no gathering
        armed_radii = (w.radius if every else w.radius[armed])[:, None]
        dx = armed_pos[:, 0, None] - target_pos[:, 0]
        dy = armed_pos[:, 1, None] - target_pos[:, 1]
        if not boxes:  # the squares don't need the absolute values
            return np.sqrt(dx * dx + dy * dy) - target_radii - armed_radii
        dx, dy = np.abs(dx), np.abs(dy)
        gap = np.sqrt(dx * dx + dy * dy) - target_radii
        half = w.half[targets]
        out_x = np.maximum(dx - half[:, 0], 0.0)  # how far outside a box, along each axis
        out_y = np.maximum(dy - half[:, 1], 0.0)
        gap = np.where(w.obstacle[targets], np.sqrt(out_x * out_x + out_y * out_y), gap)
        return gap - armed_radii

    def _approach_bound(self, limit: int, quiet, targets, room, hostile) -> int:
        """Loops before an acquiring unit and an enemy could come within scan range of each other."""
        w = self.world
        closing = (w.speed[quiet] * w.moving[quiet])[:, None] + w.speed[targets] * w.moving[targets]
        pairs = hostile & (closing > 0)
        if not _count(pairs):
            return limit
        loops = np.floor((room[pairs] - _SLACK) / closing[pairs]).min()
        # Acquiring is a combat decision too: it may come up to a tick late.
        return int(max(1, min(limit, max(loops, TICK))))

    def _apply(
        self, armed: np.ndarray, old: np.ndarray, new: list[int], in_range: list[bool], modes: np.ndarray
    ) -> None:
        """Commit the armed rows' targets (tags, 0 for none): units that lost theirs carry on, the others
        chase, stop in range or fire.

        Unit by unit in Python (few units), in these phases: each unit's state is read when its phase comes,
        and only a unit's own phase changes it."""
        rows, before, mode_of = armed.tolist(), old.tolist(), modes.tolist()
        if new != before:  # (most decisions keep every target)
            self.world.engaged[armed] = new
        self._carry_on(rows, before, new, mode_of)
        inside = self._close_in(rows, before, new, in_range, mode_of)
        self._fire_when_ready(armed, rows, new, in_range, inside)

    def _carry_on(self, rows: list[int], before: list[int], new: list[int], modes: list[int]) -> None:
        """Units that lost their target stop firing; an Attack order on it is done, others resume."""
        w, orders = self.world, self.game.orders
        lost = [k for k, tag in enumerate(new) if not tag and before[k]]
        for k in lost:
            w.firing[rows[k]] = False
        for k in lost:
            if modes[k] == CombatMode.ATTACK_UNIT:
                orders.complete(rows[k])
            elif modes[k] != CombatMode.HOLDING:
                orders.resume(rows[k])

    def _close_in(
        self, rows: list[int], before: list[int], new: list[int], in_range: list[bool], modes: list[int]
    ) -> list[int]:
        """Units out of range chase their target (Hold Position never chases: it lets the target go); those
        in range stop. Returns the latter (positions in `rows`)."""
        w = self.world
        inside = []
        for k, tag in enumerate(new):
            if not tag:
                continue
            if in_range[k]:
                inside.append(k)
                continue
            i = rows[k]
            if modes[k] == CombatMode.HOLDING:
                w.engaged[i] = 0
            elif w.goal_tag[i] != tag or not w.moving[i]:
                w.firing[i] = False
                w.move_to(i, tag=tag, reach=w.types[i].attack_range)
                if modes[k] == CombatMode.IDLE and before[k] == 0:
                    w.leash[i] = w.pos[i]
        for k in inside:
            if w.moving[rows[k]]:
                w.halt(rows[k])
        return inside

    def _fire_when_ready(
        self, armed: np.ndarray, rows: list[int], new: list[int], in_range: list[bool], inside: list[int]
    ) -> None:
        """Units in range whose weapon is ready fire.

        A unit that was out of range at the last plan reached its target at this batch's start (a chase's leg
        ends a batch): its attack starts now, however long its weapon has been ready. One that stood in range
        attacks from when its weapon became ready, within the last tick."""
        w = self.world
        chased = self._chasing
        # Each column read once for every armed unit: the tags stay, and the cooldowns are those before anyone
        # fires (firing changes only the shooter's own).
        tags = w.tag[armed].tolist()
        self._chasing = {tags[k] for k, tag in enumerate(new) if tag and not in_range[k]}
        if not inside:
            return
        cooldowns = w.cooldown[armed].tolist()
        for k in [k for k in inside if cooldowns[k] <= 0]:
            tag = new[k]
            if w.exists(tag):
                late = 0.0 if tags[k] in chased else float(min(-cooldowns[k], TICK - 1))
                self._fire(rows[k], w.slot(tag), late)
