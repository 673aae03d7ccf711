"""The Gymnasium ids that `import sc2env` registers: `sc2env/<MiniGame>-v0` for each shipped mini-game and
two-player map (`sc2env/DuelMarines-v0`), and `sc2env/SC2-v0` for any map.

Registering needs only gymnasium's registry and the names of the shipped mini-game definitions: the env
classes are named by entry-point strings and load when an env is made. So `import sc2env` (which every
`import sc2env.<anything>` runs first, the built-in engine's process included) loads none of the env, game,
interface or client layers.
"""

from __future__ import annotations

from gymnasium.envs.registration import register, registry

from sc2env.mapfiles import minigame_names, two_player_definitions

ENTRY_POINT = "sc2env.env.env:SC2Env"
VECTOR_ENTRY_POINT = "sc2env.env.vector_entry:make_vector_env"
ANY_MAP_ID = "sc2env/SC2-v0"


def minigame_id(name: str) -> str:
    """The Gymnasium id of a shipped map (a mini-game or a two-player map): `sc2env/<name>-v0`."""
    return f"sc2env/{name}-v0"


def env_ids() -> list[str]:
    """The registered ids: mini-games, then two-player maps, then any map's."""
    return [minigame_id(name) for name in (*minigame_names(), *two_player_definitions())] + [ANY_MAP_ID]


def register_envs() -> None:
    """Register every id with gymnasium (idempotent: ids already registered are left alone)."""
    for name in (*minigame_names(), *two_player_definitions()):
        _register(minigame_id(name), {"map_name": name})
    _register(ANY_MAP_ID, {"map_name": None})  # no default map: SC2Env asks for one


def _register(env_id: str, kwargs: dict) -> None:
    if env_id in registry:
        return
    # No max_episode_steps here: the mini-games end on their own timers, and the env has its own safety cap.
    register(id=env_id, entry_point=ENTRY_POINT, vector_entry_point=VECTOR_ENTRY_POINT, kwargs=kwargs)
