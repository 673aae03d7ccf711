"""Attacks: firing on cooldown, missiles, damage after armor, splash, calls for help, regeneration, deaths."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from sc2env.engine.fast import count_nonzero as _count
from sc2env.engine.targeting import TICK, Targeting
from sc2env.engine.type_tables import per_type, type_mask
from sc2env.engine.unit_states import CombatMode
from sc2env.gamedata.units import AIR, ANY, GROUND, Sweep, UnitType

if TYPE_CHECKING:
    from sc2env.engine.game import Game

_CALL_FOR_HELP = 4.0  # idle allies this close to a damaged unit join in
MIN_DAMAGE = 0.5  # what a hit does to health at least, however thick the armor
# By attacker type id and target plane (0 ground, 1 air): whether its weapon (or burst: ground) can hit it.
_HITS = np.stack(
    [
        type_mask(
            lambda t: t.burst is not None or (t.weapon is not None and t.weapon.target in (GROUND, ANY))
        ),
        type_mask(lambda t: t.weapon is not None and t.weapon.target in (AIR, ANY)),
    ],
    axis=1,
)
_FLYING = type_mask(lambda t: t.flying)
_PLANES = per_type(lambda t: t.planes, np.int8)
# Types that react to being attacked (a map's own passive types, SMAC's agents, don't: the agent decides).
_RESPONDS = type_mask(lambda t: t.responds)
_RANDOM_DELAY = (-1.0, 2.0)  # loops added to each cooldown (game data RandomDelayMin/Max)


def bonus_against(bonus: tuple[tuple[str, float], ...], t: UnitType) -> float:
    """A weapon's extra damage on a unit of type `t`: its bonus for each attribute `t` has (Armored, Light...)."""
    return sum(extra for attribute, extra in bonus if attribute in t.attributes)


@dataclass(slots=True)  # one per attack: slots make it cheaper to make and to read
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
    sweep: Sweep | None = None
    """A weapon's sweep (the Colossus's beam) and its direction `across` the target (a unit vector)."""
    across: tuple[float, float] = (1.0, 0.0)


