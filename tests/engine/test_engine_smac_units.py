"""SMAC's units on the engine, each rule against a real number: shields, the Zealot's two blades, bonus damage
vs Armored, and the map's own passive types (no acquiring, no response)."""

from __future__ import annotations

import pytest
from engine_helpers import arena, unit
from sim_helpers import Sim

from sc2env.gamedata import unit_type_by_name

MARINE, MARAUDER, STALKER, ZEALOT = 48, 51, 74, 73
ATTACK, HOLD = 23, 18


def own_arena(setup: list) -> bytes:
    """A test arena whose map defines the own types its setup spawns (as SMAC's maps do)."""
    own = sorted({a["spawn"]["type"] for a in setup if a.get("spawn", {}).get("type", "").endswith("_RL")})
    return arena(setup, map_types=own)


def shooting(attacker: str, target: str, gap: float, **target_fields) -> tuple[Sim, object, object]:
    """`attacker` (player 1) holding position and ordered to attack `target` (player 2, passive) `gap` away."""
    sim = Sim(own_arena([unit(attacker, 30, 30), unit(target, 30 + gap, 30, owner=2, **target_fields)]))
    a = next(u for u in sim.obs().observation.raw_data.units if u.owner == 1)
    t = next(u for u in sim.obs().observation.raw_data.units if u.owner == 2)
    sim.raw(HOLD, a.tag)
    sim.raw(ATTACK, a.tag, target=t.tag)
    return sim, a, t


def target_of(sim: Sim):
    return next(u for u in sim.obs().observation.raw_data.units if u.owner == 2)


def test_shields_take_damage_first_and_without_armor():
    """A Marine's 6 against a Zealot (50 shields, 1 armor): the shields lose 6 a shot, the life nothing."""
    sim, _, _ = shooting("Marine", "Zealot_RL", 4.5)
    sim.step(6)
    zealot = target_of(sim)
    assert (zealot.shield, zealot.health) == (44, 100)


def test_damage_beyond_the_shields_takes_the_armor():
    """With 2 shields left, a 6-damage shot: 2 on the shields, 4 - 1 armor = 3 on the life."""
    sim, _, zealot = shooting("Marine", "Zealot_RL", 4.5)
    w = sim.game.world
    w.shields[w.slot(zealot.tag)] = 2
    w.shields_from[w.slot(zealot.tag)] = 160  # as after a hit: no regeneration meanwhile
    sim.step(6)
    zealot = target_of(sim)
    assert (zealot.shield, zealot.health) == (0, 97)


def test_shields_regenerate_two_a_second_after_ten_seconds_without_damage():
    sim, marine, _ = shooting("Marine_RL", "Zealot_RL", 4.5)  # both passive: no shot but the ordered one
    sim.step(6)  # one shot: 44 shields
    sim.raw(4, marine.tag)  # stop
    assert target_of(sim).shield == 44
    sim.step(150)  # 156 loops after the hit: still waiting (10 game seconds are 160 loops)
    assert target_of(sim).shield == 44
    sim.step(4 + 16)  # one game second after the wait
    assert target_of(sim).shield == pytest.approx(46, abs=0.2)
    sim.step(16 * 10)
    assert target_of(sim).shield == 50  # full, and no further


def test_a_zealot_strikes_twice_and_armor_counts_against_each_blade():
    """PsiBlades: 8 x 2 a strike (against a Marine, no armor: 16)."""
    sim = Sim(own_arena([unit("Zealot", 30, 30), unit("Marine_RL", 31.0, 30, owner=2)]))
    zealot = next(u for u in sim.obs().observation.raw_data.units if u.owner == 1)
    marine = target_of(sim)
    sim.raw(ATTACK, zealot.tag, target=marine.tag)
    sim.step(8)  # one strike (the next comes 1.2 game seconds later)
    assert target_of(sim).health == 45 - 2 * 8
    sim = Sim(own_arena([unit("Zealot", 30, 30), unit("Marauder_RL", 31.1, 30, owner=2)]))
    zealot = next(u for u in sim.obs().observation.raw_data.units if u.owner == 1)
    sim.raw(ATTACK, zealot.tag, target=target_of(sim).tag)
    sim.step(8)
    assert target_of(sim).health == 125 - 2 * (8 - 1)  # armor 1 against each blade: 14, not 15


