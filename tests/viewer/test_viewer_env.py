"""The viewer through the env on the built-in engine: rgb_array frames, human windows, input to the game."""

from __future__ import annotations

import threading
import time

import numpy as np
import pygame
import pytest
from viewer_helpers import click, drag, key

from sc2env.interface import FUNCTIONS, CoordinateTransforms, MapInfo
from sc2env.viewer import EnvRenderer, ViewerClosed, play, style

F = FUNCTIONS
SMALL = {"screen_size": 48, "minimap_size": 48}


def frame_position(env, world):
    """Where the viewer draws a world point: through the interface's transforms and the layout."""
    unwrapped = env.unwrapped
    layout = unwrapped.renderer.viewer.layout
    transforms = CoordinateTransforms(
        unwrapped.interface_format, MapInfo.from_game_info(unwrapped.match.game_info)
    )
    sx, sy = transforms.world_to_screen(unwrapped.last_observation.camera_world).fwd(world)
    width, height = layout.screen_size
    return layout.view.x + sx * layout.view.w / width, layout.view.y + sy * layout.view.h / height


def colour_near(frame, pos, colour, radius=6) -> bool:
    x, y = int(pos[0]), int(pos[1])
    patch = frame[y - radius : y + radius + 1, x - radius : x + radius + 1]
    return bool((np.abs(patch.astype(int) - colour).sum(axis=2) <= 12).any())


def raw_units(env, unit_type):
    units = env.unwrapped.match.controller.observation().observation.raw_data.units
    return [u for u in units if u.unit_type == unit_type]


def test_rgb_array_draws_units_where_the_game_has_them(make_env):
    env = make_env("CollectMineralShards", render_mode="rgb_array", **SMALL)
    env.reset(seed=4)
    frame = env.render()
    assert frame.shape == (720, 1280, 3) and frame.dtype == np.uint8
    marines, shards = raw_units(env, 48), raw_units(env, 1680)
    assert len(marines) == 2 and len(shards) == 20
    for unit, colour in (
        (marines[0], style.ALLIANCE[1]),
        (marines[1], style.ALLIANCE[1]),
        (shards[0], style.SHARD),
        (shards[7], style.SHARD),
    ):
        assert colour_near(frame, frame_position(env, (unit.pos.x, unit.pos.y)), colour)
    # Frames follow the game: after a move the first marine is drawn elsewhere.
    env.step(F.select_army("select"))
    for _ in range(6):
        env.step(F.Move_screen("now", (2, 2)))
    assert not np.array_equal(env.render(), frame)


def test_human_window_drag_selects_the_marines_and_right_click_moves_them(make_env):
    env = make_env("CollectMineralShards", render_mode="human", **SMALL)
    env.reset(seed=5)
    renderer = env.unwrapped.renderer
    assert isinstance(renderer, EnvRenderer) and pygame.display.get_surface() is not None
    renderer.interactive = True
    # A box over the whole arena (world 22..44 x 20..36) on the main view.
    for event in drag(frame_position(env, (21.5, 36.5)), frame_position(env, (44.5, 19.5))):
        pygame.event.post(event)
    (call,) = renderer.wait(0)
    assert call.function == F.select_rect.id
    env.step(call)
    obs = env.unwrapped.last_observation
    assert len(obs.multi_select) == 2 and set(obs.multi_select.unit_type) == {48}
    target = (33.0, 28.0)
    for event in click(frame_position(env, target), button=3):
        pygame.event.post(event)
    (call,) = renderer.wait(0)
    assert call.function == F.Smart_screen.id
    _, _, _, _, info = env.step(call)
    assert not info["invalid_action"], info["invalid_action_reason"]
    before = [np.hypot(m.pos.x - target[0], m.pos.y - target[1]) for m in raw_units(env, 48)]
    for _ in range(4):
        env.step(F.no_op())
    after = [np.hypot(m.pos.x - target[0], m.pos.y - target[1]) for m in raw_units(env, 48)]
    assert all(a < b - 1.0 or a < 1.5 for a, b in zip(after, before)), (before, after)


