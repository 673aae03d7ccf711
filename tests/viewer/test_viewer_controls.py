"""Controls and hotkeys: synthetic mouse and keyboard events become the game's function calls."""

from __future__ import annotations

import dataclasses

import numpy as np
import pygame
import pytest
from viewer_helpers import click, drag, key

from sc2env.interface import FUNCTIONS, InterfaceFormat
from sc2env.viewer import Controls, Layout, ViewerCommand
from sc2env.viewer.hotkeys import HOTKEYS, Situation, find_hotkey, key_label

F = FUNCTIONS
FMT = InterfaceFormat(screen_size=64, minimap_size=64)
UNITS = [
    F.no_op.id,
    F.select_point.id,
    F.select_rect.id,
    F.Move_screen.id,
    F.Move_minimap.id,
    F.Attack_screen.id,
    F.Attack_minimap.id,
    F.Stop_quick.id,
    F.HoldPosition_quick.id,
    F.Patrol_screen.id,
    F.Smart_screen.id,
]
SCV = UNITS + [F.Build_SupplyDepot_screen.id, F.Build_Barracks_screen.id, F.Harvest_Gather_screen.id]


@pytest.fixture
def controls():
    return Controls(Layout.build(FMT), interactive=True)


def feed(controls, events, available=UNITS, **kwargs):
    out = []
    for event in events:
        out += controls.handle(event, available, **kwargs)
    return out


def test_layout_maps_view_and_minimap_pixels_both_ways():
    layout = Layout.build(FMT)
    for point in [(0, 0), (63, 63), (10, 40), (31, 7)]:
        assert layout.to_screen(layout.from_screen(point)) == point
        assert layout.to_minimap(layout.from_minimap(point)) == point
    assert layout.to_screen((layout.view.right + 5, layout.view.y)) is None
    assert layout.to_minimap(layout.view.center) is None
    assert layout.view.w == layout.view.h  # a square feature screen keeps its aspect
    wide = Layout.build(InterfaceFormat(screen_size=(84, 64), minimap_size=64))
    assert abs(wide.view.w / wide.view.h - 84 / 64) < 0.02
    with pytest.raises(ValueError, match="at least 960×540 pixels, not 800×600"):
        Layout.build(FMT, (800, 600))  # the status bar and the function names would overlap
    assert Layout.build(FMT, (960, 540)).size == (960, 540)


def test_click_selects_and_modifiers_choose_the_select_mode(controls):
    layout = controls.layout
    pos = layout.from_screen((20, 30))
    assert feed(controls, click(pos)) == [F.select_point("select", (20, 30))]
    pygame.key.set_mods(pygame.KMOD_SHIFT)
    assert feed(controls, click(pos)) == [F.select_point("toggle", (20, 30))]
    pygame.key.set_mods(pygame.KMOD_CTRL)
    assert feed(controls, click(pos)) == [F.select_point("select_all_type", (20, 30))]


def test_drag_is_a_rectangle_selection_and_shift_adds(controls):
    layout = controls.layout
    start, end = layout.from_screen((5, 6)), layout.from_screen((40, 33))
    assert feed(controls, drag(start, end)) == [F.select_rect("select", (5, 6), (40, 33))]
    pygame.key.set_mods(pygame.KMOD_SHIFT)
    # Dragging out of the view clamps to its edge.
    assert feed(controls, drag(start, (layout.view.right + 50, layout.view.bottom + 50))) == [
        F.select_rect("add", (5, 6), (63, 63))
    ]


def test_right_click_is_smart_on_the_view_and_the_minimap(controls):
    layout = controls.layout
    assert feed(controls, click(layout.from_screen((12, 50)), button=3)) == [F.Smart_screen("now", (12, 50))]
    assert feed(controls, click(layout.from_minimap((33, 25)), button=3)) == [
        F.Smart_minimap("now", (33, 25))
    ]


