"""Unit orders over the game's lifetime: following a unit, and orders that abandon an attack mid-swing."""

from __future__ import annotations

import math

import pytest
from engine_helpers import arena, unit
from sim_helpers import Sim

from sc2env.gamedata import unit_type_by_name

MARINE, ZERGLING, ROACH = 48, 105, 110
SMART, STOP, MOVE, HOLD, ATTACK = 1, 4, 16, 18, 23


def _gap(a, b) -> float:
    return math.hypot(a.pos.x - b.pos.x, a.pos.y - b.pos.y) - a.radius - b.radius


def _by_tag(sim: Sim, tag: int):
    return next(u for u in sim.units() if u.tag == tag)


def _two_marines() -> tuple[Sim, int, int]:
    sim = Sim(arena([unit("Marine", 20, 30), unit("Marine", 30, 30)]))
    follower, leader = sorted(u.tag for u in sim.units(MARINE))
    return sim, follower, leader


@pytest.mark.parametrize("ability", [MOVE, SMART])
def test_a_unit_told_to_move_to_a_unit_keeps_following_it(ability):
    # Move (and a right-click on an own unit) used to end on reaching the unit; the game's order lasts.
    sim, follower, leader = _two_marines()
    assert sim.raw(ability, follower, target=leader) == 1
    sim.step(64)
    me = _by_tag(sim, follower)
    assert _gap(me, _by_tag(sim, leader)) < 1.0, "it reached the unit"
    assert [(o.ability_id, o.target_unit_tag) for o in me.orders] == [(MOVE, leader)], "the order stays"
    sim.raw(MOVE, leader, point=(30, 45))
    sim.step(160)
    me, them = _by_tag(sim, follower), _by_tag(sim, leader)
    assert them.pos.y > 44, "the leader walked away"
    assert _gap(me, them) < 1.0, "the follower went after it"
    assert me.pos.y > 40
    assert [o.ability_id for o in me.orders] == [MOVE]


def test_keeping_up_with_a_unit_that_walks_on():
    sim, follower, leader = _two_marines()
    sim.raw(MOVE, follower, target=leader)
    sim.step(48)
    sim.raw(MOVE, leader, point=(30, 50))
    gaps = []
    for _ in range(20):
        sim.step(4)
        gaps.append(_gap(_by_tag(sim, follower), _by_tag(sim, leader)))
    assert max(gaps[3:]) < 1.5, gaps  # both walk at the Marine's speed: the follower stays close behind


@pytest.mark.parametrize("loops", [64, 8])  # after reaching the unit, and on the way to it
def test_following_ends_when_the_unit_dies_and_the_follower_stands_and_fights_again(loops):
    # A walk to a unit that died left a stale Move: the unit stood passive, never fighting back.
    sim, follower, leader = _two_marines()
    sim.raw(MOVE, follower, target=leader)
    sim.step(loops)
    sim.game.remove_unit(leader)
    sim.step(16)
    me = _by_tag(sim, follower)
    assert not me.orders, "no order on a unit that is gone"
    sim.step(16)
    assert (_by_tag(sim, follower).pos.x, _by_tag(sim, follower).pos.y) == (me.pos.x, me.pos.y), "it stands"
    sim.game.spawn_unit(unit_type_by_name("Zergling"), 2, me.pos.x + 4, me.pos.y)
    sim.step(200)
    assert not sim.units(ZERGLING), "the idle Marine acquired and shot the Zergling"


def test_another_order_ends_following():
    sim, follower, leader = _two_marines()
    sim.raw(MOVE, follower, target=leader)
    sim.step(64)
    sim.raw(MOVE, follower, point=(20, 20))
    sim.raw(MOVE, leader, point=(30, 45))
    sim.step(96)
    me = _by_tag(sim, follower)
    assert math.hypot(me.pos.x - 20, me.pos.y - 20) < 0.5 and not me.orders


def test_orders_queued_after_a_follow_start_when_it_reaches_the_unit():
    sim, follower, leader = _two_marines()
    sim.raw(MOVE, follower, target=leader)
    sim.raw(MOVE, follower, point=(20, 45), queued=True)
    sim.step(400)
    me = _by_tag(sim, follower)
    assert (me.pos.x, me.pos.y) == pytest.approx((20, 45), abs=0.5) and not me.orders


def _count_batches(sim: Sim) -> list[int]:
    """A counter of the engine's batches of loops (one trajectory each)."""
    w, count = sim.game.world, [0]
    trajectory = w.trajectory

    def counted(k):
        count[0] += 1
        return trajectory(k)

    w.trajectory = counted
    return count