def test_watching_keys_change_pages_and_speed_and_closing_stops_the_env(make_env):
    env = make_env("MoveToBeacon", render_mode="human", **SMALL)
    env.reset(seed=1)
    viewer = env.unwrapped.renderer.viewer
    for event in (key("tab"), key("tab"), key("="), key("m")):
        pygame.event.post(event)
    env.step(F.no_op())
    assert (
        viewer.page == 2 and viewer.speed == 2.0 and viewer.controls.pending is None
    )  # M: not while watching
    pygame.event.post(pygame.event.Event(pygame.QUIT))
    with pytest.raises(ViewerClosed):
        env.step(F.no_op())
    assert env.unwrapped.renderer.closed


def test_play_sends_the_humans_calls_through_the_env(make_env):
    env = make_env("MoveToBeacon", render_mode="human", max_episode_steps=6, **SMALL)
    unwrapped = env.unwrapped

    def human():  # acts once the window is up and playing, as a person would
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not (unwrapped.renderer and unwrapped.renderer.interactive):
            time.sleep(0.01)
        for event in [key("=")] * 8 + [key("f2"), key("b")]:  # B: nothing to build for a Marine, a complaint
            pygame.event.post(event)

    thread = threading.Thread(target=human)
    thread.start()
    scores = play(env, episodes=1)
    thread.join()
    assert len(scores) == 1
    obs = unwrapped.last_observation
    assert unwrapped.renderer.viewer.speed == float("inf")
    assert obs.single_select.unit_type.tolist() == [48]  # F2 selected the army: the one Marine
    # The episode's end is what the hints show: the complaint used to outrank it for the next whole episode.
    viewer = unwrapped.renderer.viewer
    assert viewer.controls.message == "" and viewer.notice.startswith("Episode 1 over: score")


def test_orders_given_while_paused_are_said_to_wait_and_go_on_resuming(make_env):
    # A click while paused changed nothing on screen, then happened on resuming: it seemed lost.
    env = make_env("MoveToBeacon", render_mode="human", max_episode_steps=40, **SMALL)
    unwrapped = env.unwrapped
    seen = {}

    def until(
        condition,
    ) -> None:  # a loaded machine handles the window's events late: wait for them, not 0.3 s
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not condition():
            time.sleep(0.01)

    def human():
        until(lambda: unwrapped.renderer and unwrapped.renderer.interactive)
        viewer = unwrapped.renderer.viewer
        pygame.event.post(key("space"))
        until(lambda: viewer.paused)
        pygame.event.post(key("f2"))
        until(lambda: viewer.notice)
        time.sleep(0.3)  # long enough for a paused game to take the order, were it not held back
        seen["paused"] = (viewer.notice, unwrapped.last_observation.single_select.unit_type.tolist())
        for event in [key("space")] + [key("=")] * 8:  # resume, at full speed
            pygame.event.post(event)

    thread = threading.Thread(target=human)
    thread.start()
    play(env, episodes=1)
    thread.join()
    notice, selected_while_paused = seen["paused"]
    assert notice == "paused: 1 order(s) go to the game when you press Space" and selected_while_paused == []
    assert unwrapped.last_observation.single_select.unit_type.tolist() == [48]  # F2 went through on resuming


def test_a_human_window_without_a_display_fails_before_any_game_starts(monkeypatch):
    from sc2env.env.env import SC2Env
    from sc2env.viewer import NoDisplayError

    for name in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(NoDisplayError, match="render_mode='rgb_array'"):
        SC2Env("MoveToBeacon", render_mode="human", engine="builtin")
    SC2Env("MoveToBeacon", render_mode="rgb_array", engine="builtin").close()  # needs no display


