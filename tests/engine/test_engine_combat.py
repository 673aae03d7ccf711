"""Combat: weapons, cooldowns, armor, auto-acquire, responses, missiles, splash, deaths and kill scores."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from engine_helpers import arena, unit
from s2clientprotocol import sc2api_pb2 as sc_pb
from sim_helpers import Sim

from sc2env.gamedata import unit_type_by_name

MARINE, ZERGLING, BANELING, ROACH = 48, 105, 9, 110
ATTACK, MOVE, STOP, HOLD = 23, 16, 4, 18


def test_marine_kills_a_zergling_with_six_damage_shots():
    sim = Sim(arena([unit("Marine", 30, 30, group="m"), unit("Zergling", 34, 30, owner=2, group="z")]))
    (marine,) = sim.units(MARINE)
    (zergling,) = sim.units(ZERGLING)
    assert sim.raw(ATTACK, marine.tag, target=zergling.tag) == 1
    health, loops = [35.0], 0
    while sim.units(ZERGLING):
        sim.step(1)
        loops += 1
        health += [u.health for u in sim.units(ZERGLING)] or [0.0]
        assert loops < 200
    drops = [a - b for a, b in itertools.pairwise(health) if a - b > 1]
    # 6 per shot, no armor; the Zergling regenerates 0.27 per second meanwhile, so a 7th shot may be needed.
    assert len(drops) in (6, 7) and all(5.9 < d <= 6 for d in drops[:-1])
    stats = sim.obs().observation.score.score_details
    assert stats.killed_minerals.army == 25 and stats.killed_value_units == 25


def marine_shooting_a_roach():
    """A Marine holding position and ordered to attack a Roach 4.5 away: (sim, the Marine, the Roach)."""
    sim = Sim(arena([unit("Marine", 30, 30), unit("Roach", 34.5, 30, owner=2)]))
    (marine,) = sim.units(MARINE)
    (roach,) = sim.units(ROACH)
    sim.raw(HOLD, marine.tag)
    sim.raw(ATTACK, marine.tag, target=roach.tag)
    return sim, marine, roach


@pytest.mark.parametrize("step", [1, 8])
def test_rate_of_fire_is_the_weapon_period_plus_the_mean_random_delay(step):
    sim, _, roach = marine_shooting_a_roach()
    w = sim.game.world
    r = w.slot(roach.tag)
    w.health_max[r] = w.health[r] = 1e9  # a target that never dies, doesn't heal and doesn't fight back
    w.regen[r] = 0.0
    w.mode[r] = 0
    for _ in range(3200 // step):
        sim.step(step)
    shots = (1e9 - w.health[w.slot(roach.tag)]) / 5  # 6 damage - 1 armor
    period = 0.860839844 * 16 + 0.5  # cooldown plus the mean of the U(-1, 2) loop random delay
    assert shots == pytest.approx(3200 / period, rel=0.02), "backdated firing keeps the rate exact"


def test_weapon_cooldown_is_reported_from_the_shot_down_to_zero_never_below():
    # The engine keeps how late a ready weapon fires as a negative cooldown; the game reports 0 when ready.
    sim, _, _ = marine_shooting_a_roach()
    seen = []
    for _ in range(60):
        sim.step(1)
        seen += [u.weapon_cooldown for u in sim.units(MARINE)]
    assert min(seen) == 0.0 and max(seen) > 10  # ready at times, and counting down after each shot


@pytest.mark.parametrize("attacker, gap, first_hit", [("Zergling", 4.0, 3), ("Roach", 8.0, 8)])
def test_the_first_attack_after_a_chase_takes_its_whole_damage_point(attacker, gap, first_hit):
    # A weapon ready for long is not "late" when its unit only now reached the target: it used to strike up
    # to 3 loops after arriving, before its damage point (Zergling and Roach 0.167 s = 3 loops) was over.
    sim = Sim(arena([unit(attacker, 30, 30), unit("Marine", 30 + gap, 30, owner=2)]))
    w = sim.game.world
    a = next(u for u in sim.units() if u.owner == 1)
    target = w.slot(sim.units(MARINE)[0].tag)
    w.mode[target] = 0  # it neither fights back nor dies, nor heals
    w.health_max[target] = w.health[target] = 1e6
    sim.raw(ATTACK, a.tag, target=int(w.tag[target]))
    reach = w.types[w.slot(a.tag)].weapon.range
    arrived = None
    for loop in range(1, 200):
        sim.step(1)
        i = w.slot(a.tag)
        if (
            arrived is None
            and math.dist(w.pos[i], w.pos[target]) - w.radius[i] - w.radius[target] <= reach + 1e-6
        ):
            arrived = loop
        if w.health[target] < 1e6:
            break
    assert arrived is not None and loop - arrived >= first_hit  # the damage point (and the Roach's missile)


def test_roach_armor_and_bonus_free_damage():
    sim, _, _ = marine_shooting_a_roach()
    sim.step(6)
    (roach,) = sim.units(ROACH)
    assert roach.health_max - roach.health == pytest.approx(5, abs=0.1), (
        "6 - 1 armor (plus a sliver of regeneration)"
    )


def test_an_acquired_target_gives_way_to_a_better_one_that_comes_into_range():
    # Threat, then priority: a Marine shooting a Supply Depot it acquired turns on a Zergling biting it (it kept
    # shooting the depot until it died), and goes back to the depot once the Zergling is dead.
    sim = Sim(arena([unit("Marine", 30, 30), unit("SupplyDepot", 34, 30, owner=2)]))
    w = sim.game.world
    (marine,) = sim.units(MARINE)
    depot = sim.units(owner=2)[0].tag
    sim.step(40)
    assert w.engaged[w.slot(marine.tag)] == depot
    zergling = sim.game.spawn_unit(unit_type_by_name("Zergling"), 2, 30, 33)
    sim.game.orders.issue(w.slot(zergling), ATTACK, None, marine.tag, False)
    sim.step(32)
    assert w.engaged[w.slot(marine.tag)] == zergling
    sim.step(160)
    assert not w.exists(zergling) and w.exists(marine.tag) and w.engaged[w.slot(marine.tag)] == depot


def test_idle_units_acquire_enemies_within_scan_range_and_fight_back():
    # Marine scan range 5.5 (edge to edge): a Roach 5.6 away is ignored, one that walks closer is engaged.
    sim = Sim(arena([unit("Marine", 30, 30), unit("Roach", 36.5, 30, owner=2)]))
    sim.step(40)
    assert all(u.health == u.health_max for u in sim.units()), "out of scan range: nobody fights"
    (roach,) = sim.units(ROACH)
    sim.game.world.move_to(sim.game.world.slot(roach.tag), point=(35, 30))
    sim.step(40)
    (marine,) = sim.units(MARINE)
    (roach,) = sim.units(ROACH)
    assert roach.health < roach.health_max, "the idle Marine acquired the Roach in scan range"
    assert marine.health < marine.health_max, "the Roach (idle, offensive) fights back"


def test_a_damaged_unit_responds_and_calls_idle_allies_within_four():
    # Three Zerglings in a row; the Marine outranges them and shoots the first: it and its neighbour (within 4)
    # come for the Marine, the far one (9 away) stays.
    sim = Sim(
        arena(
            [
                unit("Marine", 20, 30),
                unit("Zergling", 25.5, 30, owner=2),
                unit("Zergling", 28, 30, owner=2),
                unit("Zergling", 34.5, 30, owner=2),
            ]
        )
    )
    (marine,) = sim.units(MARINE)
    near = min(sim.units(ZERGLING), key=lambda u: u.pos.x)
    sim.raw(ATTACK, marine.tag, target=near.tag)
    sim.step(16)
    lings = sorted(sim.units(ZERGLING), key=lambda u: u.pos.x)
    assert lings[0].pos.x < 25.5 and lings[1].pos.x < 28, "the shot one and its neighbour charge"
    assert lings[2].pos.x == pytest.approx(34.5), "too far to be called for help"


def test_move_ignores_enemies_and_attack_move_engages_them():
    setup = [unit("Marine", 20, 30), unit("Zergling", 30, 33, owner=2, group="z")]
    for ability, engages in ((MOVE, False), (ATTACK, True)):
        sim = Sim(arena(setup))
        (marine,) = sim.units(MARINE)
        sim.raw(ability, marine.tag, point=(40, 30))
        sim.step(60)
        (zergling,) = sim.units(ZERGLING)
        assert (zergling.health < 35) == engages


def test_hold_position_fires_in_range_but_never_chases():
    sim = Sim(arena([unit("Marine", 30, 30), unit("Zergling", 37, 30, owner=2)]))
    (marine,) = sim.units(MARINE)
    sim.raw(HOLD, marine.tag)
    sim.step(40)
    (m,) = sim.units(MARINE)
    assert (m.pos.x, m.pos.y) == (30, 30) and sim.units(ZERGLING)[0].health == 35


def test_roach_missile_lands_after_its_flight():
    sim = Sim(arena([unit("Marine", 30, 30), unit("Roach", 34.7, 30, owner=2)]))
    (roach,) = sim.units(ROACH)
    (marine,) = sim.units(MARINE)
    sim.raw(HOLD, marine.tag)  # the Marine doesn't shoot back before the Roach is ordered
    sim.raw(STOP, marine.tag)
    sim.game.world.mode[sim.game.world.slot(marine.tag)] = 0  # passive target
    sim.game.combat.hits.clear()
    w = sim.game.world
    sim.game.orders.issue(w.slot(roach.tag), ATTACK, None, marine.tag, False)
    landed = None
    for loop in range(1, 20):
        sim.step(1)
        if sim.units(MARINE)[0].health < 45:
            landed = loop
            break
    # damage point 0.167 s (3 loops) + 3.85 / 1.17 per loop of flight (4 loops), delivered at most a tick late.
    assert landed is not None and 7 <= landed <= 10
    assert sim.units(MARINE)[0].health == 45 - 16


@pytest.mark.parametrize(
    "attacker, x, dies_after, damage",
    [
        ("Zergling", 30.85, 1, 0),  # killed 1 loop into its 3-loop bite: the bite never lands
        ("Roach", 34.0, 1, 0),  # killed before its missile leaves
        ("Roach", 34.0, 4, 16),  # killed with its missile in flight: the missile lands
    ],
)
def test_an_attacker_that_dies_during_its_damage_point_lands_nothing(attacker, x, dies_after, damage):
    # The whole attack used to be committed when it started, so Zerg killed mid-swing still dealt damage.
    sim = Sim(arena([unit("Marine", 30, 30), unit(attacker, x, 30, owner=2)]))
    w = sim.game.world
    (marine,) = sim.units(MARINE)
    w.mode[w.slot(marine.tag)] = 0  # a passive target, so it doesn't kill the attacker itself
    for _ in range(8):
        sim.step(1)
        if sim.game.combat.hits:
            break
    assert sim.game.combat.hits, "the attack started"
    tag = sim.game.combat.hits[0].attacker
    if dies_after > 1:
        sim.step(dies_after - 1)
    sim.game.remove_unit(tag)
    sim.step(12)
    assert sim.units(MARINE)[0].health == 45 - damage


@pytest.mark.parametrize("step", [1, 2, 4, 8])
def test_a_zergling_shot_dead_mid_bite_never_bites_whatever_the_step(step):
    # Within a batch the Marine's shot (landing at the bite's second loop) and the bite's end were judged
    # together: the rule held only at 1-loop steps.
    sim = Sim(arena([unit("Marine", 30, 30), unit("Zergling", 30.85, 30, owner=2)]))
    w, combat = sim.game.world, sim.game.combat
    (marine,) = sim.units(MARINE)
    (zergling,) = sim.units(ZERGLING)
    w.mode[w.slot(marine.tag)] = 0  # passive until the bite has started
    for _ in range(8):
        sim.step(1)
        if combat.hits:
            break
    z, m = w.slot(zergling.tag), w.slot(marine.tag)
    w.health[z], w.regen[z] = 1.0, 0.0  # one Marine shot kills it
    sim.raw(ATTACK, marine.tag, target=zergling.tag)
    w.cooldown[m] = 0
    for _ in range(12 // step):
        sim.step(step)
    assert not sim.units(ZERGLING) and sim.units(MARINE)[0].health == 45


def test_baneling_bursts_on_contact_splashes_light_units_and_dies():
    # A column of Marines 1 apart and a Baneling touching the middle one: it bursts at once for 35 (20 + 15 vs
    # Light) on every Marine whose edge is within 2.2 of its centre, and none beyond.
    setup = [unit("Marine", 30, 30 + dy, group="m") for dy in (-3, -2, -1, 0, 1, 2, 3)]
    setup += [unit("Baneling", 31.0, 30, owner=2, group="b")]
    sim = Sim(arena(setup, triggers=[{"when": {"unit_died": {"owner": 2}}, "do": [{"score": {"add": 5}}]}]))
    sim.step(4)
    assert not sim.units(BANELING), "the Baneling died bursting"
    for m in sim.units(MARINE):
        within = math.hypot(m.pos.x - 31.0, m.pos.y - 30) - 0.375 <= 2.2
        assert m.health == (10 if within else 45), (m.pos.y, m.health)
    assert sum(m.health == 10 for m in sim.units(MARINE)) == 5
    assert sim.obs().observation.score.score == 5, "the burst counts as the Baneling's death"
    details = sim.obs().observation.score.score_details
    assert details.killed_value_units == 0, "a suicide gives no kill credit"
    assert details.total_damage_taken.life == 5 * 35


def test_every_death_of_the_last_loop_is_scored():
    # The maps' triggers run once per death: -1 per Marine lost, the defeat when none is left, +5 per Zerg
    # death. A burst that kills the last two Marines ended the game at the first Marine's trigger, and the
    # other Marine and the Baneling went unscored (-1 instead of +5 - 2).
    setup = [
        unit("Marine", 30, 30, group="marines", health=10),
        unit("Marine", 30, 31, group="marines", health=10),
        unit("Baneling", 29.3, 30.5, owner=2),
    ]
    # After the end only score actions run: the Baneling's trigger spawns nothing into the ended game.
    triggers = [
        {
            "when": {"unit_died": {"owner": 2}},
            "do": [
                {"spawn": {"type": "Marine", "owner": 1, "at": {"point": [40, 40]}}},
                {"score": {"add": 5}},
            ],
        },
        {
            "when": {"unit_died": {"owner": 1}},
            "do": [
                {"score": {"add": -1}},
                {
                    "if": {"group_count": {"group": "marines", "at_most": 0}},
                    "then": [{"end_game": {"result": "Defeat"}}],
                },
            ],
        },
    ]
    sim = Sim(arena(setup, triggers=triggers))
    for marine in sim.units(MARINE):  # standing still without a weapon order, so the Baneling connects
        sim.raw(16, marine.tag, point=(marine.pos.x + 0.01, marine.pos.y))
    answer = sim.step(4)
    assert sim.game.ended and sim.game.result == sc_pb.Defeat
    assert answer.observation.score.score == 5 - 2
    assert [r.result for r in answer.player_result] == [sc_pb.Defeat]
    assert not sim.units(MARINE)


def test_marines_shoot_a_lone_baneling_before_it_connects():
    setup = [unit("Marine", 30, 30 + dy) for dy in (-3, -2, -1, 0, 1, 2, 3)] + [
        unit("Baneling", 34, 30, owner=2)
    ]
    sim = Sim(arena(setup))
    sim.step(16)
    assert not sim.units(BANELING) and all(m.health == 45 for m in sim.units(MARINE))


def test_a_baneling_shot_dead_bursts_where_it_dies():
    setup = [unit("Marine", 30, 30), unit("Marine", 31, 30), unit("Baneling", 31.9, 31.5, owner=2)]
    sim = Sim(arena(setup))
    (bane,) = sim.units(BANELING)
    marine = sim.units(MARINE)[0]
    w = sim.game.world
    w.health[w.slot(bane.tag)] = 1.0
    w.mode[w.slot(bane.tag)] = 0  # make it a passive target: only the Marine acts
    sim.game.orders.issue(w.slot(marine.tag), ATTACK, None, bane.tag, False)
    sim.step(4)
    assert not sim.units(BANELING)
    assert any(u.health == 10 for u in sim.units(MARINE)), "its death burst hit the Marines beside it"
    assert sim.obs().observation.score.score_details.killed_value_units == 75


def test_zerg_regenerate():
    sim = Sim(arena([unit("Zergling", 30, 30, owner=2, health=20)]))
    sim.step(160)
    (zergling,) = sim.units(ZERGLING)
    assert zergling.health == pytest.approx(20 + 10 * 0.2734, abs=1e-6), "0.2734 hit points per game second"


def test_attack_on_an_own_unit_and_on_invulnerable_units():
    sim = Sim(arena([unit("Marine", 30, 30), unit("Marine", 33, 30), unit("MineralField", 40, 30, owner=0)]))
    a, b = sim.units(MARINE)
    sim.raw(ATTACK, a.tag, target=b.tag)
    sim.step(4)
    assert min(u.health for u in sim.units(MARINE)) == 39, "an explicit Attack may target an own unit"
    (mineral,) = sim.units(341)
    assert sim.raw(ATTACK, a.tag, target=mineral.tag) == 1
    order = sim.units(MARINE)[0].orders[0]
    assert order.ability_id == ATTACK and not order.target_unit_tag, "an invulnerable target becomes a point"
    assert math.isclose(order.target_world_space_pos.x, 40, abs_tol=1e-6)


def test_defeat_roaches_waves_never_stack_marines_on_one_point():
    # From the third wave on the marine column runs past the arena's edge (9 + 5 per wave Marines at 1.0
    # spacing); the Marines off the arena stand at the nearest free spots instead of on one clamped point.
    sim = Sim(map_name="DefeatRoaches", seed=5)
    w = sim.game.world
    marine = sim.units(MARINE)[0].tag
    for _ in range(4):
        for roach in sim.units(ROACH):
            sim.game.combat._damage(w.slot(roach.tag), 10_000, marine, 1)
        sim.step(1)
        marine = sim.units(MARINE)[0].tag
    marines = sim.units(MARINE)
    assert len(marines) == 9 + 4 * 5
    p = np.array([(u.pos.x, u.pos.y) for u in marines])
    d = np.hypot(p[:, None, 0] - p[None, :, 0], p[:, None, 1] - p[None, :, 1]) + np.eye(len(p)) * 9
    assert d.min() >= 0.75 - 1e-6, "no two Marines overlap"
    assert (p[:, 0] >= 22.375 - 1e-9).all() and (p[:, 0] <= 43.625 + 1e-9).all()
    assert (p[:, 1] >= 20.375 - 1e-9).all() and (p[:, 1] <= 35.625 + 1e-9).all()


def _kill_all(sim: Sim, unit_type: int) -> None:
    w = sim.game.world
    marine = sim.units(MARINE)[0].tag
    for victim in sim.units(unit_type):
        sim.game.combat._damage(w.slot(victim.tag), 10_000, marine, 1)


def _distances(a, b) -> np.ndarray:
    p = np.array([(u.pos.x, u.pos.y) for u in a])
    q = np.array([(u.pos.x, u.pos.y) for u in b])
    return np.hypot(p[:, None, 0] - q[None, :, 0], p[:, None, 1] - q[None, :, 1])


@pytest.mark.parametrize("seed", [1, 7])
def test_find_and_defeat_zerglings_respawns_25_away_from_the_marines_and_scores_losses(seed):
    sim = Sim(map_name="FindAndDefeatZerglings", seed=seed, disable_fog=True)
    killed = len(sim.units(ZERGLING))
    _kill_all(sim, ZERGLING)
    obs = sim.step(1)
    assert obs.observation.score.score == killed, "+1 per Zergling"
    zerglings, marines = sim.units(ZERGLING), sim.units(MARINE)
    assert len(zerglings) == 25 and len(marines) == 3
    # The map draws points >= 9 from every Marine and >= 5 from the other Zerglings; placing a Zergling on
    # the pathable area moves a point drawn at the area's edge by up to its radius (0.375).
    assert _distances(zerglings, marines).min() >= 9 - 0.375
    apart = _distances(zerglings, zerglings) + np.eye(25) * 99
    assert apart.min() >= 5 - 2 * 0.375
    sim.game.combat._damage(sim.game.world.slot(marines[0].tag), 10_000, zerglings[0].tag, 2)
    obs = sim.step(1)
    assert obs.observation.score.score == killed - 1 and len(sim.units(MARINE)) == 2, "-1 per Marine lost"


def test_defeat_zerglings_and_banelings_waves_bring_four_marines_and_new_zerg():
    sim = Sim(map_name="DefeatZerglingsAndBanelings", seed=2)
    score = 0
    for _wave in range(1, 3):
        zerg = len(sim.units(ZERGLING)) + len(sim.units(BANELING))
        marines = len(sim.units(MARINE))
        _kill_all(sim, ZERGLING)
        _kill_all(sim, BANELING)
        obs = sim.step(1)
        score += 5 * zerg
        assert obs.observation.score.score == score, "+5 per Zergling or Baneling"
        assert len(sim.units(MARINE)) == marines + 4
        assert len(sim.units(ZERGLING)) == 6 and len(sim.units(BANELING)) == 4
        p = np.array([(u.pos.x, u.pos.y) for u in sim.units(MARINE)])
        assert (_distances(sim.units(MARINE), sim.units(MARINE)) + np.eye(len(p)) * 9).min() >= 0.75 - 1e-6


@pytest.mark.parametrize("attacker", ["Zergling", "Marine"])
def test_a_chase_of_a_structure_from_its_corner_ends_in_range(attacker):
    # Range is measured to a structure's nearest point, so the region within range has round corners; a chase
    # that stopped where the footprint grown as a square begins stood out of range on the diagonal and never
    # fired (a unit sent at a building's corner).
    sim = Sim(arena([unit(attacker, 40, 40), unit("SupplyDepot", 30, 30, owner=2)]))
    w = sim.game.world
    (chaser,) = sim.units(unit_type_by_name(attacker).unit_id)
    depot = sim.units(owner=2)[0]
    assert sim.raw(ATTACK, chaser.tag, target=depot.tag) == 1
    sim.step(200)
    (hit,) = sim.units(owner=2)
    assert hit.health < depot.health, f"{attacker} never hit the depot from its corner"
    assert w.engaged[w.slot(chaser.tag)] == depot.tag


def test_call_for_help_reaches_idle_allies_only():
    # The game's rule (a damaged idle unit responds; idle allies within 4 are called in): a Zergling on an
    # attack-move 2.5 from the one the Marine shoots keeps to its own order instead of charging the Marine.
    sim = Sim(
        arena(
            [
                unit("Marine", 20, 30),
                unit("Zergling", 25.5, 30, owner=2),
                unit("Zergling", 28, 30, owner=2),
            ]
        )
    )
    (marine,) = sim.units(MARINE)
    shot, walker = sorted(sim.units(ZERGLING), key=lambda u: u.pos.x)
    w = sim.game.world
    sim.game.orders.issue(w.slot(walker.tag), ATTACK, (28.0, 45.0), None, False)
    sim.raw(ATTACK, marine.tag, target=shot.tag)
    sim.step(16)
    by_tag = {u.tag: u for u in sim.units(ZERGLING)}
    assert by_tag[shot.tag].pos.x < 25.5, "the idle one that was shot charges"
    assert by_tag[walker.tag].pos.x == pytest.approx(28), "the attack-moving one is not called in"
    assert by_tag[walker.tag].pos.y > 31, "it walks on to its point"


@pytest.mark.parametrize("gap, acquires", [(6.4, True), (6.6, False)])
def test_a_ground_unit_scans_half_a_cell_beyond_its_range(gap, acquires):
    # Since Legacy of the Void a ground unit's minimum scan range is its weapon range + 0.5: an idle Stalker
    # (range 6) takes a Zergling 6.4 away edge to edge and leaves one 6.6 away (the Zergling's own scan is 5).
    stalker_radius, zergling_radius = 0.625, 0.375
    sim = Sim(
        arena(
            [
                unit("Stalker", 30, 30),
                unit("Zergling", 30 + stalker_radius + zergling_radius + gap, 30, owner=2),
            ]
        )
    )
    sim.step(32)
    (zergling,) = sim.units(ZERGLING)
    assert (zergling.health < 35) == acquires


@pytest.mark.parametrize(("name", "speed"), [("Zergling", 2.953125), ("Baneling", 2.5), ("Marine", 2.25)])
def test_the_duel_units_move_at_the_game_data_speeds(name, speed):
    # Per game second at Normal speed (at Faster, x1.4: 4.13, 3.5, 3.15), DuelZerglingsBanelings' armies.
    sim = Sim(arena([unit(name, 12, 30), unit("Marine", 60, 60, owner=2)]))
    (mover,) = sim.units(owner=1)
    sim.raw(MOVE, mover.tag, point=(60, 30))
    sim.step(2)  # past the first loop (the order starts)
    start = next(u.pos.x for u in sim.units(owner=1))
    sim.step(160)
    assert next(u.pos.x for u in sim.units(owner=1)) - start == pytest.approx(10 * speed, rel=1e-3)


def test_a_zergling_bites_at_its_weapon_period_plus_the_mean_random_delay():
    sim = Sim(arena([unit("Zergling", 30, 30), unit("Marine", 30.85, 30, owner=2)]))
    w = sim.game.world
    (zergling,) = sim.units(ZERGLING)
    (marine,) = sim.units(MARINE)
    m = w.slot(marine.tag)
    w.health_max[m] = w.health[m] = 1e9  # a target that never dies and does not fight back
    w.mode[m] = 0
    sim.raw(ATTACK, zergling.tag, target=marine.tag)
    sim.step(1600)
    bites = (1e9 - w.health[m]) / 5  # 5 damage, no armor
    assert bites == pytest.approx(1600 / (0.696044922 * 16 + 0.5), rel=0.02)
