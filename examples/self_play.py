"""Self-play on DuelMarines: MaskablePPO against a pool of its own past snapshots, with sc2env's built-in engine.

    pip install "sc2env-rl[train]"        # sb3-contrib and its PyTorch
    python examples/self_play.py --rounds 20 --steps-per-round 4096

The learner plays slot 1 of a two-player map through the ordinary Gymnasium env; its opponent is
`opponent=pool`, a callable played in the same process every step (each player has its own game process,
lock-stepped as the real game is). At every new episode the pool picks one of the learner's past snapshots
(frozen copies of its policy) to play slot 2. After each round of training the current policy joins the pool,
and its win rate is measured against a fixed opponent that does not learn: sc2env's scripted duel agent
(`opponent="scripted"`, DuelArmy: camera over its army, attack-move on the minimap, focus fire).

Both players see their own side (fog of war; `player_relative` shows each its own units as Self) on a 16×16
screen and minimap, and act with no_op, select_army, Attack_minimap and Attack_screen: the fully
convolutional policy picks a point of the minimap or screen with one logit per pixel. The reward is the game's
outcome (+1 a win, -1 a loss, 0 a tie). Each round's line (also in --log, a CSV) gives the win rate against
the scripted agent and against the pool over the round's training games.
"""

import argparse
import copy
import csv
import pathlib
import random

import gymnasium as gym
import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.env_util import make_vec_env
from stable_baselines3.common.logger import configure

import sc2env  # noqa: F401  (registers "sc2env/DuelMarines-v0")
from sc2env.baselines.sb3_policy import FullyConvPolicy, fully_conv_kwargs
from sc2env.env import EnvConfig

parser = argparse.ArgumentParser()
parser.add_argument("--map", default="DuelMarines")
parser.add_argument(
    "--rounds", type=int, default=20, help="training rounds; a snapshot joins the pool after each"
)
parser.add_argument("--steps-per-round", type=int, default=4096, help="env steps of training per round")
parser.add_argument("--envs", type=int, default=2, help="games played side by side (two processes each)")
parser.add_argument("--pool", type=int, default=8, help="the most past snapshots kept (the oldest leave)")
parser.add_argument("--eval-games", type=int, default=10, help="games against the scripted agent per round")
parser.add_argument("--log", default="runs/self_play/progress.csv", help="the rounds' figures (CSV)")
parser.add_argument("--save", default="runs/self_play/model", help="where the final policy is saved")
parser.add_argument("--seed", type=int, default=0)
args = parser.parse_args()
torch.set_num_threads(1)  # small networks on a CPU: one thread, and the game processes get the other cores
rng = random.Random(args.seed)

# 1. The env: the learner's options, which the opponent's env (slot 2) copies (docs/multiplayer.md).
env_kwargs = dict(
    engine="builtin",
    screen_size=16,
    minimap_size=16,
    step_mul=8,
    screen_layers=("player_relative",),
    minimap_layers=("player_relative",),
    functions=["no_op", "select_army", "Attack_minimap", "Attack_screen"],
)
SEEN = ["feature_screen", "feature_minimap"]  # what the policy reads (the mask comes from action_masks())


def policy_input(obs: dict) -> dict:
    return {key: obs[key] for key in SEEN}


class SnapshotPool:
    """The opponent: one of the learner's past policies, drawn anew at each episode's first observation."""

    def __init__(self, size: int):
        self.snapshots: list = []
        self.size = size
        self.playing = None
        self.results: list[int] = []  # the learner's outcomes against the pool, this round

    def add(self, policy) -> None:
        frozen = type(policy)(**policy._get_constructor_parameters())  # a new policy of the same shape
        frozen.load_state_dict(copy.deepcopy(policy.state_dict()))
        frozen.set_training_mode(False)
        self.snapshots = [*self.snapshots, frozen][-self.size :]

    def __call__(self, obs: dict) -> np.ndarray:
        if obs["game_loop"][0] == 0 or self.playing is None:
            self.playing = rng.choice(self.snapshots)
        with torch.no_grad():
            action, _ = self.playing.predict(policy_input(obs), action_masks=obs["action_mask"].astype(bool))
        return action


