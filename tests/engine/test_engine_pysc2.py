"""PySC2 compatibility: PySC2's own SC2Env plays the engine's mini-games through `--make-sc2path`.

pysc2-evolved (the test extra) always; upstream PySC2 4.0 too when $SC2ENV_PYSC2_4_PYTHON names an interpreter
that has it (it needs Python <= 3.10, protobuf 3.20 and numpy < 2, so it cannot share our environment).
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys

import pytest
from engine_helpers import make_sc2path, require_pysc2_evolved, run_on_sc2path

# Run in a child interpreter: PySC2 parses absl flags and keeps module state we don't want in this process.
PLAY = r"""
import sys
from absl import flags
flags.FLAGS(["play"])
from pysc2_evolved.env import sc2_env
from pysc2_evolved.lib import actions, features

F = actions.FUNCTIONS
for name in ["MoveToBeacon", "CollectMineralShards"]:
    env = sc2_env.SC2Env(
        map_name=name, players=[sc2_env.Agent(sc2_env.Race.terran)], step_mul=8, random_seed=5,
        agent_interface_format=features.AgentInterfaceFormat(
            feature_dimensions=features.Dimensions(screen=64, minimap=64), use_feature_units=True))
    for episode in range(2):
        ts = env.reset()[0]
        steps = 0
        while not ts.last():
            obs = ts.observation
            if F.Move_screen.id in obs.available_actions:
                marine = [u for u in obs.feature_units if u.alliance == 1][0]
                targets = [(u.x, u.y) for u in obs.feature_units if u.alliance == 3]
                x, y = min(targets, key=lambda t: (t[0] - marine.x) ** 2 + (t[1] - marine.y) ** 2)
                act = F.Move_screen("now", (min(max(x, 0), 63), min(max(y, 0), 63)))
                selected = sorted(int(a) for a in obs.available_actions)
            else:
                act = F.select_army("select")
            ts = env.step([act])[0]
            steps += 1
        print(name, episode, steps, int(ts.observation.score_cumulative[0]), ts.step_type, selected, flush=True)
    env.close()

# A part-2 mini-game: focus fire on the weakest Roach through Attack_screen; losses and kills score.
env = sc2_env.SC2Env(
    map_name="DefeatRoaches", players=[sc2_env.Agent(sc2_env.Race.terran)], step_mul=8, random_seed=5,
    agent_interface_format=features.AgentInterfaceFormat(
        feature_dimensions=features.Dimensions(screen=64, minimap=64), use_feature_units=True))
ts = env.reset()[0]
steps = 0
while not ts.last():
    obs = ts.observation
    roaches = [u for u in obs.feature_units if u.alliance == 4]
    if roaches and F.Attack_screen.id in obs.available_actions:
        r = min(roaches, key=lambda u: u.health)
        act = F.Attack_screen("now", (min(max(r.x, 0), 63), min(max(r.y, 0), 63)))
        selected = sorted(int(a) for a in obs.available_actions)
    else:
        act = F.select_army("select")
    ts = env.step([act])[0]
    steps += 1
print("DefeatRoaches", 0, steps, int(ts.observation.score_cumulative[0]), ts.step_type, selected, flush=True)
env.close()
print("closed", flush=True)
"""


LAST = ("2", "StepType.LAST")  # how each PySC2 prints its last step's type

# PySC2's raw action space: the army focuses the weakest Roach by raw_units row (PySC2 turns rows into tags).
PLAY_RAW = r"""
from absl import flags
flags.FLAGS(["play"])
from pysc2_evolved.env import sc2_env
from pysc2_evolved.lib import actions, features

R = actions.RAW_FUNCTIONS
env = sc2_env.SC2Env(
    map_name="DefeatRoaches", players=[sc2_env.Agent(sc2_env.Race.terran)], step_mul=8, random_seed=5,
    agent_interface_format=features.AgentInterfaceFormat(action_space=actions.ActionSpace.RAW,
                                                         use_raw_units=True, raw_resolution=64))
