"""Agent steps per second of the built-in engine on the mini-games, over the socket, and where the time goes.

One agent step = RequestAction + RequestStep(8) + RequestObservation with all 27 screen and 11 minimap layers
at 64x64, written back to back (pipelined) and then read. The action is what a random agent sends with
everything selected: Move_screen, Attack_screen or Smart_screen at a random point, or a no-op (a quarter
each), so units walk, fight, harvest and stand. Episodes that end are restarted and everything selected again.
Run: python benchmarks/engine_steps.py [--steps N] [--map all | MoveToBeacon,DefeatRoaches,...]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

import numpy as np
import portpicker
import websocket
from s2clientprotocol import common_pb2
from s2clientprotocol import sc2api_pb2 as sc_pb

RES = 64


def interface_options() -> sc_pb.InterfaceOptions:
    options = sc_pb.InterfaceOptions(raw=False, score=True)
    fl = options.feature_layer
    fl.width = 24
    fl.allow_cheating_layers = True  # all 38 layers: without it the minimap's unit_type is not sent
    fl.resolution.x = fl.resolution.y = RES
    fl.minimap_resolution.x = fl.minimap_resolution.y = RES
    return options


def setup_requests(map_name: str) -> list[sc_pb.Request]:
    create = sc_pb.RequestCreateGame(
        local_map=sc_pb.LocalMap(map_path=f"mini_games/{map_name}.SC2Map"), random_seed=1
    )
    create.player_setup.add(type=sc_pb.Participant, race=common_pb2.Terran)
    select_all = sc_pb.Action()
    rect = select_all.action_feature_layer.unit_selection_rect.selection_screen_coord.add()
    rect.p1.x = rect.p1.y = RES - 1
    return [
        sc_pb.Request(create_game=create),
        sc_pb.Request(join_game=sc_pb.RequestJoinGame(race=common_pb2.Terran, options=interface_options())),
        sc_pb.Request(action=sc_pb.RequestAction(actions=[select_all])),
    ]


MAPS = (
    "MoveToBeacon",
    "CollectMineralShards",
    "FindAndDefeatZerglings",
    "DefeatRoaches",
    "DefeatZerglingsAndBanelings",
    "CollectMineralsAndGas",
    "BuildMarines",
)
# General Move, Attack and Smart as PySC2 sends them, and a no-op (an empty action).
ABILITIES = (3794, 3674, 1, None)


def step_requests(rng: np.random.Generator, n: int) -> list[list[bytes]]:
    """Serialized (action, step, observation) triples, made up front so the loop times only the exchange."""
    out = []
    for _ in range(n):
        action = sc_pb.Action()
        ability = ABILITIES[int(rng.integers(len(ABILITIES)))]
        if ability is not None:
            cmd = action.action_feature_layer.unit_command
            cmd.ability_id = ability
            cmd.target_screen_coord.x, cmd.target_screen_coord.y = (int(v) for v in rng.integers(0, RES, 2))
        out.append(
            [
                sc_pb.Request(action=sc_pb.RequestAction(actions=[action])).SerializeToString(),
                sc_pb.Request(step=sc_pb.RequestStep(count=8)).SerializeToString(),
                sc_pb.Request(observation=sc_pb.RequestObservation()).SerializeToString(),
            ]
        )
    return out


RESTART = sc_pb.Request(restart_game=sc_pb.RequestRestartGame()).SerializeToString()
# A restart clears the selection; select everything again so the next episode's steps are busy too.
SELECT_ALL = setup_requests("MoveToBeacon")[2].SerializeToString()


def start_engine() -> tuple[subprocess.Popen, websocket.WebSocket, float]:
    port = portpicker.pick_unused_port()
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "sc2env.engine", "-listen", "127.0.0.1", "-port", str(port)]
    )
    while True:
        try:
            ws = websocket.create_connection(f"ws://127.0.0.1:{port}/sc2api", timeout=30)
            break
        except OSError:
            time.sleep(0.005)
    ws.send_binary(sc_pb.Request(ping=sc_pb.RequestPing()).SerializeToString())
    ws.recv()
    return proc, ws, time.perf_counter() - t0


def over_socket(ws: websocket.WebSocket, triples: list[list[bytes]]) -> tuple[float, float]:
    """Run the pipelined loop; returns (seconds, of which client-side parsing seconds).

    Like sc2env's client, the three requests go out as three BINARY frames in one write; the answers are
    read with websocket-client.
    """
    parse = 0.0
    binary = websocket.ABNF.OPCODE_BINARY
    t0 = time.perf_counter()
    for triple in triples:
        ws.sock.sendall(b"".join(websocket.ABNF.create_frame(m, binary).format() for m in triple))
        for _ in triple:
            raw = ws.recv_data()[1]
            t = time.perf_counter()
            response = sc_pb.Response.FromString(raw)
            parse += time.perf_counter() - t
        if response.status == sc_pb.ended:
            for message in (RESTART, SELECT_ALL):
                ws.send_binary(message)
                ws.recv()
    return time.perf_counter() - t0, parse


def in_process(map_name: str, triples: list[list[bytes]]) -> dict[str, float]:
    """The same requests handled without sockets, timing the engine's parts (seconds per agent step)."""
    from sc2env.engine import render
    from sc2env.engine.session import Session

    session = Session()
    for request in setup_requests(map_name):
        session.handle(request.SerializeToString())
    times = dict.fromkeys(("simulate", "render layers", "build+serialize observation", "action"), 0.0)
    original_render = render.LayerRenderer.render

    def timed_render(self, *args, **kwargs):
        t = time.perf_counter()
        out = original_render(self, *args, **kwargs)
        times["render layers"] += time.perf_counter() - t
        return out

    render.LayerRenderer.render = timed_render
    try:
        for action, step, obs in triples:  # `answer`, as the server calls it (pieces, not joined)
            t0 = time.perf_counter()
            session.answer(action)
            t1 = time.perf_counter()
            session.answer(step)
            t2 = time.perf_counter()
            session.answer(obs)
            t3 = time.perf_counter()
            times["action"] += t1 - t0
            times["simulate"] += t2 - t1
            times["build+serialize observation"] += t3 - t2
            if session.status == sc_pb.ended:
                session.handle(RESTART)
                session.handle(SELECT_ALL)
    finally:
        render.LayerRenderer.render = original_render
    times["build+serialize observation"] -= times["render layers"]
    return {k: v / len(triples) for k, v in times.items()}