pool = SnapshotPool(args.pool)


class CountResults(gym.Wrapper):
    """Keeps the learner's outcome of every finished training game (for the win rate against the pool)."""

    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(action)
        if terminated or truncated:
            pool.results.append(info["outcome"])
        return obs, reward, terminated, truncated, info


def learner_view(env: gym.Env) -> gym.Env:
    return gym.wrappers.FilterObservation(CountResults(env), SEEN)


vec_env = make_vec_env(
    f"sc2env/{args.map}-v0",
    n_envs=args.envs,
    env_kwargs={**env_kwargs, "opponent": pool},
    seed=args.seed,
    wrapper_class=learner_view,
)
model = MaskablePPO(
    FullyConvPolicy,
    vec_env,
    n_steps=256,
    batch_size=256,
    learning_rate=3e-4,
    ent_coef=0.01,
    seed=args.seed,
    policy_kwargs=fully_conv_kwargs(EnvConfig(**env_kwargs)),
)
pool.add(model.policy)  # round 0: the untrained policy is the first opponent
pathlib.Path(args.log).parent.mkdir(parents=True, exist_ok=True)
model.set_logger(configure(str(pathlib.Path(args.log).parent / "sb3"), ["csv"]))

# 2. The fixed opponent the win rate is measured against: the scripted duel agent, in slot 2.
eval_env = learner_view(gym.make(f"sc2env/{args.map}-v0", opponent="scripted", **env_kwargs))


def win_rate_against_scripted(games: int) -> tuple[float, int, int, int]:
    won = lost = tied = 0
    for game in range(games):
        obs, _ = eval_env.reset(seed=10_000 + game)  # the same armies' places every round
        while True:
            masks = eval_env.unwrapped.action_masks()
            action, _ = model.predict(obs, action_masks=masks, deterministic=True)
            obs, _, terminated, truncated, info = eval_env.step(action)
            if terminated or truncated:
                break
        won, lost, tied = (
            won + (info["outcome"] > 0),
            lost + (info["outcome"] < 0),
            tied + (info["outcome"] == 0),
        )
    return won / games, won, lost, tied


# 3. Rounds: train against the pool, add the snapshot, measure against the scripted agent.
with open(args.log, "w", newline="") as log_file:
    log = csv.writer(log_file)
    log.writerow(
        ["round", "timesteps", "win_rate_vs_scripted", "won", "lost", "tied", "win_rate_vs_pool", "pool"]
    )
    rate, won, lost, tied = win_rate_against_scripted(args.eval_games)
    print(f"round 0: {0:>7} steps, vs scripted {rate:.0%} ({won}-{lost}-{tied}), untrained")
    log.writerow([0, 0, rate, won, lost, tied, "", len(pool.snapshots)])
    for round_number in range(1, args.rounds + 1):
        pool.results = []
        model.learn(total_timesteps=args.steps_per_round, reset_num_timesteps=False)
        pool.add(model.policy)
        rate, won, lost, tied = win_rate_against_scripted(args.eval_games)
        games = len(pool.results)
        vs_pool = sum(r > 0 for r in pool.results) / games if games else float("nan")
        print(
            f"round {round_number}: {model.num_timesteps:>7} steps, vs scripted {rate:.0%} ({won}-{lost}-{tied}), "
            f"vs pool {vs_pool:.0%} of {games} games, pool {len(pool.snapshots)}",
            flush=True,
        )
        log.writerow([round_number, model.num_timesteps, rate, won, lost, tied, vs_pool, len(pool.snapshots)])
        log_file.flush()

model.save(args.save)
vec_env.close()
eval_env.close()
print(f"saved {args.save}.zip")
