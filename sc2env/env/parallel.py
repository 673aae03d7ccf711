"""Two agents playing each other as a PettingZoo ParallelEnv: `player_1` and `player_2`, a game process each."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces

from sc2env import errors
from sc2env.env.flat_mask_space import FlatMaskMultiDiscrete
from sc2env.env.seat_env import SeatEnv, two_player_game
from sc2env.game.maps import two_player_maps
from sc2env.game.observer import ObserverConfig, ObserverSeat

try:
    from pettingzoo import ParallelEnv
except ImportError as error:  # an optional dependency: say which extra brings it
    raise ImportError(
        "sc2env.env.parallel_env needs PettingZoo: pip install 'sc2env-rl[pettingzoo]'"
    ) from error

AGENTS = ("player_1", "player_2")
"""The agents, in slot order: player_1 hosts the game (the map's first slot), player_2 joins it."""
_SHARED_ONLY = ("map_name", "step_mul", "engine", "sc2path", "version", "seed", "realtime", "disable_fog")
"""Options both players must share: one game, one clock (per agent they would be ignored or contradict)."""


@dataclasses.dataclass
class SentStep:
    """A step of begin_step(): the agents that act, their encoded actions, their games' pending answers once
    sent, or the crash that cut the sending short."""

    agents: list[str]
    encoded: list[tuple[list, str | None]]
    pending: list[Any] = dataclasses.field(default_factory=list)
    crash: errors.GameCrashedError | None = None
    watching: list[Any] = dataclasses.field(default_factory=list)
    """The observers' pending answers (TwoPlayerGame.begin_watching)."""


def parallel_env(
    map_name: str = "DuelMarines",
    render_mode: str | None = None,
    agent_options: Mapping[str, Mapping[str, Any]] | None = None,
    observers: Sequence[ObserverConfig] = (),
    **options: Any,
) -> TwoPlayerParallelEnv:
    """A PettingZoo ParallelEnv of two agents on a two-player map (the duels: `sc2env.game.two_player_maps()`).

    options:       SC2Env's options (docs/env.md), for both players: sizes, `actions`, layers, score_index...
    agent_options: per agent ("player_1", "player_2") options over those, e.g. {"player_2": {"actions":
                   "raw"}}; `race` too (default: the map's race for the slot).
    render_mode:   "rgb_array": render() returns both players' views side by side (player_1's on the left).
    observers:     ObserverConfigs of observers that watch the game in lock-step, a game process each; read
                   them through `env.observers` (their `observe()`), after each reset() and step().
    """
    return TwoPlayerParallelEnv(map_name, render_mode, agent_options, observers=observers, **options)


class TwoPlayerParallelEnv(ParallelEnv):
    """Two agents in one game, each through its own SC2Env (a SeatEnv) and game process, stepped in lock-step.

    Each agent observes what SC2Env observes (the same Dict layout, `action_mask` in it) from its own side (its
    fog of war, its units as Self) and acts with SC2Env's action space (feature-layer function calls or raw
    commands, as its options say; a FunctionCall is taken too). Rewards follow `score_index` per player (by
    default the outcome: +1/-1/0 when the game ends); the game ends for both at once: terminated (a result,
    or the map's timer with time_limit="terminated") or truncated. One player's game process crashing raises
    GameCrashedError (on_crash="truncate": both agents' episodes are truncated there, info["crash"] says why);
    the next reset() starts both games anew.
    """

    metadata = {"name": "sc2env_two_player_v0", "render_modes": ["rgb_array"], "is_parallelizable": True}  # noqa: RUF012

    def __init__(
        self,
        map_name: str,
        render_mode: str | None = None,
        agent_options: Mapping[str, Mapping[str, Any]] | None = None,
        observers: Sequence[ObserverConfig] = (),
        **options: Any,
    ) -> None:
        if map_name not in two_player_maps() and map_name.lower() not in {
            n.lower() for n in two_player_maps()
        }:
            raise ValueError(
                f"{map_name!r} is no map two agents play: parallel_env plays {', '.join(two_player_maps())} "
                "(a mini-game or a map against the built-in AI is an SC2Env: gymnasium.make)"
            )
        if render_mode not in (None, "rgb_array"):
            raise ValueError(f"render_mode must be 'rgb_array' or None, not {render_mode!r}")
        per_agent = dict(agent_options or {})
        unknown = sorted(set(per_agent) - set(AGENTS))
        if unknown:
            raise ValueError(f"agent_options takes the agents {AGENTS}, not {unknown}")
        for agent, given in per_agent.items():
            shared = sorted(set(given) & set(_SHARED_ONLY))
            if shared:
                raise ValueError(f"{shared} are the game's, not {agent}'s: pass them to parallel_env itself")
        if options.get("realtime"):
            raise ValueError("realtime=True is for one agent: two agents play in lock-step")
        self.render_mode = render_mode
        self.envs: dict[str, SeatEnv] = {
            agent: SeatEnv(
                seat,
                map_name,
                render_mode=render_mode,
                **{"render_view": "game", **options, **per_agent.get(agent, {})},
            )
            for seat, agent in enumerate(AGENTS, 1)
        }
        self.game = two_player_game(self.envs[AGENTS[0]], self.envs[AGENTS[1]], observers)
        self.possible_agents = list(AGENTS)
        self.agents: list[str] = []
        self.observation_spaces = {agent: env.observation_space for agent, env in self.envs.items()}
        self.action_spaces: dict[str, spaces.Space] = {
            agent: FlatMaskMultiDiscrete(env.action_space.nvec) for agent, env in self.envs.items()
        }

    @property
    def observers(self) -> tuple[ObserverSeat, ...]:
        """The game's observers (the `observers=` given), each with its last `observation` and `observe()`."""
        return self.game.observers

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(
        self, seed: int | None = None, options: dict | None = None
    ) -> tuple[dict[str, dict[str, np.ndarray]], dict[str, dict[str, Any]]]:
        """Start an episode for both players; a seed creates the game anew with it (the same seed, the same
        game) and seeds the action spaces' sampling."""
        host, guest = self.envs.values()
        for env in (host, guest):
            if env.match is None:  # after close()
                env.attach(self.game)
        self.game.prepare(recreate=seed is not None)
        first, second = self.game.together(lambda: host.reset(seed=seed), lambda: guest.reset(seed=seed))
        if seed is not None:
            for i, agent in enumerate(AGENTS):
                self.action_spaces[agent].seed(seed + i)
        self.agents = list(AGENTS)
        return {AGENTS[0]: first[0], AGENTS[1]: second[0]}, {AGENTS[0]: first[1], AGENTS[1]: second[1]}

    def step(self, actions: Mapping[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        """Both players' actions (an action vector, or a FunctionCall / RawFunctionCall) for one step."""
        return self.finish_step(self.begin_step(actions))

    def begin_step(self, actions: Mapping[str, Any], send: bool = True) -> SentStep:
        """The sending half of step(): both players' actions are checked and go to their games, which then
        work on the step while the caller does something else (sends another game's step, say); finish_step()
        reads it. send=False: only checked and encoded, for send_step()."""
        if not self.agents:
            raise errors.ProtocolError(
                "step() needs an episode: call reset() (the last one ended, or none began)"
            )
        missing = [agent for agent in self.agents if agent not in actions]
        extra = sorted(set(actions) - set(self.agents))
        if missing or extra:
            raise errors.InvalidActionError(
                f"step() takes one action for each of {self.agents}: "
                + "; ".join(
                    p
                    for p in (f"missing {missing}" if missing else "", f"not live {extra}" if extra else "")
                    if p
                )
            )
        envs = [self.envs[agent] for agent in self.agents]
        encoded = [env.encode(actions[agent]) for agent, env in zip(self.agents, envs)]  # before sending any
        step = SentStep(list(self.agents), encoded)
        return self.send_step(step) if send else step

    def send_step(self, step: SentStep) -> SentStep:
        """Send the actions begin_step() encoded (it calls this; a batch of games encodes them all first)."""
        try:
            with self.game.playing():
                for agent, encoded in zip(step.agents, step.encoded):
                    step.pending.append(self.envs[agent].send_encoded(*encoded))
                step.watching = self.game.begin_watching()  # the players' steps wait for the observers'
        except errors.GameCrashedError as error:
            step.crash = error
        return step

    def finish_step(self, sent: SentStep) -> tuple[dict, dict, dict, dict, dict]:
        """The receiving half of step(): both players' (observations, rewards, terminations, truncations,
        infos)."""
        acting, envs = sent.agents, [self.envs[agent] for agent in sent.agents]
        results: list[tuple] = []
        crash = sent.crash
        if crash is None:
            try:
                with self.game.playing():
                    results.extend(env.finish_step(s) for env, s in zip(envs, sent.pending))
                self.game.finish_watching(sent.watching)
            except errors.GameCrashedError as error:
                crash = error
        if crash is not None:
            if any(env.config.on_crash != "truncate" for env in envs):
                self.agents = []
                raise crash
            why = f"{type(crash).__name__}: {crash}"
            # A seat that read its answer saw the game end (undecided); the episode was cut all the same.
            results = [
                (obs, reward, False, True, {**info, "crash": why}) for obs, reward, _, _, info in results
            ]
            results.extend(env.crash_step(crash) for env in envs[len(results) :])
        out: tuple[dict, dict, dict, dict, dict] = ({}, {}, {}, {}, {})
        for agent, result in zip(acting, results):
            for table, value in zip(out, result):
                table[agent] = value
        if any(out[2].values()) or any(out[3].values()):  # one game: it ends for both at once
            for agent in acting:  # (a cap of one player's own, max_episode_steps, cuts the other's too)
                out[3][agent] = out[3][agent] or not out[2][agent]
            self.agents = []
        return out

    def render(self) -> np.ndarray | None:
        """Both players' views side by side (player_1 left), as rgb_array frames of one height."""
        if self.render_mode is None:
            raise errors.ProtocolError(
                "render() needs a render_mode: parallel_env(..., render_mode='rgb_array')"
            )
        frames = [env.render() for env in self.envs.values()]
        if any(frame is None for frame in frames):
            return None
        return np.concatenate(frames, axis=1)

    def close(self) -> None:
        """Stop both game processes. Idempotent."""
        try:
            for env in self.envs.values():
                env.close()
        finally:
            self.game.close()
            self.agents = []
