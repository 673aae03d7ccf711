"""`sc2env replay`: watch a saved replay, print what it holds, list a folder of them, or export them."""

from __future__ import annotations

import dataclasses
import os
import sys
from typing import Any

from sc2env.cli.env_options import (
    engine_option,
    env_kwargs,
    minimap_size_option,
    screen_size_option,
    step_mul_option,
)
from sc2env.cli.options import Command, Options, UsageError, option
from sc2env.cli.recording import Recording, frame_of
from sc2env.cli.signals import exit_code
from sc2env.cli.text import one_line, shown
from sc2env.errors import SC2EnvError
from sc2env.game.maps import game_time


@dataclasses.dataclass(frozen=True)
class ReplayOptions(Options):
    """The options of `sc2env replay`."""

    file: str | None = option(
        None,
        "the replay, or a folder of them to list (also the argument: sc2env replay FILE)",
        metavar="FILE",
        argument=True,
    )
    engine: str | None = engine_option()
    info: bool = option(False, "print what the replay holds, without playing it")
    screen_size: int = screen_size_option()
    minimap_size: int = minimap_size_option()
    step_mul: int = step_mul_option(8, "game loops per step")
    observed_player: int = option(0, "whose view to watch (0: the first player)", metavar="ID", at_least=0)
    render: bool = option(False, "watch in the viewer window")
    save_video: str | None = option(None, "write a video of the replay: out.mp4 or out.gif", metavar="FILE")
    export: str | None = option(
        None,
        "write the replay (or each of a folder) to this folder as an .npz of the env's observations, "
        "actions and rewards, at the sizes given",
        metavar="DIR",
    )


def replay(options: ReplayOptions) -> int:
    from sc2env.env.replay_watcher import watch_replay
    from sc2env.game import ReplayError, ReplayReader, read_replay
    from sc2env.interface import FUNCTIONS
    from sc2env.launch import LaunchConfig
    from sc2env.viewer import ViewerClosed

    if not options.file:
        raise UsageError(
            "no replay given: sc2env replay FILE (a .SC2Replay saved by sc2env run --save-replay "
            "or env.save_replay()), or a folder of them"
        )
    file = os.path.expanduser(options.file)
    if options.export is not None:
        return _export_replays(file, os.path.expanduser(options.export), options)
    if os.path.isdir(file):
        return _list_replays(file, options.engine)
    try:
        data = read_replay(options.file)
    except ReplayError as error:
        raise UsageError(str(error)) from error
    problem = not_a_replay(data)
    if problem is not None:  # the game's answer to other bytes speaks to Python callers of save_replay
        raise UsageError(
            f"{shown(options.file, None)} is {problem}; give a replay saved by sc2env run --save-replay (or "
            "env.save_replay()), or a folder of them"
        )
    if options.info:
        with ReplayReader(LaunchConfig(engine=options.engine)) as reader:
            print(_replay_header(options.file, reader.info(data)))
        return 0
    recording = Recording(options.save_video, options.step_mul) if options.save_video is not None else None
    render_mode = "human" if options.render else ("rgb_array" if recording is not None else None)
    watcher = watch_replay(
        data,
        observed_player_id=options.observed_player,
        render_mode=render_mode,
        **env_kwargs(options),
    )
    used: dict[str, int] = {}
    steps, score, closed = 0, 0, False
    ended = False  # on its own or by the user: not by an error, which is then all there is to say

    try:
        for step in watcher:
            if steps == 0:
                print(_replay_header(options.file, watcher.info))
            steps += 1
            score = step.info["score"]
            for call in step.calls:
                name = FUNCTIONS[call.function].name
                used[name] = used.get(name, 0) + 1
            if recording is not None and recording.active:
                recording.add(frame_of(watcher))
        if recording is not None and recording.active and steps:
            recording.add(frame_of(watcher))  # the final observation, which no step starts from
        if options.render and watcher.renderer is not None:
            watcher.renderer.wait(1.5)  # the final frame a moment longer, before the window goes
        ended = True
    except ViewerClosed:  # closing the window is how a watcher stops: not a failure
        closed = ended = True
    except KeyboardInterrupt:
        ended = True
        raise
    finally:
        watcher.close()
        late_stop = recording.close(report_empty=ended) if recording is not None else None
    if steps == 0 and watcher.info is not None:  # a replay of no step at all
        print(_replay_header(options.file, watcher.info))
    top = ", ".join(f"{name} {count}" for name, count in sorted(used.items(), key=lambda kv: -kv[1])[:6])
    print(
        f"{'watched until the window closed: ' if closed else ''}{steps} steps, final score {score}; "
        f"actions: {sum(used.values())}{' (' + top + ')' if top else ''}"
    )
    if late_stop is not None:
        return exit_code(late_stop)
    return 1 if recording is not None and recording.failure is not None else 0


_FILE_LIMIT = 72
"""The most characters a replay's file name takes in a listing (the longest saved by sc2env run are 64)."""


def not_a_replay(data: bytes) -> str | None:
    """Why `data` is no replay file, in the command's words, or None when it starts as a replay does."""
    from sc2env.gamedata.replay_format import MPQ_ARCHIVE_MAGIC, SC2ENV_MAGIC, is_replay

    if is_replay(data):
        return None
    head = shown(data[:16].decode("ascii", "backslashreplace"), None)
    return (
        f"not a replay file: it starts with '{head}', where a replay (.SC2Replay, sc2env's or StarCraft II's) "
        f"starts with '{MPQ_ARCHIVE_MAGIC[:3].decode()}' (sc2env's older ones with '{SC2ENV_MAGIC.decode()}')"
    )


