"""`sc2env run`: play an agent on mini-games, with progress on stderr and a table of scores on stdout."""

from __future__ import annotations

import dataclasses
import os
import sys
from typing import TYPE_CHECKING, Any

from sc2env.cli.env_options import (
    agent_env_kwargs,
    engine_option,
    make_env,
    minimap_size_option,
    opponent_option,
    sc2env_of,
    screen_size_option,
    small_layers,
    step_mul_option,
)
from sc2env.cli.map_names import PlannedMap, resolve_maps
from sc2env.cli.options import Command, Options, UsageError, option
from sc2env.cli.progress import Progress, step_budget
from sc2env.cli.recording import Recording, frame_of
from sc2env.cli.replay_saving import ReplaySaver
from sc2env.cli.results import results_table
from sc2env.cli.signals import exit_code, stopped_by
from sc2env.errors import SC2EnvError, UnknownMapError

if TYPE_CHECKING:
    from sc2env.agents import Agent, Episode


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
    opponent: str | None = opponent_option()
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


@dataclasses.dataclass(frozen=True)
class MapRun:
    """One map of a run: the map, the agent's class for it, and the env options it is played with."""

    map: PlannedMap
    agent: type[Agent]
    env_kwargs: dict[str, Any]

    @property
    def budget(self) -> int | None:
        """The most steps one of its episodes takes, for the progress bar."""
        return step_budget(
            self.map.spec, self.env_kwargs["step_mul"], self.env_kwargs.get("max_episode_steps")
        )


@dataclasses.dataclass
class Outcome:
    """How a run went: its finished episodes, and what ended it if it did not end on its own."""

    episodes: list[Episode] = dataclasses.field(default_factory=list)
    stopped: str | None = None
    """What stopped the run early, in a few words (Ctrl-C, SIGTERM, the window closed, an error)."""
    code: int = 0
    """The exit status the stop asks for."""
    failure: SC2EnvError | None = None
    """The error that stopped it, raised once the finished episodes are printed."""
    ended: bool = False
    """Whether the run ended on its own or by the user's hand (not by an error)."""


def run(options: RunOptions) -> int:
    from sc2env.agents import summarise
    from sc2env.viewer import ViewerClosed

    plan = _plan(options)
    for warning in small_layers([(m.agent, m.env_kwargs) for m in plan]):
        print(f"sc2env run: {warning}", file=sys.stderr)
    recording = (  # in real time at the first map's step_mul
        Recording(options.save_video, plan[0].env_kwargs["step_mul"])
        if options.save_video is not None
        else None
    )
    saver = None
    if options.save_replay is not None:  # made last: a run refused for another reason leaves no empty folder
        saver = ReplaySaver(os.path.expanduser(options.save_replay))  # a quoted ~, or --save-replay=~/x
        saver.make_folder()
    progress = Progress(options.episodes, [m.budget for m in plan])
    outcome = Outcome()
    try:
        for planned in plan:
            _play(options, planned, progress, recording, saver, outcome)
        outcome.ended = True
    except KeyboardInterrupt as stop:
        outcome.stopped, outcome.code, outcome.ended = stopped_by(stop), exit_code(stop), True
    except ViewerClosed as error:  # closing the window is how a watcher stops: not a failure
        outcome.stopped, outcome.ended = str(error), True
    except SC2EnvError as error:  # a lost game, say: the finished episodes still count
        outcome.stopped, outcome.failure = f"stopped by an error ({type(error).__name__})", error
        outcome.code = 1
    finally:
        progress.end_line()
        late_stop = recording.close(report_empty=outcome.ended) if recording is not None else None
        if late_stop is not None and outcome.stopped is None:  # the run had ended; it still reports the stop
            outcome.stopped, outcome.code = stopped_by(late_stop), exit_code(late_stop)
        if saver is not None:
            saver.report()
    episodes = outcome.episodes
    if outcome.stopped and (episodes or outcome.failure is None):  # an error before any episode: just itself
        print(
            f"sc2env run: {outcome.stopped}: "
            + (f"results of the {len(episodes)} finished episode(s)" if episodes else "no episode finished"),
            file=sys.stderr,
        )
    if episodes:
        labels = {m.map.name: m.map.label for m in plan}
        print(results_table(summarise(episodes), options.agent, labels, _opponent_label(options, plan)))
    if outcome.failure is not None:
        raise outcome.failure
    lost = (recording is not None and recording.failure is not None) or (saver is not None and saver.lost)
    return outcome.code or (1 if lost else 0)


