"""World mechanics: movement at real speeds, acceleration, obstacles, collision, placement, removal."""

from __future__ import annotations

import typing

import numpy as np
import pytest

from sc2env.engine.world import Bounds, World
from sc2env.engine.world_state import COLUMNS, UnitColumns, columns_of
from sc2env.gamedata import unit_type_by_name

MARINE = unit_type_by_name("Marine")
SCV = unit_type_by_name("SCV")
CC = unit_type_by_name("CommandCenter")


def run(world: World, loops: int) -> list[int]:
    """Advance `loops` loops as the game does; returns the tags whose legs ended."""
    done, arrived = 0, []
    while done < loops:
        world.prepare()
        k = world.free_loops(loops - done)
        tags, _ = world.advance(world.trajectory(k), k)
        arrived += tags
        done += k
    return arrived


def test_marine_moves_at_its_real_speed_and_stops_at_the_goal():
    w = World(Bounds(0, 0, 64, 64))
    tag = w.spawn(MARINE, 1, 10, 10)
    w.move_to(w.slot(tag), point=(20, 10))
    run(w, 16)
    assert w.pos[w.slot(tag)] == pytest.approx((12.25, 10))  # 2.25 per game second = 16 loops
    assert run(w, 100) == [tag]
    assert w.pos[w.slot(tag)] == pytest.approx((20, 10)) and not w.moving.any()


def test_scv_accelerates_to_its_top_speed():
    w = World(Bounds(0, 0, 64, 64))
    tag = w.spawn(SCV, 1, 10, 10)
    w.move_to(w.slot(tag), point=(40, 10))
    run(w, 18)  # 2.5 units/s^2: 2.8125/s after 18 loops, having covered half of the top-speed distance
    covered = w.pos[w.slot(tag), 0] - 10
    top = 2.8125 / 16
    assert covered == pytest.approx(sum(min(2.5 / 256 * t, top) for t in range(1, 19)))
    assert w.velocity[w.slot(tag)] == pytest.approx(top)


# An SCV sent 4 cells in the game, its distance after each loop (sc2math.wordpress.com, "SCV Acceleration",
# measured with the map editor): it speeds up at 2.5/256 per loop^2 and slows down at the same rate to stop.
SCV_4_CELLS = (
    0.0293,
    0.0586,
    0.0977,
    0.1465,
    0.2051,
    0.2734,
    0.3516,
    0.4395,
    0.5371,
    0.6445,
    0.7617,
    0.8887,
    1.0254,
    1.1719,
    1.3281,
    1.4941,
    1.6699,
    1.8457,
    2.0215,
    2.1973,
    2.3730,
    2.5488,
    2.7148,
    2.8711,
    3.0176,
    3.1543,
    3.2813,
    3.3984,
    3.5059,
    3.6035,
    3.6914,
    3.7695,
    3.8379,
    3.8965,
    3.9453,
    3.9844,
    4.0000,
)


@pytest.mark.parametrize("batch", [1, 3, 16])
def test_scv_brakes_to_a_stop_as_in_the_game(batch):
    w = World(Bounds(0, 0, 64, 64))
    i = w.slot(w.spawn(SCV, 1, 10, 10))
    w.move_to(i, point=(14, 10))
    covered = []  # distance from the start after each loop
    while len(covered) < 40:
        w.prepare()
        k = w.free_loops(batch)
        trajectory = w.trajectory(k)
        start = w.pos[i, 0] - 10
        covered += [start + t for t in trajectory.travel[:k, 0].tolist()] if trajectory else [start] * k
        w.advance(trajectory, k)
    # Our first loop moves a, the game's first measured loop 3a: the same profile one loop later.
    assert covered[1 : len(SCV_4_CELLS) + 1] == pytest.approx(SCV_4_CELLS, abs=2e-4)
    assert covered.index(4.0) == len(SCV_4_CELLS) and not w.moving[i] and w.velocity[i] == 0


