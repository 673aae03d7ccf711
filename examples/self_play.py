"""Self-play on DuelMarines: MaskablePPO against a pool of its own past snapshots, with sc2env's built-in engine.

    pip install "sc2env-rl[train]"        # sb3-contrib and its PyTorch
    python examples/self_play.py --rounds 12 --out runs/self_play
    python examples/self_play.py --rounds 16 --out runs/self_play --resume    # on from the last round saved
    python examples/self_play.py --out runs/self_play --evaluate 100    # the saved model against the untrained

The learner plays slot 1 of a two-player map through the ordinary Gymnasium env; its opponent plays slot 2 in
the same process every step (against a policy each player has its own game process, lock-stepped as the real
game is; the built-in AI runs inside the learner's game). `--train-against` lists the training games played
side by side, one opponent each (by default three games against the pool: self-play alone):

- `pool`: the learner's past selves. The uniformly random policy at first; from round `--pool-from` on, after
  each round the learner's current policy joins the pool as a frozen snapshot (the `--pool` latest kept, the
  random policy stays), and each episode of each `pool` game draws one of them;
- anything `opponent=` takes as a string: `computer:<level>` (the built-in AI), `scripted` (the duel agent:
  camera over its army, attack-move on the minimap, focus fire), `random` (every function). A fixed opponent
  beside the pool is a curriculum: it keeps the learner from drifting into a style only its own snapshots
  lose to.

Both players see their own side (fog of war; `player_relative` shows each its own units as Self) on a 16x16
screen and minimap and act with `--functions`: by default eleven, to select (the army, a unit, a box), move the
camera, move, attack, stop and hold; the fully convolutional policy picks a point of the minimap or screen with
one logit per pixel. (With only no_op, select_army and the two attacks, the uniformly random policy already
plays about as well as any simple tactic, docs/multiplayer.md says, and there is little for a learner to find.)
The reward is the game's outcome (+1 a win, -1 a loss, 0 a tie) plus `--shaping` times (enemy Marines killed -
own Marines lost) / 9 at each step: the same sign as the outcome, but a signal at every fight rather than once
a game.

After each round the learner's policy (sampling its actions, from the same seed) plays `--eval-games` games
against each fixed opponent of `--measure-against`, on the same seeds every round; each round's line (also in
<out>/progress.csv) gives those results and the learner's share of wins in its training games against each
training opponent. <out>/progress.png draws the win rates against env steps. Everything needed to go on is
saved after each round (<out>/model.zip, <out>/pool.pt, the CSV): `--resume` picks up after the last round.
`--evaluate GAMES` plays the saved model and, beside it, the policy the run started from (the same `--seed`)
on GAMES fresh games against each measured opponent (seeds 20000 and up, none of the rounds' measurements).
"""

import argparse
import csv
import pathlib
import random

import gymnasium as gym
import matplotlib
import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.logger import configure
from stable_baselines3.common.vec_env import DummyVecEnv

import sc2env  # noqa: F401  (registers "sc2env/DuelMarines-v0")
from sc2env.baselines.sb3_policy import FullyConvPolicy, fully_conv_kwargs
from sc2env.env import EnvConfig
from sc2env.env.flat_mask_space import FlatMaskMultiDiscrete

matplotlib.use("Agg")
from matplotlib import pyplot as plt

