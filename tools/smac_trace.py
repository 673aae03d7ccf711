"""Play SMAC episodes and log every unit at every agent step: position, life and shields, weapon cooldown, the
unit it is engaged with and its first order (the evidence behind docs/smac.md's notes on the win rates).

    python tools/smac_trace.py 2s3z --policy heuristic [--seed 0] [--episodes 1] [--jsonl runs/2s3z.jsonl]

Units are named by side and SMAC id (a0 is agent 0, e3 enemy 3). Printed as a table per step, or one JSON
object per unit and step with --jsonl. The enemy's orders and weapon cooldowns are what the raw interface
shows of another player's units (the real game hides both).
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys
from collections.abc import Iterator
from typing import Any, TextIO

import numpy as np

from sc2env.smac import StarCraft2Env

POLICIES = ("random", "heuristic")


def unit_rows(env: StarCraft2Env, episode: int, step: int) -> Iterator[dict[str, Any]]:
    """One record per living unit of both sides."""
    sides = (("a", env.agents), ("e", env.enemies))
    names = {unit.tag: f"{side}{i}" for side, units in sides for i, unit in units.items()}
    for side, units in sides:
        for i, unit in units.items():
            if unit.health <= 0:
                continue
            order = unit.orders[0] if unit.orders else None
            target: str | list[float] | None = None
            if order is not None:
                target = (
                    names.get(order.target_unit_tag, str(order.target_unit_tag))
                    if order.target_unit_tag
                    else [round(order.target_world_space_pos.x, 2), round(order.target_world_space_pos.y, 2)]
                )
            yield {
                "episode": episode,
                "step": step,
                "unit": f"{side}{i}",
                "type": unit.unit_type,
                "x": round(unit.pos.x, 3),
                "y": round(unit.pos.y, 3),
                "health": round(unit.health, 2),
                "shield": round(unit.shield, 2),
                "cooldown": round(unit.weapon_cooldown, 2),
                "engaged": names.get(unit.engaged_target_tag),
                "order": order.ability_id if order is not None else None,
                "order_target": target,
            }


def print_table(rows: list[dict[str, Any]], out: TextIO) -> None:
    """The records of one step as aligned text."""
    for r in rows:
        order = f"{r['order']}->{r['order_target']}" if r["order"] is not None else "-"
        out.write(
            f"  {r['unit']:>4} type {r['type']:>4} ({r['x']:6.2f},{r['y']:6.2f}) hp {r['health']:6.1f} "
            f"sh {r['shield']:5.1f} cd {r['cooldown']:5.1f} engaged {r['engaged'] or '-':>4} {order}\n"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("map_name")
    parser.add_argument("--policy", choices=POLICIES, default="heuristic")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--episodes", type=int, default=1)
    parser.add_argument("--jsonl", type=pathlib.Path, help="write one JSON object per unit and step here")
    args = parser.parse_args(argv)
    if args.episodes < 1:
        parser.error(f"--episodes must be at least 1, not {args.episodes}")
    rng = np.random.default_rng(args.seed)
    sink = None
    if args.jsonl:
        args.jsonl.parent.mkdir(parents=True, exist_ok=True)
        sink = args.jsonl.open("w")
    wins = 0
    try:
        with StarCraft2Env(
            map_name=args.map_name, seed=args.seed, heuristic_ai=args.policy == "heuristic"
        ) as env:
            for episode in range(args.episodes):
                env.reset()
                terminated, info, step = False, {}, 0
                while not terminated:
                    rows = list(unit_rows(env, episode, step))
                    if sink is not None:
                        sink.writelines(json.dumps(r) + "\n" for r in rows)
                    else:
                        sys.stdout.write(f"--- episode {episode} step {step}\n")
                        print_table(rows, sys.stdout)
                    avail = np.array(env.get_avail_actions())
                    # The heuristic ignores the actions given; a random policy picks among the available ones.
                    _, terminated, info = env.step(np.argmax(rng.random(avail.shape) * avail, axis=1))
                    step += 1
                wins += bool(info.get("battle_won"))
                print(f"episode {episode}: {step} steps, {info}")
    finally:
        if sink is not None:
            sink.close()
    print(f"won {wins} of {args.episodes}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
