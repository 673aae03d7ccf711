"""Read SMAC's (and SMACv2's) .SC2Map files into scenario descriptions: maps/smac/source/<map>.json.

Each description holds what the built-in engine needs to stage the scenario without the map file: map size
and bounds, named points, the map's own unit types with every field they set, the triggers (spawns, the
enemy's orders, the respawn rule) and the terrain layers. The format is documented in docs/smac.md. Output
is deterministic: the same map file always gives the same bytes.

Usage (from the repository root):
    python tools/smac_maps.py                                   # SMAC's 23 maps from ../shared/realdata
    python tools/smac_maps.py path/to/SMAC_Maps --only 32x32_flat 10gen_terran
    python tools/smac_maps.py --check                           # fail if a written file is out of date
"""

from __future__ import annotations

import argparse
import pathlib
import sys

from sc2mapfile import scenario

ROOT = pathlib.Path(__file__).resolve().parents[1]
DEFAULT_SOURCE = ROOT.parent / "shared" / "realdata" / "smac_maps"
DEFAULT_OUT = ROOT / "maps" / "smac" / "source"


def _summary(description: dict) -> str:
    sides: dict[int, list[str]] = {}
    for spawn in scenario.spawned_units(description):
        sides.setdefault(spawn["player"], []).append(f"{spawn['count']} {spawn['unit_type']}")
    width, height = description["map_info"]["map_size"]
    teams = " vs ".join(", ".join(units) for _, units in sorted(sides.items())) or "no units at map start"
    return f"{description['name']:18} {width}x{height}  {teams}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "sources", nargs="*", type=pathlib.Path, help=f"folders or .SC2Map files ({DEFAULT_SOURCE})"
    )
    parser.add_argument("--out", type=pathlib.Path, default=DEFAULT_OUT, help="where the JSON files go")
    parser.add_argument(
        "--only", nargs="+", metavar="MAP", help="only these maps (file names without .SC2Map)"
    )
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if a file would change")
    args = parser.parse_args(argv)

    files = []
    for source in args.sources or [DEFAULT_SOURCE]:
        if not source.exists():
            parser.error(f"{source} does not exist; pass a folder of .SC2Map files (SMAC's SMAC_Maps)")
        files += sorted(source.glob("*.SC2Map")) if source.is_dir() else [source]
    if args.only:
        unknown = set(args.only) - {file.stem for file in files}
        if unknown:
            parser.error(
                f"no map file for {', '.join(sorted(unknown))} in {', '.join(map(str, args.sources))}"
            )
        files = [file for file in files if file.stem in args.only]
    if not files:
        parser.error("no .SC2Map files found")

    stale = []
    for file in files:
        try:
            description = scenario.read_map(file)
        except scenario.MapFileError as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
        text = scenario.dumps(description)
        target = args.out / f"{file.stem}.json"
        if args.check:
            if not target.exists() or target.read_text() != text:
                stale.append(target)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
        print(_summary(description))
    if stale:
        print("out of date (run tools/smac_maps.py): " + ", ".join(map(str, stale)), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
