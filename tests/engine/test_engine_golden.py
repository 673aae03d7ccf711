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
from engine_helpers import SEVEN_MINI_GAMES, create_request, join_request, move_screen, select_rect, spatial
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env.engine.session import Session

GOLDEN = {
    "MoveToBeacon": "368a90ae5d1a297266a28df8d5b0344387e84e4af89ab6a8a9e95f53f65b7af2",
    "CollectMineralShards": "370c11f3041562db525de866ab603bef4196b3326d1cb142d37e34fbe214f09c",
    "FindAndDefeatZerglings": "e1a605a64ba7aaf51d423fd9937db05bf9d922a7e3f7bad498a7c40ec52b65bc",
    "DefeatRoaches": "dc41884ce75e1d1533bce122d4bfcd84472515bac2bcbc9c7a50d889b60b2015",
    "DefeatZerglingsAndBanelings": "fbc9543ba98ae4d6835ae3e4e4ef3946aec8276c151848dd021f132353f711fe",
    "CollectMineralsAndGas": "0829043f4e2960672a3daf2849b4bc4998f1b26ea2bdd0741f7652a8cb133805",
    "BuildMarines": "571f8d2e98cf8e22e5ea210191699f428da2322709b655401b3b50cf694dda1a",
}

# Abilities a random agent often uses: Smart, Move, Attack (general and specific), Stop, Hold, Patrol, gather,
# return, builds (Supply Depot, Barracks, Refinery), train SCV / Marine, Rally.
_ABILITIES = (1, 3794, 3674, 16, 23, 4, 18, 17, 3665, 3666, 319, 321, 320, 524, 560, 3690)


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


def _action(rng: np.random.Generator, step: int, tags: list[int]) -> sc_pb.Action:
    x, y, x1, y1 = (int(v) for v in rng.integers(0, 64, 4))
    kind = step % 12
    if kind == 0:
        return select_rect(0, 0, 63, 63)
    if kind == 3:
        return select_rect(min(x, x1), min(y, y1), max(x, x1), max(y, y1), add=bool(step % 2))
    if kind == 5:
        action = sc_pb.Action()
        action.action_ui.control_group.action = 2 if step % 24 == 5 else 1  # set, then recall
        action.action_ui.control_group.control_group_index = 3
        return action
    if kind == 7:
        return spatial("camera_move", center_minimap=(x, y))
    if kind == 9:
        return spatial("unit_selection_point", selection_screen_coord=(x, y), type=1 + step % 4)
    if kind == 10 and tags:  # a raw command for a few units at a unit or a point
        action = sc_pb.Action()
        cmd = action.action_raw.unit_command
        cmd.ability_id = int(rng.choice(_ABILITIES[3:]))
        cmd.unit_tags.extend(int(t) for t in rng.choice(tags, size=min(3, len(tags)), replace=False))
        if step % 4:
            cmd.target_unit_tag = int(rng.choice(tags))
        else:
            cmd.target_world_space_pos.x, cmd.target_world_space_pos.y = x / 2, y / 2
        return action
    if kind in (1, 4, 8):  # what the benchmark's random agent does most
        return move_screen(x, y, ability=(3794, 3674, 1)[kind % 3])
    return move_screen(x, y, ability=int(rng.choice(_ABILITIES)), queued=bool(step % 5 == 0))


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
        ask(action=sc_pb.RequestAction(actions=[_action(rng, step, tags)]))
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
