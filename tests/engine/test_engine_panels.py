"""Observation panels: the hand-encoded score matches protobuf's own encoding of the same fields."""

from __future__ import annotations

import numpy as np
import pytest
from s2clientprotocol import score_pb2

from sc2env.engine.panels import encode_score
from sc2env.engine.players import CATEGORIES, Stats

_CATEGORY_STATS = (
    "killed_minerals",
    "killed_vespene",
    "lost_minerals",
    "lost_vespene",
    "total_used_minerals",
    "total_used_vespene",
)


def reference(points, stats, rates, used, values) -> bytes:
    """The Score as the engine built it field by field before it was encoded by hand."""
    score = score_pb2.Score(score_type=score_pb2.Score.Curriculum, score=points)
    d = score.score_details
    d.SetInParent()
    d.idle_production_time = stats.idle_production_loops / 16
    d.idle_worker_time = stats.idle_worker_loops / 16
    d.killed_value_units, d.killed_value_structures = stats.killed_value_units, stats.killed_value_structures
    d.collected_minerals, d.collected_vespene = stats.collected_minerals, stats.collected_vespene
    if rates is not None:
        d.collection_rate_minerals, d.collection_rate_vespene = rates
    d.spent_minerals, d.spent_vespene = stats.spent_minerals, stats.spent_vespene
    sums = {name: getattr(stats, name) for name in _CATEGORY_STATS}
    sums.update(
        {
            name: dict(zip(CATEGORIES, s))
            for name, s in zip(("used_minerals", "used_vespene", "food_used"), used)
        }
    )
    for name, values_by_category in sums.items():
        for category in CATEGORIES:
            if values_by_category.get(category):
                setattr(getattr(d, name), category, values_by_category[category])
    d.total_damage_dealt.life, d.total_damage_taken.life = stats.damage_dealt, stats.damage_taken
    d.total_value_structures, d.total_value_units = values
    return score.SerializeToString()


@pytest.mark.parametrize("seed", range(40))
def test_encoded_score_matches_protobuf(seed):
    rng = np.random.default_rng(seed)

    def value():  # zeros often (unset categories), whole numbers, fractions, big values
        kind = rng.integers(4)
        return (
            0.0
            if kind == 0
            else float(rng.integers(0, 5000))
            if kind == 1
            else float(rng.uniform(0, 3))
            if kind == 2
            else float(rng.uniform(0, 1e7))
        )

    stats = Stats(
        idle_production_loops=value(),
        idle_worker_loops=value(),
        killed_value_units=value(),
        killed_value_structures=value(),
        collected_minerals=value(),
        collected_vespene=value(),
        spent_minerals=value(),
        spent_vespene=value(),
        damage_dealt=value(),
        damage_taken=value(),
    )
    for name in _CATEGORY_STATS:
        getattr(stats, name).update({c: value() for c in CATEGORIES})
    rates = None if seed % 3 == 0 else (value(), value())
    used = tuple(tuple(value() for _ in CATEGORIES) for _ in range(3))
    values = (value(), value())
    points = int(rng.integers(-100, 10**6)) if seed % 5 else -(2**31)
    assert encode_score(points, stats, rates, used, values) == reference(points, stats, rates, used, values)