ts = env.reset()[0]
steps = 0
while not ts.last():
    units = ts.observation.raw_units
    own = [i for i, u in enumerate(units) if u.alliance == 1]
    roaches = [i for i, u in enumerate(units) if u.alliance == 4]
    act = R.Attack_unit("now", own, min(roaches, key=lambda i: units[i].health)) if own and roaches else R.no_op()
    ts = env.step([act])[0]
    steps += 1
print("raw", steps, int(ts.observation.score_cumulative[0]), ts.step_type, flush=True)
env.close()
"""


INTERPRETERS = [
    pytest.param(sys.executable, "pysc2_evolved", id="pysc2-evolved"),
    pytest.param(os.environ.get("SC2ENV_PYSC2_4_PYTHON"), "pysc2", id="pysc2-4.0"),
]


@pytest.mark.parametrize("python, package", INTERPRETERS)
def test_pysc2_sc2env_plays_mini_games_with_restarts(tmp_path, python, package):
    if package == "pysc2_evolved":
        require_pysc2_evolved()
    elif not python:
        pytest.skip(
            "set SC2ENV_PYSC2_4_PYTHON to a Python <= 3.10 with pysc2==4.0.0, protobuf 3.20, numpy < 2"
        )
    make_sc2path(tmp_path)
    done = run_on_sc2path(tmp_path, ["-c", PLAY.replace("pysc2_evolved", package)], 240, python=python)
    output = done.stdout.splitlines()
    lines = [
        line.split(maxsplit=5)
        for line in output
        if line.startswith(("MoveToBeacon", "CollectMineralShards", "DefeatRoaches"))
    ]
    assert output[-1] == "closed"
    assert [(m, e) for m, e, *_ in lines] == [
        ("MoveToBeacon", "0"),
        ("MoveToBeacon", "1"),
        ("CollectMineralShards", "0"),
        ("CollectMineralShards", "1"),
        ("DefeatRoaches", "0"),
    ]
    _, _, steps, score, step_type, available = lines.pop()
    assert step_type in LAST and int(score) >= 30, "killed Roaches through PySC2's feature units"
    marine_functions = [0, 1, 2, 3, 4, 7, 12, 13, 274, 331, 332, 333, 334, 451, 452, 453]
    assert int(steps) <= 240 and set(marine_functions) <= set(ast.literal_eval(available))
    for name, _, steps, score, step_type, available in lines:
        assert int(steps) == 240, "1920 game loops at step_mul 8, ended by player_result"
        assert step_type in LAST
        assert int(score) >= (20 if name == "MoveToBeacon" else 40)
        # The real game's list for one selected marine; two marines add select_unit (5) for the multi panel.
        marine_functions = [0, 1, 2, 3, 4, 7, 12, 13, 274, 331, 332, 333, 334, 451, 452, 453]
        expected = marine_functions if name == "MoveToBeacon" else sorted(marine_functions + [5])
        assert available == str(expected)
    # Both runs quit their engine: no SC2_x64 child survives the client.
    leftovers = subprocess.run(
        ["pgrep", "-f", str(tmp_path)], capture_output=True, text=True, check=False
    ).stdout.split()
    assert not leftovers


# PySC2's feature-layer view of a replay of raw commands: every echo must read back through reverse_action.
WATCH_RAW_REPLAY = r"""
import sys
from absl import flags
flags.FLAGS(["watch"])
from pysc2_evolved import run_configs
from pysc2_evolved.lib import actions, features, point
from s2clientprotocol import sc2api_pb2 as sc_pb

