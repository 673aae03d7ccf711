"""opponent= for the Gymnasium env: the built-in AI by difficulty, agents and policies in this process."""

from __future__ import annotations

import os
import signal

import gymnasium as gym
import numpy as np
import pytest

import sc2env  # noqa: F401  (registers the ids)
from sc2env import errors
from sc2env.agents import Agent, DuelArmy
from sc2env.env.opponents import Computer, PolicySpec, computer, parse_opponent
from sc2env.game.match_config import DIFFICULTIES
from sc2env.interface import FUNCTIONS

SMALL = dict(engine="builtin", screen_size=16, minimap_size=16, step_mul=16, request_timeout_s=30.0)
BUILTIN_LEVELS = ("very_easy", "easy", "medium", "medium_hard", "hard", "harder")


@pytest.fixture
def make():
    made = []

    def build(env_id: str = "sc2env/DuelMarines-v0", **options):
        env = gym.make(env_id, **(SMALL | options))
        made.append(env)
        return env

    yield build
    for env in made:
        env.close()


def play_out(env, act, seed: int = 0, limit: int = 400) -> tuple[dict, int]:
    obs, info = env.reset(seed=seed)
    for steps in range(1, limit + 1):
        obs, _, terminated, truncated, info = env.step(act(obs))
        if terminated or truncated:
            return info, steps
    raise AssertionError("the game did not end")


def no_op(_obs) -> np.ndarray:
    return np.zeros(14, np.int64)


@pytest.mark.parametrize(
    ("spec", "level"),
    [
        ("computer:medium", "medium"),
        ("Computer:MediumHard", "medium_hard"),
        ("COMPUTER:very-easy", "very_easy"),
        ("computer:Harder", "harder"),
        ("computer:cheat_insane", "cheat_insane"),
    ],
)
def test_computer_specs_read_any_case_and_spelling(spec, level):
    assert parse_opponent(spec) == Computer(level)


def test_every_difficulty_has_a_spec_and_an_unknown_one_lists_them():
    assert [computer(f"computer:{name}").difficulty for name in DIFFICULTIES] == list(DIFFICULTIES)
    with pytest.raises(ValueError, match="very_easy, easy, medium, medium_hard, hard, harder"):
        computer("computer:impossible")


def test_policies_and_agent_names_are_policies():
    assert isinstance(parse_opponent("random"), PolicySpec)
    assert isinstance(parse_opponent(no_op), PolicySpec)
    assert parse_opponent(None) is None
    with pytest.raises(TypeError, match="opponent must be"):
        parse_opponent(3)


@pytest.mark.parametrize("level", BUILTIN_LEVELS)
def test_the_computer_plays_the_other_side_at_each_difficulty(make, level):
    env = make(opponent=f"computer:{level.upper()}")
    info, _ = play_out(env, no_op, seed=1)
    match = env.unwrapped.match
    assert match.config.bot.difficulty == level and match.config.bot.race == "terran"
    assert info["outcome"] in (-1, 0)  # an army that never fights does not win
    assert info["outcome"] == -1 or level == "very_easy"  # from easy on, the whole AI army comes


def test_the_default_opponent_on_a_two_player_map_is_the_computer_at_very_easy(make):
    env = make()
    env.reset(seed=0)
    bot = env.unwrapped.match.config.bot
    assert bot is None or bot.difficulty == "very_easy"
    assert env.unwrapped._opponent is None  # one game process: the AI plays inside it


def test_a_callable_policy_plays_the_other_side_in_this_process(make, marked_games):
    seen: list[dict] = []

    def attack(obs: dict) -> object:
        seen.append(obs)
        if FUNCTIONS.Attack_minimap.id not in np.flatnonzero(obs["action_mask"][: len(FUNCTIONS)]):
            return FUNCTIONS.select_army("select")
        return FUNCTIONS.Attack_minimap("now", (3, 8))

    env = make(opponent=attack)
    info, steps = play_out(env, no_op, seed=2)
    # The policy's army attacked ours, which stood still: a fight to a result before the 120 s tie.
    assert info["outcome"] != 0 and info["game_loop"] < 2688
    assert len(seen) == steps and all("action_mask" in obs for obs in seen)
    assert seen[0]["player"][0] == 2  # its own side's observation
    assert len(marked_games()) == 2  # a game process per player
    env.close()
    assert marked_games() == []


