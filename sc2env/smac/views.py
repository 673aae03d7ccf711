"""What the agents and a centralised learner see: observations, state, available actions, sizes, env info."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from sc2env.smac import features
from sc2env.smac.compat import SmacUnitMethods

if TYPE_CHECKING:
    from sc2env.smac.layout import FeatureOptions, Layout
    from sc2env.smac.scenarios import Scenario
    from sc2env.smac.sharing import EnemySharing


class AgentViews(SmacUnitMethods):
    """StarCraft2Env's SMAC methods that read the current step: each computed once per step, for all agents
    at once, and cached until the next step or reset."""

    if TYPE_CHECKING:
        options: FeatureOptions
        layout: Layout
        scenario: Scenario
        _sharing: EnemySharing | None
        n_actions: int
        episode_limit: int
        last_action: np.ndarray
        ally_state_attr_names: list[str]
        enemy_state_attr_names: list[str]
        _cache: dict[str, Any]
        _episode_steps: int

    def _frame(self) -> features.Frame:
        if "frame" not in self._cache:
            self._cache["frame"] = self._roster_now().frame()
        return self._cache["frame"]

    def _true_avail(self) -> np.ndarray:
        """The available actions with targets only in range (what the agents may do to effect)."""
        if "true_avail" not in self._cache:
            self._cache["true_avail"] = features.available_actions(
                self._roster_now().plan, self._frame(), self._map()
            )
        return self._cache["true_avail"]

    def _avail(self) -> np.ndarray:
        """The available actions the agents are shown: every living target without SMACv2's action_mask."""
        if "avail" not in self._cache:
            if self.layout.v2.action_mask:
                self._cache["avail"] = self._true_avail()
            else:
                self._cache["avail"] = features.available_actions(
                    self._roster_now().plan, self._frame(), self._map(), masked=False
                )
        return self._cache["avail"]

    def _obs(self) -> np.ndarray:
        if "obs" not in self._cache:
            frame, plan = self._frame(), self._roster_now().plan
            shared = None
            if self._sharing is not None:  # SMACv2: who has been told of which enemy, updated as it observes
                sees = frame.enemy_offsets[2] < plan.sight[:, None]
                shared = self._sharing.observe(sees, frame.a_alive)
            self._cache["obs"] = features.observations(
                plan,
                frame,
                self._true_avail(),
                self._map(),
                self.last_action,
                self._episode_steps / self.episode_limit,
                shared,
            )
        return self._cache["obs"]

    def get_capabilities_agent(self, agent_id: int) -> np.ndarray:
        """SMACv2's capabilities of one agent: its type one-hot (float32, unit_type_bits long)."""
        return self._roster_now().plan.ally_one_hot[self._agent(agent_id)].astype(np.float32)

    def get_cap_size(self) -> int:
        """The length of one agent's capabilities (SMACv2)."""
        return self.layout.unit_type_bits

    def get_capabilities(self) -> np.ndarray:
        """Every agent's capabilities, concatenated in agent id order (SMACv2)."""
        return self._roster_now().plan.ally_one_hot.ravel().astype(np.float32)

    @property
    def agent_kinds(self) -> list[str]:
        """Each agent's unit kind ("marine", "stalker", ...) in this episode, by agent id."""
        return list(self._roster_now().agent_kinds)

    def get_obs(self) -> list[np.ndarray]:
        """Every agent's observation (float32, get_obs_size() long), in agent id order."""
        return list(self._obs().copy())

    def get_obs_agent(self, agent_id: int) -> np.ndarray:
        return self._obs()[self._agent(agent_id)].copy()

    def get_state(self) -> np.ndarray:
        """The global state (float32, get_state_size() long): allies, enemies [, last actions] [, progress]."""
        if self.options.obs_instead_of_state:
            return self._obs().reshape(-1).copy()
        if "state" not in self._cache:
            self._cache["state"] = self._flat_state()
        return self._cache["state"].copy()

    def _flat_state(self) -> np.ndarray:
        layout, opts = self.layout, self.options
        state = np.zeros(layout.state_size, np.float32)
        a_size = layout.n_agents * layout.ally_state_width
        e_end = a_size + layout.n_enemies * layout.enemy_state_width
        features.fill_state(
            self._roster_now().plan,
            self._frame(),
            self._map(),
            state[:a_size].reshape(layout.n_agents, -1),
            state[a_size:e_end].reshape(layout.n_enemies, -1),
        )
        if opts.state_last_action:
            state[e_end : e_end + self.last_action.size] = self.last_action.ravel()
        if opts.state_timestep_number:
            state[-1] = self._episode_steps / self.episode_limit
        return state

    def get_state_dict(self) -> dict[str, Any]:
        """The state's parts: "allies" (n_agents × attributes), "enemies" (n_enemies × attributes),
        "last_action" (n_agents × n_actions) and "timestep" (the episode's progress) when they are on."""
        allies, enemies = features.state_parts(self._roster_now().plan, self._frame(), self._map())
        parts: dict[str, Any] = {"allies": allies, "enemies": enemies}
        if self.options.state_last_action:
            parts["last_action"] = self.last_action
        if self.options.state_timestep_number:
            parts["timestep"] = self._episode_steps / self.episode_limit
        return parts

    def get_avail_actions(self) -> list[list[int]]:
        return self._avail().tolist()

    def get_avail_agent_actions(self, agent_id: int) -> list[int]:
        return self._avail()[self._agent(agent_id)].tolist()

    def get_visibility_matrix(self) -> np.ndarray:
        """(n_agents, n_agents + n_enemies) bool: the living units each living agent sees."""
        return features.visibility(self._roster_now().plan, self._frame())

    def get_obs_size(self) -> int:
        return self.layout.obs_size

    def get_obs_feature_names(self) -> list[str]:
        """A name per observation value (SMACv2's), get_obs_size() of them."""
        return self.layout.obs_feature_names()

    def get_state_feature_names(self) -> list[str]:
        """A name per state value (SMACv2's), get_state_size() of them."""
        return self.layout.state_feature_names()

    def get_state_size(self) -> int:
        return self.layout.state_size

    def get_total_actions(self) -> int:
        return self.n_actions

    def get_env_info(self) -> dict[str, Any]:
        info = {
            "state_shape": self.get_state_size(),
            "obs_shape": self.get_obs_size(),
            "n_actions": self.get_total_actions(),
            "n_agents": self.n_agents,
            "episode_limit": self.episode_limit,
            "agent_features": self.ally_state_attr_names,
            "enemy_features": self.enemy_state_attr_names,
        }
        if self.scenario.generated:  # SMACv2's: the length of get_capabilities_agent()
            info = {**dict(list(info.items())[:2]), "cap_shape": self.get_cap_size(), **info}
        return info
