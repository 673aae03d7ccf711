"""Human input as the game takes it: mouse and keys become ordinary function calls, or viewer commands."""

from __future__ import annotations

import enum
from collections.abc import Collection, Sequence

import pygame

from sc2env.interface import FUNCTIONS, Function, FunctionCall, FunctionKind
from sc2env.viewer.draw_console import Button, Console
from sc2env.viewer.hotkeys import MENU_KEY, MENU_KEYS, Situation, find_hotkey, menu_available, minimap_variant
from sc2env.viewer.layout import Layout

_F = FUNCTIONS
NOTHING_KNOWN = Situation()
_DRAG_PX = 5
_ARGUMENT_FREE = {
    FunctionKind.QUICK,
    FunctionKind.NO_OP,
    FunctionKind.SELECT_ARMY,
    FunctionKind.SELECT_LARVA,
    FunctionKind.SELECT_WARP_GATES,
    FunctionKind.SELECT_IDLE_WORKER,
    FunctionKind.AUTOCAST,
}
# The act a click on a selection panel button takes, by (shift, ctrl) held, as in the game: a unit's tile
# selects it alone, Shift takes it out, Ctrl selects (Shift+Ctrl takes out) all of its type; a group recalls,
# Shift adds it. Queue slots and passengers take no act (a click cancels or unloads).
_BUTTON_ACTS = {
    _F.select_unit.id: {
        (False, False): "select",
        (True, False): "deselect",
        (False, True): "select_all_type",
        (True, True): "deselect_all_type",
    },
    _F.select_control_group.id: {
        (False, False): "recall",
        (True, False): "append",
        (False, True): "recall",
        (True, True): "append",
    },
}
HELP = (
    "click/drag select · right-click smart · M A P + click · S stop · H hold · B build · 0-9 groups"
    " · F1 idle · F2 army · arrows camera · Tab layers · Space pause · +/- speed"
)
WATCH_HELP = "Space pause · Tab/Shift+Tab feature layers · +/- speed · close the window to stop"


class ViewerCommand(enum.Enum):
    """Input meant for the viewer itself rather than the game."""

    PAUSE = "pause"
    NEXT_PAGE = "next page"
    PREVIOUS_PAGE = "previous page"
    FASTER = "faster"
    SLOWER = "slower"
    QUIT = "quit"


Command = FunctionCall | ViewerCommand

# Keys that change only the view (pause, speed; Tab turns pages, Shift+Tab back): they leave the last prompt or
# complaint up.
_VIEW_KEYS = {
    "space": ViewerCommand.PAUSE,
    "=": ViewerCommand.FASTER,
    "+": ViewerCommand.FASTER,
    "[+]": ViewerCommand.FASTER,
    "-": ViewerCommand.SLOWER,
    "[-]": ViewerCommand.SLOWER,
    "tab": ViewerCommand.NEXT_PAGE,
}