def _opponent_label(options: RunOptions, plan: list[MapRun]) -> str | None:
    """How the results table names the opponent: the one given, else the default where a map has two players."""
    from sc2env.env.opponents import DEFAULT_OPPONENT

    if options.opponent is not None:
        return options.opponent
    return DEFAULT_OPPONENT if any(not m.map.spec.mini_game for m in plan) else None


def _plan(options: RunOptions) -> list[MapRun]:
    """The maps, agent classes and env options of a run. Unknown maps and agents, an agent's conflicting
    options and env options out of range are usage errors, found before any game starts."""
    from sc2env.agents import agent_class
    from sc2env.env.config import EnvConfig

    if not options.map:  # `--map $MAP` with MAP unset
        raise UsageError("no map given: --map takes a mini-game, a comma-separated list, or all")
    if any(not name.strip() for name in options.map):
        raise UsageError(f"--map {','.join(options.map)!r} has an empty name (a stray comma?)")
    if options.save_replay == "":
        raise UsageError("--save-replay needs a folder: e.g. --save-replay replays")
    if ":" in options.agent and os.getcwd() not in sys.path:
        # An agent module in the working directory imports as it does under `python -m sc2env`, whose
        # sys.path starts there (a console script's starts at its own bin directory).
        sys.path.insert(0, os.getcwd())
    plan = []
    try:
        for planned in resolve_maps(options.map, options.engine):
            cls = agent_class(options.agent, planned.name)
            kwargs = agent_env_kwargs(options, options.agent, cls)
            # A value of the wrong type is a usage error (an agent module's own TypeErrors stay bugs).
            try:
                EnvConfig(map_name=planned.name, **kwargs)
            except TypeError as error:
                raise ValueError(str(error)) from error
            plan.append(MapRun(planned, cls, kwargs))
    except (ValueError, UnknownMapError) as error:
        raise UsageError(str(error)) from error
    return plan


def _play(
    options: RunOptions,
    planned: MapRun,
    progress: Progress,
    recording: Recording | None,
    saver: ReplaySaver | None,
    outcome: Outcome,
) -> None:
    """Play the episodes of one map, adding each finished one to `outcome` as it ends."""
    from sc2env.agents import make_agent, run_agent
    from sc2env.viewer import ViewerClosed

    label = planned.map.label
    render_mode = "human" if options.render else ("rgb_array" if recording is not None else None)
    agent = make_agent(options.agent, planned.map.name, seed=options.seed)
    env = make_env(planned.map.name, render_mode=render_mode, **planned.env_kwargs)
    game = sc2env_of(env)
    finished, playing = 0, [0]  # episodes over on this map; steps into the current one

    def on_step(steps: int, info: dict[str, Any]) -> None:
        playing[0] = steps
        progress.step(label, steps, info)
        if recording is not None and recording.active:
            recording.add(frame_of(game))

    def on_episode(episode: Episode) -> None:
        nonlocal finished
        finished, playing[0] = finished + 1, 0
        outcome.episodes.append(episode)
        progress.episode(episode, label)
        if saver is not None:
            saver.save(game, label, finished)

    try:
        run_agent(env, agent, options.episodes, seed=options.seed, on_step=on_step, on_episode=on_episode)
    except (KeyboardInterrupt, ViewerClosed):
        if saver is not None and playing[0]:  # the episode the user stopped is kept too, as the env did
            saver.save(game, label, finished + 1, finished=False)
        raise
    finally:
        env.close()


COMMAND = Command(
    "run",
    "play an agent on mini-games and print its scores",
    RunOptions,
    run,
    epilog=(
        "exit status:\n"
        "  0 done (or the window closed); 1 a failure on the way (a lost game, a video or replay not\n"
        "  written: the finished episodes are still printed); 2 a usage error; 130 Ctrl-C; 143 SIGTERM\n"
        "\n"
        "examples:\n"
        "  sc2env run --map all --agent scripted --episodes 10\n"
        "  sc2env run --map DefeatRoaches --agent mypackage.agents:MyAgent --save-replay replays\n"
        "\n"
        "docs/cli.md has more."
    ),
)
