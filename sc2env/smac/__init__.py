"""SMAC and SMACv2 on sc2env: SMAC's StarCraft2Env, a PettingZoo parallel env and SMACv2's capability wrapper.

`from sc2env.smac import StarCraft2Env` stands in for `from smac.env import StarCraft2Env` (docs/smac.md).
"""

from __future__ import annotations

import importlib

# Loaded on first use: the scenario table alone must not load the env (nor PettingZoo, an optional extra).
_EXPORTS = {
    "StarCraft2Env": "sc2env.smac.env",
    "MultiAgentEnv": "sc2env.smac.multiagent",
    "SCENARIOS": "sc2env.smac.scenarios",
    "SMAC_SCENARIOS": "sc2env.smac.scenarios",
    "Scenario": "sc2env.smac.scenarios",
    "get_scenario": "sc2env.smac.scenarios",
    "parallel_env": "sc2env.smac.parallel",
    "SmacParallelEnv": "sc2env.smac.parallel",
    "StarCraftCapabilityEnvWrapper": "sc2env.smac.capability",
    "CapabilityConfigError": "sc2env.smac.distributions",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name not in _EXPORTS:
        raise AttributeError(f"module 'sc2env.smac' has no attribute {name!r}")
    return getattr(importlib.import_module(_EXPORTS[name]), name)