def test_ability_hotkey_waits_for_a_target_click(controls):
    layout = controls.layout
    assert feed(controls, [key("m")]) == []
    assert controls.pending is F.Move_screen and "Move_screen" in controls.message
    pygame.key.set_mods(pygame.KMOD_SHIFT)
    assert feed(controls, click(layout.from_screen((9, 9)))) == [F.Move_screen("queued", (9, 9))]
    assert controls.pending is None
    pygame.key.set_mods(0)
    feed(controls, [key("a")])
    assert feed(controls, click(layout.from_minimap((40, 12)))) == [F.Attack_minimap("now", (40, 12))]
    feed(controls, [key("p")])
    assert feed(controls, click(layout.from_screen((1, 2)), button=3)) == []  # right-click cancels
    assert controls.pending is None


def test_quick_hotkeys_act_at_once_and_keys_follow_the_selection(controls):
    assert feed(controls, [key("s")]) == [F.Stop_quick("now")]
    assert feed(controls, [key("h")]) == [F.HoldPosition_quick("now")]
    centre = [F.no_op.id, F.select_point.id, F.Train_SCV_quick.id, F.Rally_Workers_screen.id]
    assert feed(controls, [key("s")], centre) == [F.Train_SCV_quick("now")]
    barracks = [F.no_op.id, F.Train_Marine_quick.id]
    assert feed(controls, [key("a")], barracks) == [F.Train_Marine_quick("now")]
    assert feed(controls, [key("g")], barracks) == [] and "nothing" in controls.message


def test_build_menu_then_building_then_placement(controls):
    layout = controls.layout
    assert feed(controls, [key("b")], SCV) == [] and controls.menu == "build"
    assert feed(controls, [key("s")], SCV) == [] and controls.pending is F.Build_SupplyDepot_screen
    assert feed(controls, click(layout.from_screen((44, 20))), SCV) == [
        F.Build_SupplyDepot_screen("now", (44, 20))
    ]
    feed(controls, [key("b"), key("b")], SCV)
    assert controls.pending is F.Build_Barracks_screen
    feed(controls, [key("escape")], SCV)
    assert controls.pending is None and controls.menu is None
    assert feed(controls, [key("b")], UNITS) == [] and controls.menu is None  # a Marine has no build menu


def test_a_workers_build_menu_opens_when_nothing_is_affordable_and_says_what_is_missing(controls):
    # B opened nothing when no building was affordable, so B S stopped the mining SCV (S on the main card).
    poor = Situation(
        minerals=45, vespene=0, free_supply=3, selected=frozenset({45}), owned=frozenset({18, 45})
    )
    mining = [*UNITS, F.Harvest_Gather_screen.id]
    assert feed(controls, [key("b"), key("s")], mining, situation=poor) == []
    assert (
        controls.message
        == ("B S: Build_SupplyDepot_screen: not enough resources: it costs 100 minerals, you have 45")
        and controls.menu is None
    )
    rich = dataclasses.replace(poor, minerals=400)
    assert feed(controls, [key("b"), key("b")], mining, situation=rich) == []
    assert controls.message == "B B: Build_Barracks_screen: it needs a finished SupplyDepot"
    feed(controls, [key("b"), key("r")], mining, situation=dataclasses.replace(poor, minerals=60))
    assert controls.message.endswith("it costs 75 minerals, you have 60")
    # A Command Center at full supply: S trains no SCV, and says why.
    centre = Situation(minerals=200, free_supply=0, selected=frozenset({18}), owned=frozenset({18}))
    assert feed(controls, [key("s")], [F.no_op.id], situation=centre) == []
    assert controls.message == (
        "S: Train_SCV_quick: not enough supply: it takes 1, 0 free (build a Supply Depot)"
    )
    assert feed(controls, [key("b")], UNITS, situation=Situation(selected=frozenset())) == []
    assert controls.message == "B: nothing is selected" and controls.menu is None
    # Pausing to read it, turning a layer page or changing speed leaves it up; the next real input clears it.
    for view_key in ("space", "tab", "+", "-"):
        feed(controls, [key(view_key)], UNITS)
        assert controls.message == "B: nothing is selected", view_key
    feed(controls, [key("escape")], UNITS)
    assert controls.message == ""


