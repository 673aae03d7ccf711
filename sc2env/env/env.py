"""SC2Env: one StarCraft II match as a Gymnasium env with a masked MultiDiscrete function-call action."""

from __future__ import annotations

import dataclasses
import enum
import os
import pathlib
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env import errors
from sc2env.env.action_mode import ActionMode
from sc2env.env.config import EnvConfig, check_option_names
from sc2env.env.layout import EnvLayout
from sc2env.env.opponents import PolicySpec, parse_opponent
from sc2env.env.raw_mode import RawActions
from sc2env.env.registration import spec_property
from sc2env.game.lifecycle import Lifecycle
from sc2env.game.match import Match, MatchState, StepResult
from sc2env.game.replay_files import write_replay
from sc2env.gamedata.clock import LOOPS_PER_REAL_SECOND
from sc2env.interface import (
    CoordinateTransforms,
    FunctionCall,
    Observation,
    ObservationDecoder,
    RawActionMasks,
    RawActionSpace,
    RawFunctionCall,
    ScoreCumulative,
)

if TYPE_CHECKING:
    from sc2env.env.policy_opponent import PolicyOpponent
    from sc2env.viewer import EnvRenderer

_SEED_BOUND = 2**31


class EnvState(enum.Enum):
    """Where an SC2Env is in its life; ENV_TRANSITIONS says where it may go from each state. Whether the game
    is still in the episode is its Match's state (an ended or lost game, seen there first)."""

    NEW = "made, never reset"
    RESETTING = "in reset(), or after one that did not finish (a failed start, a Ctrl-C)"
    PLAYING = "an episode is being played (as far as the env knows: see Match.state)"
    ENDING = "a step ended the episode; its end is not yet counted (a Ctrl-C while it was observed)"
    ENDED = "the episode ended and was counted (its replay saved, if due)"
    CLOSED = "closed: the game stopped; reset() starts a new one"


_E = EnvState
ENV_TRANSITIONS: dict[EnvState, set[EnvState]] = {
    _E.NEW: {_E.RESETTING, _E.CLOSED},
    _E.RESETTING: {_E.RESETTING, _E.PLAYING, _E.CLOSED},
    _E.PLAYING: {_E.RESETTING, _E.ENDING, _E.ENDED, _E.CLOSED},  # to ENDED: a lost game's truncated episode
    _E.ENDING: {_E.ENDED, _E.RESETTING, _E.CLOSED},
    _E.ENDED: {_E.RESETTING, _E.CLOSED},
    _E.CLOSED: {_E.RESETTING, _E.CLOSED},
}
_REFUSALS = {
    _E.NEW: "before reset()",
    _E.RESETTING: "after a reset() that did not finish",
    _E.ENDING: "after the episode ended",
    _E.ENDED: "after the episode ended",
    _E.CLOSED: "after close()",
}
"""How step() says why it cannot go on, by the env's state."""
_IN_AN_EPISODE = frozenset({_E.PLAYING, _E.ENDING, _E.ENDED})
"""The states in which the env's game is its episode's: a lost one is the reason step() gives."""
SCORE_DETAIL_NAMES = tuple(ScoreCumulative.__members__)
"""The keys of info["score_details"] (the env's and a replay watcher's)."""


