"""Fuzz the built-in engine for a given time and report what it found.

Four kinds of case, each from a seeded random.Random:
  requests     a game of a shipped mini-game, then random Requests (every sc2api field, NaN, infinities and
               extreme integers included) to an in-process Session;
  definitions  a shipped map definition with random parts replaced or removed, then create, join, play;
  replays      a saved replay with random parts of its header and inputs replaced, then list, start, watch;
  frames       random websocket byte streams (valid, fragmented, oversized, broken frames) to a real engine
               process, which must go on serving a good client afterwards.
A finding is an internal error, an exception out of the engine, an answer that does not parse, a request
slower than --slow seconds, or an engine process that died or stopped serving. Each is printed with the
case's seed, which `--replay-case KIND:SEED` runs again alone.

tests/engine/test_engine_fuzz_hypothesis.py runs the same generators under Hypothesis for a bounded minute.
Run: python tools/fuzz_engine.py --minutes 10 [--seed 1] [--slow 5]
"""

from __future__ import annotations

import argparse
import base64
import copy
import json
import math
import os
import random
import socket
import subprocess
import sys
import time
import zlib
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from google.protobuf.descriptor import FieldDescriptor
from s2clientprotocol import common_pb2
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env.engine import mpq, replay_archive, replay_file
from sc2env.engine.mapdef import builtin_definitions

MAPS = tuple(sorted(builtin_definitions()))
INTERNAL = "internal error"
_F = FieldDescriptor
_INTS = {
    _F.TYPE_INT32: (-(2**31), 2**31 - 1),
    _F.TYPE_SINT32: (-(2**31), 2**31 - 1),
    _F.TYPE_SFIXED32: (-(2**31), 2**31 - 1),
    _F.TYPE_UINT32: (0, 2**32 - 1),
    _F.TYPE_FIXED32: (0, 2**32 - 1),
    _F.TYPE_INT64: (-(2**63), 2**63 - 1),
    _F.TYPE_SINT64: (-(2**63), 2**63 - 1),
    _F.TYPE_SFIXED64: (-(2**63), 2**63 - 1),
    _F.TYPE_UINT64: (0, 2**64 - 1),
    _F.TYPE_FIXED64: (0, 2**64 - 1),
}
_FLOATS = (0.0, -0.0, 0.5, 1.0, -1.0, 31.5, 64.0, 1e-30, 1e30, 3.4e38, math.inf, -math.inf, math.nan)
# In a game most requests are these; the rest come too, less often.
_WEIGHTS = {"action": 8, "step": 6, "observation": 5, "query": 4, "game_info": 1, "data": 1, "save_replay": 1}


# ---- random values and messages -----------------------------------------------------------------------
def random_int(rng: random.Random, lo: int, hi: int) -> int:
    """Mostly small (what fields usually hold), sometimes the extremes or anything in range."""
    roll = rng.random()
    if roll < 0.5:
        return max(lo, min(hi, rng.randint(-3, 80)))
    if roll < 0.7:
        return rng.choice((lo, hi, 0, 1, max(lo, -1)))
    return rng.randint(lo, hi)


def random_value(rng: random.Random, f: FieldDescriptor, depth: int):
    if f.type in _INTS:
        return random_int(rng, *_INTS[f.type])
    if f.type in (_F.TYPE_FLOAT, _F.TYPE_DOUBLE):
        return rng.choice(_FLOATS) if rng.random() < 0.4 else rng.uniform(-100, 100)
    if f.type == _F.TYPE_BOOL:
        return rng.random() < 0.5
    if f.type == _F.TYPE_ENUM:
        return rng.choice(f.enum_type.values).number
    if f.type == _F.TYPE_STRING:
        return rng.choice(("", "x", "mini_games/MoveToBeacon.SC2Map", "/", "é" * 3, "\x00"))
    if f.type == _F.TYPE_BYTES:
        return rng.randbytes(rng.randint(0, 24))
    raise TypeError(f.type)


