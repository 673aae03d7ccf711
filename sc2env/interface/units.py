"""Raw `Unit` messages as rows of the 46 `FeatureUnit` columns (feature_units and raw_units)."""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

from sc2env.interface.columns import FeatureUnit
from sc2env.interface.transforms import PIXEL_TOLERANCE, Linear2D


def _ratio(value: float, maximum: float) -> int:
    return int(value / maximum * 255) if maximum > 0 else 0


def unit_rows(
    units: Iterable, to_pixels: Linear2D, *, with_tags: bool, type_of_tag: dict[int, int]
) -> np.ndarray:
    """(n, 46) int64 rows. `to_pixels` places units (x, y columns) and scales their radius;
    `type_of_tag` resolves add-on tags to unit types. Tags are filled only `with_tags` (raw units)."""
    (sx, sy), (ox, oy) = to_pixels.scale, to_pixels.offset
    scale = abs(sx)
    rows = []
    for u in units:
        orders = u.orders
        n_orders = len(orders)
        buffs = u.buff_ids
        pos = u.pos
        rows.append(
            (
                u.unit_type,
                u.alliance,
                u.health,
                u.shield,
                u.energy,
                u.cargo_space_taken,
                int(u.build_progress * 100),
                _ratio(u.health, u.health_max),
                _ratio(u.shield, u.shield_max),
                _ratio(u.energy, u.energy_max),
                u.display_type,
                u.owner,
                math.floor(pos.x * sx + ox + PIXEL_TOLERANCE),
                math.floor(pos.y * sy + oy + PIXEL_TOLERANCE),
                int(u.facing),
                int(u.radius * scale),
                u.cloak,
                u.is_selected,
                u.is_blip,
                u.is_powered,
                u.mineral_contents,
                u.vespene_contents,
                u.cargo_space_max,
                u.assigned_harvesters,
                u.ideal_harvesters,
                int(u.weapon_cooldown),
                n_orders,
                orders[0].ability_id if n_orders > 0 else 0,
                orders[1].ability_id if n_orders > 1 else 0,
                u.tag if with_tags else 0,
                u.is_hallucination,
                buffs[0] if len(buffs) > 0 else 0,
                buffs[1] if len(buffs) > 1 else 0,
                type_of_tag.get(u.add_on_tag, 0) if u.add_on_tag else 0,
                u.is_active,
                u.is_on_screen,
                int(orders[0].progress * 100) if n_orders > 0 else 0,
                int(orders[1].progress * 100) if n_orders > 1 else 0,
                orders[2].ability_id if n_orders > 2 else 0,
                orders[3].ability_id if n_orders > 3 else 0,
                0,
                u.buff_duration_remain,
                u.buff_duration_max,
                u.attack_upgrade_level,
                u.armor_upgrade_level,
                u.shield_upgrade_level,
            )
        )
    return np.array(rows, np.int64).reshape(-1, len(FeatureUnit))