parser = argparse.ArgumentParser()
parser.add_argument("--map", default="DuelMarines")
parser.add_argument("--rounds", type=int, default=12, help="training rounds (in all, with --resume)")
parser.add_argument("--steps-per-round", type=int, default=9216, help="env steps of training per round")
parser.add_argument("--n-steps", type=int, default=512, help="PPO's rollout: steps per game per update")
parser.add_argument("--pool-from", type=int, default=3, help="the first round whose snapshot joins the pool")
parser.add_argument("--pool", type=int, default=6, help="the most snapshots kept (the oldest leave)")
parser.add_argument(
    "--train-against",
    default="pool,pool,pool",
    help="the training games' opponents, one game each: pool, or an opponent= string (computer:easy, scripted)",
)
parser.add_argument(
    "--measure-against",
    default="computer:very_easy,computer:easy,scripted",
    help="the fixed opponents measured after each round (opponent= strings)",
)
parser.add_argument("--eval-games", type=int, default=10, help="games against each fixed opponent per round")
parser.add_argument(
    "--functions",
    default="no_op,select_army,select_point,select_rect,move_camera,Move_screen,Move_minimap,Attack_screen,"
    "Attack_minimap,Stop_quick,HoldPosition_quick",
    help="the functions both players act with (comma-separated names)",
)
parser.add_argument("--shaping", type=float, default=0.5, help="weight of (kills - losses) / army size")
parser.add_argument("--out", default="runs/self_play", help="progress.csv, progress.png, model.zip, pool.pt")
parser.add_argument("--resume", action="store_true", help="go on from the last round saved in --out")
parser.add_argument(
    "--evaluate",
    type=int,
    metavar="GAMES",
    help="no training: play the model saved in --out and the untrained policy of --seed, GAMES fresh games "
    "each against every --measure-against opponent, and print their win rates",
)
parser.add_argument("--seed", type=int, default=0)
args = parser.parse_args()
POOL = "pool"
training_opponents = args.train_against.split(",")
measured_opponents = args.measure_against.split(",")
if POOL in measured_opponents:
    parser.error("--measure-against: the pool changes every round; measure against fixed opponents")
torch.set_num_threads(1)  # small networks on a CPU: one thread, and the game processes get the other cores
out = pathlib.Path(args.out)
log_path, model_path, pool_path = out / "progress.csv", out / "model.zip", out / "pool.pt"
if args.evaluate is not None and not model_path.exists():
    parser.error(f"--evaluate: no {model_path} to measure (train first)")
out.mkdir(parents=True, exist_ok=True)
rng = random.Random(args.seed)

# 1. The env: the learner's options, which a callable opponent's env (slot 2) copies (docs/multiplayer.md).
env_kwargs = dict(
    engine="builtin",
    screen_size=16,
    minimap_size=16,
    step_mul=16,
    screen_layers=("player_relative",),
    minimap_layers=("player_relative",),
    functions=args.functions.split(","),
)
SEEN = ["feature_screen", "feature_minimap"]  # what the policy reads (the mask comes from action_masks())
ARMY = 9  # Marines a side on DuelMarines
MARINE_VALUE = 50  # score_details' killed_value_units counts a Marine's cost
ARMY_COUNT = 8  # obs["player"]: PySC2's player vector, army_count


class RandomPolicy:
    """The uniformly random player: any action its mask allows (the pool's first member)."""

    def __init__(self) -> None:
        self.space: FlatMaskMultiDiscrete | None = None  # the learner's action space, once its env is made

    def __call__(self, obs: dict) -> np.ndarray:
        assert self.space is not None
        return self.space.sample(obs["action_mask"])


class SnapshotPool:
    """The learner's past selves: the random policy and the latest frozen snapshots."""

    def __init__(self, size: int):
        self.random = RandomPolicy()
        self.snapshots: list = []
        self.size = size

    def add(self, policy, state: dict | None = None) -> None:
        """A frozen copy of `policy` (with `state`, its weights, if given) joins the pool."""
        frozen = type(policy)(**policy._get_constructor_parameters())  # a new policy of the same shape
        frozen.load_state_dict(copy_of(policy.state_dict() if state is None else state))
        frozen.set_training_mode(False)
        self.snapshots = [*self.snapshots, frozen][-self.size :]


class PoolOpponent:
    """The opponent of one `pool` game: a member of the pool, drawn anew at each episode's first observation."""

    def __init__(self, pool: SnapshotPool):
        self.pool = pool
        self.playing = None

    def __call__(self, obs: dict) -> np.ndarray:
        if obs["game_loop"][0] == 0 or self.playing is None:
            self.playing = rng.choice([self.pool.random, *self.pool.snapshots])
        if self.playing is self.pool.random:
            return self.pool.random(obs)
        with torch.no_grad():
            action, _ = self.playing.predict(
                {key: obs[key] for key in SEEN}, action_masks=obs["action_mask"].astype(bool)
            )
        return action