def fill(rng: random.Random, message, depth: int = 4) -> None:
    """Set random fields of `message` (each with a fair chance; one of each oneof), nested `depth` deep."""
    chosen = {o.name: rng.choice(o.fields) for o in message.DESCRIPTOR.oneofs if rng.random() < 0.7}
    for f in message.DESCRIPTOR.fields:
        if f.containing_oneof is not None and chosen.get(f.containing_oneof.name) is not f:
            continue
        if f.containing_oneof is None and rng.random() < 0.5:
            continue
        if f.type == _F.TYPE_MESSAGE and depth <= 0:
            continue
        if f.is_repeated:
            for _ in range(rng.randint(0, 3)):
                if f.type == _F.TYPE_MESSAGE:
                    fill(rng, getattr(message, f.name).add(), depth - 1)
                else:
                    getattr(message, f.name).append(random_value(rng, f, depth))
        elif f.type == _F.TYPE_MESSAGE:
            sub = getattr(message, f.name)
            sub.SetInParent()
            fill(rng, sub, depth - 1)
        else:
            setattr(message, f.name, random_value(rng, f, depth))


def random_request(rng: random.Random, leave_out: tuple[str, ...] = ()) -> sc_pb.Request:
    """A Request of a random kind (the in-game ones more often; none of `leave_out`) with random fields,
    tamed only where the engine would spend a second on a legitimate answer (resolutions)."""
    kinds = [
        f.name for f in sc_pb.Request.DESCRIPTOR.oneofs_by_name["request"].fields if f.name not in leave_out
    ]
    weights = [_WEIGHTS.get(kind, 0.3) for kind in kinds]
    kind = rng.choices(kinds, weights)[0]
    request = sc_pb.Request()
    getattr(request, kind).SetInParent()
    fill(rng, getattr(request, kind))
    if rng.random() < 0.5:
        request.id = random_int(rng, 0, 2**32 - 1)
    for options in _interfaces(request):
        for setup in (options.feature_layer, options.render):
            for size in (setup.resolution, setup.minimap_resolution):
                size.x, size.y = min(size.x, 96), min(size.y, 96)
    return request


def _interfaces(request: sc_pb.Request) -> list:
    kind = request.WhichOneof("request")
    inner = getattr(request, kind) if kind else None
    return [inner.options] if inner is not None and "options" in inner.DESCRIPTOR.fields_by_name else []


# ---- random JSON and its mutations ----------------------------------------------------------------------
def random_json(rng: random.Random, depth: int = 2):
    roll = rng.random()
    if roll < 0.2 and depth > 0:
        return [random_json(rng, depth - 1) for _ in range(rng.randint(0, 3))]
    if roll < 0.3 and depth > 0:
        return {rng.choice(("group", "count", "type", "at", "x")): random_json(rng, depth - 1)}
    return rng.choice(
        (
            None,
            True,
            False,
            0,
            -5,
            1,
            16.5,
            1e308,
            -1e308,
            2**40,
            10**400,
            "abc",
            "",
            "marines",
            "Marine",
            float("nan"),
            float("inf"),
            [1, 2],
            [0.5, 1e300],
            {"region": "playable_area"},
        )
    )


def mutate_json(rng: random.Random, document, edits: int = 2):
    """A copy of a JSON document with `edits` random parts replaced by random values, or removed."""
    document = copy.deepcopy(document)
    for _ in range(edits):
        parent, key = _random_place(rng, document)
        if parent is None:
            continue
        if rng.random() < 0.15 and isinstance(parent, dict):
            del parent[key]
        else:
            parent[key] = random_json(rng)
    return document


def _random_place(rng: random.Random, document) -> tuple:
    """A random (container, key) within the document, deeper ones as likely as shallow ones."""
    places = []
    stack = [document]
    while stack:
        node = stack.pop()
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        for key, value in items:
            places.append((node, key))
            if isinstance(value, (dict, list)):
                stack.append(value)
    return rng.choice(places) if places else (None, None)