interface = sc_pb.InterfaceOptions(raw=True, score=True, feature_layer=sc_pb.SpatialCameraSetup(width=24))
point.Point(64, 64).assign_to(interface.feature_layer.resolution)
point.Point(64, 64).assign_to(interface.feature_layer.minimap_resolution)
run_config = run_configs.get()
with run_config.start(want_rgb=False) as controller:
    data = run_config.replay_data(sys.argv[1])
    controller.start_replay(sc_pb.RequestStartReplay(replay_data=data, options=interface, observed_player_id=1))
    feat = features.features_from_game_info(controller.game_info())
    seen = set()
    for _ in range(30):
        controller.step(8)
        obs = feat.transform_obs(controller.observe())
        seen.update(actions.FUNCTIONS[int(f)].name for f in obs["last_actions"])
    print("seen", sorted(seen), flush=True)
"""


def test_pysc2_reads_a_replay_of_raw_commands_through_feature_layers(tmp_path, make_env):
    require_pysc2_evolved()
    from sc2env.agents import RawFocusFire, run_agent

    env = make_env(
        "DefeatRoaches",
        max_episode_steps=30,
        save_replay_episodes=1,
        replay_dir=str(tmp_path / "r"),
        **RawFocusFire.env_kwargs,
    )
    run_agent(env, RawFocusFire(), 1, seed=3)
    env.close()
    (replay,) = (tmp_path / "r").glob("*.SC2Replay")
    make_sc2path(tmp_path / "sc2")
    done = run_on_sc2path(tmp_path / "sc2", ["-c", WATCH_RAW_REPLAY, str(replay)], 240)
    # The raw Attack_unit commands come with their feature-layer form, which PySC2 reads as Attack_screen.
    assert "'Attack_screen'" in done.stdout, done.stdout


def test_pysc2s_raw_action_space_plays_the_engine(tmp_path):
    require_pysc2_evolved()
    make_sc2path(tmp_path)
    done = run_on_sc2path(tmp_path, ["-c", PLAY_RAW], 240)
    _, steps, score, step_type = done.stdout.split()[-4:]
    assert step_type in LAST and int(steps) <= 240 and int(score) >= 30, done.stdout


@pytest.mark.parametrize(
    "tool, args, printed",
    [
        # a human's game in PySC2's window: one Computer player added, raw data cropped to the playable area
        (
            "play",
            ["--map_name", "DefeatRoaches", "--no_realtime", "--max_game_steps", "60", "--render"],
            "fps",
        ),
        ("benchmark_observe", ["--map", "MoveToBeacon", "--count", "60"], "step.read"),
    ],
)
def test_pysc2s_own_tools_run_on_the_engine(tmp_path, tool, args, printed):
    require_pysc2_evolved()
    make_sc2path(tmp_path)
    done = run_on_sc2path(tmp_path, ["-m", f"pysc2_evolved.bin.{tool}", *args], 120, cwd=tmp_path)
    assert printed in done.stdout + done.stderr
    leftovers = subprocess.run(["pgrep", "-f", str(tmp_path)], capture_output=True, text=True, check=False)
    assert not leftovers.stdout.split()


# Two Agents on a duel map through PySC2's own multiplayer path: save_map on both engines, create_game on the
# first, both joins with shared ports, lock-step steps, and its reset (leave, create and join again).
PLAY_DUEL = r"""
from absl import flags
flags.FLAGS(["play"])
from pysc2_evolved.env import sc2_env
from pysc2_evolved.lib import actions, features
from pysc2_evolved.maps import lib

class DuelMarines(lib.Map):
    directory = "duels"
    filename = "DuelMarines"
    players = 2

R = actions.RAW_FUNCTIONS
aif = features.AgentInterfaceFormat(action_space=actions.ActionSpace.RAW, use_raw_units=True, raw_resolution=64)
env = sc2_env.SC2Env(
    map_name="DuelMarines", players=[sc2_env.Agent(sc2_env.Race.terran), sc2_env.Agent(sc2_env.Race.terran)],
    agent_interface_format=[aif, aif], step_mul=8, random_seed=5)
