"""`sc2env replay` and `sc2env run --map X.json` on files that can't be read: a FIFO or a device in place of
a replay or a mini-game definition, or among a folder's replays, a definition nested 100,000 deep; each is
refused by name instead of hanging the command or ending in a traceback (issue 28)."""

from __future__ import annotations

import os

import pytest

from sc2env.cli import main

# A FIFO nobody writes to blocks a plain read for ever: without the fix these tests hang, and the timeout
# fails them.
pytestmark = pytest.mark.timeout(60)


def run_cli(capsys, *args):
    code = main(["sc2env", *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def folder(tmp_path):
    """A folder of replays none of which can be read: a FIFO, and an empty file (no game is started)."""
    os.mkfifo(tmp_path / "pipe.SC2Replay")
    (tmp_path / "empty.SC2Replay").write_bytes(b"")
    return tmp_path


def test_listing_a_folder_names_the_fifo_in_it(folder, capsys):
    _, out, err = run_cli(capsys, "replay", str(folder), "--engine", "builtin")
    rows = {line.split()[0]: line for line in out.splitlines()[1:]}
    assert "cannot be read" in rows["pipe.SC2Replay"]
    assert "it is a FIFO (named pipe), not a regular file" in rows["pipe.SC2Replay"]
    assert "is empty" in rows["empty.SC2Replay"]
    assert "2 replays in" in err and "2 unreadable" in err


def test_exporting_a_folder_skips_the_fifo_in_it(folder, tmp_path_factory, capsys):
    out_dir = tmp_path_factory.mktemp("out")
    code, _, err = run_cli(capsys, "replay", str(folder), "--export", str(out_dir), "--engine", "builtin")
    assert code == 1
    assert "pipe.SC2Replay: not exported: " in err and "a FIFO (named pipe), not a regular file" in err
    assert "exported 0 of 2 replay(s)" in err
    assert not list(out_dir.iterdir()), "no .npz, and no partial file, for a replay that was never read"


@pytest.mark.parametrize("path", ["/dev/zero", "pipe"])
def test_watching_a_device_or_fifo_is_a_usage_error(folder, capsys, path):
    path = path if path.startswith("/") else str(folder / "pipe.SC2Replay")
    code, _, err = run_cli(capsys, "replay", path, "--engine", "builtin")
    assert code == 2
    assert f"could not read the replay {path}: it is a " in err and "not a regular file" in err


@pytest.mark.parametrize("kind", ["fifo", "link-to-dev-zero", "nested-100000-deep"])
def test_run_with_a_definition_that_cannot_be_read_is_a_usage_error(tmp_path, capsys, kind):
    path = tmp_path / f"{kind}.json"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "link-to-dev-zero":
        path.symlink_to("/dev/zero")
    else:
        path.write_text('{"format": "sc2env-minigame/1", "x": ' + "[" * 100_000 + "]" * 100_000 + "}")
    code, _, err = run_cli(capsys, "run", "--map", str(path), "--engine", "builtin", "--episodes", "1")
    assert code == 2
    assert f"{kind}.json" in err
    assert (
        ("not a regular file" in err)
        if kind != "nested-100000-deep"
        else ("nests" in err and "deeply" in err)
    )
    assert "Traceback" not in err
