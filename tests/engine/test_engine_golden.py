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
    "MoveToBeacon": "32bd4c8a2f0b96668f765d1d7e5f2440e9194f4dbffb3a183417c86505638bba",
    "CollectMineralShards": "2bfdb145bf598c69fd588ae6ed6bd94e5bace9a187da553935d558c355a40ec2",
    "FindAndDefeatZerglings": "bf7346f91d5aa1aef6832b5fdba3161adadfc245738888391501276d29164bee",
    "DefeatRoaches": "dcd5151abf6854f184cf914a79866f355cfb51e3c8d54e867a19fbc808ee322f",
    "DefeatZerglingsAndBanelings": "d83417a702563fe3fd260bac99475769abdf7e0783317c0048ea5498c92f824e",
    "CollectMineralsAndGas": "557551a94d0a4a40359088a693c34329fde22c3699f94eddd11362179430a9b3",
    "BuildMarines": "8fe9b86d300c2e89d2e3398623d95a08e8d46ff0f271da794f757caf63dee7d6",
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
        "the engine's answers changed; if that is intended, regenerate GOLDEN (see the module docstring)"
    )


if __name__ == "__main__":
    print("GOLDEN = {")
    for name in SEVEN_MINI_GAMES:
        print(f'    "{name}": "{play(name)}",')
    print("}")