def copy_of(state: dict) -> dict:
    return {key: value.detach().clone() for key, value in state.items()}


class Shaped(gym.Wrapper):
    """Adds `--shaping` x (enemy Marines killed - own Marines lost) / 9 to each step's outcome reward, and keeps
    the outcome of every finished training game (its opponent's results, for the log)."""

    def __init__(self, env: gym.Env, results: list[int]):
        super().__init__(env)
        self.results = results

    def reset(self, **kwargs):
        obs, info = self.env.reset(**kwargs)
        self._killed, self._army = 0, int(obs["player"][ARMY_COUNT])
        return obs, info

    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(action)
        killed = info["score_details"]["killed_value_units"] // MARINE_VALUE
        army = int(obs["player"][ARMY_COUNT])
        reward += args.shaping * ((killed - self._killed) - (self._army - army)) / ARMY
        self._killed, self._army = killed, army
        if terminated or truncated:
            self.results.append(info["outcome"])
        return obs, reward, terminated, truncated, info


def learner_env(opponent, results: list[int]) -> gym.Env:
    env = gym.make(f"sc2env/{args.map}-v0", opponent=opponent, **env_kwargs)
    return gym.wrappers.FilterObservation(Shaped(env, results), SEEN)


pool = SnapshotPool(args.pool)
trained_against: dict[str, list[int]] = {name: [] for name in training_opponents}  # outcomes, per round


def training_env(name: str):
    return lambda: learner_env(PoolOpponent(pool) if name == POOL else name, trained_against[name])


vec_env = DummyVecEnv([training_env(name) for name in training_opponents])
vec_env.seed(args.seed)
pool.random.space = FlatMaskMultiDiscrete(vec_env.action_space.nvec)
pool.random.space.seed(args.seed)

FIELDS = [
    "round",
    "timesteps",
    *(f"{kind}_vs_{name}" for name in measured_opponents for kind in ("win_rate", "won_lost_tied")),
    *(f"train_win_rate_vs_{name}" for name in trained_against),
    "pool",
]


def new_model() -> MaskablePPO:
    """The learner as the run starts: its weights are drawn from --seed, so the untrained policy can be rebuilt."""
    return MaskablePPO(
        FullyConvPolicy,
        vec_env,
        n_steps=args.n_steps,
        batch_size=min(256, 2 * args.n_steps),
        n_epochs=4,
        learning_rate=3e-4,
        gamma=0.99,
        ent_coef=0.003,
        seed=args.seed,
        policy_kwargs=fully_conv_kwargs(EnvConfig(**env_kwargs)),
    )


rows: list[dict] = []
if args.resume:
    if not model_path.exists():
        parser.error(f"--resume: no {model_path} to go on from (run without --resume first)")
    model = MaskablePPO.load(model_path, env=vec_env, seed=args.seed)
    for state in torch.load(pool_path, weights_only=True):
        pool.add(model.policy, state)
    with open(log_path, newline="") as log_file:
        reader = csv.DictReader(log_file)
        rows = list(reader)
    if reader.fieldnames != FIELDS:
        parser.error(
            f"--resume: {log_path} has the columns {reader.fieldnames}; these opponents make {FIELDS}"
        )
else:
    model = new_model()
model.set_logger(configure(str(out / "sb3"), ["csv"]))


# 2. The fixed opponents the win rates are measured against, on the same seeds every round.
def win_rate(player: MaskablePPO, opponent: str, games: int, first_seed: int = 10_000) -> tuple[float, str]:
    # The policy as it plays (its actions sampled): the argmax of a distribution over 256 points that is
    # still near uniform picks one arbitrary point, and its games stay the same until some logit overtakes.
    training_rng = torch.get_rng_state()
    torch.manual_seed(10_000)
    env = learner_env(opponent, [])
    won = lost = tied = 0
    try:
        for game in range(games):
            obs, _ = env.reset(seed=first_seed + game)
            while True:
                action, _ = player.predict(obs, action_masks=env.unwrapped.action_masks())
                obs, _, terminated, truncated, info = env.step(action)
                if terminated or truncated:
                    break
            won, lost, tied = (
                won + (info["outcome"] > 0),
                lost + (info["outcome"] < 0),
                tied + (info["outcome"] == 0),
            )
    finally:
        env.close()
        torch.set_rng_state(training_rng)
    return won / games, f"{won}-{lost}-{tied}"