@pytest.mark.parametrize(
    ("attacker", "target", "gap", "shield_hit", "health_hit"),
    [
        ("Stalker", "Marine_RL", 5.5, 0, 13),  # 13, no bonus on Light, no armor
        ("Stalker", "Stalker_RL", 6.5, 18, 0),  # 13 + 5 vs Armored, all on the 80 shields
        ("Marine", "Stalker_RL", 5.5, 6, 0),
        ("Marauder", "Stalker_RL", 6.5, 20, 0),  # 10 + 10 vs Armored
    ],
)
def test_bonus_damage_against_armored(attacker, target, gap, shield_hit, health_hit):
    sim, _, before = shooting(attacker, target, gap)
    sim.step(6)
    after = target_of(sim)
    assert (before.shield - after.shield, before.health - after.health) == (shield_hit, health_hit)


@pytest.mark.parametrize("name", ["Marine_RL", "Stalker_RL", "Zealot_RL"])
def test_a_maps_own_type_never_acquires_nor_fights_back(name):
    """An enemy Marine shooting it from 4 away: the passive copy stands and dies; the real type fights back."""
    real = unit_type_by_name(name.removesuffix("_RL"))
    sim = Sim(own_arena([unit(name, 30, 30), unit("Marine", 34, 30, owner=2)]))
    sim.step(16 * 5)
    own = [u for u in sim.obs().observation.raw_data.units if u.owner == 1]
    enemy = target_of(sim)
    assert enemy.health == 45, "never shot at"
    assert not own or own[0].health + own[0].shield < real.health + real.shields
    sim = Sim(own_arena([unit(real.name, 30, 30), unit("Marine", 34, 30, owner=2)]))
    sim.step(16 * 5)
    enemies = [u for u in sim.obs().observation.raw_data.units if u.owner == 2]
    assert not enemies or enemies[0].health < 45


def test_stalkers_and_zealots_carry_the_real_games_stats():
    for name, health, shields, armor, speed in (
        ("Stalker", 80, 80, 1, 2.953125),
        ("Zealot", 100, 50, 1, 2.25),
        ("Marauder", 125, 0, 1, 2.25),
    ):
        t = unit_type_by_name(name)
        own = unit_type_by_name(f"{name}_RL")
        assert (t.health, t.shields, t.armor, t.speed) == (health, shields, armor, speed)
        assert (own.health, own.shields, own.weapon) == (t.health, t.shields, t.weapon)
        assert not own.auto_acquire and not own.responds and t.auto_acquire and t.responds


HEAL = 386


def medivac_arena(medivac: str, patient_health: float, gap: float = 3.0) -> tuple[Sim, object, object]:
    """A Medivac (player 1) and a damaged own Marine `gap` away."""
    sim = Sim(own_arena([unit(medivac, 30, 30), unit("Marine_RL", 30 + gap, 30, health=patient_health)]))
    units = sim.obs().observation.raw_data.units
    medic = next(u for u in units if u.radius == 0.75)  # the Medivac's radius (the Marine's is 0.375)
    marine = next(u for u in units if u.tag != medic.tag)
    return sim, medic, marine


def unit_by_tag(sim: Sim, tag: int):
    return next(u for u in sim.obs().observation.raw_data.units if u.tag == tag)


def test_an_ordered_heal_restores_nine_life_a_game_second_for_a_third_of_an_energy_each():
    sim, medic, marine = medivac_arena("Medivac_RL", 20)
    assert medic.energy == 50 and medic.energy_max == 200
    assert sim.raw(HEAL, medic.tag, target=marine.tag) == 1
    sim.step(16)
    healed = unit_by_tag(sim, marine.tag).health - 20
    spent = 50 + 0.5625 - unit_by_tag(sim, medic.tag).energy  # a game second of energy regeneration
    assert healed == pytest.approx(9, abs=0.01) and spent == pytest.approx(3, abs=0.01)
    sim.step(16 * 3)  # 25 left to heal: whole within the next 3 game seconds, and no further
    assert unit_by_tag(sim, marine.tag).health == 45
    assert not unit_by_tag(sim, medic.tag).orders  # the order ends with the unit whole


def test_a_heal_out_of_range_flies_to_its_unit_first():
    sim, medic, marine = medivac_arena("Medivac_RL", 20, gap=9)
    sim.raw(HEAL, medic.tag, target=marine.tag)
    sim.step(8)
    assert unit_by_tag(sim, marine.tag).health == 20  # still on its way: 9 - 1.125 - 4 cells at 2.75/16
    sim.step(40)
    assert unit_by_tag(sim, marine.tag).health > 20
    assert unit_by_tag(sim, medic.tag).pos.x > 30


