"""load_episode on files that are not what export_replay wrote: every entry is checked against the episode's
layout before numpy allocates anything, and each refusal names the file and the entry (issue 28).

The episodes here are written by the exporter's own writer from arrays of the env's layout: no game runs
(exporting a played replay is tested in test_env_replay.py)."""

from __future__ import annotations

import json
import os
import zipfile

import numpy as np
import pytest

from sc2env.env import EnvConfig, SC2Env
from sc2env.env.dataset import _COLUMNS, FORMAT, Episode, _write, load_episode

CONFIG = EnvConfig(map_name="MoveToBeacon", screen_size=16, minimap_size=16)
STEPS = 5


def episode_arrays(steps: int = STEPS) -> dict[str, np.ndarray]:
    """The arrays of an episode of CONFIG's layout, as the .npz names them (meta aside)."""
    env = SC2Env.from_config(CONFIG)
    arrays = {
        f"observation.{name}": np.ones((steps, *space.shape), space.dtype)
        for name, space in env.observation_space.items()
    }
    for name, (_, dtype) in _COLUMNS.items():
        shape = env.action_space.shape if name == "actions" else ()
        arrays[name] = (np.arange(steps * int(np.prod(shape))) % 2).astype(dtype).reshape(steps, *shape)
    return arrays


def meta() -> dict:
    import dataclasses

    return {
        "format": FORMAT,
        "sc2env_version": "0.1.0",
        "config": json.loads(json.dumps(dataclasses.asdict(CONFIG))),
    }


def write(path, arrays: dict[str, np.ndarray], meta_text: str | None = None) -> None:
    """An .npz of `arrays` and a meta, as numpy writes it."""
    entries = dict(arrays)
    entries["meta"] = np.array(json.dumps(meta()) if meta_text is None else meta_text)
    np.savez_compressed(path, **entries)


def test_an_episode_the_exporter_wrote_loads_whole(tmp_path):
    arrays = episode_arrays()
    episode = Episode(
        observations={name.removeprefix("observation."): a for name, a in arrays.items() if "." in name},
        meta=meta(),
        **{name: arrays[name] for name in _COLUMNS},
    )
    target = tmp_path / "episode.npz"
    temporary = tmp_path / "episode.part"
    _write(episode, open(temporary, "xb"), temporary, target)  # noqa: SIM115 (closed by _write)
    loaded = load_episode(target)
    assert len(loaded) == STEPS and loaded.meta == episode.meta and loaded.config == CONFIG
    assert np.array_equal(loaded.actions, episode.actions) and loaded.actions.shape == (STEPS, 14)
    for name, array in episode.observations.items():
        assert (
            np.array_equal(loaded.observations[name], array)
            and loaded.observations[name].dtype == array.dtype
        )


def test_a_missing_column_is_named_with_the_file(tmp_path):
    arrays = episode_arrays()
    del arrays["rewards"]
    write(tmp_path / "e.npz", arrays)
    with pytest.raises(
        ValueError, match=r"e\.npz: the episode has no 'rewards' entry: the file is incomplete"
    ):
        load_episode(tmp_path / "e.npz")
    arrays = episode_arrays()
    del arrays["observation.feature_screen"], arrays["calls"]
    write(tmp_path / "e.npz", arrays)
    with pytest.raises(ValueError, match=r"no 'calls' entry \(nor 1 more\)"):
        load_episode(tmp_path / "e.npz")


@pytest.mark.parametrize(
    "name, bad, message",
    [
        (
            "actions",
            np.zeros((STEPS, 13), np.int64),
            r"'actions' is \(5, 13\) int64, .* make it \(5, 14\) int64",
        ),
        ("rewards", np.zeros(STEPS, np.float64), r"'rewards' is \(5,\) float64, .* make it \(5,\) float32"),
        ("scores", np.zeros(STEPS - 1, np.int64), r"'scores' is \(4,\) int64, .* make it \(5,\) int64"),
        (
            "observation.feature_screen",
            np.zeros((STEPS, 27, 32, 32), np.uint8),
            r"'observation.feature_screen' is \(5, 27, 32, 32\) uint8, .* make it \(5, 27, 16, 16\) uint8",
        ),
        (
            "observation.extra",
            np.zeros(STEPS),
            r"the entry 'observation.extra' is no part of the episode's layout",
        ),
    ],
    ids=["actions-shape", "rewards-dtype", "steps", "screen-size", "unexpected"],
)
def test_an_entry_that_does_not_fit_the_layout_is_refused(tmp_path, name, bad, message):
    arrays = episode_arrays()
    arrays[name] = bad
    write(tmp_path / "e.npz", arrays)
    with pytest.raises(ValueError, match=message):
        load_episode(tmp_path / "e.npz")


