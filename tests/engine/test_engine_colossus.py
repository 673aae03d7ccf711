"""The Colossus, each rule against a real number: Thermal Lances (two beams of 10, +5 vs Light, every 1.5 game
seconds, range 7), their sweep across the target (0.15 either side of a line 1.25 each way), cliff walking,
and being hit from both planes."""

from __future__ import annotations

import numpy as np
import pytest
from engine_helpers import arena, unit
from sim_helpers import Sim
from test_engine_terrain import definition, positions, walk, walled

from sc2env.gamedata import unit_type_by_name

COLOSSUS = unit_type_by_name("Colossus")
ZERGLING = unit_type_by_name("Zergling")
ATTACK, HOLD, MOVE = 23, 18, 16


def own_arena(setup: list) -> bytes:
    own = sorted({a["spawn"]["type"] for a in setup if a["spawn"]["type"].endswith("_RL")})
    return arena(setup, map_types=own)


def attacking(targets: list[tuple[float, float]], kind: str = "Zergling_RL") -> tuple[Sim, int]:
    """A Colossus at (30, 30) holding position and ordered to attack the first of passive `targets` (player 2)."""
    sim = Sim(own_arena([unit("Colossus", 30, 30)] + [unit(kind, x, y, owner=2) for x, y in targets]))
    units = sim.obs().observation.raw_data.units
    colossus = next(u.tag for u in units if u.owner == 1)
    first = next(u.tag for u in units if u.owner == 2 and np.allclose((u.pos.x, u.pos.y), targets[0]))
    sim.raw(HOLD, colossus)
    sim.raw(ATTACK, colossus, target=first)
    return sim, first


def lives(sim: Sim) -> dict[int, float]:
    return {u.tag: u.health for u in sim.obs().observation.raw_data.units if u.owner == 2}


def test_the_colossus_carries_the_real_games_stats():
    c = COLOSSUS
    assert (c.unit_id, c.health, c.shields, c.armor, c.radius, c.speed, c.sight) == (
        4,
        200,
        150,
        1,
        1.0,
        2.25,
        10,
    )
    w = c.weapon
    assert w is not None and (w.damage, w.attacks, w.range, w.cooldown, w.bonus) == (
        10,
        2,
        7,
        1.5,
        (("Light", 5),),
    )
    assert c.attributes == ("Armored", "Mechanical", "Massive") and c.cliff_walker
    for name in ("Colossus_RL", "Colosus_RL"):  # both spellings of SMAC's maps
        own = unit_type_by_name(name)
        assert (own.health, own.shields, own.weapon) == (200, 150, w) and not own.auto_acquire


def test_two_beams_kill_a_zergling_in_two_attacks_one_cooldown_apart():
    """Each beam 10 + 5 vs Light: 30 an attack against a Zergling's 35 life, so it dies at the second attack,
    1.5 game seconds (24 loops, plus the game's random delay of -1 to 2) after the first."""
    sim, zergling = attacking([(36, 30)])
    life = []
    for _ in range(40):
        sim.step(1)
        life.append(lives(sim).get(zergling, 0.0))
    drops = [(k, round(a - b, 2)) for k, (a, b) in enumerate(zip([35.0, *life], life)) if a - b > 1]
    assert len(drops) == 2 and drops[0][1] == 30  # both beams of the first attack: 2 x (10 + 5)
    gap = drops[1][0] - drops[0][0]
    assert 23 <= gap <= 26
    # The second takes the rest: 5 and what it regenerated meanwhile (0.2734 a game second).
    assert drops[1][1] == pytest.approx(5 + ZERGLING.life_regen * gap / 16, abs=0.02) and life[-1] == 0