class SC2Env(gym.Env):
    """A StarCraft II match (built-in engine or the real game) as a Gymnasium env.

    Observation: a Dict of fixed-shape Boxes (see `observation_space` and docs/env.md): feature layers
    channel-first, padded unit tables with `counts`, and `action_mask`, the flat concatenation of the
    function mask and every argument's value mask (the layout of `action_spec`).

    Action: MultiDiscrete `[function, screen, minimap, screen2, queued, control_group_act, control_group_id,
    select_point_act, select_add, select_unit_act, select_unit_id, select_worker, build_queue_id,
    unload_id]`; points are flattened as y * width + x, components the function does not use are ignored.
    A `FunctionCall` is accepted too: `env.step(FUNCTIONS.Move_screen("now", (x, y)))`. With actions="raw" the
    action is `[function, queued, units, target, world]` (or a `RawFunctionCall`); `action_mode` is the layout
    in use, and the env hands it every question about actions (masks, encoding, conversions).

    The game process starts at the first reset() and stops at close(). After a crash (GameCrashedError),
    the next reset() starts a new one.
    """

    metadata: dict[str, Any] = {  # noqa: RUF012 - as Gymnasium declares it; each env sets its own
        "render_modes": ["rgb_array", "human"],
        "render_fps": LOOPS_PER_REAL_SECOND / 8,
    }
    spec = spec_property(lambda env: env.config)

    def __init__(self, map_name: str = "MoveToBeacon", render_mode: str | None = None, **kwargs: Any):
        check_option_names(kwargs)
        self.config = EnvConfig(map_name=map_name, **kwargs)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode must be one of {self.metadata['render_modes']} or None, not {render_mode!r}"
            )
        self.render_mode = render_mode
        self.metadata = {**self.metadata, "render_fps": LOOPS_PER_REAL_SECOND / self.config.step_mul}
        layout = EnvLayout.of(self.config, render_mode)
        self.interface_format = layout.interface_format
        self.action_spec = layout.action_spec
        """The feature-layer function layout (the action space's under actions="features")."""
        self.action_mode: ActionMode = layout.action_mode
        """The action layout: its space, masks and encoding (FeatureActions, or RawActions under "raw")."""
        self._packer = layout.packer
        self.observation_space: spaces.Dict = self._packer.space
        self.action_space: spaces.MultiDiscrete = self.action_mode.action_space
        self._match: Match | None = None
        self._decoder: ObservationDecoder | None = None
        self._decoder_game_info: sc_pb.ResponseGameInfo | None = None
        self._last: Observation | None = None
        self._last_response: sc_pb.ResponseObservation | None = None
        self._last_packed: dict[str, np.ndarray] = {}  # the observation step() returned last
        self._pack_into: Mapping[str, np.ndarray] | None = None  # see pack_into()
        self._episode_steps = 0
        self._episode_return = 0.0
        self._lifecycle = Lifecycle("SC2Env", EnvState.NEW, ENV_TRANSITIONS)
        self._first_seed = self.config.seed  # the config's seed, for the first reset that picks one
        self._unplayed_seed: int | None = None  # a seeded reset cut short: the seed to play next
        self._renderer: EnvRenderer | None = None
        self._episodes_done = 0
        self._opponent: PolicyOpponent | None = None
        """Who plays the other side when opponent= is a policy (a game process per player)."""
        if isinstance(parse_opponent(self.config.opponent), PolicySpec):
            from sc2env.env.policy_opponent import PolicyOpponent  # it builds on this class

            self._opponent = PolicyOpponent(self.config.opponent, self.config, seed=self.config.seed)

    # --- Gymnasium API -----------------------------------------------------------------------------

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        if isinstance(seed, np.integer):  # a seed drawn with numpy (SC2VectorEnv takes them too)
            seed = int(seed)
        super().reset(seed=seed)
        game_seed: int | None
        if seed is None and self._unplayed_seed is not None:
            game_seed = self._unplayed_seed  # a seeded reset cut short (Ctrl-C, a failed start): play it now
        else:
            game_seed = self._game_seed(seed)
        self._unplayed_seed = game_seed
        saved: dict[str, Any] = {}
        # An episode a wrapper cut short (TimeLimit) ends here: counted, its replay saved, before the restart.
        self._count_episode(self._lifecycle.to(EnvState.RESETTING), saved)
        match = self._ensure_match()
        opponent = self._opponent
        response = (
            match.reset(game_seed)
            if opponent is None
            else opponent.reset(lambda: match.reset(game_seed), game_seed)
        )
        self._unplayed_seed = None
        if self._decoder is None or match.game_info is not self._decoder_game_info:
            self._decoder = None
            try:
                decoder = ObservationDecoder(
                    self.interface_format, match.game_info, functions=self.action_spec.functions
                )
            except errors.ProtocolError:  # a game_info we cannot use: the next reset() tries a new game
                match.close()
                raise
            self.action_mode.start(decoder)  # a map the mode cannot play (raw grid): no decoder kept either
            self._decoder, self._decoder_game_info = decoder, match.game_info
        self._episode_steps = 0
        self._episode_return = 0.0
        self._lifecycle.to(EnvState.PLAYING)
        obs = self._observe(response)
        info = {**self._info(self._observed(), StepResult(response), invalid=None), **saved}
        self._after_observation()
        return obs, info

    def step(self, action):
        try:
            return self.finish_step(self.begin_step(action))
        except errors.ConnectionError as error:
            if self.config.on_crash != "truncate":
                raise
            return self.crash_step(error)

    @property
    def state(self) -> EnvState:
        """Where the env is in its life (its game's own state: `match.state`)."""
        return self._lifecycle.state

    @property
    def episode_over(self) -> bool:
        """Whether step() must wait for reset(): no episode started, it ended, or its game was lost."""
        return self._refusal() is not None

    def action_masks(self) -> np.ndarray:
        """The current flat action mask as bool, the form sb3-contrib's MaskablePPO asks for."""
        if self._last is None:
            raise errors.ProtocolError("action_masks() needs an observation: call reset() first")
        return self.action_mode.flat_mask()

    def split_mask(self, flat: np.ndarray) -> tuple[np.ndarray, ...]:
        """A flat mask (`obs["action_mask"]`, `action_masks()`, or a batch of them) as one int8 view per
        action component: what `action_space.sample(mask=...)` takes, in either action layout."""
        return self.action_mode.split_mask(flat)

    def conditional_mask(self, function: int, units: int | None = None) -> np.ndarray:
        """The current flat mask (bool) given the action's first component: the arguments that function
        doesn't take pinned to 0, the rest narrowed to what it can use (with raw actions also given the
        `units` component, if chosen: one unit is not offered itself as its target)."""
        if self._last is None:
            raise errors.ProtocolError("conditional_mask() needs an observation: call reset() first")
        return self.action_mode.conditional_mask(function, units)

    @property
    def raw_space(self) -> RawActionSpace | None:
        """The raw action layout under actions="raw" (else None)."""
        return self.action_mode.space if isinstance(self.action_mode, RawActions) else None

    @property
    def raw_masks(self) -> RawActionMasks | None:
        """Under actions="raw": which raw functions each raw_units row can use now, and their targets."""
        return self.action_mode.masks if isinstance(self.action_mode, RawActions) else None

    def raw_conditional_mask(self, function: int, units: int | None = None) -> np.ndarray:
        """Under actions="raw": the flat mask (bool) given the chosen function component value, and the units
        value if chosen already (one unit is not offered itself as its target)."""
        if self.raw_masks is None:
            raise errors.ProtocolError(
                "raw_conditional_mask() needs actions='raw' and an observation (reset())"
            )
        return self.action_mode.conditional_mask(function, units)

    def render(self):
        if self.render_mode is None:
            gym.logger.warn(
                "render() was called without a render_mode; pass render_mode='rgb_array' or "
                "'human' to gymnasium.make()."
            )
            return None
        if self._last is None or self._match is None:  # before reset(), or after close(): no game to draw
            return None
        return self._get_renderer().render(
            self._last, self._last_response, self.action_mode.offered_functions()
        )

    def close(self) -> None:
        """Stop the game process (and close the viewer). Idempotent."""
        try:
            self._count_episode(self._lifecycle.to(EnvState.CLOSED), {})
        finally:  # a Ctrl-C during that save must not keep the game running
            match, self._match = self._match, None
            if match is not None:
                match.close()
            renderer, self._renderer = self._renderer, None
            if renderer is not None:
                renderer.close()
            if self._opponent is not None:
                self._opponent.close()

    # --- for scripted agents and the vector env ------------------------------------------------------

    @property
    def last_observation(self) -> Observation | None:
        """The last decoded observation with named arrays (`.feature_screen.player_relative`), or None."""
        return self._last

    @property
    def last_response(self) -> sc_pb.ResponseObservation | None:
        """The game's message of the last observation as it came (PySC2's `send_observation_proto`), or None."""
        return self._last_response

    @property
    def match(self) -> Match | None:
        return self._match

    @property
    def game_info(self) -> sc_pb.ResponseGameInfo | None:
        """The game's map and interface description (map name, size, playable area), from the first reset on."""
        return self._decoder_game_info

    @property
    def transforms(self) -> CoordinateTransforms | None:
        """Coordinate conversions between world, screen, minimap and raw units for this map, from the first
        reset on (see docs/interface.md)."""
        return None if self._decoder is None else self._decoder.transforms

    @property
    def renderer(self):
        """The viewer drawing render() (an `sc2env.viewer.EnvRenderer`), or None before the first render().

        In "human" mode it is the window: `sc2env.viewer.play` reads the human's input from it.
        """
        return self._renderer

    def save_replay(
        self, replay_dir: str | os.PathLike[str] | None = None, prefix: str | None = None
    ) -> pathlib.Path:
        """Save the replay of the current (or just finished) episode; returns its path.

        The file is `<replay_dir>/<prefix>_<UTC time>.SC2Replay` (replay_dir: config.replay_dir; prefix: the
        map's name, without the folders of a map path). Watch it with `sc2env replay FILE`, or read its steps
        with `sc2env.env.watch_replay`.
        """
        if self._match is None:
            raise errors.ProtocolError("save_replay() needs a game: call reset() first")
        data = self._match.save_replay()
        return write_replay(
            data,
            self.config.replay_dir if replay_dir is None else replay_dir,
            pathlib.PurePath(self.config.map_name).stem if prefix is None else prefix,
        )

    def pack_into(self, arrays: Mapping[str, np.ndarray] | None) -> None:
        """Write every later observation into `arrays` (one per observation key, of its space's shape and
        dtype: a vector env's row of shared memory), which reset() and step() then return: each observation
        overwrites the last. None: new arrays each time (the default), and the env lets go of the arrays it was
        given (it keeps a copy of the last observation)."""
        if arrays is not None:
            for key, box in self.observation_space.spaces.items():
                array = arrays.get(key)
                if array is None or array.shape != box.shape or array.dtype != box.dtype:
                    raise ValueError(
                        f"pack_into needs a {box.dtype} array of shape {box.shape} for {key!r}, not "
                        f"{None if array is None else (array.dtype, array.shape)}"
                    )
        if arrays is None and self._pack_into is not None:
            self._last_packed = {name: value.copy() for name, value in self._last_packed.items()}
        self._pack_into = arrays

    def function_call_to_action(self, call: FunctionCall | RawFunctionCall) -> np.ndarray:
        """The MultiDiscrete action vector for a FunctionCall, or a RawFunctionCall under actions="raw"
        (raises InvalidActionError if it has no place)."""
        return self.action_mode.to_vector(call)

    def action_to_function_call(self, action) -> FunctionCall | RawFunctionCall:
        """The FunctionCall (RawFunctionCall under actions="raw") an action vector stands for (no availability
        check; a raw vector's every-able-unit value is expanded with the current masks)."""
        return self.action_mode.to_call(action)

    def begin_step(self, action):
        """The sending half of step(): check the action and hand it to the game, which starts working."""
        return self.send_encoded(*self.encode(action))

    def encode(self, action) -> tuple[list, str | None]:
        """The protocol actions for `action` and, if it was not allowed and became no_op, why.

        Raises InvalidActionError instead under invalid_action="raise". Sends nothing.
        """
        why = self._refusal()
        if why:
            raise errors.ProtocolError(
                f"step() called {why}: call reset() to start an episode"
                f"{'' if self._match is not None else ' (it starts a game)'}."
            )
        try:
            return self.action_mode.encode(action), None
        except errors.MalformedActionError:
            raise  # not an action of this space at all: a bug to fix, never a quiet no_op
        except errors.InvalidActionError as error:
            if self.config.invalid_action == "raise":
                raise
            return [], str(error)

    def send_encoded(self, actions: list, problem: str | None):
        """Send what encode() made; finish_step() reads the answer."""
        # What the action mode asks behind the observation (raw: what the units can do after the step).
        game, then = self._game(), self.action_mode.step_requests()
        if self._opponent is not None:  # the opponent's step goes right after: each waits for the other
            return self._opponent.begin(lambda: game.begin_step(actions, then)), problem
        return game.begin_step(actions, then), problem

    def finish_step(self, sent):
        """The receiving half of step(): wait for the game, then (obs, reward, terminated, truncated, info)."""
        pending, problem = sent
        game, opponent = self._game(), self._opponent
        # A lost game: the match says so (step() refuses)
        result = (
            game.finish_step(pending)
            if opponent is None
            else opponent.finish(lambda: game.finish_step(pending))
        )
        self._episode_steps += 1
        self._episode_return += result.reward
        cap = self.config.max_episode_steps
        # time_limit="truncated": the map's timer cut the episode, which the game reports as its end.
        timer_cut = result.timed_out and self.config.time_limit == "truncated"
        terminated = result.terminated and not timer_cut
        truncated = (
            result.truncated
            or timer_cut
            or (cap is not None and self._episode_steps >= cap and not terminated)
        )
        ended = terminated or truncated
        if ended:  # before decoding: a Ctrl-C there must still leave the episode's end known
            self._lifecycle.to(EnvState.ENDING)
        obs = self._observe(result.observation, result.then)
        info = self._info(self._observed(), result, invalid=problem)
        if ended:
            self._count_episode(self._lifecycle.to(EnvState.ENDED), info)
        self._after_observation()
        return obs, float(result.reward), bool(terminated), bool(truncated), info

    def crash_step(
        self, error: errors.ConnectionError
    ) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        """What step() returns under on_crash="truncate" once the game is lost: the episode ends there,
        truncated, with the last observation again and no reward, and info["crash"] saying what happened.

        The lost game is stopped at once (a hung one too); the next reset() starts a new one.
        """
        gym.logger.warn(f"the game was lost, so the episode ends here (on_crash='truncate'): {error}")
        if self._match is not None:
            self._match.stop_lost_game()
        last = self._last_response
        assert last is not None  # a step comes after reset()'s observation
        info = {
            **self._info(self._observed(), StepResult(last), invalid=None),
            "crash": f"{type(error).__name__}: {error}",
        }
        self._count_episode(self._lifecycle.to(EnvState.ENDED), info)
        observation = {name: value.copy() for name, value in self._last_packed.items()}
        return observation, 0.0, False, True, info

    # --- internals ---------------------------------------------------------------------------------

    def _ensure_match(self) -> Match:
        if self._match is None:
            config = self.config.match_config(self.interface_format.to_interface_options())
            self._match = Match(config) if self._opponent is None else self._opponent.host_match(config)
        return self._match

    def _game_seed(self, seed: int | None) -> int | None:
        """The game's seed for this reset, or None for the fast restart of the current game.

        The first reset (and the first after a crash) seeds the game from `seed`, else `config.seed`, else
        np_random, so that a seeded env replays the same episodes.
        """
        if seed is None and self._first_seed is not None:
            seed = self._first_seed
            super().reset(seed=seed)
        if seed is None and (self._match is None or not self._match.running):
            seed = int(self.np_random.integers(_SEED_BOUND))
        if seed is None:
            return None
        self._first_seed = None
        seed = int(seed)
        # The game takes 31 bits. Larger seeds (64-bit ones from a SeedSequence, say) are hashed down, not
        # cut: seeds that differ only in their high bits must still play different games.
        return (
            seed
            if seed < _SEED_BOUND
            else int(np.random.SeedSequence(seed).generate_state(1)[0]) % _SEED_BOUND
        )

    def _observe(
        self, response: sc_pb.ResponseObservation, answered: Sequence[Any] = ()
    ) -> dict[str, np.ndarray]:
        decoder = self._decoder
        assert decoder is not None  # made by reset() before its first observation
        self._last = decoded = decoder.decode(response, defer_layers=self._packer.defers_layers)
        self._last_response = response
        match = self._game()
        ended = match.episode_over or self._lifecycle.state is not EnvState.PLAYING
        by_mode = self.action_mode.observe(decoded, response.actions, answered, match.query, ended)
        self._last_packed = out = self._packer.pack(decoded, by_mode, self._pack_into)
        return out

    def _game(self) -> Match:
        """The match of the episode being played (ProtocolError if there is none)."""
        if self._match is None:
            raise errors.ProtocolError("this needs a game: call reset() first (it starts one)")
        return self._match

    def _observed(self) -> Observation:
        """The last decoded observation (ProtocolError before the first)."""
        if self._last is None:
            raise errors.ProtocolError("this needs an observation: call reset() first")
        return self._last

    def _info(self, obs: Observation, result: StepResult, invalid: str | None) -> dict[str, Any]:
        return {
            "game_loop": int(obs.game_loop[0]),
            "score": int(obs.score_cumulative[0]),
            "score_details": dict(zip(SCORE_DETAIL_NAMES, obs.score_cumulative.tolist())),
            "outcome": int(result.outcome),
            "episode_steps": self._episode_steps,
            "invalid_action": invalid is not None,
            "invalid_action_reason": invalid or "",
        }

    def _refusal(self) -> str | None:
        """Why step() cannot go on now, as its error says it, or None: the env's state, then its game's."""
        state, match = self._lifecycle.state, self._match
        if state in _IN_AN_EPISODE and match is not None and match.state is MatchState.LOST:
            return f"after the game was lost ({match.lost_because})"  # also once on_crash ended its episode
        if state is not EnvState.PLAYING:
            return _REFUSALS[state]
        if match is None or match.state is MatchState.CLOSED:
            return "after the episode ended"
        if match.state is MatchState.LOST:
            return f"after the game was lost ({match.lost_because})"
        # The match's own end counts: a Ctrl-C can fall between its scoring of the last step and ours.
        return "after the episode ended" if match.episode_over else None

    def _count_episode(self, left: EnvState, info: dict[str, Any]) -> None:
        """Count the episode the env has just `left` as finished, if it was one not counted yet (the last step
        ended it, or reset() or close() left it after a step), and save its replay if save_replay_episodes says
        so; the path goes in `info` (that step's or reset's). An episode a wrapper cut (gym.make's
        max_episode_steps is Gymnasium's TimeLimit) ends at the next reset() or close()."""
        if not (left is EnvState.ENDING or (left is EnvState.PLAYING and self._episode_steps > 0)):
            return
        self._episodes_done += 1
        every = self.config.save_replay_episodes
        if every and self._episodes_done % every == 0 and self._match is not None and self._match.running:
            self._save_episode_replay(info)

    def _save_episode_replay(self, info: dict[str, Any]) -> None:
        """save_replay_episodes at work: a replay that can't be written costs a warning, never the step."""
        try:
            info["replay_path"] = str(self.save_replay())
        except (errors.SC2EnvError, OSError) as error:
            info["replay_error"] = str(error)
            gym.logger.warn(f"the replay of episode {self._episodes_done} was not saved: {error}")

    def _after_observation(self) -> None:
        if self.render_mode == "human":
            self.render()

    def _get_renderer(self) -> EnvRenderer:
        if self._renderer is None:
            from sc2env.viewer import EnvRenderer  # pygame only when rendering

            assert self.render_mode is not None  # render() returns before without one
            self._renderer = EnvRenderer(
                self.render_mode,
                self.interface_format,
                self._game().game_info,
                fps=self.metadata["render_fps"],
                size=self.config.render_size,
                view=self.config.render_view,
            )
        return self._renderer

    @classmethod
    def from_config(cls, config: EnvConfig, render_mode: str | None = None) -> SC2Env:
        """A new env (with its own game, started at reset()) playing as `config` says."""
        return cls(
            render_mode=render_mode,
            **{field.name: getattr(config, field.name) for field in dataclasses.fields(config)},
        )

    def __getstate__(self):
        raise TypeError(
            "An SC2Env owns a game process and cannot be pickled; pickle its EnvConfig "
            "(env.config) and make the env anew with SC2Env.from_config(config), or pickle an env "
            "creator (see docs/rllib.md)."
        )