@dataclass(slots=True)
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
        self._now = 0  # the game loop damage is dealt at (the loop a hit lands within a batch)
        self.targeting = Targeting(game, self._fire)

    # ---- queries ------------------------------------------------------------------------------------
    def attackable(self, i: int, j: int) -> bool:
        """Whether row i can attack row j at all (explicit Attack orders, including on own units)."""
        w = self.world
        t = w.types[j]
        return (
            bool(
                (_HITS[int(w.type_id[i]), 0] and t.planes & GROUND)
                or (_HITS[int(w.type_id[i]), 1] and t.planes & AIR)
            )
            and not t.invulnerable
            and t.health > 0
            and not w.hidden[j]
            and i != j
        )

    # ---- before a batch -----------------------------------------------------------------------------
    def plan(self, loop: int, limit: int) -> int:
        """Take the combat decisions due before a batch of loops (targets, chasing, firing: see Targeting);
        returns how many loops, up to `limit`, may pass before the next ones."""
        self._now = loop
        if self.hits:
            limit = self._hit_bound(loop, limit)
        if self.world.n < 2:
            return limit
        return self.targeting.decide(limit)

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
        # As Python floats: the same arithmetic as on numpy scalars, without their overhead.
        here, there = w.pos[i].tolist(), w.pos[j].tolist()
        if weapon.projectile_speed:
            distance = math.dist(here, there)
            delay += math.ceil(distance / weapon.projectile_speed_per_loop)
        dx, dy = there[0] - here[0], there[1] - here[1]
        length = math.hypot(dx, dy)
        across = (-dy / length, dx / length) if length > 0 else (1.0, 0.0)  # square to the line of fire
        # Each of a weapon's attacks (the Zealot's two blades) is a hit of its own: armor counts against each.
        self.hits.extend(
            Hit(
                g.game_loop + max(delay - int(late), 1),
                tag,
                int(w.owner[i]),
                int(w.tag[j]),
                weapon.damage,
                weapon.bonus,
                launch=g.game_loop + max(point - int(late), 1),
                sweep=weapon.sweep,
                across=across,
            )
            for _ in range(weapon.attacks)
        )
        # rng.uniform(low, high) draws low + (high - low) * random(): the same number, without its overhead.
        low, high = _RANDOM_DELAY
        w.cooldown[i] = weapon.cooldown_loops + (low + (high - low) * g.rng.random()) - late
        w.firing[i] = True
        w.facing[i] = math.atan2(dy, dx) % (2 * math.pi)
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
            & ~_FLYING[w.type_id]  # a ground splash
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
                self._damage(j, burst.damage + bonus_against(burst.bonus, t), tag, owner)

    def _damage(self, j: int, amount: float, attacker: int, owner: int, armor: bool = True) -> None:
        """Damage row j: shields take it first (shield armor 0), what gets through them takes the unit's armor."""
        w, stats = self.world, self.game.stats
        t = w.types[j]
        absorbed = 0.0
        if w.shields_max[j] > 0:
            w.shields_from[j] = self._now + t.shield_delay_loops
            absorbed = min(float(w.shields[j]), amount)
            w.shields[j] -= absorbed
            amount -= absorbed
        if absorbed and amount <= 0:
            dealt = 0.0
        elif absorbed:
            dealt = max(0.0, amount - (t.armor if armor else 0.0))
        else:
            dealt = max(MIN_DAMAGE, amount - (t.armor if armor else 0.0))
        dealt = min(dealt, float(w.health[j]))
        w.health[j] -= dealt
        stats(owner).damage_dealt += dealt + absorbed
        stats(int(w.owner[j])).damage_taken += dealt + absorbed
        w.version += 1
        if w.health[j] <= 0:
            if int(w.tag[j]) not in {d.tag for d in self.deaths}:
                self.deaths.append(Death(int(w.tag[j]), int(w.owner[j]), int(w.type_id[j]), owner))
            return
        self._respond(j, attacker)

    def _respond(self, j: int, attacker: int) -> None:
        """A damaged idle unit fights back, and calls idle allies nearby to help."""
        w = self.world
        if not w.exists(attacker):
            return
        a = w.slot(attacker)
        # Only idle units answer, the victim and its allies alike (the data's Response and CallForHelp): an
        # attack-moving unit keeps to its own acquiring, so a shot from afar does not pull a whole wave onto it.
        # Those first: in a fight nearly every unit is busy, and then no distance needs measuring.
        idle = (w.mode == CombatMode.IDLE) & (w.engaged == 0)
        if not _count(idle):
            return
        rows = (idle & (w.owner == w.owner[j]) & w.per_rows("responds", self._responders)).nonzero()[0]
        offset = w.pos[rows] - w.pos[j]
        near = rows[np.hypot(offset[:, 0], offset[:, 1]) <= _CALL_FOR_HELP]
        for k in near.tolist():
            if self.attackable(k, a) and w.owner[k] != w.owner[a]:
                w.engaged[k] = attacker
                w.leash[k] = w.pos[k]

    def _responders(self) -> np.ndarray:
        """Which rows react to being attacked (by type)."""
        return _RESPONDS[self.world.type_id]

    # ---- after a batch ------------------------------------------------------------------------------
    def advance(self, elapsed: int, loop: int) -> None:
        """Time passes: cooldowns run down, Zerg regenerate, hits that are due land."""
        w = self.world
        if not w.n:
            return
        np.subtract(w.cooldown, elapsed, out=w.cooldown)
        np.maximum(w.cooldown, -TICK, out=w.cooldown)  # how long a weapon has been ready, up to a tick
        if _count(w.regen):
            hurt = (w.health < w.health_max) & (w.health > 0) & (w.regen > 0)
            if _count(hurt):
                w.health[hurt] = np.minimum(w.health[hurt] + w.regen[hurt] * elapsed, w.health_max[hurt])
                w.version += 1
        if _count(w.energy_regen):
            np.minimum(w.energy + w.energy_regen * elapsed, w.energy_max, out=w.energy)
        if self.hits:
            self._land_hits(loop)
        self._now = self.game.game_loop
        if _count(w.shield_regen):
            self._regenerate_shields(elapsed, loop)

    def _regenerate_shields(self, elapsed: int, loop: int) -> None:
        """Shields come back at their rate through the loops of the batch (ending at `loop`) from their
        `shields_from` on. Hits land first: a unit hit in the batch regenerates nothing in it."""
        w = self.world
        low = (w.shields < w.shields_max) & (w.health > 0)
        if not _count(low):
            return
        loops = np.clip(loop - np.maximum(w.shields_from[low], loop - elapsed), 0.0, None)
        w.shields[low] = np.minimum(w.shields[low] + w.shield_regen[low] * loops, w.shields_max[low])
        w.version += 1

    def _land_hits(self, loop: int) -> None:
        """Land the hits due by `loop`, loop by loop through the batch: at each, the attacks whose damage point
        ends there are judged on the units as they were before that loop's hits land (two units striking each
        other at once both strike), then its hits land. A unit killed earlier in the batch strikes no more."""
        w = self.world
        moments = sorted(
            {h.launch for h in self.hits if 0 < h.launch <= loop}
            | {h.due for h in self.hits if h.due <= loop}
        )
        for at in moments:
            self._now = at
            kept: list[Hit] = []
            due: list[Hit] = []
            for hit in self.hits:
                if 0 < hit.launch <= at:  # its damage point ends: the attack goes on if the attacker lives
                    if not (w.exists(hit.attacker) and w.health[w.slot(hit.attacker)] > 0):
                        continue
                    hit.launch = 0
                (due if hit.launch == 0 and hit.due <= at else kept).append(hit)
            self.hits = kept
            for hit in due:
                if w.exists(hit.target) and w.health[w.slot(hit.target)] > 0:
                    j = w.slot(hit.target)
                    if hit.sweep is not None:
                        self._sweep(j, hit)
                    self._damage(
                        j, hit.damage + bonus_against(hit.bonus, w.types[j]), hit.attacker, hit.owner
                    )

    def _sweep(self, j: int, hit: Hit) -> None:
        """A beam swept across row j (the hit's target) damages the other enemy ground units on its line."""
        w, sweep = self.world, hit.sweep
        if sweep is None:
            return
        along = np.asarray(hit.across)
        offset = w.pos - w.pos[j]
        t = np.clip(offset @ along, -sweep.half_length, sweep.half_length)
        off_line = offset - t[:, None] * along
        reach = sweep.radius + w.radius
        victims = np.flatnonzero(
            (np.hypot(off_line[:, 0], off_line[:, 1]) <= reach)
            & (_PLANES[w.type_id] & GROUND != 0)
            & (w.owner != hit.owner)
            & (w.owner != 0)
            & ~w.hidden
            & (w.health > 0)
            & (w.health_max > 0)
        )
        for k in victims.tolist():
            if k != j and not w.types[k].invulnerable:
                self._damage(k, hit.damage + bonus_against(hit.bonus, w.types[k]), hit.attacker, hit.owner)

    def kill(self, j: int) -> None:
        """Row j dies at the next `take_deaths`, killed by no one (no burst, no kill credit)."""
        w = self.world
        if int(w.tag[j]) not in {d.tag for d in self.deaths}:
            self.deaths.append(Death(int(w.tag[j]), int(w.owner[j]), int(w.type_id[j]), 0))
        w.health[j] = 0.0
        w.version += 1

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
