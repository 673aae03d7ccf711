"""Viewer: draws scenes into one offscreen frame (usable headless) and keeps the viewer's own state."""

from __future__ import annotations

import numpy as np
import pygame

from sc2env.interface import CoordinateTransforms, FunctionCall, InterfaceFormat, MapInfo
from sc2env.viewer import style
from sc2env.viewer.controls import NOTHING_KNOWN, Controls, ViewerCommand
from sc2env.viewer.draw_console import Console, draw_console
from sc2env.viewer.draw_map import MapPainter
from sc2env.viewer.draw_panels import draw_functions, draw_hints, draw_layers, draw_status, layer_pages
from sc2env.viewer.hotkeys import Situation
from sc2env.viewer.layout import DEFAULT_SIZE, Layout, playable_region
from sc2env.viewer.markers import MarkerTrail
from sc2env.viewer.scene import Scene

SPEEDS = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0, float("inf"))
"""Playback speeds, as multiples of the game's "faster" speed (gamedata.LOOPS_PER_REAL_SECOND)."""


class Viewer:
    """One game's viewer: the main view with the selection panel over its bottom, minimap, available
    functions, a page of feature layers, status and hints, drawn into `canvas` (a plain pygame Surface, so it
    works without any display).

    It also keeps what the viewer itself controls: the layer page, pause, playback speed, the fading markers
    of the last clicks, and through `controls` the human's input state. `handle(event)` applies viewer
    commands and returns game commands.
    """

    def __init__(
        self,
        fmt: InterfaceFormat,
        game_info,
        *,
        size: tuple[int, int] = DEFAULT_SIZE,
        interactive: bool = False,
    ):
        if not pygame.font.get_init():
            pygame.font.init()
        self.fmt = fmt
        self.map_name = game_info.map_name
        map_info = MapInfo.from_game_info(game_info)
        transforms = CoordinateTransforms(fmt, map_info, rgb=fmt.action_space == "rgb")
        self.layout = Layout.build(fmt, size, playable_region(transforms, fmt.action_minimap_size))
        self.painter = MapPainter(fmt, map_info, self.layout)
        self.markers = MarkerTrail(transforms)
        self.controls = Controls(self.layout, interactive)
        self.canvas = pygame.Surface(size)
        self.pages = layer_pages()
        self.page = 0
        self.paused = False
        self.speed_index = SPEEDS.index(1.0)
        self.episode = 0
        self.notice = ""
        """A message from outside the viewer (an invalid action's reason, an episode's end), shown in hints."""
        self.scene: Scene | None = None
        self.function_rows: list = []
        self.console: Console | None = None
        """The selection panel as last drawn (where its buttons are)."""

    @property
    def speed(self) -> float:
        return SPEEDS[self.speed_index]

    @property
    def speed_label(self) -> str:
        return "max" if self.speed == float("inf") else f"x{self.speed:g}"

    def draw(self, scene: Scene | None = None) -> pygame.Surface:
        """Draw `scene` (or the last one again, e.g. to show a drag box) and return the canvas."""
        if scene is not None and scene is not self.scene:
            self.scene = scene
            self.markers.update(scene)
        scene = self.scene
        canvas, layout = self.canvas, self.layout
        canvas.fill(style.BACKGROUND)
        if scene is None:
            return canvas
        draw_status(
            canvas, layout.status, scene, paused=self.paused, speed=self.speed_label, episode=self.episode
        )
        controls = self.controls
        markers = self.markers.live(scene.game_loop)
        self.painter.draw_view(canvas, scene, markers)
        self.console = draw_console(
            canvas, self.painter.console_rect(scene.camera), scene, interactive=controls.interactive
        )
        self.painter.draw_minimap(canvas, scene, markers)
        self.function_rows = draw_functions(
            canvas,
            layout.functions,
            scene,
            pending=controls.pending.id if controls.pending else None,
            menu=controls.menu,
        )
        draw_layers(canvas, layout.layers, scene, self.pages[self.page])
        message = controls.message or self.notice
        draw_hints(
            canvas,
            layout.hints,
            message,
            warning=not controls.message and bool(self.notice),
            help_text=controls.help,
        )
        self._draw_input(canvas)
        return canvas

    def frame(self) -> np.ndarray:
        """The canvas as an (height, width, 3) uint8 array (a copy)."""
        pixels = pygame.surfarray.pixels3d(self.canvas)  # a view: one copy, where array3d made two
        frame = pixels.transpose(1, 0, 2).copy()
        del pixels  # unlocks the canvas
        return frame

    def handle(self, event: pygame.event.Event) -> list[FunctionCall | ViewerCommand]:
        """Apply one event: viewer commands change the viewer; game calls (and QUIT) are returned."""
        scene = self.scene
        available = scene.observation.available_actions if scene is not None else ()
        camera = None
        if scene is not None and scene.observation.camera_minimap is not None:
            x, y = (int(v) for v in scene.observation.camera_minimap)
            camera = (x, y)
        out: list[FunctionCall | ViewerCommand] = []
        # Only keys need it, and mouse motion comes many times a frame.
        situation = (
            Situation.of(scene) if scene is not None and event.type == pygame.KEYDOWN else NOTHING_KNOWN
        )
        for command in self.controls.handle(
            event,
            available,
            camera_minimap=camera,
            function_rows=self.function_rows,
            situation=situation,
            console=self.console,
        ):
            if command is ViewerCommand.PAUSE:
                self.paused = not self.paused
            elif command is ViewerCommand.NEXT_PAGE:
                self.page = (self.page + 1) % len(self.pages)
            elif command is ViewerCommand.PREVIOUS_PAGE:
                self.page = (self.page - 1) % len(self.pages)
            elif command is ViewerCommand.FASTER:
                self.speed_index = min(self.speed_index + 1, len(SPEEDS) - 1)
            elif command is ViewerCommand.SLOWER:
                self.speed_index = max(self.speed_index - 1, 0)
            else:
                out.append(command)
        return out

    def _draw_input(self, canvas: pygame.Surface) -> None:
        """The selection box being dragged, and a crosshair while an ability waits for its target."""
        controls = self.controls
        if controls.drag_start is not None and controls.drag_now is not None:
            (x0, y0), (x1, y1) = controls.drag_start, controls.drag_now
            box = pygame.Rect(min(x0, x1), min(y0, y1), abs(x1 - x0), abs(y1 - y0)).clip(self.layout.view)
            pygame.draw.rect(canvas, style.SELECTION, box, width=1)
        if controls.pending is not None and controls.pointer is not None and pygame.mouse.get_focused():
            x, y = (
                controls.pointer
            )  # not pygame.mouse.get_pos(): in a resized window that is in window pixels
            on_panel = self.console is not None and self.console.rect.collidepoint(x, y)
            if (self.layout.view.collidepoint(x, y) and not on_panel) or self.layout.minimap.collidepoint(
                x, y
            ):
                pygame.draw.circle(canvas, style.ACCENT, (x, y), 10, width=2)
                pygame.draw.line(canvas, style.ACCENT, (x - 14, y), (x + 14, y))
                pygame.draw.line(canvas, style.ACCENT, (x, y - 14), (x, y + 14))
