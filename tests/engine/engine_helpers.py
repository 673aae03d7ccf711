"""Helpers for the engine tests: the engine process, requests, actions, and PySC2-style layer decoding."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import portpicker
import pytest
import websocket
from s2clientprotocol import common_pb2, raw_pb2
from s2clientprotocol import sc2api_pb2 as sc_pb

RES = 64
SEVEN_MINI_GAMES = (
    "MoveToBeacon",
    "CollectMineralShards",
    "FindAndDefeatZerglings",
    "DefeatRoaches",
    "DefeatZerglingsAndBanelings",
    "CollectMineralsAndGas",
    "BuildMarines",
)


def start_engine(*extra: str) -> tuple[subprocess.Popen, int]:
    """The engine process on a free port, as a launcher starts it (answering once it listens)."""
    port = portpicker.pick_unused_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "sc2env.engine",
            "-listen",
            "127.0.0.1",
            "-port",
            str(port),
            "-dataDir",
            "/nonexistent",
            "-tempDir",
            "/tmp",
            *extra,
        ]
    )
    return proc, port


def connect(port: int, path: str = "/sc2api") -> websocket.WebSocket:
    """A websocket to the engine on `port`, retried until it listens (10 s)."""
    deadline = time.monotonic() + 10
    while True:
        try:
            return websocket.create_connection(f"ws://127.0.0.1:{port}{path}", timeout=10)
        except (ConnectionRefusedError, websocket.WebSocketBadStatusException) as e:
            if isinstance(e, websocket.WebSocketBadStatusException) or time.monotonic() > deadline:
                raise
            time.sleep(0.02)


def interface(
    screen: int = RES, minimap: int = RES, raw: bool = True, width: float = 24, crop: bool = False
) -> sc_pb.InterfaceOptions:
    options = sc_pb.InterfaceOptions(raw=raw, score=True)
    fl = options.feature_layer
    fl.width = width
    fl.resolution.x = fl.resolution.y = screen
    fl.minimap_resolution.x = fl.minimap_resolution.y = minimap
    fl.crop_to_playable_area = crop
    return options


def create_request(map_name: str, seed: int | None = 1) -> sc_pb.RequestCreateGame:
    create = sc_pb.RequestCreateGame(local_map=sc_pb.LocalMap(map_path=f"mini_games/{map_name}.SC2Map"))
    if seed is not None:
        create.random_seed = seed
    create.player_setup.add(type=sc_pb.Participant, race=common_pb2.Terran)
    return create


def join_request(options: sc_pb.InterfaceOptions | None = None) -> sc_pb.RequestJoinGame:
    return sc_pb.RequestJoinGame(race=common_pb2.Terran, options=options or interface())


def spatial(kind: str, **fields) -> sc_pb.Action:
    """An Action with one `action_feature_layer` field, e.g. spatial("camera_move", center_minimap=(3, 4))."""
    action = sc_pb.Action()
    target = getattr(action.action_feature_layer, kind)
    for name, value in fields.items():
        if isinstance(value, tuple):
            getattr(target, name).x, getattr(target, name).y = value
        else:
            setattr(target, name, value)
    return action


def move_screen(x: int, y: int, ability: int = 3794, queued: bool = False) -> sc_pb.Action:
    return spatial("unit_command", ability_id=ability, target_screen_coord=(x, y), queue_command=queued)


def select_rect(x0: int, y0: int, x1: int, y1: int, add: bool = False) -> sc_pb.Action:
    action = sc_pb.Action()
    sel = action.action_feature_layer.unit_selection_rect
    rect = sel.selection_screen_coord.add()
    rect.p0.x, rect.p0.y, rect.p1.x, rect.p1.y = x0, y0, x1, y1
    sel.selection_add = add
    return action


def layer(obs: sc_pb.ResponseObservation, name: str, minimap: bool = False) -> np.ndarray:
    """Decode one feature layer the way PySC2 does (np.frombuffer, unpackbits for 1 bpp)."""
    fl = obs.observation.feature_layer_data
    image = getattr(fl.minimap_renders if minimap else fl.renders, name)
    dtype = {1: np.uint8, 8: np.uint8, 32: np.int32}[image.bits_per_pixel]
    data = np.frombuffer(image.data, dtype)
    if image.bits_per_pixel == 1:
        data = np.unpackbits(data)[: image.size.x * image.size.y]
    return data.reshape(image.size.y, image.size.x)


def units_of(obs: sc_pb.ResponseObservation, unit_type: int) -> list:
    return [u for u in obs.observation.raw_data.units if u.unit_type == unit_type]


def screen_pixel(
    x: float, y: float, camera=(33.0001, 25.0), width: float = 24, res: int = RES
) -> tuple[int, int]:
    """The screen pixel holding world point (x, y), from sc2-api-notes §7.6."""
    wpp = width / res
    return int((x - camera[0]) / wpp + res / 2), int((camera[1] - y) / wpp + res / 2)


def arena(
    setup: list,
    *,
    triggers: list | None = None,
    vision: str = "reveal_playable",
    time_limit: int = 4000,
    minerals: int = 0,
    cards: dict | None = None,
    area=(10, 10, 54, 54),
    **extra,
) -> bytes:
    """A small mini-game definition for tests: a flat 64x64 map, `setup` actions, optional triggers."""
    import json

    spec = {
        "format": "sc2env-minigame/1",
        "name": "TestArena",
        "map_size": [64, 64],
        "playable_area": list(area),
        "camera_start": [32, 32],
        "vision": vision,
        "time_limit": time_limit,
        "players": [{"player_id": 1, "race": "Terran"}],
        "setup": [{"set_player": {"player": 1, "minerals": minerals}}] + setup,
        "triggers": triggers or [],
        "command_cards": cards or {},
        **extra,
    }
    return json.dumps(spec).encode()


def unit(type_name: str, x: float, y: float, owner: int = 1, group: str | None = None, **fields) -> dict:
    spawn = {"type": type_name, "owner": owner, "at": {"point": [x, y]}, "facing": 0, **fields}
    if group:
        spawn["group"] = group
    return {"spawn": spawn}


# Abilities a random agent often uses: Smart, Move, Attack (general and specific), Stop, Hold, Patrol, gather,
# return, builds (Supply Depot, Barracks, Refinery), train SCV / Marine, Rally.
RANDOM_ABILITIES = (1, 3794, 3674, 16, 23, 4, 18, 17, 3665, 3666, 319, 321, 320, 524, 560, 3690)


def random_action(rng: np.random.Generator, step: int, tags: list[int]) -> sc_pb.Action:
    """A random agent's action at `step` (selections, control groups, the camera, clicks, raw commands for
    `tags`): the golden hashes fix this sequence, so change it only with them."""
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
        cmd.ability_id = int(rng.choice(RANDOM_ABILITIES[3:]))
        cmd.unit_tags.extend(int(t) for t in rng.choice(tags, size=min(3, len(tags)), replace=False))
        if step % 4:
            cmd.target_unit_tag = int(rng.choice(tags))
        else:
            cmd.target_world_space_pos.x, cmd.target_world_space_pos.y = x / 2, y / 2
        return action
    if kind in (1, 4, 8):  # what the benchmark's random agent does most
        return move_screen(x, y, ability=(3794, 3674, 1)[kind % 3])
    return move_screen(x, y, ability=int(rng.choice(RANDOM_ABILITIES)), queued=bool(step % 5 == 0))


@dataclass
class Player:
    """One player of a two-player game over a real socket: its client, its engine process, and the player id
    the game gave it."""

    ws: websocket.WebSocket
    proc: object
    player_id: int = 0

    def send(self, **request) -> None:
        self.ws.send_binary(sc_pb.Request(**request).SerializeToString())

    def recv(self) -> sc_pb.Response:
        return sc_pb.Response.FromString(self.ws.recv())

    def ask(self, **request) -> sc_pb.Response:
        self.send(**request)
        return self.recv()

    def observe(self) -> sc_pb.ResponseObservation:
        return self.ask(observation=sc_pb.RequestObservation()).observation

    def units(self, alliance: int) -> list:
        return [u for u in self.observe().observation.raw_data.units if u.alliance == alliance]

    def command(self, ability: int, tags: list[int], x: float, y: float) -> sc_pb.Response:
        cmd = raw_pb2.ActionRawUnitCommand(ability_id=ability, unit_tags=tags)
        cmd.target_world_space_pos.x, cmd.target_world_space_pos.y = x, y
        action = sc_pb.Action(action_raw=raw_pb2.ActionRaw(unit_command=cmd))
        return self.ask(action=sc_pb.RequestAction(actions=[action]))


def require_pysc2_evolved() -> None:
    pytest.importorskip("pysc2_evolved", reason="pysc2-evolved (test extra, Python >= 3.11) is not installed")


def make_sc2path(sc2path: Path) -> None:
    """Lay the engine out as a StarCraft II install at `sc2path` (what PySC2 finds through SC2PATH)."""
    subprocess.run(
        [sys.executable, "-m", "sc2env.engine", "--make-sc2path", str(sc2path)],
        check=True,
        capture_output=True,
    )


def run_on_sc2path(
    sc2path: Path,
    args: list[str],
    timeout: float,
    python: str = sys.executable,
    cwd: Path | None = None,
    **extra_env: str,
) -> subprocess.CompletedProcess:
    """Run `python *args` on the install at `sc2path` (see make_sc2path), with no window and no sound (and
    `extra_env`); the test fails with the child's stderr unless it exits with 0."""
    env = dict(
        os.environ,
        SC2PATH=str(sc2path),
        SDL_VIDEODRIVER="dummy",
        SDL_AUDIODRIVER="dummy",
        PYGAME_HIDE_SUPPORT_PROMPT="1",
        **extra_env,
    )
    done = subprocess.run(
        [python, *args], env=env, capture_output=True, text=True, timeout=timeout, check=False, cwd=cwd
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done
