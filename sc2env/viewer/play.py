"""A human plays: the viewer's mouse and keyboard input goes to the env as ordinary function calls."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np
from s2clientprotocol import error_pb2

from sc2env.interface import FUNCTIONS, FunctionCall
from sc2env.viewer.renderer import EnvRenderer
from sc2env.viewer.window import ViewerClosed

_END_HOLD_S = 1.5


def play(
    env: gym.Env, *, episodes: int | None = None, on_episode: Callable[[int, dict], None] | None = None
) -> list[int]:
    """Let a human play `env` (made with render_mode="human") until the window closes or `episodes` end.

    The game advances one env step per frame at the env's render_fps (times the viewer's speed); each step
    sends the next of the human's calls, or no_op. Space pauses. Returns the final score of each finished
    episode; `on_episode(number, info)` is called as each ends.
    """
    unwrapped: Any = env.unwrapped  # an SC2Env: its renderer and decoded observations are used
    if unwrapped.render_mode != "human":
        raise ValueError("play() needs an env made with render_mode='human'")
    scores: list[int] = []
    try:
        env.reset()
        viewer = unwrapped.renderer
        if not isinstance(viewer, EnvRenderer):
            raise TypeError(f"the env's renderer is {type(viewer).__name__}, not sc2env's EnvRenderer")
        viewer.interactive = True
        viewer.viewer.episode = 1
        viewer.redraw()  # the first frame was drawn for watching: its help line and no episode number
        fps = unwrapped.metadata["render_fps"]
        calls: deque[FunctionCall] = deque()
        while episodes is None or len(scores) < episodes:
            speed = viewer.viewer.speed
            new = viewer.wait(0.0 if speed == float("inf") else 1 / (fps * speed))
            queue_calls(calls, new)
            if viewer.viewer.paused:
                if new:  # said, or a click while paused would seem lost until it happens on resuming
                    viewer.viewer.notice = (
                        f"paused: {len(calls)} order(s) go to the game when you press Space"
                    )
                    viewer.redraw()
                continue
            call = calls.popleft() if calls else FUNCTIONS.no_op()
            _, _, terminated, truncated, info = env.step(call)
            # From the decoded observation: a wrapper may have reshaped the one step() returns.
            refused = refusals(unwrapped.last_observation.action_result)
            if info["invalid_action"]:
                viewer.viewer.notice = info["invalid_action_reason"]
            elif refused:
                viewer.viewer.notice = refused
            elif call.function != FUNCTIONS.no_op.id:
                viewer.viewer.notice = ""
            if terminated or truncated:
                scores.append(int(info["score"]))
                if on_episode is not None:
                    on_episode(len(scores), info)
                viewer.viewer.notice = f"Episode {len(scores)} over: score {info['score']}"
                viewer.viewer.controls.cancel()  # a prompt or complaint of the last episode would hide that
                viewer.redraw()
                if viewer.viewer.speed != float("inf"):
                    viewer.wait(_END_HOLD_S)  # the final frame, before the next episode replaces it at once
                calls.clear()
                if episodes is None or len(scores) < episodes:
                    viewer.viewer.episode = len(scores) + 1
                    env.reset()
    except ViewerClosed:
        pass
    return scores


def queue_calls(calls: deque[FunctionCall], new: list[FunctionCall]) -> None:
    """Queue the human's new calls, one per env step. Camera moves in a row become the last of them: a held
    arrow key repeats faster than steps come, and each move's target already counts the presses before it."""
    camera = FUNCTIONS.move_camera.id
    for call in new:
        if call.function == camera and calls and calls[-1].function == camera:
            calls[-1] = call
        else:
            calls.append(call)


def refusals(action_result: np.ndarray) -> str:
    """What the game said to the last actions it refused (obs["action_result"]), or "" if none."""
    names = []
    for code in action_result.tolist():
        if code:
            try:
                names.append(error_pb2.ActionResult.Name(code))
            except ValueError:
                names.append(f"error {code}")
    return f"the game refused it: {', '.join(names)}" if names else ""
