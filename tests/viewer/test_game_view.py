"""render_view="game": rgb_array frames of the camera's area alone, at a chosen size, and RecordVideo."""

from __future__ import annotations

import numpy as np
import pytest

from sc2env.interface import FUNCTIONS, CoordinateTransforms, MapInfo
from sc2env.viewer import style

SMALL = {"screen_size": 48, "minimap_size": 48}


def game_view_position(env, world):
    """Where the game view draws a world point: through the interface's transforms and its layout."""
    unwrapped = env.unwrapped
    layout = unwrapped.renderer.game_view.layout
    transforms = CoordinateTransforms(
        unwrapped.interface_format, MapInfo.from_game_info(unwrapped.match.game_info)
    )
    sx, sy = transforms.world_to_screen(unwrapped.last_observation.camera_world).fwd(world)
    width, height = layout.screen_size
    return layout.view.x + sx * layout.view.w / width, layout.view.y + sy * layout.view.h / height


def colour_near(frame, pos, colour, radius=4) -> bool:
    x, y = int(pos[0]), int(pos[1])
    patch = frame[max(y - radius, 0) : y + radius + 1, max(x - radius, 0) : x + radius + 1]
    return bool((np.abs(patch.astype(int) - colour).sum(axis=2) <= 12).any())


def own_units(env, unit_type):
    units = env.unwrapped.match.controller.observation().observation.raw_data.units
    return [u for u in units if u.unit_type == unit_type]


def test_game_view_frames_have_the_chosen_size_and_show_the_units(make_env):
    env = make_env(
        "CollectMineralShards", render_mode="rgb_array", render_view="game", render_size=(240, 160), **SMALL
    )
    env.reset(seed=4)
    frame = env.render()
    assert frame.shape == (160, 240, 3) and frame.dtype == np.uint8
    layout = env.unwrapped.renderer.game_view.layout
    assert layout.view.size == (160, 160) and layout.view.center == (120, 80)  # the square screen, centred
    assert (frame[:, :30] == style.BACKGROUND).all()  # the margin beside it
    marines, shards = own_units(env, 48), own_units(env, 1680)
    assert len(marines) == 2 and len(shards) == 20
    for unit, colour in ((marines[0], style.ALLIANCE[1]), (shards[3], style.SHARD)):
        assert colour_near(frame, game_view_position(env, (unit.pos.x, unit.pos.y)), colour)
    # No panels: the whole viewer's function list and status bar are not drawn.
    viewer_frame_pixels = 1280 * 720
    assert frame.size < viewer_frame_pixels
    # Frames follow the game.
    env.step(FUNCTIONS.select_army("select"))
    for _ in range(6):
        env.step(FUNCTIONS.Move_screen("now", (2, 2)))
    moved = env.render()
    assert not np.array_equal(moved, frame)
    (marine, _) = own_units(env, 48)
    assert colour_near(moved, game_view_position(env, (marine.pos.x, marine.pos.y)), style.ALLIANCE[1])


def test_game_view_default_size_keeps_the_screen_aspect(make_env):
    env = make_env("MoveToBeacon", render_mode="rgb_array", render_view="game", screen_size=(64, 48))
    env.reset(seed=0)
    assert env.render().shape == (384, 512, 3)
    assert env.unwrapped.renderer.viewer_built is False  # the dashboard is never drawn for these frames


def test_render_view_is_checked_when_the_env_is_made(make_env):
    with pytest.raises(ValueError, match=r"render_view must be one of \('viewer', 'game'\), not 'map'"):
        make_env("MoveToBeacon", render_mode="rgb_array", render_view="map")
    with pytest.raises(ValueError, match='render_view="game" draws rgb_array frames'):
        make_env("MoveToBeacon", render_mode="human", render_view="game")
    with pytest.raises(ValueError, match="the game view needs at least 16×16 pixels, not 8×8"):
        make_env("MoveToBeacon", render_mode="rgb_array", render_view="game", render_size=(8, 8))
    # The dashboard's own minimum names the way to smaller frames.
    with pytest.raises(ValueError, match='pass render_view="game"'):
        make_env("MoveToBeacon", render_mode="rgb_array", render_size=(320, 240))


def test_record_video_writes_an_mp4_of_the_game_view(make_env, tmp_path):
    pytest.importorskip(
        "moviepy", reason="RecordVideo writes through moviepy: pip install 'sc2env-rl[video]'"
    )
    import gymnasium as gym

    env = make_env(
        "MoveToBeacon", render_mode="rgb_array", render_view="game", render_size=(128, 128), **SMALL
    )
    recorder = gym.wrappers.RecordVideo(env, str(tmp_path), episode_trigger=lambda episode: True)
    recorder.reset(seed=0)
    for _ in range(5):
        recorder.step(FUNCTIONS.select_army("select"))
    assert len(recorder.recorded_frames) == 6  # the reset's frame and 5 steps'
    recorder.close()
    (video,) = tmp_path.glob("*.mp4")
    import imageio.v3 as iio

    frames = iio.imread(video)
    # moviepy's encoding at 2.8 frames a second may drop the last frame's fraction of a second.
    assert frames.shape[0] >= 5 and frames.shape[1:] == (128, 128, 3)