class Controls:
    """Turns pygame events into commands, keeping the input state between them: an ability waiting for its
    target click, an open build menu, a selection box being dragged, a camera drag on the minimap.

    `interactive=False` (watching an agent) keeps only the viewer's own keys.
    """

    def __init__(self, layout: Layout, interactive: bool = True):
        self.layout = layout
        self.interactive = interactive
        self.pending: Function | None = None
        self.menu: str | None = None
        self.drag_start: tuple[int, int] | None = None
        self.drag_now: tuple[int, int] | None = None
        self.message = ""
        self.pointer: tuple[int, int] | None = None
        """The mouse's last position in frame pixels (a resized window's events are mapped to those)."""
        self._camera_drag = False
        self._last_camera: tuple[int, int] | None = None
        # (camera seen, camera asked for) of the last arrow key: presses before the game moves the camera
        # add up instead of asking for the same spot again.
        self._panned: tuple[tuple[int, int], tuple[int, int]] | None = None

    @property
    def help(self) -> str:
        return HELP if self.interactive else WATCH_HELP

    def cancel(self) -> None:
        """Forget a waiting ability, an open menu and a drag."""
        self.pending = self.menu = self.drag_start = self.drag_now = None
        self._camera_drag = False
        self.message = ""

    def handle(
        self,
        event: pygame.event.Event,
        available: Collection[int],
        *,
        camera_minimap: tuple[int, int] | None = None,
        function_rows: Sequence[tuple[pygame.Rect, int]] = (),
        situation: Situation = NOTHING_KNOWN,
        console: Console | None = None,
    ) -> list[Command]:
        """The commands one event stands for (often none). `available`: the function ids available now;
        `situation`: what the player has, to open a worker's build menu and to say why a key does nothing;
        `console`: the selection panel as drawn (clicks on it are its own, not the view's)."""
        if event.type == pygame.QUIT:
            return [ViewerCommand.QUIT]
        if (
            event.type in (pygame.KEYDOWN, pygame.MOUSEBUTTONDOWN)
            and self.pending is None
            and self.menu is None
            and not (event.type == pygame.KEYDOWN and pygame.key.name(event.key) in _VIEW_KEYS)
        ):
            self.message = (
                ""  # a new input: the last one's prompt or complaint is over (not a pause or page turn)
            )
        if event.type == pygame.KEYDOWN:
            return self._key(event, available, camera_minimap, situation)
        if not self.interactive:
            return []
        if event.type in (pygame.MOUSEMOTION, pygame.MOUSEBUTTONDOWN):
            self.pointer = tuple(event.pos)
        if event.type == pygame.MOUSEBUTTONDOWN:
            return self._press(event, available, function_rows, console)
        if event.type == pygame.MOUSEMOTION:
            return self._motion(event)
        if event.type == pygame.MOUSEBUTTONUP and event.button == 1:
            return self._release(event)
        return []

    # --- keys ----------------------------------------------------------------------------------------

    def _key(self, event, available, camera_minimap, situation: Situation) -> list[Command]:
        key = pygame.key.name(event.key)
        mods = event.mod
        shift, ctrl = bool(mods & pygame.KMOD_SHIFT), bool(mods & pygame.KMOD_CTRL)
        if key in _VIEW_KEYS:
            return [ViewerCommand.PREVIOUS_PAGE if key == "tab" and shift else _VIEW_KEYS[key]]
        if key == "escape":
            self.cancel()
            return []
        if not self.interactive:
            return []
        if key.isdigit() and len(key) == 1:
            act = "set" if ctrl else "append" if shift else "recall"
            return [_F.select_control_group(act, int(key))]
        if key == "f1":
            return [_F.select_idle_worker("select_all" if ctrl else "add" if shift else "select")]
        if key == "f2":
            return [_F.select_army("add" if shift else "select")]
        if key in ("left", "right", "up", "down"):
            return self._pan(key, camera_minimap)
        if len(key) == 1 and key.isalpha():
            return self._hotkey(key, shift, available, situation)
        return []

    def _pan(self, key: str, camera_minimap) -> list[Command]:
        if camera_minimap is None:
            self.message = "the camera position is unknown (no raw data)"
            return []
        width, height = self.layout.minimap_size
        step = max(1, width // 16)
        dx, dy = {"left": (-step, 0), "right": (step, 0), "up": (0, -step), "down": (0, step)}[key]
        base = self._panned[1] if self._panned and self._panned[0] == camera_minimap else camera_minimap
        x = min(max(base[0] + dx, 0), width - 1)
        y = min(max(base[1] + dy, 0), height - 1)
        self._panned = (camera_minimap, (x, y))
        return [_F.move_camera((x, y))]

    def _hotkey(self, key: str, shift: bool, available, situation: Situation) -> list[Command]:
        # As in the game, a worker's build menu opens even when nothing in it is affordable: its keys then
        # say what is missing instead of falling through to the main card (S would stop the worker).
        if (
            self.menu is None
            and key in MENU_KEYS
            and (menu_available(MENU_KEYS[key], available) or situation.builder)
        ):
            self.menu = MENU_KEYS[key]
            self.message = f"{self.menu} menu: press a building's key (Esc closes)"
            return []
        menu, self.menu = self.menu, None
        function = find_hotkey(key, menu, available)
        if function is None:
            keys = f"{MENU_KEY[menu]} {key}" if menu else key
            self.message = f"{keys.upper()}: {situation.why_not(key, menu)}"
            return []
        return self._use(function, shift)

    def _use(self, function: Function, shift: bool) -> list[Command]:
        """Call a function that needs no target now, or wait for the target click of one that does."""
        if function.kind in (FunctionKind.SCREEN, FunctionKind.MINIMAP):
            self.pending = function
            where = (
                "the view" + (" or the minimap" if minimap_variant(function) else "")
                if function.kind == FunctionKind.SCREEN
                else "the minimap"
            )
            self.message = f"{function.name}: left-click a target on {where} (shift queues, Esc cancels)"
            return []
        if function.kind in _ARGUMENT_FREE:
            self.message = ""
            return [function(*[1 if shift and a.name == "queued" else 0 for a in function.args])]
        self.message = f"{function.name}: use the mouse or keys for this one"
        return []

    # --- mouse ---------------------------------------------------------------------------------------

    def _press(self, event, available, function_rows, console: Console | None) -> list[Command]:
        mods = _mods(event)
        shift, ctrl = bool(mods & pygame.KMOD_SHIFT), bool(mods & pygame.KMOD_CTRL)
        queued = "queued" if shift else "now"
        if console is not None and console.rect.collidepoint(event.pos):
            if event.button == 3 and (self.pending is not None or self.menu is not None):
                self.cancel()
            if event.button != 1:
                return []
            button = next((b for b in console.buttons if b.rect.collidepoint(event.pos)), None)
            return [] if button is None else [_button_call(button, shift, ctrl)]
        screen = self.layout.to_screen(event.pos)
        minimap = self.layout.to_minimap(event.pos)
        if event.button == 3:
            if self.pending is not None or self.menu is not None:
                self.cancel()
                return []
            if screen is not None:
                return [_F.Smart_screen(queued, screen)]
            if minimap is not None:
                return [_F.Smart_minimap(queued, minimap)]
            return []
        if event.button != 1:
            return []
        for rect, fid in function_rows:
            if rect.collidepoint(event.pos):
                self.menu = None
                return self._use(FUNCTIONS[fid], shift)
        if self.pending is not None:
            return self._target(self.pending, queued, screen, minimap)
        if screen is not None:
            self.drag_start = self.drag_now = tuple(event.pos)
            return []
        if minimap is not None:
            self._camera_drag = True
            self._last_camera = minimap
            self._panned = None  # the arrows start again from wherever this puts the camera
            return [_F.move_camera(minimap)]
        return []

    def _target(self, function: Function, queued: str, screen, minimap) -> list[Command]:
        """The call of the waiting `function` at the clicked screen or minimap point."""
        if function.kind == FunctionKind.SCREEN and screen is not None:
            call = function(queued, screen)
        elif minimap is not None and (
            twin := minimap_variant(function) or (function if function.kind == FunctionKind.MINIMAP else None)
        ):
            call = twin(queued, minimap)
        else:
            where = (
                "the minimap"
                if function.kind == FunctionKind.MINIMAP
                else ("the view or the minimap" if minimap_variant(function) else "the view")
            )
            self.message = f"{function.name}: click a target on {where}"
            return []
        self.pending = None
        self.message = ""
        return [call]

    def _motion(self, event) -> list[Command]:
        if self.drag_start is not None:
            self.drag_now = tuple(event.pos)
            return []
        if self._camera_drag:
            point = self.layout.to_minimap(event.pos, clamp=True)
            if point != self._last_camera:
                self._last_camera = point
                self._panned = None
                return [_F.move_camera(point)]
        return []

    def _release(self, event) -> list[Command]:
        self._camera_drag = False
        start, self.drag_start, self.drag_now = self.drag_start, None, None
        if start is None:
            return []
        mods = _mods(event)
        shift, ctrl = bool(mods & pygame.KMOD_SHIFT), bool(mods & pygame.KMOD_CTRL)
        end = event.pos
        first = self.layout.to_screen(start, clamp=True)
        if abs(end[0] - start[0]) < _DRAG_PX and abs(end[1] - start[1]) < _DRAG_PX:
            act = (
                ("add_all_type" if shift else "select_all_type")
                if ctrl
                else ("toggle" if shift else "select")
            )
            return [_F.select_point(act, first)]
        return [_F.select_rect("add" if shift else "select", first, self.layout.to_screen(end, clamp=True))]


def _button_call(button: Button, shift: bool, ctrl: bool) -> FunctionCall:
    """The call a click on a selection panel button makes (see _BUTTON_ACTS)."""
    function = FUNCTIONS[button.function]
    acts = _BUTTON_ACTS.get(button.function)
    return function(acts[shift, ctrl], button.index) if acts else function(button.index)


def _mods(event) -> int:
    """The modifier keys held during a mouse event (the keyboard's state, or the event's own `mod`)."""
    held = pygame.key.get_mods() if pygame.display.get_init() else 0
    return held | getattr(event, "mod", 0)
