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
    "MoveToBeacon": "368a90ae5d1a297266a28df8d5b0344387e84e4af89ab6a8a9e95f53f65b7af2",
    "CollectMineralShards": "370c11f3041562db525de866ab603bef4196b3326d1cb142d37e34fbe214f09c",
    "FindAndDefeatZerglings": "e1a605a64ba7aaf51d423fd9937db05bf9d922a7e3f7bad498a7c40ec52b65bc",
    "DefeatRoaches": "dc41884ce75e1d1533bce122d4bfcd84472515bac2bcbc9c7a50d889b60b2015",
    "DefeatZerglingsAndBanelings": "4f671ddd87fdff83a50cb3ecdf5a91fb3bc117e5276f98f5c397d198aed0ce2f",
    "CollectMineralsAndGas": "0829043f4e2960672a3daf2849b4bc4998f1b26ea2bdd0741f7652a8cb133805",
    "BuildMarines": "571f8d2e98cf8e22e5ea210191699f428da2322709b655401b3b50cf694dda1a",
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
