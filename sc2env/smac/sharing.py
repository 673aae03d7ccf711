"""SMACv2's enemy sharing: which enemies each agent has been told of (its `prob_obs_enemy`)."""

from __future__ import annotations

import numpy as np


class EnemySharing:
    """Who knows of which enemy in one episode, as SMACv2 keeps it.

    The first agent to see an enemy (in the order agents are observed, which SMACv2 shuffles every time)
    "tags" it: it knows of it, and each other agent is told with probability `prob`, for the rest of the
    episode. When the tagging agent dies, its enemies are untagged and everyone forgets them (and nobody
    keeps what the dead agent knew); a dead enemy is untagged and forgotten each step.
    """

    def __init__(self, n_agents: int, n_enemies: int, prob: float, rng: np.random.Generator) -> None:
        self.prob = prob
        self.rng = rng
        self.known = np.zeros((n_enemies, n_agents), bool)
        """(n_enemies, n_agents): SMACv2's obs_enemies."""
        self.tagger = np.full(n_enemies, -1, np.int64)
        """The agent that tagged each enemy, -1 for none (SMACv2's enemy_tags)."""

    def observe(self, sees: np.ndarray, alive: np.ndarray) -> np.ndarray:
        """Update from one round of observations and return (n_agents, n_enemies): what each agent knew of
        when it was observed. `sees`: (n_agents, n_enemies) which enemies are within each agent's sight
        (dead enemies included, at their last place); `alive`: the living agents (the dead observe nothing)."""
        n_agents = len(alive)
        shared = np.zeros(sees.shape, bool)
        for agent in self.rng.permutation(n_agents):
            if not alive[agent]:
                continue
            new = np.flatnonzero(sees[agent] & (self.tagger < 0))
            if len(new):
                self.tagger[new] = agent
                others = np.arange(n_agents) != agent
                # One draw per (new enemy, other agent), in that order, as SMACv2 draws them.
                told = np.ones((len(new), n_agents), bool)
                told[:, others] = self.rng.random((len(new), n_agents - 1)) < self.prob
                self.known[new] = told
            shared[agent] = self.known[:, agent]
        return shared

    def after_step(self, agent_dead: np.ndarray, enemy_dead: np.ndarray) -> None:
        """Forget what the dead agents tagged and knew, and the dead enemies."""
        for agent in np.flatnonzero(agent_dead):
            self.known[self.tagger == agent] = False
            self.tagger[self.tagger == agent] = -1
            self.known[:, agent] = False
        self.tagger[enemy_dead] = -1
        self.known[enemy_dead] = False
