"""Multi-agent PPO on a SMAC scenario (default 3m) with sc2env.smac: one file, PyTorch on the CPU.

    pip install "sc2env-rl[train]"                      # PyTorch; matplotlib for --plot
    python examples/smac_ippo.py --map 3m --total-steps 300000 --run-dir runs/smac_ippo
    python examples/smac_ippo.py --run-dir runs/smac_ippo --resume      # go on from the last checkpoint
    python examples/smac_ippo.py --run-dir runs/smac_ippo --plot        # progress.csv -> learning_curve.png
    python examples/smac_ippo.py --run-dir runs/smac_ippo --evaluate --eval-episodes 100   # greedy win rate

Every agent acts with one shared policy network (parameter sharing): its input is the agent's own SMAC
observation and a one-hot of its index, so agents can still behave differently; the logits of actions SMAC
marks unavailable are masked out before sampling. The value function is centralised (MAPPO,
`--critic state`, the default): it sees SMAC's global state `get_state()` plus the agent one-hot, which is
allowed in training because only the policy is needed to act. `--critic local` gives independent PPO (IPPO),
a critic on each agent's observation. The team reward goes to every agent; GAE runs per agent; a dead
agent's only action is the no-op, so it adds nothing to the policy loss. SMAC ends an episode at its time
limit with `info["episode_limit"]`: that is a truncation, and the return is bootstrapped from the value of
the last state, not cut to zero.

Written in the manner of CleanRL: one script, the hyper-parameters as flags, nothing hidden. Outputs in
`--run-dir`: `progress.csv` (one row per update: env steps, wall time, training win rate and return,
losses, and the greedy evaluation's win rate every `--eval-every` steps), `checkpoint.pt` (model, optimiser,
counters and random states, written every `--checkpoint-every` steps and at the end; `--resume` goes on
from it and appends to the CSV) and, with `--plot` or at the end of training, `learning_curve.png`.

The evaluation plays `--eval-episodes` episodes on a separate game with the greedy policy (the most likely
available action), the number SMAC's papers report as the test win rate.

Measured on the 2-core development machine: see docs/smac.md ("A multi-agent PPO on 3m").
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import os
import pathlib
import random
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import torch
from torch import nn

from sc2env.smac import StarCraft2Env

CSV_FIELDS = [
    "global_step",
    "episodes",
    "wall_time",
    "train_win_rate",
    "train_return",
    "eval_win_rate",
    "eval_return",
    "policy_loss",
    "value_loss",
    "entropy",
    "approx_kl",
    "steps_per_second",
]


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--map", default="3m", help="a SMAC scenario the engine plays (`sc2env maps`)")
    parser.add_argument("--engine", default="builtin", help="builtin, sc2 or auto")
    parser.add_argument("--total-steps", type=int, default=300_000, help="env steps to train for (all envs)")
    parser.add_argument("--envs", type=int, default=4, help="games played side by side (one thread each)")
    parser.add_argument("--rollout", type=int, default=100, help="env steps per env between updates")
    parser.add_argument("--epochs", type=int, default=10, help="passes over each rollout")
    parser.add_argument("--minibatches", type=int, default=1)
    parser.add_argument("--lr", type=float, default=5e-4)
    parser.add_argument("--gamma", type=float, default=0.99)
    parser.add_argument("--gae-lambda", type=float, default=0.95)
    parser.add_argument("--clip", type=float, default=0.2, help="PPO's ratio clip")
    parser.add_argument("--ent-coef", type=float, default=0.01)
    parser.add_argument("--vf-coef", type=float, default=0.5)
    parser.add_argument("--max-grad-norm", type=float, default=10.0)
    parser.add_argument("--hidden", type=int, default=64, help="width of the two hidden layers")
    parser.add_argument("--critic", choices=["state", "local"], default="state", help="MAPPO or IPPO")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--run-dir", default="runs/smac_ippo")
    parser.add_argument("--checkpoint-every", type=int, default=20_000, help="env steps between saves")
    parser.add_argument("--eval-every", type=int, default=20_000, help="env steps between evaluations")
    parser.add_argument("--eval-episodes", type=int, default=32)
    parser.add_argument("--resume", action="store_true", help="go on from --run-dir's checkpoint.pt")
    parser.add_argument("--plot", action="store_true", help="only draw progress.csv as learning_curve.png")
    parser.add_argument(
        "--evaluate", action="store_true", help="only play --eval-episodes greedy episodes of the checkpoint"
    )
    return parser.parse_args(argv)


def layer(n_in: int, n_out: int, gain: float = float(np.sqrt(2))) -> nn.Linear:
    """A linear layer with PPO's usual orthogonal weights and zero biases."""
    linear = nn.Linear(n_in, n_out)
    nn.init.orthogonal_(linear.weight, gain)
    nn.init.zeros_(linear.bias)
    return linear


