"""The env options the command line sets: the shared flags that set them, an agent's own, and the env."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import gymnasium as gym

from sc2env.cli.options import Options, option
from sc2env.launch import ENGINE_ENV_VAR, ENGINES

if TYPE_CHECKING:
    from sc2env.agents import Agent
    from sc2env.env.env import SC2Env

UINT32 = 2**32 - 1
"""A step's game loops travel as uint32."""

ENV_OPTIONS = {
    "screen_size": "screen_size",
    "minimap_size": "minimap_size",
    "step_mul": "step_mul",
    "engine": "engine",
    "max_episode_steps": "max_steps",
    "actions": "actions",
    "opponent": "opponent",
}
"""The env options command-line options set: env option -> the options' field (its flag: --max-steps)."""


def engine_option() -> Any:
    return option(
        None,
        f"builtin (sc2env's engine), sc2 (StarCraft II) or auto (sc2 when installed, else builtin); "
        f"default: ${ENGINE_ENV_VAR}, else auto",
        choices=ENGINES,
    )


def screen_size_option() -> Any:
    return option(64, "feature screen width and height", metavar="PIXELS", at_least=1)


def minimap_size_option() -> Any:
    return option(64, "feature minimap width and height", metavar="PIXELS", at_least=1)


def opponent_option() -> Any:
    return option(
        None,
        "who plays the other side of a two-player map (DuelMarines, ...): computer:<difficulty> (very_easy, "
        "easy, medium, medium_hard, hard, harder), random, scripted, or package.module:Class; default: "
        "computer:very_easy",
        metavar="OPPONENT",
    )


def step_mul_option(default: int, help: str) -> Any:
    return option(default, help, metavar="LOOPS", at_least=1, at_most=UINT32)


def flag_of(field: str) -> str:
    return "--" + field.replace("_", "-")


def env_kwargs(options: Options) -> dict[str, Any]:
    """The env options the command's options set (those it has, and that are not left to the env)."""
    found = {option: getattr(options, field, None) for option, field in ENV_OPTIONS.items()}
    return {option: value for option, value in found.items() if value is not None}


def agent_env_kwargs(options: Options, agent: str, cls: type[Agent]) -> dict[str, Any]:
    """The env options for `agent` (class `cls`): the command line's, then the agent's own `env_kwargs`, which
    must be env options and may not contradict a flag given on the command line (ValueError says which)."""
    from sc2env.env.config import EnvConfig, option_hint

    known = {f.name for f in dataclasses.fields(EnvConfig)}
    kwargs = env_kwargs(options)
    for name, value in dict(cls.env_kwargs).items():
        if name not in known:
            raise ValueError(
                f"agent {agent!r} asks for the env option {name!r} in its env_kwargs, which is not "
                f"one: {option_hint(name)} (render_mode is chosen by --render and --save-video)"
            )
        field = ENV_OPTIONS.get(name)
        if field is not None and field in options.given and kwargs[name] != value:
            raise ValueError(
                f"agent {agent!r} plays with {name}={value!r} (its env_kwargs), but {flag_of(field)} "
                f"{kwargs[name]} was given: leave the flag out, or change the agent"
            )
        kwargs[name] = value
    plays = getattr(cls, "actions", ("features",))
    if "actions" not in kwargs and "features" not in plays:
        kwargs["actions"] = plays[0]  # an agent of raw actions only: its action space, unasked
    actions = kwargs.get("actions", "features")
    if actions not in plays:
        raise ValueError(
            f"agent {agent!r} plays {' or '.join(plays)} actions, not --actions {actions}: "
            f"{'pass --actions ' + plays[0] if len(plays) == 1 else 'pick one of those'}, or give "
            "an agent of that action space (random plays both)"
        )
    return kwargs


def small_layers(agents: Sequence[tuple[type[Agent], Mapping[str, Any]]]) -> list[str]:
    """Warnings for feature layers smaller than the agents are made for (their `min_screen_size` and
    `min_minimap_size`), given each map's agent class and env options: a line per size that is too small."""
    lines = []
    for layers, least in (("screen_size", "min_screen_size"), ("minimap_size", "min_minimap_size")):
        short: dict[tuple[int, int], set[str]] = {}  # (size, the size needed) -> the agents
        for cls, kwargs in agents:
            size, need = _side(kwargs.get(layers)), getattr(cls, least)
            if size is not None and size < need:
                short.setdefault((size, need), set()).add(cls.__name__)
        for (size, need), names in sorted(short.items()):
            lines.append(
                f"warning: {flag_of(layers)} {size} is below the {need} pixels {', '.join(sorted(names))} "
                f"{'is' if len(names) == 1 else 'are'} made for: expect poor play at this size"
            )
    return lines


def _side(size: Any) -> int | None:
    """The shorter side of a size an env option gives (an int, or (width, height))."""
    if size is None:
        return None
    return min(size) if isinstance(size, (tuple, list)) else int(size)


def sc2env_of(env: gym.Env) -> SC2Env:
    """The SC2Env `make_env` made, under Gymnasium's wrappers."""
    from sc2env.env.env import SC2Env

    game = env.unwrapped
    if not isinstance(game, SC2Env):  # make_env makes only SC2Envs: a registration changed under us
        raise TypeError(f"expected an SC2Env under the wrappers, got {type(game).__name__}")
    return game


def make_env(name: str, **kwargs: Any) -> gym.Env:
    """The env of a mini-game (its registered id) or of a map of a StarCraft II install (sc2env/SC2-v0)."""
    from sc2env.game import MINI_GAMES

    if name in MINI_GAMES:
        return gym.make(f"sc2env/{name}-v0", **kwargs)
    return gym.make("sc2env/SC2-v0", map_name=name, **kwargs)