def test_the_pointer_is_tracked_in_frame_pixels(controls):
    # The target crosshair was drawn at pygame.mouse.get_pos(), window pixels: off in a resized window.
    controls.handle(
        pygame.event.Event(pygame.MOUSEMOTION, pos=(300, 200), rel=(0, 0), buttons=(0, 0, 0)), UNITS
    )
    assert controls.pointer == (300, 200)
    feed(controls, click((310, 220), button=3))
    assert controls.pointer == (310, 220)


def test_control_groups_idle_workers_army_and_camera_keys(controls):
    assert feed(controls, [key("3")]) == [F.select_control_group("recall", 3)]
    assert feed(controls, [key("3", pygame.KMOD_CTRL)]) == [F.select_control_group("set", 3)]
    assert feed(controls, [key("0", pygame.KMOD_SHIFT)]) == [F.select_control_group("append", 0)]
    assert feed(controls, [key("f1")]) == [F.select_idle_worker("select")]
    assert feed(controls, [key("f2")]) == [F.select_army("select")]
    assert feed(controls, [key("left")], camera_minimap=(33, 39)) == [F.move_camera((29, 39))]
    assert feed(controls, [key("down")], camera_minimap=(33, 62)) == [F.move_camera((33, 63))]
    minimap = controls.layout.from_minimap((10, 50))
    assert feed(controls, click(minimap)) == [F.move_camera((10, 50))]


def test_arrow_presses_add_up_until_the_game_moves_the_camera(controls):
    assert feed(controls, [key("right"), key("right")], camera_minimap=(33, 39)) == [
        F.move_camera((37, 39)),
        F.move_camera((41, 39)),
    ]
    # The game has moved the camera elsewhere (a minimap click, say): pan from where it is now.
    assert feed(controls, [key("up")], camera_minimap=(10, 10)) == [F.move_camera((10, 6))]


def test_held_arrow_keys_queue_one_camera_move_per_step(controls):
    # Each auto-repeated press was queued as its own step: the camera kept moving seconds after the key was let
    # go, and later clicks waited behind it.
    from collections import deque

    from sc2env.viewer.play import queue_calls

    calls = deque()
    queue_calls(calls, feed(controls, [key("right")] * 5, camera_minimap=(33, 39)))
    queue_calls(calls, feed(controls, [key("right")] * 3, camera_minimap=(33, 39)))
    assert list(calls) == [F.move_camera((63, 39))], "one move, to where all eight presses lead"
    queue_calls(calls, [F.select_army("select"), F.move_camera((5, 5)), F.move_camera((6, 6))])
    assert list(calls) == [F.move_camera((63, 39)), F.select_army("select"), F.move_camera((6, 6))]


def test_a_minimap_ability_waiting_for_its_target_asks_for_the_minimap(controls):
    controls.pending = F.Attack_minimap  # as picked from the function list
    assert feed(controls, click(controls.layout.view.center)) == []
    assert controls.message == "Attack_minimap: click a target on the minimap"  # it said "the view or" too
    assert feed(controls, click(controls.layout.from_minimap((10, 50)))) == [
        F.Attack_minimap("now", (10, 50))
    ]


def test_a_complaint_lasts_until_the_next_input_and_says_why(controls):
    feed(controls, [key("b")], UNITS)
    assert controls.message == "B: nothing available to this selection now"
    feed(controls, [key("f2")])
    assert controls.message == ""
    feed(controls, [key("m")])  # a prompt stays while its ability waits for the target
    assert controls.pending is F.Move_screen
    feed(controls, [key("left")], camera_minimap=(33, 39))
    assert controls.message.startswith("Move_screen: left-click a target")


