"""Agents by name: "random", "scripted" (the script for the map) or "package.module:Class"."""

from __future__ import annotations

import importlib
import inspect
import os

from sc2env.agents.base import Agent
from sc2env.agents.random_agent import RandomAgent
from sc2env.agents.scripted_combat import DefeatRoaches, DefeatZerglingsAndBanelings, FindAndDefeatZerglings
from sc2env.agents.scripted_duel import DuelArmy
from sc2env.agents.scripted_economy import BuildMarines, CollectMineralsAndGas
from sc2env.agents.scripted_melee import Simple64
from sc2env.agents.scripted_movement import CollectMineralShards, MoveToBeacon
from sc2env.game.maps import definition_map, is_definition_path

SCRIPTED_AGENTS: dict[str, type[Agent]] = {
    "MoveToBeacon": MoveToBeacon,
    "CollectMineralShards": CollectMineralShards,
    "FindAndDefeatZerglings": FindAndDefeatZerglings,
    "DefeatRoaches": DefeatRoaches,
    "DefeatZerglingsAndBanelings": DefeatZerglingsAndBanelings,
    "CollectMineralsAndGas": CollectMineralsAndGas,
    "BuildMarines": BuildMarines,
    "DuelMarines": DuelArmy,
    "DuelTerranMixed": DuelArmy,
    "DuelZerglingsBanelings": DuelArmy,
    "Simple64": Simple64,
}
"""The scripted agent of each mini-game, of the duel maps and of the melee map Simple64."""


def agent_class(name: str, map_name: str) -> type[Agent]:
    """The agent class `name` stands for on `map_name`, one that `make_agent` can make (no abstract methods
    left, no required arguments); ValueError says what is known or what is missing."""
    if name.lower() == "random":
        return RandomAgent
    if name.lower() == "scripted":
        return scripted_agent(map_name)
    module_name, _, class_name = name.partition(":")
    if not module_name or not class_name:
        raise ValueError(f"unknown agent {name!r}: use random, scripted or package.module:Class")
    if "/" in module_name or module_name.endswith(".py"):
        dotted = module_name.removesuffix(".py").replace("/", ".").strip(".")
        raise ValueError(
            f"agent {name!r}: name the module as Python imports it ({dotted}:{class_name}), "
            "not as a file path"
        )
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise ValueError(f"cannot import {module_name!r} for agent {name!r}: {error}") from None
    cls = getattr(module, class_name, None)
    if cls is None:
        classes = sorted(
            n
            for n, v in vars(module).items()  # not the base classes a module imports
            if isinstance(v, type) and callable(getattr(v, "step", None)) and not inspect.isabstract(v)
        )
        raise ValueError(
            f"{module_name} has no {class_name!r}; its agent classes: {', '.join(classes) or 'none'}"
        )
    if not isinstance(cls, type) or not callable(getattr(cls, "step", None)):
        # A ValueError like the others: the name given is what is wrong (and the CLI reports it in one line).
        raise ValueError(f"{name!r} is not an agent class (a class with step(observation))")
    missing = [hook for hook in ("setup", "reset", "env_kwargs") if not hasattr(cls, hook)]
    if not issubclass(cls, Agent) and missing:  # e.g. a PySC2 agent, whose step() wants a TimeStep
        raise ValueError(
            f"{name!r} is not an sc2env agent (it has no {', '.join(missing)}): subclass "
            "sc2env.agents.Agent; docs/agents.md says how a PySC2 agent's step(timestep) maps"
        )
    # What would keep make_agent from making one, told before any game starts.
    abstract = sorted(getattr(cls, "__abstractmethods__", ()))
    if abstract:
        raise ValueError(f"agent {name!r} cannot be made: it does not define {', '.join(abstract)}")
    required = _required_parameters(cls)
    if required:
        raise ValueError(
            f"agent {name!r} cannot be made without arguments (it needs {', '.join(required)}): "
            "give its __init__ defaults for every parameter"
        )
    return cls


def scripted_agent(map_name: str) -> type[Agent]:
    """The script of a mini-game: by its name, or by the name a definition file (Name.json) gives it, so that a
    copy of MoveToBeacon.json saved as MyBeacon.json is played by MoveToBeacon's script."""
    name, shown = map_name, map_name
    if is_definition_path(map_name):
        name = definition_map(map_name).name  # UnknownMapError (a LaunchError) if it can't be read
        shown = f"{name!r} (the name {os.path.basename(map_name)} gives its mini-game)"
    script = SCRIPTED_AGENTS.get(name)
    if script is None:
        raise ValueError(
            f"no scripted agent for {shown}; scripted agents play {', '.join(SCRIPTED_AGENTS)} (or use "
            "--agent random)"
        )
    return script


def _required_parameters(cls: type) -> list[str]:
    """The parameters of `cls()` that have no default (none known if its signature can't be read)."""
    try:
        parameters = inspect.signature(cls).parameters.values()
    except (TypeError, ValueError):
        return []
    return [
        p.name for p in parameters if p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    ]


def make_agent(name: str, map_name: str, seed: int | None = None) -> Agent:
    """An instance of the agent `name` for `map_name` (RandomAgent gets `seed`); ValueError as agent_class
    says. An error of the agent's own __init__ is raised as it is."""
    cls = agent_class(name, map_name)
    return cls(seed=seed) if cls is RandomAgent else cls()
