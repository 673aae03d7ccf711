"""Files a user names (replays, map files, mini-game definitions) are read without hanging on a FIFO or
filling memory from a device or a huge file; each refusal names the file and what is wrong (issue 28)."""

from __future__ import annotations

import os
import pathlib

import pytest

from sc2env.game.replay_files import ReplayError, read_replay
from sc2env.safefile import MAX_REPLAY_BYTES, describe_size, read_regular_file

# A FIFO that nobody writes to blocks a plain open() for ever: these tests would hang without the fix, and
# the timeout turns that into a failure.
pytestmark = pytest.mark.timeout(60)


def fifo(folder: pathlib.Path, name: str) -> pathlib.Path:
    path = folder / name
    os.mkfifo(path)
    return path


def sparse(folder: pathlib.Path, name: str, size: int) -> pathlib.Path:
    """A file of `size` bytes that takes no disk space (and would take `size` of memory to read whole)."""
    path = folder / name
    with open(path, "wb") as file:
        file.truncate(size)
    return path


def test_a_regular_file_is_read_whole(tmp_path):
    path = tmp_path / "r.bin"
    path.write_bytes(b"x" * 5000)
    assert read_regular_file(path, 5000) == b"x" * 5000
    assert read_regular_file(str(path), 10**9) == b"x" * 5000


@pytest.mark.parametrize(
    "make, kind",
    [
        (lambda tmp: fifo(tmp, "pipe"), "a FIFO (named pipe), not a regular file"),
        (lambda tmp: pathlib.Path("/dev/zero"), "a character device, not a regular file"),
        (lambda tmp: pathlib.Path("/dev/null"), "a character device, not a regular file"),
        (lambda tmp: (tmp / "z").symlink_to("/dev/zero") or tmp / "z", "a character device"),
        (lambda tmp: tmp, "Is a directory"),
    ],
    ids=["fifo", "dev-zero", "dev-null", "link-to-dev-zero", "folder"],
)
def test_what_is_not_a_regular_file_is_refused_unread(tmp_path, make, kind):
    path = make(tmp_path)
    with pytest.raises(OSError) as caught:
        read_regular_file(path, 1 << 20)
    assert kind in caught.value.strerror
    assert caught.value.filename == os.fspath(path)


def test_a_file_over_the_cap_is_refused_from_its_size(tmp_path):
    path = sparse(tmp_path, "big", 1 << 30)
    with pytest.raises(OSError) as caught:
        read_regular_file(path, 1 << 20)
    assert caught.value.strerror == (
        "it is 1.0 GiB, larger than the 1.0 MiB sc2env reads for a file of its kind"
    )
    path.write_bytes(b"y" * 101)
    with pytest.raises(OSError, match="101 bytes, larger than the 100 bytes"):
        read_regular_file(path, 100)
    assert read_regular_file(path, 101) == b"y" * 101


def test_a_file_whose_size_reads_as_zero_is_still_read_up_to_the_cap():
    # /proc files say 0 bytes and hold more: the size is not trusted to stop the read early, nor the cap to
    # be reached.
    data = read_regular_file("/proc/self/status", 1 << 20)
    assert data.startswith(b"Name:") and len(data) > 100
    with pytest.raises(OSError, match=r"larger than the 10 bytes"):
        read_regular_file("/proc/self/status", 10)


def test_sizes_read_as_people_read_them():
    assert [describe_size(n) for n in (0, 1023, 1024, 3 << 20, 3 << 29)] == [
        "0 bytes",
        "1023 bytes",
        "1.0 KiB",
        "3.0 MiB",
        "1.5 GiB",
    ]


@pytest.mark.parametrize(
    "make, message",
    [
        (
            lambda tmp: fifo(tmp, "p.SC2Replay"),
            r"p\.SC2Replay: it is a FIFO \(named pipe\), not a regular file",
        ),
        (lambda tmp: pathlib.Path("/dev/zero"), r"/dev/zero: it is a character device, not a regular file"),
        (
            lambda tmp: sparse(tmp, "huge.SC2Replay", 1 << 30),
            r"huge\.SC2Replay: it is 1\.0 GiB, larger than the 256\.0 MiB",
        ),
    ],
    ids=["fifo", "dev-zero", "huge"],
)
def test_read_replay_refuses_fifos_devices_and_huge_files(tmp_path, make, message):
    with pytest.raises(ReplayError, match=rf"could not read the replay .*{message}.*give the path of a"):
        read_replay(make(tmp_path))


def test_the_engine_refuses_a_replay_path_as_the_client_does(tmp_path):
    """One cap for both sides: a replay the client would refuse is refused by the engine for the same reason."""
    from s2clientprotocol import sc2api_pb2 as sc_pb

    from sc2env.engine.session import Session

    for path, why in (
        (
            sparse(tmp_path, "huge.SC2Replay", MAX_REPLAY_BYTES + 1),
            "it is 256.0 MiB, larger than the 256.0 MiB",
        ),
        (fifo(tmp_path, "p.SC2Replay"), "it is a FIFO (named pipe), not a regular file"),
    ):
        with pytest.raises(ReplayError, match=why.replace("(", r"\(").replace(")", r"\)")):
            read_replay(path)
        request = sc_pb.Request(replay_info=sc_pb.RequestReplayInfo(replay_path=str(path)))
        answer = sc_pb.Response.FromString(Session().handle(request.SerializeToString())).replay_info
        assert answer.error == sc_pb.ResponseReplayInfo.InvalidReplayPath
        assert why in answer.error_details and str(path) in answer.error_details


def deep_json(folder: pathlib.Path, depth: int = 100_000) -> pathlib.Path:
    path = folder / "deep.json"
    path.write_text('{"format": "sc2env-minigame/1", "name": "Deep", "x": ' + "[" * depth + "]" * depth + "}")
    return path


@pytest.mark.parametrize(
    "make, message",
    [
        (
            lambda tmp: fifo(tmp, "pipe.json"),
            r"pipe\.json'?: it is a FIFO \(named pipe\), not a regular file",
        ),
        (
            lambda tmp: (tmp / "zero.json").symlink_to("/dev/zero") or tmp / "zero.json",
            r"zero\.json'?: it is a character device, not a regular file",
        ),
        (
            lambda tmp: sparse(tmp, "huge.json", 1 << 30),
            r"huge\.json'?: it is 1\.0 GiB, larger than the 16\.0 MiB",
        ),
        (deep_json, r"deep\.json is no mini-game definition: its JSON nests arrays and objects too deeply"),
    ],
    ids=["fifo", "link-to-dev-zero", "huge", "nested-100000-deep"],
)
def test_a_definition_file_that_cannot_be_read_is_an_unknown_map(tmp_path, make, message):
    from sc2env.errors import UnknownMapError
    from sc2env.game import resolve_map

    path = make(tmp_path)
    with pytest.raises(UnknownMapError, match=message):
        resolve_map(str(path))


def test_a_definition_that_became_unreadable_since_it_was_resolved_is_refused_when_sent(tmp_path):
    from sc2env.errors import UnknownMapError
    from sc2env.game import resolve_map
    from sc2env.mapfiles import definitions_dir

    path = tmp_path / "Beacon.json"
    path.write_bytes((definitions_dir() / "MoveToBeacon.json").read_bytes())
    spec = resolve_map(str(path))
    assert spec.read_data() == path.read_bytes()
    path.unlink()
    os.mkfifo(path)
    with pytest.raises(UnknownMapError, match=r"Cannot read the map file .*Beacon\.json: it is a FIFO"):
        spec.read_data()