def mlp(n_in: int, hidden: int, n_out: int, out_gain: float) -> nn.Sequential:
    return nn.Sequential(
        layer(n_in, hidden), nn.Tanh(), layer(hidden, hidden), nn.Tanh(), layer(hidden, n_out, out_gain)
    )


class Agent(nn.Module):
    """The shared policy (observation + agent one-hot -> action logits) and the critic."""

    def __init__(self, obs_size: int, critic_size: int, n_agents: int, n_actions: int, hidden: int):
        super().__init__()
        self.eye = nn.Parameter(torch.eye(n_agents), requires_grad=False)
        self.actor = mlp(obs_size + n_agents, hidden, n_actions, out_gain=0.01)
        self.critic = mlp(critic_size + n_agents, hidden, 1, out_gain=1.0)

    def with_id(self, x: torch.Tensor) -> torch.Tensor:
        """x [..., n_agents, size] with each agent's one-hot appended."""
        eye = self.eye.expand(*x.shape[:-1], self.eye.shape[0])
        return torch.cat([x, eye], dim=-1)

    def distribution(self, obs: torch.Tensor, avail: torch.Tensor) -> torch.distributions.Categorical:
        logits = self.actor(self.with_id(obs))
        return torch.distributions.Categorical(logits=logits.masked_fill(avail == 0, -1e9))

    def value(self, critic_in: torch.Tensor) -> torch.Tensor:
        return self.critic(self.with_id(critic_in)).squeeze(-1)


@dataclasses.dataclass
class Counters:
    """What a checkpoint carries besides the networks."""

    global_step: int = 0
    episodes: int = 0
    wall_time: float = 0.0
    next_eval: int = 0
    next_checkpoint: int = 0


