"""Weapons: target acquisition, chasing, firing on cooldown, missiles, damage after armor, splash, deaths."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from sc2env.engine.fast import count_nonzero as _count
from sc2env.engine.type_tables import per_type, type_mask
from sc2env.engine.unit_states import CombatMode

if TYPE_CHECKING:
    from sc2env.engine.game import Game

_LEASH = 21.0  # how far an idle unit chases from where it acquired its target (AcquireLeashRadius)
_CALL_FOR_HELP = 4.0  # idle allies this close to a damaged unit join in
_RANGE_SLOP = 1.0  # a unit already firing keeps its target until it is this far beyond range
_MIN_DAMAGE = 0.5
_RANDOM_DELAY = (-1.0, 2.0)  # loops added to each cooldown (game data RandomDelayMin/Max)
# While units fight, decisions (targets, chasing, firing) are taken every TICK loops. A weapon that became
# ready in between fires at the next decision with its cooldown shortened by the wait, so rates of fire stay
# exact; a shot lands at most TICK - 1 loops late (the game's own random attack delay spans 3 loops).
TICK = 4
_SLACK = 1e-6  # distance tolerance of range checks (float noise of units resting exactly at a range)
# Per unit type id (index with World.type_id): how close it attacks from and how far it looks for targets, whether
# it acquires targets by itself, whether it can be attacked, and its target preference: lower is preferred,
# threats first, then AttackTargetPriority (units 20, structures 11).
_ATTACK_RANGE = per_type(lambda t: t.attack_range)
_SCAN_RANGE = per_type(lambda t: t.scan_range)
_AUTO_ACQUIRES = type_mask(lambda t: t.auto_acquire and t.can_attack)
_TARGETABLE = type_mask(lambda t: not t.invulnerable and t.health > 0)
_PREFERENCE = per_type(lambda t: (0 if t.can_attack else 1000) + (20 - (11 if t.structure else 20)) * 100)


@dataclass
class Hit:
    """Damage on its way: lands at game loop `due` (after the damage point, and a missile's flight)."""

    due: int
    attacker: int
    owner: int
    target: int
    damage: float
    bonus: tuple
    launch: int = 0
    """The loop its damage point ends (0 once passed): an attacker that dies before then lands nothing, as in
    the game's attack cycle; a missile already launched flies on."""


@dataclass
class Death:
    """A unit that died this loop, for the map's triggers and the score."""

    tag: int
    owner: int
    type_id: int
    killer_owner: int


class Combat:
    """Fighting in one game. `plan` runs before each batch of loops (targets, chasing, firing) and says how
    many loops can pass before the next combat decision; `advance` runs after it (cooldowns, regeneration,
    landing hits, deaths)."""

    def __init__(self, game: Game):
        self.game = game
        self.world = game.world
        self.hits: list[Hit] = []
        self.deaths: list[Death] = []
        self._chasing: set[int] = set()  # tags of the units out of range of their targets at the last plan

    # ---- queries ------------------------------------------------------------------------------------
    def attackable(self, i: int, j: int) -> bool:
        """Whether row i can attack row j at all (explicit Attack orders, including on own units)."""
        w = self.world
        t = w.types[j]
        return w.types[i].can_attack and not t.invulnerable and t.health > 0 and not w.hidden[j] and i != j

    # ---- before a batch -----------------------------------------------------------------------------
    def plan(self, loop: int, limit: int) -> int:
        w = self.world
        if self.hits:
            limit = self._hit_bound(loop, limit)
        if w.n < 2:
            return limit
        mode = w.mode
        rows, targetable, cached = w.per_rows("combat", self._row_stats)
        if _count(w.hidden):
            seen = ~w.hidden
            armed = ((mode != CombatMode.PASSIVE) & seen).nonzero()[0]
            targets = (targetable & seen).nonzero()[0]
            target = self._target_stats(targets)
        else:
            armed = (mode != CombatMode.PASSIVE).nonzero()[0]
            targets, target = cached
        if not len(armed) or not len(targets):
            return limit
        target_owners, target_radius, boxes, preference, index_of, tag_list, tiers = target
        hostile = w.owner[armed][:, None] != target_owners
        engaged = w.engaged[armed]
        if not _count(hostile) and not _count(engaged):
            return limit  # one side only and no explicit attacks: nothing to fight
        gap = self._gaps(armed, targets, target_radius, boxes)
        mode = mode[armed]
        # Per armed unit, in Python (a few dozen at most): the target it has (index into targets, -1 for
        # none), whether that is in range, and whether it should look for another.
        ranges, scans, autos = rows
        armed_rows, modes, tags = armed.tolist(), mode.tolist(), engaged.tolist()
        firing, gaps = w.firing[armed].tolist(), gap.tolist()
        # A unit keeps a target it acquired while in range, unless one of a better tier (threat, then priority)
        # comes into range (`upgrade`: the units that look for one).
        current, in_range, want, acquiring, scan, upgrade = [], [], [], [], [], set()
        best_tier = min(tiers) if tiers is not None else None
        for k, i in enumerate(armed_rows):
            m, reach = modes[k], ranges[i]
            holding, idle = m == CombatMode.HOLDING, m == CombatMode.IDLE
            scan.append(reach if holding else scans[i])
            acquiring.append(m == CombatMode.ATTACK_MOVE or holding or (idle and autos[i]))
            c = index_of.get(tags[k], -1)
            if idle and c >= 0:  # chased too far from where it acquired its target: give up
                (x, y), (x0, y0) = w.pos[i].tolist(), w.leash[i].tolist()
                if (x - x0) * (x - x0) + (y - y0) * (y - y0) > _LEASH * _LEASH:
                    c = -1
            gap_now = gaps[k][c] if c >= 0 else np.inf
            near = gap_now <= reach + _SLACK or (firing[k] and gap_now <= reach + _RANGE_SLOP)
            current.append(c)
            in_range.append(near)
            # Re-acquire when there is no target, or the target is out of reach while another is in range.
            want.append(acquiring[k] and (c < 0 or (not near and m != CombatMode.ATTACK_UNIT)))
            if tiers is not None and acquiring[k] and c >= 0 and near and tiers[c] > best_tier:
                want[-1] = True
                upgrade.add(k)
        wanting = [k for k, w_k in enumerate(want) if w_k]
        if wanting:  # the best hostile target within scan: threats, then priority, then the nearest
            gap_w = gap[wanting]
            candidates = hostile[wanting] & (gap_w <= np.array([scan[k] for k in wanting])[:, None] + _SLACK)
            if _count(candidates):
                key = np.where(candidates, gap_w + preference, np.inf)
                best = key.argmin(axis=1)
                picked = np.arange(len(wanting))
                found = zip(wanting, best.tolist(), key[picked, best].tolist(), gap_w[picked, best].tolist())
                for k, b, best_key, best_gap in found:
                    reach = ranges[armed_rows[k]]
                    if k in upgrade and not (
                        best_gap <= reach + _SLACK and tiers[b] < tiers[current[k]] - 50
                    ):
                        continue  # no better tier within range: the target in range stays
                    if math.isfinite(best_key) and (current[k] < 0 or best_gap <= reach):
                        current[k], in_range[k] = b, best_gap <= reach + _SLACK
        new_engaged = [tag_list[c] if c >= 0 else 0 for c in current]
        self._apply(armed, engaged, new_engaged, in_range, mode)
        if any(new_engaged):
            limit = min(limit, TICK)
        # The approach bound is at least a tick: with limit <= TICK it could not shorten the batch.
        if limit > TICK:
            quiet = np.array([a and not e for a, e in zip(acquiring, new_engaged)])
            if _count(quiet):
                limit = self._approach_bound(
                    limit, armed[quiet], targets, gap[quiet] - np.array(scan)[quiet][:, None], hostile[quiet]
                )
        return limit

    def _row_stats(self) -> tuple:
        """((weapon range, scan range, auto-acquires) of each row as lists, targetable rows, (targets, their
        stats) when none is hidden): per-row constants."""
        w = self.world
        kinds = w.type_id
        targetable = _TARGETABLE[kinds] & (w.owner != 0)
        targets = targetable.nonzero()[0]
        rows = _ATTACK_RANGE[kinds].tolist(), _SCAN_RANGE[kinds].tolist(), _AUTO_ACQUIRES[kinds].tolist()
        return rows, targetable, (targets, self._target_stats(targets))

    def _target_stats(self, targets: np.ndarray) -> tuple:
        """Owners and radii of rows `targets`, whether any is a structure (measured to its box), their target
        preference, each one's position among them by tag, their tags, and their preferences as a list when
        they differ in tier (else None)."""
        w = self.world
        tags = w.tag[targets].tolist()
        preference = _PREFERENCE[w.type_id[targets]]
        # Only worth a look at each decision when the targets' tiers differ (tiers are 100 or more apart).
        tiers = preference.tolist() if len(targets) > 1 and np.ptp(preference) >= 100 else None
        return (
            w.owner[targets],
            w.radius[targets],
            bool(_count(w.obstacle[targets])),
            preference,
            {tag: k for k, tag in enumerate(tags)},
            tags,
            tiers,
        )

    def _gaps(self, a: np.ndarray, t: np.ndarray, radius_t: np.ndarray, boxes: bool) -> np.ndarray:
        """Edge-to-edge distances (armed x targets); structures are measured to their footprint box."""
        w = self.world
        every = len(a) == w.n  # every row is armed (often every row is a target too): no gathering
        pa = w.pos if every else w.pos[a]
        pt = pa if every and len(t) == w.n else w.pos[t]
        radius_a = (w.radius if every else w.radius[a])[:, None]
        dx = pa[:, 0, None] - pt[:, 0]
        dy = pa[:, 1, None] - pt[:, 1]
        if not boxes:  # the squares don't need the absolute values
            return np.sqrt(dx * dx + dy * dy) - radius_t - radius_a
        dx, dy = np.abs(dx), np.abs(dy)
        gap = np.sqrt(dx * dx + dy * dy) - radius_t
        half = w.half[t]
        ox = np.maximum(dx - half[:, 0], 0.0)
        oy = np.maximum(dy - half[:, 1], 0.0)
        gap = np.where(w.obstacle[t], np.sqrt(ox * ox + oy * oy), gap)
        return gap - radius_a

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

    def _apply(self, armed, old, engaged: list[int], in_range: list[bool], mode) -> None:
        """Commit targets (tags, 0 for none; per armed row): chase, stop in range, fire; units that lost
        their target carry on."""
        w, orders = self.world, self.game.orders
        w.engaged[armed] = engaged
        # Unit by unit in Python (few units), in the phases below: each unit's state is read when its
        # phase comes, and only a unit's own phase changes it.
        rows, before, now, near, modes = armed.tolist(), old.tolist(), engaged, in_range, mode.tolist()
        lost = [k for k, tag in enumerate(now) if not tag and before[k]]
        for k in lost:
            w.firing[rows[k]] = False
        for k in lost:
            if modes[k] == CombatMode.ATTACK_UNIT:
                orders.complete(rows[k])
            elif modes[k] != CombatMode.HOLDING:
                orders.resume(rows[k])
        inside = []
        for k, tag in enumerate(now):
            if not tag:
                continue
            if near[k]:
                inside.append(k)
                continue
            i = rows[k]
            if modes[k] == CombatMode.HOLDING:
                w.engaged[i] = 0  # Hold Position never chases
            elif w.goal_tag[i] != tag or not w.moving[i]:
                w.firing[i] = False
                w.move_to(i, tag=tag, reach=w.types[i].attack_range)
                if modes[k] == CombatMode.IDLE and before[k] == 0:
                    w.leash[i] = w.pos[i]
        for k in inside:
            if w.moving[rows[k]]:
                w.halt(rows[k])
        # A unit that was out of range at the last plan reached its target at this batch's start (a chase's leg
        # ends a batch): its attack starts now, however long its weapon has been ready. One that stood in range
        # attacks from when its weapon became ready, within the last tick.
        chased = self._chasing
        self._chasing = {int(w.tag[rows[k]]) for k, tag in enumerate(now) if tag and not near[k]}
        for k in [k for k in inside if w.cooldown[rows[k]] <= 0]:
            i, tag = rows[k], now[k]
            if w.exists(tag):
                late = 0.0 if int(w.tag[i]) in chased else float(min(-w.cooldown[i], TICK - 1))
                self._fire(i, w.slot(tag), late)

    def _hit_bound(self, loop: int, limit: int) -> int:
        """Hits land at the end of the batch they fall in, at most a tick late."""
        if not self.hits:
            return limit
        return max(1, min(limit, max(TICK, min(h.launch or h.due for h in self.hits) - loop)))

    # ---- attacks ------------------------------------------------------------------------------------
    def _fire(self, i: int, j: int, late: float = 0.0) -> None:
        """Row i attacks row j, `late` loops after its weapon was ready."""
        w, g = self.world, self.game
        t = w.types[i]
        tag = int(w.tag[i])
        weapon = t.weapon
        if t.burst is not None or weapon is None:  # a burst (the Baneling's) is its attack
            self.explode(i)
            return
        point = delay = math.ceil(weapon.damage_point_loops)
        if weapon.projectile_speed:
            distance = math.dist(w.pos[i], w.pos[j])
            delay += math.ceil(distance / weapon.projectile_speed_per_loop)
        self.hits.append(
            Hit(
                g.game_loop + max(delay - int(late), 1),
                tag,
                int(w.owner[i]),
                int(w.tag[j]),
                weapon.damage,
                weapon.bonus,
                launch=g.game_loop + max(point - int(late), 1),
            )
        )
        # rng.uniform(low, high) draws low + (high - low) * random(): the same number, without its overhead.
        low, high = _RANDOM_DELAY
        w.cooldown[i] = weapon.cooldown_loops + (low + (high - low) * g.rng.random()) - late
        w.firing[i] = True
        step = w.pos[j] - w.pos[i]
        w.facing[i] = math.atan2(step[1], step[0]) % (2 * math.pi)
        w.version += 1

    def explode(self, i: int) -> None:
        """A suicide burst (the Baneling's): splash around row i, then row i dies without kill credit."""
        w = self.world
        burst = w.types[i].burst
        if burst is None or w.health[i] <= 0:
            return
        owner = int(w.owner[i])
        tag = int(w.tag[i])
        self._splash(i, burst, owner, tag)
        w.health[i] = 0.0
        self.deaths.append(Death(tag, owner, int(w.type_id[i]), 0))
        w.version += 1

    def _splash(self, i: int, burst, owner: int, tag: int) -> None:
        w = self.world
        d = np.hypot(*(w.pos - w.pos[i]).T) - w.radius
        victims = np.flatnonzero(
            (d <= burst.radius)
            & (w.owner != owner)
            & (w.owner != 0)
            & ~w.hidden
            & (w.health > 0)
            & (w.health_max > 0)
        )
        for j in victims.tolist():
            t = w.types[j]
            if t.invulnerable:
                continue
            if t.structure:
                self._damage(j, burst.structure_damage, tag, owner, armor=False)
            else:
                self._damage(j, burst.damage + self._bonus(burst.bonus, t), tag, owner)

    @staticmethod
    def _bonus(bonus: tuple, t) -> float:
        return sum(extra for attribute, extra in bonus if attribute in t.attributes)

    def _damage(self, j: int, amount: float, attacker: int, owner: int, armor: bool = True) -> None:
        w, stats = self.world, self.game.stats
        t = w.types[j]
        dealt = max(_MIN_DAMAGE, amount - (t.armor if armor else 0.0))
        dealt = min(dealt, float(w.health[j]))
        w.health[j] -= dealt
        stats(owner).damage_dealt += dealt
        stats(int(w.owner[j])).damage_taken += dealt
        w.version += 1
        if w.health[j] <= 0:
            if int(w.tag[j]) not in {d.tag for d in self.deaths}:
                self.deaths.append(Death(int(w.tag[j]), int(w.owner[j]), int(w.type_id[j]), owner))
            return
        self._respond(j, attacker)

    def _respond(self, j: int, attacker: int) -> None:
        """A damaged unit with nothing to do fights back, and calls idle allies nearby to help."""
        w = self.world
        if not w.exists(attacker):
            return
        a = w.slot(attacker)
        offset = w.pos - w.pos[j]
        mode = w.mode
        near = (
            (np.hypot(offset[:, 0], offset[:, 1]) <= _CALL_FOR_HELP)
            & (w.owner == w.owner[j])
            & ((mode == CombatMode.IDLE) | (mode == CombatMode.ATTACK_MOVE))
            & (w.engaged == 0)
        ).nonzero()[0]
        for k in near.tolist():
            if self.attackable(k, a) and w.owner[k] != w.owner[a]:
                w.engaged[k] = attacker
                w.leash[k] = w.pos[k]

    # ---- after a batch ------------------------------------------------------------------------------
    def advance(self, t: int, loop: int) -> None:
        """Time passes: cooldowns run down, Zerg regenerate, hits that are due land."""
        w = self.world
        if not w.n:
            return
        np.subtract(w.cooldown, t, out=w.cooldown)
        np.maximum(w.cooldown, -TICK, out=w.cooldown)  # how long a weapon has been ready, up to a tick
        if _count(w.regen):
            hurt = (w.health < w.health_max) & (w.health > 0) & (w.regen > 0)
            if _count(hurt):
                w.health[hurt] = np.minimum(w.health[hurt] + w.regen[hurt] * t, w.health_max[hurt])
                w.version += 1
        if self.hits:
            # Loop by loop through the batch: at each, the attacks whose damage point ends there are judged on the
            # units as they were before that loop's hits land (two units striking each other at once both
            # strike), then its hits land. A unit killed earlier in the batch strikes no more.
            moments = sorted(
                {h.launch for h in self.hits if 0 < h.launch <= loop}
                | {h.due for h in self.hits if h.due <= loop}
            )
            for at in moments:
                kept: list[Hit] = []
                due: list[Hit] = []
                for hit in self.hits:
                    if (
                        0 < hit.launch <= at
                    ):  # its damage point ends: the attack goes on if the attacker lives
                        if not (w.exists(hit.attacker) and w.health[w.slot(hit.attacker)] > 0):
                            continue
                        hit.launch = 0
                    (due if hit.launch == 0 and hit.due <= at else kept).append(hit)
                self.hits = kept
                for hit in due:
                    if w.exists(hit.target) and w.health[w.slot(hit.target)] > 0:
                        j = w.slot(hit.target)
                        self._damage(
                            j, hit.damage + self._bonus(hit.bonus, w.types[j]), hit.attacker, hit.owner
                        )

    def take_deaths(self) -> list[Death]:
        """Remove the units that died (a Baneling killed by damage bursts first) and return the deaths."""
        w = self.world
        out: list[Death] = []
        while self.deaths:
            death = self.deaths.pop(0)
            if not w.exists(death.tag):
                continue
            i = w.slot(death.tag)
            t = w.types[i]
            if t.burst is not None and death.killer_owner:
                self._splash(i, t.burst, death.owner, death.tag)
            out.append(death)
            self.game.remove_unit(death.tag)
        return out

    def abandon(self, i: int, keep_target: int = 0) -> None:
        """Row i was given another order: its attack still in its damage point lands nothing (unless it is on
        `keep_target`, the unit the new order attacks), and its weapon is ready again (it never fired).
        Missiles already launched fly on."""
        if not self.hits:
            return
        tag = int(self.world.tag[i])
        kept = [
            hit
            for hit in self.hits
            if hit.attacker != tag or hit.launch == 0 or (keep_target and hit.target == keep_target)
        ]
        if len(kept) < len(self.hits):
            self.hits = kept
            self.world.cooldown[i] = min(float(self.world.cooldown[i]), 0.0)

    def cancel_missiles(self) -> None:
        self.hits = []
