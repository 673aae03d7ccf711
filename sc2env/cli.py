"""The `sc2env` command: run agents, play mini-games, watch replays, list maps, check the install, benchmark."""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
import platform
import select
import signal
import sys
import threading
import time
from collections.abc import Callable, Sequence

from absl import flags
from absl import logging as absl_logging
from gymnasium import error as gym_error

import sc2env
from sc2env.errors import SC2EnvError, UnknownMapError
from sc2env.game.maps import LOOPS_PER_GAME_SECOND, LOOPS_PER_REAL_SECOND, game_time
from sc2env.launch import ENGINE_ENV_VAR, ENGINES


@dataclasses.dataclass(frozen=True)
class Flag:
    """One command-line flag of a command (absl kinds: string, integer, boolean, list, enum)."""

    kind: str
    name: str
    default: object
    help: str
    choices: tuple[str, ...] = ()
    lower_bound: int | None = None  # integers only
    upper_bound: int | None = None

    def define(self, values: flags.FlagValues) -> None:
        if self.kind == "enum":
            flags.DEFINE_enum(self.name, self.default, list(self.choices), self.help, flag_values=values)
        elif self.kind == "integer":
            flags.DEFINE_integer(
                self.name,
                self.default,
                self.help,
                lower_bound=self.lower_bound,
                upper_bound=self.upper_bound,
                flag_values=values,
            )
        else:
            getattr(flags, f"DEFINE_{self.kind}")(self.name, self.default, self.help, flag_values=values)


class UsageError(ValueError):
    """A value the command line gave that no run could use (a map or agent name): exit status 2, as flags'."""


_UINT32 = 2**32 - 1  # a step's game loops travel as uint32
_MAP = Flag(
    "list",
    "map",
    ["MoveToBeacon"],
    "mini-game(s) to play, comma-separated (a name, or a definition "
    "file of your own: Name.json); 'all' for every shipped one",
)
_ENGINE = Flag(
    "enum", "engine", None, f"{', '.join(ENGINES)} (default: ${ENGINE_ENV_VAR}, else auto)", ENGINES
)
_SIZES = [
    Flag("integer", "screen-size", 64, "feature screen width and height in pixels", lower_bound=1),
    Flag("integer", "minimap-size", 64, "feature minimap width and height in pixels", lower_bound=1),
]
_VERBOSE = Flag("boolean", "verbose", False, "log what happens, and show tracebacks of errors")

# --- progress and results ----------------------------------------------------------------------------


class Progress:
    """A one-line progress bar on stderr (redrawn in place on a terminal, one line per episode otherwise)."""

    def __init__(self, total_episodes: int, per_map: int, stream=None):
        self.total = total_episodes
        self.per_map = per_map
        self.stream = stream or sys.stderr
        self.live = self.stream.isatty()
        # One column short of the terminal: a full-width line wraps on some terminals, and a wrapped line
        # is never redrawn in place again.
        self.width = max(20, _columns_of(self.stream) - 1)
        self.pending = False  # a live line is drawn and not ended yet
        self.done = 0
        self.steps = 0
        self.started = time.perf_counter()
        self._drawn = 0.0

    def step(self, map_name: str, episode_steps: int, info: dict) -> None:
        self.steps += episode_steps > 0  # 0: the episode's reset
        now = time.perf_counter()
        if self.live and now - self._drawn > 0.1:
            self._drawn = now
            fraction = self.done / self.total if self.total else 0.0
            filled = int(24 * fraction)
            rate = self.steps / max(now - self.started, 1e-9)
            # Counted per map, as the episode lines are; the bar is the whole run's.
            line = (
                f"\r{map_label(map_name)} episode {self.done % self.per_map + 1}/{self.per_map} "
                f"[{'#' * filled}"
                f"{'.' * (24 - filled)}] step {episode_steps} score {info['score']}  {rate:,.0f} steps/s"
            )
            self.stream.write(line[: self.width + 1].ljust(self.width + 1))
            self.stream.flush()
            self.pending = True

    def episode(self, episode) -> None:
        self.done += 1
        number = (self.done - 1) % self.per_map + 1
        line = (
            f"{map_label(episode.map_name)} episode {number}/{self.per_map}: score {episode.score} in "
            f"{episode.steps} steps ({episode.seconds:.1f} s)"
        )
        if episode.invalid_actions:  # played as no_op: an agent's bug would otherwise show only as low scores
            line += f", {episode.invalid_actions} invalid actions played as no_op"
        self.stream.write(("\r" + line.ljust(self.width) if self.live else line) + "\n")
        self.stream.flush()
        self.pending = False

    def end_line(self) -> None:
        """End a live line drawn last, so that what is printed next starts a line of its own."""
        if self.pending:
            self.stream.write("\n")
            self.stream.flush()
            self.pending = False


def _columns_of(stream) -> int:
    """The width of the terminal `stream` writes to ($COLUMNS first, as shutil has it; 101 when unknown).

    Not shutil.get_terminal_size(): it asks standard output, which may go to a file while the progress line
    goes to the terminal on stderr."""
    if os.environ.get("COLUMNS", "").isdigit() and int(os.environ["COLUMNS"]) > 0:  # 0: unset, as for shutil
        return int(os.environ["COLUMNS"])
    try:
        return os.get_terminal_size(stream.fileno()).columns
    except (OSError, ValueError, AttributeError):
        return 101


