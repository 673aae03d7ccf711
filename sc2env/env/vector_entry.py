"""The vector entry point of sc2env's ids: a game process per sub-env, or a few worker processes."""

from __future__ import annotations

from typing import Any

from gymnasium.vector import VectorEnv

from sc2env.game.match_config import require_count


def make_vector_env(num_envs: int = 1, workers: int = 0, **kwargs: Any) -> VectorEnv:
    """`gym.make_vec(id, num_envs, workers=...)`: workers=0 (default) makes an SC2VectorEnv (each game in a
    process of its own, over a socket, stepped from this process); workers=N an SC2WorkerVectorEnv (N worker
    processes, each playing its share of the games in direct mode, observations in shared memory)."""
    if workers == 0:
        from sc2env.env.vector import SC2VectorEnv

        return SC2VectorEnv(num_envs, **kwargs)
    require_count("workers", workers, "process (or 0: a game process per sub-env)")
    from sc2env.env.worker_vector import SC2WorkerVectorEnv

    return SC2WorkerVectorEnv(num_envs, workers=workers, **kwargs)
