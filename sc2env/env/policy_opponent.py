"""PolicyOpponent: the other side of an SC2Env played by a policy in the env's own process, step by step."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from sc2env import errors
from sc2env.env.seat_env import SeatEnv
from sc2env.game.match import Match
from sc2env.game.match_config import MatchConfig
from sc2env.game.two_player import TwoPlayerGame

if TYPE_CHECKING:
    from sc2env.agents.base import Agent
    from sc2env.env.config import EnvConfig

T = TypeVar("T")

_NOT_THE_OPPONENTS = ("map_name", "opponent", "race", "save_replay_episodes", "invalid_action", "render_size")
"""The agent's options the opponent's env does not copy: its own map slot and race; no replays of its own (the
agent's hold the whole game); a frozen policy's refused action is a no-op, never an error in the learner's step."""


_AN_AGENTS_ENV = frozenset(
    {
        "engine",
        "screen_size",
        "minimap_size",
        "camera_width",
        "step_mul",
        "max_episode_steps",
        "time_limit",
        "seed",
        "disable_fog",
        "sc2path",
        "version",
        "launch_timeout_s",
        "request_timeout_s",
        "spin_wait",
        "on_crash",
    }
)
"""The learner's options an Agent opponent's env shares: the game's settings and the feature layers' sizes."""


class PolicyOpponent:
    """Seat 2 of a TwoPlayerGame whose seat 1 is an SC2Env: its own SeatEnv and the policy choosing its actions.
    A callable's env has the learner's options (a frozen copy of the learner's policy reads the same layout); an
    Agent's has the game's settings and sizes, SC2Env's defaults otherwise, and its own `env_kwargs`.

    policy: an sc2env Agent (setup, reset, step(Observation), observe), an agent's name as the agents registry
            takes it, or a callable from the observation dict to an action.
    """

    def __init__(self, policy: Any, config: EnvConfig, seed: int | None = None):
        if isinstance(policy, str):
            from sc2env.agents.registry import make_agent

            policy = make_agent(policy, config.map_name, seed=seed)  # ValueError for an unknown name
        self.agent: Agent | None = None
        self.policy: Callable[[dict[str, np.ndarray]], Any] | None = None
        if all(callable(getattr(policy, hook, None)) for hook in ("setup", "reset", "step", "observe")):
            self.agent = policy  # the Agent protocol (sc2env.agents.Agent or alike)
        else:
            self.policy = policy
        # A policy reads the learner's layout (a frozen copy of it was trained on that); an Agent gets the
        # game's settings and the sizes, SC2Env's defaults for the rest (every function, layer, ...), and what
        # it asks for itself (feature units, say), as `sc2env run` makes its env.
        keep = (
            _AN_AGENTS_ENV
            if self.agent is not None
            else {field.name for field in dataclasses.fields(config)} - set(_NOT_THE_OPPONENTS)
        )
        options = {name: getattr(config, name) for name in keep}
        options.update(getattr(self.agent, "env_kwargs", {}))
        self.env = SeatEnv(2, config.map_name, **options)
        self.game: TwoPlayerGame | None = None
        self._set_up = False
        self._obs: dict[str, np.ndarray] = {}
        self._sent: Any = None

    def host_match(self, config: MatchConfig) -> Match:
        """Seat 1's Match, for the agent's env (its MatchConfig), of a new TwoPlayerGame with this seat 2."""
        self.game = TwoPlayerGame(dataclasses.replace(config, seat=1), self.env.seat_config())
        self.env.attach(self.game)
        return self.game.host

    def reset(self, host_reset: Callable[[], T], seed: int | None) -> T:
        """Both seats' resets at once (a new game if the agent's reset brings a `seed`); the agent's answer."""
        game = self._game()
        if self.env.match is None:  # the agent's env was closed, and reset again
            self.env.attach(game)
        game.prepare(recreate=seed is not None)
        answer, (obs, _) = game.together(host_reset, lambda: self.env.reset(seed=seed))
        self._obs = obs
        if self.agent is not None:
            if not self._set_up:
                self.agent.setup(self.env)
                self._set_up = True
            self.agent.reset()
        return answer

    def begin(self, host_begin: Callable[[], T]) -> T:
        """The opponent's action for its last observation, sent right after the agent's own step."""
        if self.agent is not None:
            observation = self.env.last_observation
            assert observation is not None  # reset() observed
            action = self.agent.step(observation)
        else:
            assert self.policy is not None
            action = self.policy(self._obs)
        try:  # before the agent's step goes: nothing waits on a refusal
            encoded = self.env.encode(action)
        except errors.MalformedActionError as error:
            raise errors.MalformedActionError(
                f"the opponent's policy returned no action of its space: {error}"
            ) from None
        with self._game().playing():
            sent = host_begin()
            self._sent = self.env.send_encoded(*encoded)
        return sent

    def finish(self, host_finish: Callable[[], T]) -> T:
        """Both seats' answers: the agent's (returned), then the opponent's (kept, and shown to its Agent)."""
        with self._game().playing():
            answer = host_finish()
            sent, self._sent = self._sent, None
            self._obs, reward, terminated, truncated, info = self.env.finish_step(sent)
        if self.agent is not None:
            self.agent.observe(reward, terminated, truncated, info)
        return answer

    def close(self) -> None:
        try:
            self.env.close()
        finally:
            if self.game is not None:
                self.game.close()

    def _game(self) -> TwoPlayerGame:
        if self.game is None:
            raise RuntimeError("the opponent's game is made with the agent's first reset()")
        return self.game