def test_refusals_name_the_games_reasons():
    import numpy as np

    from sc2env.viewer.play import refusals

    assert refusals(np.array([42, 3, 0, 0])) == "the game refused it: CantBuildOnThat, Error"
    assert refusals(np.zeros(16, np.int32)) == ""


def test_viewer_keys_and_watch_mode(controls):
    assert feed(controls, [key("space")]) == [ViewerCommand.PAUSE]
    assert feed(controls, [key("tab")]) == [ViewerCommand.NEXT_PAGE]
    assert feed(controls, [key("tab", pygame.KMOD_SHIFT)]) == [ViewerCommand.PREVIOUS_PAGE]
    assert feed(controls, [key("=")]) == [ViewerCommand.FASTER]
    assert feed(controls, [pygame.event.Event(pygame.QUIT)]) == [ViewerCommand.QUIT]
    watching = Controls(controls.layout, interactive=False)
    assert feed(watching, [key("m"), key("3"), *click(controls.layout.view.center)]) == []
    assert feed(watching, [key("space")]) == [ViewerCommand.PAUSE]


def test_hotkey_table_names_real_functions_and_labels_them():
    for hotkey in HOTKEYS:
        for name in hotkey.functions:
            assert name in FUNCTIONS, name
    assert key_label(F.Build_SupplyDepot_screen) == "B S"
    assert key_label(F.Move_screen) == "M"
    assert find_hotkey("s", "build", SCV) is F.Build_SupplyDepot_screen
    assert find_hotkey("s", None, [F.no_op.id]) is None


def test_a_select_all_of_workers_lists_its_functions_in_two_columns():
    from types import SimpleNamespace

    import numpy as np

    from sc2env.viewer.draw_panels import draw_functions

    pygame.font.init()
    names = [
        "no_op",
        "move_camera",
        "select_point",
        "select_rect",
        "select_control_group",
        "select_unit",
        "select_idle_worker",
        "Attack_screen",
        "Attack_minimap",
        "Effect_Repair_screen",
        "Effect_Repair_autocast",
        "Harvest_Gather_screen",
        "HoldPosition_quick",
        "Move_screen",
        "Move_minimap",
        "Patrol_screen",
        "Patrol_minimap",
        "Rally_Workers_screen",
        "Rally_Workers_minimap",
        "Smart_screen",
        "Smart_minimap",
        "Stop_quick",
        "Train_SCV_quick",
    ]
    ids = np.array(sorted(getattr(F, name).id for name in names))
    panel = Layout.build(FMT).functions
    rows = draw_functions(
        pygame.Surface((1280, 720)),
        panel,
        SimpleNamespace(observation=SimpleNamespace(available_actions=ids), raw_functions=None),
    )
    assert [fid for _, fid in rows] == ids.tolist()  # every function has a clickable row
    assert len({rect.x for rect, _ in rows}) == 2  # three columns cut names like Rally_Workers_minimap
    assert all(panel.contains(rect) for rect, _ in rows)
    # At the smallest frame: three columns left names of four letters with their keys drawn over them
    # ("B.._screenM"); two columns keep every name readable.
    ids = np.array(sorted(getattr(F, name).id for name in names))
    panel = Layout.build(FMT, (960, 540)).functions
    rows = draw_functions(
        pygame.Surface((960, 540)),
        panel,
        SimpleNamespace(observation=SimpleNamespace(available_actions=ids), raw_functions=None),
    )
    assert [fid for _, fid in rows] == ids.tolist() and all(panel.contains(rect) for rect, _ in rows)
    assert len({rect.x for rect, _ in rows}) == 2
    # More functions than fit (an SCV and a Barracks selected; a wide screen leaves a narrow panel): columns
    # narrowed without limit and names ran over the next column's keys. What fits is listed, and a count.
    names += [
        "Build_CommandCenter_screen",
        "Build_EngineeringBay_screen",
        "Build_Refinery_screen",
        "Build_SupplyDepot_screen",
        "Build_Barracks_screen",
        "Build_Bunker_screen",
        "Build_MissileTurret_screen",
        "Build_SensorTower_screen",
        "Train_Marine_quick",
        "Rally_Units_screen",
        "Rally_Units_minimap",
        "Harvest_Return_quick",
        "Cancel_quick",
        "Cancel_Last_quick",
        "build_queue",
    ]
    ids = np.array(sorted(getattr(F, name).id for name in names))
    panel = Layout.build(InterfaceFormat(screen_size=(84, 64), minimap_size=64), (960, 540)).functions
    rows = draw_functions(
        pygame.Surface((960, 540)),
        panel,
        SimpleNamespace(observation=SimpleNamespace(available_actions=ids), raw_functions=None),
    )
    assert 20 <= len(rows) < len(ids) and all(panel.contains(rect) for rect, _ in rows)
    assert min(rect.w for rect, _ in rows) >= 90 and [fid for _, fid in rows] == ids[: len(rows)].tolist()


