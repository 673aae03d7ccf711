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
    own = sorted({a["spawn"]["type"] for a in setup if a["spawn"]["type"].endswith("_RL")})
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