def _replays_in(folder: str) -> list[str]:
    """The replay files in `folder`, sorted."""
    from sc2env.game import REPLAY_SUFFIX

    return sorted(entry.path for entry in os.scandir(folder) if entry.name.endswith(REPLAY_SUFFIX))


def _export_replays(source: str, out_dir: str, options: ReplayOptions) -> int:
    """Write each replay of `source` (a file or a folder) to `out_dir`/<its name>.npz, as the env's arrays."""
    from sc2env.env.dataset import export_replay
    from sc2env.game import REPLAY_SUFFIX, ReplayError, read_replay

    if os.path.isdir(source):
        paths = _replays_in(source)
        if not paths:
            raise UsageError(f"no replays (.SC2Replay files) in {source} to export")
    elif os.path.isfile(source):
        paths = [source]
    else:
        raise UsageError(f"no replay at {source}: give a .SC2Replay file or a folder of them")
    if os.path.isfile(out_dir):
        raise UsageError(f"--export takes a folder for the .npz files, and {out_dir} is a file")
    os.makedirs(out_dir, exist_ok=True)
    failed = steps = 0
    for path in paths:
        target = os.path.join(out_dir, os.path.basename(path).removesuffix(REPLAY_SUFFIX) + ".npz")
        try:
            data = read_replay(path)
            problem = not_a_replay(data)
            if problem is not None:
                raise ReplayError(problem)
            episode = export_replay(
                data, target, observed_player_id=options.observed_player, **env_kwargs(options)
            )
        except (ReplayError, SC2EnvError, OSError) as error:  # OSError: the .npz could not be written
            failed += 1
            print(
                f"{shown(os.path.basename(path), _FILE_LIMIT)}: not exported: {one_line(error)}",
                file=sys.stderr,
            )
            continue
        steps += len(episode)
        print(f"{target}: {len(episode)} steps, final score {int(episode.scores[-1]) if len(episode) else 0}")
    print(
        f"exported {len(paths) - failed} of {len(paths)} replay(s), {steps} steps in all, to {out_dir} "
        "(read them with sc2env.env.load_episode or numpy.load)",
        file=sys.stderr,
    )
    return 1 if failed else 0


def _list_replays(folder: str, engine: str | None) -> int:
    """One line per replay in `folder` (read by one game process): map, length, result and APM."""
    from sc2env.game import ReplayError, ReplayReader, read_replay
    from sc2env.launch import LaunchConfig

    paths = _replays_in(folder)
    if not paths:
        print(f"no replays (.SC2Replay files) in {folder}", file=sys.stderr)
        return 1
    # Each file's name, and its columns or why it can't be read.
    rows: list[tuple[str, tuple[str, ...] | str]] = []
    with ReplayReader(LaunchConfig(engine=engine)) as reader:
        for path in paths:
            name = shown(os.path.basename(path), _FILE_LIMIT)
            try:
                data = read_replay(path)
                problem = not_a_replay(data)
                if problem is not None:  # told without starting a game for it
                    raise ReplayError(problem)
                info = reader.info(data)
            except ReplayError as error:
                rows.append((name, f"cannot be read: {one_line(error)}"))
                continue
            player = info.players[0] if info.players else None
            result = (player.result if player else None) or "-"
            apm = str(player.apm if player else 0)
            cells = (
                shown(info.map_name),
                str(info.game_loops),
                game_time(info.game_loops),
                shown(result, 10),
            )
            rows.append((name, (*cells, apm)))
    # Columns as wide as their longest entry, which shown() keeps short: a name of 5,000 characters stored in
    # a replay pushed the rest of its row off the screen.
    header: tuple[str, ...] = ("map", "loops", "time", "result", "APM")
    readable = [header, *(row for _, row in rows if isinstance(row, tuple))]
    name_width = max(len("replay"), *(len(name) for name, _ in rows))
    width = [max(len(row[i]) for row in readable) for i in range(len(header))]
    for name, row in [("replay", header), *rows]:
        if isinstance(row, str):
            print(f"{name:<{name_width}}  {row}")
            continue
        map_name, loops, time, result, apm = row
        print(
            f"{name:<{name_width}}  {map_name:<{width[0]}} {loops:>{width[1]}} {time:>{width[2]}}  "
            f"{result:<{width[3]}} {apm:>{width[4]}}"
        )
    unreadable = sum(isinstance(row, str) for _, row in rows)
    print(
        f"{len(paths)} replay{'s' if len(paths) != 1 else ''} in {shown(folder, None)}"
        + (f", {unreadable} unreadable" if unreadable else ""),
        file=sys.stderr,
    )
    return 0


def _replay_header(path: str, info: Any) -> str:
    """The replay's facts in a few lines: map, length, players, game version."""
    players = "; ".join(
        f"player {p.player_id} {shown(p.name or '?')} ({shown(p.race, 10)}): "
        f"{shown(p.result or 'no result', 10)}, {p.apm} APM"
        for p in info.players
    )
    return (
        f"{shown(path, None)}\n  map {shown(info.map_name)}, {info.game_loops} game loops "
        f"({game_time(info.game_loops)} of game time, as the viewer's clock shows it; {info.seconds:.1f} s at "
        f"Faster speed)\n  {players}\n  recorded with {shown(info.game_version)} (build {info.base_build})"
    )


COMMAND = Command(
    "replay",
    "watch a saved replay, print what it holds, list a folder of them, or export them as arrays",
    ReplayOptions,
    replay,
)