def mutate_replay(rng: random.Random, data: bytes) -> bytes:
    """A replay with random header fields or inputs replaced (packed again, as a .SC2Replay archive or now and
    then as format 1, so it still unpacks), or with random bytes flipped (in the archive's tables and MD5s too).
    """
    if rng.random() < 0.2:
        out = bytearray(data)
        for _ in range(rng.randint(1, 4)):
            out[rng.randrange(len(out))] ^= 1 << rng.randrange(8)
        return bytes(out)
    header = json.loads(mpq.MpqArchive(data).read(replay_archive.MEMBER) or b"")
    roll = rng.random()
    if roll < 0.4 and header["inputs"]:
        n = rng.randrange(len(header["inputs"]))
        header["inputs"][n] = rng.choice(
            (random_json(rng), base64.b64encode(rng.randbytes(rng.randint(0, 12))).decode(), 2**40, 1)
        )
    elif roll < 0.6:
        source = json.loads(base64.b64decode(header["map_definition"]))
        header["map_definition"] = base64.b64encode(json.dumps(mutate_json(rng, source)).encode()).decode()
    else:
        header = mutate_json(rng, header, edits=1)
    body = json.dumps(header).encode()
    if rng.random() < 0.25:  # format 1, which the engine still reads
        return replay_file.MAGIC + b"1\n" + zlib.compress(body)
    return replay_archive.pack(replay_file.decode(data), body)


# ---- websocket byte streams ---------------------------------------------------------------------------
def random_frames(rng: random.Random) -> bytes:
    """Websocket frames a client might send, broken or not: any opcode, fin, mask, length form and
    announced length, fragments, garbage."""
    out = bytearray()
    for _ in range(rng.randint(1, 6)):
        roll = rng.random()
        if roll < 0.1:
            out += rng.randbytes(rng.randint(1, 16))
            continue
        payload = (  # no quit: the engine would rightly end
            random_request(rng, ("quit",)).SerializeToString()
            if roll < 0.7
            else rng.randbytes(rng.randint(0, 300))
        )
        opcode = rng.choice((0x0, 0x1, 0x2, 0x2, 0x2, 0x8, 0x9, 0xA, 0x3, 0xB))
        head = (0x80 if rng.random() < 0.8 else 0) | opcode | (0x10 if rng.random() < 0.05 else 0)
        announced = (
            len(payload) if rng.random() < 0.85 else rng.choice((0, 125, 126, 2**16, 2**31, 2**62, 2**63))
        )
        masked = rng.random() < 0.95
        if announced < 126 and rng.random() < 0.9:
            out += bytes((head, (0x80 if masked else 0) | announced))
        elif announced < 2**16 and rng.random() < 0.9:
            out += bytes((head, (0x80 if masked else 0) | 126)) + announced.to_bytes(2, "big")
        else:
            out += bytes((head, (0x80 if masked else 0) | 127)) + announced.to_bytes(8, "big")
        key = rng.randbytes(4) if masked else b""
        out += key + (bytes(b ^ key[i % 4] for i, b in enumerate(payload)) if masked else payload)
    if rng.random() < 0.3:
        del out[rng.randrange(len(out) + 1) :]  # cut mid-frame
    return bytes(out)


# ---- running cases ------------------------------------------------------------------------------------
@dataclass
class Findings:
    """What the cases found, and how many of each kind ran."""

    ran: Counter = field(default_factory=Counter)
    found: list[tuple[str, str]] = field(default_factory=list)  # (case, what)
    slowest: tuple[float, str] = (0.0, "")

    def add(self, case: str, what: str) -> None:
        self.found.append((case, what[:600]))


def ask(session, request: sc_pb.Request, findings: Findings, case: str, slow: float) -> sc_pb.Response | None:
    """Send one request to an in-process Session and check its answer."""
    from google.protobuf.message import DecodeError

    start = time.perf_counter()
    try:
        data = session.handle(request.SerializeToString())
    except Exception as e:  # the engine must answer everything
        findings.add(case, f"{type(e).__name__} out of the engine: {e} for {_brief(request)}")
        return None
    took = time.perf_counter() - start
    if took > findings.slowest[0]:
        findings.slowest = (took, f"{case}: {_brief(request)}")
    if took > slow:
        findings.add(case, f"{took:.1f} s for {_brief(request)}")
    try:
        answer = sc_pb.Response.FromString(data)
    except DecodeError as e:
        findings.add(case, f"an answer that does not parse ({e}) for {_brief(request)}")
        return None
    for text in [*answer.error, *_details(answer)]:
        if INTERNAL in text:
            findings.add(case, f"{text} for {_brief(request)}")
    return answer


