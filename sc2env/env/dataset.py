"""Replays exported as arrays: one compressed .npz per episode, readable with numpy alone, by any version."""

from __future__ import annotations

import dataclasses
import json
import os
import pathlib
import secrets
from collections.abc import Mapping
from typing import Any

import numpy as np

import sc2env
from sc2env import errors
from sc2env.env.config import EnvConfig
from sc2env.env.env import SC2Env
from sc2env.env.npz_headers import ArrayHeader, read_headers
from sc2env.env.replay_watcher import watch_replay
from sc2env.safefile import describe_size, open_regular_file

FORMAT = "sc2env-episode/1"
MAX_EPISODE_BYTES = 2 << 30
"""load_episode's default cap on an episode's arrays in memory: a BuildMarines episode (1,800 steps) with
every layer at 64×64 in int32 takes about 1.1 GiB."""
_OBSERVATION_PREFIX = "observation."
_MAX_META_BYTES = 1 << 20


@dataclasses.dataclass(frozen=True, eq=False)  # arrays have no truth value: == compares identity
class Episode:
    """One episode as arrays, a row per step: what the player saw, did and got (a replay's ReplaySteps).

    observations: the env's observation entries, each (steps, *its shape in observation_space).
    actions:      (steps, 14) int64 action vectors of the env's action space (the first call of each step;
                  (steps, 5) with raw actions).
    calls:        (steps,) how many actions the player made in each step (more than one: `actions` holds the
                  first).
    rewards, terminated, truncated, game_loops, scores: (steps,) as SC2Env.step() returned them.
    meta:         what made it: `format`, `sc2env_version`, `config` (EnvConfig keyword arguments, as JSON
                  values), `replay` (the file's name), `map_name`, `game_version`, `base_build`.
    """

    observations: dict[str, np.ndarray]
    actions: np.ndarray
    calls: np.ndarray
    rewards: np.ndarray
    terminated: np.ndarray
    truncated: np.ndarray
    game_loops: np.ndarray
    scores: np.ndarray
    meta: dict[str, Any]

    def __len__(self) -> int:
        return len(self.actions)

    @property
    def config(self) -> EnvConfig:
        """The EnvConfig whose observation layout and action space the arrays have."""
        return EnvConfig(**self.meta["config"])


# The per-step columns of an Episode besides its observations: how each is read off a ReplayStep, its dtype.
_COLUMNS = {
    "actions": (lambda step: step.action, np.int64),
    "calls": (lambda step: len(step.calls), np.int32),
    "rewards": (lambda step: step.reward, np.float32),
    "terminated": (lambda step: step.terminated, bool),
    "truncated": (lambda step: step.truncated, bool),
    "game_loops": (lambda step: step.info["game_loop"], np.int64),
    "scores": (lambda step: step.info["score"], np.int64),
}


def _stack(rows: list, shape: tuple[int, ...], dtype) -> np.ndarray:
    """(steps, *shape) of `dtype`; (0, *shape) for an episode of no step."""
    return np.array(rows, dtype) if rows else np.zeros((0, *shape), dtype)


def export_replay(
    replay: str | os.PathLike[str] | bytes,
    path: str | os.PathLike[str],
    config: EnvConfig | Mapping[str, Any] | None = None,
    **env_kwargs: Any,
) -> Episode:
    """Play `replay` through the eyes of an env of `config` (see `watch_replay`) and write its steps to `path`
    (an .npz); returns what was written. The file is complete or absent: it is written under another name and
    renamed at the end, so an interrupted export leaves no half file.

    The built-in engine plays a replay only in the sc2env version that recorded it; the exported arrays are
    read by `load_episode`, or by `numpy.load` alone, in any version. The whole episode is held in memory
    while it is written (about 170 KB a step at 64x64 with every layer, more with unit tables and RGB).
    """
    target = pathlib.Path(path)
    if target.suffix != ".npz":
        raise ValueError(
            f"the episode is written as an .npz file: give a path ending in .npz, not {str(path)!r}"
        )
    # Opened before the replay is played: a folder that can't be written to fails now, not after the work.
    temporary = target.with_name(f".{target.name}.{os.getpid()}.{secrets.token_hex(4)}.part")
    try:
        file = open(temporary, "xb")  # noqa: SIM115 (closed by _write, or below)
    except OSError as error:
        raise OSError(error.errno, f"cannot write {target}: {error.strerror}") from None
    try:
        episode = _play(replay, config, env_kwargs)
        _write(episode, file, temporary, target)
    except BaseException:
        file.close()
        temporary.unlink(missing_ok=True)
        raise
    return episode


def _play(replay, config, env_kwargs) -> Episode:
    """The replay's steps, stacked."""
    rows: dict[str, list] = {}
    columns: dict[str, list] = {name: [] for name in _COLUMNS}
    with watch_replay(replay, config, **env_kwargs) as watcher:
        for step in watcher:
            for name, value in step.observation.items():
                rows.setdefault(name, []).append(value)
            for name, (get, _) in _COLUMNS.items():
                columns[name].append(get(step))
        info = watcher.info
        observation_space, action_space = watcher.observation_space, watcher.action_space
        layout = dataclasses.asdict(watcher.config)
        layout["map_name"] = (
            info.map_name if info else layout["map_name"]
        )  # the replay's, not the one ignored
        meta = {
            "format": FORMAT,
            "sc2env_version": sc2env.__version__,
            "config": layout,
            "replay": os.path.basename(os.fspath(replay)) if not isinstance(replay, bytes) else None,
            "map_name": info.map_name if info else None,
            "game_version": info.game_version if info else None,
            "base_build": info.base_build if info else None,
        }
    return Episode(
        observations={
            name: _stack(rows.get(name, []), space.shape or (), space.dtype)
            for name, space in observation_space.items()
        },
        **{
            name: _stack(columns[name], action_space.shape if name == "actions" else (), dtype)
            for name, (_, dtype) in _COLUMNS.items()
        },
        meta=json.loads(json.dumps(meta)),
    )  # as load_episode gives it back (lists for tuples)


