"""--save-video: a command's recording, which a failed write (a full disk) stops without stopping the command."""

from __future__ import annotations

import contextlib
import errno
import os
import sys
from typing import TYPE_CHECKING, Any

import numpy as np

from sc2env.cli.options import UsageError
from sc2env.cli.signals import held_stop, signals_held
from sc2env.cli.text import shown
from sc2env.gamedata.clock import LOOPS_PER_REAL_SECOND

if TYPE_CHECKING:
    from sc2env.viewer import VideoWriter


def frame_of(source: Any) -> np.ndarray:
    """The frame to record of an env or a replay watcher: its rgb_array render, or the picture its window
    shows (under --render, whose human mode renders to the window)."""
    return source.render() if source.render_mode == "rgb_array" else source.renderer.viewer.frame()


class Recording:
    """The video --save-video asks for, one frame per step in real time.

    A frame or the file's end that can't be written (a full disk, an encoder that died) ends the recording
    but not the command: the run's episodes and scores matter more than its video. The unfinished file is
    removed (it would not play), and the failure, naming the file and its cause, is told at close().
    """

    def __init__(self, path: str, step_mul: int):
        if not path:
            raise UsageError("--save-video needs a file name: out.mp4 or out.gif")
        from sc2env.viewer import VideoError, VideoWriter

        try:
            self.writer: VideoWriter = VideoWriter(path, fps=LOOPS_PER_REAL_SECOND / step_mul)
        except VideoError as error:  # a format, folder or package the flag's file can't be written with
            raise UsageError(str(error)) from error
        self.failure: str | None = None
        """Why the video was abandoned, or None while it is being written."""

    @property
    def active(self) -> bool:
        """Whether frames are still recorded (none after a failure: their rendering would be wasted)."""
        return self.failure is None

    def add(self, frame: np.ndarray) -> None:
        """Write a frame; Ctrl-C and SIGTERM wait for it (an interrupted frame write kills the encoder)."""
        if self.failure is not None:
            return
        try:
            with signals_held():
                self.writer.add(frame)
        except OSError as error:
            self._abandon(error)

    def close(self, report_empty: bool = True) -> KeyboardInterrupt | None:
        """Finish the video and say what was written; returns the stop (Ctrl-C or SIGTERM) that came meanwhile,
        for the caller to end with. `report_empty`: say so when no frame was recorded (not after an error that
        ended the command before its first frame: that error is all there is to say).

        A Ctrl-C or SIGTERM while the file is finished (the second of an impatient user) would leave it
        unplayable: the first is held, with a word; only another one abandons the file.
        """
        writer, held = self.writer, []
        path = None
        if self.failure is None:
            with signals_held("finishing the video") as held:
                try:
                    path = writer.close()
                    if path is not None and path.suffix.lower() == ".mp4" and not _mp4_complete(path):
                        # ffmpeg holds the index until its end, and when that does not fit it exits quietly.
                        raise OSError("the video encoder could not finish the file")
                except OSError as error:  # the file's end (an MP4's index, a GIF's trailer) did not fit
                    self._abandon(error)
        if self.failure is not None:
            print(f"video: {self.failure}", file=sys.stderr)
        elif path is None:
            if report_empty:
                print(
                    f"video: no frame was recorded, so {shown(str(writer.path), None)} was not written",
                    file=sys.stderr,
                )
        elif not path.is_file():
            print(
                f"video: {shown(str(path), None)} was not written (the video encoder failed)", file=sys.stderr
            )
        else:
            print(f"video: {shown(str(path), None)} ({writer.frames} frames)", file=sys.stderr)
        return held_stop(held)

    def _abandon(self, error: OSError) -> None:
        path = self.writer.path
        cause = _cause(error, path)  # before the unfinished file's space is given back
        with contextlib.suppress(Exception):  # the encoder's own finish fails as the write did, or worse
            self.writer.close()
        removed = False
        if path.is_file():  # (not a device the name stands for, such as /dev/full)
            with contextlib.suppress(OSError):
                path.unlink()
                removed = True
        self.failure = (
            f"cannot write {shown(str(path), None)}: {cause}; the recording stopped after "
            f"{self.writer.frames} frame(s)" + (" and the unfinished file was removed" if removed else "")
        )


def _cause(error: OSError, path: os.PathLike[str]) -> str:
    """Why a video write failed. An error of imageio-ffmpeg carries none (ffmpeg's own message went to
    stderr, and the pipe to it broke): then a full disk is recognised from the folder's free space."""
    if error.strerror:
        return error.strerror
    try:
        stats = os.statvfs(os.path.dirname(os.path.abspath(path)))
        full = stats.f_bavail == 0
    except OSError:
        full = False
    if full:
        return os.strerror(errno.ENOSPC)
    return f"the video encoder stopped ({str(error).strip().splitlines()[0]}; its own message above says why)"


def _mp4_complete(path: os.PathLike[str]) -> bool:
    """Whether an MP4 file is whole: its top-level boxes end within the file, and one is the index (moov),
    which ffmpeg writes last. A file cut short by a full disk lacks it, and plays nowhere."""
    try:
        with open(path, "rb") as file:
            size = os.fstat(file.fileno()).st_size
            at, boxes = 0, set()
            while at + 8 <= size:
                file.seek(at)
                head = file.read(16)
                length, kind = int.from_bytes(head[:4], "big"), head[4:8]
                if length == 1 and len(head) == 16:  # a 64-bit length follows the type
                    length = int.from_bytes(head[8:16], "big")
                elif length == 0:  # the box runs to the end of the file
                    length = size - at
                if length < 8 or at + length > size:
                    return False
                boxes.add(kind)
                at += length
    except OSError:
        return False
    return at == size and b"moov" in boxes
