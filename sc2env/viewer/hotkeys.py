"""The game's Terran hotkeys as a table: which key (in which build menu) stands for which functions."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from sc2env.interface import FUNCTIONS, Function


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
"""Keys that open a build menu (when any of its functions is available)."""


def find_hotkey(key: str, menu: str | None, available: Iterable[int]) -> Function | None:
    """The function `key` stands for in `menu` given the available function ids, or None."""
    available = {int(i) for i in available}
    for hotkey in HOTKEYS:
        if hotkey.key == key and hotkey.menu == menu:
            for name in hotkey.functions:
                if FUNCTIONS[name].id in available:
                    return FUNCTIONS[name]
    return None


def menu_available(menu: str, available: Iterable[int]) -> bool:
    """Whether any function of a build menu is available."""
    available = {int(i) for i in available}
    return any(FUNCTIONS[name].id in available for h in HOTKEYS if h.menu == menu for name in h.functions)


def key_label(function: Function) -> str:
    """The keys that call a function, as shown next to it ("B S" for the depot), or ""."""
    menu_key = {menu: key for key, menu in MENU_KEYS.items()}
    for hotkey in HOTKEYS:
        if function.name in hotkey.functions:
            key = hotkey.key.upper()
            return f"{menu_key[hotkey.menu].upper()} {key}" if hotkey.menu else key
    return {"select_army": "F2", "select_idle_worker": "F1", "Smart_screen": "R-click",
            "Smart_minimap": "R-click", "move_camera": "arrows", "select_point": "click",
            "select_rect": "drag", "select_control_group": "0-9"}.get(function.name, "")


def minimap_variant(function: Function) -> Function | None:
    """The `_minimap` twin of a `_screen` function (Attack_screen -> Attack_minimap), if there is one."""
    if not function.name.endswith("_screen"):
        return None
    name = function.name[: -len("_screen")] + "_minimap"
    return FUNCTIONS[name] if name in FUNCTIONS else None  # noqa: SIM401  (Functions is no dict: no .get)