def map_label(map_name: str) -> str:
    """How the output names a map: a definition file by its path from the working directory when it is below
    it, else in full (the env holds the absolute path)."""
    from sc2env.game.maps import is_definition_path

    if not is_definition_path(map_name):
        return map_name
    relative = os.path.relpath(map_name)
    return map_name if relative.startswith(os.pardir) else relative


def results_table(summaries, agent: str) -> str:
    """The final table: one row per map with mean, max and min score, steps per second and invalid actions."""
    width = max(12, len(agent))
    header = (
        f"{'map':<28} {'agent':<{width}} {'episodes':>8} {'mean':>8} {'max':>6} {'min':>6} {'steps/s':>8} "
        f"{'invalid':>8}"
    )
    lines = [header, "-" * len(header)]
    for s in summaries:
        lines.append(
            f"{map_label(s.map_name):<28} {agent:<{width}} {s.episodes:>8} {s.mean:>8.1f} {s.max:>6} "
            f"{s.min:>6} {s.steps_per_second:>8,.0f} {s.invalid_actions:>8}"
        )
    return "\n".join(lines)


# --- maps ----------------------------------------------------------------------------------------------


def builtin_maps() -> list[str]:
    """The mini-games the built-in engine has definitions for (the `sc2env.maps` package data)."""
    from sc2env.mapfiles import definitions_dir

    return sorted(p.stem for p in definitions_dir().glob("*.json"))


def resolve_maps(names: Sequence[str], engine: str | None) -> list[str]:
    """Check the engine and the map names before any game starts; 'all' means the seven mini-games.

    The built-in engine knows only the mini-games; with StarCraft II, the install's other maps resolve too.
    """
    from sc2env.game import MINI_GAMES, resolve_map
    from sc2env.game.maps import definition_map, definition_needs_builtin, is_definition_path
    from sc2env.launch import LaunchConfig, plan_launch

    launch = LaunchConfig(engine=engine)
    definitions = [name for name in names if is_definition_path(name)]
    if definitions and launch.requested_engine() == "sc2":  # before StarCraft II is looked for
        raise ValueError(definition_needs_builtin(definitions[0]))
    install = plan_launch(launch).install
    lowered = [n.lower() for n in names]
    if lowered == ["all"]:
        return list(MINI_GAMES)
    if "all" in lowered:
        raise ValueError("'all' stands alone: --map all plays every mini-game; otherwise list mini-games")
    # A definition file is played by its absolute path (the env reads it), once it reads as one; the other maps
    # by the name they resolve to.
    maps_dir = install.maps_dir if install is not None else None
    resolved = [
        str(definition_map(name).file) if is_definition_path(name) else resolve_map(name, maps_dir).name
        for name in names
    ]
    twice = sorted({name for name in resolved if resolved.count(name) > 1})
    if twice:  # --episodes is per map: twice would play it twice, merged into one row
        raise ValueError(
            f"{', '.join(twice)} given more than once in --map; for more episodes use --episodes"
        )
    return resolved


def cmd_maps(values: flags.FlagValues) -> int:
    from sc2env.game import MINI_GAMES
    from sc2env.launch import find_install
    from sc2env.mapfiles import definitions_dir

    problem = None
    try:
        install = find_install()
    except SC2EnvError as error:
        install, problem = None, str(error).splitlines()[0]
    installed = {}
    if install is not None:
        from sc2env.game import install_maps

        installed = install_maps(install.maps_dir)
    print(f"{'mini-game':<28} {'time limit':>10}  StarCraft II")
    for name, spec in MINI_GAMES.items():
        limit = f"{spec.game_loops // LOOPS_PER_GAME_SECOND} s"
        print(f"{name:<28} {limit:>10}  {'installed' if name in installed else '-'}")
    print(
        f"\nThe built-in engine plays all of them (their definitions are in {definitions_dir()}), and "
        "mini-games of your own: --map path/to/Name.json, see docs/engine.md#playing-your-own."
    )
    others = sorted(n for n, s in installed.items() if not s.mini_game)
    if install is None:
        # Where SC2PATH names a folder, why it is no install; else, how to point at one.
        print(
            problem
            if os.environ.get("SC2PATH")
            else "No StarCraft II install found (set SC2PATH to use one)."
        )
    elif others:
        print(f"\nOther maps of the StarCraft II install at {install.root} (play against the built-in AI):")
        for line in _columns(others, 4):
            print("  " + line)
    return 0


