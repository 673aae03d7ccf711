"""The built-in AI's fire by difficulty on the duel maps: loose, focused, split, finishing (the weakest first,
the units out of range closing in); melee units never focus; the most dangerous enemy first; an army with
SCVs but no building is an army, not a base."""

from __future__ import annotations

import numpy as np
import pytest
from duel_helpers import duel, face_off, targets
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env.engine.computer import PROFILES, Computer
from sc2env.engine.focus import Fire
from sc2env.gamedata import unit_type_by_name

MARINE, ZERGLING, BANELING, SCV = (
    unit_type_by_name(n).unit_id for n in ("Marine", "Zergling", "Baneling", "SCV")
)


def test_the_levels_fire_loose_then_focused_then_split_then_finishing():
    # Easy focuses (its first rule on the Terran side); Medium's edge over it is its formation and speed.
    fires = [PROFILES[d].fire for d in sorted(PROFILES)]
    assert fires == [Fire.LOOSE, Fire.FOCUS, Fire.LOOSE, Fire.FOCUS, Fire.SPLIT, Fire.FINISH]


def test_loose_fire_gives_no_unit_its_target():
    game = duel("DuelMarines")
    face_off(game)
    Computer(1, sc_pb.Medium).decide(game)
    assert not targets(game, 1)
    assert all(game.world.orders[i] for i in np.flatnonzero(game.world.owner == 1))  # attack-moving


@pytest.mark.parametrize("level", [sc_pb.Easy, sc_pb.MediumHard])
def test_focus_puts_just_enough_on_one_enemy_and_the_rest_fire_at_will(level):
    game = duel("DuelMarines")
    face_off(game)
    w = game.world
    mine = np.flatnonzero(w.owner == 1)
    for i in mine.tolist():  # as if all had focused one enemy at the last decision: the overkill to undo
        game.orders.issue(i, 23, None, int(w.tag[np.flatnonzero(w.owner == 2)[0]]), False)
    Computer(1, level).decide(game)
    chosen = targets(game, 1)
    # A Marine has 45 health and takes 6 a shot: 8 shots kill it; the other Marines attack-move.
    assert len(chosen) == 8 and len(set(chosen.values())) == 1
    loose = [i for i in mine.tolist() if i not in chosen]
    assert len(loose) == 1 and all(w.orders[i] and w.orders[i][0].point is not None for i in loose)


def test_split_fire_puts_just_enough_on_each_enemy():
    game = duel("DuelMarines")
    face_off(game)
    Computer(1, sc_pb.Hard).decide(game)
    shooters = np.bincount(np.unique(list(targets(game, 1).values()), return_inverse=True)[1])
    # A Marine has 45 health and takes 6 a shot: 8 shots kill it, the ninth Marine shoots the next one.
    assert sorted(shooters.tolist()) == [1, 8]


def test_marines_shoot_a_baneling_before_the_zerglings_and_zerglings_never_focus():
    game = duel("DuelZerglingsBanelings")
    face_off(game)
    w = game.world
    for level in (sc_pb.MediumHard, sc_pb.Hard, sc_pb.Harder):
        for i in np.flatnonzero(w.owner > 0).tolist():
            game.orders.clear(i)
        Computer(2, level).decide(game)  # Terran
        Computer(1, level).decide(game)  # Zerg
        banes = np.flatnonzero(w.type_id == BANELING)
        for row, tag in targets(game, 2).items():
            reach = np.hypot(*(w.pos[banes] - w.pos[row]).T) - w.radius[banes] - w.radius[row] <= 5.0
            if reach.any():  # the most dangerous in its reach first: 35 damage on 30 health
                assert w.type_id[w.slot(tag)] == BANELING
        assert BANELING in {int(w.type_id[w.slot(tag)]) for tag in targets(game, 2).values()}
        lings = np.flatnonzero((w.owner == 1) & (w.type_id == ZERGLING)).tolist()
        assert all(w.orders[i] and w.orders[i][0].point is not None for i in lings)  # Zerglings attack-move
        assert all(w.orders[i] for i in np.flatnonzero(w.owner == 1))


