"""SMACv2's episode generators: random teams of unit kinds and random start positions, seeded.

Each `capability_config` entry of SMACv2 (`team_gen`, `start_positions`) names a distribution by its
`dist_type`; `episode_generator` builds them all, and each `generate(rng)` returns the part of the episode
config StarCraft2Env.reset(episode_config=...) takes, in SMACv2's keys and shapes.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from sc2env.errors import SC2EnvError

EpisodeConfig = dict[str, dict[str, Any]]
Generator = Callable[[np.random.Generator], EpisodeConfig]


class CapabilityConfigError(SC2EnvError, ValueError):
    """A capability_config that SMACv2 would not accept, or that sc2env does not play."""


NOT_PLAYED = {
    "attack": "stochastic attacks (capability 'attack')",
    "health": "stochastic health levels (capability 'health')",
    "enemy_mask": "enemy masks (capability 'enemy_mask')",
}
"""SMACv2's capabilities sc2env.smac does not play yet, refused by name."""


def _need(config: Mapping[str, Any], key: str, where: str) -> Any:
    if key not in config:
        raise CapabilityConfigError(
            f"capability_config[{where!r}] needs {key!r} (SMACv2's key), got {dict(config)}"
        )
    return config[key]


@dataclasses.dataclass(frozen=True)
class WeightedTeams:
    """`weighted_teams`: each agent's kind drawn by `weights`, redrawn while the whole team is of
    `exception_unit_types`; the enemy is the same team, extended by more draws or cut to n_enemies."""

    kinds: tuple[str, ...]
    weights: np.ndarray
    exceptions: frozenset[str]
    n_units: int
    n_enemies: int

    def _team(self, rng: np.random.Generator, size: int) -> list[str]:
        while True:
            team = [self.kinds[i] for i in rng.choice(len(self.kinds), size=size, p=self.weights)]
            rng.shuffle(team)
            if not all(kind in self.exceptions for kind in team):
                return team

    def __call__(self, rng: np.random.Generator) -> EpisodeConfig:
        team = self._team(rng, self.n_units)
        enemy = list(team)
        if self.n_enemies > self.n_units:
            enemy += self._team(rng, self.n_enemies - self.n_units)
        return {"team_gen": {"ally_team": team, "enemy_team": enemy[: self.n_enemies], "id": 0}}


@dataclasses.dataclass(frozen=True)
class AllTeams:
    """`all_teams`: a team drawn uniformly from every multiset of n_units kinds (none all exceptions), shuffled;
    the enemy is the same team."""

    teams: tuple[tuple[str, ...], ...]

    def __call__(self, rng: np.random.Generator) -> EpisodeConfig:
        index = int(rng.integers(len(self.teams)))
        team = list(self.teams[index])
        rng.shuffle(team)
        return {"team_gen": {"ally_team": team, "enemy_team": list(team), "id": index}}


@dataclasses.dataclass(frozen=True)
class Reflect:
    """`reflect_position`: agents uniform in the left half (less a 1-cell buffer), enemies mirrored across the
    middle; enemies beyond the agents' number uniform in the right half."""

    n_units: int
    n_enemies: int
    map_x: float
    map_y: float

    def __call__(self, rng: np.random.Generator) -> EpisodeConfig:
        allies = rng.uniform((0, 0), (self.map_x / 2 - 1, self.map_y), size=(self.n_units, 2))
        mirrored = min(self.n_units, self.n_enemies)
        enemies = np.zeros((self.n_enemies, 2))
        enemies[:mirrored, 0] = self.map_x - allies[:mirrored, 0]
        enemies[:mirrored, 1] = allies[:mirrored, 1]
        extra = self.n_enemies - mirrored
        if extra > 0:
            enemies[mirrored:] = rng.uniform((self.map_x / 2, 0), (self.map_x, self.map_y), size=(extra, 2))
        return _positions(allies, enemies)


@dataclasses.dataclass(frozen=True)
class Surrounded:
    """`surrounded`: agents at the centre; 1-4 enemy groups (sizes multinomial) on distinct diagonals, each
    somewhere between 2 cells off the centre and the map's corner."""

    n_units: int
    n_enemies: int
    map_x: float
    map_y: float

    def __call__(self, rng: np.random.Generator) -> EpisodeConfig:
        cx, cy = self.map_x / 2, self.map_y / 2
        near = np.array([(cx - 2, cy - 2), (cx - 2, cy + 2), (cx + 2, cy + 2), (cx + 2, cy - 2)])
        corner = np.array([(0, 0), (0, self.map_y), (self.map_x, self.map_y), (self.map_x, 0)])
        n_groups = int(rng.integers(1, 5))
        sizes = rng.multinomial(self.n_enemies, np.full(n_groups, 1 / n_groups))
        where = rng.uniform(size=n_groups)
        diagonals = rng.choice(4, size=n_groups, replace=False)
        group = np.repeat(np.arange(n_groups), sizes)
        t = where[group][:, None]
        enemies = near[diagonals[group]] * t + corner[diagonals[group]] * (1 - t)
        return _positions(np.tile((cx, cy), (self.n_units, 1)).astype(np.float64), enemies)


