"""Registers the Gymnasium ids: `sc2env/<MiniGame>-v0` for each shipped mini-game, `sc2env/SC2-v0` for any map,
and ids for mini-game definition files on request."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import gymnasium as gym
from gymnasium.vector import AutoresetMode

# The ids `import sc2env` registers live in sc2env.env_ids, which needs no layer of the env side.
from sc2env.env_ids import ANY_MAP_ID, ENTRY_POINT, VECTOR_ENTRY_POINT, env_ids, register_envs
from sc2env.game.maps import MINI_GAMES, definition_map

__all__ = ["ANY_MAP_ID", "env_ids", "register_envs", "register_minigame", "spec_property"]


def register_minigame(path: str | os.PathLike[str], env_id: str | None = None) -> str:
    """Register a mini-game definition file (see docs/engine.md#playing-your-own) as a Gymnasium id, by
    default `sc2env/<its name>-v0`, and return the id: `gym.make(id)` and `gym.make_vec(id, n)` then play it,
    and so does whatever takes env ids. Registering the same file again is a no-op; an id that stands for
    something else is refused."""
    spec = definition_map(path)
    assert spec.file is not None  # a definition's map names its file
    env_id = env_id or f"sc2env/{spec.name}-v0"
    kwargs = {"map_name": os.fspath(spec.file)}
    existing = gym.registry.get(env_id)
    if existing is not None:
        if existing.entry_point == ENTRY_POINT and existing.kwargs == kwargs:
            return env_id
        what = existing.kwargs.get("map_name") or existing.entry_point
        raise ValueError(f"{env_id} is registered already, for {what}: give register_minigame another env_id")
    gym.register(id=env_id, entry_point=ENTRY_POINT, vector_entry_point=VECTOR_ENTRY_POINT, kwargs=kwargs)
    return env_id


def _registered_map(env_id: str | None) -> str | None:
    """The map an sc2env id stands for (None for sc2env/SC2-v0 and ids that are not sc2env's)."""
    registered = gym.registry.get(env_id) if env_id is not None else None
    if registered is None or registered.entry_point != ENTRY_POINT:
        return None
    return registered.kwargs.get("map_name")


def spec_property(config_of: Callable[[Any], Any]) -> property:
    """An env class's `spec` attribute (Gymnasium's make sets it), given how to find the env's EnvConfig.

    It refuses a mini-game's id made with another map: Gymnasium merges the keyword arguments over the id's
    own, so the id would name the wrong game in logs and saved runs. It keeps `functions` and the sizes as the
    config holds them (names; tuples of ints), and an AutoresetMode as its value, so that `env.spec.to_json()`
    works when objects or numpy numbers were given.
    """

    def get(env):
        return env.__dict__.get("_spec")

    def set_(env, env_spec) -> None:
        config = config_of(env)
        named = _registered_map(getattr(env_spec, "id", None))
        if named is not None and config.map_name != named:
            other = f"sc2env/{config.map_name}-v0, or " if config.map_name in MINI_GAMES else ""
            raise ValueError(
                f"{env_spec.id} plays {named}, but map_name={config.map_name!r} was given: make "
                f"{other}{ANY_MAP_ID} with map_name={config.map_name!r}"
            )
        kwargs = env_spec.kwargs if env_spec is not None else {}
        for name, value in kwargs.items():  # as the config holds them: names, sizes, plain numbers (for JSON)
            if value is not None and name in config.__dataclass_fields__:
                kwargs[name] = getattr(config, name)
        if isinstance(kwargs.get("autoreset_mode"), AutoresetMode):
            kwargs["autoreset_mode"] = kwargs["autoreset_mode"].value
        env.__dict__["_spec"] = env_spec

    return property(get, set_, doc="The Gymnasium EnvSpec this env was made from (None if made directly).")
