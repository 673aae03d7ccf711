"""Window: the pygame display the viewer's frames are shown in, and its input events."""

from __future__ import annotations

import os
import time

import pygame

from sc2env.errors import SC2EnvError

_NO_DISPLAY = (
    "cannot open a window ({}). Without a display, run headless (render_mode='rgb_array', "
    "sc2env run --save-video out.mp4) or under a virtual display (xvfb-run sc2env ...)"
)


_MOUSE_EVENTS = (pygame.MOUSEBUTTONDOWN, pygame.MOUSEBUTTONUP, pygame.MOUSEMOTION)
_INVISIBLE_DRIVERS = ("offscreen", "dummy")
_RETRY_PAUSE_S = 0.5  # an X server that hiccuped usually answers again by then


class NoDisplayError(SC2EnvError):
    """No window can be opened (no display server)."""


class ViewerClosed(SC2EnvError):
    """The viewer's window was closed by its user."""


def display_problem() -> str | None:
    """Why no visible window can be opened here, or None when one can (tries the display)."""
    driver = os.environ.get("SDL_VIDEODRIVER", "")
    if driver.lower() == "dummy":
        return "SDL_VIDEODRIVER=dummy: windows are invisible (headless mode)"
    return _window_problem()


def require_display() -> None:
    """Raise NoDisplayError where no visible window can be shown (opens the display to see, then closes it):
    before a game starts, not at its first frame."""
    problem = _window_problem()
    if problem is not None:
        raise NoDisplayError(_NO_DISPLAY.format(problem))


def _window_problem() -> str | None:
    """Why no visible window opens here (None: one does); an SDL driver asked for on purpose is taken as is."""
    if not (
        os.environ.get("SDL_VIDEODRIVER") or os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
    ):
        # SDL would fall back to an invisible window here; say so instead of playing to nobody.
        return "no display: neither DISPLAY nor WAYLAND_DISPLAY is set"
    return _opening_problem()


def _opening_problem() -> str | None:
    """Why pygame's display can't be opened, or opens invisible though no one asked for that (None: fine)."""
    if pygame.display.get_init():  # open already (a window of this process): it works
        return None
    try:
        pygame.display.init()
        driver = _unasked_fallback()
        return None if driver is None else _fallback_problem(driver)
    except pygame.error as error:
        return f"pygame cannot open a display ({error})"
    finally:
        pygame.display.quit()


def _unasked_fallback() -> str | None:
    """The invisible driver SDL opened the display with though nobody asked for one, or None.

    SDL falls back to its offscreen driver when every real one fails (an X server that hiccups, printing only
    "XDG_RUNTIME_DIR is invalid or not set" from the Wayland attempt); a driver named in SDL_VIDEODRIVER (which
    may list several to try, "x11,offscreen", in any case) was asked for.
    """
    driver = pygame.display.get_driver()
    return driver if driver in _INVISIBLE_DRIVERS and driver not in _requested_drivers() else None


def _requested_drivers() -> list[str]:
    return [name.strip().lower() for name in os.environ.get("SDL_VIDEODRIVER", "").split(",")]


def _fallback_problem(driver: str) -> str:
    where = ", ".join(
        f"{name}={os.environ[name]!r}" for name in ("DISPLAY", "WAYLAND_DISPLAY") if os.environ.get(name)
    )
    return (
        f"no display server answers at {where or 'the display'} (SDL fell back to its invisible {driver!r} "
        "driver)"
    )


class Window:
    """A pygame window showing frames of one size (pygame has one window per process).

    The window may be resized (by its user or a tiling window manager): frames are then scaled to fit it,
    keeping their aspect, and mouse positions are mapped back to frame pixels.
    """

    def __init__(self, size: tuple[int, int], title: str = "sc2env"):
        if pygame.display.get_surface() is not None:  # another env's window: they would fight over it
            raise SC2EnvError(
                "a viewer window is already open in this process (pygame has one): show one game "
                "with render_mode='human' and render the others with render_mode='rgb_array'"
            )
        require_display()
        # The window's class for taskbars and Alt-Tab; SDL takes it from the program, "__main__.py" under
        # `python -m sc2env`. A class the user set stays.
        os.environ.setdefault("SDL_VIDEO_X11_WMCLASS", "sc2env")
        self._open(size)
        pygame.display.set_caption(title)
        pygame.key.set_repeat(300, 60)  # a held arrow key keeps the camera moving
        self.closed = False
        self._fit = (1.0, 0, 0)  # the last frame's scale and offset in the window

    @staticmethod
    def _open(size: tuple[int, int]) -> None:
        """Open the display and its window; raise NoDisplayError rather than play into an invisible one.

        The display was fine a moment ago (require_display), so an invisible fallback driver now is a display
        server that hiccuped: it gets one more try before the error (it happened in 1 of 6 human resets).
        """
        for attempt in ("first", "retry"):
            if attempt == "retry":
                time.sleep(_RETRY_PAUSE_S)
            try:
                pygame.display.init()
                pygame.display.set_mode(size, pygame.RESIZABLE)
            except pygame.error as error:
                pygame.display.quit()
                raise NoDisplayError(_NO_DISPLAY.format(error)) from None
            fallback = _unasked_fallback()
            if fallback is None:
                return
            pygame.display.quit()
            if attempt == "retry":
                raise NoDisplayError(_NO_DISPLAY.format(_fallback_problem(fallback) + ", twice"))

    def show(self, canvas: pygame.Surface) -> None:
        window = pygame.display.get_surface()  # a resize replaces it
        (width, height), (frame_w, frame_h) = window.get_size(), canvas.get_size()
        if (width, height) == (frame_w, frame_h):
            window.blit(canvas, (0, 0))
            self._fit = (1.0, 0, 0)
        else:
            scale = min(width / frame_w, height / frame_h)
            size = (max(1, round(frame_w * scale)), max(1, round(frame_h * scale)))
            x, y = (width - size[0]) // 2, (height - size[1]) // 2
            window.fill((0, 0, 0))
            window.blit(pygame.transform.smoothscale(canvas, size), (x, y))
            self._fit = (scale, x, y)
        pygame.display.flip()

    def events(self) -> list[pygame.event.Event]:
        """The pending events, mouse positions in frame pixels."""
        scale, x, y = self._fit
        events = pygame.event.get()
        if (scale, x, y) == (1.0, 0, 0):
            return events
        out = []
        for event in events:
            if event.type in _MOUSE_EVENTS:
                fields = dict(event.dict)
                fields["pos"] = (int((event.pos[0] - x) / scale), int((event.pos[1] - y) / scale))
                if "rel" in fields:
                    fields["rel"] = (int(event.rel[0] / scale), int(event.rel[1] / scale))
                event = pygame.event.Event(event.type, fields)
            out.append(event)
        return out

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            pygame.display.quit()
