"""SMAC's reward: damage dealt and units killed each step, a win bonus, sparse and scaled variants."""

from __future__ import annotations

import dataclasses
import math
import numbers

import numpy as np


@dataclasses.dataclass(frozen=True)
class RewardConfig:
    """SMAC's reward arguments (its constructor's names without `reward_`)."""

    sparse: bool = False
    only_positive: bool = True
    death_value: float = 10.0
    win: float = 200.0
    defeat: float = 0.0
    negative_scale: float = 0.5
    scale: bool = True
    scale_rate: float = 20.0
    clip_at_zero: bool = False
    """SMACv2: reward_only_positive drops a negative step's reward to 0 (SMAC takes its absolute value)."""

    def __post_init__(self) -> None:
        for name in ("sparse", "only_positive", "scale", "clip_at_zero"):
            if not isinstance(getattr(self, name), bool):
                raise TypeError(f"reward_{name} must be True or False, not {getattr(self, name)!r}")
        for name in ("death_value", "win", "defeat", "negative_scale", "scale_rate"):
            value = getattr(self, name)
            if (
                isinstance(value, bool)
                or not isinstance(value, numbers.Real)
                or not math.isfinite(float(value))
            ):
                raise TypeError(f"reward_{name} must be a finite number, not {value!r}")
        if self.scale and self.scale_rate <= 0:
            raise ValueError(f"reward_scale_rate must be above 0 to scale rewards, not {self.scale_rate!r}")


class DamageTracker:
    """The dense reward of each step from both sides' health plus shield before and after it.

    An enemy's damage counts once per step as its lost health and shield (a shield that regenerates counts
    against it), and its death adds `death_value` once; the agents' losses count, scaled by
    `negative_scale`, unless `only_positive`, which instead returns the absolute value (as SMAC does: a
    step where shields regenerate more than they are hit gives a positive reward).
    """

    def __init__(self, config: RewardConfig, n_agents: int, n_enemies: int) -> None:
        self.config = config
        self.agent_dead = np.zeros(n_agents, bool)
        self.enemy_dead = np.zeros(n_enemies, bool)

    def step(
        self,
        agent_before: np.ndarray,
        agent_after: np.ndarray,
        agent_health: np.ndarray,
        enemy_before: np.ndarray,
        enemy_after: np.ndarray,
        enemy_health: np.ndarray,
    ) -> float:
        """The step's reward before the win bonus and scaling. *_before/after: health + shield of each unit
        before and after the step; *_health: health after (0 = dead)."""
        cfg = self.config
        delta_enemy, deaths = self._losses(self.enemy_dead, enemy_before, enemy_after, enemy_health)
        delta_deaths = cfg.death_value * deaths
        delta_ally, ally_deaths = self._losses(self.agent_dead, agent_before, agent_after, agent_health)
        if cfg.only_positive:
            gain = delta_enemy + delta_deaths
            return max(gain, 0.0) if cfg.clip_at_zero else abs(gain)
        delta_deaths -= cfg.death_value * cfg.negative_scale * ally_deaths
        return delta_enemy + delta_deaths - cfg.negative_scale * delta_ally

    @staticmethod
    def _losses(
        dead: np.ndarray, before: np.ndarray, after: np.ndarray, health: np.ndarray
    ) -> tuple[float, int]:
        """(health and shield lost by the units not dead before, how many died now); marks the new dead."""
        counted = ~dead
        died = counted & (health == 0)
        deaths = int(np.count_nonzero(died))
        killed = 0.0
        hurt = counted
        if deaths:
            killed = np.add.reduce(before[died])
            hurt = counted & ~died
            dead |= died
        # np.add.reduce is what .sum() runs (the same pairwise sums), without its Python wrapper; most steps
        # nobody is dead yet and the whole side counts, so no unit needs picking out.
        everyone = np.count_nonzero(hurt) == len(hurt)  # hurt.all(): a count costs a fraction of a reduction
        lost = np.add.reduce(before - after if everyone else before[hurt] - after[hurt])
        return float(killed + lost), deaths
