"""`sc2env run`: play an agent on mini-games, with progress on stderr and a table of scores on stdout."""

from __future__ import annotations

import dataclasses
import os
import sys
from collections.abc import Callable
from typing import Any

import gymnasium as gym

from sc2env.cli.env_options import (
    agent_env_kwargs,
    engine_option,
    make_env,
    minimap_size_option,
    screen_size_option,
    small_layers,
    step_mul_option,
)
from sc2env.cli.map_names import resolve_maps
from sc2env.cli.options import Command, Options, UsageError, option
from sc2env.cli.progress import Progress, step_budget
from sc2env.cli.recording import Recording, frame_of
from sc2env.cli.results import results_table
from sc2env.cli.signals import exit_code, stopped_by
from sc2env.errors import SC2EnvError, UnknownMapError


@dataclasses.dataclass(frozen=True)
class RunOptions(Options):
    """The options of `sc2env run`."""

    map: tuple[str, ...] = option(
        ("MoveToBeacon",),
        "the mini-game(s) to play, comma-separated: a name (sc2env maps lists them), a definition file of "
        "your own (Name.json), or all for every shipped one",
        metavar="NAME[,NAME...]",
    )
    agent: str = option("scripted", "random, scripted, or package.module:Class", metavar="AGENT")
    episodes: int = option(1, "episodes per map", metavar="N", at_least=1)
    engine: str | None = engine_option()
    screen_size: int = screen_size_option()
    minimap_size: int = minimap_size_option()
    step_mul: int = step_mul_option(8, "game loops per agent step")
    seed: int | None = option(
        None, "seed of the first episode (and of the random agent)", metavar="N", at_least=0
    )
    max_steps: int | None = option(
        None, "cut episodes after this many steps (default: the map's timer)", metavar="N", at_least=1
    )
    actions: str | None = option(
        None,
        "the action space (default: the agent's, else features)",
        choices=("features", "raw"),
    )
    render: bool = option(False, "watch in the viewer window")
    save_video: str | None = option(None, "write a video of the run: out.mp4 or out.gif", metavar="FILE")
    save_replay: str | None = option(
        None, "save each episode's replay in this folder (sc2env replay plays one)", metavar="DIR"
    )


