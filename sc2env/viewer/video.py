"""VideoWriter: frames to an .mp4 (imageio with imageio-ffmpeg) or an animated .gif (Pillow), streamed to disk."""

from __future__ import annotations

import importlib.util
import pathlib
from typing import Protocol

import numpy as np

from sc2env.errors import SC2EnvError

FORMATS = (".mp4", ".gif")
INSTALL_HINT = "pip install 'sc2env-rl[video]'  (imageio and imageio-ffmpeg)"


class VideoError(SC2EnvError):
    """A video can't be written: unknown format or a missing optional package."""


def video_support() -> dict[str, str | None]:
    """For each format, None when it can be written here, else what to install."""
    imageio = importlib.util.find_spec("imageio") is not None
    ffmpeg = importlib.util.find_spec("imageio_ffmpeg") is not None
    pillow = importlib.util.find_spec("PIL") is not None  # imageio's own dependency
    return {
        ".mp4": None if imageio and ffmpeg else INSTALL_HINT,
        ".gif": None if pillow else "pip install pillow  (or 'sc2env-rl[video]', which brings it)",
    }


class VideoWriter:
    """Writes frames to `path` at `fps` as they come; the format follows the extension.

    The requirements and the path are checked at construction, so a missing package or a file that can't be
    written is reported before a long run. Frames go to disk as they are added (MP4 through ffmpeg, GIF
    frame by frame), so memory does not grow with the length of the run, and close() only finishes the file.
    The file is started by the first frame: a writer that got no frame writes no file (close() returns None)
    and leaves nothing open.
    """

    def __init__(self, path: str | pathlib.Path, fps: float):
        self.path = pathlib.Path(path)
        self.fps = float(fps)
        suffix = self.path.suffix.lower()
        if suffix not in FORMATS:
            raise VideoError(f"cannot write {str(path)!r}: videos are .mp4 or .gif files")
        problem = video_support()[suffix]
        if problem is not None:
            raise VideoError(f"writing {suffix} needs optional packages: {problem}")
        _check_writable(self.path)
        self.suffix = suffix
        self.frames = 0
        self._stream: _Stream | None = None

    def add(self, frame: np.ndarray) -> None:
        frame = np.asarray(frame, np.uint8)
        if self._stream is None:
            if self.suffix == ".gif":
                self._stream = _GifStream(self.path, self.fps)
            else:
                import imageio.v2 as imageio

                self._stream = imageio.get_writer(
                    self.path,
                    fps=self.fps,
                    codec="libx264",
                    quality=7,
                    macro_block_size=16,
                    ffmpeg_log_level="error",
                )
        self._stream.append_data(frame)
        self.frames += 1

    def close(self) -> pathlib.Path | None:
        """Finish the file and return its path; None when no frame was added (no file is written then)."""
        if self._stream is not None:
            stream, self._stream = self._stream, None
            stream.close()
        return self.path if self.frames else None

    def __enter__(self) -> VideoWriter:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()


def _check_writable(path: pathlib.Path) -> None:
    """VideoError unless a file can be written at `path` (tried, and removed again if it was not there)."""
    if path.is_dir():
        raise VideoError(
            f"cannot write the video to {path}: that is a folder; give a file name ending in .mp4 or .gif"
        )
    if not path.parent.is_dir():
        what = "is not a folder" if path.parent.exists() else "does not exist"
        raise VideoError(f"cannot write {path}: {path.parent} {what}")
    existed = path.exists()
    try:
        with open(path, "ab"):
            pass
    except OSError as error:
        raise VideoError(f"cannot write {path}: {error.strerror or error}") from None
    if not existed:
        path.unlink()


class _Stream(Protocol):
    """What frames are written to: imageio's writer, or _GifStream."""

    def append_data(self, frame: np.ndarray) -> None: ...

    def close(self) -> None: ...


class _GifStream:
    """An animated GIF written frame by frame: each frame gets its own 256-colour palette (fast octree
    quantization) and goes to the file at once. Pillow's own GIF saving keeps every frame until the end:
    gigabytes for a long episode at the viewer's 1280x720."""

    def __init__(self, path: pathlib.Path, fps: float):
        self._file = open(path, "wb")  # noqa: SIM115 - closed by close()
        self._duration_ms = max(20, round(1000 / fps))  # browsers play shorter GIF delays slower, not faster
        self._started = False

    def append_data(self, frame: np.ndarray) -> None:
        from PIL import GifImagePlugin, Image

        image = Image.fromarray(frame).quantize(method=Image.Quantize.FASTOCTREE)
        if not self._started:  # the header with the looping extension, then the frames
            header, _ = GifImagePlugin.getheader(image.copy(), info={"loop": 0})
            self._file.write(b"".join(header))
            self._started = True
        self._file.write(
            b"".join(GifImagePlugin.getdata(image, duration=self._duration_ms, include_color_table=True))
        )
        self._file.flush()  # a run that is killed still leaves every frame so far on disk

    def close(self) -> None:
        try:
            if self._started:
                self._file.write(b";")  # the GIF trailer
        finally:
            self._file.close()
