"""`sc2env play`: a human plays a mini-game in the viewer window."""

from __future__ import annotations

import dataclasses

from sc2env.cli.env_options import (
    engine_option,
    env_kwargs,
    make_env,
    minimap_size_option,
    sc2env_of,
    screen_size_option,
    step_mul_option,
)
from sc2env.cli.map_names import resolve_maps
from sc2env.cli.options import Command, Options, UsageError, option
from sc2env.errors import UnknownMapError


@dataclasses.dataclass(frozen=True)
class PlayOptions(Options):
    """The options of `sc2env play`."""

    map: str = option(
        "MoveToBeacon",
        "the mini-game to play (sc2env maps lists them), or a definition file of your own (Name.json)",
        metavar="NAME",
    )
    engine: str | None = engine_option()
    screen_size: int = screen_size_option()
    minimap_size: int = minimap_size_option()
    step_mul: int = step_mul_option(2, "game loops per step (lower reacts faster)")
    episodes: int = option(
        0, "stop after this many episodes (0: when the window closes)", metavar="N", at_least=0
    )


def play(options: PlayOptions) -> int:
    from sc2env.viewer import play as play_in_window

    if "," in options.map or options.map.lower() == "all" or not options.map:
        raise UsageError(
            f"play takes one mini-game, not {options.map!r}: e.g. --map MoveToBeacon (sc2env maps lists them)"
        )
    try:
        (planned,) = resolve_maps([options.map], options.engine)
    except UnknownMapError as error:
        raise UsageError(str(error)) from error
    name = planned.label
    env = make_env(planned.name, render_mode="human", **env_kwargs(options))
    try:
        scores = play_in_window(
            env,
            episodes=options.episodes or None,
            on_episode=lambda n, info: print(f"{name} episode {n}: score {info['score']}"),
        )
        game = sc2env_of(env)
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


COMMAND = Command("play", "play a mini-game yourself in the viewer window", PlayOptions, play)
