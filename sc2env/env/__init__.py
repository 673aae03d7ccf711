"""The Gymnasium env, its vector env, configuration, observation layout and registration."""

from __future__ import annotations

import importlib

# Loaded on first use, so that `import sc2env` (which registers the env ids) stays light.
_EXPORTS = {
    "Bot": "sc2env.game",
    "EnvConfig": "sc2env.env.config",
    "SC2Env": "sc2env.env.env",
    "EnvState": "sc2env.env.env",
    "ActionMode": "sc2env.env.action_mode",
    "FeatureActions": "sc2env.env.feature_mode",
    "RawActions": "sc2env.env.raw_mode",
    "SC2VectorEnv": "sc2env.env.vector",
    "SC2WorkerVectorEnv": "sc2env.env.worker_vector",
    "COMPACT_UNIT_TYPES": "sc2env.env.compact_layers",
    "LayerSelection": "sc2env.env.compact_layers",
    "ObservationPacker": "sc2env.env.observation_packer",
    "env_ids": "sc2env.env.registration",
    "register_envs": "sc2env.env.registration",
    "register_minigame": "sc2env.env.registration",
    "ReplayStep": "sc2env.env.replay_watcher",
    "ReplayWatcher": "sc2env.env.replay_watcher",
    "watch_replay": "sc2env.env.replay_watcher",
    "DictActions": "sc2env.env.dict_actions",
    "SeatEnv": "sc2env.env.seat_env",
    "TwoPlayerParallelEnv": "sc2env.env.parallel",
    "parallel_env": "sc2env.env.parallel",
    "TwoPlayerVectorEnv": "sc2env.env.parallel_vector",
    "parallel_vector_env": "sc2env.env.parallel_vector",
    "RawActionSpace": "sc2env.interface.raw_space",
    "Episode": "sc2env.env.dataset",
    "export_replay": "sc2env.env.dataset",
    "load_episode": "sc2env.env.dataset",
}
__all__ = [
    "COMPACT_UNIT_TYPES",
    "ActionMode",
    "Bot",
    "DictActions",
    "EnvConfig",
    "EnvState",
    "Episode",
    "FeatureActions",
    "LayerSelection",
    "ObservationPacker",
    "RawActionSpace",
    "RawActions",
    "ReplayStep",
    "ReplayWatcher",
    "SC2Env",
    "SC2VectorEnv",
    "SC2WorkerVectorEnv",
    "SeatEnv",
    "TwoPlayerParallelEnv",
    "TwoPlayerVectorEnv",
    "env_ids",
    "export_replay",
    "load_episode",
    "parallel_env",
    "parallel_vector_env",
    "register_envs",
    "register_minigame",
    "watch_replay",
]


def __getattr__(name: str):
    if name not in _EXPORTS:
        raise AttributeError(f"module 'sc2env.env' has no attribute {name!r}")
    return getattr(importlib.import_module(_EXPORTS[name]), name)
