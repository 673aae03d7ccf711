"""Round-trip time of a ping over sc2env's controller: one at a time vs pipelined in batches.

    python benchmarks/ping_roundtrip.py [--server builtin|tiny] [--pings 3000] [--batch 3 16]

The server is the built-in engine (started with sc2env.launch, as any game is); with `--server tiny`, or
when the engine cannot start, a tiny websocket server in another process that answers only pings.
The output says which one was measured.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env.client import Controller
from sc2env.errors import LaunchError
from sc2env.launch import launch

TINY_SERVER = """
import sys
from s2clientprotocol import sc2api_pb2 as sc_pb
from websockets.sync.server import serve

def handle(connection):
    for message in connection:
        request = sc_pb.Request.FromString(message)
        response = sc_pb.Response(id=request.id, status=sc_pb.launched)
        response.ping.base_build = 75689
        connection.send(response.SerializeToString())

with serve(handle, "127.0.0.1", int(sys.argv[1]), max_size=None) as server:
    print("ready", flush=True)
    server.serve_forever()
"""


def start_tiny_server():
    import portpicker

    port = portpicker.pick_unused_port()
    server = subprocess.Popen(
        [sys.executable, "-c", TINY_SERVER, str(port)], stdout=subprocess.PIPE, text=True
    )
    server.stdout.readline()
    return server, f"ws://127.0.0.1:{port}/sc2api"


def per_ping_us(ctrl: Controller, pings: int, batch: int) -> list[float]:
    """Microseconds per ping for each batch of `batch` pings written together (batch 1: one at a time)."""
    requests = [("ping", sc_pb.RequestPing())] * batch
    samples = []
    for _ in range(max(1, pings // batch)):
        started = time.perf_counter()
        if batch == 1:
            ctrl.ping()
        else:
            ctrl.pipeline(requests)
        samples.append((time.perf_counter() - started) / batch * 1e6)
    return samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", choices=("builtin", "tiny"), default="builtin")
    parser.add_argument("--pings", type=int, default=3000)
    parser.add_argument("--batch", type=int, nargs="+", default=[3, 16])
    args = parser.parse_args()

    game = tiny = None
    if args.server == "builtin":
        try:
            game = launch(engine="builtin")
            url, server_name = game.url, f"the built-in engine ({game.version}), a separate process"
        except LaunchError as error:
            print(f"The built-in engine did not start ({str(error).splitlines()[0]}); using the tiny server.")
    if game is None:
        tiny, url = start_tiny_server()
        server_name = "a tiny websockets ping server, a separate process"
    try:
        # Controller(game) takes over the connection the launcher opened to see the game ready.
        with Controller(game) if game is not None else Controller.connect(url) as ctrl:
            per_ping_us(ctrl, 300, 1)  # warm up both ends
            print(f"server: {server_name}, {url}")
            print(f"{'mode':<28}{'per ping, median':>18}{'mean':>10}{'p90':>10}   pings/s")
            for batch in [1, *args.batch]:
                samples = per_ping_us(ctrl, args.pings, batch)
                median = statistics.median(samples)
                p90 = statistics.quantiles(samples, n=10)[-1] if len(samples) >= 10 else max(samples)
                mode = "one at a time" if batch == 1 else f"pipelined, {batch} per write"
                print(
                    f"{mode:<28}{median:>15.1f} us{statistics.fmean(samples):>7.1f} us{p90:>7.1f} us"
                    f"{1e6 / statistics.fmean(samples):>10,.0f}"
                )
    finally:
        if game is not None:
            game.close()
        if tiny is not None:
            tiny.terminate()
            tiny.wait()


if __name__ == "__main__":
    main()
