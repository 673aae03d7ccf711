"""What `opponent=` may be: the built-in AI ("computer:<level>"), an agent by name, or a policy; its checks."""

from __future__ import annotations

import dataclasses
from typing import Any

from sc2env.game.map_races import mini_game_definition, slot_race
from sc2env.game.match_config import DIFFICULTIES, Bot

COMPUTER = "computer"
"""The prefix of the built-in AI's specs: `computer:<difficulty>`."""
DEFAULT_OPPONENT = "computer:very_easy"
"""The opponent on a two-player map when none is given: the game's AI at its easiest (as PySC2's default)."""


@dataclasses.dataclass(frozen=True)
class Computer:
    """The game's built-in AI at one difficulty (a key of DIFFICULTIES: "very_easy", ..., "harder", ...)."""

    difficulty: str

    def bot(self, map_name: str) -> Bot:
        """The Bot of the map's second slot (its race if the map fixes one, else random)."""
        race = slot_race(map_name, 2)
        return Bot(race=race.lower() if race else "random", difficulty=self.difficulty)


@dataclasses.dataclass(frozen=True)
class PolicySpec:
    """A policy playing the second slot in the env's own process: an sc2env Agent, an agent's name as `sc2env
    run --agent` takes it ("random", "scripted", "package.module:Class"), or a callable from the observation
    dict (with its `action_mask`) to an action."""

    policy: Any


Opponent = Computer | PolicySpec


def _key(text: str) -> str:
    return text.lower().replace("_", "").replace("-", "").replace(" ", "")


def computer(spec: str) -> Computer:
    """The Computer of `computer:<difficulty>` (any case; `medium_hard`, `MediumHard` and `medium-hard` alike);
    ValueError listing the difficulties for any other."""
    _, _, level = spec.partition(":")
    found = {_key(name): name for name in DIFFICULTIES}.get(_key(level))
    if found is None:
        raise ValueError(
            f"unknown difficulty {level!r} in opponent={spec!r}: use computer:<difficulty> with one of "
            f"{', '.join(DIFFICULTIES)} (the built-in engine plays very_easy to harder)"
        )
    return Computer(found)


def parse_opponent(value: Any) -> Opponent | None:
    """The Opponent `opponent=` stands for (None: none given); ValueError or TypeError for what is none."""
    if value is None:
        return None
    if isinstance(value, str):
        if not value.strip():
            raise ValueError("opponent='' names no opponent: leave it out, or give computer:<difficulty>")
        if _key(value.partition(":")[0]) == COMPUTER:
            return computer(value)
        return PolicySpec(value)  # an agent's name: the agents registry says if it knows it
    if callable(value) or callable(getattr(value, "step", None)):
        return PolicySpec(value)
    raise TypeError(
        f"opponent must be 'computer:<difficulty>', an agent's name, an sc2env Agent or a callable "
        f"(observation dict -> action), not {value!r}"
    )


def check_opponent(value: Any, map_name: str, bot: Bot | None) -> Opponent | None:
    """The Opponent of an env's options, checked against its map and `bot=`."""
    opponent = parse_opponent(value)
    if opponent is None:
        return None
    if mini_game_definition(map_name) is not None:
        raise ValueError(
            f"{map_name} is a single-player mini-game: opponent= sets who plays the other side of a two-player "
            "map (DuelMarines, DuelTerranMixed, DuelZerglingsBanelings, or a melee map); leave it out here"
        )
    if bot is not None:
        raise ValueError("give the opponent once: opponent='computer:<difficulty>' or bot=Bot(...), not both")
    if isinstance(opponent, PolicySpec) and isinstance(opponent.policy, str):
        from sc2env.agents.registry import agent_class

        agent_class(opponent.policy, map_name)  # an unknown name, told before any game starts
    return opponent
