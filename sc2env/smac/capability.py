"""SMACv2's StarCraftCapabilityEnvWrapper: each episode's teams and start positions drawn from capability_config."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

import numpy as np

from sc2env.game.match_config import require_seed
from sc2env.smac.distributions import EpisodeConfig, episode_generator
from sc2env.smac.env import SmacResetError, StarCraft2Env
from sc2env.smac.multiagent import MultiAgentEnv
from sc2env.smac.unit_kinds import MAP_FAMILIES

log = logging.getLogger(__name__)

MAX_RESET_ATTEMPTS = 10
"""Episodes drawn in a row before a reset gives up (SMACv2 retries without end)."""


class StarCraftCapabilityEnvWrapper(MultiAgentEnv):
    """SMACv2's wrapper: `StarCraftCapabilityEnvWrapper(capability_config=..., map_name="10gen_zerg", ...)`
    takes StarCraft2Env's arguments; each reset() draws a new episode (unit kinds by the team distribution,
    start positions by the position distribution) and starts it. Anything else is the env's.

    `seed` seeds both the game and the draws: the same seed gives the same episodes (SMACv2 draws from
    unseeded generators).
    """

    def __init__(self, capability_config: Mapping[str, Any], seed: int | None = None, **kwargs: Any) -> None:
        require_seed("seed", seed)
        self.env = StarCraft2Env(capability_config=capability_config, seed=seed, **kwargs)
        family = MAP_FAMILIES[self.env.scenario.map_type]
        self._generate = episode_generator(
            capability_config, family.allies, self.env.n_agents, self.env.n_enemies
        )
        self._rng = np.random.default_rng(seed)
        self.episode_config: EpisodeConfig = {}

    def reset(self, *, seed: int | None = None) -> tuple[list[np.ndarray], np.ndarray]:
        """Draw the next episode and start it; `seed` (ours) reseeds the draws and starts a new game."""
        require_seed("seed", seed)
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        for attempt in range(MAX_RESET_ATTEMPTS):
            self.episode_config = self._generate(self._rng)
            try:
                return self.env.reset(self.episode_config, seed=seed if attempt == 0 else None)
            except SmacResetError as error:  # units lost while they appeared: SMACv2 draws again
                log.warning("episode %s could not start (%s); drawing another", self.episode_config, error)
        raise SmacResetError(f"{MAX_RESET_ATTEMPTS} drawn episodes in a row could not start")

    def step(self, actions: Any) -> tuple[float, bool, dict[str, Any]]:
        return self.env.step(actions)

    def get_obs(self) -> list[np.ndarray]:
        return self.env.get_obs()

    def get_obs_agent(self, agent_id: int) -> np.ndarray:
        return self.env.get_obs_agent(agent_id)

    def get_obs_size(self) -> int:
        return self.env.get_obs_size()

    def get_state(self) -> np.ndarray:
        return self.env.get_state()

    def get_state_size(self) -> int:
        return self.env.get_state_size()

    def get_avail_actions(self) -> list[list[int]]:
        return self.env.get_avail_actions()

    def get_avail_agent_actions(self, agent_id: int) -> list[int]:
        return self.env.get_avail_agent_actions(agent_id)

    def get_total_actions(self) -> int:
        return self.env.get_total_actions()

    def get_capabilities(self) -> np.ndarray:
        return self.env.get_capabilities()

    def get_env_info(self) -> dict[str, Any]:
        return self.env.get_env_info()

    def get_stats(self) -> dict[str, float]:
        return self.env.get_stats()

    def render(self, mode: str = "human") -> np.ndarray | None:
        return self.env.render(mode)

    def save_replay(self) -> Any:
        return self.env.save_replay()

    def full_restart(self) -> None:
        self.env.full_restart()

    def close(self) -> None:
        self.env.close()

    def seed(self) -> int | None:
        return self.env.seed()

    def __getattr__(self, name: str) -> Any:
        if name == "env":  # not set yet: the constructor failed
            raise AttributeError(name)
        return getattr(self.env, name)

    def __enter__(self) -> StarCraftCapabilityEnvWrapper:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
