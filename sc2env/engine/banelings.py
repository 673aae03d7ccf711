"""The built-in AI's micro around Banelings: Zerglings keeping with them, bursts aimed, Marines stepping back."""

from __future__ import annotations

import enum

import numpy as np

from sc2env.engine.build_order import command
from sc2env.engine.focus import per_hit
from sc2env.engine.game import Game
from sc2env.engine.micro import away_from, burst_targets, edge_gaps, nearest
from sc2env.engine.orders import ATTACK, MOVE
from sc2env.engine.type_tables import STRUCTURE_TYPES, type_mask

BURSTS = type_mask(lambda t: t.burst is not None)  # Banelings
STEP = 1.5  # how far a unit steps back from a Baneling about to reach it


class Charge(enum.Enum):
    """How an AI's Zerglings and Banelings go at the enemy (an army without Banelings attack-moves). The
    value: how near an enemy (edge to edge) a Baneling must come before the Zerglings keeping with the
    Banelings set off (0: they never keep with them), and whether each Baneling aims its burst."""

    # all attack-move: the Zerglings, faster, arrive first and alone
    LOOSE = (0.0, False)
    # the Zerglings keep with the Banelings until these all but touch: they arrive as one
    TOGETHER = (2.5, False)
    # the Zerglings keep with them up to the enemy's reach, then run ahead and take its fire
    SCREEN = (7.0, False)
    # screened, and each Baneling runs at the enemy where its burst lands the most hits that count
    AIMED = (7.0, True)
    # as TOGETHER, and each Baneling runs at the enemy where its burst lands the most hits that count
    TOGETHER_AIMED = (2.5, True)

    @property
    def release(self) -> float:
        return self.value[0]

    @property
    def aimed(self) -> bool:
        return self.value[1]


def keep_with_banelings(game: Game, army: np.ndarray) -> None:
    """On the way, each Zergling follows the Baneling nearest it, so the faster Zerglings arrive with the
    Banelings rather than ahead of them and alone."""
    w = game.world
    banes = army[BURSTS[w.type_id[army]]]
    if not len(banes):
        return
    bane_tags = set(w.tag[banes].tolist())
    for i in army[~BURSTS[w.type_id[army]]].tolist():
        order = w.orders[i][0] if w.orders[i] else None
        if order is not None and order.ability_id == MOVE and order.target_tag in bane_tags:
            continue
        command(game, [int(w.tag[i])], MOVE, target=int(w.tag[nearest(w.pos, banes, w.pos[i])]))


def charge(game: Game, melee: np.ndarray, enemies: np.ndarray, how: Charge) -> None:
    """Zerglings and Banelings (rows `melee`) at seen enemies, by `how`: the Banelings attack-move (aimed:
    each runs at the enemy where its burst serves best); the Zerglings keep with them until a Baneling is
    within the charge's `release` of an enemy, then attack-move."""
    w = game.world
    burst = BURSTS[w.type_id[melee]]
    banes, lings = melee[burst], melee[~burst]
    targets = enemies[~STRUCTURE_TYPES[w.type_id[enemies]]]
    if not len(targets):
        targets = enemies
    x, y = w.pos[nearest(w.pos, targets, w.pos[melee].mean(axis=0))].tolist()
    goal = (float(x), float(y))
    kind = w.types[int(banes[0])].burst if len(banes) else None
    if kind is not None and how.aimed:
        need = np.array([bursts_to_kill(game, int(banes[0]), j) for j in targets.tolist()])
        chosen = burst_targets(w.pos[banes], w.pos[targets], w.radius[targets], need, kind.radius)
        for bane, k in zip(banes.tolist(), chosen):
            tag = int(w.tag[targets[k]])
            if not w.orders[bane] or w.orders[bane][0].target_tag != tag:
                command(game, [int(w.tag[bane])], ATTACK, target=tag)
    else:
        idle = [int(w.tag[i]) for i in banes.tolist() if not w.orders[i]]
        if idle:
            command(game, idle, ATTACK, point=goal)
    if len(banes) and edge_gaps(w, banes, targets).min() > how.release:
        keep_with_banelings(game, melee)
        return
    # Released: the idle and those still following a Baneling attack-move; the others fight on.
    go = [int(w.tag[i]) for i in lings.tolist() if not w.orders[i] or w.orders[i][0].ability_id == MOVE]
    if go:
        command(game, go, ATTACK, point=goal)


def bursts_to_kill(game: Game, bane: int, j: int) -> int:
    """How many bursts of Baneling row `bane` kill row j (its bonus against j's attributes, less armor)."""
    w = game.world
    burst, t = w.types[bane].burst, w.types[j]
    if burst is None:
        return 0
    return int(np.ceil((w.health[j] + w.shields[j]) / per_hit(burst.damage, burst.bonus, t)))


def dodge(game: Game, ranged: np.ndarray, enemies: np.ndarray, near: float) -> np.ndarray:
    """Ranged rows with an enemy Baneling within `near` of them (edge to edge) step `STEP` straight back from
    the nearest (inside the playable area); returns those rows."""
    w = game.world
    banes = enemies[BURSTS[w.type_id[enemies]]]
    if not len(ranged) or not len(banes):
        return ranged[:0]
    threatened = ranged[(edge_gaps(w, ranged, banes) <= near).any(axis=1)]
    b = game.definition.playable_area
    for i, (x, y) in zip(threatened.tolist(), away_from(w.pos[threatened], w.pos[banes], STEP).tolist()):
        command(game, [int(w.tag[i])], MOVE, point=b.clamp(x, y))
    return threatened
