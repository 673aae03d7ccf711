"""The built-in AI's micro on the duel maps: the line it forms before advancing."""

from __future__ import annotations

import numpy as np
import pytest
from duel_helpers import duel
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env.engine.computer import PROFILES, Computer, Formation
from sc2env.engine.micro import LINE_SPACING, MELEE_AHEAD, line_offsets


def test_line_offsets_put_the_ranged_side_by_side_across_the_way_and_the_melee_in_front():
    pos = np.array([[10.0, 12.0], [11.0, 9.0], [9.0, 10.0], [10.5, 11.0], [9.5, 9.5]])
    ranged = np.array([True, True, True, False, False])
    offsets = line_offsets(pos, ranged, goal=(30.0, 10.4))
    ahead = np.array([30.0, 10.4]) - pos.mean(axis=0)
    ahead /= np.hypot(*ahead)
    across = np.array([-ahead[1], ahead[0]])
    assert offsets[:3] @ ahead == pytest.approx([0, 0, 0], abs=1e-9)
    assert offsets[3:] @ ahead == pytest.approx([MELEE_AHEAD] * 2)
    side = offsets[:3] @ across
    assert sorted(side) == pytest.approx([-LINE_SPACING, 0, LINE_SPACING])
    # Each keeps its rank across the way: no two paths cross forming it.
    assert np.argsort(side).tolist() == np.argsort(pos[:3] @ across).tolist()


def test_the_levels_form_a_line_from_medium_hard_up():
    formations = [PROFILES[d].formation for d in sorted(PROFILES)]
    assert formations == [Formation.CONVERGE] * 2 + [Formation.ABREAST] + [Formation.LINE] * 3


def test_a_medium_hard_army_forms_its_line_then_advances():
    game = duel("DuelMarines")
    w = game.world
    mine = np.flatnonzero(w.owner == 1)
    ai = Computer(1, sc_pb.MediumHard)
    goal = np.asarray(ai._enemy_start(game))
    start = w.pos[mine].mean(axis=0)
    for _ in range(40):
        ai.decide(game)  # the positions it judges the line by (a decision moves nobody)
        if ai._formed:
            break
        game.step(ai.profile.reaction)
    assert ai._formed
    ahead = (goal - w.pos[mine].mean(axis=0)) / np.hypot(*(goal - w.pos[mine].mean(axis=0)))
    depth = (w.pos[mine] - w.pos[mine].mean(axis=0)) @ ahead
    assert np.abs(depth).max() <= 1.5  # one rank deep, square to the way
    assert np.hypot(*(w.pos[mine].mean(axis=0) - start)) < 3  # formed where it stood
    ai.step(game, 16 * 5)
    assert (goal - w.pos[mine].mean(axis=0)) @ ahead < (goal - start) @ ahead - 8  # then set off


def test_medium_advances_at_once_without_forming():
    game = duel("DuelMarines")
    w = game.world
    mine = np.flatnonzero(w.owner == 1)
    ai = Computer(1, sc_pb.Medium)
    start = w.pos[mine].mean(axis=0)
    ai.step(game, 16 * 3)
    assert not ai._formed and np.hypot(*(w.pos[mine].mean(axis=0) - start)) > 5
