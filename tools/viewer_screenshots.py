"""Regenerate the viewer's screenshots in docs/images: real games on the built-in engine, drawn headless.

    python tools/viewer_screenshots.py [--out docs/images] [--colours 128]

Each image is the frame `env.render()` returns (rgb_array: the very pixels a window shows), saved as a PNG with
a palette of `--colours` colours to keep it small. The play images feed the viewer synthetic mouse and key
events, as tests/viewer does. docs/images/viewer-before.png is not made here: it is the viewer of commit
8b0f150 (the same DefeatRoaches scene as viewer-after.png), kept for comparison.
"""

from __future__ import annotations

import argparse
import os
import pathlib
from collections.abc import Callable

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

import gymnasium as gym
import numpy as np
import pygame
from PIL import Image

import sc2env  # noqa: F401  (registers the ids)
from sc2env.agents.registry import make_agent
from sc2env.interface import FUNCTIONS as F

MARINE, ROACH, SCV, COMMAND_CENTER, BARRACKS = 48, 110, 45, 18, 21


def _scripted(name: str, steps: int, seed: int = 1):
    agent = make_agent("scripted", name)
    env = gym.make(f"sc2env/{name}-v0", engine="builtin", render_mode="rgb_array", **agent.env_kwargs)
    env.reset(seed=seed)
    agent.setup(env.unwrapped)
    agent.reset()
    for _ in range(steps):
        env.step(agent.step(env.unwrapped.last_observation))
    return env


def _pixel(env, unit_type: int) -> tuple[int, int]:
    ys, xs = np.nonzero(env.unwrapped.last_observation.feature_screen.unit_type == unit_type)
    return int(xs[len(xs) // 2]), int(ys[len(ys) // 2])


def _feed(env, *events: pygame.event.Event, interactive: bool = True) -> None:
    """Hand the viewer input events, as playing (`interactive`) or watching."""
    env.render()  # the renderer comes with the first frame
    viewer = env.unwrapped.renderer.viewer
    viewer.controls.interactive = interactive
    for event in events:
        viewer.handle(event)


def after():
    """DefeatRoaches: the army in a control group, told to move: the scene of viewer-before.png."""
    env = gym.make("sc2env/DefeatRoaches-v0", engine="builtin", render_mode="rgb_array")
    env.reset(seed=1)
    env.step(F.select_army("select"))
    env.step(F.select_control_group("set", 1))
    env.step(F.Move_screen("now", (20, 30)))
    for _ in range(3):
        env.step(F.no_op())
    env.step(F.Move_screen("now", (44, 20)))
    return env


def watch():
    return _scripted("CollectMineralShards", 20)


def build_marines():
    """BuildMarines halfway: workers, structures and Marines in control groups, a Command Center training."""
    env = _scripted("BuildMarines", 900)
    for unit_type, group in ((SCV, 1), (MARINE, 2), (BARRACKS, 3), (COMMAND_CENTER, 5)):
        env.step(F.select_point("select_all_type", _pixel(env, unit_type)))
        env.step(F.select_control_group("set", group))
    env.step(F.select_point("select", _pixel(env, COMMAND_CENTER)))
    env.step(F.Train_SCV_quick("queued"))
    return env


def defeat_roaches():
    return _scripted("DefeatRoaches", 14, seed=3)


def play_attack():
    """A waiting for its target: the crosshair over a Roach and the prompt."""
    env = gym.make("sc2env/DefeatRoaches-v0", engine="builtin", render_mode="rgb_array")
    env.reset(seed=1)
    env.step(F.select_army("select"))
    env.render()
    layout = env.unwrapped.renderer.viewer.layout
    target = layout.from_screen(_pixel(env, ROACH))
    key = pygame.event.Event(pygame.KEYDOWN, key=pygame.K_a, mod=0, unicode="a", scancode=0)
    motion = pygame.event.Event(
        pygame.MOUSEMOTION, pos=(int(target[0]) - 6, int(target[1])), rel=(0, 0), buttons=(0, 0, 0)
    )
    _feed(env, key, motion)
    return env


def play_drag():
    """A selection box being dragged over some of the Marines."""
    env = gym.make("sc2env/DefeatRoaches-v0", engine="builtin", render_mode="rgb_array")
    env.reset(seed=1)
    env.step(F.select_point("select", (0, 63)))  # nothing: a clear selection
    env.render()
    layout = env.unwrapped.renderer.viewer.layout
    x, y = (int(v) for v in layout.from_screen(_pixel(env, MARINE)))
    _feed(
        env,
        pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=(x - 60, y - 70), button=1),
        pygame.event.Event(pygame.MOUSEMOTION, pos=(x + 40, y + 10), rel=(0, 0), buttons=(1, 0, 0)),
    )
    return env


def layers():
    env = _scripted("CollectMineralsAndGas", 60)
    _feed(
        env,
        pygame.event.Event(pygame.KEYDOWN, key=pygame.K_TAB, mod=0, unicode="\t", scancode=0),
        interactive=False,
    )
    return env


SHOTS: dict[str, Callable] = {
    "viewer-after.png": after,
    "viewer-watch.png": watch,
    "viewer-build-marines.png": build_marines,
    "viewer-defeat-roaches.png": defeat_roaches,
    "viewer-play-attack.png": play_attack,
    "viewer-play-drag.png": play_drag,
    "viewer-layers.png": layers,
}


def save(frame: np.ndarray, path: pathlib.Path, colours: int) -> None:
    image = Image.fromarray(frame).quantize(
        colours, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE
    )
    image.save(path, optimize=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="docs/images")
    parser.add_argument("--colours", type=int, default=128)
    args = parser.parse_args()
    out = pathlib.Path(args.out)
    pygame.mouse.get_focused = lambda: True  # headless, no window has the pointer; the crosshair wants it
    for name, make in SHOTS.items():
        env = make()
        save(env.render(), out / name, args.colours)
        env.close()
        print(f"{out / name}: {(out / name).stat().st_size // 1024} KB")


if __name__ == "__main__":
    main()
