"""A SMACv2 episode config's teams and start positions, checked, as the units to create."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from sc2env.smac.distributions import CapabilityConfigError

DEFAULT_STARTS = {1: (8.0, 16.0), 2: (24.0, 16.0)}
"""Where SMACv2 creates each side's units when the episode config gives no start positions."""


def generated_team(
    episode_config: Mapping[str, Any], kinds: Sequence[str], n_agents: int, n_enemies: int, map_name: str
) -> list[tuple[str, int, float, float]]:
    """(kind, owner, x, y) of every unit an episode of a generated scenario starts with: the agents (owner 1),
    then the enemies (owner 2). CapabilityConfigError names what the config lacks or gets wrong."""
    team_gen = episode_config.get("team_gen")
    if not isinstance(team_gen, Mapping) or "ally_team" not in team_gen or "enemy_team" not in team_gen:
        raise CapabilityConfigError(
            f"{map_name} creates each episode's units from episode_config['team_gen'] ('ally_team' and "
            "'enemy_team', lists of unit kinds): use sc2env.smac.StarCraftCapabilityEnvWrapper, which draws "
            "them from a capability_config, or pass reset(episode_config=...)"
        )
    units = []
    for owner, key, count, starts in (
        (1, "ally_team", n_agents, "ally_start_positions"),
        (2, "enemy_team", n_enemies, "enemy_start_positions"),
    ):
        team = list(team_gen[key])
        unknown = sorted({str(k) for k in team} - set(kinds))
        if len(team) != count or unknown:
            raise CapabilityConfigError(
                f"episode_config['team_gen'][{key!r}] must list {count} of {', '.join(kinds)}, got {team!r}"
            )
        positions = _positions(
            episode_config.get(starts), count, f"episode_config[{starts!r}]['item']", owner
        )
        units += [(kind, owner, float(x), float(y)) for kind, (x, y) in zip(team, positions)]
    return units


def _positions(spec: Any, count: int, where: str, owner: int) -> np.ndarray:
    if spec is None:
        return np.tile(DEFAULT_STARTS[owner], (count, 1))
    item = spec.get("item") if isinstance(spec, Mapping) else None
    try:
        positions = np.asarray(item, np.float64)
    except (TypeError, ValueError):
        positions = np.zeros(0)
    if positions.shape != (count, 2) or not np.isfinite(positions).all():
        raise CapabilityConfigError(f"{where} must be {count} finite (x, y) points, got {item!r}")
    return positions
