"""Golden hashes: the engine answers a fixed line of play on each mini-game with exactly the same bytes.

The engine's speed work (caches, sparse layer writes, batched orders, hand-encoded messages) must not change
what it plays or shows. Each map plays 250 agent steps of scripted and random actions (selections, control
groups, camera moves, Move / Attack / Smart / other abilities, raw commands, varied step lengths, restarts),
with raw data, feature layers and an RGB render on, and every Response's bytes are hashed.

An intended change of behaviour or of the wire bytes (or a new protobuf / numpy release that encodes or
rounds differently) changes these hashes: check the change is meant, then regenerate the table with
    python tests/engine/test_engine_golden.py
and paste its output over GOLDEN below.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest
from engine_helpers import SEVEN_MINI_GAMES, create_request, join_request, random_action
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env.engine.session import Session

GOLDEN = {
    "MoveToBeacon": "778bace5d171b5161a63625db2c8b3cc952acfd68da8e09b59268c7598ff8827",
    "CollectMineralShards": "fbca5d2a7730a823e3756c7daf760175dd3e178cbbe4228897f8fa777e5cf185",
    "FindAndDefeatZerglings": "67bcfe28ade1dbf0f368a42c86de0571ee8512dd153cb6d8b535f4f3dfeb1802",
    "DefeatRoaches": "81e4972d3ce73b0d1613b6bdec1b654897875278d8f6bb99a5d955191e145851",
    "DefeatZerglingsAndBanelings": "5e3e8d66f948cde72ad3e838144996425225b702502bbabc2e0a178f4f42dff8",
    "CollectMineralsAndGas": "73ee3865c773fb746c8624a4b2fc517cba6eea9353557abfb8947008dfa2d140",
    "BuildMarines": "92280cce7f5a6e47511716b2dfc6aebfc15fbcc411b189d6f921b505b7ba11f9",
}

def _options() -> sc_pb.InterfaceOptions:
    options = sc_pb.InterfaceOptions(raw=True, score=True)
    fl = options.feature_layer
    fl.width = 24
    fl.resolution.x = fl.resolution.y = 64
    fl.allow_cheating_layers = True  # every layer, the minimap's unit_type too
    fl.minimap_resolution.x = fl.minimap_resolution.y = 64
    rd = options.render
    rd.resolution.x = rd.resolution.y = 32
    rd.minimap_resolution.x = rd.minimap_resolution.y = 16
    return options


def play(map_name: str, steps: int = 250) -> str:
    """sha256 of every answer to a fixed line of play (seeded) on `map_name`."""
    rng = np.random.default_rng(sum(map(ord, map_name)))
    session = Session()
    digest = hashlib.sha256()

    def ask(**request) -> sc_pb.Response:
        data = session.handle(sc_pb.Request(**request).SerializeToString())
        digest.update(data)
        return sc_pb.Response.FromString(data)

    ask(create_game=create_request(map_name, seed=4))
    ask(join_game=join_request(_options()))
    for step in range(steps):
        if session.status == sc_pb.ended:
            ask(restart_game=sc_pb.RequestRestartGame())
        tags = session.game.world.tag.tolist()
        ask(action=sc_pb.RequestAction(actions=[random_action(rng, step, tags)]))
        ask(step=sc_pb.RequestStep(count=(8, 8, 8, 1, 16)[step % 5]))
        ask(observation=sc_pb.RequestObservation())
    return digest.hexdigest()


@pytest.mark.parametrize("map_name", SEVEN_MINI_GAMES)
def test_same_play_gives_the_same_bytes(map_name):
    assert play(map_name) == GOLDEN[map_name], (
        "the engine's answers changed; if that is intended, regenerate GOLDEN (see the module docstring)")


if __name__ == "__main__":
    print("GOLDEN = {")
    for name in SEVEN_MINI_GAMES:
        print(f'    "{name}": "{play(name)}",')
    print("}")
