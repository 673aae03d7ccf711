"""The built-in AI's micro on the duel maps: the line it forms before advancing (split wide against Zerg),
Zerglings keeping with the Banelings, Banelings aiming their bursts, ranged units stepping back from them."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from duel_helpers import duel
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env.engine.banelings import Charge
from sc2env.engine.computer import PROFILES, Computer, Formation
from sc2env.engine.micro import (
    LINE_SPACING,
    MELEE_AHEAD,
    OVERLAP_SPACING,
    SPLIT_SPACING,
    away_from,
    burst_targets,
    line_offsets,
)
from sc2env.engine.orders import MOVE
from sc2env.gamedata import unit_type_by_name

MARINE, ZERGLING, BANELING = (unit_type_by_name(n).unit_id for n in ("Marine", "Zergling", "Baneling"))


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


def test_the_levels_micro_more_the_harder_they_are():
    levels = [PROFILES[d] for d in sorted(PROFILES)]
    assert [p.formation for p in levels] == [Formation.CONVERGE] * 2 + [Formation.ABREAST] + [
        Formation.SPLIT
    ] * 2 + [Formation.OVERLAP]
    assert [p.charge for p in levels] == [Charge.LOOSE] + [Charge.TOGETHER_AIMED] * 2 + [Charge.AIMED] * 3
    dodges = [p.dodge for p in levels]
    assert dodges[:4] == [0.0] * 4 and 0 < dodges[4] <= dodges[5]


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


def line_spacing(map_name: str, player: int, level: int = sc_pb.Hard) -> float:
    """The spacing of the line an AI at `level` forms as `player` on `map_name` (its Marines' gaps across the
    way)."""
    game = duel(map_name)
    w = game.world
    ai = Computer(player, level)
    for _ in range(40):
        ai.decide(game)
        if ai._formed:
            break
        game.step(ai.profile.reaction)
    marines = np.flatnonzero((w.owner == player) & (w.type_id == MARINE))
    ahead = np.asarray(ai._enemy_start(game)) - w.pos[marines].mean(axis=0)
    across = np.array([-ahead[1], ahead[0]]) / np.hypot(*ahead)
    return float(np.median(np.diff(np.sort(w.pos[marines] @ across))))


def test_against_zerg_the_line_is_split_a_burst_apart():
    assert line_spacing("DuelZerglingsBanelings", 2) == pytest.approx(SPLIT_SPACING, abs=0.4)
    assert line_spacing("DuelMarines", 1) == pytest.approx(LINE_SPACING, abs=0.1)


def test_harders_line_overlaps_hards_against_terran_and_is_split_against_zerg():
    assert line_spacing("DuelMarines", 1, sc_pb.Harder) == pytest.approx(OVERLAP_SPACING, abs=0.1)
    assert line_spacing("DuelZerglingsBanelings", 2, sc_pb.Harder) == pytest.approx(SPLIT_SPACING, abs=0.4)


def test_burst_targets_take_the_clump_until_its_units_have_the_bursts_that_kill_them():
    # Three Marines abreast 1 apart, one alone 3.5 beyond them (out of a burst on the clump).
    enemies = np.array([[10.0, 10.0], [10.0, 11.0], [10.0, 12.0], [10.0, 15.5]])
    radius = np.full(4, 0.375)
    banes = np.array([[4.0, 11.0], [4.0, 14.0]])
    covers = np.hypot(*(enemies[:, None] - enemies[None]).transpose(2, 0, 1)) <= 2.2 + 0.375
    # At 45 health two bursts kill a Marine: both Banelings burst where they reach all three of the clump.
    chosen = burst_targets(banes, enemies, radius, np.array([2, 2, 2, 2]), 2.2)
    assert all(covers[k, :3].all() for k in chosen)
    # At 10 health one burst does: the second Baneling goes for the lone Marine instead.
    assert burst_targets(banes, enemies, radius, np.array([1, 1, 1, 1]), 2.2) == [1, 3]


def test_away_from_steps_straight_back_from_the_nearest_threat():
    points = away_from(np.array([[10.0, 10.0]]), np.array([[12.0, 10.0], [10.0, 20.0]]), 1.5)
    assert points.tolist() == [[8.5, 10.0]]


def zerg_ahead_of_banelings_at_contact(level: int, seed: int = 2) -> float:
    """How far (along the way) the Zerglings' centre leads the Banelings' when the first Baneling comes within
    6 of a Marine, the Zerg played by `level` and the Terran standing still."""
    game = duel("DuelZerglingsBanelings", seed)
    w = game.world
    ai = Computer(1, level)
    for _ in range(400):
        ai.step(game, 4)
        lings = np.flatnonzero((w.owner == 1) & (w.type_id == ZERGLING))
        banes = np.flatnonzero((w.owner == 1) & (w.type_id == BANELING))
        marines = np.flatnonzero(w.owner == 2)
        gap = np.hypot(*(w.pos[banes][:, None] - w.pos[marines][None]).transpose(2, 0, 1))
        if gap.min() <= 6:
            way = w.pos[marines].mean(axis=0) - w.pos[banes].mean(axis=0)
            way /= np.hypot(*way)
            return float((w.pos[lings].mean(axis=0) - w.pos[banes].mean(axis=0)) @ way)
    raise AssertionError("the Zerg never reached the Marines")


def test_zerglings_arrive_with_the_banelings_from_easy_up_very_easy_ones_ahead():
    assert zerg_ahead_of_banelings_at_contact(sc_pb.VeryEasy) > 2.5  # faster: they run ahead, alone
    assert zerg_ahead_of_banelings_at_contact(sc_pb.Easy) < 0.5  # following them: level or behind
    assert zerg_ahead_of_banelings_at_contact(sc_pb.Medium) < 0.5


def charge_scene(level: int, how: Charge | None = None) -> tuple:
    """Zerg (player 1) 6 to 9 west of a Marine clump of three and a lone Marine 3.6 from it (the other Marines
    out of sight); the Zerg AI decides once (charging as `how` if given, else as its level does)."""
    game = duel("DuelZerglingsBanelings")
    w = game.world
    lings = np.flatnonzero((w.owner == 1) & (w.type_id == ZERGLING))
    banes = np.flatnonzero((w.owner == 1) & (w.type_id == BANELING))
    marines = np.flatnonzero(w.owner == 2)
    w.pos[marines[:3]] = [[40.0, 30.0], [40.0, 31.0], [40.0, 32.0]]
    w.pos[marines[3]] = (39.0, 35.5)
    w.pos[marines[4:]] = np.column_stack(
        (np.full(len(marines) - 4, 54.0), 20.0 + np.arange(len(marines) - 4))
    )
    w.pos[banes] = np.column_stack((np.full(len(banes), 33.0), 29.0 + np.arange(len(banes))))
    w.pos[lings] = np.column_stack((np.full(len(lings), 31.0), 26.0 + 0.8 * np.arange(len(lings))))
    ai = Computer(1, level)
    if how is not None:
        ai.profile = replace(ai.profile, charge=how)
    ai.decide(game)
    return game, lings, banes, marines


def assert_aimed_at_the_clump_then_the_lone_marine(game, banes, marines) -> None:
    w = game.world
    aimed = [w.orders[i][0].target_tag for i in banes.tolist()]
    clump = set(w.tag[marines[:3]].tolist())  # each of the three: a burst at it reaches all three
    assert aimed[0] in clump and aimed[1] in clump  # two bursts kill all three
    assert aimed[2:4] == [int(w.tag[marines[3]])] * 2  # the next two for the lone Marine: it takes two


def test_aimed_banelings_run_at_the_middle_of_the_clump_and_zerglings_keep_with_them_till_close():
    game, lings, banes, marines = charge_scene(sc_pb.Hard)
    w = game.world
    assert_aimed_at_the_clump_then_the_lone_marine(game, banes, marines)
    # Within the screen's release (7) of the Marines: the Zerglings run ahead and attack-move.
    assert all(w.orders[i] and w.orders[i][0].point is not None for i in lings.tolist())


@pytest.mark.parametrize("level", [sc_pb.Easy, sc_pb.Medium])
def test_easy_and_medium_aim_the_bursts_and_keep_the_zerglings_with_the_banelings(level):
    game, lings, banes, marines = charge_scene(level)
    w = game.world
    assert_aimed_at_the_clump_then_the_lone_marine(game, banes, marines)
    bane_tags = set(w.tag[banes].tolist())  # 6 to 9 from the Marines: beyond the release (2.5), following
    assert all(
        w.orders[i][0].ability_id == MOVE and w.orders[i][0].target_tag in bane_tags for i in lings.tolist()
    )


def test_together_zerglings_follow_the_banelings_until_these_are_close():
    game, lings, banes, _ = charge_scene(sc_pb.Medium, Charge.TOGETHER)
    w = game.world
    bane_tags = set(w.tag[banes].tolist())
    assert all(
        w.orders[i][0].ability_id == MOVE and w.orders[i][0].target_tag in bane_tags for i in lings.tolist()
    )
    assert all(w.orders[i] and w.orders[i][0].point is not None for i in banes.tolist())  # attack-move


@pytest.mark.parametrize(("level", "steps"), [(sc_pb.MediumHard, False), (sc_pb.Hard, True)])
def test_hard_marines_step_back_from_a_baneling_about_to_reach_them(level, steps):
    game = duel("DuelZerglingsBanelings")
    w = game.world
    marines = np.flatnonzero(w.owner == 2)
    zerg = np.flatnonzero(w.owner == 1)
    w.pos[marines] = np.column_stack((np.full(len(marines), 40.0), 20.0 + 2.0 * np.arange(len(marines))))
    w.pos[zerg] = np.column_stack((np.full(len(zerg), 20.0), 20.0 + 0.8 * np.arange(len(zerg))))
    bane = int(np.flatnonzero((w.owner == 1) & (w.type_id == BANELING))[0])
    w.pos[bane] = (38.0, 20.0)  # 2 from the first Marine's centre: 1.25 edge to edge
    Computer(2, level).decide(game)
    first = w.orders[int(marines[0])][0]
    if steps:
        assert first.ability_id == MOVE and first.point[0] == pytest.approx(40.0 + 1.5)
        assert all(w.orders[i][0].ability_id != MOVE for i in marines[2:].tolist())  # the others fight
    else:
        assert first.ability_id != MOVE


def test_a_zerg_duel_between_the_ai_is_the_same_under_the_same_seed():
    def play(seed: int) -> tuple:
        game = duel("DuelZerglingsBanelings", seed)
        ais = [Computer(1, sc_pb.Harder), Computer(2, sc_pb.Hard)]
        while not game.ended:
            for ai in ais:
                ai.step(game, 4)
        w = game.world
        return game.result_for(1), game.game_loop, np.round(w.pos[: w.n], 6).tobytes()

    assert play(5) == play(5)
