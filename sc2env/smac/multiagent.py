"""MultiAgentEnv: the interface SMAC's training scripts (PyMARL, EPyMARL) program against."""

from __future__ import annotations

from typing import Any


class MultiAgentEnv:
    """SMAC's abstract multi-agent env: a method per question a centralised-training script asks."""

    n_agents: int
    episode_limit: int

    def step(self, actions: Any) -> tuple[float, bool, dict[str, Any]]:
        """Every agent's action; returns (reward, terminated, info)."""
        raise NotImplementedError

    def get_obs(self) -> list[Any]:
        raise NotImplementedError

    def get_obs_agent(self, agent_id: int) -> Any:
        raise NotImplementedError

    def get_obs_size(self) -> int:
        raise NotImplementedError

    def get_state(self) -> Any:
        raise NotImplementedError

    def get_state_size(self) -> int:
        raise NotImplementedError

    def get_avail_actions(self) -> list[Any]:
        raise NotImplementedError

    def get_avail_agent_actions(self, agent_id: int) -> Any:
        raise NotImplementedError

    def get_total_actions(self) -> int:
        raise NotImplementedError

    def reset(self) -> Any:
        """Start an episode; returns (observations, state)."""
        raise NotImplementedError

    def render(self) -> Any:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    def seed(self) -> Any:
        raise NotImplementedError

    def save_replay(self) -> Any:
        raise NotImplementedError

    def get_env_info(self) -> dict[str, Any]:
        return {
            "state_shape": self.get_state_size(),
            "obs_shape": self.get_obs_size(),
            "n_actions": self.get_total_actions(),
            "n_agents": self.n_agents,
            "episode_limit": self.episode_limit,
        }