def test_a_crowd_gets_one_bar_with_a_segment_per_unit_above_it_not_bars_over_bodies(make_env):
    # Each Marine's bar was drawn above it: in a crowd, on its neighbours' bodies and labels, into noise.
    env = make_env("DefeatRoaches", render_mode="rgb_array", **SMALL)
    env.reset(seed=1)
    env.step(F.select_army("select"))
    for _ in range(4):  # crowd the Marines on one point
        env.step(F.Move_screen("now", (12, 24)))
    frame = env.render()
    viewer = env.unwrapped.renderer.viewer
    k = viewer.layout.view.w / env.unwrapped.interface_format.camera_width
    full = np.array(style.health_colour(1.0))  # all are unhurt and selected: every bar is full
    bar = (np.abs(frame.astype(int) - full).sum(axis=2) == 0).astype(int)
    bar[viewer.console.rect.top :] = 0  # the selection panel's tiles have bars of their own
    marines = raw_units(env, 48)
    centres = [frame_position(env, (m.pos.x, m.pos.y)) for m in marines]
    r = marines[0].radius * k
    for x, y in centres:  # no bar pixel on any Marine's body
        assert not bar[int(y - r + 3) : int(y + r - 2), int(x - r + 3) : int(x + r - 2)].any()
    # One segment per Marine: count the runs along the top row of each bar, all above the crowd.
    tops = np.flatnonzero(bar.any(axis=1) & ~np.roll(bar.any(axis=1), 1))
    segments = sum(int((np.diff(np.concatenate([[0], bar[row], [0]])) == 1).sum()) for row in tops)
    assert segments == 9
    assert tops.max() < min(y for _, y in centres) - r


def test_a_selected_mineral_field_is_ringed(make_env):
    env = make_env("CollectMineralsAndGas", render_mode="rgb_array", **SMALL)
    env.reset(seed=1)
    field = raw_units(env, 341)[0]
    transforms = CoordinateTransforms(
        env.unwrapped.interface_format, MapInfo.from_game_info(env.unwrapped.match.game_info)
    )
    point = transforms.world_to_screen(env.unwrapped.last_observation.camera_world).fwd_pixel(
        (field.pos.x, field.pos.y)
    )
    env.step(F.select_point("select", tuple(int(v) for v in point)))
    selected = [u for u in raw_units(env, 341) if u.is_selected]
    assert len(selected) == 1  # that field, or a neighbour sharing the clicked pixel
    (field,) = selected
    frame = env.render()
    k = env.unwrapped.renderer.viewer.layout.view.w / env.unwrapped.interface_format.camera_width
    x, y = frame_position(env, (field.pos.x, field.pos.y))
    half_height = field.radius * k * 0.95 / 2  # a field is drawn as a box, half as tall as it is wide
    assert colour_near(frame, (x, y - half_height - 2), style.SELECTION, radius=1), (
        "the outline above the box"
    )
    assert colour_near(frame, (x, y + half_height + 2), style.SELECTION, radius=1), "and below it"


# gym.make's passive checker warns about any rgb_array render that is not an array; None is the point here.
@pytest.mark.filterwarnings("ignore:.*RGB-array rendering should return a numpy array")
def test_render_after_close_returns_none(make_env):
    env = make_env("MoveToBeacon", render_mode="rgb_array", **SMALL)
    env.reset(seed=0)
    env.close()
    assert env.render() is None  # was an AttributeError from the closed game's missing game_info


def test_render_size_sets_the_frame_and_is_checked_when_the_env_is_made(make_env):
    # EnvRenderer took a size, but nothing passed one: frames and windows were always 1280x720.
    env = make_env("MoveToBeacon", render_mode="rgb_array", render_size=[1024, 576], **SMALL)
    env.reset(seed=0)
    assert env.render().shape == (576, 1024, 3)
    assert env.unwrapped.config.render_size == (1024, 576)
    with pytest.raises(ValueError, match="at least 960×540 pixels, not 640×360"):
        make_env("MoveToBeacon", render_mode="rgb_array", render_size=(640, 360))
    with pytest.raises(TypeError, match=r"render_size takes \(width, height\)"):
        make_env("MoveToBeacon", render_mode="rgb_array", render_size=1024)
    # Checked without a render mode too (a spec made into a rendering env later), and bounded above: a huge
    # size failed at the first frame with pygame's own out-of-memory error.
    with pytest.raises(ValueError, match="at least 960×540 pixels, not 0×0"):
        make_env("MoveToBeacon", render_size=(0, 0))
    with pytest.raises(ValueError, match="at most 7680×4320 pixels, not 40000×40000"):
        make_env("MoveToBeacon", render_size=(40000, 40000))


