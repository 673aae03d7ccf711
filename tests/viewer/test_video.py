"""VideoWriter: GIFs streamed to disk frame by frame (memory does not grow with the run), paths checked first."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from sc2env.viewer.video import VideoError, VideoWriter, video_support

pytestmark = pytest.mark.skipif(video_support()[".gif"] is not None, reason="GIFs need Pillow")


def _frame(k: int) -> np.ndarray:
    frame = np.full((72, 128, 3), (20, 30, 20), np.uint8)
    frame[10:30, 5 * k : 5 * k + 10] = (200, 50, 50)  # a red square walking right
    return frame


def test_a_gif_is_written_as_frames_come_and_reads_back_exactly(tmp_path):
    from PIL import Image

    path = tmp_path / "clip.gif"
    writer = VideoWriter(path, fps=5)
    sizes = []
    for k in range(12):
        writer.add(_frame(k))
        sizes.append(path.stat().st_size)
    assert all(b > a for a, b in itertools.pairwise(sizes)), "each frame reaches the file when it is added"
    assert writer.close() == path
    with Image.open(path) as gif:
        assert (gif.n_frames, gif.info["loop"], gif.info["duration"], gif.size) == (12, 0, 200, (128, 72))
        gif.seek(7)
        assert np.array_equal(np.asarray(gif.convert("RGB")), _frame(7))


def test_no_frame_no_file_and_a_bad_path_is_refused_at_once(tmp_path):
    assert VideoWriter(tmp_path / "empty.gif", fps=5).close() is None
    assert not (tmp_path / "empty.gif").exists(), "the write check leaves nothing behind"
    (tmp_path / "folder.gif").mkdir()
    with pytest.raises(VideoError, match="that is a folder"):
        VideoWriter(tmp_path / "folder.gif", fps=5)
    with pytest.raises(VideoError, match="does not exist"):
        VideoWriter(tmp_path / "missing" / "clip.gif", fps=5)
