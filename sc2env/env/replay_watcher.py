"""Watch a replay through an env's eyes: its observations in the env's layout, each with the actions taken."""

from __future__ import annotations

import dataclasses
import logging
import os
import pathlib
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env import errors
from sc2env.env.config import EnvConfig, check_option_names
from sc2env.env.env import SCORE_DETAIL_NAMES
from sc2env.env.layout import EnvLayout
from sc2env.env.raw_mode import RawActions
from sc2env.game.maps import MINI_GAMES, is_definition_path
from sc2env.game.match import OUTCOMES
from sc2env.game.replay_match import ReplayConfig, ReplayInfo, ReplayMatch
from sc2env.game.scores import OUTCOME_SCORE, score_value
from sc2env.gamedata.clock import LOOPS_PER_REAL_SECOND
from sc2env.interface import (
    FunctionCall,
    Observation,
    ObservationDecoder,
    RawFunctionCall,
)

if TYPE_CHECKING:
    from sc2env.viewer import EnvRenderer

log = logging.getLogger(__name__)
_BUSY = (
    "this ReplayWatcher is already being iterated (it plays one game at a time): make another "
    "watch_replay() to go through the replay twice at once"
)


@dataclasses.dataclass
class ReplayStep:
    """One observation of a replay and what the player did next, as a transition of the env.

    observation: as SC2Env's observation_space lays it out (the `action_mask` included).
    action:      the MultiDiscrete action vector of the first function call in `calls` (no_op when none),
                 ready for behaviour cloning against the env's action_space (the raw one with actions="raw").
    calls:       every action the game received after this observation and before the next, as FunctionCalls
                 (RawFunctionCalls with actions="raw"; those the env's action space can't hold are left out
                 and logged once); actions saved after the replay's last step come with the last step.
    reward, terminated, truncated, info: what SC2Env.step() would have returned for that action, under the
                 config's score_index, score_multiplier and time_limit; the last step is terminated when the
                 game had ended (truncated at a shipped mini-game's timer under time_limit="truncated"), else
                 truncated (a replay saved mid-game).
    decoded:     the same observation with named arrays (`decoded.feature_screen.player_relative`).
    """

    observation: dict[str, np.ndarray]
    action: np.ndarray
    calls: list[FunctionCall] | list[RawFunctionCall]
    reward: float
    terminated: bool
    truncated: bool
    info: dict[str, Any]
    decoded: Observation


