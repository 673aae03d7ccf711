"""EnvRenderer: the env's render modes. "rgb_array" returns the viewer's frame; "human" shows it in a window."""

from __future__ import annotations

import functools
import time

import numpy as np

from sc2env.env.config import RENDER_VIEWS
from sc2env.interface import FunctionCall, InterfaceFormat, Observation
from sc2env.viewer.controls import ViewerCommand
from sc2env.viewer.game_view import GameView
from sc2env.viewer.layout import DEFAULT_SIZE
from sc2env.viewer.scene import Scene
from sc2env.viewer.viewer import Viewer
from sc2env.viewer.window import ViewerClosed, Window

_IDLE_REDRAW_S = 1 / 30
RENDER_MODES = ("rgb_array", "human")


class EnvRenderer:
    """Draws an env's observations: `render(observation, response)` once per env step.

    rgb_array: returns the (height, width, 3) uint8 frame (for RecordVideo): the whole viewer, or with
               `view="game"` the camera's area alone, at `size` (default: 512 pixels along its longer side).
    human:     shows the frame in a window and keeps the pace of `fps` frames per second times the viewer's
               speed (+/-), pausing on Space; returns None. Closing the window raises `ViewerClosed` from the
               env call that rendered. With `interactive` (sc2env play) it doesn't pace: `wait()` does, and
               returns the human's function calls.
    """

    def __init__(
        self,
        render_mode: str,
        interface_format: InterfaceFormat,
        game_info,
        fps: float | None = None,
        size: tuple[int, int] | None = None,
        view: str = "viewer",
    ):
        if render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be one of {RENDER_MODES}, not {render_mode!r}")
        check_view(render_mode, view)
        self.render_mode = render_mode
        self.fps = fps
        self.game_view = GameView(interface_format, game_info, size) if view == "game" else None
        """The game view drawing the frames under view="game" (else None)."""
        self._viewer_args = (interface_format, game_info, size or DEFAULT_SIZE)
        self.map_name = game_info.map_name
        self.window = (
            Window(self.viewer.layout.size, f"sc2env: {self.map_name}") if render_mode == "human" else None
        )
        self._last_frame = time.perf_counter()

    @functools.cached_property
    def viewer(self) -> Viewer:
        """The whole viewer (made at first use: frames of the game view alone never need it)."""
        fmt, game_info, size = self._viewer_args
        return Viewer(fmt, game_info, size=size)

    @property
    def viewer_built(self) -> bool:
        """Whether the whole viewer has been made (it is, at its first use)."""
        return "viewer" in self.__dict__

    @property
    def interactive(self) -> bool:
        return self.viewer.controls.interactive

    @interactive.setter
    def interactive(self, value: bool) -> None:
        self.viewer.controls.interactive = value

    @property
    def closed(self) -> bool:
        return self.window is not None and self.window.closed

    def render(self, observation: Observation, response=None, raw_functions=None) -> np.ndarray | None:
        """Draw one observation (`raw_functions`: under raw actions, the raw function ids on offer)."""
        scene = Scene.from_observation(
            observation,
            response,
            map_name=self.map_name,
            raw_functions=None if raw_functions is None else tuple(raw_functions),
        )
        if self.game_view is not None:
            return self.game_view.frame(scene)
        canvas = self.viewer.draw(scene)
        if self.window is None:
            return self.viewer.frame()
        if self.window.closed:
            raise ViewerClosed("the viewer window was closed")
        self.window.show(canvas)
        if not self.interactive:
            self._pace()
        return None

    def wait(self, seconds: float) -> list[FunctionCall]:
        """Handle input for `seconds` (the rest of the frame), redrawing as it changes; the human's calls."""
        calls: list[FunctionCall] = []
        deadline = self._last_frame + seconds
        while True:
            calls += self._pump()
            now = time.perf_counter()
            if now >= deadline:
                break
            time.sleep(min(deadline - now, _IDLE_REDRAW_S))
        self._last_frame = max(deadline, time.perf_counter() - seconds)
        return calls

    def redraw(self) -> None:
        """Draw the last scene again (after a change of the viewer's own state) and show it."""
        canvas = self.viewer.draw()
        if self.window is not None and not self.window.closed:
            self.window.show(canvas)

    def close(self) -> None:
        if self.window is not None:
            self.window.close()

    def _pace(self) -> None:
        """Keep the frame rate while watching, and hold here while paused."""
        while True:
            self._pump()  # the human's game calls mean nothing while an agent plays
            if not self.viewer.paused:
                break
            time.sleep(_IDLE_REDRAW_S)
        speed = self.viewer.speed
        if self.fps and speed != float("inf"):
            delay = self._last_frame + 1 / (self.fps * speed) - time.perf_counter()
            while delay > 0:
                time.sleep(min(delay, _IDLE_REDRAW_S))
                self._pump()
                delay = self._last_frame + 1 / (self.fps * self.viewer.speed) - time.perf_counter()
        self._last_frame = time.perf_counter()

    def _pump(self) -> list[FunctionCall]:
        """Handle the pending window events; redraw if any; raise ViewerClosed on a close request."""
        window = self.window
        if window is None:  # rgb_array: no window, no input
            return []
        events = window.events()
        calls: list[FunctionCall] = []
        for event in events:
            for command in self.viewer.handle(event):
                if command is ViewerCommand.QUIT:
                    window.close()
                    raise ViewerClosed("the viewer window was closed")
                if isinstance(command, FunctionCall):  # the viewer's own commands are applied already
                    calls.append(command)
        if events and self.viewer.scene is not None:
            self.redraw()
        return calls


def check_view(render_mode: str | None, view: str) -> None:
    """Refuse an unknown render view, or the game view in a window (ValueError)."""
    if view not in RENDER_VIEWS:
        raise ValueError(f"render_view must be one of {RENDER_VIEWS}, not {view!r}")
    if view == "game" and render_mode == "human":
        raise ValueError(
            'render_view="game" draws rgb_array frames; the "human" window is the whole viewer (its panels '
            'take the clicks and keys): use render_mode="rgb_array", or render_view="viewer"'
        )
