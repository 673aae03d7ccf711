"""`sc2env play`: a human plays a mini-game, or a two-player map against an opponent, in the viewer window."""

from __future__ import annotations

import dataclasses
import sys
from typing import Any

from sc2env.cli.env_options import (
    engine_option,
    env_kwargs,
    make_env,
    minimap_size_option,
    opponent_option,
    sc2env_of,
    screen_size_option,
    step_mul_option,
)
from sc2env.cli.map_names import resolve_maps
from sc2env.cli.options import Command, Options, UsageError, option
from sc2env.cli.signals import exit_code, stopped_by
from sc2env.errors import UnknownMapError

_RESULTS = {1: "won", -1: "lost", 0: "tied"}


@dataclasses.dataclass(frozen=True)
class PlayOptions(Options):
    """The options of `sc2env play`."""

    map: str = option(
        "MoveToBeacon",
        "the mini-game or two-player map to play (sc2env maps lists them), or a definition file of your own "
        "(Name.json)",
        metavar="NAME",
    )
    engine: str | None = engine_option()
    opponent: str | None = opponent_option()
    screen_size: int = screen_size_option()
    minimap_size: int = minimap_size_option()
    step_mul: int = step_mul_option(2, "game loops per step (lower reacts faster)")
    episodes: int = option(
        0, "stop after this many episodes (0: when the window closes)", metavar="N", at_least=0
    )


def play(options: PlayOptions) -> int:
    from sc2env.env.config import EnvConfig
    from sc2env.viewer import play as play_in_window

    if "," in options.map or options.map.lower() == "all" or not options.map:
        raise UsageError(
            f"play takes one mini-game, not {options.map!r}: e.g. --map MoveToBeacon (sc2env maps lists them)"
        )
    try:
        (planned,) = resolve_maps([options.map], options.engine)
        EnvConfig(map_name=planned.name, **env_kwargs(options))  # an opponent on a mini-game, say
    except (UnknownMapError, ValueError, TypeError) as error:
        raise UsageError(str(error)) from error
    name = planned.label
    env = make_env(planned.name, render_mode="human", **env_kwargs(options))
    game = sc2env_of(env)
    scores: list[int] = []
    ended_on: list[object] = [None]  # the last observation of the last episode over

    def on_episode(number: int, info: dict[str, Any]) -> None:
        scores.append(int(info["score"]))
        ended_on[0] = game.last_observation
        result = f", {_RESULTS[info['outcome']]}" if not planned.spec.mini_game else ""
        print(f"{name} episode {number}: score {info['score']}{result}")

    stop = None
    try:
        try:
            play_in_window(env, episodes=options.episodes or None, on_episode=on_episode)
        except KeyboardInterrupt as interrupt:  # Ctrl-C or SIGTERM: the score so far, then their exit status
            stop = interrupt
        last = game.last_observation
        if last is not None and last is not ended_on[0]:  # an episode was under way
            why = "the window closed" if stop is None else stopped_by(stop)
            score = int(last.score_cumulative[0])
            print(f"{name} episode {len(scores) + 1}: unfinished when {why}, score {score} so far")
    finally:
        env.close()
    if scores:
        print(
            f"{name}: {len(scores)} episode(s), mean score {sum(scores) / len(scores):.1f}, best {max(scores)}"
        )
    if stop is not None:
        print(f"sc2env play: {stopped_by(stop)}", file=sys.stderr)
        return exit_code(stop)
    return 0


COMMAND = Command("play", "play a mini-game yourself in the viewer window", PlayOptions, play)