def _write(episode: Episode, file, temporary: pathlib.Path, target: pathlib.Path) -> None:
    """Write the episode to the open `file` (not tempfile.mkstemp's: its files are private, 0600, and the
    episode gets the umask's mode), then give it its name."""
    arrays = {f"{_OBSERVATION_PREFIX}{name}": value for name, value in episode.observations.items()}
    arrays.update({name: getattr(episode, name) for name in _COLUMNS})
    arrays["meta"] = np.array(json.dumps(episode.meta))
    with file:
        np.savez_compressed(file, **arrays)  # type: ignore[arg-type]  # numpy's stub: a key might be allow_pickle
    os.replace(temporary, target)


def load_episode(path: str | os.PathLike[str], max_bytes: int | None = MAX_EPISODE_BYTES) -> Episode:
    """An episode `export_replay` wrote. The file is plain numpy: `numpy.load(path)` reads it too, its entries
    named `observation.<name>`, `actions`, ..., and `meta` (a JSON string).

    Before any array is read, every entry's declared shape and dtype is checked against the episode's layout
    (the env its meta's config makes), and their sizes against `max_bytes` in all (None: no cap). A missing,
    unexpected or misshapen entry, or a damaged file, raises ValueError naming the entry and the file.
    """
    try:
        with open_regular_file(path) as file:
            headers = read_headers(file)
            meta = _read_meta(file, headers.get("meta"))
            if not isinstance(meta, dict) or meta.get("format") != FORMAT:
                raise ValueError(
                    f"it is not an episode sc2env exported (no meta of format {FORMAT!r}): export_replay or "
                    "`sc2env replay --export` writes them"
                )
            del headers["meta"]
            _check_layout(headers, _layout(meta), max_bytes)
            file.seek(0)  # numpy reads the archive from where the file stands
            with np.load(file, allow_pickle=False) as data:
                observations = {
                    name[len(_OBSERVATION_PREFIX) :]: data[name]
                    for name in data.files
                    if name.startswith(_OBSERVATION_PREFIX)
                }
                columns = {name: data[name] for name in _COLUMNS}
    except OSError as error:
        raise OSError(error.errno, f"cannot read the episode {path}: {error.strerror or error}") from None
    except ValueError as error:
        raise ValueError(f"{path}: {error}") from None
    return Episode(observations=observations, meta=meta, **columns)


def _read_meta(file, header: ArrayHeader | None) -> Any:
    """The episode's meta (its JSON decoded), or None when the file has no meta fit to read."""
    if header is None or header.dtype.kind != "U" or header.shape != () or header.nbytes > _MAX_META_BYTES:
        return None
    file.seek(0)
    with np.load(file, allow_pickle=False) as data:
        text = str(data["meta"])
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


def _layout(meta: dict[str, Any]) -> dict[str, ArrayHeader]:
    """Each entry's shape per step and dtype, from the env of the episode's config (shape[0] is a stand-in)."""
    try:
        env = SC2Env.from_config(EnvConfig(**meta["config"]))
    except (KeyError, TypeError, ValueError, errors.SC2EnvError) as error:
        what = (
            "has no config"
            if isinstance(error, KeyError)
            else f"has a config this sc2env can't use ({error})"
        )
        raise ValueError(
            f"its meta {what}: it was exported by sc2env {meta.get('sc2env_version')!r}, this is "
            f"{sc2env.__version__}"
        ) from None
    layout = {
        f"{_OBSERVATION_PREFIX}{name}": ArrayHeader((0, *(space.shape or ())), np.dtype(space.dtype))
        for name, space in env.observation_space.items()
    }
    for name, (_, dtype) in _COLUMNS.items():
        shape = env.action_space.shape if name == "actions" else ()
        layout[name] = ArrayHeader((0, *(shape or ())), np.dtype(dtype))
    return layout


def _check_layout(
    headers: dict[str, ArrayHeader], layout: dict[str, ArrayHeader], max_bytes: int | None
) -> None:
    """Raise ValueError unless `headers` hold exactly the entries of `layout`, each of its dtype and of its
    shape for one number of steps, and at most `max_bytes` in all."""
    missing = sorted(set(layout) - set(headers))
    if missing:
        raise ValueError(
            f"the episode has no {missing[0]!r} entry{f' (nor {len(missing) - 1} more)' if len(missing) > 1 else ''}"
            ": the file is incomplete, or not what export_replay wrote"
        )
    unexpected = sorted(set(headers) - set(layout))
    if unexpected:
        raise ValueError(
            f"the entry {unexpected[0]!r} is no part of the episode's layout (its meta's config): the file is "
            "not what export_replay wrote"
        )
    steps = headers["actions"].shape[:1]
    for name, want in layout.items():
        got = headers[name]
        if got.dtype != want.dtype or got.shape != (*steps, *want.shape[1:]):
            raise ValueError(
                f"the entry {name!r} is {got.describe()}, but the episode's layout (its meta's config) and its "
                f"{steps[0] if steps else '?'} steps make it {(*steps, *want.shape[1:])} {want.dtype}"
            )
    total = sum(header.nbytes for header in headers.values())
    if max_bytes is not None and total > max_bytes:
        raise ValueError(
            f"its arrays take {describe_size(total)} ({steps[0]} steps), more than max_bytes="
            f"{max_bytes} ({describe_size(max_bytes)}): pass a larger max_bytes (or None) to load it"
        )