def run(options: RunOptions) -> int:
    from sc2env.agents import agent_class, make_agent, run_agent, summarise
    from sc2env.env.config import EnvConfig
    from sc2env.viewer import ViewerClosed

    if not options.map:  # `--map $MAP` with MAP unset
        raise UsageError("no map given: --map takes a mini-game, a comma-separated list, or all")
    if any(not name.strip() for name in options.map):
        raise UsageError(f"--map {','.join(options.map)!r} has an empty name (a stray comma?)")
    replay_dir = options.save_replay
    if replay_dir == "":
        raise UsageError("--save-replay needs a folder: e.g. --save-replay replays")
    replay_dir = replay_dir and os.path.expanduser(replay_dir)  # a quoted ~, or --save-replay=~/x
    if ":" in options.agent and os.getcwd() not in sys.path:
        # An agent module in the working directory imports as it does under `python -m sc2env`, whose
        # sys.path starts there (a console script's starts at its own bin directory).
        sys.path.insert(0, os.getcwd())
    # Unknown maps and agents, an agent's conflicting options and env options out of range (usage errors) fail
    # before any game starts.
    try:
        planned = resolve_maps(options.map, options.engine)
        maps = [m.name for m in planned]
        labels = {m.name: m.label for m in planned}
        classes = {name: agent_class(options.agent, name) for name in maps}
        env_kwargs = {name: agent_env_kwargs(options, options.agent, cls) for name, cls in classes.items()}
        for name, kwargs in env_kwargs.items():
            if replay_dir:
                kwargs.update(save_replay_episodes=1, replay_dir=replay_dir)
            # A value of the wrong type is a usage error (an agent module's own TypeErrors stay bugs).
            try:
                EnvConfig(map_name=name, **kwargs)
            except TypeError as error:
                raise ValueError(str(error)) from error
    except (ValueError, UnknownMapError) as error:
        raise UsageError(str(error)) from error
    for warning in small_layers([(classes[name], env_kwargs[name]) for name in maps]):
        print(f"sc2env run: {warning}", file=sys.stderr)
    recording = (  # in real time at the first map's step_mul
        Recording(options.save_video, env_kwargs[maps[0]]["step_mul"])
        if options.save_video is not None
        else None
    )
    if replay_dir:  # made last: a run refused for another reason leaves no empty folder behind
        _replay_folder(replay_dir)
    render_mode = "human" if options.render else ("rgb_array" if recording is not None else None)
    budgets = [
        step_budget(m.spec, env_kwargs[m.name]["step_mul"], env_kwargs[m.name].get("max_episode_steps"))
        for m in planned
    ]
    progress = Progress(options.episodes, budgets)
    episodes = []
    replays_before = _replays_in(replay_dir)
    interrupted = None
    failure: SC2EnvError | None = None
    closed = False
    ended = False  # on its own or by the user: not by an error, which is then all there is to say
    code = 130
    try:
        for name in maps:
            agent = make_agent(options.agent, name, seed=options.seed)
            env = make_env(name, render_mode=render_mode, **env_kwargs[name])
            try:
                on_step = _step_callback(progress, labels[name], env, recording)

                def on_episode(episode: Any) -> None:
                    episodes.append(episode)
                    progress.episode(episode, labels[episode.map_name])

                run_agent(
                    env, agent, options.episodes, seed=options.seed, on_step=on_step, on_episode=on_episode
                )
            finally:
                env.close()
        ended = True
    except KeyboardInterrupt as stop:
        interrupted, code, ended = stopped_by(stop), exit_code(stop), True
    except ViewerClosed as error:  # closing the window is how a watcher stops: not a failure
        interrupted, closed, ended = str(error), True, True
    except SC2EnvError as error:  # a lost game, say: the finished episodes still count
        interrupted, failure = f"stopped by an error ({type(error).__name__})", error
    finally:
        progress.end_line()
        late_stop = recording.close(report_empty=ended) if recording is not None else None
        if late_stop is not None and not interrupted:  # the run had ended; it still reports the stop
            interrupted, code = stopped_by(late_stop), exit_code(late_stop)
        if replay_dir:  # counted in the folder: the env saves some at the next reset or at close
            replays = sorted(_replays_in(replay_dir) - replays_before)
            print(
                f"replays: {len(replays)} saved in {replay_dir}"
                + (f" (watch one with sc2env replay {replays[-1]})" if replays else ""),
                file=sys.stderr,
            )
    if interrupted and (episodes or failure is None):  # an error before any episode ended says just itself
        print(
            f"sc2env run: {interrupted}: "
            + (f"results of the {len(episodes)} finished episode(s)" if episodes else "no episode finished"),
            file=sys.stderr,
        )
    if episodes:
        print(results_table(summarise(episodes), options.agent, labels))
    if failure is not None:
        raise failure
    if interrupted and not closed:
        return code
    return 1 if recording is not None and recording.failure is not None else 0


def _replay_folder(path: str) -> None:
    """Make the --save-replay folder now, so that a run whose replays could not be saved never starts."""
    if os.path.exists(path) and not os.path.isdir(path):
        raise UsageError(f"--save-replay {path} is a file, not a folder: give a folder for the replays")
    try:
        os.makedirs(path, exist_ok=True)
    except OSError as error:
        raise UsageError(
            f"--save-replay {path}: cannot make the folder ({error.strerror or error})"
        ) from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise UsageError(f"--save-replay {path}: the folder is not writable; give one of yours")


def _replays_in(folder: str | None) -> set[str]:
    """The replay files in `folder` (none if it doesn't exist)."""
    from sc2env.game.replay import REPLAY_SUFFIX

    if not folder or not os.path.isdir(folder):
        return set()
    return {entry.path for entry in os.scandir(folder) if entry.name.endswith(REPLAY_SUFFIX)}


def _step_callback(
    progress: Progress, label: str, env: gym.Env, recording: Recording | None
) -> Callable[[int, dict[str, Any]], None]:
    def on_step(steps: int, info: dict[str, Any]) -> None:
        progress.step(label, steps, info)
        if recording is not None and recording.active:
            recording.add(frame_of(env.unwrapped))

    return on_step


COMMAND = Command("run", "play an agent on mini-games and print its scores", RunOptions, run)
