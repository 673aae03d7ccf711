"""The window refuses SDL's silent fall back to an invisible driver (the display hiccuped after the check)."""

from __future__ import annotations

import pygame
import pytest

from sc2env.viewer import NoDisplayError
from sc2env.viewer import window as window_module
from sc2env.viewer.window import Window, require_display


@pytest.fixture
def drivers(monkeypatch):
    """drivers(*names): pygame reports these drivers in turn (then the last again), as if SDL had picked them;
    SDL really runs its dummy driver. A display is set, so the code believes a real one was asked for."""
    monkeypatch.setenv("DISPLAY", ":97")
    monkeypatch.setattr(window_module, "_RETRY_PAUSE_S", 0.0)
    opened = []
    original_set_mode = pygame.display.set_mode

    def set_mode(*args, **kwargs):
        opened.append(args[0])
        return original_set_mode(*args, **kwargs)

    monkeypatch.setattr(pygame.display, "set_mode", set_mode)

    def report(*names: str) -> list:
        queue = list(names)

        def get_driver() -> str:
            return queue.pop(0) if len(queue) > 1 else queue[0]

        monkeypatch.setattr(pygame.display, "get_driver", get_driver)
        return opened

    pygame.display.quit()
    yield report
    pygame.display.quit()


def test_a_fall_back_to_the_offscreen_driver_after_the_check_is_retried_then_refused(drivers, monkeypatch):
    # `sc2env play` played whole episodes into no window: the display answered the check, then SDL fell back
    # to its offscreen driver when the window opened, printing only "XDG_RUNTIME_DIR is invalid or not set".
    monkeypatch.setattr(window_module, "_requested_drivers", lambda: [""])  # SDL_VIDEODRIVER unset
    opened = drivers("x11", "offscreen", "offscreen")
    with pytest.raises(NoDisplayError, match=r"DISPLAY=':97' \(SDL fell back to its invisible 'offscreen'"):
        Window((960, 540))
    assert len(opened) == 2, "one retry, then the error"
    assert not pygame.display.get_init(), "the invisible display is closed again"


def test_a_fall_back_that_clears_on_the_retry_opens_the_window(drivers, monkeypatch):
    monkeypatch.setattr(window_module, "_requested_drivers", lambda: ["x11"])
    opened = drivers("x11", "offscreen", "x11")
    window = Window((960, 540))
    try:
        assert len(opened) == 2 and pygame.display.get_surface() is not None
    finally:
        window.close()


def test_an_invisible_driver_asked_for_is_taken_as_asked(drivers, monkeypatch):
    for asked in ("dummy", "X11,Offscreen", "offscreen"):
        monkeypatch.setenv("SDL_VIDEODRIVER", asked)
        opened = drivers(asked.split(",")[-1].lower())
        window = Window((960, 540))
        window.close()
        assert len(opened) == 1
        opened.clear()
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    monkeypatch.setattr(window_module, "_requested_drivers", lambda: ["x11"])
    drivers("offscreen")
    with pytest.raises(NoDisplayError, match="fell back to its invisible 'offscreen' driver"):
        require_display()  # the check before a game starts: x11 asked for, offscreen came


def test_a_human_env_whose_window_falls_back_raises_from_reset_and_closes_cleanly(
    drivers, monkeypatch, make_env, marked_games
):
    monkeypatch.setattr(window_module, "_requested_drivers", lambda: [""])
    # The env's own check (when it is made) and the window's check see x11; the window then opens invisible.
    opened = drivers("x11", "x11", "offscreen")
    env = make_env("MoveToBeacon", render_mode="human", screen_size=32, minimap_size=32, direct=False)
    with pytest.raises(NoDisplayError, match="fell back to its invisible 'offscreen' driver"):
        env.reset(seed=0)
    assert len(opened) == 2 and marked_games(), "the game had started, the window was tried twice"
    env.close()
    assert marked_games() == [], "closing the env stops its game"