def test_an_scv_brakes_as_in_the_game_when_another_unit_cuts_the_batch():
    w = World(Bounds(0, 0, 64, 64))
    far, near = (w.slot(w.spawn(SCV, 1, 10, y)) for y in (10, 30))
    w.move_to(far, point=(14, 10))
    w.move_to(near, point=(13, 30))  # arrives first, so batches end before the far SCV has stopped
    covered = []
    while len(covered) < 40:
        w.prepare()
        k = w.free_loops(16)
        trajectory = w.trajectory(k)
        start = w.pos[far, 0] - 10
        column = trajectory.rows.tolist().index(far) if trajectory is not None and w.moving[far] else None
        covered += (
            [start + t for t in trajectory.travel[:k, column].tolist()] if column is not None else [start] * k
        )
        w.advance(trajectory, k)
    assert covered[1 : len(SCV_4_CELLS) + 1] == pytest.approx(SCV_4_CELLS, abs=2e-4)


def test_an_scv_keeps_up_with_a_moving_unit_it_follows():
    w = World(Bounds(0, 0, 64, 64))
    scv = w.spawn(SCV, 1, 10, 10)
    marine = w.spawn(MARINE, 1, 14, 10)
    w.move_to(w.slot(marine), point=(60, 10))  # walks away, slower than the SCV
    w.move_to(w.slot(scv), tag=marine, reach=0.5)
    for loops in range(4, 200, 4):  # noqa: B007 - read after the loop; until it catches up: no braking towards a goal that keeps moving
        if scv in run(w, 4):
            break
    assert loops < 150
    # Within reach of where the Marine stood when the batch began; it walked on for up to 4 loops since.
    gap = w.pos[w.slot(marine), 0] - w.pos[w.slot(scv), 0] - 2 * 0.375
    assert gap <= 0.5 + 4 * 2.25 / 16 + 0.01


def test_moves_are_clamped_to_the_pathable_area_and_units_do_not_overlap():
    w = World(Bounds(22, 20, 44, 36))
    a = w.spawn(MARINE, 1, 30, 30)
    w.spawn(MARINE, 1, 34, 30)
    w.move_to(0, point=(0, 30))
    assert tuple(w.goal[0]) == (22.375, 30)
    w.move_to(0, point=(34, 30))
    assert run(w, 64) == [a]
    d = np.hypot(*(w.pos[0] - w.pos[1]))
    assert d >= 0.75 - 1e-9 and not w.moving.any(), "pushed aside, then crowded arrival ends the leg"


def test_units_walk_round_a_structure_instead_of_through_it():
    w = World(Bounds(0, 0, 64, 64))
    w.spawn(CC, 1, 30.5, 27.5)
    tag = w.spawn(MARINE, 1, 36, 27.5)
    w.move_to(w.slot(tag), point=(24, 27.5))
    path = []
    for _ in range(200):
        run(w, 1)
        path.append(w.pos[w.slot(tag)].copy())
        if not w.moving.any():
            break
    path = np.array(path)
    assert w.pos[w.slot(tag)] == pytest.approx((24, 27.5))
    inside = (np.abs(path[:, 0] - 30.5) < 2.5 + 0.375 - 1e-6) & (
        np.abs(path[:, 1] - 27.5) < 2.5 + 0.375 - 1e-6
    )
    assert not inside.any(), "never inside the 5x5 footprint grown by its radius"


@pytest.mark.parametrize("rows", [[29, 29.8], [29, 29.8, 30.6, 31.4], [26.5 + k for k in range(9)]])
def test_units_rounding_one_corner_together_all_get_round(rows):
    # Units aiming at one corner push each other off its point: waiting to reach it exactly, none ever did.
    w = World(Bounds(0, 0, 64, 64))
    w.spawn(CC, 1, 30.5, 30.5)
    tags = [w.spawn(MARINE, 1, 22, y) for y in rows]
    for tag in tags:
        w.move_to(w.slot(tag), point=(39, float(w.pos[w.slot(tag), 1])))
    run(w, 800)
    assert all(w.pos[w.slot(tag), 0] > 37.5 for tag in tags), w.pos[[w.slot(t) for t in tags]]