@pytest.mark.parametrize("level", [sc_pb.Medium, sc_pb.Harder])
def test_an_army_with_scvs_and_no_building_advances_as_an_army(level):
    game = duel("DuelTerranMixed")
    w = game.world
    start = w.pos[np.flatnonzero(w.owner == 1)].mean(axis=0)
    ai = Computer(1, level)
    ai.step(game, 16 * 20)
    moved = w.pos[np.flatnonzero((w.owner == 1) & (w.type_id == MARINE))].mean(axis=0)
    assert np.hypot(*(moved - start)) > 10  # it set off for the enemy (it waited at home for a wave before)


def test_an_army_that_finds_the_enemy_start_empty_sweeps_back_home():
    game = duel("DuelMarines")
    w = game.world
    ai = Computer(1, sc_pb.Medium)
    enemy_start, own_start = ai._enemy_start(game), ai._own_start(game)
    mine = np.flatnonzero(w.owner == 1)
    for i in np.flatnonzero(w.owner == 2).tolist():  # the other army far off, out of sight, where it stood
        w.pos[i] = (own_start[0], own_start[1] + 12.0 + 0.1 * i)
    w.pos[mine] = np.asarray(enemy_start) + np.column_stack(
        (np.zeros(len(mine)), 0.8 * np.arange(len(mine)) - 3)
    )
    ai.decide(game)
    goals = np.array([w.orders[i][0].point for i in mine.tolist()])
    assert np.hypot(*(goals.mean(axis=0) - own_start)) < 2.0  # back the other way, not standing there


def test_finish_fire_puts_the_weakest_enemy_in_range_before_the_last_target():
    game = duel("DuelMarines")
    face_off(game)
    w = game.world
    theirs = np.flatnonzero(w.owner == 2)
    weak, last = int(theirs[4]), int(theirs[0])
    w.health[weak] = 10.0  # two shots kill it
    chosen = {}
    for level in (sc_pb.Hard, sc_pb.Harder):
        for i in np.flatnonzero(w.owner == 1).tolist():
            game.orders.clear(i)
        ai = Computer(1, level)
        ai._targets = {int(w.tag[last])}  # as if its focus had been on `last` at the last decision
        ai.decide(game)
        chosen[level] = np.bincount([w.slot(tag) for tag in targets(game, 1).values()], minlength=w.n)
    # Six of its Marines reach `last` (their line's end). Hard keeps it: all six on it, two of the other
    # three on `weak`. Harder takes `weak` first with the two shots that kill it, then four on `last`.
    assert (chosen[sc_pb.Hard][last], chosen[sc_pb.Hard][weak]) == (6, 2)
    assert (chosen[sc_pb.Harder][weak], chosen[sc_pb.Harder][last]) == (2, 4)


def test_finish_fire_turns_units_out_of_range_onto_their_nearest_enemy():
    game = duel("DuelMarines")
    face_off(game)
    w = game.world
    mine, theirs = np.flatnonzero(w.owner == 1), np.flatnonzero(w.owner == 2)
    straggler = int(mine[-1])
    w.pos[straggler] = (w.pos[theirs[-1]][0] - 1.0, w.pos[theirs[-1]][1] + 9.0)  # past their line's end
    far_point = (float(w.pos[straggler][0]), 47.0)
    for level, turns in ((sc_pb.Hard, False), (sc_pb.Harder, True)):
        for i in np.flatnonzero(w.owner == 1).tolist():
            game.orders.clear(i)
        game.orders.issue(straggler, 23, far_point, None, False)  # walking on past the fight
        Computer(1, level).decide(game)
        order = w.orders[straggler][0]
        assert order.point is not None
        nearest_enemy = w.pos[theirs[np.argmin(np.hypot(*(w.pos[theirs] - w.pos[straggler]).T))]]
        assert (np.hypot(*(np.asarray(order.point) - nearest_enemy)) < 0.5) == turns