class Team:
    """`n` games of one scenario stepped side by side; each restarts when its episode ends."""

    def __init__(self, args: argparse.Namespace, n: int, seed: int):
        self.envs = [StarCraft2Env(map_name=args.map, engine=args.engine, seed=seed + i) for i in range(n)]
        # Over a socket (direct=False) each game is a process and the threads wait on them side by side; in
        # direct mode (the default) the games share this process and the threads take turns.
        self.pool = ThreadPoolExecutor(max_workers=n)
        self.local_critic = args.critic == "local"
        info = self.envs[0].get_env_info()
        self.n_agents, self.n_actions = info["n_agents"], info["n_actions"]
        self.obs_size = info["obs_shape"]
        self.critic_size = self.obs_size if self.local_critic else info["state_shape"]
        for env in self.envs:
            env.reset()

    def observe(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(obs [n, agents, obs], critic input [n, agents, size], avail [n, agents, actions])."""
        obs = np.stack([np.asarray(env.get_obs(), dtype=np.float32) for env in self.envs])
        if self.local_critic:
            critic_in = obs
        else:
            state = np.stack([np.asarray(env.get_state(), dtype=np.float32) for env in self.envs])
            critic_in = np.repeat(state[:, None], self.n_agents, axis=1)
        avail = np.stack([np.asarray(env.get_avail_actions(), dtype=np.float32) for env in self.envs])
        return obs, critic_in, avail

    def step(self, actions: np.ndarray) -> list[tuple[float, bool, dict]]:
        return list(self.pool.map(lambda pair: pair[0].step(pair[1]), zip(self.envs, actions)))

    def critic_input_of(self, i: int) -> np.ndarray:
        """Env i's critic input now (its last state before a reset)."""
        env = self.envs[i]
        if self.local_critic:
            return np.asarray(env.get_obs(), dtype=np.float32)
        return np.repeat(np.asarray(env.get_state(), dtype=np.float32)[None], self.n_agents, axis=0)

    def close(self) -> None:
        self.pool.shutdown()
        for env in self.envs:
            env.close()


def evaluate(agent: Agent, env: StarCraft2Env, episodes: int) -> tuple[float, float]:
    """(win rate, mean return) of the greedy policy over `episodes` episodes."""
    wins, total = 0, 0.0
    for _ in range(episodes):
        env.reset()
        terminated, info = False, {}
        while not terminated:
            obs = torch.as_tensor(np.asarray(env.get_obs(), dtype=np.float32))
            avail = torch.as_tensor(np.asarray(env.get_avail_actions(), dtype=np.float32))
            with torch.no_grad():
                actions = agent.distribution(obs, avail).probs.argmax(-1)
            reward, terminated, info = env.step(actions.numpy())
            total += reward
        wins += bool(info.get("battle_won"))
    return wins / episodes, total / episodes


def plot(run_dir: pathlib.Path, what: str) -> pathlib.Path:
    """Draw progress.csv's win rates and returns against env steps into learning_curve.png (`what`: the
    method and scenario, for the title)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with open(run_dir / "progress.csv", newline="") as file:
        rows = list(csv.DictReader(file))
    if not rows:
        raise ValueError(f"{run_dir / 'progress.csv'} has no rows yet: train first")
    steps = np.array([int(r["global_step"]) for r in rows])
    train = np.array([float(r["train_win_rate"] or "nan") for r in rows])
    evals = [(int(r["global_step"]), float(r["eval_win_rate"])) for r in rows if r["eval_win_rate"]]
    returns = np.array([float(r["train_return"] or "nan") for r in rows])
    minutes = float(rows[-1]["wall_time"]) / 60
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(7, 6), sharex=True)
    top.plot(steps, train, color="tab:blue", alpha=0.5, label="training episodes (sampled actions)")
    if evals:
        top.plot(*zip(*evals), "o-", color="tab:red", label="evaluation (greedy actions)")
    top.axhline(0.9, color="grey", linestyle=":", linewidth=1)
    top.set_ylabel("win rate")
    top.set_ylim(-0.02, 1.02)
    top.legend(loc="lower right")
    top.set_title(f"{what} with sc2env.smac ({steps[-1]:,} env steps, {minutes:.0f} min)")
    bottom.plot(steps, returns, color="tab:green")
    bottom.set_ylabel("episode return (training)")
    bottom.set_xlabel("env steps")
    fig.tight_layout()
    out = run_dir / "learning_curve.png"
    fig.savefig(out, dpi=100)
    plt.close(fig)
    return out


def describe(args: argparse.Namespace) -> str:
    return f"{'MAPPO' if args.critic == 'state' else 'IPPO'} on {args.map}"


def save(path: pathlib.Path, agent: Agent, optimizer: torch.optim.Optimizer, counters: Counters) -> None:
    """Write the checkpoint next to its place, then move it there: a killed run never leaves half a file."""
    state = {
        "agent": agent.state_dict(),
        "optimizer": optimizer.state_dict(),
        "counters": dataclasses.asdict(counters),
        "torch_rng": torch.get_rng_state(),
        "numpy_rng": np.random.get_state(),
        "python_rng": random.getstate(),
    }
    partial = path.with_suffix(".tmp")
    torch.save(state, partial)
    os.replace(partial, path)


def load(path: pathlib.Path, agent: Agent, optimizer: torch.optim.Optimizer) -> Counters:
    if not path.exists():
        raise FileNotFoundError(f"--resume: no checkpoint at {path}; train without --resume first")
    state = torch.load(path, weights_only=False)
    agent.load_state_dict(state["agent"])
    optimizer.load_state_dict(state["optimizer"])
    torch.set_rng_state(state["torch_rng"])
    np.random.set_state(state["numpy_rng"])
    random.setstate(state["python_rng"])
    return Counters(**state["counters"])


def gae(
    rewards: np.ndarray, dones: np.ndarray, values: np.ndarray, bootstrap: np.ndarray, last: np.ndarray, args
) -> np.ndarray:
    """Per-agent advantages [T, n, agents]. dones[t]: step t ended its episode; bootstrap[t]: the value
    after step t when that end was the time limit (else 0); last: the values after the rollout."""
    advantages = np.zeros_like(values)
    running = np.zeros_like(last)
    for t in reversed(range(len(rewards))):
        following = last if t == len(rewards) - 1 else values[t + 1]
        next_value = np.where(dones[t][:, None], bootstrap[t], following)
        delta = rewards[t][:, None] + args.gamma * next_value - values[t]
        running = delta + args.gamma * args.gae_lambda * (1.0 - dones[t][:, None]) * running
        advantages[t] = running
    return advantages


def train(args: argparse.Namespace) -> None:
    run_dir = pathlib.Path(args.run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    # Small networks train fastest on one thread; the games need the other cores.
    torch.set_num_threads(1)
    team = Team(args, args.envs, args.seed)
    eval_env = StarCraft2Env(map_name=args.map, engine=args.engine, seed=args.seed + 10_000)
    N, A = team.n_agents, team.n_actions
    agent = Agent(team.obs_size, team.critic_size, N, A, args.hidden)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.lr, eps=1e-5)
    checkpoint = run_dir / "checkpoint.pt"
    counters = load(checkpoint, agent, optimizer) if args.resume else Counters()
    csv_path = run_dir / "progress.csv"
    with open(csv_path, "a" if args.resume else "w", newline="") as file:
        if not args.resume:
            csv.DictWriter(file, CSV_FIELDS).writeheader()
    T, E = args.rollout, args.envs
    obs_buf = np.zeros((T, E, N, team.obs_size), np.float32)
    critic_buf = np.zeros((T, E, N, team.critic_size), np.float32)
    avail_buf = np.zeros((T, E, N, A), np.float32)
    action_buf = np.zeros((T, E, N), np.int64)
    logp_buf = np.zeros((T, E, N), np.float32)
    value_buf = np.zeros((T, E, N), np.float32)
    reward_buf = np.zeros((T, E), np.float32)
    done_buf = np.zeros((T, E), bool)
    boot_buf = np.zeros((T, E, N), np.float32)
    episode_returns = np.zeros(E)
    try:
        obs, critic_in, avail = team.observe()
        while counters.global_step < args.total_steps:
            started = time.perf_counter()
            wins, finished, returns = 0, 0, []
            for t in range(T):
                with torch.no_grad():
                    dist = agent.distribution(torch.as_tensor(obs), torch.as_tensor(avail))
                    actions = dist.sample()
                    values = agent.value(torch.as_tensor(critic_in))
                obs_buf[t], critic_buf[t], avail_buf[t] = obs, critic_in, avail
                action_buf[t], logp_buf[t] = actions.numpy(), dist.log_prob(actions).numpy()
                value_buf[t] = values.numpy()
                results = team.step(actions.numpy())
                boot_buf[t] = 0.0
                for i, (reward, terminated, info) in enumerate(results):
                    reward_buf[t, i], done_buf[t, i] = reward, terminated
                    episode_returns[i] += reward
                    if not terminated:
                        continue
                    if info.get("episode_limit"):
                        with torch.no_grad():
                            final = torch.as_tensor(team.critic_input_of(i))
                            boot_buf[t, i] = agent.value(final).numpy()
                    wins += bool(info.get("battle_won"))
                    finished += 1
                    returns.append(episode_returns[i])
                    episode_returns[i] = 0.0
                    team.envs[i].reset()
                obs, critic_in, avail = team.observe()
            counters.global_step += T * E
            counters.episodes += finished
            with torch.no_grad():
                last = agent.value(torch.as_tensor(critic_in)).numpy()
            advantages = gae(reward_buf, done_buf, value_buf, boot_buf, last, args)
            targets = advantages + value_buf
            losses = update(
                agent,
                optimizer,
                args,
                [obs_buf, critic_buf, avail_buf, action_buf, logp_buf, advantages, targets],
            )
            elapsed = time.perf_counter() - started
            counters.wall_time += elapsed
            row = {
                "global_step": counters.global_step,
                "episodes": counters.episodes,
                "wall_time": round(counters.wall_time, 1),
                "train_win_rate": round(wins / finished, 4) if finished else "",
                "train_return": round(float(np.mean(returns)), 4) if returns else "",
                "eval_win_rate": "",
                "eval_return": "",
                "steps_per_second": round(T * E / elapsed, 1),
                **{k: round(v, 5) for k, v in losses.items()},
            }
            if counters.global_step >= counters.next_eval or counters.global_step >= args.total_steps:
                t0 = time.perf_counter()
                win_rate, mean_return = evaluate(agent, eval_env, args.eval_episodes)
                counters.wall_time += time.perf_counter() - t0
                row.update(eval_win_rate=win_rate, eval_return=round(mean_return, 4))
                counters.next_eval = counters.global_step + args.eval_every
            with open(csv_path, "a", newline="") as file:
                csv.DictWriter(file, CSV_FIELDS).writerow(row)
            print(
                f"step {counters.global_step:>8,}  episodes {counters.episodes:>6,}  "
                f"win {row['train_win_rate']!s:>6}  eval {row['eval_win_rate']!s:>6}  "
                f"return {row['train_return']!s:>8}  {row['steps_per_second']} steps/s",
                flush=True,
            )
            if counters.global_step >= counters.next_checkpoint:
                counters.next_checkpoint = counters.global_step + args.checkpoint_every
                save(checkpoint, agent, optimizer, counters)
        save(checkpoint, agent, optimizer, counters)
    finally:
        team.close()
        eval_env.close()
    print(f"learning curve: {plot(run_dir, describe(args))}")


def update(agent: Agent, optimizer: torch.optim.Optimizer, args, buffers: list[np.ndarray]) -> dict:
    """PPO's clipped policy loss, value loss and entropy bonus over the rollout, flattened to samples."""
    obs, critic_in, avail, actions, old_logp, advantages, targets = (
        torch.as_tensor(b.reshape(-1, *b.shape[2:])) for b in buffers
    )
    n = obs.shape[0]
    size = max(1, n // args.minibatches)
    stats: dict[str, list[float]] = {k: [] for k in ("policy_loss", "value_loss", "entropy", "approx_kl")}
    for _ in range(args.epochs):
        for idx in torch.randperm(n).split(size):
            dist = agent.distribution(obs[idx], avail[idx])
            logp = dist.log_prob(actions[idx])
            ratio = torch.exp(logp - old_logp[idx])
            adv = advantages[idx]
            adv = (adv - adv.mean()) / (adv.std() + 1e-8)
            policy_loss = -torch.min(ratio * adv, ratio.clamp(1 - args.clip, 1 + args.clip) * adv).mean()
            value_loss = 0.5 * (agent.value(critic_in[idx]) - targets[idx]).pow(2).mean()
            entropy = dist.entropy().mean()
            loss = policy_loss + args.vf_coef * value_loss - args.ent_coef * entropy
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
            optimizer.step()
            stats["policy_loss"].append(policy_loss.item())
            stats["value_loss"].append(value_loss.item())
            stats["entropy"].append(entropy.item())
            stats["approx_kl"].append(((ratio - 1) - (logp - old_logp[idx])).mean().item())
    return {k: float(np.mean(v)) for k, v in stats.items()}


def evaluate_checkpoint(args: argparse.Namespace) -> float:
    """The greedy win rate of --run-dir's checkpoint over --eval-episodes episodes (printed and returned)."""
    torch.set_num_threads(1)
    env = StarCraft2Env(map_name=args.map, engine=args.engine, seed=args.seed + 20_000)
    try:
        info = env.get_env_info()
        critic_size = info["obs_shape"] if args.critic == "local" else info["state_shape"]
        agent = Agent(info["obs_shape"], critic_size, info["n_agents"], info["n_actions"], args.hidden)
        counters = load(
            pathlib.Path(args.run_dir) / "checkpoint.pt", agent, torch.optim.Adam(agent.parameters())
        )
        win_rate, mean_return = evaluate(agent, env, args.eval_episodes)
    finally:
        env.close()
    print(
        f"{args.map}: greedy win rate {win_rate:.1%} over {args.eval_episodes} episodes (mean return "
        f"{mean_return:.2f}) after {counters.global_step:,} env steps"
    )
    return win_rate


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    if args.plot:
        print(f"learning curve: {plot(pathlib.Path(args.run_dir), describe(args))}")
    elif args.evaluate:
        evaluate_checkpoint(args)
    else:
        train(args)


if __name__ == "__main__":
    main()
