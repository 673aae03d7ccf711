"""World mechanics: movement at real speeds, order queues, patrol, collision, removal."""

from __future__ import annotations

import numpy as np
import pytest

from sc2env.engine.world import Bounds, Order, World
from sc2env.gamedata import unit_type_by_name

MARINE = unit_type_by_name("Marine")


def run(world: World, loops: int) -> None:
    done = 0
    while done < loops:
        k = world.free_loops(loops - done)
        world.advance(world.trajectory(k), k)
        done += k


def test_marine_moves_at_its_real_speed_and_stops_at_the_goal():
    w = World(Bounds(0, 0, 64, 64))
    tag = w.spawn(MARINE, 1, 10, 10)
    w.issue(tag, Order(16, point=(20, 10)), queued=False)
    run(w, 16)
    assert w.pos[w.slot(tag)] == pytest.approx((12.25, 10))  # 2.25 per game second = 16 loops
    run(w, 100)
    assert w.pos[w.slot(tag)] == pytest.approx((20, 10)) and not w.orders[w.slot(tag)] and not w.moving.any()


def test_queued_orders_run_in_turn_and_patrol_goes_back_and_forth():
    w = World(Bounds(0, 0, 64, 64))
    tag = w.spawn(MARINE, 1, 10, 10)
    w.issue(tag, Order(16, point=(12, 10)), queued=False)
    w.issue(tag, Order(16, point=(12, 14)), queued=True)
    assert [o.point for o in w.orders[0]] == [(12, 10), (12, 14)]
    run(w, 16)  # 15 loops to cover 2 units, then one loop towards the queued point
    assert w.pos[0] == pytest.approx((12, 10 + 2.25 / 16))
    w.issue(tag, Order(17, point=(16, 10.25)), queued=False)
    seen = []
    for _ in range(120):
        run(w, 1)
        seen.append(w.pos[0, 0])
    assert max(seen) == pytest.approx(16) and min(seen) == pytest.approx(12) and w.orders[0][0].ability_id == 17


def test_moves_are_clamped_to_the_pathable_area_and_units_do_not_overlap():
    w = World(Bounds(22, 20, 44, 36))
    a = w.spawn(MARINE, 1, 30, 30)
    w.spawn(MARINE, 1, 34, 30)
    w.issue(a, Order(16, point=(0, 30)), queued=False)
    assert w.orders[0][0].point == (22.375, 30)
    w.issue(a, Order(16, point=(34, 30)), queued=False)
    run(w, 64)
    d = np.hypot(*(w.pos[0] - w.pos[1]))
    assert d >= 0.75 - 1e-9 and not w.moving.any(), "pushed aside, then crowded arrival ends the order"


def test_removing_a_unit_keeps_the_other_rows_consistent():
    w = World(Bounds(0, 0, 64, 64))
    tags = [w.spawn(MARINE, 1, x, 5) for x in range(12)]  # grows past the initial capacity
    w.remove(tags[3])
    assert w.n == 11 and not w.exists(tags[3])
    assert all(w.tag[w.slot(t)] == t and w.pos[w.slot(t), 0] == x for x, t in enumerate(tags) if x != 3)
