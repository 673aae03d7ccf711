"""SMACv2's StarCraftCapabilityEnvWrapper: each episode's teams and start positions drawn from capability_config."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from sc2env.smac.env import StarCraft2Env
from sc2env.smac.multiagent import MultiAgentEnv


class StarCraftCapabilityEnvWrapper(MultiAgentEnv):
    """SMACv2's wrapper: `StarCraftCapabilityEnvWrapper(capability_config=..., map_name="10gen_zerg", ...)`
    takes StarCraft2Env's arguments; each reset() draws a new episode (unit kinds by the team distribution,
    start positions by the position distribution; `episode_config` shows the last) and starts it. Anything
    else is the env's (`env`).

    `seed` seeds the game and the draws: the same seed gives the same episodes (SMACv2 draws from unseeded
    generators). The env does the drawing itself (StarCraft2Env.reset() without an episode_config), so
    sc2env.smac.parallel_env plays the generated scenarios too.
    """

    def __init__(self, capability_config: Mapping[str, Any], **kwargs: Any) -> None:
        self.env = StarCraft2Env(capability_config=capability_config, **kwargs)

    def reset(self, *, seed: int | None = None) -> tuple[list[np.ndarray], np.ndarray]:
        """Draw the next episode and start it; `seed` (ours) reseeds the draws and starts a new game."""
        return self.env.reset(seed=seed)

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

    def get_obs_feature_names(self) -> list[str]:
        return self.env.get_obs_feature_names()

    def get_state_feature_names(self) -> list[str]:
        return self.env.get_state_feature_names()

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