def test_a_second_human_window_in_one_process_is_refused(make_env):
    # pygame has one window per process: two human envs (a SyncVectorEnv of them, say) drew into one window.
    from sc2env.errors import SC2EnvError

    first = make_env("MoveToBeacon", render_mode="human", **SMALL)
    first.reset(seed=0)
    second = make_env("MoveToBeacon", render_mode="human", **SMALL)
    with pytest.raises(SC2EnvError, match="a viewer window is already open in this process"):
        second.reset(seed=0)
    first.close()
    second.reset(seed=0)  # the window is free again


def test_a_resized_window_scales_the_frame_and_maps_clicks_back():
    # The frame was blitted at its own size: a smaller window cut off the minimap and the function list, and
    # a larger one left it in a corner.
    from sc2env.viewer.window import Window

    window = Window((960, 540))
    try:
        frame = pygame.Surface((960, 540))
        frame.fill((200, 0, 0))
        pygame.draw.rect(frame, (0, 200, 0), (900, 500, 60, 40))  # the bottom-right corner
        pygame.display.set_mode((480, 360), pygame.RESIZABLE)  # what a window manager's resize does
        window.show(frame)
        shown = pygame.display.get_surface()
        # Scaled by 0.5 and centred vertically: the frame spans y 45..315.
        assert shown.get_at((10, 100))[:3] == (200, 0, 0) and shown.get_at((470, 310))[:3] == (0, 200, 0)
        assert shown.get_at((240, 20))[:3] == (0, 0, 0), "the bars around the frame"
        pygame.event.clear()
        pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=(240, 180), button=1))
        clicks = [e for e in window.events() if e.type == pygame.MOUSEBUTTONDOWN]
        assert [e.pos for e in clicks] == [(480, 270)], "the click lands on the frame's centre"
    finally:
        window.close()


def test_a_poor_workers_build_keys_say_what_is_missing_instead_of_stopping_it(make_env):
    # With 50 minerals nothing in the build menu was affordable, so B opened nothing and S stopped the SCV.
    env = make_env("BuildMarines", render_mode="human", **SMALL)
    env.reset(seed=2)
    renderer = env.unwrapped.renderer
    renderer.interactive = True
    ys, xs = np.nonzero(env.unwrapped.last_observation.feature_screen.unit_type == 45)
    env.step(F.select_point("select", (int(xs[0]), int(ys[0]))))
    obs = env.unwrapped.last_observation
    assert obs.single_select.unit_type.tolist() == [45] and obs.player.minerals < 100
    for event in (key("b"), key("s")):
        pygame.event.post(event)
    assert renderer.wait(0) == []
    assert renderer.viewer.controls.message == (
        f"B S: Build_SupplyDepot_screen: not enough resources: it costs "
        f"100 minerals, you have {obs.player.minerals}"
    )


def test_play_shows_its_first_frame_as_play_and_holds_the_last_one(make_env, monkeypatch):
    # The first frame kept watch mode's help and no episode number; the final frame was replaced at once by the
    # next episode's first, so the end was never seen.
    env = make_env("MoveToBeacon", render_mode="human", max_episode_steps=2, **SMALL)
    shown, holds = [], []
    original_redraw, original_wait = EnvRenderer.redraw, EnvRenderer.wait

    def redraw(self):
        shown.append((self.viewer.episode, self.viewer.controls.help, self.viewer.notice))
        original_redraw(self)

    def wait(self, seconds):
        holds.append(seconds)
        return original_wait(self, seconds)

    monkeypatch.setattr(EnvRenderer, "redraw", redraw)
    monkeypatch.setattr(EnvRenderer, "wait", wait)
    assert play(env, episodes=1) != []
    from sc2env.viewer.controls import HELP
    from sc2env.viewer.play import _END_HOLD_S

    assert (1, HELP, "") in shown  # redrawn for play before the first step
    assert shown[-1][2].startswith("Episode 1 over: score") and holds[-1] == _END_HOLD_S
