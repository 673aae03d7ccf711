"""Generate sc2env/interface/function_table.py and raw_function_table.py: the function tables as plain data.

Facts come from two places, and nothing else is taken from them:
  * PySC2 (the `pysc2_evolved` fork, a dev-only reference): each function's id, name, kind, ability id and
    general ability id, of the feature-layer and the raw functions, so that sc2env's ids and names match
    PySC2's and users can switch;
  * a real `ResponseData` recording (../shared/realdata): each ability's target type, used to classify
    where a screen function may be aimed, and the unit types that hold minerals or vespene.

Usage (from the repository root, with pysc2_evolved installed):
    python tools/gen_function_table.py [--data FILE.data.pb.xz ...]   (default: every ResponseData in
    ../shared/realdata; ability targets come from the first, scales and resources from all of them)
"""

from __future__ import annotations

import argparse
import lzma
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[1]
OUT = ROOT / "sc2env" / "interface" / "function_table.py"
RAW_OUT = ROOT / "sc2env" / "interface" / "raw_function_table.py"
REALDATA = ROOT.parent / "shared" / "realdata"
DEFAULT_DATA = [
    REALDATA / "python-sc2_2000AtmospheresAIE.data.pb.xz",
    *sorted(p for p in REALDATA.glob("*.data.pb.xz") if "2000Atmospheres" not in p.name),
]

# PySC2 names its action constructors; sc2env names the function kinds.
KINDS = {
    "no_op": "no_op",
    "move_camera": "move_camera",
    "select_point": "select_point",
    "select_rect": "select_rect",
    "control_group": "select_control_group",
    "select_unit": "select_unit",
    "select_idle_worker": "select_idle_worker",
    "select_army": "select_army",
    "select_warp_gates": "select_warp_gates",
    "select_larva": "select_larva",
    "unload": "unload",
    "build_queue": "build_queue",
    "cmd_quick": "quick",
    "cmd_screen": "screen",
    "cmd_minimap": "minimap",
    "autocast": "autocast",
}

# Unit-targeted abilities aimed at one's own units; every other unit-only ability is aimed at an enemy.
OWN_UNIT_PREFIXES = (
    "Load_",
    "Effect_Repair",
    "Effect_Heal",
    "Effect_Transfusion",
    "Effect_ChronoBoost",
    "Effect_InjectLarva",
    "Effect_Restore",
    "Effect_SupplyDrop",
    "Effect_MassRecall_Mothership",
    "Effect_ViperConsume",
    "Effect_PhotonOvercharge",
)
# Point abilities whose caster must be able to stand (or land units) at the target.
PATHABLE_PREFIXES = (
    "Effect_Blink",
    "Effect_ShadowStride",
    "Effect_AdeptPhaseShift",
    "UnloadAllAt",
    "Effect_ForceField",
    "Effect_LocustSwoop",
)
PLACEABLE_PREFIXES = (
    "Build_",
    "Land_",
    "TrainWarp_",
    "Morph_SpineCrawlerRoot",
    "Morph_SporeCrawlerRoot",
    "Morph_Root",
    "Effect_AutoTurret",
)
GAS_BUILDINGS = ("Build_Assimilator", "Build_Extractor", "Build_Refinery")
# PySC2's raw function types; sc2env's raw function kinds.
RAW_KINDS = {
    "raw_no_op": "no_op",
    "raw_move_camera": "move_camera",
    "raw_cmd": "quick",
    "raw_cmd_pt": "point",
    "raw_cmd_unit": "unit",
    "raw_autocast": "autocast",
}


def screen_target(name: str, kind: str, target: str) -> str:
    """Classify where a screen-point function may sensibly be aimed (a hint for spatial masks)."""
    if kind in ("select_point", "select_rect"):
        return "any"
    if kind != "screen":
        return ""
    if name.startswith("Harvest_Gather") or name.startswith(GAS_BUILDINGS):
        return "resource"
    if name.startswith(PLACEABLE_PREFIXES):
        return "placeable"
    if name.startswith(PATHABLE_PREFIXES):
        return "pathable"
    if target == "Unit":
        return "own_unit" if name.startswith(OWN_UNIT_PREFIXES) else "enemy_unit"
    return "any"


def raw_target(name: str, kind: str, target: str) -> str:
    """Classify where a raw function's point or unit argument may sensibly be aimed (a hint for masks)."""
    if kind == "point":
        return screen_target(name, "screen", target)
    if kind != "unit":
        return ""
    if name.startswith("Harvest_Gather") or name.startswith(GAS_BUILDINGS):
        return "resource"
    if name.startswith(OWN_UNIT_PREFIXES):
        return "own_unit"
    return "enemy_unit" if target == "Unit" else "any"  # PointOrUnit abilities (Attack, Smart, ...): any unit