def _details(answer: sc_pb.Response) -> list[str]:
    kind = answer.WhichOneof("response")
    inner = getattr(answer, kind) if kind else None
    return (
        [inner.error_details]
        if inner is not None and "error_details" in inner.DESCRIPTOR.fields_by_name
        else []
    )


def _brief(request: sc_pb.Request) -> str:
    return str(request).replace("\n", " ")[:300]


def start_game(session, map_name: str | bytes, seed: int, findings: Findings, case: str, slow: float) -> bool:
    create = sc_pb.RequestCreateGame(random_seed=seed)
    if isinstance(map_name, bytes):
        create.local_map.map_data = map_name
    else:
        create.local_map.map_path = f"mini_games/{map_name}.SC2Map"
    create.player_setup.add(type=sc_pb.Participant, race=common_pb2.Terran)
    created = ask(session, sc_pb.Request(create_game=create), findings, case, slow)
    if created is None or created.create_game.HasField("error"):
        return False
    options = sc_pb.InterfaceOptions(raw=True, score=True)
    options.feature_layer.width = 24
    options.feature_layer.resolution.x = options.feature_layer.resolution.y = 32
    options.feature_layer.minimap_resolution.x = options.feature_layer.minimap_resolution.y = 32
    joined = ask(
        session, sc_pb.Request(join_game=sc_pb.RequestJoinGame(race=1, options=options)), findings, case, slow
    )
    return joined is not None and not joined.join_game.HasField("error")


def requests_case(rng: random.Random, findings: Findings, slow: float, count: int = 12) -> None:
    from sc2env.engine.session import Session

    session = Session()
    start_game(session, rng.choice(MAPS), rng.randint(0, 99), findings, "requests", slow)
    for _ in range(count):
        ask(session, random_request(rng), findings, "requests", slow)


def definitions_case(rng: random.Random, findings: Findings, slow: float) -> None:
    from sc2env.engine.session import Session

    spec = mutate_json(rng, json.loads(builtin_definitions()[rng.choice(MAPS)]), edits=rng.randint(1, 3))
    session = Session()
    if start_game(session, json.dumps(spec).encode(), rng.randint(0, 99), findings, "definitions", slow):
        for _ in range(4):
            ask(
                session,
                sc_pb.Request(step=sc_pb.RequestStep(count=rng.choice((1, 8, 64)))),
                findings,
                "definitions",
                slow,
            )
            ask(session, sc_pb.Request(observation=sc_pb.RequestObservation()), findings, "definitions", slow)


def replays_case(rng: random.Random, recorded: bytes, findings: Findings, slow: float) -> None:
    from sc2env.engine.session import Session

    data = mutate_replay(rng, recorded)
    session = Session()
    ask(
        session,
        sc_pb.Request(replay_info=sc_pb.RequestReplayInfo(replay_data=data)),
        findings,
        "replays",
        slow,
    )
    options = sc_pb.InterfaceOptions(raw=True)
    options.feature_layer.resolution.x = options.feature_layer.resolution.y = 16
    options.feature_layer.minimap_resolution.x = options.feature_layer.minimap_resolution.y = 16
    start = sc_pb.RequestStartReplay(replay_data=data, options=options)
    started = ask(session, sc_pb.Request(start_replay=start), findings, "replays", slow)
    for _ in range(40 if started is not None and not started.start_replay.HasField("error") else 0):
        answer = ask(session, sc_pb.Request(step=sc_pb.RequestStep(count=64)), findings, "replays", slow)
        if answer is None or answer.status != sc_pb.in_replay:
            break


def recorded_replay(seed: int = 0) -> bytes:
    """A replay of a short random game on a shipped mini-game, for replays_case to mutate."""
    from sc2env.engine.session import Session

    rng, findings, session = random.Random(seed), Findings(), Session()
    start_game(session, "CollectMineralShards", seed, findings, "setup", math.inf)
    for _ in range(10):
        action = sc_pb.RequestAction()
        fill(rng, action.actions.add().action_feature_layer, 2)
        ask(session, sc_pb.Request(action=action), findings, "setup", math.inf)
        ask(session, sc_pb.Request(step=sc_pb.RequestStep(count=8)), findings, "setup", math.inf)
    answer = ask(session, sc_pb.Request(save_replay=sc_pb.RequestSaveReplay()), findings, "setup", math.inf)
    return answer.save_replay.data


