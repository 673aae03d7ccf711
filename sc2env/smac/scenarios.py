"""SMAC's and SMACv2's scenario registry: one row per scenario, as SMAC's map parameters give it."""

from __future__ import annotations

import dataclasses
import difflib
import enum
import functools
import json

from sc2env.errors import UnknownMapError
from sc2env.mapfiles import definitions_dir

MAPS_FOLDER = "SMAC_Maps"
"""The folder under an install's `Maps/` that holds SMAC's map files (SMAC's pysc2 map class says so)."""


class Race(str, enum.Enum):
    """A side's race, by SMAC's one-letter code."""

    TERRAN = "T"
    ZERG = "Z"
    PROTOSS = "P"

    @property
    def game_name(self) -> str:
        """The name sc2env.game takes (Bot(race=...), MatchConfig.race)."""
        return self.name.lower()


@dataclasses.dataclass(frozen=True)
class Scenario:
    """One SMAC scenario: who fights whom, for how long, and how SMAC encodes unit types.

    map_file:       the map's file stem under `SMAC_Maps/` (SMACv2's generated scenarios share `32x32_flat`).
    limit:          the episode limit in agent steps.
    unit_type_bits: the length of the unit-type one-hot in observations and state (0: one type per side).
    map_type:       SMAC's family name, which decides the ally and enemy type one-hots (`unit_kinds`).
    """

    name: str
    n_agents: int
    n_enemies: int
    limit: int
    agent_race: Race
    enemy_race: Race
    unit_type_bits: int
    map_type: str
    map_file: str

    @property
    def map_path(self) -> str:
        """The map as `RequestCreateGame.local_map.map_path` takes it, relative to `Maps/`."""
        return f"{MAPS_FOLDER}/{self.map_file}.SC2Map"

    @property
    def generated(self) -> bool:
        """SMACv2's scenarios: the map spawns nothing and the env creates each episode's units itself."""
        return self.map_type.endswith("_gen")


_T, _Z, _P = Race.TERRAN, Race.ZERG, Race.PROTOSS


def _row(
    name: str,
    n_agents: int,
    n_enemies: int,
    limit: int,
    a: Race,
    b: Race,
    bits: int,
    map_type: str,
    map_file: str = "",
) -> Scenario:
    return Scenario(name, n_agents, n_enemies, limit, a, b, bits, map_type, map_file or name)


# SMAC's map_param_registry (name, n_agents, n_enemies, limit, agent race, enemy race, unit_type_bits, map_type),
# plus SMACv2's three generated scenarios, which all load the map 32x32_flat.
SCENARIOS: dict[str, Scenario] = {
    s.name: s
    for s in (
        _row("3m", 3, 3, 60, _T, _T, 0, "marines"),
        _row("8m", 8, 8, 120, _T, _T, 0, "marines"),
        _row("25m", 25, 25, 150, _T, _T, 0, "marines"),
        _row("5m_vs_6m", 5, 6, 70, _T, _T, 0, "marines"),
        _row("8m_vs_9m", 8, 9, 120, _T, _T, 0, "marines"),
        _row("10m_vs_11m", 10, 11, 150, _T, _T, 0, "marines"),
        _row("27m_vs_30m", 27, 30, 180, _T, _T, 0, "marines"),
        _row("MMM", 10, 10, 150, _T, _T, 3, "MMM"),
        _row("MMM2", 10, 12, 180, _T, _T, 3, "MMM"),
        _row("2s3z", 5, 5, 120, _P, _P, 2, "stalkers_and_zealots"),
        _row("3s5z", 8, 8, 150, _P, _P, 2, "stalkers_and_zealots"),
        _row("3s5z_vs_3s6z", 8, 9, 170, _P, _P, 2, "stalkers_and_zealots"),
        _row("3s_vs_3z", 3, 3, 150, _P, _P, 0, "stalkers"),
        _row("3s_vs_4z", 3, 4, 200, _P, _P, 0, "stalkers"),
        _row("3s_vs_5z", 3, 5, 250, _P, _P, 0, "stalkers"),
        _row("1c3s5z", 9, 9, 180, _P, _P, 3, "colossi_stalkers_zealots"),
        _row("2m_vs_1z", 2, 1, 150, _T, _P, 0, "marines"),
        _row("corridor", 6, 24, 400, _P, _Z, 0, "zealots"),
        _row("6h_vs_8z", 6, 8, 150, _Z, _P, 0, "hydralisks"),
        _row("2s_vs_1sc", 2, 1, 300, _P, _Z, 0, "stalkers"),
        _row("so_many_baneling", 7, 32, 100, _P, _Z, 0, "zealots"),
        _row("bane_vs_bane", 24, 24, 200, _Z, _Z, 2, "bane"),
        _row("2c_vs_64zg", 2, 64, 400, _P, _Z, 0, "colossus"),
        _row("10gen_terran", 10, 10, 200, _T, _T, 3, "terran_gen", "32x32_flat"),
        _row("10gen_zerg", 10, 10, 200, _Z, _Z, 3, "zerg_gen", "32x32_flat"),
        _row("10gen_protoss", 10, 10, 200, _P, _P, 3, "protoss_gen", "32x32_flat"),
    )
}
"""Every scenario by name: SMAC's 23 and SMACv2's `10gen_terran`, `10gen_zerg`, `10gen_protoss`."""

SMAC_SCENARIOS: tuple[str, ...] = tuple(name for name, s in SCENARIOS.items() if not s.generated)
"""SMAC's 23 scenarios, in SMAC's registry order."""


def get_scenario(name: str) -> Scenario:
    """The scenario called `name` (exactly as SMAC spells it); UnknownMapError names the close ones."""
    scenario = SCENARIOS.get(name) if isinstance(name, str) else None
    if scenario is not None:
        return scenario
    close = difflib.get_close_matches(str(name), SCENARIOS, n=3, cutoff=0.5)
    hint = f" Did you mean {', '.join(close)}?" if close else ""
    raise UnknownMapError(f"Unknown SMAC scenario {name!r}.{hint} Known scenarios: {', '.join(SCENARIOS)}.")


@functools.cache
def map_spawns(map_file: str) -> tuple[tuple[int, str, int], ...]:
    """What the map's start trigger spawns, as (player, unit type name, count) in trigger order, read from the
    map's description (`maps/smac/source/<map>.json`, see docs/smac.md)."""
    path = definitions_dir() / "smac" / "source" / f"{map_file}.json"
    source = json.loads(path.read_text(encoding="utf-8"))
    start = next(t for t in source["triggers"] if {"map_init": {}} in t["events"])
    return tuple(
        (spawn["player"], spawn["unit_type"], spawn["count"])
        for action in start["actions"]
        if (spawn := action.get("spawn")) is not None
    )