@dataclasses.dataclass(frozen=True)
class SurroundedAndReflect:
    """`surrounded_and_reflect`: `surrounded` when a uniform draw exceeds `p`, else `reflect_position`."""

    p: float
    surrounded: Surrounded
    reflect: Reflect

    def __call__(self, rng: np.random.Generator) -> EpisodeConfig:
        return self.surrounded(rng) if rng.random() > self.p else self.reflect(rng)


def _positions(allies: np.ndarray, enemies: np.ndarray) -> EpisodeConfig:
    return {
        "ally_start_positions": {"item": allies, "id": 0},
        "enemy_start_positions": {"item": enemies, "id": 0},
    }


def _teams(config: Mapping[str, Any], kinds: Sequence[str], n_units: int, n_enemies: int) -> Generator:
    where = "team_gen"
    dist_type = _need(config, "dist_type", where)
    names = tuple(_need(config, "unit_types", where))
    unknown = sorted(set(names) - set(kinds))
    if unknown or not names:
        raise CapabilityConfigError(
            f"capability_config['team_gen']['unit_types'] {list(names)}: this scenario's kinds are "
            f"{', '.join(kinds)}" + (f" ({', '.join(unknown)} is none)" if unknown else "")
        )
    exceptions = frozenset(config.get("exception_unit_types", ()))
    if exceptions >= set(names):
        raise CapabilityConfigError(
            f"capability_config['team_gen']: every unit type is an exception_unit_types member, so no team "
            f"can be drawn ({sorted(exceptions)})"
        )
    if dist_type == "weighted_teams":
        weights = np.asarray(_need(config, "weights", where), np.float64)
        if weights.shape != (len(names),) or (weights < 0).any() or not np.isclose(weights.sum(), 1):
            raise CapabilityConfigError(
                f"capability_config['team_gen']['weights'] {weights.tolist()}: one probability per unit type "
                f"({len(names)}), summing to 1"
            )
        return WeightedTeams(names, weights, exceptions, n_units, n_enemies)
    if dist_type == "all_teams":
        teams = tuple(
            team
            for team in itertools.combinations_with_replacement(names, n_units)
            if not all(kind in exceptions for kind in team)
        )
        if n_enemies != n_units:
            raise CapabilityConfigError(
                f"capability_config['team_gen']: all_teams gives the enemy the agents' team; n_enemies "
                f"{n_enemies} must equal n_units {n_units}"
            )
        return AllTeams(teams)
    raise CapabilityConfigError(
        f"capability_config['team_gen']['dist_type'] {dist_type!r}: sc2env plays weighted_teams and all_teams"
    )


def _start_positions(config: Mapping[str, Any], n_units: int, n_enemies: int) -> Generator:
    where = "start_positions"
    dist_type = _need(config, "dist_type", where)
    map_x, map_y = float(_need(config, "map_x", where)), float(_need(config, "map_y", where))
    reflect = Reflect(n_units, n_enemies, map_x, map_y)
    surrounded = Surrounded(n_units, n_enemies, map_x, map_y)
    if dist_type == "reflect_position":
        return reflect
    if dist_type == "surrounded":
        return surrounded
    if dist_type == "surrounded_and_reflect":
        return SurroundedAndReflect(float(_need(config, "p", where)), surrounded, reflect)
    raise CapabilityConfigError(
        f"capability_config['start_positions']['dist_type'] {dist_type!r}: sc2env plays reflect_position, "
        "surrounded and surrounded_and_reflect"
    )


def team_size(
    capability_config: Mapping[str, Any], default_units: int, default_enemies: int
) -> tuple[int, int]:
    """(n_units, n_enemies) of a capability_config, the scenario's where it gives none."""
    n_units = capability_config.get("n_units", default_units)
    n_enemies = capability_config.get("n_enemies", default_enemies)
    for name, value in (("n_units", n_units), ("n_enemies", n_enemies)):
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 200:
            raise CapabilityConfigError(
                f"capability_config[{name!r}] must be a whole number 1 to 200, not {value!r}"
            )
    return n_units, n_enemies


def episode_generator(
    capability_config: Mapping[str, Any], kinds: Sequence[str], n_units: int, n_enemies: int
) -> Callable[[np.random.Generator], EpisodeConfig]:
    """A function of a random generator giving one episode's config (team, start positions) from SMACv2's
    capability_config; CapabilityConfigError names what is wrong or not played."""
    parts: list[Generator] = []
    for key, config in capability_config.items():
        if key in ("n_units", "n_enemies"):
            continue
        if key in NOT_PLAYED:
            raise CapabilityConfigError(f"sc2env.smac does not play SMACv2's {NOT_PLAYED[key]} yet")
        if not isinstance(config, Mapping):
            raise CapabilityConfigError(f"capability_config[{key!r}] must be a dict, not {config!r}")
        if key == "team_gen":
            parts.append(_teams(config, kinds, n_units, n_enemies))
        elif key == "start_positions":
            parts.append(_start_positions(config, n_units, n_enemies))
        else:
            raise CapabilityConfigError(
                f"capability_config key {key!r} is none of SMACv2's (n_units, n_enemies, team_gen, "
                "start_positions, attack, health, enemy_mask)"
            )

    def generate(rng: np.random.Generator) -> EpisodeConfig:
        episode: EpisodeConfig = {}
        for part in parts:
            episode.update(part(rng))
        return episode

    return generate
