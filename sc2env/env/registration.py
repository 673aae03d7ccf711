"""Registers the Gymnasium ids: `sc2env/<MiniGame>-v0` for the seven mini-games and `sc2env/SC2-v0` for any map."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gymnasium as gym
from gymnasium.vector import AutoresetMode

from sc2env.game.maps import MINI_GAMES

ENTRY_POINT = "sc2env.env.env:SC2Env"
VECTOR_ENTRY_POINT = "sc2env.env.vector:SC2VectorEnv"
ANY_MAP_ID = "sc2env/SC2-v0"


def env_ids() -> list[str]:
    """The registered ids, mini-games first."""
    return [f"sc2env/{name}-v0" for name in MINI_GAMES] + [ANY_MAP_ID]


def register_envs() -> None:
    """Register every id with gymnasium (idempotent: ids already registered are left alone)."""
    for name in MINI_GAMES:
        _register(f"sc2env/{name}-v0", {"map_name": name})
    _register(ANY_MAP_ID, {"map_name": None})  # no default map: SC2Env asks for one


def _register(env_id: str, kwargs: dict) -> None:
    if env_id in gym.registry:
        return
    # No max_episode_steps here: the mini-games end on their own timers, and the env has its own safety cap.
    gym.register(id=env_id, entry_point=ENTRY_POINT, vector_entry_point=VECTOR_ENTRY_POINT, kwargs=kwargs)


def spec_property(config_of: Callable[[Any], Any]) -> property:
    """An env class's `spec` attribute (Gymnasium's make sets it), given how to find the env's EnvConfig.

    It refuses a mini-game's id made with another map: Gymnasium merges the keyword arguments over the id's
    own, so the id would name the wrong game in logs and saved runs. It keeps `functions` and the sizes as the
    config holds them (names; tuples of ints), and an AutoresetMode as its value, so that `env.spec.to_json()`
    works when objects or numpy numbers were given.
    """
    ids = {f"sc2env/{name}-v0": name for name in MINI_GAMES}

    def get(env):
        return env.__dict__.get("_spec")

    def set_(env, env_spec) -> None:
        config = config_of(env)
        named = ids.get(getattr(env_spec, "id", None))
        if named is not None and config.map_name != named:
            raise ValueError(f"{env_spec.id} plays {named}, but map_name={config.map_name!r} was given: make "
                             f"sc2env/{config.map_name}-v0, or {ANY_MAP_ID} with map_name={config.map_name!r}")
        kwargs = env_spec.kwargs if env_spec is not None else {}
        for name, value in kwargs.items():  # as the config holds them: names, sizes, plain numbers (for JSON)
            if value is not None and name in config.__dataclass_fields__:
                kwargs[name] = getattr(config, name)
        if isinstance(kwargs.get("autoreset_mode"), AutoresetMode):
            kwargs["autoreset_mode"] = kwargs["autoreset_mode"].value
        env.__dict__["_spec"] = env_spec

    return property(get, set_, doc="The Gymnasium EnvSpec this env was made from (None if made directly).")