class Engine:
    """A real engine process on a free port, for frame streams; restarted if it dies (and reported)."""

    def __init__(self) -> None:
        self.proc: subprocess.Popen | None = None
        self.port = 0
        self.start()

    def start(self) -> None:
        import portpicker

        self.port = portpicker.pick_unused_port()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "sc2env.engine", "-port", str(self.port), "--message-timeout", "2"],
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 30
        while not self.serves() and time.monotonic() < deadline:
            time.sleep(0.05)

    def serves(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=5) as sock:
                sock.sendall(_handshake(self.port))
                head = _read_head(sock)
                if not head.startswith(b"HTTP/1.1 101"):
                    return False
                ping = sc_pb.Request(id=7, ping=sc_pb.RequestPing()).SerializeToString()
                sock.sendall(bytes((0x82, 0x80 | len(ping))) + bytes(4) + ping)
                reply = sock.recv(65536)
                return len(reply) > 2 and sc_pb.Response.FromString(reply[2:]).id == 7
        except (OSError, ValueError):
            return False

    def close(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(10)


def frames_case(rng: random.Random, engine: Engine, findings: Findings) -> None:
    stream = random_frames(rng)
    try:
        with socket.create_connection(("127.0.0.1", engine.port), timeout=5) as sock:
            sock.sendall(_handshake(engine.port))
            _read_head(sock)
            sock.sendall(stream)
            sock.settimeout(0.2)
            try:
                while sock.recv(1 << 16):
                    pass
            except OSError:
                pass
    except OSError:
        pass
    if engine.proc.poll() is not None:
        findings.add("frames", f"the engine died (exit {engine.proc.returncode}) after {stream[:80]!r}")
        engine.start()
    elif not engine.serves():
        findings.add("frames", f"the engine stopped serving after {stream[:80]!r}")
        engine.close()
        engine.start()


def _handshake(port: int) -> bytes:
    key = base64.b64encode(os.urandom(16)).decode()
    return (
        f"GET /sc2api HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
    ).encode()


def _read_head(sock: socket.socket) -> bytes:
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(1)
        if not chunk:
            break
        head += chunk
    return head


CASES: dict[str, Callable] = {
    "requests": requests_case,
    "definitions": definitions_case,
    "replays": replays_case,
    "frames": frames_case,
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=5.0, help="how long to fuzz")
    parser.add_argument(
        "--seed", type=int, default=1, help="the first case's seed (each case takes the next)"
    )
    parser.add_argument(
        "--slow", type=float, default=5.0, help="a request this many seconds long is a finding"
    )
    parser.add_argument("--replay-case", metavar="KIND:SEED", help="run one case again, e.g. requests:1234")
    args = parser.parse_args()
    findings, recorded = Findings(), recorded_replay()
    engine = Engine()
    kinds = list(CASES) if args.replay_case is None else [args.replay_case.split(":")[0]]
    seeds = (
        iter(range(args.seed, 2**62))
        if args.replay_case is None
        else iter([int(args.replay_case.split(":")[1])])
    )
    deadline = time.monotonic() + args.minutes * 60
    try:
        for seed in seeds:
            if time.monotonic() > deadline:
                break
            kind = kinds[seed % len(kinds)]
            rng = random.Random(seed)
            before = len(findings.found)
            if kind == "frames":
                frames_case(rng, engine, findings)
            elif kind == "replays":
                replays_case(rng, recorded, findings, args.slow)
            else:
                CASES[kind](rng, findings, args.slow)
            findings.ran[kind] += 1
            for _, what in findings.found[before:]:
                print(f"FOUND {kind}:{seed} {what}", flush=True)
    finally:
        engine.close()
    print(
        f"ran {sum(findings.ran.values())} cases in {args.minutes:g} min: "
        + ", ".join(f"{k} {n}" for k, n in sorted(findings.ran.items()))
    )
    print(f"slowest request {findings.slowest[0]:.3f} s ({findings.slowest[1][:200]})")
    print(f"findings: {len(findings.found)}" + ("" if findings.found else " (none)"))
    for kind, n in Counter(case for case, _ in findings.found).most_common():
        print(f"  {kind}: {n}")
    return 1 if findings.found else 0


if __name__ == "__main__":
    sys.exit(main())