def test_followers_crowding_a_standing_unit_settle_without_shoving_it_away():
    # Followers that pushed their unit half a cell set off again and pushed it on: a crowd walked it off.
    crowd = [unit("Marine", 20 + k % 5, 20 + k // 5) for k in range(20)]
    sim = Sim(arena([unit("Marine", 30, 30)] + crowd))
    leader = next(u.tag for u in sim.units(MARINE) if u.pos.x == 30)
    sim.raw(MOVE, [u.tag for u in sim.units(MARINE) if u.tag != leader], target=leader)
    sim.step(800)
    them = _by_tag(sim, leader)
    assert math.hypot(them.pos.x - 30, them.pos.y - 30) < 3
    batches = _count_batches(sim)
    sim.step(400)
    assert batches[0] <= 2 and not sim.game.world.moving.any(), "everyone stands"
    assert all(len(u.orders) == 1 for u in sim.units(MARINE) if u.tag != leader), "all still follow"


@pytest.mark.parametrize("size", [2, 4])
def test_units_following_each_other_in_a_cycle_come_to_rest(size):
    sim = Sim(arena([unit("Marine", 20 + 3 * k, 30) for k in range(size)]))
    tags = sorted(u.tag for u in sim.units(MARINE))
    for k in range(size):
        sim.raw(MOVE, tags[k], target=tags[(k + 1) % size])
    sim.step(1000)
    before = [(u.pos.x, u.pos.y) for u in sim.units(MARINE)]
    batches = _count_batches(sim)
    sim.step(1000)
    assert batches[0] <= 2, "no endless short batches"
    assert [(u.pos.x, u.pos.y) for u in sim.units(MARINE)] == before


def _roach_mid_swing() -> tuple[Sim, int, int]:
    """Our Roach told to attack a passive enemy Marine, its first attack inside its damage point (3 loops)."""
    sim = Sim(arena([unit("Marine", 30, 30, owner=2), unit("Roach", 34.0, 30)]))
    w, combat = sim.game.world, sim.game.combat
    (marine,) = sim.units(MARINE)
    (roach,) = sim.units(ROACH)
    w.mode[w.slot(marine.tag)] = 0  # a passive target, so that only the Roach fights
    assert sim.raw(ATTACK, roach.tag, target=marine.tag) == 1
    for _ in range(8):
        sim.step(1)
        if combat.hits:
            break
    assert combat.hits and combat.hits[0].launch > sim.game.game_loop, "the attack is in its damage point"
    return sim, roach.tag, marine.tag


@pytest.mark.parametrize(
    "order, lands",
    [
        ({"ability": MOVE, "point": (40, 30)}, False),
        ({"ability": STOP}, False),
        ({"ability": HOLD}, False),
        ({"ability": MOVE, "point": (40, 30), "queued": True}, True),  # after the attack: it goes on
        ({"ability": ATTACK, "target": "marine"}, True),  # the same attack again
    ],
)
def test_an_order_away_during_the_damage_point_cancels_the_attack(order, lands):
    # An attack used to be committed once started: a unit moved off mid-swing still dealt its damage.
    sim, roach, marine = _roach_mid_swing()
    target = marine if order.get("target") == "marine" else None
    assert (
        sim.raw(
            order["ability"],
            roach,
            point=order.get("point"),
            target=target,
            queued=order.get("queued", False),
        )
        == 1
    )
    w = sim.game.world
    pending = [hit for hit in sim.game.combat.hits if hit.attacker == roach]
    assert bool(pending) == lands
    if not lands:
        assert w.cooldown[w.slot(roach)] <= 0, "the weapon never fired: it is ready again"
    if order["ability"] == MOVE:  # (a stopped Roach beside the Marine attacks again at once)
        sim.step(12)
        assert _by_tag(sim, marine).health == (45 - 16 if lands else 45)


def test_an_attack_on_another_unit_during_the_damage_point_cancels_the_swing():
    sim, roach, marine = _roach_mid_swing()
    other = sim.game.spawn_unit(unit_type_by_name("Marine"), 2, 34, 33)
    w = sim.game.world
    w.mode[w.slot(other)] = 0
    assert sim.raw(ATTACK, roach, target=other) == 1
    sim.step(12)
    assert _by_tag(sim, marine).health == 45, "the swing at the first Marine never landed"
    assert _by_tag(sim, other).health == 45 - 16, "the weapon, ready again, hit the new target"


def test_a_missile_in_flight_lands_whatever_its_roach_is_told():
    sim, roach, marine = _roach_mid_swing()
    sim.step(4)  # past the damage point: the missile is launched
    sim.raw(MOVE, roach, point=(40, 30))
    sim.step(12)
    assert _by_tag(sim, marine).health == 45 - 16
