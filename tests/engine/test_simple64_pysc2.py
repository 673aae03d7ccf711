"""PySC2 (pysc2-evolved, unchanged) on the engine's Simple64: its own map class, run loop, Agents and Bots."""

from __future__ import annotations

import ast
import subprocess

from engine_helpers import make_sc2path, require_pysc2_evolved, run_on_sc2path

# Two Agents through PySC2's run_loop on its own Simple64 map class (maps/melee.py: Melee/Simple64.SC2Map).
# Each records what its observations showed: its player id, its own Command Center and SCVs, whether it ever saw
# an enemy unit (fog of war: the bases are far apart), and the game loop it reached.
TWO_AGENTS = r"""
from absl import flags
flags.FLAGS(["play"])
from pysc2_evolved.agents import base_agent
from pysc2_evolved.env import run_loop, sc2_env
from pysc2_evolved.lib import actions, features

class Watcher(base_agent.BaseAgent):
    def step(self, obs):
        super().step(obs)
        units = obs.observation.raw_units
        self.player_id = int(obs.observation.player.player_id)
        self.own = sorted(int(u.unit_type) for u in units if u.alliance == 1)
        self.saw_enemy = getattr(self, "saw_enemy", False) or any(u.alliance == 4 for u in units)
        self.loop = int(obs.observation.game_loop[0])
        return actions.RAW_FUNCTIONS.no_op()

aif = features.AgentInterfaceFormat(action_space=actions.ActionSpace.RAW, use_raw_units=True, raw_resolution=64)
env = sc2_env.SC2Env(
    map_name="Simple64", players=[sc2_env.Agent(sc2_env.Race.terran), sc2_env.Agent(sc2_env.Race.random)],
    agent_interface_format=[aif, aif], step_mul=16, game_steps_per_episode=800, random_seed=5)
agents = [Watcher(), Watcher()]
run_loop.run_loop(agents, env, max_episodes=1)
env.close()
for agent in agents:
    print("agent", [agent.player_id, agent.own.count(18), agent.own.count(45), agent.saw_enemy, agent.loop,
                    agent.steps], flush=True)
print("closed", flush=True)
"""

# An Agent against PySC2's Bot (the engine's built-in AI) at each difficulty, a short game each with the fog off
# so the idle agent watches the Bot build: more SCVs, a Supply Depot and a Barracks.
AGAINST_BOTS = r"""
from absl import flags
flags.FLAGS(["play"])
from pysc2_evolved.env import sc2_env
from pysc2_evolved.lib import actions, features

aif = features.AgentInterfaceFormat(action_space=actions.ActionSpace.RAW, use_raw_units=True, raw_resolution=64)
for difficulty in sc2_env.Difficulty:
    if difficulty > sc2_env.Difficulty.harder:
        continue
    env = sc2_env.SC2Env(
        map_name="Simple64",
        players=[sc2_env.Agent(sc2_env.Race.terran), sc2_env.Bot(sc2_env.Race.terran, difficulty)],
        agent_interface_format=aif, step_mul=32, game_steps_per_episode=2400, disable_fog=True, random_seed=4)
    ts = env.reset()[0]
    while not ts.last():
        ts = env.step([actions.RAW_FUNCTIONS.no_op()])[0]
    enemy = [int(u.unit_type) for u in ts.observation.raw_units if u.alliance == 4]
    print("bot", difficulty.name, [enemy.count(45), enemy.count(19), enemy.count(21)], ts.reward, flush=True)
    env.close()
print("closed", flush=True)
"""


def _run(script: str, tmp_path, timeout: int) -> list[str]:
    require_pysc2_evolved()
    make_sc2path(tmp_path)
    assert (tmp_path / "Maps" / "Melee" / "Simple64.SC2Map").is_file()  # where PySC2's Simple64 class looks
    done = run_on_sc2path(tmp_path, ["-c", script], timeout)
    output = done.stdout.splitlines()
    assert output[-1] == "closed"
    leftovers = subprocess.run(["pgrep", "-f", str(tmp_path)], capture_output=True, text=True, check=False)
    assert not leftovers.stdout.split()
    return output


def test_pysc2_runs_two_agents_on_simple64_with_its_own_run_loop(tmp_path):
    output = _run(TWO_AGENTS, tmp_path, 240)
    agents = [ast.literal_eval(line.removeprefix("agent ")) for line in output if line.startswith("agent ")]
    assert [a[0] for a in agents] == [1, 2]
    for _, halls, scvs, saw_enemy, loop, steps in agents:
        assert (halls, scvs) == (1, 12)  # each its own base
        assert not saw_enemy  # fog of war: neither idle side sees the other
        assert loop >= 800 - 16 and steps == loop // 16 + 1


def test_pysc2_plays_an_agent_against_the_bot_at_each_difficulty_on_simple64(tmp_path):
    output = _run(AGAINST_BOTS, tmp_path, 600)
    games = [line.split(maxsplit=2) for line in output if line.startswith("bot ")]
    assert [g[1] for g in games] == ["very_easy", "easy", "medium", "medium_hard", "hard", "harder"]
    for _, name, rest in games:
        (scvs, depots, barracks), reward = ast.literal_eval(rest.replace("] ", "], ", 1))
        # 2,400 loops (1:47 of game time): every level has trained SCVs and built a depot and a Barracks.
        assert scvs > 12 and depots >= 1 and barracks >= 1, name
        assert reward == 0  # nobody has won yet
