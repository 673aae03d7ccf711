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
    "MoveToBeacon": "7bd3a26784832d2183bf739a79a374107b429f8539aee5606e7c80fd6a423629",
    "CollectMineralShards": "0402adbd7c4d2b8619c0d932d098aebe2ab364bd76a787ff9db0a8700f5691c5",
    "FindAndDefeatZerglings": "0598c9f364201f0900d7bdb241d0e6ce2bb965a1141ffab5d2ee8d8f4737d19c",
    "DefeatRoaches": "0f108d00a3adfbdd1c3e6fb29471a7cdba30f56bbcd2e4b568a3603c516acd78",
    "DefeatZerglingsAndBanelings": "d3eafa5cb1b4c60ea0a21a6a8b966b459aa48b221d11861b857882c0cae50228",
    "CollectMineralsAndGas": "81ef6ead39fdc78c6868202162c415082ce7132ab1ffbcb5831429b953d1c8de",
    "BuildMarines": "79f50d5059ed3b1e5372016c126462c2387bee5e264105a53f364b6f4c81cb78",
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
