"""VideoWriter: frames to an .mp4 (imageio with imageio-ffmpeg) or an animated .gif (imageio or Pillow)."""

from __future__ import annotations

import importlib.util
import pathlib

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
    pillow = importlib.util.find_spec("PIL") is not None
    return {".mp4": None if imageio and ffmpeg else INSTALL_HINT,
            ".gif": None if imageio or pillow else INSTALL_HINT}


class VideoWriter:
    """Collects frames and writes them to `path` at `fps` on close(); the format follows the extension.

    The requirements are checked at construction, so a missing package is reported before a long run.
    GIF frames are kept in memory (GIFs are for short clips); MP4 frames are streamed to ffmpeg, which starts
    with the first frame: a writer that got no frame writes no file (close() returns None) and leaves
    nothing open.
    """

    def __init__(self, path: str | pathlib.Path, fps: float):
        self.path = pathlib.Path(path)
        self.fps = float(fps)
        suffix = self.path.suffix.lower()
        if suffix not in FORMATS:
            raise VideoError(f"cannot write {self.path.name}: videos are .mp4 or .gif")
        problem = video_support()[suffix]
        if problem is not None:
            raise VideoError(f"writing {suffix} needs optional packages: {problem}")
        if not self.path.parent.is_dir():
            raise VideoError(f"cannot write {self.path}: the folder {self.path.parent} does not exist")
        self.suffix = suffix
        self.frames = 0
        self._gif: list[np.ndarray] = []
        self._mp4 = None

    def add(self, frame: np.ndarray) -> None:
        frame = np.asarray(frame, np.uint8)
        if self.suffix == ".gif":
            self._gif.append(frame)
        else:
            if self._mp4 is None:
                import imageio.v2 as imageio

                self._mp4 = imageio.get_writer(self.path, fps=self.fps, codec="libx264", quality=7,
                                               macro_block_size=16, ffmpeg_log_level="error")
            self._mp4.append_data(frame)
        self.frames += 1

    def close(self) -> pathlib.Path | None:
        """Finish the file and return its path; None when no frame was added (no file is written then)."""
        if self._mp4 is not None:
            self._mp4.close()
            self._mp4 = None
        elif self._gif:
            _write_gif(self.path, self._gif, self.fps)
            self._gif = []
        return self.path if self.frames else None

    def __enter__(self) -> VideoWriter:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()


def _write_gif(path: pathlib.Path, frames: list[np.ndarray], fps: float) -> None:
    duration_ms = max(20, round(1000 / fps))
    if importlib.util.find_spec("PIL") is not None:
        from PIL import Image

        images = [Image.fromarray(f).quantize(colors=128, method=Image.Quantize.MEDIANCUT) for f in frames]
        images[0].save(path, save_all=True, append_images=images[1:], duration=duration_ms, loop=0,
                       optimize=True)
        return
    import imageio.v2 as imageio

    imageio.mimsave(path, frames, duration=duration_ms / 1000, loop=0)