def test_a_unit_walks_round_a_box_at_the_edge_of_the_map_by_its_open_side():
    # A box touching the edge leaves no ground past its corners there: aimed at one, a unit waited at the edge.
    w = World(Bounds(20, 19, 45, 37))
    w.spawn(CC, 1, 26.5, 21.5)  # its footprint reaches the bottom edge (y = 19)
    tag = w.spawn(MARINE, 1, 21.5, 22)
    w.move_to(w.slot(tag), point=(31.5, 20))
    run(w, 400)
    assert w.pos[w.slot(tag)] == pytest.approx((31.5, 20), abs=0.05)


def test_following_a_unit_ends_within_reach_of_its_edge():
    w = World(Bounds(0, 0, 64, 64))
    a = w.spawn(MARINE, 1, 10, 10)
    b = w.spawn(CC, 1, 30.5, 10.5)
    w.move_to(w.slot(a), tag=b, reach=0.1)
    assert run(w, 300) == [a]
    assert 30.5 - 2.5 - w.pos[w.slot(a), 0] - 0.375 == pytest.approx(0.1, abs=0.02)


def test_free_spot_places_coincident_units_apart():
    w = World(Bounds(0, 0, 64, 64))
    tags = []
    for _ in range(10):
        x, y = w.free_spot(30, 30, 0.375)
        tags.append(w.spawn(MARINE, 2, x, y))
    p = w.pos
    d = np.hypot(p[:, None, 0] - p[None, :, 0], p[:, None, 1] - p[None, :, 1]) + np.eye(10) * 9
    assert d.min() >= 0.75 - 1e-9 and np.hypot(*(p - (30, 30)).T).max() < 2.0


def test_removing_a_unit_keeps_the_other_rows_consistent():
    w = World(Bounds(0, 0, 64, 64))
    tags = [w.spawn(MARINE, 1, x, 5) for x in range(12)]  # grows past the initial capacity
    w.remove(tags[3])
    assert w.n == 11 and not w.exists(tags[3])
    assert all(w.tag[w.slot(t)] == t and w.pos[w.slot(t), 0] == x for x, t in enumerate(tags) if x != 3)
    rows, found = w.rows(np.array(tags))
    assert (
        found.tolist() == [x != 3 for x in range(12)] and (w.tag[rows[found]] == np.array(tags)[found]).all()
    )


def test_coincident_units_part_in_opposite_directions():
    w = World(Bounds(0, 0, 64, 64))
    for _ in range(3):
        w.spawn(MARINE, 1, 30, 30)
    w.settle()
    p = w.pos
    assert p.mean(axis=0) == pytest.approx((30, 30), abs=1e-9), "pushes are equal and opposite"
    d = np.hypot(p[:, None, 0] - p[None, :, 0], p[:, None, 1] - p[None, :, 1]) + np.eye(3) * 9
    assert d.min() > 0.1, "every pair parted"


def test_free_spot_never_answers_a_point_outside_the_pathable_area():
    w = World(Bounds(22, 20, 44, 36))
    x, y = w.free_spot(30, 18, 0.375)
    assert 22.375 <= x <= 43.625 and 20.375 <= y <= 35.625


def test_the_world_columns_are_the_declared_ones_through_growth_and_removal():
    declared = typing.get_type_hints(UnitColumns)
    assert [name for name, _ in COLUMNS] == list(declared)
    w = World(Bounds(0, 0, 64, 64))
    tags = [
        w.spawn(MARINE if n % 2 else CC, 1, 4.0 + 2 * n, 30.0) for n in range(20)
    ]  # the store grows twice
    w.remove(tags[3])
    for name, column in COLUMNS:
        values = getattr(w, name)
        assert isinstance(values, np.ndarray), name
        assert (values.dtype, values.shape) == (np.dtype(column.dtype), (19, *column.shape)), name
    assert w.tag.tolist() == tags[:3] + tags[4:]
    assert w.pos[w.slot(tags[4])].tolist() == [12.0, 30.0] and w.obstacle[w.slot(tags[4])]
    assert w.half[w.slot(tags[5])].tolist() == [MARINE.radius, MARINE.radius]