def forged(path, shape: tuple[int, ...], data: bytes = b"\0" * 64) -> None:
    """An episode whose `actions` header declares `shape` over a few bytes of data (a few kB of file that
    would make numpy allocate what the header says)."""
    write(path, episode_arrays())
    rebuilt = path.with_suffix(".tmp")
    with zipfile.ZipFile(path) as source, zipfile.ZipFile(rebuilt, "w", zipfile.ZIP_DEFLATED) as out:
        for member in source.infolist():
            if member.filename == "actions.npy":
                with out.open("actions.npy", "w") as entry:
                    header = {"descr": "<i8", "fortran_order": False, "shape": shape}
                    np.lib.format.write_array_header_1_0(entry, header)
                    entry.write(data)
            else:
                out.writestr(member, source.read(member))
    os.replace(rebuilt, path)


def test_a_header_declaring_gigabytes_over_a_small_entry_is_refused_before_allocating(tmp_path):
    path = tmp_path / "e.npz"
    forged(path, (27_000_000, 14))  # 2.8 GiB declared in a file of a few kB
    assert path.stat().st_size < 100_000
    with pytest.raises(
        ValueError,
        match=r"entry 'actions' declares \(27000000, 14\) int64 \(3,024,000,000 bytes\) but holds 64 bytes",
    ):
        load_episode(path)


def test_arrays_over_max_bytes_are_refused_from_their_headers(tmp_path):
    write(tmp_path / "e.npz", episode_arrays())
    total = sum(a.nbytes for a in episode_arrays().values())
    with pytest.raises(
        ValueError, match=r"take .* \(5 steps\), more than max_bytes=1000 .*pass a larger max_bytes"
    ):
        load_episode(tmp_path / "e.npz", max_bytes=1000)
    assert len(load_episode(tmp_path / "e.npz", max_bytes=total)) == STEPS
    assert len(load_episode(tmp_path / "e.npz", max_bytes=None)) == STEPS


@pytest.mark.parametrize(
    "meta_text",
    ["not json", "[" * 100_000 + "]" * 100_000, json.dumps({"format": "other/1"})],
    ids=["not-json", "nested-100000-deep", "other-format"],
)
def test_a_file_without_an_episodes_meta_is_not_an_episode(tmp_path, meta_text):
    write(tmp_path / "e.npz", episode_arrays(), meta_text=meta_text)
    with pytest.raises(ValueError, match=r"e\.npz: it is not an episode sc2env exported"):
        load_episode(tmp_path / "e.npz")


def test_a_meta_whose_config_this_sc2env_cannot_use_is_named(tmp_path):
    broken = meta()
    broken["config"]["screen_size"] = -3
    write(tmp_path / "e.npz", episode_arrays(), meta_text=json.dumps(broken))
    with pytest.raises(ValueError, match=r"its meta has a config this sc2env can't use \(.*screen_size"):
        load_episode(tmp_path / "e.npz")


@pytest.mark.timeout(60)  # a FIFO nobody writes to would block an open() for ever
def test_what_is_no_npz_file_is_refused_unread(tmp_path):
    (tmp_path / "text.npz").write_text("hello")
    with pytest.raises(ValueError, match=r"text\.npz: it is not an \.npz file"):
        load_episode(tmp_path / "text.npz")
    os.mkfifo(tmp_path / "pipe.npz")
    with pytest.raises(OSError, match=r"cannot read the episode .*pipe\.npz: it is a FIFO"):
        load_episode(tmp_path / "pipe.npz")
    with pytest.raises(FileNotFoundError, match=r"cannot read the episode .*missing\.npz"):
        load_episode(tmp_path / "missing.npz")