def test_under_raw_actions_the_panel_lists_the_raw_functions_on_offer(make_env):
    from sc2env.interface import RAW_FUNCTIONS
    from sc2env.viewer.draw_panels import draw_functions
    from sc2env.viewer.scene import Scene

    pygame.font.init()
    env = make_env("DefeatRoaches", actions="raw", render_mode="rgb_array")
    env.reset(seed=1)
    u = env.unwrapped
    offered = np.flatnonzero(u.raw_masks.functions).tolist()
    scene = Scene.from_observation(u.last_observation, raw_functions=tuple(offered))
    panel = Layout.build(u.interface_format).functions
    # Raw functions have no keys and no click: no rows come back; the feature-layer list would have them.
    assert draw_functions(pygame.Surface((1280, 720)), panel, scene) == []
    assert draw_functions(pygame.Surface((1280, 720)), panel, Scene.from_observation(u.last_observation))
    assert RAW_FUNCTIONS.Attack_unit.id in offered and env.render().shape == (720, 1280, 3)


def test_names_too_long_for_their_column_keep_their_kind():
    from sc2env.viewer.draw_panels import _elided

    pygame.font.init()
    assert _elided("Build_CommandCenter_screen", 400, 13) == "Build_CommandCenter_screen"
    short = _elided("Build_CommandCenter_screen", 90, 11)
    assert short.startswith("Build_") and short.endswith(".._screen") and len(short) < 26


def test_a_structure_under_construction_shows_its_progress_not_a_damaged_health_bar():
    # Its hit points grow with the build, so it got the red "badly hurt" bar of a dying unit.
    from types import SimpleNamespace

    import numpy as np
    from viewer_helpers import game_info

    from sc2env.interface import MapInfo
    from sc2env.viewer import style
    from sc2env.viewer.draw_map import MapPainter
    from sc2env.viewer.draw_units import draw_units
    from sc2env.viewer.scene import Scene, Units

    layout = Layout.build(FMT)
    painter = MapPainter(FMT, MapInfo.from_game_info(game_info()), layout)

    def bar_pixels(selected, progress, health):
        depot = Units.from_columns([(32.0, 28.0, 1.25, 19, 1, health, np.nan, selected, progress, False)])
        surface = pygame.Surface(layout.size)
        draw_units(
            surface, layout.view, Scene(SimpleNamespace(), depot, (32.0, 28.0)), painter.pixels_per_unit
        )
        x, y = painter.world_to_view((32.0, 28.0)).fwd((32.0, 28.0))
        r = 1.25 * painter.pixels_per_unit
        return {tuple(surface.get_at((int(x + dx), int(y - r - 7)))[:3]) for dx in range(-int(r), int(r))}

    red = style.health_colour(0.2)
    assert red not in bar_pixels(False, 0.2, 0.2) and red not in bar_pixels(True, 0.2, 0.2)
    assert (200, 205, 215) in bar_pixels(True, 0.2, 0.2)  # selected: its progress
    assert red in bar_pixels(False, 1.0, 0.2)  # finished and damaged: the health bar
