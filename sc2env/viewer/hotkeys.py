"""The game's Terran hotkeys as a table: which key (in which build menu) stands for which functions."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import TYPE_CHECKING

from sc2env.gamedata import UNIT_TYPES, UnitType
from sc2env.interface import FUNCTIONS, Function

if TYPE_CHECKING:
    from sc2env.viewer.scene import Scene


@dataclasses.dataclass(frozen=True)
class Hotkey:
    """A key of a command card: the first of `functions` that is available when it is pressed is used.

    Keys share letters across unit types, as in the game: S stops a Marine and trains an SCV at a Command
    Center. `menu` names the submenu the key belongs to (B opens the basic build menu), None for the main card.
    """

    key: str
    functions: tuple[str, ...]
    menu: str | None = None


HOTKEYS: tuple[Hotkey, ...] = (
    Hotkey("m", ("Move_screen",)),
    Hotkey("a", ("Attack_screen", "Train_Marine_quick")),
    Hotkey("s", ("Stop_quick", "Train_SCV_quick")),
    Hotkey("h", ("HoldPosition_quick",)),
    Hotkey("p", ("Patrol_screen",)),
    Hotkey("g", ("Harvest_Gather_screen",)),
    Hotkey("c", ("Harvest_Return_quick", "Cancel_Last_quick", "Cancel_quick")),
    Hotkey("r", ("Effect_Repair_screen", "Train_Reaper_quick")),
    Hotkey("y", ("Rally_Workers_screen", "Rally_Units_screen")),
    Hotkey("t", ("Effect_Stim_quick",)),
    Hotkey("e", ("Effect_Explode_quick",)),
    Hotkey("d", ("Train_Marauder_quick",)),
    Hotkey("l", ("Morph_SupplyDepot_Lower_quick", "Morph_SupplyDepot_Raise_quick")),
    Hotkey("c", ("Build_CommandCenter_screen",), "build"),
    Hotkey("s", ("Build_SupplyDepot_screen",), "build"),
    Hotkey("r", ("Build_Refinery_screen",), "build"),
    Hotkey("b", ("Build_Barracks_screen",), "build"),
    Hotkey("e", ("Build_EngineeringBay_screen",), "build"),
    Hotkey("u", ("Build_Bunker_screen",), "build"),
    Hotkey("t", ("Build_MissileTurret_screen",), "build"),
    Hotkey("n", ("Build_SensorTower_screen",), "build"),
    Hotkey("f", ("Build_Factory_screen",), "advanced"),
    Hotkey("s", ("Build_Starport_screen",), "advanced"),
    Hotkey("a", ("Build_Armory_screen",), "advanced"),
    Hotkey("g", ("Build_GhostAcademy_screen",), "advanced"),
    Hotkey("c", ("Build_FusionCore_screen",), "advanced"),
)
MENU_KEYS = {"b": "build", "v": "advanced"}
"""Keys that open a build menu (when any of its functions is available, or a worker is selected)."""
MENU_KEY = {menu: key for key, menu in MENU_KEYS.items()}


def key_functions(key: str, menu: str | None) -> list[Function]:
    """Every function `key` may stand for in `menu`, in the order they are tried."""
    return [
        FUNCTIONS[name]
        for hotkey in HOTKEYS
        if hotkey.key == key and hotkey.menu == menu
        for name in hotkey.functions
    ]


def find_hotkey(key: str, menu: str | None, available: Iterable[int]) -> Function | None:
    """The function `key` stands for in `menu` given the available function ids, or None."""
    available = {int(i) for i in available}
    return next((function for function in key_functions(key, menu) if function.id in available), None)


def menu_available(menu: str, available: Iterable[int]) -> bool:
    """Whether any function of a build menu is available."""
    available = {int(i) for i in available}
    return any(FUNCTIONS[name].id in available for h in HOTKEYS if h.menu == menu for name in h.functions)


def key_label(function: Function) -> str:
    """The keys that call a function, as shown next to it ("B S" for the depot), or ""."""
    for hotkey in HOTKEYS:
        if function.name in hotkey.functions:
            key = hotkey.key.upper()
            return f"{MENU_KEY[hotkey.menu].upper()} {key}" if hotkey.menu else key
    return {
        "select_army": "F2",
        "select_idle_worker": "F1",
        "Smart_screen": "R-click",
        "Smart_minimap": "R-click",
        "move_camera": "arrows",
        "select_point": "click",
        "select_rect": "drag",
        "select_control_group": "0-9",
    }.get(function.name, "")


def minimap_variant(function: Function) -> Function | None:
    """The `_minimap` twin of a `_screen` function (Attack_screen -> Attack_minimap), if there is one."""
    if not function.name.endswith("_screen"):
        return None
    name = function.name[: -len("_screen")] + "_minimap"
    try:
        return FUNCTIONS[name]
    except KeyError:
        return None


_NOTHING_AVAILABLE = "nothing available to this selection now"
# Structures that count as another for tech requirements (a lowered Supply Depot is still one).
_COUNTS_AS = {u.unit_id: u.tech_alias[0] for u in UNIT_TYPES.values() if u.tech_alias}
# What each production ability makes (morphs such as lowering a depot take no build time and cost nothing).
_MADE_BY = {u.build_ability: u for u in UNIT_TYPES.values() if u.build_ability and u.build_time}


@dataclasses.dataclass(frozen=True)
class Situation:
    """What the player has now, to say why a key does nothing: banked resources, free supply, and the unit
    types selected and owned (finished ones). None: not known (no observation yet; no raw units)."""

    minerals: int = 0
    vespene: int = 0
    free_supply: int = 0
    selected: frozenset[int] | None = None
    owned: frozenset[int] | None = None

    @classmethod
    def of(cls, scene: Scene) -> Situation:
        obs = scene.observation
        player = obs.player
        selected = [int(t) for table in (obs.single_select, obs.multi_select) for t in table[:, 0]]
        owned = None
        if len(scene.units):  # raw units: the player's own, finished ones
            units = scene.units
            mine = (units.alliance == 1) & (units.build_progress >= 1)
            owned = frozenset(_COUNTS_AS.get(t, t) for t in units.unit_type[mine].tolist())
        return cls(
            int(player.minerals),
            int(player.vespene),
            int(player.food_cap) - int(player.food_used),
            frozenset(selected),
            owned,
        )

    @property
    def builder(self) -> bool:
        """A worker is selected: its build menu opens, even when nothing in it is affordable."""
        return any(UNIT_TYPES[t].worker for t in self.selected or () if t in UNIT_TYPES)

    def why_not(self, key: str, menu: str | None) -> str:
        """Why `key` (in `menu`) calls nothing now, as precisely as the game data tells."""
        if self.selected is None:
            return _NOTHING_AVAILABLE
        if not self.selected:
            return "nothing is selected"
        cards = {a for t in self.selected if t in UNIT_TYPES for a in UNIT_TYPES[t].command_card}
        for function in key_functions(key, menu):
            made = _MADE_BY.get(function.ability_id)
            if made is not None and function.ability_id in cards:
                return f"{function.name}: {self._shortfall(made) or 'not available now'}"
        return _NOTHING_AVAILABLE

    def _shortfall(self, made: UnitType) -> str:
        if made.mineral_cost > self.minerals or made.vespene_cost > self.vespene:
            cost = f"{made.mineral_cost} minerals" + (
                f" and {made.vespene_cost} gas" if made.vespene_cost else ""
            )
            have = f"{self.minerals}" + (f" and {self.vespene}" if made.vespene_cost else "")
            return f"not enough resources: it costs {cost}, you have {have}"
        if made.food_required > self.free_supply:
            return (
                f"not enough supply: it takes {made.food_required:g}, {self.free_supply} free "
                "(build a Supply Depot)"
            )
        need = made.tech_requirement
        if need and self.owned is not None and need not in self.owned:
            return (
                f"it needs a finished {UNIT_TYPES[need].name if need in UNIT_TYPES else f'unit type {need}'}"
            )
        return ""
