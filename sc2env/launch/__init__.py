"""Find StarCraft II or use the built-in engine; start, watch and stop game processes."""

from sc2env.launch.command import LaunchPlan, plan_launch
from sc2env.launch.config import ENGINE_ENV_VAR, ENGINES, LaunchConfig
from sc2env.launch.install import Sc2Install, find_install
from sc2env.launch.process import GameProcess, describe_exit, launch, launch_plan
from sc2env.launch.versions import BUILTIN_VERSION, KNOWN_VERSIONS, Version, known_version
from sc2env.launch.workspace import sweep_orphaned_temp_dirs

__all__ = [
    "BUILTIN_VERSION",
    "ENGINES",
    "ENGINE_ENV_VAR",
    "KNOWN_VERSIONS",
    "GameProcess",
    "LaunchConfig",
    "LaunchPlan",
    "Sc2Install",
    "Version",
    "describe_exit",
    "find_install",
    "known_version",
    "launch",
    "launch_plan",
    "plan_launch",
    "sweep_orphaned_temp_dirs",
]
