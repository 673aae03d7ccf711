"""SMAC's scripted focus-fire policy (heuristic_ai): each agent keeps one target until it dies."""

from __future__ import annotations

import dataclasses

import numpy as np

from sc2env.smac.features import EAST, NO_OP, NORTH, SOUTH, WEST, Frame, Plan
from sc2env.smac.layout import N_NO_ATTACK_ACTIONS


@dataclasses.dataclass
class HeuristicPolicy:
    """Per agent a persistent target. A fighter attacks the enemy closest to it when it has none or its
    target died; a Medivac heals the closest damaged living non-Medivac ally until that one is healed or
    dead. Only targets nearer than the playable area's diagonal count. With `rest` (SMAC's heuristic_rest),
    an agent whose target action is unavailable moves the move amount along the axis it is furthest off
    its target instead. Dead agents do nothing (action 0; SMAC names a target for them all the same)."""

    n_agents: int
    rest: bool = False
    targets: list[int | None] = dataclasses.field(init=False)

    def __post_init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.targets = [None] * self.n_agents

    def actions(
        self, plan: Plan, frame: Frame, avail: np.ndarray, a_full_health: np.ndarray, diagonal: float
    ) -> list[int]:
        """Each agent's action number (SMAC's ids; the env sends the command it stands for). a_full_health:
        the agents at full health (not worth healing)."""
        return [self._act(i, plan, frame, avail, a_full_health, diagonal) for i in range(self.n_agents)]

    def _act(
        self, i: int, plan: Plan, frame: Frame, avail: np.ndarray, full: np.ndarray, diagonal: float
    ) -> int:
        if not frame.a_alive[i]:
            return NO_OP
        heals = bool(plan.heals[i])
        if heals:
            tx, ty = frame.ax, frame.ay
            keep = (
                self.targets[i] is not None and frame.a_alive[self.targets[i]] and not full[self.targets[i]]
            )
            candidates = frame.a_alive & plan.heal_target & ~full
        else:
            tx, ty = frame.ex, frame.ey
            keep = self.targets[i] is not None and frame.e_alive[self.targets[i]]
            candidates = frame.e_alive
        if not keep:
            distance = np.hypot(tx - frame.ax[i], ty - frame.ay[i])
            distance[~candidates] = np.inf
            best = int(np.argmin(distance)) if len(distance) else -1
            self.targets[i] = best if best >= 0 and distance[best] < diagonal else None
        target = self.targets[i]
        if target is None:
            return NO_OP
        action = N_NO_ATTACK_ACTIONS + target
        if self.rest and not avail[i, action]:
            dx, dy = tx[target] - frame.ax[i], ty[target] - frame.ay[i]
            if abs(dx) > abs(dy):
                return EAST if dx > 0 else WEST
            return NORTH if dy > 0 else SOUTH
        return action