def raw_table(pysc2_actions, targets: dict[int, str]) -> str:
    """The text of raw_function_table.py."""
    rows = []
    for f in sorted(pysc2_actions.RAW_FUNCTIONS, key=lambda f: int(f.id)):
        kind = RAW_KINDS[f.function_type.__name__]
        target = raw_target(f.name, kind, targets.get(f.ability_id, ""))
        rows.append(f'    ({int(f.id)}, "{f.name}", "{kind}", {f.ability_id}, {f.general_id}, "{target}"),')
    if [int(f.id) for f in sorted(pysc2_actions.RAW_FUNCTIONS, key=lambda f: int(f.id))] != list(
        range(len(rows))
    ):
        raise SystemExit("raw function ids are not contiguous; the table format assumes they are")
    return f'''"""The raw function table (unit commands by tag, in world coordinates), as data.

Generated by tools/gen_function_table.py; edit the generator, not this file. Function ids and names match
PySC2's raw functions so that agents can switch.
"""

# One row per raw function, sorted by id:
#   (id, name, kind, ability id, general ability id (0: none), target class ("": no point or unit argument))
RAW_FUNCTION_TABLE: tuple[tuple[int, str, str, int, int, str], ...] = (
{chr(10).join(rows)}
)
'''


def wrapped(numbers: list[int], width: int = 100) -> str:
    """Numbers as indented lines of at most `width` characters."""
    lines, line = [], "   "
    for n in numbers:
        if len(line) + len(str(n)) + 2 > width:
            lines.append(line)
            line = "   "
        line += f" {n},"
    return "\n".join([*lines, line])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--data", type=pathlib.Path, nargs="+", default=DEFAULT_DATA, help="ResponseData .pb.xz files"
    )
    args = parser.parse_args()

    from pysc2_evolved.lib import actions as pysc2_actions
    from s2clientprotocol import data_pb2
    from s2clientprotocol import sc2api_pb2 as sc_pb

    datas = []
    for path in args.data:
        with lzma.open(path) as compressed:
            datas.append(sc_pb.ResponseData.FromString(compressed.read()))
    targets = {a.ability_id: data_pb2.AbilityData.Target.Name(a.target) for a in datas[0].abilities}
    resources = sorted({u.unit_id for d in datas for u in d.units if u.has_minerals or u.has_vespene})
    unit_type_scale = max(u.unit_id for d in datas for u in d.units) + 1
    buff_scale = max(b.buff_id for d in datas for b in d.buffs) + 1

    rows = []
    for f in sorted(pysc2_actions.FUNCTIONS, key=lambda f: int(f.id)):
        kind = KINDS[f.function_type.__name__]
        target = screen_target(f.name, kind, targets.get(f.ability_id, ""))
        rows.append(f'    ({int(f.id)}, "{f.name}", "{kind}", {f.ability_id}, {f.general_id}, "{target}"),')
    ids = [int(f.id) for f in pysc2_actions.FUNCTIONS]
    if sorted(ids) != list(range(len(ids))):
        raise SystemExit("function ids are not contiguous; the table format assumes they are")

    text = f'''"""The feature-layer function table and the static game facts the interface needs, as data.

Generated by tools/gen_function_table.py; edit the generator, not this file. Function ids and names match
PySC2's so that agents can switch; ability ids were checked against real ResponseData recordings.
"""

# One row per function, sorted by id:
#   (id, name, kind, ability id, general ability id (0: none), screen target class ("": no screen argument))
FUNCTION_TABLE: tuple[tuple[int, str, str, int, int, str], ...] = (
{chr(10).join(rows)}
)

# Unit types that hold minerals or vespene (mineral fields, geysers and the gas buildings on them).
# fmt: off
RESOURCE_UNIT_TYPES: frozenset[int] = frozenset((
{wrapped(resources)}
))
# fmt: on

# One more than the largest unit type id and buff id in the recorded ResponseData of several game builds:
# the `scale` of the unit_type and buffs layers.
UNIT_TYPE_SCALE = {unit_type_scale}
BUFF_SCALE = {buff_scale}
'''
    OUT.write_text(text)
    print(f"wrote {len(rows)} functions to {OUT.relative_to(ROOT)}")
    RAW_OUT.write_text(raw_table(pysc2_actions, targets))
    print(f"wrote {len(pysc2_actions.RAW_FUNCTIONS)} raw functions to {RAW_OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
