"""--save-video: the writer a command records frames with, and what it says when the video is finished."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import numpy as np

from sc2env.cli.options import UsageError
from sc2env.cli.signals import held_stop, signals_held
from sc2env.game.maps import LOOPS_PER_REAL_SECOND

if TYPE_CHECKING:
    from sc2env.viewer import VideoWriter


def video_writer(path: str | None, step_mul: int) -> VideoWriter | None:
    """The VideoWriter --save-video asks for (one frame per step, in real time), or None without it."""
    if path is None:
        return None
    if not path:
        raise UsageError("--save-video needs a file name: out.mp4 or out.gif")
    from sc2env.viewer import VideoError, VideoWriter

    try:
        return VideoWriter(path, fps=LOOPS_PER_REAL_SECOND / step_mul)
    except VideoError as error:  # a format, folder or package the flag's file can't be written with
        raise UsageError(str(error)) from error


def frame_of(source: Any) -> np.ndarray:
    """The frame to record of an env or a replay watcher: its rgb_array render, or the picture its window
    shows (under --render, whose human mode renders to the window)."""
    return source.render() if source.render_mode == "rgb_array" else source.renderer.viewer.frame()


def add_frame(writer: VideoWriter, frame: np.ndarray) -> None:
    """Write a frame; Ctrl-C and SIGTERM wait for it (an interrupted frame write kills the encoder)."""
    with signals_held():
        writer.add(frame)


def close_video(writer: VideoWriter) -> KeyboardInterrupt | None:
    """Finish the video and say what was written (nothing, when no frame was recorded); returns the stop
    (Ctrl-C or SIGTERM) that came meanwhile, for the caller to end with.

    A Ctrl-C or SIGTERM while the file is finished (the second of an impatient user) would leave it
    unplayable: the first is held, with a word; only another one abandons the file.
    """
    with signals_held("finishing the video") as held:
        path = writer.close()
    if path is None:
        print(f"video: no frame was recorded, so {writer.path} was not written", file=sys.stderr)
    elif not path.is_file():
        print(f"video: {path} was not written (the video encoder failed)", file=sys.stderr)
    else:
        print(f"video: {path} ({writer.frames} frames)", file=sys.stderr)
    return held_stop(held)
