"""The built-in AI's fire: which seen enemy each of its ranged units shoots (loose, focused or split fire)."""

from __future__ import annotations

import enum

import numpy as np

from sc2env.engine.build_order import command
from sc2env.engine.combat import MIN_DAMAGE, bonus_against
from sc2env.engine.game import Game
from sc2env.engine.micro import edge_gaps, nearest
from sc2env.engine.orders import ATTACK
from sc2env.gamedata import UnitType

_REACH_MARGIN = 0.0  # focus only units already in range: others walking to it would hold their fire
_CLOSE = 2.0  # a unit closing in keeps its attack-move while its point is this near its nearest enemy


class Fire(enum.Enum):
    """How an AI's ranged units in reach of seen enemies pick targets (melee units always attack-move)."""

    LOOSE = "loose"  # attack-move: the game's own acquisition picks
    FOCUS = "focus"  # just enough in range of the chosen enemy to kill it shoot it, the rest fire at will
    SPLIT = "split"  # just enough shoot the chosen enemy to kill it, the rest the next one, and so on
    # split, the weakest first (a kill a volley sooner stops its shots), and the units with no enemy in
    # range close in on the enemy nearest each rather than walk on in the army's direction
    FINISH = "finish"


def per_hit(damage: float, bonus: tuple[tuple[str, float], ...], target: UnitType) -> float:
    """The damage one hit does to `target`'s health: its bonus against the target's attributes, less the
    target's armor, at least combat's minimum (shields aside)."""
    return max(damage + bonus_against(bonus, target) - target.armor, MIN_DAMAGE)


def hit(shooter: UnitType, target: UnitType) -> float:
    """The damage one attack of `shooter` does to `target` (every hit of it)."""
    weapon = shooter.weapon
    if weapon is None:
        return 0.0
    return per_hit(weapon.damage, weapon.bonus, target) * weapon.attacks


def danger(t: UnitType) -> float:
    """How much a unit of type `t` hurts for the health it has: damage a game second (a burst's damage, once)
    with its largest bonus, over its health and shields."""
    if t.weapon is not None:
        one = (t.weapon.damage + max((b for _, b in t.weapon.bonus), default=0.0)) * t.weapon.attacks
        per_second = one / t.weapon.cooldown
    elif t.burst is not None:
        per_second = t.burst.damage + max((b for _, b in t.burst.bonus), default=0.0)
    else:
        return 0.0
    return per_second / max(t.health + t.shields, 1.0)


def focus(
    game: Game, army: np.ndarray, reach: np.ndarray, enemies: np.ndarray, fire: Fire, kept: set[int]
) -> set[int]:
    """Fire the ranged rows `army` (attack ranges `reach`) on the seen `enemies` in range; returns the tags
    fired on, the `kept` of the next decision.

    The most dangerous first (its type's damage a second for its health: a Baneling before a Zergling, a
    Marine before an SCV); among equals (FINISH: the weakest, then) the ones in `kept` (fired on at the last
    decision), then the one the most units reach, then the weakest (then the lowest tag). Just enough in range
    of the first to kill it shoot it; FOCUS: the others fire at will (attack-move); SPLIT and FINISH: just
    enough of the others shoot the next one, and so on."""
    w = game.world
    in_range: np.ndarray = edge_gaps(w, army, enemies) <= reach[:, None] + _REACH_MARGIN
    reached = np.asarray(in_range.any(axis=0))
    was_kept = np.array([int(t) in kept for t in w.tag[enemies].tolist()]) & reached
    health = w.health[enemies] + w.shields[enemies]
    threat = -np.where(reached, [danger(w.types[i]) for i in enemies.tolist()], 0.0)
    keys = [w.tag[enemies], health, -in_range.sum(axis=0), ~was_kept]
    if fire is Fire.FINISH:
        keys.append(health)
    order = np.lexsort((*keys, threat))
    free = np.ones(len(army), bool)
    shots: list[tuple[int, list[int]]] = []  # (enemy row, the army rows firing at it)
    for column in order.tolist():
        if not reached[column] or not free.any():
            break
        able = np.flatnonzero(free & in_range[:, column])
        if not len(able):
            continue
        # Just enough to kill it: the shots past a kill would be wasted (overkill). Those already on it
        # first, so the shots they are winding up count.
        target = int(enemies[column])
        tag = int(w.tag[target])
        on_it = np.array([bool(w.orders[army[k]]) and w.orders[army[k]][0].target_tag == tag for k in able])
        able = able[np.argsort(~on_it, kind="stable")]
        hits = np.cumsum([hit(w.types[army[k]], w.types[target]) for k in able])
        able = able[: int(np.searchsorted(hits, health[column])) + 1]
        free[able] = False
        shots.append((target, army[able].tolist()))
        if fire is Fire.FOCUS:
            break
    for target, rows in shots:
        tag = int(w.tag[target])
        # Only units not already on it: a new order would cost a unit the shot it is winding up.
        retarget = [i for i in rows if not w.orders[i] or w.orders[i][0].target_tag != tag]
        if retarget:
            attack(game, retarget, target=tag)
            # Then attack-move on, so the kill does not leave them idle until the next decision.
            attack(game, retarget, point=tuple(w.pos[target]), queued=True)
    rest = army[free]
    if fire is Fire.FINISH:
        rest = _close_in(game, rest, enemies, np.asarray(in_range[free].any(axis=1)))
    # The rest fire at will: idle ones, and those still ordered onto an enemy that others now kill.
    far = [i for i in rest.tolist() if not w.orders[i] or w.orders[i][0].target_tag]
    if far and shots:
        attack(game, far, point=tuple(w.pos[shots[0][0]]))
    elif far:
        attack(game, far, point=tuple(w.pos[nearest(w.pos, enemies, w.pos[army].mean(axis=0))]))
    return {int(w.tag[target]) for target, _ in shots}


def _close_in(game: Game, rows: np.ndarray, enemies: np.ndarray, in_range: np.ndarray) -> np.ndarray:
    """The `rows` with no enemy in range (`in_range` False) attack-move to the enemy nearest each, so a line's
    ends turn onto the fight rather than walk past it; returns the others."""
    w = game.world
    for i in rows[~in_range].tolist():
        j = nearest(w.pos, enemies, w.pos[i])
        order = w.orders[i][0] if w.orders[i] else None
        if order is None or order.point is None or np.hypot(*(np.asarray(order.point) - w.pos[j])) > _CLOSE:
            attack(game, [i], point=(float(w.pos[j][0]), float(w.pos[j][1])))
    return rows[in_range]


def attack(
    game: Game,
    rows: list[int],
    point: tuple[float, float] | None = None,
    target: int | None = None,
    queued: bool = False,
) -> None:
    """Order the AI's `rows` to attack-move to `point`, or to attack the unit tagged `target`."""
    if rows:
        command(game, [int(game.world.tag[i]) for i in rows], ATTACK, point, target, queued)
