"""The engine's part of a SMAC env step: its time per step on SMAC's scenarios, in process, and where it goes.

One step is what SMAC sends: RequestAction with one raw unit command per living agent (attack a random enemy
or move 2 cells, half each), RequestStep(8) and RequestObservation (raw only), answered by one engine Session
in this process (no socket, no client): the ceiling the engine puts on env steps per second. A battle that ends
is reset as SMAC does (kill_unit on everyone, step 2). Also reports how the step time grows with the unit
count, so a cost quadratic in the units would show between 3m and 27m_vs_30m. CPU µs per step is this
process's CPU time (no other process takes part), the figure to compare on a machine shared with other work.

    python benchmarks/smac_engine_steps.py [--steps 2000] [--map 3m,8m,2s3z,27m_vs_30m] [--profile]
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import time

import numpy as np
from s2clientprotocol import common_pb2, debug_pb2
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env.engine.session import Session

ATTACK, MOVE = 23, 16


def request(**kind) -> bytes:
    return sc_pb.Request(**kind).SerializeToString()


class Battle:
    """One engine Session playing a SMAC map as SMAC does, with a random policy."""

    def __init__(self, map_name: str, seed: int = 0) -> None:
        self.session = Session()
        create = sc_pb.RequestCreateGame(local_map=sc_pb.LocalMap(map_path=f"SMAC_Maps/{map_name}.SC2Map"))
        create.random_seed = seed
        create.player_setup.add(type=sc_pb.Participant)
        create.player_setup.add(type=sc_pb.Computer, race=common_pb2.Terran, difficulty=sc_pb.VeryHard)
        self.ask(create_game=create)
        options = sc_pb.InterfaceOptions(raw=True, score=False)
        self.ask(join_game=sc_pb.RequestJoinGame(race=common_pb2.Terran, options=options))
        self.rng = np.random.default_rng(seed)
        self.obs = self.ask(observation=sc_pb.RequestObservation()).observation
        self._step = request(step=sc_pb.RequestStep(count=8))
        self._observe = request(observation=sc_pb.RequestObservation())
        self.resets = 0

    def ask(self, **kind) -> sc_pb.Response:
        answer = sc_pb.Response.FromString(self.session.handle(request(**kind)))
        if answer.error:
            raise RuntimeError(f"{next(iter(kind))}: {list(answer.error)}")
        return answer

    def step(self) -> int:
        """One SMAC step; returns the number of living units it started with."""
        units = self.obs.observation.raw_data.units
        agents = [u for u in units if u.owner == 1]
        enemies = [u for u in units if u.owner == 2]
        if not agents or not enemies:
            kill = debug_pb2.DebugKillUnit(tag=[u.tag for u in units])
            self.ask(debug=sc_pb.RequestDebug(debug=[debug_pb2.DebugCommand(kill_unit=kill)]))
            self.ask(step=sc_pb.RequestStep(count=2))
            self.obs = self.ask(observation=sc_pb.RequestObservation()).observation
            self.resets += 1
            return len(units)
        action = sc_pb.RequestAction()
        for agent in agents:
            command = action.actions.add().action_raw.unit_command
            command.unit_tags.append(agent.tag)
            if self.rng.random() < 0.5:
                command.ability_id = ATTACK
                command.target_unit_tag = enemies[int(self.rng.integers(len(enemies)))].tag
            else:
                command.ability_id = MOVE
                point = command.target_world_space_pos
                point.x, point.y = (
                    agent.pos.x + self.rng.uniform(-2, 2),
                    agent.pos.y + self.rng.uniform(-2, 2),
                )
        self.session.handle(request(action=action))
        self.session.handle(self._step)
        self.obs = sc_pb.Response.FromString(self.session.handle(self._observe)).observation
        return len(units)


def run(map_name: str, steps: int) -> tuple[float, float, float, int]:
    """(steps per second, CPU µs per step, mean living units per step, resets) over `steps` steps after a
    warm-up."""
    battle = Battle(map_name)
    for _ in range(50):
        battle.step()
    units = 0
    start, cpu = time.perf_counter(), time.process_time()
    for _ in range(steps):
        units += battle.step()
    elapsed, used = time.perf_counter() - start, time.process_time() - cpu
    return steps / elapsed, used / steps * 1e6, units / steps, battle.resets


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--map", default="3m,8m,2s3z,27m_vs_30m")
    parser.add_argument("--profile", action="store_true", help="cProfile the last map's steps")
    args = parser.parse_args()
    print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} (other work slows every figure)")
    print(
        f"{'scenario':12s} {'steps/s':>8s} {'ms/step':>8s} {'CPU us/step':>12s} {'units':>6s} "
        f"{'us/unit/step':>13s} {'resets':>7s}"
    )
    for map_name in args.map.split(","):
        rate, cpu, units, resets = run(map_name, args.steps)
        per_unit = 1e6 / rate / units
        print(
            f"{map_name:12s} {rate:8.0f} {1e3 / rate:8.2f} {cpu:12.0f} {units:6.1f} {per_unit:13.1f} "
            f"{resets:7d}"
        )
    if args.profile:
        battle = Battle(args.map.split(",")[-1])
        with cProfile.Profile() as profile:
            for _ in range(args.steps):
                battle.step()
        pstats.Stats(profile).sort_stats("cumulative").print_stats(25)


if __name__ == "__main__":
    main()
