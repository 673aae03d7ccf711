"""The pygame viewer: watch agents (render modes), play mini-games yourself, record videos."""

from sc2env.viewer.controls import Controls, ViewerCommand
from sc2env.viewer.hotkeys import HOTKEYS, Hotkey
from sc2env.viewer.layout import DEFAULT_SIZE, Layout
from sc2env.viewer.play import play
from sc2env.viewer.renderer import EnvRenderer
from sc2env.viewer.scene import Scene, Units
from sc2env.viewer.video import VideoError, VideoWriter, video_support
from sc2env.viewer.viewer import SPEEDS, Viewer
from sc2env.viewer.window import NoDisplayError, ViewerClosed, Window, display_problem

__all__ = [
    "DEFAULT_SIZE",
    "HOTKEYS",
    "SPEEDS",
    "Controls",
    "EnvRenderer",
    "Hotkey",
    "Layout",
    "NoDisplayError",
    "Scene",
    "Units",
    "VideoError",
    "VideoWriter",
    "Viewer",
    "ViewerClosed",
    "ViewerCommand",
    "Window",
    "display_problem",
    "play",
    "video_support",
]
