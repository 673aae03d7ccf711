"""The scripted Simple64 agent: raw actions through the env against the built-in AI, over a real socket."""

from __future__ import annotations

import numpy as np
import pytest

from sc2env.agents import SCRIPTED_AGENTS, Simple64, agent_class, run_agent
from sc2env.interface import FeatureUnit
from sc2env.interface.transforms import MapInfo

COMMAND_CENTER, SCV, SUPPLY_DEPOT, BARRACKS, MARINE = 18, 45, 19, 21, 48


def _env(make_env, difficulty: str):
    return make_env(
        "Simple64",  # sc2env/Simple64-v0
        opponent=f"computer:{difficulty}",
        screen_size=16,
        minimap_size=16,
        **Simple64.env_kwargs,
    )


def test_scripted_picks_the_simple64_agent():
    assert SCRIPTED_AGENTS["Simple64"] is Simple64
    assert agent_class("scripted", "Simple64") is Simple64


def test_the_cli_plays_it_against_the_ai(capsys):
    from sc2env.cli.entry import main

    code = main(
        [
            "sc2env",
            "run",
            "--map",
            "Simple64",
            "--agent",
            "scripted",
            "--opponent",
            "computer:very_easy",
            "--episodes",
            "1",
        ]
    )
    assert code == 0
    rows = [line.split() for line in capsys.readouterr().out.splitlines() if line.startswith("Simple64")]
    assert rows and rows[-1][-3:] == ["1", "0", "0"]  # the results table's won, lost, tied: it beat VeryEasy


def test_it_builds_its_base_with_raw_actions(make_env):
    env = _env(make_env, "very_easy")
    agent = Simple64()
    env.reset(seed=2)
    agent.setup(env.unwrapped)
    agent.reset()
    invalid = 0
    for _ in range(400):  # 3,200 loops at step_mul 8
        _, _, terminated, truncated, info = env.step(agent.step(env.unwrapped.last_observation))
        invalid += bool(info["invalid_action"])
        assert not (terminated or truncated)
    units = np.asarray(env.unwrapped.last_observation.raw_units)
    own = units[units[:, FeatureUnit.alliance] == 1, FeatureUnit.unit_type].tolist()
    assert own.count(SCV) == 16 and own.count(SUPPLY_DEPOT) >= 1 and own.count(BARRACKS) >= 3
    assert own.count(MARINE) >= 1
    assert invalid == 0  # every action it sent was available
    # Its base stands up on its main's plateau, off the ramp, and its Marines gather at the ramp's top.
    info = MapInfo.from_game_info(env.unwrapped.game_info)
    to_world = env.unwrapped.transforms.world_to_raw.back
    mine = units[(units[:, FeatureUnit.alliance] == 1)]
    built = mine[np.isin(mine[:, FeatureUnit.unit_type], [SUPPLY_DEPOT, BARRACKS])]
    xy = to_world(built[:, [FeatureUnit.x, FeatureUnit.y]].astype(float))
    home = to_world(mine[mine[:, FeatureUnit.unit_type] == COMMAND_CENTER][:, [FeatureUnit.x, FeatureUnit.y]])
    level = info.sample(info.terrain_height, home[:, 0], home[:, 1])
    assert (info.sample(info.terrain_height, xy[:, 0], xy[:, 1]) == level).all()
    assert (info.sample(info.placement, xy[:, 0], xy[:, 1])).all()
    rally = to_world(np.array([agent._rally_point()], float))[0]
    ramp = info.pathing & ~info.placement  # walkable, not buildable: the ramps
    ys, xs = np.nonzero(ramp)
    nearest = int(np.argmin(np.hypot(xs + 0.5 - rally[0], ys + 0.5 - rally[1])))
    assert np.hypot(xs[nearest] + 0.5 - rally[0], ys[nearest] + 0.5 - rally[1]) <= 1.0  # at its ramp ...
    assert info.sample(info.terrain_height, rally[0], rally[1]) >= level[0] - 4  # ... at the top


@pytest.mark.parametrize("difficulty", ["very_easy", "easy"])
def test_it_beats_the_easier_ais(make_env, difficulty):
    env = _env(make_env, difficulty)
    (episode,) = run_agent(env, Simple64(), 1, seed=1)
    assert episode.outcome == 1 and episode.reward == 1  # a victory
    assert episode.invalid_actions == 0
