"""SMAC as a PettingZoo ParallelEnv: one agent per unit, masked actions, the global state."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from sc2env import errors
from sc2env.smac.env import StarCraft2Env
from sc2env.smac.render import MODES
from sc2env.smac.scenarios import map_spawns
from sc2env.smac.unit_kinds import KIND_OF_CATALOG, MAP_FAMILIES

try:
    from pettingzoo import ParallelEnv
except ImportError as error:  # an optional dependency: say which extra brings it
    raise ImportError(
        "sc2env.smac.parallel_env needs PettingZoo: pip install 'sc2env-rl[pettingzoo]'"
    ) from error


def parallel_env(
    map_name: str = "8m", max_cycles: int | None = None, render_mode: str | None = None, **smac_kwargs: Any
) -> SmacParallelEnv:
    """A PettingZoo ParallelEnv of a SMAC scenario; `smac_kwargs` are StarCraft2Env's arguments.

    max_cycles: agent steps before the episode is truncated (default: the scenario's episode limit).
    render_mode: "human" or "rgb_array" (render() then draws the battle), or None.
    """
    env = StarCraft2Env(map_name=map_name, **smac_kwargs)
    return SmacParallelEnv(env, env.episode_limit if max_cycles is None else max_cycles, render_mode)


def agent_names(env: StarCraft2Env) -> list[str]:
    """The agents' names in SMAC's id order: `<kind>_<i>` (marine_0, ...; SMAC's PettingZoo names), from the
    units the scenario's map spawns for them; `agent_<i>` in SMACv2's generated scenarios, whose teams vary."""
    scenario = env.scenario
    if scenario.generated:
        return [f"agent_{i}" for i in range(env.n_agents)]
    counts: dict[str, int] = {}
    for player, catalog, count in map_spawns(scenario.map_file):
        if player == 1:
            kind = KIND_OF_CATALOG[catalog]
            counts[kind] = counts.get(kind, 0) + count
    # SMAC numbers the agents by unit type, and the map family lists the kinds in type order.
    kinds = [kind for kind in MAP_FAMILIES[scenario.map_type].allies for _ in range(counts.get(kind, 0))]
    return [f"{kind}_{kinds[:i].count(kind)}" for i, kind in enumerate(kinds)]


class SmacParallelEnv(ParallelEnv):
    """StarCraft2Env as a PettingZoo ParallelEnv.

    Each agent observes {"observation": its SMAC observation, "action_mask": its available actions} and acts
    with Discrete(n_actions - 1): SMAC's actions without the no-op (action a is SMAC's a + 1), which only dead
    agents take. The reward is the team's, given to every agent. An agent whose unit dies terminates (its last
    observation is zero, its mask empty) and leaves `agents`; a battle's end terminates everyone; the time
    limit (the scenario's, or `max_cycles` steps) truncates everyone. `state()` is SMAC's global state.
    """

    # PettingZoo reads `metadata` from the class (as its base class declares it), before any env is made.
    metadata = {"name": "sc2env_smac_v0", "render_modes": list(MODES), "is_parallelizable": True}  # noqa: RUF012

    def __init__(self, env: StarCraft2Env, max_cycles: int, render_mode: str | None = None) -> None:
        if render_mode is not None and render_mode not in MODES:
            raise ValueError(f"render_mode must be one of {', '.join(MODES)} or None, not {render_mode!r}")
        self.env = env
        self.max_cycles = max_cycles
        self.render_mode = render_mode
        self.possible_agents = agent_names(env)
        self.agents: list[str] = []
        self._ids = {name: i for i, name in enumerate(self.possible_agents)}
        n_actions = env.get_total_actions() - 1
        obs_space = spaces.Box(-1.0, 1.0, (env.get_obs_size(),), np.float32)
        self.observation_spaces = {
            name: spaces.Dict(
                {"observation": obs_space, "action_mask": spaces.Box(0, 1, (n_actions,), np.int8)}
            )
            for name in self.possible_agents
        }
        self.action_spaces = {name: spaces.Discrete(n_actions) for name in self.possible_agents}
        self.state_space = spaces.Box(-1.0, _state_high(env), (env.get_state_size(),), np.float32)
        self._steps = 0

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(
        self, seed: int | None = None, options: dict | None = None
    ) -> tuple[dict[str, dict[str, np.ndarray]], dict[str, dict]]:
        """Start an episode; a seed starts a new game with it (and seeds the action spaces' sampling)."""
        self.env.reset(seed=seed)
        if seed is not None:
            for i, name in enumerate(self.possible_agents):
                self.action_spaces[name].seed(seed + i)
        self._check_names()
        self.agents = list(self.possible_agents)
        self._steps = 0
        return self._observe(self.agents), {name: {} for name in self.agents}

    def step(self, actions: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        """Every living agent's action (missing or None is refused: only the dead no-op)."""
        smac_actions = [0] * self.env.n_agents
        avail = self.env._avail()
        for name in self.agents:
            action = actions.get(name)
            if action is None:
                raise errors.InvalidActionError(
                    f"{name} is alive and needs an action (0 to {self.action_spaces[name].n - 1}); "
                    f"the actions given are for {sorted(actions)}"
                )
            smac_id = self._ids[name]
            number = int(action) + 1
            if not 1 <= number < self.env.n_actions or not avail[smac_id, number]:
                raise errors.InvalidActionError(
                    f"{name} cannot take action {action!r} now: its action_mask allows "
                    f"{(np.flatnonzero(avail[smac_id, 1:])).tolist()}"
                )
            smac_actions[smac_id] = number
        extra = sorted(set(actions) - set(self.agents))
        if extra:
            raise errors.InvalidActionError(f"{extra} are not live agents (live: {self.agents})")
        reward, terminated, info = self.env.step(smac_actions)
        self._steps += 1
        acting = self.agents
        timed_out = (terminated and self.env.timed_out) or self._steps >= self.max_cycles
        battle_over = terminated and not self.env.timed_out
        alive = self.env._frame().a_alive
        terminations = {name: battle_over or not alive[self._ids[name]] for name in acting}
        truncations = {name: timed_out and not terminations[name] for name in acting}
        observations = self._observe(acting)
        self.agents = [name for name in acting if not (terminations[name] or truncations[name])]
        return (
            observations,
            dict.fromkeys(acting, float(reward)),
            terminations,
            truncations,
            {name: dict(info) for name in acting},
        )

    def state(self) -> np.ndarray:
        return self.env.get_state()

    def render(self) -> np.ndarray | None:
        if self.render_mode is None:
            raise errors.ProtocolError(
                "render() needs a render_mode: parallel_env(..., render_mode='rgb_array')"
            )
        return self.env.render(self.render_mode)

    def close(self) -> None:
        self.env.close()

    def _observe(self, names: list[str]) -> dict[str, dict[str, np.ndarray]]:
        obs = self.env.get_obs()
        masks = self.env._avail()[:, 1:].astype(np.int8)
        return {
            name: {"observation": obs[self._ids[name]], "action_mask": masks[self._ids[name]]}
            for name in names
        }

    def _check_names(self) -> None:
        kinds = self.env.agent_kinds
        if not self.env.scenario.generated and [n.rsplit("_", 1)[0] for n in self.possible_agents] != kinds:
            raise errors.SC2EnvError(
                f"the game's agents are {kinds}, not the units {self.env.map_name}'s map spawns; "
                "the game does not play SMAC's scenario"
            )


def _state_high(env: StarCraft2Env) -> np.ndarray:
    """The state's upper bounds: 1, but for the agents' cooldowns, which may outlast SMAC's normaliser (a
    Hydralisk's 13.2 loops over 10)."""
    high = np.ones(env.get_state_size(), np.float32)
    if not env.options.obs_instead_of_state:
        per_ally = [np.inf if name == "energy/cooldown" else 1.0 for name in env.ally_state_attr_names]
        high[: len(per_ally) * env.n_agents] = np.tile(per_ally, env.n_agents)
    return high