def test_the_sweep_hits_every_enemy_on_its_line_across_the_target_and_no_other():
    """The target 6 cells east; the beam sweeps north-south through it, 1.25 each way, 0.15 wide plus each
    unit's radius (a Zergling's 0.375): hit at 1.0 north and 1.7 south (its edge 0.075 past the line's end),
    and at 0.5 east (its edge 0.125 from the line); missed at 1.8 north (0.175 past the end), at 0.6 west
    (0.225 from the line) and far south."""
    inside = [(36.0, 31.0), (36.0, 28.3), (36.5, 29.2)]
    outside = [(36.0, 31.8), (35.4, 29.1), (36.0, 25.0)]
    sim, zergling = attacking([(36.0, 30.0)] + inside + outside)
    sim.step(6)
    life = lives(sim)
    by_pos = {
        (round(u.pos.x, 2), round(u.pos.y, 2)): u.tag
        for u in sim.obs().observation.raw_data.units
        if u.owner == 2
    }
    assert life[zergling] == pytest.approx(35 - 30, abs=0.1)  # (plus a sliver of regeneration)
    for point in inside:
        assert life[by_pos[point]] == pytest.approx(35 - 30, abs=0.1), point  # both beams, 15 each vs Light
    for point in outside:
        assert life[by_pos[point]] == 35, point


def test_the_sweep_spares_own_units_and_air_units():
    sim = Sim(
        own_arena(
            [
                unit("Colossus", 30, 30),
                unit("Zergling_RL", 36, 30, owner=2),
                unit("Zergling_RL", 36, 31, owner=1),
                unit("Medivac_RL", 36, 29, owner=2),
            ]
        )
    )
    units = sim.obs().observation.raw_data.units
    colossus = next(u.tag for u in units if u.unit_type == COLOSSUS.unit_id)
    target = next(u.tag for u in units if u.owner == 2 and u.pos.y == 30)
    sim.raw(HOLD, colossus)
    sim.raw(ATTACK, colossus, target=target)
    sim.step(6)
    after = {(u.owner, round(u.pos.y)): u.health for u in sim.obs().observation.raw_data.units}
    assert after[(2, 30)] == pytest.approx(5, abs=0.1)  # (plus a sliver of regeneration)
    assert after[(1, 31)] == 35 and after[(2, 29)] == 150


def test_anti_air_and_anti_ground_weapons_both_hit_the_colossus():
    """It stands in both planes: a Marauder (ground only) and a Marine (both) hit it; a Colossus (ground only)
    never hits a Medivac."""
    for attacker in ("Marauder", "Marine", "Hydralisk", "Stalker"):
        sim = Sim(own_arena([unit(attacker, 30, 30), unit("Colossus_RL", 34, 30, owner=2)]))
        sim.step(40)
        colossus = next(u for u in sim.obs().observation.raw_data.units if u.owner == 2)
        assert colossus.shield < 150, attacker
    sim = Sim(own_arena([unit("Colossus", 30, 30), unit("Medivac_RL", 34, 30, owner=2)]))
    sim.step(60)
    assert next(u for u in sim.obs().observation.raw_data.units if u.owner == 2).health == 150


def test_a_colossus_walks_straight_over_unpathable_cells():
    sim = Sim(definition([unit("Colossus", 8, 10), unit("Marine", 8, 12)]))
    tags = {u.unit_type: u.tag for u in sim.obs().observation.raw_data.units}
    sim.raw(MOVE, [tags[COLOSSUS.unit_id]], point=(24, 10))
    track = np.concatenate(walk(sim, COLOSSUS.unit_id, 160))
    assert np.abs(track[:, 1] - 10).max() < 1e-6 and np.allclose(track[-1], (24, 10))  # across the wall
    assert not walled()[10, 15]


def test_ground_units_walk_under_a_colossus():
    """It collides with no ground unit: a Marine walks straight through where it stands."""
    sim = Sim(own_arena([unit("Colossus", 30, 30), unit("Marine", 26, 30)]))
    marine = next(u.tag for u in sim.obs().observation.raw_data.units if u.unit_type == 48)
    sim.raw(MOVE, [marine], point=(34, 30))
    track = np.concatenate(walk(sim, 48, 120))
    assert np.abs(track[:, 1] - 30).max() < 1e-6 and np.allclose(track[-1], (34, 30))
    assert positions(sim.obs(), COLOSSUS.unit_id).tolist() == [[30, 30]]