def test_heal_takes_only_own_biological_units():
    sim = Sim(
        own_arena(
            [unit("Medivac_RL", 30, 30), unit("Stalker_RL", 32, 30), unit("Marine_RL", 32, 32, owner=2)]
        )
    )
    units = sim.obs().observation.raw_data.units
    medic, stalker, enemy = (
        next(u for u in units if u.pos.x == x and u.pos.y == y) for x, y in ((30, 30), (32, 30), (32, 32))
    )
    assert sim.raw(HEAL, medic.tag, target=stalker.tag) != 1  # Mechanical
    assert sim.raw(HEAL, medic.tag, target=enemy.tag) != 1  # another player's


@pytest.mark.parametrize(("medivac", "heals"), [("Medivac", True), ("Medivac_RL", False)])
def test_a_real_medivac_heals_by_itself_and_smacs_copy_does_not(medivac, heals):
    sim, _, marine = medivac_arena(medivac, 20)
    sim.step(32)
    assert (unit_by_tag(sim, marine.tag).health > 20) == heals


def test_an_attack_moving_medivac_stops_to_heal_and_then_flies_on():
    """A real Medivac attack-moving past a Marine with 5 of 45 life stays by it for the 40 / 9 = 4.4 game
    seconds the heal takes (flying on, at 2.75 a second, it would leave its 4 of range after about 3), then
    goes on to its point."""
    # As a map's script orders it (a Medivac's command card has no Attack; SMAC's maps order all player 2).
    order = {"order": {"units": {"group": "medic"}, "ability": ATTACK, "point": [50, 30]}}
    sim = Sim(own_arena([unit("Medivac", 30, 30, group="medic"), unit("Marine_RL", 33, 30, health=5), order]))
    units = sim.obs().observation.raw_data.units
    medic = next(u for u in units if u.radius == 0.75)
    marine = next(u for u in units if u.tag != medic.tag)
    sim.step(16 * 4 + 8)
    assert unit_by_tag(sim, marine.tag).health == pytest.approx(45)
    medivac = unit_by_tag(sim, medic.tag)
    assert medivac.pos.x < 33 + 4 + 0.75 + 0.375  # within heal range of the Marine all along
    assert medivac.energy == pytest.approx(50 + 0.5625 * 4.5 - 40 / 3, abs=0.01)
    sim.step(16 * 4)
    assert unit_by_tag(sim, medic.tag).pos.x > medivac.pos.x + 6  # on its way again at once
    assert unit_by_tag(sim, medic.tag).orders[0].ability_id == ATTACK


def test_air_units_are_hit_only_by_weapons_that_target_air():
    """A Marine (ground and air) shoots a Medivac; a Marauder or Zealot (ground only) never does, not even
    when ordered to."""
    for attacker, hits in (("Marine", True), ("Marauder", False), ("Zealot", False)):
        sim = Sim(own_arena([unit(attacker, 30, 30), unit("Medivac_RL", 33, 30, owner=2)]))
        a = next(u for u in sim.obs().observation.raw_data.units if u.owner == 1)
        sim.raw(ATTACK, a.tag, target=target_of(sim).tag)
        sim.step(32)
        assert (target_of(sim).health < 150) == hits, attacker


def test_a_hydralisk_kills_a_zergling_in_three_needle_spines_and_hits_air():
    """12 damage a shot, no armor on either: 35 life takes 3 shots, the first two 0.825 game s apart."""
    sim = Sim(own_arena([unit("Hydralisk", 30, 30), unit("Zergling_RL", 34, 30, owner=2)]))
    hydra = next(u for u in sim.obs().observation.raw_data.units if u.owner == 1)
    sim.raw(HOLD, hydra.tag)
    sim.raw(ATTACK, hydra.tag, target=target_of(sim).tag)
    lives = []
    for _ in range(40):
        sim.step(1)
        enemies = [u for u in sim.obs().observation.raw_data.units if u.owner == 2]
        lives.append(enemies[0].health if enemies else 0.0)
    drops = [round(a - b) for a, b in zip([35.0, *lives], lives) if a - b > 1]
    assert drops == [12, 12, 11]  # the last shot takes what is left (35 - 24, plus a sliver of regeneration)
    assert unit_type_by_name("Hydralisk_RL").health == 80 and unit_type_by_name("Hydralisk").health == 90
    sim = Sim(own_arena([unit("Hydralisk", 30, 30), unit("Medivac_RL", 33, 30, owner=2)]))
    sim.step(32)
    assert target_of(sim).health < 150  # its weapon targets air too
