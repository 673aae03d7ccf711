"""Placement specs of map definitions: where scripted units appear (points, regions, anchors, formations)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from sc2env.engine.mapdef import ScriptError

if TYPE_CHECKING:
    from sc2env.engine.scenario import Scenario

_PLACEMENT_TRIES = 10_000


def column(count: int, spacing: float) -> np.ndarray:
    """The Defeat* maps' column: unit i (1-based) at y + (i odd ? -floor(i/2) : +floor(i/2)) * spacing."""
    i = np.arange(1, count + 1)
    y = np.where(i % 2 == 1, -(i // 2), i // 2) * spacing
    return np.stack([np.zeros(count), y], axis=1)


def points(scenario: Scenario, spec, count: int, group: str | None = None) -> np.ndarray:
    """Positions for `count` units from a placement spec (or the name of one in `placements`).

    `offsets` (a list of [dx, dy], used in turn) or `formation: "column"` (with `spacing`) lay units out
    around the base point. A region spec's `away_from` keeps each point at least `min_distance` from every
    unit of a group (a list of {group, min_distance} for several); when the units join that same group,
    each new point also keeps away from the points chosen before it.
    """
    definition = scenario.definition
    if isinstance(spec, str):
        spec = definition.placements[spec]
    if "region" in spec:
        base = _region_points(scenario, spec, count, group)
    elif "points" in spec:
        listed = np.asarray(spec["points"], float).reshape(-1, 2)
        base = listed[np.arange(count) % len(listed)]
    else:
        anchor = spec.get("anchor")
        point = np.asarray(spec["point"], float) if anchor is None else scenario.anchor(anchor)
        base = np.tile(point, (count, 1))
    if "offsets" in spec:
        offsets = np.asarray(spec["offsets"], float).reshape(-1, 2)
        base = base + offsets[np.arange(count) % len(offsets)]
    elif "formation" in spec:
        base = base + column(count, float(spec.get("spacing", 1.0)))
    return base


def _region_points(scenario: Scenario, spec: dict, count: int, group: str | None) -> np.ndarray:
    region = scenario.definition.regions[spec["region"]]
    rules = spec.get("away_from")
    if rules is None:
        return region.sample(scenario.rng, count)
    if isinstance(rules, str):
        rules = [{"group": rules, "min_distance": spec.get("min_distance", 0.0)}]
    chosen: list[np.ndarray] = []
    for _ in range(count):
        chosen.append(_point_away(scenario, region, rules, chosen, group))
    return np.array(chosen)


def _point_away(scenario: Scenario, region, rules: list, chosen: list, group: str | None) -> np.ndarray:
    """A region point far enough from each rule's group (SC2 scripts re-roll until it is)."""
    world = scenario.world
    others = []
    for rule in rules:
        tags = scenario.alive(rule["group"])
        near = world.pos[[world.slot(t) for t in tags]] if tags else np.empty((0, 2))
        if rule["group"] == group and chosen:
            near = np.concatenate([near, np.asarray(chosen)])
        others.append((near, float(rule["min_distance"])))
    for _ in range(_PLACEMENT_TRIES):
        p = region.sample(scenario.rng, 1)[0]
        if all(not len(near) or np.hypot(*(near - p).T).min() >= d for near, d in others):
            return p
    away = ", ".join(f"{d:g} from group {r['group']!r}" for r, (_, d) in zip(rules, others))
    raise ScriptError(f"no point of the region found in {_PLACEMENT_TRIES} tries keeps {away}")