def test_an_agent_opponent_is_set_up_reset_and_told_each_outcome(make):
    class Counting(DuelArmy):
        def __init__(self):
            self.calls = {"setup": 0, "reset": 0, "observe": 0, "step": 0}

        def setup(self, env):
            self.calls["setup"] += 1
            super().setup(env)

        def reset(self):
            self.calls["reset"] += 1
            super().reset()

        def observe(self, reward, terminated, truncated, info):
            self.calls["observe"] += 1
            self.last = (reward, terminated, info["outcome"])

        def step(self, obs):
            self.calls["step"] += 1
            return super().step(obs)

    agent = Counting()
    assert isinstance(agent, Agent)
    env = make(opponent=agent, use_feature_units=True)
    info, steps = play_out(env, no_op, seed=3)
    env.reset()
    assert agent.calls == {"setup": 1, "reset": 2, "observe": steps, "step": steps}
    reward, terminated, outcome = agent.last
    assert terminated and info["outcome"] != 0 and outcome == reward == -info["outcome"]


def test_an_agent_by_name_and_a_crash_of_its_game(make, marked_games):
    env = make(opponent="random", seed=4)
    env.reset()
    env.step(no_op(None))
    opponent = env.unwrapped._opponent
    os.kill(opponent.game.guest.process.pid, signal.SIGKILL)
    with pytest.raises(errors.GameCrashedError, match="player 2's game was lost"):
        for _ in range(3):
            env.step(no_op(None))
    _, info = env.reset()  # both games anew
    assert info["game_loop"] == 0
    env.close()
    assert marked_games() == []


def test_bad_opponents_are_refused_with_the_reason(make):
    with pytest.raises(ValueError, match="single-player mini-game"):
        make("sc2env/MoveToBeacon-v0", opponent="computer:easy")
    with pytest.raises(ValueError, match="computer:<difficulty> with one of"):
        make(opponent="computer:brutal")
    with pytest.raises(ValueError, match="unknown agent"):
        make(opponent="nobody")
    from sc2env.game import Bot

    with pytest.raises(ValueError, match="not both"):
        make(opponent="computer:easy", bot=Bot(difficulty="hard"))
    with pytest.raises(errors.MalformedActionError, match="opponent's policy"):
        env = make(opponent=lambda obs: "attack!")
        env.reset(seed=0)
        env.step(no_op(None))


def test_simple64_against_the_computer_and_a_policy(make):
    computer_game = make("sc2env/Simple64-v0", opponent="computer:hard")
    _, info = computer_game.reset(seed=0)
    assert computer_game.unwrapped.match.config.bot.difficulty == "hard"
    calls = []
    policy_game = make("sc2env/Simple64-v0", opponent=lambda obs: calls.append(obs) or no_op(obs))
    policy_game.reset(seed=0)
    for env in (computer_game, policy_game):
        for _ in range(3):
            _, _, terminated, _, info = env.step(no_op(None))
        assert not terminated and info["game_loop"] == 48
    assert len(calls) == 3 and calls[0]["player"][0] == 2


def test_an_agent_opponent_plays_with_every_function_whatever_the_learners_subset(make):
    # The scripted agent moves the camera and attacks on the minimap: functions the learner's subset leaves out.
    env = make(
        opponent="scripted",
        functions=["no_op", "select_army"],
        screen_layers=("player_relative",),
        minimap_layers=("player_relative",),
    )
    info, _ = play_out(env, lambda obs: np.zeros(14, np.int64), seed=5)
    assert info["outcome"] != 0 and info["game_loop"] < 2688  # it came and fought: no tie at the timer
    opponent_env = env.unwrapped._opponent.env
    assert opponent_env.config.functions is None and opponent_env.config.use_feature_units