for episode in range(2):
    timesteps = env.reset()
    steps = 0
    while not timesteps[0].last():
        moves = []
        for ts in timesteps:
            own = [u.tag for u in ts.observation.raw_units if u.alliance == 1]
            moves.append(R.Attack_pt("now", own, (32, 32)) if steps == 0 else R.no_op())
        timesteps = env.step(moves)
        steps += 1
    print("episode", episode, steps, [ts.reward for ts in timesteps], "|",
          [int(ts.observation.player[0]) for ts in timesteps], flush=True)
env.close()
print("closed", flush=True)
"""


def test_pysc2_plays_two_agents_on_a_duel_map(tmp_path):
    require_pysc2_evolved()
    make_sc2path(tmp_path)
    done = run_on_sc2path(tmp_path, ["-c", PLAY_DUEL], 240)
    output = done.stdout.splitlines()
    assert output[-1] == "closed"
    episodes = [line.split(maxsplit=3) for line in output if line.startswith("episode")]
    assert [e[1] for e in episodes] == ["0", "1"]
    for _, _, steps, rest in episodes:
        rewards, player_ids = (ast.literal_eval(part) for part in rest.split(" | "))
        assert player_ids == [1, 2]
        # The armies meet in the middle and fight it out before the time limit: one wins, the other loses.
        assert sorted(rewards) == [-1, 1] and int(steps) < 2688 // 8
    leftovers = subprocess.run(
        ["pgrep", "-f", str(tmp_path)], capture_output=True, text=True, check=False
    ).stdout.split()
    assert not leftovers


# An Agent against PySC2's Bot (the engine's built-in AI) at each difficulty the engine plays; the agent's army
# waits where it stands and defends itself.
PLAY_BOT = r"""
from absl import flags
flags.FLAGS(["play"])
from pysc2_evolved.env import sc2_env
from pysc2_evolved.lib import actions, features
from pysc2_evolved.maps import lib

class DuelMarines(lib.Map):
    directory = "duels"
    filename = "DuelMarines"
    players = 2

aif = features.AgentInterfaceFormat(action_space=actions.ActionSpace.RAW, use_raw_units=True, raw_resolution=64)
for difficulty in sc2_env.Difficulty:
    if difficulty > sc2_env.Difficulty.harder:
        continue
    env = sc2_env.SC2Env(
        map_name="DuelMarines",
        players=[sc2_env.Agent(sc2_env.Race.terran), sc2_env.Bot(sc2_env.Race.terran, difficulty)],
        agent_interface_format=aif, step_mul=16, random_seed=4)
    ts = env.reset()[0]
    steps = 0
    seen = False
    while not ts.last():
        seen = seen or any(u.alliance == 4 for u in ts.observation.raw_units)
        ts = env.step([actions.RAW_FUNCTIONS.no_op()])[0]
        steps += 1
    print("bot", difficulty.name, steps, ts.reward, seen, flush=True)
    env.close()
print("closed", flush=True)
"""


def test_pysc2_plays_an_agent_against_the_bot_at_each_difficulty(tmp_path):
    require_pysc2_evolved()
    make_sc2path(tmp_path)
    done = run_on_sc2path(tmp_path, ["-c", PLAY_BOT], 300)
    output = done.stdout.splitlines()
    assert output[-1] == "closed"
    games = [line.split() for line in output if line.startswith("bot ")]
    assert [g[1] for g in games] == ["very_easy", "easy", "medium", "medium_hard", "hard", "harder"]
    for _, name, steps, reward, seen in games:
        # Every bot sends its army: the idle agent sees it, and the game ends before its time limit.
        assert seen == "True" and int(steps) < 2688 // 16, name
        assert reward in ("1", "-1", "0")
    leftovers = subprocess.run(
        ["pgrep", "-f", str(tmp_path)], capture_output=True, text=True, check=False
    ).stdout.split()
    assert not leftovers