class ReplayWatcher:
    """A replay played back with the observations and actions of an env of `config`; iterate for ReplaySteps.

        with watch_replay("replays/MoveToBeacon_....SC2Replay") as replay:
            for step in replay:
                dataset.append((step.observation, step.action))

    `config` (an EnvConfig, a dict of SC2Env keyword arguments, or those as keyword arguments) fixes the
    observation layout and the action space, exactly as `SC2Env(**kwargs)` would; its map_name is ignored (the
    replay's map is played). The game process starts at
    the first iteration and stops at the end, or at close(). render_mode "human" shows the replay in the
    viewer window, "rgb_array" makes `render()` return frames.
    """

    def __init__(
        self,
        replay: str | os.PathLike[str] | bytes,
        config: EnvConfig | Mapping[str, Any] | None = None,
        *,
        observed_player_id: int = 0,
        render_mode: str | None = None,
        **env_kwargs: Any,
    ):
        # keyword arguments over a config: watch_replay(path, env.unwrapped.config, step_mul=4)
        if isinstance(
            config, Mapping
        ):  # the env's keyword arguments as a dict (a training script's env_kwargs)
            env_kwargs = {**config, **env_kwargs}
            given_mode = env_kwargs.pop("render_mode", None)
            render_mode = given_mode if render_mode is None else render_mode
            config = None
        elif config is not None and not isinstance(config, EnvConfig):
            raise TypeError(
                f"config must be an EnvConfig (env.unwrapped.config), a dict of SC2Env keyword "
                f"arguments, or None, not {type(config).__name__}"
            )
        check_option_names(env_kwargs)
        map_name = env_kwargs.get("map_name", config.map_name if config is not None else "")
        if is_definition_path(map_name):  # the replay carries its map: the file need not be there any more
            env_kwargs["map_name"] = pathlib.PurePath(map_name).stem
        self.config = (
            dataclasses.replace(config, **env_kwargs) if config is not None else EnvConfig(**env_kwargs)
        )
        if render_mode not in (None, "human", "rgb_array"):
            raise ValueError(f"render_mode must be 'human', 'rgb_array' or None, not {render_mode!r}")
        self.render_mode = render_mode
        layout = EnvLayout.of(self.config, render_mode)
        self.interface_format, self.action_spec, self._packer = (
            layout.interface_format,
            layout.action_spec,
            layout.packer,
        )
        self.action_mode = layout.action_mode
        """The env's action layout: the steps' actions are its vectors and calls."""
        self.observation_space = self._packer.space
        self.raw_space = self.action_mode.space if isinstance(self.action_mode, RawActions) else None
        """The raw action layout when the config has actions="raw" (the steps' actions are raw then)."""
        self.action_space = self.action_mode.action_space
        cfg = self.config
        self._match = ReplayMatch(
            ReplayConfig(
                replay=replay,
                interface_options=self.interface_format.to_interface_options(),
                launch=cfg.launch_config(),
                step_mul=cfg.step_mul,
                observed_player_id=observed_player_id,
                disable_fog=cfg.disable_fog,
                request_timeout_s=cfg.request_timeout_s,
            )
        )
        self._decoder: ObservationDecoder | None = None
        self._renderer: EnvRenderer | None = None
        self._last: tuple[Observation, sc_pb.ResponseObservation] | None = None
        self._reported: set[str] = set()
        self._iterating = False

    @property
    def info(self) -> ReplayInfo | None:
        """The replay's map, length and players, once it has started."""
        return self._match.info

    @property
    def last_observation(self) -> Observation | None:
        """The observation of the step being handled (after the loop: the replay's final one)."""
        return None if self._last is None else self._last[0]

    @property
    def transforms(self):
        """Coordinate conversions between world, screen, minimap and raw units for the replay's map (see
        docs/interface.md), once it has started; None before."""
        return None if self._decoder is None else self._decoder.transforms

    @property
    def renderer(self):
        """The viewer drawing render() (an `sc2env.viewer.EnvRenderer`), or None before the first render()."""
        return self._renderer

    def __iter__(self) -> Iterator[ReplayStep]:
        if self._iterating:  # checked again when it starts: zip(replay, replay) makes both before either runs
            raise RuntimeError(_BUSY)
        return self._steps()

    def _steps(self) -> Iterator[ReplayStep]:
        if self._iterating:
            raise RuntimeError(_BUSY)
        match = self._match
        self._iterating = True
        try:
            response = match.start()
            self._decoder = ObservationDecoder(
                self.interface_format, match.game_info, functions=self.action_spec.functions
            )
            self.action_mode.start(self._decoder)
            # One player: a mini-game (a custom definition's too), whose reward is the score's change.
            mini_game = match.info is not None and (
                match.info.map_name in MINI_GAMES or len(match.info.players) == 1
            )
            observation, decoded = self._decode(response)
            self._show(decoded, response)
            cfg = self.config
            # The reward and the end as the env's settings make them (score_index, time_limit).
            index = cfg.score_index if cfg.score_index is not None else (0 if mini_game else OUTCOME_SCORE)
            shipped = MINI_GAMES.get(match.info.map_name) if match.info is not None else None
            limit = shipped.game_loops if shipped is not None else None
            start_loop = response.observation.game_loop
            steps = 0
            score = 0.0 if index <= 0 else score_value(response.observation, index)
            while not match.ended and not response.player_result:
                loop = response.observation.game_loop
                response = match.step()
                if match.ended and not response.actions and response.observation.game_loop == loop:
                    break  # the log ran out where the last observation was: no step was played from there
                steps += 1
                # Before the decoding: raw commands name the rows (and the able units) seen before.
                calls = self._calls(response)
                action = self._action(calls)
                after, after_decoded = self._decode(response)
                outcome = next(
                    (
                        OUTCOMES.get(p.result, 0)
                        for p in response.player_result
                        if p.player_id == match.player_id
                    ),
                    0,
                )
                obs = response.observation
                ended = bool(response.player_result)
                timer_cut = (
                    ended
                    and cfg.time_limit == "truncated"
                    and limit is not None
                    and obs.game_loop - start_loop >= limit
                )
                terminated = ended and not timer_cut
                # Saved mid-game, the replay stops there; or the map's timer cut the episode.
                truncated = (match.ended and not ended) or timer_cut
                if index >= 0:
                    value = score_value(obs, index)
                    reward, score = value - score, value
                else:
                    reward = float(outcome) if ended else 0.0
                reward *= cfg.score_multiplier
                info = {
                    "game_loop": int(obs.game_loop),
                    "score": int(obs.score.score),
                    "score_details": dict(zip(SCORE_DETAIL_NAMES, after_decoded.score_cumulative.tolist())),
                    "outcome": outcome,
                    "episode_steps": steps,
                }
                yield ReplayStep(
                    observation=observation,
                    action=action,
                    calls=calls,
                    reward=reward,
                    terminated=terminated,
                    truncated=truncated,
                    info=info,
                    decoded=decoded,
                )
                if match.controller is None:
                    raise errors.ProtocolError(
                        "the ReplayWatcher was closed while its replay was being iterated: "
                        "the steps after this one are not known"
                    )
                observation, decoded = after, after_decoded
                self._show(decoded, response)
        finally:
            self._iterating = False
            self.close(keep_renderer=True)

    def render(self):
        """The observation of the step being handled, drawn by the viewer: a frame ("rgb_array"), or shown in
        the window ("human", where it happens by itself at every observation)."""
        if self.render_mode is None or self._last is None:
            return None
        if self._renderer is None:
            from sc2env.viewer import EnvRenderer  # pygame only when rendering

            self._renderer = EnvRenderer(
                self.render_mode,
                self.interface_format,
                self._match.game_info,
                fps=LOOPS_PER_REAL_SECOND / self.config.step_mul,
                size=self.config.render_size,
                view=self.config.render_view,
            )
        raw = self.action_mode.offered_functions()
        return self._renderer.render(*self._last, raw)

    def close(self, keep_renderer: bool = False) -> None:
        """Stop the game process (and the viewer). Idempotent."""
        self._match.close()
        renderer = self._renderer
        if renderer is not None and not keep_renderer:
            self._renderer = None
            renderer.close()

    def __enter__(self) -> ReplayWatcher:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def _decode(self, response: sc_pb.ResponseObservation) -> tuple[dict[str, np.ndarray], Observation]:
        decoder = self._decoder
        assert decoder is not None  # made when the replay started
        decoded = decoder.decode(response, defer_layers=self._packer.defers_layers)
        # Raw actions: the masks of what the recorded player could do, asked of the game.
        by_mode = self.action_mode.observe(
            decoded, response.actions, [], self._match.query, self._match.ended
        )
        return self._packer.pack(decoded, by_mode), decoded

    def _show(self, decoded: Observation, response: sc_pb.ResponseObservation) -> None:
        """Make this the observation of the step being handled (last_observation, render())."""
        self._last = (decoded, response)
        if self.render_mode == "human":
            self.render()

    def _calls(self, response: sc_pb.ResponseObservation) -> list[FunctionCall] | list[RawFunctionCall]:
        """The player's actions as this env's calls; those its action vectors can't hold are left out (each
        kind logged once)."""
        calls, left_out = self.action_mode.recorded(response.actions)
        for why in left_out:
            if why not in self._reported:
                self._reported.add(why)
                log.warning("replay: leaving out %s", why)
        return calls

    def _action(self, calls: list[FunctionCall] | list[RawFunctionCall]) -> np.ndarray:
        """The action vector of a step: its first call's, or no action's."""
        return self.action_mode.to_vector(calls[0]) if calls else self.action_mode.no_op_vector()


def watch_replay(
    replay: str | os.PathLike[str] | bytes, config: EnvConfig | Mapping[str, Any] | None = None, **kwargs: Any
) -> ReplayWatcher:
    """A ReplayWatcher for `replay` (a path or bytes); see ReplayWatcher for the keyword arguments."""
    return ReplayWatcher(replay, config, **kwargs)