def measure(ws: websocket.WebSocket, map_name: str, triples: list[list[bytes]]) -> tuple[float, float, int]:
    """(seconds, client parse seconds, observation bytes) of the pipelined loop on one mini-game."""
    for request in setup_requests(map_name):
        ws.send_binary(request.SerializeToString())
        ws.recv()
    over_socket(ws, triples[:200])  # warm-up
    seconds, parse = over_socket(ws, triples)
    ws.send_binary(triples[0][2])
    return seconds, parse, len(ws.recv())


def via_controller(map_name: str, triples: list[list[bytes]]) -> float:
    """Agent steps per second through sc2env's own client (launch + Controller.act_step_observe)."""
    from sc2env.client.controller import Controller
    from sc2env.launch import launch

    actions = [sc_pb.Request.FromString(action).action.actions for action, _, _ in triples]
    process = launch(engine="builtin")
    try:
        with Controller(process) as controller:
            create, join, select = setup_requests(map_name)
            controller.create_game(create.create_game)
            controller.join_game(join.join_game)
            controller.act_step_observe(select.action.actions, 1)
            start = time.perf_counter()
            for action in actions:
                if controller.act_step_observe(action, 8).player_result:
                    controller.restart_game()
                    controller.action(select.action)
            return len(actions) / (time.perf_counter() - start)
    finally:
        process.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=3000, help="agent steps per mini-game")
    parser.add_argument("--map", default="all", help="'all' or comma-separated mini-games")
    args = parser.parse_args()
    maps = MAPS if args.map == "all" else tuple(args.map.split(","))
    triples = step_requests(np.random.default_rng(0), args.steps)
    proc, ws, startup = start_engine()
    results = {}
    try:
        for map_name in maps:
            results[map_name] = measure(ws, map_name, triples)
        ws.send_binary(sc_pb.Request(quit=sc_pb.RequestQuit()).SerializeToString())
        ws.close()
    finally:
        proc.wait(10)
    print(
        f"{RES}x{RES} screen and minimap, all 38 layers, step_mul 8, pipelined over the socket; "
        f"{args.steps} steps per mini-game"
    )
    print(f"engine start-up to first ping answer: {startup * 1000:.0f} ms\n")
    print(
        f"{'mini-game':30s} {'steps/s':>8s} {'loops/s':>8s} {'sc2env':>8s} {'obs KiB':>8s}   engine us per "
        f"step: simulate / layers / observation / action"
    )
    through_sc2env = {}
    for map_name, (seconds, _parse, size) in results.items():
        per_step = seconds / args.steps
        parts = in_process(map_name, triples)
        client = through_sc2env[map_name] = via_controller(map_name, triples)
        engine = " / ".join(f"{v * 1e6:.0f}" for v in parts.values())
        print(
            f"{map_name:30s} {1 / per_step:8.0f} {8 / per_step:8.0f} {client:8.0f} {size / 1024:8.0f}   {engine}"
        )
    print(
        "\nsteps/s: a minimal websocket-client loop; sc2env: the same steps through sc2env's Controller "
        "(launch + act_step_observe).\nThe rest of each step is the client's protobuf parse, framing and the "
        "two sockets."
    )
    print_targets(through_sc2env)


def print_targets(steps_per_second: dict[str, float]) -> None:
    """The issues' targets against the figures through sc2env's client."""
    if "MoveToBeacon" in steps_per_second:
        figure = steps_per_second["MoveToBeacon"]
        print(f"target MoveToBeacon >= 2,000 agent steps/s: {figure:.0f}, {verdict(figure >= 2000)}")
    slow = {name: figure for name, figure in steps_per_second.items() if figure < 1000}
    below = ", ".join(f"{name} {figure:.0f}" for name, figure in slow.items())
    print(
        f"target every mini-game >= 1,000 agent steps/s ({len(steps_per_second)} mini-games run): "
        f"{verdict(not slow)}{' (below: ' + below + ')' if slow else ''}"
    )


def verdict(met: bool) -> str:
    return "met" if met else "NOT met"


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    main()
