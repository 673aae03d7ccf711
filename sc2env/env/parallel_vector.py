"""Batched self-play: N two-player games stepped at once, each agent's observations stacked over the games."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

import numpy as np
from gymnasium import spaces
from gymnasium.vector.utils import batch_space

from sc2env import errors
from sc2env.env.parallel import AGENTS, SentStep, TwoPlayerParallelEnv
from sc2env.game.match_config import require_count, require_seed

T = TypeVar("T")


def parallel_vector_env(
    map_name: str = "DuelMarines",
    num_envs: int = 2,
    agent_options: Mapping[str, Mapping[str, Any]] | None = None,
    **options: Any,
) -> TwoPlayerVectorEnv:
    """`num_envs` games of `parallel_env(map_name, ...)` side by side, as one batch per agent (see
    TwoPlayerVectorEnv). `options` and `agent_options` are parallel_env's, for every game."""
    return TwoPlayerVectorEnv(map_name, num_envs, agent_options, **options)


class TwoPlayerVectorEnv:
    """N two-player games (TwoPlayerParallelEnv, two game processes each) stepped together: every game's two
    steps are sent before any answer is read, so the 2N game processes work at once.

    Per agent ("player_1", "player_2"), everything is batched over the games: `reset()` and `step()` return
    {agent: {key: array (N, ...)}} observations (the agent's Dict layout, stacked; `action_mask` in it),
    {agent: array (N,)} rewards, terminations and truncations, and {agent: tuple of N info dicts}; `step()`
    takes {agent: N actions} (an (N, components) array, or a list of vectors or FunctionCalls).

    A game whose episode ended is reset by the next step() (Gymnasium's NEXT_STEP autoreset): its actions
    there are ignored, and it returns the new episode's first observation with reward 0 and neither flag set.
    Seeds: `reset(seed=s)` creates game i anew with seed s + i; a list gives one seed per game.
    """

    def __init__(
        self,
        map_name: str = "DuelMarines",
        num_envs: int = 2,
        agent_options: Mapping[str, Mapping[str, Any]] | None = None,
        **options: Any,
    ) -> None:
        require_count("num_envs", num_envs, "game")
        if options.get("render_mode") is not None:
            raise ValueError(
                "a TwoPlayerVectorEnv does not render: play one game with parallel_env to watch it"
            )
        self.games: list[TwoPlayerParallelEnv] = []
        try:
            for _ in range(num_envs):
                self.games.append(TwoPlayerParallelEnv(map_name, None, agent_options, **options))
        except BaseException:
            self.close()
            raise
        self.num_envs = num_envs
        self.possible_agents = list(AGENTS)
        first = self.games[0]
        self.single_observation_spaces = dict(first.observation_spaces)
        self.single_action_spaces = dict(first.action_spaces)
        self.observation_spaces = {
            agent: batch_space(space, num_envs) for agent, space in self.single_observation_spaces.items()
        }
        self.action_spaces = {
            agent: batch_space(space, num_envs) for agent, space in self.single_action_spaces.items()
        }
        self._observations: list[dict[str, dict[str, np.ndarray]]] = []
        self._ended = np.zeros(num_envs, bool)
        self._lost: str | None = None  # why step() waits for reset(): a step or reset that failed

    def observation_space(self, agent: str) -> spaces.Space:
        """The agent's observations over all games (its single game's Dict, batched)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        """The agent's actions over all games (its single game's MultiDiscrete, batched)."""
        return self.action_spaces[agent]

    def reset(self, seed: int | Sequence[int | None] | None = None) -> tuple[dict, dict]:
        """Start an episode in every game (game i with seed + i, or the list's seed i: a new game then);
        the batched observations and infos."""
        seeds = _seeds(seed, self.num_envs)
        self._lost = "a reset() that failed"  # until every game has started its episode
        self._observations = []
        infos = []
        for game, one in zip(self.games, seeds):
            observations, info = game.reset(seed=one)
            self._observations.append(observations)
            infos.append(info)
        self._ended[:] = False
        self._lost = None
        return self._batch(self._observations), self._info_batch(infos)

    def step(self, actions: Mapping[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        """Every game's step for both agents: {agent: N actions} in, the batched five-tuple out."""
        if self._lost is not None or not self._observations:
            raise errors.ProtocolError(
                f"step() needs every game's episode: call reset() first{f' (after {self._lost})' if self._lost else ''}"
            )
        per_game = self._per_game(actions)
        live = [i for i in range(self.num_envs) if not self._ended[i]]
        # Every game's actions are checked before any is sent: a refused one leaves every game where it was.
        checked = {i: self.games[i].begin_step(per_game[i], send=False) for i in live}
        sent: dict[int, SentStep] = {}
        results: list[tuple] = [()] * self.num_envs
        try:
            for i in live:  # all are sent before any answer is read: the games work at once
                sent[i] = self.games[i].send_step(checked[i])
            for i in map(
                int, np.flatnonzero(self._ended)
            ):  # last step ended these: their next episode starts here
                observations, info = self.games[i].reset()
                results[i] = (observations, _flags(0.0), _flags(False), _flags(False), info)
            for i in live:
                results[i] = self.games[i].finish_step(sent.pop(i))
        except BaseException as error:
            for step in sent.values():  # sent, never read: its answers are dropped before the next request
                for pending, _ in step.pending:
                    if hasattr(pending, "abandon"):
                        pending.abandon()
            self._lost = f"a step that failed ({type(error).__name__}: {error})"
            raise
        self._observations = [result[0] for result in results]
        self._ended = np.array([any(r[2].values()) or any(r[3].values()) for r in results])
        rewards, terminations, truncations = (
            {agent: np.array([r[k][agent] for r in results], dtype) for agent in AGENTS}
            for k, dtype in ((1, np.float64), (2, bool), (3, bool))
        )
        return (
            self._batch(self._observations),
            rewards,
            terminations,
            truncations,
            self._info_batch([r[4] for r in results]),
        )

    def action_masks(self, agent: str) -> np.ndarray:
        """(N, mask length) bool: the agent's current flat action mask in every game (for MaskablePPO)."""
        if not self._observations:
            raise errors.ProtocolError("action_masks() needs observations: call reset() first")
        return np.stack([obs[agent]["action_mask"] for obs in self._observations]).astype(bool)

    def close(self) -> None:
        """Stop every game's two processes. Idempotent."""
        failure: BaseException | None = None
        for game in self.games:
            try:
                game.close()
            except BaseException as error:  # close the others all the same
                failure = failure or error
        self._observations = []
        if failure is not None:
            raise failure

    def __enter__(self) -> TwoPlayerVectorEnv:
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    # --- internals ---------------------------------------------------------------------------------

    def _per_game(self, actions: Mapping[str, Any]) -> list[dict[str, Any]]:
        """{agent: N actions} as N {agent: action}, checked for shape before any game is touched."""
        unknown = sorted(set(actions) - set(AGENTS))
        missing = [agent for agent in AGENTS if agent not in actions]
        if unknown or missing:
            raise errors.InvalidActionError(
                f"step() takes N actions for each of {list(AGENTS)}"
                + (f"; missing {missing}" if missing else "")
                + (f"; unknown {unknown}" if unknown else "")
            )
        for agent in AGENTS:
            given = actions[agent]
            count = len(given) if hasattr(given, "__len__") else None
            if count != self.num_envs:
                raise errors.InvalidActionError(
                    f"step() needs {self.num_envs} actions for {agent} (one per game), got "
                    f"{'one scalar' if count is None else count}: e.g. an ({self.num_envs}, components) array"
                )
        return [{agent: actions[agent][i] for agent in AGENTS} for i in range(self.num_envs)]

    def _batch(self, observations: list[dict[str, dict[str, np.ndarray]]]) -> dict:
        return {
            agent: {
                key: np.stack([obs[agent][key] for obs in observations])
                for key in self.single_observation_spaces[agent].spaces
            }
            for agent in AGENTS
        }

    @staticmethod
    def _info_batch(infos: list[dict[str, dict[str, Any]]]) -> dict[str, tuple[dict[str, Any], ...]]:
        return {agent: tuple(info[agent] for info in infos) for agent in AGENTS}


def _flags(value: T) -> dict[str, T]:
    return dict.fromkeys(AGENTS, value)


def _seeds(seed: int | Sequence[int | None] | None, count: int) -> list[int | None]:
    """One seed per game: seed + i, the list's own, or None for all."""
    if seed is None or isinstance(seed, (int, np.integer)):
        require_seed("reset(seed=...)", seed)
        return [None if seed is None else int(seed) + i for i in range(count)]
    if isinstance(seed, (str, bytes)) or not isinstance(seed, (Sequence, np.ndarray)):
        raise ValueError(f"reset(seed=...) takes an int, a list of {count} seeds, or None; not {seed!r}")
    seeds = list(seed)
    if len(seeds) != count:
        raise ValueError(f"reset(seed=...) got {len(seeds)} seeds for {count} games")
    for i, one in enumerate(seeds):
        require_seed(f"reset(seed=...)[{i}]", one)
    return [None if one is None else int(one) for one in seeds]
