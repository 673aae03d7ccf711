"""What a match plays and how: MatchConfig, the bot opponent, and the checks of their settings."""

from __future__ import annotations

import dataclasses
import math
import numbers
import pathlib
from collections.abc import Mapping
from typing import TypeVar, cast

from s2clientprotocol import common_pb2
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env.game.map_races import check_race
from sc2env.game.maps import MINI_GAMES, is_definition_path
from sc2env.game.scores import check_score_options
from sc2env.launch import LaunchConfig

RACES: dict[str, common_pb2.Race.ValueType] = {
    "terran": common_pb2.Terran,
    "zerg": common_pb2.Zerg,
    "protoss": common_pb2.Protoss,
    "random": common_pb2.Random,
}
DIFFICULTIES: dict[str, sc_pb.Difficulty.ValueType] = {
    "very_easy": sc_pb.VeryEasy,
    "easy": sc_pb.Easy,
    "medium": sc_pb.Medium,
    "medium_hard": sc_pb.MediumHard,
    "hard": sc_pb.Hard,
    "harder": sc_pb.Harder,
    "very_hard": sc_pb.VeryHard,
    "cheat_vision": sc_pb.CheatVision,
    "cheat_money": sc_pb.CheatMoney,
    "cheat_insane": sc_pb.CheatInsane,
}
BUILDS: dict[str, sc_pb.AIBuild.ValueType] = {
    "random": sc_pb.RandomBuild,
    "rush": sc_pb.Rush,
    "timing": sc_pb.Timing,
    "power": sc_pb.Power,
    "macro": sc_pb.Macro,
    "air": sc_pb.Air,
}


T = TypeVar("T")


def _choice(table: Mapping[str, T], value: str, what: str) -> T:
    try:
        return table[value.lower()]
    except (KeyError, AttributeError):
        raise ValueError(f"Unknown {what} {value!r}; choose one of {', '.join(table)}.") from None


@dataclasses.dataclass(frozen=True)
class Bot:
    """The game's built-in AI, the opponent on two-player maps (real StarCraft II only)."""

    race: str = "random"
    difficulty: str = "very_easy"
    build: str = "random"

    def __post_init__(self) -> None:
        _choice(RACES, self.race, "bot race")
        _choice(DIFFICULTIES, self.difficulty, "bot difficulty")
        _choice(BUILDS, self.build, "bot build")

    def player_setup(self) -> sc_pb.PlayerSetup:
        return sc_pb.PlayerSetup(
            type=sc_pb.Computer,
            race=_choice(RACES, self.race, "race"),
            difficulty=_choice(DIFFICULTIES, self.difficulty, "difficulty"),
            ai_build=_choice(BUILDS, self.build, "build"),
        )


@dataclasses.dataclass(frozen=True)
class MatchConfig:
    """What to play and how.

    map_name:          a mini-game name, or a map of the install (`Simple64`, a ladder map's name).
    interface_options: the InterfaceOptions sent with join_game (see sc2env.interface.InterfaceFormat).
    step_mul:          game loops per agent step.
    race:              the agent's race.
    bot:               the opponent on two-player maps; None there means Bot() (random, very easy).
    seat:              None: this is the game's only agent (against `bot` on two-player maps); 1 or 2: this
                       player's slot in a game of two agents, each with its own game process (TwoPlayerGame;
                       never direct mode): the player in slot 1 hosts (creates the game), the other only joins.
    observers:         seat 1's: how many Observers its create_game seats (TwoPlayerGame sets it from its
                       observers; each joins through a game process of its own).
    max_game_loops:    a safety cap on episode length; None: the map's timer plus 10 s, else one hour.
    request_timeout_s: how long to wait for any answer of the game before giving up on it.
    score_index:       what the reward follows: -1 the outcome (+1/-1/0 when the game ends), 0-12 the change
                       of that `score_cumulative` entry (`ScoreCumulative`: 0 is the curriculum score);
                       None: the map's (0 on mini-games, -1 elsewhere), as PySC2's option of that name.
    score_multiplier:  the reward is multiplied by this (-1 to minimise a score).
    """

    map_name: str
    interface_options: sc_pb.InterfaceOptions = dataclasses.field(default_factory=sc_pb.InterfaceOptions)
    launch: LaunchConfig = dataclasses.field(default_factory=LaunchConfig)
    step_mul: int = 8
    race: str = "terran"
    bot: Bot | None = None
    seat: int | None = None
    observers: int = 0
    disable_fog: bool = False
    realtime: bool = False
    max_game_loops: int | None = None
    player_name: str = "sc2env"
    request_timeout_s: float = 120.0
    score_index: int | None = None
    score_multiplier: float = 1.0

    def __post_init__(self) -> None:
        require_count("step_mul", self.step_mul, "game loop")
        require_seconds("request_timeout_s", self.request_timeout_s)
        _choice(RACES, self.race, "race")
        check_race(self.map_name, self.race, self.seat or 1)
        if self.seat is not None:
            if self.seat not in (1, 2) or isinstance(self.seat, bool):
                raise ValueError(f"seat must be 1 or 2 (the player's slot) or None, not {self.seat!r}")
            if self.bot is not None:
                raise ValueError("a seat of a game of two agents has no bot: the other seat is the opponent")
            if self.realtime:
                raise ValueError("realtime=True is for one agent: two agents play in lock-step")
        if isinstance(self.observers, bool) or not isinstance(self.observers, int) or self.observers < 0:
            raise ValueError(f"observers must be a whole number >= 0, not {self.observers!r}")
        if self.observers and self.seat != 1:
            raise ValueError(
                "observers= is seat 1's (the host creates the game with a seat for each): give it to seat 1 "
                "of a game of two agents, through TwoPlayerGame(observers=...)"
            )
        check_score_options(self.score_index, self.score_multiplier)
        if self.bot is not None and not isinstance(self.bot, Bot):
            raise TypeError(
                f"bot must be an sc2env.game.Bot, e.g. Bot(race='zerg', difficulty='easy'), or None "
                f"(Bot() on two-player maps), not {self.bot!r}"
            )
        if self.bot is not None and _mini_game_name(self.map_name):  # it would be left out without a word
            raise ValueError(
                f"{self.map_name} is a single-player mini-game: bot= sets the opponent on two-player "
                "maps (engine='sc2', e.g. map_name='Simple64'); leave it out here"
            )


def _mini_game_name(map_name: str) -> bool:
    """Whether `map_name` names a mini-game, as resolve_map reads names (any case, a .SC2Map file or path, or
    a definition file)."""
    if is_definition_path(map_name):
        return True
    stem = pathlib.PurePath(map_name).name
    stem = stem[: -len(".SC2Map")] if stem.lower().endswith(".sc2map") else stem
    return stem.lower() in {name.lower() for name in MINI_GAMES}


def require_seconds(name: str, value) -> None:
    """Raise ValueError unless `value` is a finite number of seconds above 0."""
    if (
        isinstance(value, bool)
        or not isinstance(value, numbers.Real)
        or not 0 < cast(float, value) < math.inf
    ):
        raise ValueError(f"{name} must be a finite number of seconds above 0, not {value!r}")


def require_seed(name: str, value) -> None:
    """Raise ValueError unless `value` is None or a whole number >= 0 (numpy integers too, bools not)."""
    if value is not None and (
        isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0
    ):
        raise ValueError(f"{name} must be a whole number >= 0 or None, not {value!r}")


def require_count(name: str, value, unit: str) -> None:
    """Raise ValueError unless `value` is a whole number of at least 1 (numpy integers too, bools not)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"{name} must be a whole number of at least 1 {unit}, not {value!r}")