def test_a_column_must_be_declared_with_a_column_type():
    class Broken(UnitColumns):
        count: int

    with pytest.raises(TypeError, match=r"Broken\.count: declare it with a column type"):
        columns_of(Broken)


def reference_free_spot(w: World, x: float, y: float, radius: float) -> tuple[float, float]:
    """free_spot's definition tested against every unit and obstacle: the first free point of the spiral."""
    from sc2env.engine.paths import box_distance
    from sc2env.engine.spots import _spiral

    b = w.pathable
    x, y = b.clamp(x, y, radius)
    points = np.array([x, y]) + _spiral()
    inside = (points[:, 0] >= b.x0 + radius) & (points[:, 0] <= b.x1 - radius)
    inside &= (points[:, 1] >= b.y0 + radius) & (points[:, 1] <= b.y1 - radius)
    inside[0] = True  # (x, y) itself, even in an area narrower than the unit
    c = (w.collides & ~w.hidden).nonzero()[0]
    o = (w.obstacle & ~w.hidden).nonzero()[0]
    for p in points[inside]:
        d = np.hypot(*(p - w.pos[c]).T)
        if (d >= radius + w.radius[c] - 1e-9).all() and (
            box_distance(p, w.pos[o], w.half[o]) >= radius - 1e-9
        ).all():
            return float(p[0]), float(p[1])
    return x, y


def test_free_spots_are_those_of_testing_every_unit_while_units_come_go_and_move():
    # The placement grid and its kept cores must answer exactly as all-pairs tests: the same placements.
    rng = np.random.default_rng(5)
    kinds = [MARINE, SCV, unit_type_by_name("Roach"), unit_type_by_name("SupplyDepot"), CC]
    for area in ((20, 20, 30, 28), (20, 20, 20.6, 40)):  # crowded, and narrower than a unit
        w = World(Bounds(*area))
        for step in range(160):
            kind = kinds[0] if rng.random() < 0.7 else kinds[rng.integers(len(kinds))]
            x, y = rng.uniform(15, 35, 2)
            spot = w.free_spot(x, y, kind.radius)
            assert spot == reference_free_spot(w, x, y, kind.radius), (area, step)
            w.spawn(kind, 1, *spot)
            event = rng.random()
            if event < 0.05:
                w.hidden[rng.integers(w.n)] ^= True
            elif event < 0.1:
                w.pos[rng.integers(w.n)] += rng.normal(0, 0.5, 2)
            elif event < 0.13:
                w.remove(int(w.tag[rng.integers(w.n)]))


@pytest.mark.parametrize("n", range(2, 8))
def test_few_colliders_are_pushed_apart_bit_for_bit_as_the_arrays_push_them(n):
    """The Python-float path for a few colliders gives every position the same bits as the numpy path, crowds
    with many touching pairs and cliff walkers among ground units included."""
    from sc2env.engine.collision import FEW_COLLIDERS, _contact_limits, push_few, push_many

    assert n <= FEW_COLLIDERS
    rng = np.random.default_rng(n)
    touched = 0
    for _ in range(300):
        spread = rng.choice([0.5, 1.5, 4.0])
        pos = rng.uniform(10, 10 + spread, size=(n, 2))
        radii = rng.choice([0.375, 0.5, 0.625, 1.0], size=n)
        grounded = rng.random(n) < 0.8
        reach, limit = _contact_limits(radii, grounded)
        few, many = pos.copy(), pos.copy()
        pushed = push_few(few, reach.tolist(), limit.tolist())
        assert pushed == push_many(many, reach, limit)
        assert few.tobytes() == many.tobytes()
        touched += bool(pushed)
    assert touched > 100  # the crowds did touch