def share_won(results: list[int]) -> str:
    return f"{sum(r > 0 for r in results) / len(results):.3f}" if results else ""


def record(round_number: int) -> None:
    row: dict = dict(round=round_number, timesteps=model.num_timesteps, pool=len(pool.snapshots))
    measured = []
    for name in measured_opponents:
        rate, won_lost_tied = win_rate(model, name, args.eval_games)
        row[f"win_rate_vs_{name}"], row[f"won_lost_tied_vs_{name}"] = f"{rate:.3f}", won_lost_tied
        measured.append(f"vs {name} {rate:.0%} ({won_lost_tied})")
    trained = []
    for name, results in trained_against.items():
        row[f"train_win_rate_vs_{name}"] = share_won(results)
        trained.append(f"{share_won(results) or '-'} vs {name}")
    rows.append(row)
    print(
        f"round {round_number}: {model.num_timesteps:>7} steps, {', '.join(measured)}; training games won: "
        f"{', '.join(trained)} (the pool: {len(pool.snapshots)} snapshots and the random policy)",
        flush=True,
    )


def evaluate(games: int) -> None:
    """The saved model against the untrained policy of --seed, on the same fresh games."""
    players = {"untrained": new_model(), "trained": MaskablePPO.load(model_path, env=vec_env)}
    print(f"{model_path} ({players['trained'].num_timesteps} steps), {games} games each, seeds {20_000}+:")
    for name in measured_opponents:
        results = [
            f"{label} {rate:.0%} ({record})"
            for label, player in players.items()
            for rate, record in [win_rate(player, name, games, 20_000)]
        ]
        print(f"  vs {name}: {', '.join(results)}", flush=True)


def save() -> None:
    """What --resume needs, written after each round (the CSV last: it says which round is complete)."""
    model.save(model_path)
    torch.save([copy_of(snapshot.state_dict()) for snapshot in pool.snapshots], pool_path)
    with open(log_path, "w", newline="") as log_file:
        writer = csv.DictWriter(log_file, FIELDS)
        writer.writeheader()
        writer.writerows(rows)
    steps = [int(row["timesteps"]) for row in rows]
    figure, axes = plt.subplots(figsize=(6.4, 3.6))
    curves = [(f"win_rate_vs_{name}", f"vs {name} (measured)", "o-") for name in measured_opponents]
    curves += [
        (f"train_win_rate_vs_{name}", f"vs {name} (its training games)", ":") for name in trained_against
    ]
    for field, label, style in curves:
        at = [(step, 100 * float(row[field])) for step, row in zip(steps, rows) if row[field] != ""]
        axes.plot([x for x, _ in at], [y for _, y in at], style, label=label)
    axes.set(xlabel="env steps (learner)", ylabel="games won (%)", ylim=(-3, 103))
    axes.set_title(f"Self-play on {args.map}: games won by the learner", fontsize=10)
    axes.grid(alpha=0.3)
    axes.legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(out / "progress.png", dpi=100)
    plt.close(figure)


# 3. Rounds: train, add the snapshot to the pool, measure against the fixed opponents, save.
try:
    if args.evaluate is not None:
        evaluate(args.evaluate)
        raise SystemExit
    if not rows:
        record(0)
        save()
    for round_number in range(int(rows[-1]["round"]) + 1, args.rounds + 1):
        for results in trained_against.values():
            results.clear()
        model.learn(total_timesteps=args.steps_per_round, reset_num_timesteps=False)
        if round_number >= args.pool_from:
            pool.add(model.policy)
        record(round_number)
        save()
finally:
    vec_env.close()
print(f"saved {model_path}, {log_path} and {out / 'progress.png'}")
