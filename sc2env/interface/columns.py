"""Column layouts of the non-spatial observation arrays (PySC2's, so indices carry over)."""

from __future__ import annotations

import enum

CONTROL_GROUPS = 10
"""The game's control groups, 0-9: rows of `control_groups`, values of the control_group_id argument."""
QUEUE_ROWS = 10
"""Rows of the padded build_queue and production_queue arrays, values of the build_queue_id argument (PySC2's)."""


class Player(enum.IntEnum):
    """`player` entries."""

    player_id = 0
    minerals = 1
    vespene = 2
    food_used = 3
    food_cap = 4
    food_army = 5
    food_workers = 6
    idle_worker_count = 7
    army_count = 8
    warp_gate_count = 9
    larva_count = 10


class ControlGroup(enum.IntEnum):
    """Columns of control_groups."""

    leader_unit_type = 0
    count = 1


class UnitLayer(enum.IntEnum):
    """Columns of single_select, multi_select, build_queue and cargo."""

    unit_type = 0
    player_relative = 1
    health = 2
    shields = 3
    energy = 4
    transport_slots_taken = 5
    build_progress = 6
    """Percent, 0-100."""


class ProductionQueue(enum.IntEnum):
    """Columns of production_queue."""

    ability_id = 0
    build_progress = 1


class UnitCount(enum.IntEnum):
    """Columns of unit_type_counts (PySC2's unit_counts): a unit type and how many of the player's units have it."""

    unit_type = 0
    count = 1


class ScoreCumulative(enum.IntEnum):
    """`score_cumulative` entries."""

    score = 0
    idle_production_time = 1
    idle_worker_time = 2
    total_value_units = 3
    total_value_structures = 4
    killed_value_units = 5
    killed_value_structures = 6
    collected_minerals = 7
    collected_vespene = 8
    collection_rate_minerals = 9
    collection_rate_vespene = 10
    spent_minerals = 11
    spent_vespene = 12


class ScoreByCategory(enum.IntEnum):
    """Rows of score_by_category."""

    food_used = 0
    killed_minerals = 1
    killed_vespene = 2
    lost_minerals = 3
    lost_vespene = 4
    friendly_fire_minerals = 5
    friendly_fire_vespene = 6
    used_minerals = 7
    used_vespene = 8
    total_used_minerals = 9
    total_used_vespene = 10


class ScoreCategories(enum.IntEnum):
    """Columns of score_by_category."""

    none = 0
    army = 1
    economy = 2
    technology = 3
    upgrade = 4


class ScoreByVital(enum.IntEnum):
    """Rows of score_by_vital."""

    total_damage_dealt = 0
    total_damage_taken = 1
    total_healed = 2


class ScoreVitals(enum.IntEnum):
    """Columns of score_by_vital."""

    life = 0
    shields = 1
    energy = 2


class FeatureUnit(enum.IntEnum):
    """Columns of feature_units (x, y: screen pixels) and raw_units (x, y: PySC2's raw coordinates)."""

    unit_type = 0
    alliance = 1
    health = 2
    shield = 3
    energy = 4
    cargo_space_taken = 5
    build_progress = 6
    health_ratio = 7
    shield_ratio = 8
    energy_ratio = 9
    display_type = 10
    owner = 11
    x = 12
    y = 13
    facing = 14
    radius = 15
    cloak = 16
    is_selected = 17
    is_blip = 18
    is_powered = 19
    mineral_contents = 20
    vespene_contents = 21
    cargo_space_max = 22
    assigned_harvesters = 23
    ideal_harvesters = 24
    weapon_cooldown = 25
    order_length = 26
    order_id_0 = 27
    """The ability id of the unit's first order (PySC2 gives a raw function id here)."""
    order_id_1 = 28
    tag = 29
    hallucination = 30
    buff_id_0 = 31
    buff_id_1 = 32
    addon_unit_type = 33
    active = 34
    is_on_screen = 35
    order_progress_0 = 36
    order_progress_1 = 37
    order_id_2 = 38
    order_id_3 = 39
    is_in_cargo = 40
    buff_duration_remain = 41
    buff_duration_max = 42
    attack_upgrade_level = 43
    armor_upgrade_level = 44
    shield_upgrade_level = 45
