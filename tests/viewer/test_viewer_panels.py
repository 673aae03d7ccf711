"""What the viewer draws, asserted on its frames: the selection panel, order lines and markers, readable crowds,
the functions list and the minimap (games on the built-in engine, rendered headless as rgb_array)."""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace

import numpy as np
import pygame
import pytest
from viewer_helpers import click, game_info

from sc2env.interface import FUNCTIONS, CoordinateTransforms, InterfaceFormat, MapInfo
from sc2env.viewer import Controls, Layout, style
from sc2env.viewer.draw_console import Button, Console
from sc2env.viewer.draw_panels import draw_functions
from sc2env.viewer.layout import playable_region
from sc2env.viewer.markers import COLOURS, MARKER_LOOPS
from sc2env.viewer.scene import OrderKind, Scene, Units
from sc2env.viewer.stacks import OVERLAP, TOUCH, group_labels

F = FUNCTIONS
SMALL = {"screen_size": 48, "minimap_size": 48}
MARINE, ROACH = 48, 110


def viewer_of(env):
    return env.unwrapped.renderer.viewer


def screen_pixel(env, unit_type):
    """A feature-screen pixel showing a unit of `unit_type`."""
    ys, xs = np.nonzero(env.unwrapped.last_observation.feature_screen.unit_type == unit_type)
    return int(xs[len(xs) // 2]), int(ys[len(ys) // 2])


def ink_height(frame: np.ndarray, rect: pygame.Rect, colour) -> int:
    """How many pixel rows of `rect` hold text of `colour` (anti-aliased text: its brightest pixels)."""
    patch = frame[rect.top : rect.bottom, rect.left : rect.right].astype(int)
    rows = np.flatnonzero((np.abs(patch - colour).sum(axis=2) <= 60).any(axis=1))
    return int(rows.max() - rows.min() + 1) if len(rows) else 0


# --- the selection panel -------------------------------------------------------------------------------------


def test_the_selection_panel_fills_the_empty_third_and_shows_what_is_selected(make_env):
    # The view left its bottom third black (outside the map) where the game shows the selection.
    env = make_env("DefeatRoaches", render_mode="rgb_array", **SMALL)
    env.reset(seed=1)
    env.step(F.select_point("select", (0, 47)))  # nothing there: the army the map selects is let go
    before = env.render()
    viewer = viewer_of(env)
    view, panel = viewer.layout.view, viewer.console.rect
    assert panel.bottom == view.bottom and panel.w == view.w and panel.h >= view.h * 0.2
    # It covers no playable ground: its top is at or below the playable area's lower edge.
    playable_bottom = viewer.painter.world_to_view(viewer.scene.camera).fwd(
        (0, viewer.painter.map_info.playable_area[1])
    )[1]
    assert panel.top >= playable_bottom - 1
    assert viewer.console.buttons == ()  # nothing selected

    env.step(F.select_army("select"))
    after = env.render()
    inside = (slice(panel.top + 2, panel.bottom), slice(panel.left, panel.right))
    changed = np.abs(after[inside].astype(int) - before[inside]).sum(axis=2) > 30
    assert changed.mean() > 0.05, "the panel shows the nine selected Marines"
    tiles = [b for b in viewer_of(env).console.buttons if b.function == F.select_unit.id]
    assert [b.index for b in tiles] == list(range(9)) and all(panel.contains(b.rect) for b in tiles)
    header = pygame.Rect(panel.x, panel.y, panel.w // 2, 36)
    assert ink_height(after, header, style.SELECTION) >= 8, '"Selection:" in the header'
    assert ink_height(before, header, style.SELECTION) == 0
    # Each tile has a health bar, full: the Marines are unhurt.
    full = np.array(style.health_colour(1.0))
    for tile in tiles:
        patch = after[tile.rect.top : tile.rect.bottom, tile.rect.left : tile.rect.right].astype(int)
        assert (np.abs(patch - full).sum(axis=2) == 0).sum() >= tile.rect.w // 2


def test_the_selection_header_counts_units_by_type():
    from sc2env.viewer.draw_console import summary

    assert summary(np.array([MARINE] * 9)) == "9 Marine"
    assert summary(np.array([MARINE, 51, MARINE, 51, MARINE])) == "3 Marine, 2 Marauder"
    assert summary(np.array([73, 73])) == "2 Zealot"  # a real-game type the engine lacks: named by its id


def test_control_groups_are_listed_and_a_click_recalls_one(make_env):
    env = make_env("CollectMineralShards", render_mode="rgb_array", **SMALL)
    env.reset(seed=3)
    env.step(F.select_point("select", screen_pixel(env, MARINE)))
    env.step(F.select_control_group("set", 4))
    env.step(F.select_army("select"))
    env.step(F.select_control_group("set", 7))
    env.render()
    viewer = viewer_of(env)
    groups = [b for b in viewer.console.buttons if b.function == F.select_control_group.id]
    assert [b.index for b in groups] == [4, 7]
    assert env.unwrapped.last_observation.control_groups[7].tolist() == [MARINE, 2]
    # Clicking group 4 recalls it (in play); the game then has one Marine selected.
    viewer.controls.interactive = True
    (call,) = [c for e in click(groups[0].rect.center) for c in viewer.handle(e)]
    assert call == F.select_control_group("recall", 4)
    env.step(call)
    assert len(env.unwrapped.last_observation.single_select) == 1


def test_panel_clicks_select_a_unit_and_take_the_games_modifiers():
    controls = Controls(Layout.build(InterfaceFormat(screen_size=64, minimap_size=64)), interactive=True)
    view = controls.layout.view
    panel = pygame.Rect(view.x, view.bottom - 150, view.w, 150)
    tile = pygame.Rect(panel.x + 10, panel.y + 40, 40, 44)
    console = Console(
        panel, (Button(tile, F.select_unit.id, 3), Button(tile.move(200, 0), F.build_queue.id, 1))
    )

    def press(pos, mod=0, button=1):
        event = pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=pos, button=button, mod=mod)
        return controls.handle(event, [], console=console)

    assert press(tile.center) == [F.select_unit("select", 3)]
    assert press(tile.center, pygame.KMOD_SHIFT) == [F.select_unit("deselect", 3)]
    assert press(tile.center, pygame.KMOD_CTRL) == [F.select_unit("select_all_type", 3)]
    assert press(tile.center, pygame.KMOD_CTRL | pygame.KMOD_SHIFT) == [F.select_unit("deselect_all_type", 3)]
    assert press(tile.move(200, 0).center) == [F.build_queue(1)]
    # Elsewhere on the panel a click is the panel's: no select_point on the ground it covers.
    assert press((panel.right - 20, panel.bottom - 10)) == [] and controls.drag_start is None
    assert press((panel.right - 20, panel.bottom - 10), button=3) == []
    assert press((panel.x + 10, panel.y - 20)) == [] and controls.drag_start is not None  # the view: a drag


def test_a_single_selected_unit_shows_its_vitals_and_a_structure_its_queue(make_env):
    env = make_env("BuildMarines", render_mode="rgb_array", **SMALL)
    env.reset(seed=2)
    env.step(F.select_point("select", screen_pixel(env, 18)))  # the Command Center
    env.step(F.Train_SCV_quick("queued"))  # the 50 minerals of the start pay for one
    frame = env.render()
    viewer = viewer_of(env)
    queue = [b for b in viewer.console.buttons if b.function == F.build_queue.id]
    assert [b.index for b in queue] == [0] and len(env.unwrapped.last_observation.build_queue) == 1
    # The card's health bar: full, the Command Center is unhurt; the first SCV in training has progress.
    panel = viewer.console.rect
    patch = frame[panel.top : panel.bottom, panel.left : queue[0].rect.left].astype(int)
    assert (np.abs(patch - style.health_colour(1.0)).sum(axis=2) == 0).sum() >= 80
    first = queue[0].rect
    tile = frame[first.top : first.bottom, first.left : first.right].astype(int)
    assert (np.abs(tile - style.PROGRESS).sum(axis=2) == 0).any(), "the first SCV's training progress"


# --- order lines and markers ---------------------------------------------------------------------------------


def test_order_lines_run_from_selected_moving_units_to_their_target(make_env):
    env = make_env("DefeatRoaches", render_mode="rgb_array", **SMALL)
    env.reset(seed=1)
    env.step(F.select_army("select"))
    target = (40, 8)
    env.step(F.Move_screen("now", target))
    frame = env.render()
    viewer = viewer_of(env)
    scene = viewer.scene
    assert len(scene.paths) == 9 and all(p.legs[0][2] is OrderKind.MOVE for p in scene.paths)
    world = viewer.painter.transforms.world_to_screen(scene.camera).back(np.add(target, 0.5))
    for path in scene.paths:
        assert np.allclose(path.legs[0][:2], world, atol=0.5)
    # Drawn: halfway along each line the frame is greener than the same scene drawn without the orders.
    plain = viewer.draw(dataclasses.replace(scene, paths=()))
    plain = pygame.surfarray.array3d(plain).swapaxes(0, 1)
    to_view = viewer.painter.world_to_view(scene.camera)
    greener = 0
    for path in scene.paths:
        x, y = to_view.fwd(np.add(path.start, path.legs[0][:2]) / 2)
        greener += int(frame[int(y), int(x), 1]) > int(plain[int(y), int(x), 1]) + 20
    assert greener >= 7  # a line may pass under another Marine
    # Unselected units show no orders.
    env.step(F.select_point("select", screen_pixel(env, ROACH)))
    env.render()
    assert viewer.scene.paths == ()


def test_a_move_marker_appears_where_the_move_was_ordered_and_fades(make_env):
    env = make_env("DefeatRoaches", render_mode="rgb_array", **SMALL)
    env.reset(seed=1)
    env.step(F.select_army("select"))
    env.render()
    env.step(F.Move_minimap("now", (25, 26)))  # a minimap command: its marker is on both the view and minimap
    frame = env.render()
    viewer = viewer_of(env)
    markers = viewer.markers.live(viewer.scene.game_loop)
    assert [m.kind for m, _ in markers] == [OrderKind.MOVE]
    world = viewer.painter.transforms.world_to_minimap.back((25.5, 26.5))
    marker = markers[0][0]
    assert np.allclose(marker.point, world, atol=0.75)  # the game's raw echo: the point the move went to
    x, y = viewer.painter.world_to_view(viewer.scene.camera).fwd(marker.point)
    ring = frame[int(y) - 18 : int(y) + 19, int(x) - 18 : int(x) + 19].astype(int)
    assert (np.abs(ring - COLOURS[OrderKind.MOVE]).sum(axis=2) <= 40).sum() >= 20
    mx, my = viewer.painter.world_to_minimap_frame.fwd(marker.point)
    dot = frame[int(my) - 8 : int(my) + 9, int(mx) - 8 : int(mx) + 9].astype(int)
    assert (np.abs(dot - COLOURS[OrderKind.MOVE]).sum(axis=2) <= 60).any()
    steps = -(-MARKER_LOOPS // env.unwrapped.config.step_mul)
    for _ in range(steps):
        env.step(F.no_op())
        env.render()
    assert viewer.markers.live(viewer.scene.game_loop) == []


def test_selection_clicks_and_boxes_are_marked_too(make_env):
    env = make_env("CollectMineralShards", render_mode="rgb_array", **SMALL)
    env.reset(seed=1)
    env.step(F.select_rect("select", (2, 2), (30, 20)))
    env.render()
    viewer = viewer_of(env)
    ((marker, age),) = viewer.markers.live(viewer.scene.game_loop)
    to_screen = viewer.painter.transforms.world_to_screen(viewer.scene.camera)
    assert marker.kind is OrderKind.SELECT and age == 0
    assert np.allclose(to_screen.fwd(marker.point), (2.5, 2.5)) and np.allclose(
        to_screen.fwd(marker.corner), (30.5, 20.5)
    )
    env.reset(seed=1)  # a new episode forgets the last one's markers
    env.render()
    assert viewer.markers.live(viewer.scene.game_loop) == []


# --- crowds --------------------------------------------------------------------------------------------------


def test_units_group_by_overlap_for_labels_and_by_touch_for_bars():
    r = np.full(5, 10.0)
    x = np.array([0.0, 5.0, 100.0, 120.5, 300.0])  # two overlapping, two touching, one alone
    y = np.zeros(5)
    kind = np.array([1, 1, 1, 1, 1])
    assert group_labels(x, y, r, kind, OVERLAP).tolist() == [0, 0, 1, 2, 3]
    assert group_labels(x, y, r, kind, TOUCH).tolist() == [0, 0, 1, 1, 2]
    x[3] = 125.0  # 5 px apart: no longer touching, but a bar above one would still reach the other
    assert group_labels(x, y, r, kind, TOUCH).tolist() == [0, 0, 1, 2, 3]
    assert group_labels(x, y, r, kind, TOUCH, 10.0).tolist() == [0, 0, 1, 1, 2]
    assert group_labels(x, y, r, np.array([1, 2, 1, 1, 1]), OVERLAP).tolist() == [
        0,
        1,
        2,
        3,
        4,
    ]  # kinds apart
    chain = np.arange(6) * 15.0  # each overlaps the next: one pile through the chain
    assert group_labels(chain, np.zeros(6), np.full(6, 10.0), np.ones(6), OVERLAP).tolist() == [0] * 6


def test_a_pile_of_units_gets_one_label_and_a_count_badge():
    from sc2env.viewer.draw_units import draw_units

    fmt = InterfaceFormat(screen_size=64, minimap_size=64)
    layout = Layout.build(fmt)
    k = layout.view.w / fmt.camera_width
    pile = [(32.0 + 0.05 * n, 28.0, 0.375, MARINE, 1, 1.0, np.nan, True, 1.0, False) for n in range(9)]
    scene = Scene(SimpleNamespace(), Units.from_columns(pile), (32.0, 28.0))
    surface = pygame.Surface(layout.size)
    draw_units(surface, layout.view, scene, k)
    frame = pygame.surfarray.array3d(surface).swapaxes(0, 1).astype(int)
    badge = np.abs(frame - style.TEXT).sum(axis=2) == 0
    ys, xs = np.nonzero(badge)
    assert len(xs) >= 30 and xs.min() > layout.view.centerx  # one pill, to the pile's top-right
    assert ys.max() - ys.min() < 20 and xs.max() - xs.min() < 25
    segments = np.abs(frame - style.health_colour(1.0)).sum(axis=2) == 0
    top_row = segments[np.flatnonzero(segments.any(axis=1))[0]]
    assert (np.diff(np.concatenate([[0], top_row.astype(int), [0]])) == 1).sum() == 9


# --- the functions list --------------------------------------------------------------------------------------


def test_seventeen_functions_are_listed_in_two_columns_at_a_readable_size(make_env):
    # A Marine's 17 functions were one column of 11 px rows, letters 8 px tall, beside an empty half-panel.
    env = make_env("DefeatRoaches", render_mode="rgb_array", **SMALL)
    env.reset(seed=1)
    env.step(F.select_army("select"))
    frame = env.render()
    rows = viewer_of(env).function_rows
    assert len(rows) == 17 == len(env.unwrapped.last_observation.available_actions)
    assert len({rect.x for rect, _ in rows}) == 2
    # Names like Move_screen span a capital's height and the underscore below: 10 px at font size 16, 11 at 18;
    # the old size 11 drew them 6 px tall.
    capitals = [rect for rect, fid in rows if F[fid].name[0].isupper()]
    heights = [ink_height(frame, rect, style.TEXT) for rect in capitals]
    assert len(capitals) >= 8 and min(heights) >= 10, heights


def test_short_lists_get_large_text_and_long_ones_keep_every_name_whole():
    pygame.font.init()
    panel = Layout.build(InterfaceFormat(screen_size=64, minimap_size=64)).functions
    surface = pygame.Surface((1280, 720))

    def draw(ids):
        scene = SimpleNamespace(
            observation=SimpleNamespace(available_actions=np.array(ids)), raw_functions=None
        )
        surface.fill((0, 0, 0))
        rows = draw_functions(surface, panel, scene)
        frame = pygame.surfarray.array3d(surface).swapaxes(0, 1)
        return rows, min(ink_height(frame, rect, style.TEXT) for rect, _ in rows)

    rows, height = draw([F.Stop_quick.id, F.Move_screen.id, F.Attack_screen.id, F.HoldPosition_quick.id])
    assert len({r.x for r, _ in rows}) == 1 and height >= 11
    many = sorted(f.id for f in F if f.name.startswith(("Build_", "Train_")))[:30]
    rows, height = draw(many)
    assert [fid for _, fid in rows] == many and height >= 7  # all thirty, in columns


# --- the minimap ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("size", "playable"),
    [((64, 64), (22, 20, 44, 36)), ((64, 64), (10, 12, 54, 44)), ((96, 64), (0, 0, 96, 64))],
)
def test_the_minimap_shows_the_playable_area_filling_its_box(size, playable):
    fmt = InterfaceFormat(screen_size=64, minimap_size=64)
    info = MapInfo.from_game_info(game_info(size, playable))
    transforms = CoordinateTransforms(fmt, info)
    layout = Layout.build(fmt, minimap_region=playable_region(transforms, fmt.action_minimap_size))
    box, rect = layout.minimap_box, layout.minimap
    assert box.contains(rect) and (rect.w >= box.w - 2 or rect.h >= box.h - 2)  # one side fills the box
    width, height = playable[2] - playable[0], playable[3] - playable[1]
    assert abs(rect.w / rect.h - width / height) < 0.02  # aspect kept
    # Clicks map to the minimap pixels of the world points under them, both ways.
    for world in [
        (playable[0] + 1, playable[3] - 1),
        ((playable[0] + playable[2]) / 2, (playable[1] + playable[3]) / 2),
    ]:
        pixel = tuple(int(v) for v in transforms.world_to_minimap.fwd_pixel(world))
        assert layout.to_minimap(layout.from_minimap(pixel)) == pixel
        assert rect.collidepoint(layout.from_minimap(pixel))
    corner = layout.to_minimap((rect.right + 50, rect.bottom + 50), clamp=True)
    assert corner == tuple(
        int(v) for v in transforms.world_to_minimap.fwd_pixel((playable[2] - 0.01, playable[1] + 0.01))
    )


def test_the_minimap_panel_is_mostly_map_and_its_clicks_move_units_there(make_env):
    env = make_env("CollectMineralShards", render_mode="rgb_array", **SMALL)
    env.reset(seed=2)
    frame = env.render()
    viewer = viewer_of(env)
    box = viewer.layout.minimap_box
    patch = frame[box.top : box.bottom, box.left : box.right].astype(int)
    background = [style.PANEL, style.OUTSIDE, style.BORDER]
    empty = np.zeros(patch.shape[:2], bool)
    for colour in background:
        empty |= np.abs(patch - colour).sum(axis=2) <= 6
    assert 1 - empty.mean() >= 0.6, "the map covers most of the box (a tenth of it before)"
    # A right-click on the minimap sends the selected Marines to the world point drawn there.
    env.step(F.select_army("select"))
    env.render()
    target = (36.0, 24.0)
    viewer.controls.interactive = True
    pos = viewer.painter.world_to_minimap_frame.fwd(target)
    (call,) = [c for e in click(pos, button=3) for c in viewer.handle(e)]
    assert call.function == F.Smart_minimap.id
    env.step(call)
    units = env.unwrapped.match.controller.observation().observation.raw_data.units
    orders = [u.orders[0].target_world_space_pos for u in units if u.unit_type == MARINE]
    assert len(orders) == 2 and all(np.hypot(p.x - target[0], p.y - target[1]) < 1.0 for p in orders)