def test_few_colliders_on_one_point_are_left_to_the_arrays():
    from sc2env.engine.collision import _contact_limits, push_few, push_many

    pos = np.array([[5.0, 5.0], [5.0, 5.0], [6.0, 5.0]])
    reach, limit = _contact_limits(np.full(3, 0.75), np.ones(3, bool))
    few = pos.copy()
    assert push_few(few, reach.tolist(), limit.tolist()) is None
    assert few.tobytes() == pos.tobytes()  # untouched: push_many parts them
    assert push_many(few, reach, limit) and not np.array_equal(few[0], few[1])


def _battle_world(seed: int, units: int) -> World:
    """A few Marines (and a Stalker, faster and larger, and a Colossus, which other units walk under) moving to
    points, to one point together, or after each other."""
    rng = np.random.default_rng(seed)
    w = World(Bounds(0, 0, 32, 32))
    kinds = ([MARINE] * units + [unit_type_by_name("Stalker"), unit_type_by_name("Colossus")])[-units:]
    tags = [w.spawn(t, 1 + k % 2, *rng.uniform(12, 16, 2)) for k, t in enumerate(kinds)]
    for k, tag in enumerate(tags):
        if k % 3 == 0 and k:
            w.move_to(w.slot(tag), tag=tags[k - 1], reach=float(rng.choice([0.0, 1.0])))
        elif k % 2:
            w.move_to(w.slot(tag), point=tuple(rng.uniform(6, 24, 2)))
        else:  # these crowd at one point: some arrive pushed aside
            w.move_to(w.slot(tag), point=(20.0, 20.0))
    w.settle()
    return w


BATCHES = (3, 8, 1, 16, 5, 40, 64, 100, 7, 200)


@pytest.mark.parametrize("seed", range(6))
def test_a_few_units_in_straight_legs_move_bit_for_bit_as_the_arrays_move_them(seed, monkeypatch):
    """straight's prepare, trajectory and advance (Python floats, a few units) and Motion's array code give the
    same columns, bit for bit, through batches of several lengths with crowding, followers, arrivals and a
    followed unit that goes."""
    from sc2env.engine import straight

    units = 2 + seed  # 2..7
    fast, slow = _battle_world(seed, units), _battle_world(seed, units)
    assert straight.applies(fast, units)

    def play(w: World) -> list[int]:
        arrived = []
        for k, loops in enumerate(BATCHES):
            if k == 2 and w.n > 3:  # row 3 follows row 2: its goal unit goes
                w.remove(int(w.tag[2]))
            arrived += run(w, loops)
        return arrived

    arrived_fast = play(fast)
    with monkeypatch.context() as m:
        m.setattr(straight, "applies", lambda world, rows: False)
        arrived_slow = play(slow)
    assert arrived_fast == arrived_slow and arrived_fast  # some arrived
    for name, _ in COLUMNS:
        assert getattr(fast, name).tobytes() == getattr(slow, name).tobytes(), name


@pytest.mark.parametrize("seed", range(3))
def test_a_straight_trajectory_gives_the_positions_the_arrays_give(seed, monkeypatch):
    """What proximity triggers read: every row's position after each loop of the batch, bit for bit."""
    from sc2env.engine import straight

    w = _battle_world(seed, 6)
    w.prepare()
    fast = w.trajectory(12)
    assert isinstance(fast, straight.StraightTrajectory)
    monkeypatch.setattr(straight, "applies", lambda world, rows: False)
    slow = w.trajectory(12)
    assert slow is not None and not isinstance(slow, straight.StraightTrajectory)
    assert fast.positions().tobytes() == slow.positions().tobytes()
    assert fast.travel(12) == slow.travel[11].tolist()