def _columns(names: list[str], n: int) -> list[str]:
    """`names` in up to `n` columns, as many as the terminal's width holds."""
    width = max(len(x) for x in names) + 2
    n = max(1, min(n, (_columns_of(sys.stdout) - 2) // width))
    return ["".join(x.ljust(width) for x in names[i : i + n]).rstrip() for i in range(0, len(names), n)]


# --- run and play --------------------------------------------------------------------------------------


# The env options the command-line flags set: env option -> flag.
_FLAG_OF = {
    "screen_size": "screen-size",
    "minimap_size": "minimap-size",
    "step_mul": "step-mul",
    "engine": "engine",
    "max_episode_steps": "max-steps",
    "actions": "actions",
}


def _env_kwargs(values: flags.FlagValues) -> dict:
    return {
        option: values[flag].value
        for option, flag in _FLAG_OF.items()
        if flag in values and values[flag].value is not None
    }


def _agent_env_kwargs(values: flags.FlagValues, agent: str, cls) -> dict:
    """The env options for `agent` (class `cls`): the flags', then the agent's own `env_kwargs`, which must be
    env options and may not contradict a flag given on the command line (ValueError says which)."""
    from sc2env.env.config import EnvConfig, option_hint

    options = {f.name for f in dataclasses.fields(EnvConfig)}
    kwargs = _env_kwargs(values)
    for option, value in dict(cls.env_kwargs).items():
        if option not in options:
            raise ValueError(
                f"agent {agent!r} asks for the env option {option!r} in its env_kwargs, which is not "
                f"one: {option_hint(option)} (render_mode is chosen by --render and --save-video)"
            )
        flag = _FLAG_OF.get(option)
        if flag is not None and values[flag].present and kwargs[option] != value:
            raise ValueError(
                f"agent {agent!r} plays with {option}={value!r} (its env_kwargs), but --{flag} "
                f"{kwargs[option]} was given: leave the flag out, or change the agent"
            )
        kwargs[option] = value
    plays = getattr(cls, "actions", ("features",))
    if "actions" not in kwargs and "features" not in plays:
        kwargs["actions"] = plays[0]  # an agent of raw actions only: its action space, unasked
    actions = kwargs.get("actions", "features")
    if actions not in plays:
        raise ValueError(
            f"agent {agent!r} plays {' or '.join(plays)} actions, not --actions {actions}: "
            f"{'pass --actions ' + plays[0] if len(plays) == 1 else 'pick one of those'}, or give "
            "an agent of that action space (random plays both)"
        )
    return kwargs


def _make_env(name: str, **kwargs):
    """The env of a mini-game (its registered id) or of a map of a StarCraft II install (sc2env/SC2-v0)."""
    import gymnasium as gym

    from sc2env.game import MINI_GAMES

    if name in MINI_GAMES:
        return gym.make(f"sc2env/{name}-v0", **kwargs)
    return gym.make("sc2env/SC2-v0", map_name=name, **kwargs)


def cmd_run(values: flags.FlagValues) -> int:
    from sc2env.agents import agent_class, make_agent, run_agent, summarise
    from sc2env.env.config import EnvConfig
    from sc2env.viewer import ViewerClosed

    if not values.map:  # `--map $MAP` with MAP unset
        raise UsageError("no map given: --map takes a mini-game, a comma-separated list, or all")
    if any(not name.strip() for name in values.map):
        raise UsageError(f"--map {','.join(values.map)!r} has an empty name (a stray comma?)")
    replay_dir = values["save-replay"].value
    if replay_dir == "":
        raise UsageError("--save-replay needs a folder: e.g. --save-replay replays")
    replay_dir = replay_dir and os.path.expanduser(replay_dir)  # a quoted ~, or --save-replay=~/x
    if ":" in values.agent and os.getcwd() not in sys.path:
        # An agent module in the working directory imports as it does under `python -m sc2env`, whose
        # sys.path starts there (a console script's starts at its own bin directory).
        sys.path.insert(0, os.getcwd())
    # Unknown maps and agents, an agent's conflicting options and env options out of range (usage errors) fail
    # before any game starts.
    try:
        maps = resolve_maps(values.map, values.engine)
        classes = {name: agent_class(values.agent, name) for name in maps}
        env_kwargs = {name: _agent_env_kwargs(values, values.agent, cls) for name, cls in classes.items()}
        for name, kwargs in env_kwargs.items():
            if replay_dir:
                kwargs.update(save_replay_episodes=1, replay_dir=replay_dir)
            try:
                EnvConfig(map_name=name, **kwargs)
            except (
                TypeError
            ) as error:  # a value of the wrong type (an agent module's own TypeErrors stay bugs)
                raise ValueError(str(error)) from error
    except (ValueError, UnknownMapError) as error:
        raise UsageError(str(error)) from error
    writer = _video_writer(
        values, env_kwargs[maps[0]]["step_mul"]
    )  # in real time at the first map's step_mul
    if replay_dir:  # made last: a run refused for another reason leaves no empty folder behind
        _replay_folder(replay_dir)
    render_mode = "human" if values.render else ("rgb_array" if writer is not None else None)
    progress = Progress(len(maps) * values.episodes, values.episodes)
    episodes = []
    replays_before = _replays_in(replay_dir)
    interrupted = None
    failure: SC2EnvError | None = None
    closed = False
    code = 130
    try:
        for name in maps:
            agent = make_agent(values.agent, name, seed=values.seed)
            env = _make_env(name, render_mode=render_mode, **env_kwargs[name])
            try:
                on_step = _step_callback(progress, name, env, writer)
                run_agent(
                    env,
                    agent,
                    values.episodes,
                    seed=values.seed,
                    on_step=on_step,
                    on_episode=lambda e: (episodes.append(e), progress.episode(e)),
                )
            finally:
                env.close()
    except KeyboardInterrupt as stop:
        interrupted, code = stopped_by(stop), exit_code(stop)
    except ViewerClosed as error:  # closing the window is how a watcher stops: not a failure
        interrupted = str(error)
        closed = True
    except SC2EnvError as error:  # a lost game, say: the finished episodes still count
        interrupted, failure = f"stopped by an error ({type(error).__name__})", error
    finally:
        progress.end_line()
        late_stop = _close_video(writer) if writer is not None else None
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
        print(results_table(summarise(episodes), values.agent))
    if failure is not None:
        raise failure
    return 0 if not interrupted or closed else code


def _video_writer(values: flags.FlagValues, step_mul: int):
    """The VideoWriter --save-video asks for (one frame per step, in real time), or None without it."""
    path = values["save-video"].value
    if path is None:
        return None
    if not path:
        raise UsageError("--save-video needs a file name: out.mp4 or out.gif")
    from sc2env.viewer import VideoError, VideoWriter

    try:
        return VideoWriter(path, fps=LOOPS_PER_REAL_SECOND / step_mul)
    except VideoError as error:  # a format, folder or package the flag's file can't be written with
        raise UsageError(str(error)) from error


def _add_frame(writer, frame) -> None:
    with _signals_held():
        writer.add(frame)


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


def _close_video(writer) -> KeyboardInterrupt | None:
    """Finish the video and say what was written (nothing, when no frame was recorded); returns the stop
    (Ctrl-C or SIGTERM) that came meanwhile, for the caller to end with.

    A Ctrl-C or SIGTERM while the file is finished (the second of an impatient user) would leave it
    unplayable: the first is held, with a word; only another one abandons the file.
    """
    with _signals_held("finishing the video") as held:
        path = writer.close()
    if path is None:
        print(f"video: no frame was recorded, so {writer.path} was not written", file=sys.stderr)
    elif not path.is_file():
        print(f"video: {path} was not written (the video encoder failed)", file=sys.stderr)
    else:
        print(f"video: {path} ({writer.frames} frames)", file=sys.stderr)
    return _held_stop(held)


@contextlib.contextmanager
def _signals_held(doing: str | None = None):
    """Ctrl-C and SIGTERM (where Python handles them) wait while inside; yields the signals held.

    Why: an interrupt that lands while imageio-ffmpeg writes a frame makes it kill its encoder, and the video
    is left unplayable. A second signal acts at once (a write may be stuck on a hung encoder). Without
    `doing` a held signal acts at the end, a frame later than it came; with it (finishing a file the user
    waits for) the first is announced with that word and left to the caller, who has the file to finish.
    """
    held: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield held
        return
    previous: dict[int, Callable] = {}

    def hold(signum, frame) -> None:
        held.append(signum)
        if len(held) > 1:
            previous[signum](signum, frame)
        elif doing is not None:
            print(f"\nsc2env: {doing} ({signal.Signals(signum).name} again abandons it)", file=sys.stderr)

    for signum in (signal.SIGINT, signal.SIGTERM):
        if callable(signal.getsignal(signum)):  # SIG_DFL, SIG_IGN or a handler set outside Python: left alone
            previous[signum] = signal.signal(signum, hold)
    try:
        yield held
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    if len(held) == 1 and doing is None:  # (not when the block raised: a second signal already acted)
        previous[held[0]](held[0], None)


def _held_stop(signals: list[int]) -> KeyboardInterrupt | None:
    """The stop a signal held while a video was finished stands for (Ctrl-C or SIGTERM), if one was."""
    return _stop_for(signals[0]) if signals else None


def _replays_in(folder: str | None) -> set[str]:
    """The replay files in `folder` (none if it doesn't exist)."""
    from sc2env.game.replay import REPLAY_SUFFIX

    if not folder or not os.path.isdir(folder):
        return set()
    return {entry.path for entry in os.scandir(folder) if entry.name.endswith(REPLAY_SUFFIX)}


def _step_callback(progress: Progress, name: str, env, writer) -> Callable[[int, dict], None]:
    def on_step(steps: int, info: dict) -> None:
        progress.step(name, steps, info)
        if writer is not None:
            unwrapped = env.unwrapped
            frame = (
                unwrapped.render()
                if unwrapped.render_mode == "rgb_array"
                else unwrapped.renderer.viewer.frame()
            )
            _add_frame(writer, frame)

    return on_step


def cmd_play(values: flags.FlagValues) -> int:
    from sc2env.viewer import play

    if "," in values.map or values.map.lower() == "all" or not values.map:
        raise UsageError(
            f"play takes one mini-game, not {values.map!r}: e.g. --map MoveToBeacon (sc2env maps lists them)"
        )
    try:
        (name,) = resolve_maps([values.map], values.engine)
    except UnknownMapError as error:
        raise UsageError(str(error)) from error
    env = _make_env(name, render_mode="human", **_env_kwargs(values))
    try:
        scores = play(
            env,
            episodes=values.episodes or None,
            on_episode=lambda n, info: print(f"{name} episode {n}: score {info['score']}"),
        )
        game = env.unwrapped
        if not game.episode_over and game.last_observation is not None:  # the window closed mid-episode
            score = int(game.last_observation.score_cumulative[0])
            print(
                f"{name} episode {len(scores) + 1}: unfinished when the window closed, score {score} so far"
            )
    finally:
        env.close()
    if scores:
        print(
            f"{name}: {len(scores)} episode(s), mean score {sum(scores) / len(scores):.1f}, best {max(scores)}"
        )
    return 0


def cmd_replay(values: flags.FlagValues) -> int:
    from sc2env.env.replay import watch_replay
    from sc2env.game.replay import ReplayError, ReplayReader, read_replay
    from sc2env.interface import FUNCTIONS
    from sc2env.launch import LaunchConfig
    from sc2env.viewer import ViewerClosed

    if not values.file:
        raise UsageError(
            "no replay given: sc2env replay FILE (a .SC2Replay saved by sc2env run --save-replay "
            "or env.save_replay()), or a folder of them"
        )
    export = values.export
    if export is not None:
        return _export_replays(os.path.expanduser(values.file), os.path.expanduser(export), values)
    if os.path.isdir(os.path.expanduser(values.file)):
        return _list_replays(os.path.expanduser(values.file), values.engine)
    try:
        data = read_replay(values.file)
    except ReplayError as error:
        raise UsageError(str(error)) from error
    if values.info:
        with ReplayReader(LaunchConfig(engine=values.engine)) as reader:
            print(_replay_header(values.file, reader.info(data)))
        return 0
    writer = _video_writer(values, values["step-mul"].value)
    render_mode = "human" if values.render else ("rgb_array" if writer is not None else None)
    watcher = watch_replay(
        data,
        observed_player_id=values["observed-player"].value,
        render_mode=render_mode,
        **_env_kwargs(values),
    )
    used: dict[str, int] = {}
    steps, score, closed = 0, 0, False

    def frame():
        return watcher.render() if render_mode == "rgb_array" else watcher.renderer.viewer.frame()

    try:
        for step in watcher:
            if steps == 0:
                print(_replay_header(values.file, watcher.info))
            steps += 1
            score = step.info["score"]
            for call in step.calls:
                name = FUNCTIONS[call.function].name
                used[name] = used.get(name, 0) + 1
            if writer is not None:
                _add_frame(writer, frame())
        if writer is not None and steps:
            _add_frame(writer, frame())  # the final observation, which no step starts from
        if values.render and watcher.renderer is not None:
            watcher.renderer.wait(1.5)  # the final frame a moment longer, before the window goes
    except ViewerClosed:  # closing the window is how a watcher stops: not a failure
        closed = True
    finally:
        watcher.close()
        late_stop = _close_video(writer) if writer is not None else None
    if steps == 0 and watcher.info is not None:  # a replay of no step at all
        print(_replay_header(values.file, watcher.info))
    top = ", ".join(f"{name} {count}" for name, count in sorted(used.items(), key=lambda kv: -kv[1])[:6])
    print(
        f"{'watched until the window closed: ' if closed else ''}{steps} steps, final score {score}; "
        f"actions: {sum(used.values())}{' (' + top + ')' if top else ''}"
    )
    return 0 if late_stop is None else exit_code(late_stop)


def _export_replays(source: str, out_dir: str, values: flags.FlagValues) -> int:
    """Write each replay of `source` (a file or a folder) to `out_dir`/<its name>.npz, as the env's arrays."""
    from sc2env.env.dataset import export_replay
    from sc2env.game.replay import REPLAY_SUFFIX, ReplayError

    if os.path.isdir(source):
        paths = sorted(_replays_in(source))
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
            episode = export_replay(
                path, target, observed_player_id=values["observed-player"].value, **_env_kwargs(values)
            )
        except (ReplayError, SC2EnvError, OSError) as error:  # OSError: the .npz could not be written
            failed += 1
            print(f"{os.path.basename(path)}: not exported: {_one_line(error)}", file=sys.stderr)
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
    from sc2env.game.replay import ReplayError, ReplayReader
    from sc2env.launch import LaunchConfig

    paths = sorted(_replays_in(folder))
    if not paths:
        print(f"no replays (.SC2Replay files) in {folder}", file=sys.stderr)
        return 1
    width = max(len(os.path.basename(path)) for path in paths)
    print(f"{'replay':<{width}}  {'map':<28} {'loops':>7} {'time':>6}  {'result':<10} {'APM':>4}")
    unreadable = 0
    with ReplayReader(LaunchConfig(engine=engine)) as reader:
        for path in paths:
            name = os.path.basename(path)
            try:
                info = reader.info(path)
            except ReplayError as error:
                unreadable += 1
                print(f"{name:<{width}}  cannot be read: {_one_line(error)}")
                continue
            player = info.players[0] if info.players else None
            result = (player.result if player else None) or "-"
            print(
                f"{name:<{width}}  {info.map_name:<28} {info.game_loops:>7} {game_time(info.game_loops):>6}  {result:<10} "
                f"{player.apm if player else 0:>4}"
            )
    print(
        f"{len(paths)} replay{'s' if len(paths) != 1 else ''} in {folder}"
        + (f", {unreadable} unreadable" if unreadable else ""),
        file=sys.stderr,
    )
    return 0


def _replay_header(path: str, info) -> str:
    """The replay's facts in a few lines: map, length, players, game version."""
    players = "; ".join(
        f"player {p.player_id} {p.name or '?'} ({p.race}): {p.result or 'no result'}, {p.apm} APM"
        for p in info.players
    )
    return (
        f"{path}\n  map {info.map_name}, {info.game_loops} game loops ({game_time(info.game_loops)} of game time, "
        f"as the viewer's clock shows it; {info.seconds:.1f} s at Faster speed)\n"
        f"  {players}\n  recorded with {info.game_version} (build {info.base_build})"
    )


# --- doctor and bench ----------------------------------------------------------------------------------


def cmd_doctor(values: flags.FlagValues) -> int:
    checks = [
        _check_python,
        _check_packages,
        _check_builtin,
        _check_sc2,
        _check_default_engine,
        _check_display,
        _check_video,
    ]
    problems = 0
    print(f"sc2env {sc2env.__version__}")
    for check in checks:
        status, what, fix = check()
        problems += status == "!!"
        print(f"  {status}  {what}")
        if fix:
            print(f"        -> {fix}")
    print(
        "All good (-- marks optional parts)."
        if not problems
        else f"{problems} problem(s) marked !! (see -> for the fix)."
    )
    return 0 if not problems else 1


def _status(ok: bool, optional: bool = False) -> str:
    return "ok" if ok else "--" if optional else "!!"


def _check_python():
    version = platform.python_version()
    ok = sys.version_info >= (3, 10)
    return (
        _status(ok),
        f"Python {version} ({platform.python_implementation()})",
        None if ok else "sc2env needs Python 3.10+",
    )


def _check_packages():
    import gymnasium
    import numpy
    import pygame
    from google.protobuf import __version__ as protobuf_version
    from google.protobuf.internal import api_implementation

    backend = api_implementation.Type()
    what = (
        f"numpy {numpy.__version__}, protobuf {protobuf_version} ({backend} backend), gymnasium "
        f"{gymnasium.__version__}, pygame {pygame.version.ver}"
    )
    fast = backend == "upb"
    forced = os.environ.get("PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION")
    if fast:
        fix = None
    elif forced:  # the variable, not the version, chose the slow backend
        fix = f"unset PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION (it is {forced!r}) for the fast C (upb) backend"
    else:
        fix = "pip install 'protobuf>=6.31.1' for the fast C (upb) backend"
    return _status(fast), what, fix


_REINSTALL = (
    "reinstall sc2env: pip install --force-reinstall sc2env-rl (in a source checkout: pip install -e .)"
)


def _check_builtin():
    from sc2env.game import MINI_GAMES
    from sc2env.launch import launch

    started = time.perf_counter()
    try:
        with launch(engine="builtin"):
            seconds = time.perf_counter() - started
    except SC2EnvError as error:
        lines = [line.strip(" |") for line in str(error).splitlines() if line.strip(" |")]
        cause = lines[-2] if len(lines) > 1 and lines[-1].startswith("It exited") else lines[-1]
        return "!!", f"built-in engine does not start: {cause}", _REINSTALL
    missing = sorted(set(MINI_GAMES) - set(builtin_maps()))
    if missing:
        return "!!", f"built-in engine lacks the definitions of {', '.join(missing)}", _REINSTALL
    return "ok", f"built-in engine starts in {seconds:.2f} s and plays {', '.join(MINI_GAMES)}", None


def _check_sc2():
    from sc2env.launch import find_install

    try:
        install = find_install()
    except SC2EnvError as error:
        return (
            "--",
            f"StarCraft II: {_one_line(error)}",
            (
                "optional: install Blizzard's Linux package (see docs/quickstart.md) and set SC2PATH; "
                "everything else runs on the built-in engine"
            ),
        )
    maps = install.map_paths()
    minis = sum(1 for p in maps if p.startswith("mini_games/"))
    fix = None if minis else f"put the SC2LE mini-game maps under {install.maps_dir}/mini_games"
    what = (
        f"StarCraft II at {install.root}: builds {install.describe_builds()}; {len(maps)} maps "
        f"({minis} mini-games)"
    )
    return "ok", what, fix


def _check_default_engine():
    """What runs when no engine is named (sc2env run, gym.make): $SC2ENV_ENGINE and SC2PATH can make it fail."""
    from sc2env.launch import LaunchConfig, plan_launch

    try:
        plan = plan_launch(LaunchConfig())
    except SC2EnvError as error:
        chosen = os.environ.get(ENGINE_ENV_VAR) or "auto"
        if chosen not in ENGINES:
            fix = f"set {ENGINE_ENV_VAR} to one of {', '.join(ENGINES)}, or unset it"
        elif chosen == "sc2":
            fix = f"set SC2PATH to a StarCraft II install, or {ENGINE_ENV_VAR} to builtin or auto"
        else:
            fix = "point SC2PATH at a StarCraft II install, or unset it to use the built-in engine"
        return "!!", f"default engine: {_one_line(error)}", fix
    chosen = "the built-in engine" if plan.engine == "builtin" else f"StarCraft II {plan.version}"
    return "ok", f"default engine (no --engine / engine=): {chosen}", None


def _check_display():
    from sc2env.viewer import display_problem

    problem = display_problem()
    if problem is None:
        return "ok", "display: windows can open (sc2env play, --render)", None
    return (
        "--",
        f"display: {problem}",
        (
            "run headless: sc2env run --save-video out.mp4, or render_mode="
            "'rgb_array'; for windows without a screen: xvfb-run sc2env play"
        ),
    )


def _check_video():
    from sc2env.viewer import video_support

    support = video_support()
    ok = [fmt for fmt, problem in support.items() if problem is None]
    missing = [problem for problem in support.values() if problem is not None]
    return (
        _status(not missing, optional=True),
        f"videos: {', '.join(ok) or 'none'} can be written",
        missing[0] if missing else None,
    )


def cmd_bench(values: flags.FlagValues) -> int:
    from sc2env.env.speed import env_steps_per_second

    steps = values.steps
    rate = env_steps_per_second(steps)
    print(
        f"one SC2Env, built-in engine, MoveToBeacon 64x64, step_mul 8: {rate:,.0f} env steps/s "
        f"({steps} steps, {os.cpu_count()} cores)"
    )
    print("The full benchmark (vector envs, PySC2 comparison): python benchmarks/env_steps.py")
    return 0


# --- the entry point -----------------------------------------------------------------------------------

COMMANDS: dict[str, tuple[str, Callable[[flags.FlagValues], int], list[Flag]]] = {
    "run": (
        "play an agent on mini-games and print its scores",
        cmd_run,
        [
            _MAP,
            Flag("string", "agent", "scripted", "random, scripted, or package.module:Class"),
            Flag("integer", "episodes", 1, "episodes per map", lower_bound=1),
            _ENGINE,
            *_SIZES,
            Flag("integer", "step-mul", 8, "game loops per agent step", lower_bound=1, upper_bound=_UINT32),
            Flag(
                "integer", "seed", None, "seed of the first episode (and of the random agent)", lower_bound=0
            ),
            Flag(
                "integer",
                "max-steps",
                None,
                "cut episodes after this many steps (default: the map's timer)",
                lower_bound=1,
            ),
            Flag(
                "enum",
                "actions",
                None,
                "features or raw: the action space (default: the agent's, else features)",
                ("features", "raw"),
            ),
            Flag("boolean", "render", False, "watch in the viewer window"),
            Flag("string", "save-video", None, "write a video of the run: out.mp4 or out.gif"),
            Flag(
                "string",
                "save-replay",
                None,
                "save each episode's replay in this folder (sc2env replay plays one)",
            ),
            _VERBOSE,
        ],
    ),
    "replay": (
        "watch a saved replay, print what it holds, list a folder of them, or export them as arrays",
        cmd_replay,
        [
            Flag(
                "string",
                "file",
                None,
                "the replay, or a folder of them to list (also the argument: sc2env replay FILE)",
            ),
            _ENGINE,
            Flag("boolean", "info", False, "print what the replay holds, without playing it"),
            *_SIZES,
            Flag("integer", "step-mul", 8, "game loops per step", lower_bound=1, upper_bound=_UINT32),
            Flag("integer", "observed-player", 0, "whose view to watch (0: the first player)", lower_bound=0),
            Flag("boolean", "render", False, "watch in the viewer window"),
            Flag("string", "save-video", None, "write a video of the replay: out.mp4 or out.gif"),
            Flag(
                "string",
                "export",
                None,
                "write the replay (or each of a folder) to this folder as an .npz of the "
                "env's observations, actions and rewards, at the sizes given",
            ),
            _VERBOSE,
        ],
    ),
    "play": (
        "play a mini-game yourself in the viewer window",
        cmd_play,
        [
            Flag(
                "string",
                "map",
                "MoveToBeacon",
                "the mini-game to play (sc2env maps lists them), or a definition file "
                "of your own (Name.json)",
            ),
            _ENGINE,
            *_SIZES,
            Flag(
                "integer",
                "step-mul",
                2,
                "game loops per step (lower reacts faster)",
                lower_bound=1,
                upper_bound=_UINT32,
            ),
            Flag(
                "integer",
                "episodes",
                0,
                "stop after this many episodes (0: when the window closes)",
                lower_bound=0,
            ),
            _VERBOSE,
        ],
    ),
    "maps": ("list the mini-games and installed maps", cmd_maps, [_VERBOSE]),
    "doctor": ("check what is installed and how to fix gaps", cmd_doctor, [_VERBOSE]),
    "bench": (
        "measure env steps per second on the built-in engine",
        cmd_bench,
        [
            Flag(
                "integer",
                "steps",
                2000,
                "env steps to time (100 or more: fewer time little but noise)",
                lower_bound=100,
            ),
            _VERBOSE,
        ],
    ),
}


_POSITIONAL = {"replay": "file"}
"""Commands that take one argument without a flag: command -> the flag it sets."""


def usage() -> str:
    lines = ["usage: sc2env <command> [--flags]", "", "commands:"]
    lines += [f"  {name:<8} {about}" for name, (about, _, _) in COMMANDS.items()]
    lines += ["", "sc2env <command> --help shows a command's flags; sc2env --version the version."]
    return "\n".join(lines)


def command_help(name: str) -> str:
    about, _, specs = COMMANDS[name]
    argument = f" {_POSITIONAL[name].upper()}" if name in _POSITIONAL else ""
    lines = [f"usage: sc2env {name}{argument} [--flags]", "", about, "", "flags:"]
    for spec in specs:
        shown = f"--{spec.name}" if spec.kind != "boolean" else f"--[no]{spec.name}"
        default = (
            ""
            if spec.default in (None, False)
            else f" (default: {spec.default if spec.kind != 'list' else ','.join(spec.default)})"
        )
        lines.append(f"  {shown:<20} {spec.help}{default}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; errors are printed as one line (with --verbose, with their traceback).

    A reader of the output that has gone (`sc2env maps | head -1`) ends the command quietly with 141, as
    SIGPIPE would.
    """
    try:
        code = _main(argv)
        if argv is None and sys.stdout is not None:  # a console run: buffered output meets a closed pipe
            sys.stdout.flush()  # here, not at exit (None: started with stdout closed)
        return code
    except BrokenPipeError:
        if not _stdout_gone():
            raise
        if argv is None:  # else Python complains again when it flushes stdout at exit
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            os.close(devnull)
        return 141


def _stdout_gone() -> bool:
    """Whether standard output is a pipe or socket whose reader has closed it."""
    try:
        poll = select.poll()
        poll.register(sys.stdout.fileno(), 0)  # errors and hang-ups are always reported
        return any(events & (select.POLLERR | select.POLLHUP) for _, events in poll.poll(0))
    except (OSError, ValueError, AttributeError):  # no real file (a test's capture), or no poll here
        return False


def _main(argv: Sequence[str] | None) -> int:
    # pygame greets on stdout when first imported; the command's output should be only its own.
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    argv = list(sys.argv if argv is None else argv)
    if len(argv) >= 3 and argv[1] == "help" and argv[2] not in ("-h", "--help"):  # `sc2env help run`
        if argv[2] not in COMMANDS:
            print(f"sc2env: no command {argv[2]!r}; the commands are {', '.join(COMMANDS)}", file=sys.stderr)
            return 2
        print(command_help(argv[2]))
        return 0
    if len(argv) < 2 or argv[1] in ("-h", "--help", "help"):
        print(usage(), file=sys.stdout if len(argv) >= 2 else sys.stderr)  # no command: a usage error
        return 0 if len(argv) >= 2 else 2
    name = argv[1]
    if name in ("--version", "-V"):
        print(f"sc2env {sc2env.__version__}")
        return 0
    if name not in COMMANDS:
        print(
            f"sc2env: unknown command {name!r}; the commands are {', '.join(COMMANDS)} (sc2env --help)",
            file=sys.stderr,
        )
        return 2
    if any(a in ("-h", "--help") for a in argv[2:]):
        print(command_help(name))
        return 0
    _, command, specs = COMMANDS[name]
    values = flags.FlagValues()
    for spec in specs:
        spec.define(values)
    try:
        extra = values([f"sc2env {name}", *argv[2:]])
    except flags.Error as error:
        print(f"sc2env {name}: {error} (see sc2env {name} --help)", file=sys.stderr)
        return 2
    if name in _POSITIONAL and len(extra) == 2 and not values[_POSITIONAL[name]].present:
        values[_POSITIONAL[name]].value = extra.pop()  # `sc2env replay FILE`
    if len(extra) > 1:
        print(
            f"sc2env {name}: unexpected argument(s) {' '.join(extra[1:])} (see sc2env {name} --help)",
            file=sys.stderr,
        )
        return 2
    if not flags.FLAGS.is_parsed():  # our flags live in their own FlagValues; absl's global set has none
        flags.FLAGS.mark_as_parsed()  # (else absl logs "Logging before flag parsing" on each first line)
    # The levels are put back on return: main() may be called from a program (a test, a notebook).
    levels = (absl_logging.get_verbosity(), logging.root.level, logging.getLogger("sc2env").level)
    absl_logging.use_absl_handler()
    absl_logging.set_verbosity(absl_logging.DEBUG if values.verbose else absl_logging.WARNING)
    if values.verbose:  # the library's own loggers (launches, games created, lost games)
        logging.getLogger("sc2env").setLevel(logging.DEBUG)
    # `timeout`, job schedulers and containers stop jobs with SIGTERM: close the games as on Ctrl-C.
    on_term = (
        signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
        and threading.current_thread() is threading.main_thread()
    )
    if on_term:
        signal.signal(signal.SIGTERM, _interrupt)
    try:
        return command(values)
    except KeyboardInterrupt as stop:
        print(f"sc2env {name}: {stopped_by(stop)}", file=sys.stderr)
        return exit_code(stop)
    except (SC2EnvError, ValueError, OSError, gym_error.Error) as error:
        if values.verbose or (isinstance(error, BrokenPipeError) and _stdout_gone()):  # main() ends that one
            raise
        print(f"sc2env {name}: {_one_line(error)}", file=sys.stderr)
        return 2 if isinstance(error, UsageError) else 1
    finally:
        absl_logging.set_verbosity(levels[0])
        logging.root.setLevel(levels[1])
        logging.getLogger("sc2env").setLevel(levels[2])
        if on_term:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)


class Terminated(KeyboardInterrupt):
    """SIGTERM, handled like Ctrl-C (the games are closed on the way out) but reported as itself."""


def _interrupt(signum: int, frame) -> None:
    raise _stop_for(signum)


def _stop_for(signum: int) -> KeyboardInterrupt:
    """Ctrl-C as itself; another signal (SIGTERM) as Terminated, naming it."""
    return (
        KeyboardInterrupt()
        if signum == signal.SIGINT
        else Terminated(f"terminated by {signal.Signals(signum).name}")
    )


def stopped_by(stop: KeyboardInterrupt) -> str:
    return str(stop) if isinstance(stop, Terminated) else "interrupted"


def exit_code(stop: KeyboardInterrupt) -> int:
    """128 + the signal's number, as shells report it: 130 for Ctrl-C, 143 for SIGTERM."""
    return 128 + (signal.SIGTERM if isinstance(stop, Terminated) else signal.SIGINT)


def _one_line(error: BaseException) -> str:
    """An error's message on one line (the first, with its most useful detail kept)."""
    text = str(error).strip() or type(error).__name__
    first = text.splitlines()[0]
    if len(text.splitlines()) == 1:
        return first
    if first.endswith(":"):  # it introduces what the next lines hold ("Its last output lines:")
        return f"{first[:-1]} (--verbose shows them)"
    return f"{first} (--verbose for details)"
