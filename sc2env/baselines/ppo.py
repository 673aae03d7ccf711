"""Masked PPO with the SC2LE FullyConv policy on sc2env's vector env, in one file read top to bottom.

    pip install 'sc2env-rl[train]'      # PyTorch, TensorBoard, Matplotlib
    python -m sc2env.baselines.ppo --map MoveToBeacon --masks full --seed 1 --total-timesteps 500000
    python -m sc2env.baselines.ppo --resume runs/MoveToBeacon__full__s1 --total-timesteps 1000000
    python -m sc2env.baselines.plot runs --out plots

The policy is the FullyConv agent of the SC2LE paper (Vinyals et al. 2017, section 4.3). Screen and minimap
each go through their own tower (categorical layers embedded, numeric ones log-scaled, then 16 5×5 and
32 3×3 convolutions, same padding); the non-spatial inputs (the player's numbers, log-scaled, and which
functions are available) are broadcast over the map. The three together are the state. The point
arguments (screen, minimap, screen2) get one logit per pixel from a 1×1 convolution over the state; the
function id, the ten other arguments and the value come from a 256-unit layer over the flattened state.
Two departures, both options: the non-spatial inputs are projected to 32 channels before the broadcast
(the paper tiles the raw vector, 584 channels with every function), and the 256-unit layer reads the state
max-pooled to at most `--fc-pool` (8) pixels a side (`--fc-pool 0` is the paper's full state, a 25M-weight
layer at 32×32 that triples the time of an update on a CPU).

The action is sampled in the order the game reads it: the function id from its masked logits, then the
arguments that function takes, each from its value mask given that function
(`ActionSpec.conditional_mask`). Log-probabilities and entropies count only those components
(`ActionSpec.gated_sum`): an argument the chosen function ignores was no part of the decision.

`--masks` picks what the action distribution is masked with, for the ablation Gym-µRTS ran (Huang and
Ontañón 2020):

    none      nothing: any function and value may be drawn; the env plays an unavailable call as no_op
              (its default `invalid_action="noop"`) and the logs count how often that happened;
    function  the function id only, to the functions available now; arguments unmasked;
    full      function and argument masks, given the function, with the screen point limited to the
              function's target class (`screen_target_masks`: enemies to attack, minerals to gather, ...).

In every mode the policy sees which functions are available (an input, as in the paper), so the modes
differ in the distribution only.

A run lives in one directory: `config.json`, `checkpoint.pt` (model, optimizer, step counters, every random
generator, the reward scaler, the run's settings), `episodes.csv` (env step, wall time, score, length of each
finished episode), `updates.csv` (the losses of each update) and TensorBoard's event files. A run stopped by
SIGTERM or Ctrl-C finishes its update and checkpoints; `--resume DIR` goes on from the last checkpoint (its
games start new episodes: a game's state is not saved) and drops log rows written after it.

It is a package module rather than an example script so that tests and docs import it, `python -m` runs it
from any directory, and an installed sc2env has it.
"""

from __future__ import annotations

import argparse
import dataclasses
import enum
import itertools
import json
import math
import sys
import time
from collections import deque
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any, get_args, get_type_hints

import numpy as np
import torch
from torch import nn

from sc2env.baselines.runs import CHECKPOINT, RunLog, load_checkpoint, save_checkpoint, stop_on_signals
from sc2env.env import SC2VectorEnv
from sc2env.interface import MINIMAP_LAYERS, SCREEN_LAYERS, Layer
from sc2env.interface.spec import ActionSpec

CHECKPOINT_FORMAT = "sc2env-ppo/1"
STOPPED = 3  # the exit status of a run a signal stopped before its last step
PLAYER_FIELDS = 11  # obs["player"]
NONSPATIAL_CHANNELS = 32
HIDDEN_UNITS = 256
NEG = -1e9  # the logit of a masked value: finite, so that 0 × log p stays 0 in entropies


class MaskMode(str, enum.Enum):
    """What the action distribution is masked with (see the module docstring)."""

    NONE = "none"
    FUNCTION = "function"
    FULL = "full"


@dataclasses.dataclass(frozen=True)
class PPOConfig:
    """One run's settings: the command line's options (each with its help text), saved in config.json and in
    every checkpoint."""

    map: Annotated[str, "mini-game, or a mini-game definition file"] = "MoveToBeacon"
    masks: Annotated[MaskMode, "none | function | full: what the action distribution is masked with"] = (
        MaskMode.FULL
    )
    seed: Annotated[int, "seed of the network, the sampling and the games"] = 1
    total_timesteps: Annotated[int, "env steps to train for (all envs together)"] = 1_000_000
    num_envs: Annotated[int, "games played side by side"] = 4
    num_steps: Annotated[int, "steps per game in each rollout"] = 128
    screen_size: Annotated[int, "screen and minimap pixels a side (the paper: 64)"] = 16
    step_mul: Annotated[int, "game loops per env step"] = 8
    functions: Annotated[str, "comma-separated function names, or all (573)"] = "all"
    screen_layers: Annotated[str, "comma-separated screen layer names, or all (27)"] = "all"
    minimap_layers: Annotated[str, "comma-separated minimap layer names, or all (11)"] = "all"
    engine: Annotated[str, "builtin | sc2 | auto"] = "builtin"
    learning_rate: Annotated[float, "Adam's step size"] = 2.5e-4
    anneal_lr: Annotated[bool, "decay the step size linearly to 0 over the run"] = True
    gamma: Annotated[float, "discount"] = 0.99
    gae_lambda: Annotated[float, "GAE's lambda"] = 0.95
    num_minibatches: Annotated[int, "minibatches per epoch"] = 4
    update_epochs: Annotated[int, "passes over each rollout"] = 4
    clip_coef: Annotated[float, "PPO's ratio clip"] = 0.1
    clip_vloss: Annotated[bool, "clip the value loss too"] = True
    ent_coef: Annotated[float, "entropy bonus"] = 0.01
    vf_coef: Annotated[float, "value loss weight"] = 0.5
    max_grad_norm: Annotated[float, "gradient norm clip"] = 0.5
    target_kl: Annotated[float, "stop an update's epochs past this approximate KL (0: never)"] = 0.0
    norm_reward: Annotated[bool, "scale rewards by the running std of the discounted return"] = True
    fc_pool: Annotated[int, "the 256-unit layer reads the state max-pooled to this size (0: full state)"] = 8
    save_every: Annotated[int, "checkpoint every this many updates (and at the end)"] = 10
    tensorboard: Annotated[bool, "write TensorBoard events beside the CSV logs"] = True
    threads: Annotated[int, "torch threads (1 is fastest for these small networks on a CPU)"] = 1

    def __post_init__(self) -> None:
        try:
            object.__setattr__(self, "masks", MaskMode(self.masks))
        except ValueError:
            modes = ", ".join(mode.value for mode in MaskMode)
            raise ValueError(f"masks must be one of {modes}, not {self.masks!r}") from None
        self.layers()  # unknown layer names are refused here, before any game starts
        for name in ("total_timesteps", "num_envs", "num_steps", "screen_size", "step_mul", "threads"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, not {getattr(self, name)}")
        if self.batch_size % self.num_minibatches:
            raise ValueError(
                f"num_envs × num_steps ({self.batch_size}) must split into num_minibatches "
                f"({self.num_minibatches}) equal minibatches"
            )

    @property
    def batch_size(self) -> int:
        return self.num_envs * self.num_steps

    @property
    def minibatch_size(self) -> int:
        return self.batch_size // self.num_minibatches

    @property
    def num_updates(self) -> int:
        return math.ceil(self.total_timesteps / self.batch_size)

    def layers(self) -> tuple[list[Layer], list[Layer]]:
        """The screen and minimap layers the observation carries, in the env's order."""
        return _names(self.screen_layers, SCREEN_LAYERS), _names(self.minimap_layers, MINIMAP_LAYERS)

    def to_json(self) -> dict[str, Any]:
        return {**dataclasses.asdict(self), "masks": self.masks.value}


RESUMABLE = ("total_timesteps", "save_every", "tensorboard", "threads", "engine")
"""Settings a resumed run may change; the others define the run."""


def _names(given: str, table: Sequence[Layer]) -> list[Layer]:
    if given == "all":
        return list(table)
    names = [name.strip() for name in given.split(",") if name.strip()]
    by_name = {layer.name: layer for layer in table}
    unknown = [name for name in names if name not in by_name]
    if unknown or not names:
        raise ValueError(f"unknown layers {unknown or given!r}; known: {', '.join(by_name)}")
    return sorted((by_name[name] for name in names), key=lambda layer: layer.index)


def make_envs(config: PPOConfig) -> SC2VectorEnv:
    """sc2env's vector env for a run: same-step autoreset, so an ending step returns the next episode's start."""
    screen, minimap = config.layers()
    return SC2VectorEnv(
        config.num_envs,
        map_name=config.map,
        autoreset_mode="same_step",
        engine=config.engine,
        screen_size=config.screen_size,
        minimap_size=config.screen_size,
        step_mul=config.step_mul,
        screen_layers=[layer.name for layer in screen],
        minimap_layers=[layer.name for layer in minimap],
        functions=None if config.functions == "all" else config.functions.split(","),
        screen_target_masks=config.masks is MaskMode.FULL,
    )


# --- The policy ---------------------------------------------------------------------------------------


def _init(layer: nn.Module, std: float = math.sqrt(2)) -> nn.Module:
    """Orthogonal weights, zero bias: PPO's usual start (small `std` for policy heads, 1 for the value)."""
    nn.init.orthogonal_(layer.weight, std)  # type: ignore[arg-type]
    nn.init.zeros_(layer.bias)  # type: ignore[arg-type]
    return layer


class Tower(nn.Module):
    """Feature layers to 32 channels: categorical layers embedded (the paper's one-hot and 1×1 convolution,
    log2 of their values wide), numeric ones log-scaled, then 16 5×5 and 32 3×3 convolutions."""

    def __init__(self, layers: Sequence[Layer]):
        super().__init__()
        if not layers:
            raise ValueError("a tower needs at least one feature layer")
        # A two-valued layer enters as its 0/1 value: its one-hot through a 1×1 convolution is the same
        # function, and an embedding's backward pass is slow on a CPU (26 of them took a third of an update).
        self.embedded = [i for i, layer in enumerate(layers) if layer.categorical and layer.scale > 2]
        self.binary = [i for i, layer in enumerate(layers) if layer.categorical and layer.scale <= 2]
        self.numeric = [i for i, layer in enumerate(layers) if not layer.categorical]
        # Compact uint8 layers: no value reaches 256 (unit_type is re-indexed, counters saturate).
        sizes = [min(layers[i].scale, 256) for i in self.embedded]
        self.top = [n - 1 for n in sizes]  # a value past it (the real game's, a new type) takes the last row
        dims = [math.ceil(math.log2(n)) for n in sizes]
        self.embeddings = nn.ModuleList(nn.Embedding(n, d) for n, d in zip(sizes, dims))
        width = sum(dims) + len(self.binary) + len(self.numeric)
        self.convs = nn.Sequential(
            _init(nn.Conv2d(width, 16, 5, padding=2)),
            nn.ReLU(),
            _init(nn.Conv2d(16, 32, 3, padding=1)),
            nn.ReLU(),
        )

    def forward(self, layers: torch.Tensor) -> torch.Tensor:
        parts = [
            embed(layers[:, i].long().clamp(max=top)).permute(0, 3, 1, 2)
            for i, top, embed in zip(self.embedded, self.top, self.embeddings)
        ]
        if self.binary:
            parts.append(layers[:, self.binary].float())
        if self.numeric:
            parts.append(torch.log1p(layers[:, self.numeric].float()))
        return self.convs(torch.cat(parts, 1))


class FullyConv(nn.Module):
    """The SC2LE FullyConv agent: logits over the flat action layout (function ‖ screen ‖ minimap ‖ screen2 ‖
    the ten other arguments, as `ActionSpec` orders them) and a value."""

    def __init__(
        self, spec: ActionSpec, size: int, screen: Sequence[Layer], minimap: Sequence[Layer], fc_pool: int = 8
    ):
        super().__init__()
        if not spec.nvec[1] == spec.nvec[2] == size * size:
            raise ValueError(
                f"FullyConv stacks screen and minimap: both must be {size}×{size} (the action space has "
                f"{spec.nvec[1]} screen and {spec.nvec[2]} minimap points)"
            )
        functions = int(spec.nvec[0])
        self.screen = Tower(screen)
        self.minimap = Tower(minimap)
        self.nonspatial = nn.Sequential(
            _init(nn.Linear(PLAYER_FIELDS + functions, NONSPATIAL_CHANNELS)), nn.ReLU()
        )
        channels = 32 + 32 + NONSPATIAL_CHANNELS
        self.points = _init(nn.Conv2d(channels, 3, 1), 0.01)  # screen, minimap, screen2: a logit per pixel
        # Max-pooled by a whole kernel (adaptive pooling is several times slower on a CPU).
        self.pool = math.ceil(size / fc_pool) if fc_pool else 1
        side = math.ceil(size / self.pool)
        self.hidden = nn.Sequential(
            nn.Flatten(), _init(nn.Linear(channels * side * side, HIDDEN_UNITS)), nn.ReLU()
        )
        self.function = _init(nn.Linear(HIDDEN_UNITS, functions), 0.01)
        self.arguments = _init(nn.Linear(HIDDEN_UNITS, int(spec.nvec[4:].sum())), 0.01)
        self.value = _init(nn.Linear(HIDDEN_UNITS, 1), 1.0)

    def forward(
        self, screen: torch.Tensor, minimap: torch.Tensor, player: torch.Tensor, available: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """(batch, sum(nvec)) logits and (batch,) values from uint8 layers, int player rows and the bool
        function mask of the observation."""
        flat = torch.cat([torch.log1p(player.float().clamp(min=0)), available.float()], 1)
        broadcast = self.nonspatial(flat)[:, :, None, None].expand(-1, -1, *screen.shape[2:])
        state = torch.cat([self.screen(screen), self.minimap(minimap), broadcast], 1)
        pooled = nn.functional.max_pool2d(state, self.pool, ceil_mode=True) if self.pool > 1 else state
        hidden = self.hidden(pooled)
        logits = torch.cat([self.function(hidden), self.points(state).flatten(1), self.arguments(hidden)], 1)
        return logits, self.value(hidden).squeeze(1)


def initial_agent(config: PPOConfig, spec: ActionSpec) -> FullyConv:
    """The policy a run of `config` starts from: its weights drawn from the run's seed alone (the caller's
    torch random state is left as it was)."""
    screen, minimap = config.layers()
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(config.seed)
        return FullyConv(spec, config.screen_size, screen, minimap, config.fc_pool)


# --- Masked, function-conditioned action distribution -------------------------------------------------


def component_log_probs(logits: torch.Tensor, mask: torch.Tensor, spec: ActionSpec) -> list[torch.Tensor]:
    """Each component's log-probabilities, (batch, nvec[i]), with masked values at ~0 probability."""
    masked = logits.masked_fill(~mask, NEG)
    bounds = spec.offsets.tolist()
    return [torch.log_softmax(masked[:, a:b], 1) for a, b in itertools.pairwise(bounds)]


def evaluate(
    logits: torch.Tensor, mask: torch.Tensor, actions: torch.Tensor, spec: ActionSpec
) -> tuple[torch.Tensor, torch.Tensor]:
    """Log-probability and entropy of each row's call: over the function and the arguments it takes."""
    log_probs = component_log_probs(logits, mask, spec)
    chosen = torch.stack(
        [lp.gather(1, actions[:, i : i + 1]).squeeze(1) for i, lp in enumerate(log_probs)], 1
    )
    entropy = torch.stack([-(lp.exp() * lp).sum(1) for lp in log_probs], 1)
    return spec.gated_sum(chosen, actions[:, 0]), spec.gated_sum(entropy, actions[:, 0])


def _draw(logits: torch.Tensor, mask: np.ndarray, generator: torch.Generator | None) -> np.ndarray:
    """A value per row from its masked logits: sampled, or the most likely one when `generator` is None."""
    masked = logits.masked_fill(~torch.from_numpy(mask), NEG)
    if generator is None:
        return masked.argmax(1).numpy()
    return torch.multinomial(torch.softmax(masked, 1), 1, generator=generator).squeeze(1).numpy()


def sample_actions(
    logits: torch.Tensor,
    observed: np.ndarray,
    mode: MaskMode,
    spec: ActionSpec,
    generator: torch.Generator | None,
    target_masks: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """(batch, 14) action vectors and the (batch, sum(nvec)) masks they were drawn from: the function
    first, then its arguments given it. `observed` is the observation's bool action mask; without a
    `generator` each value is the most likely one (a greedy policy, for evaluation)."""
    functions = int(spec.nvec[0])
    mask = np.ones_like(observed)
    if mode is not MaskMode.NONE:
        mask[:, :functions] = observed[:, :functions]
    function = _draw(logits[:, :functions], mask[:, :functions], generator)
    if mode is MaskMode.FULL:
        mask = spec.conditional_mask(observed, function, target_masks)
    actions = np.zeros((len(function), len(spec.nvec)), np.int64)
    actions[:, 0] = function
    gate = spec.gate(function)
    bounds = spec.offsets.tolist()
    for i in range(1, len(spec.nvec)):
        if gate[:, i].any():  # arguments no row's function takes stay 0
            actions[:, i] = _draw(
                logits[:, bounds[i] : bounds[i + 1]], mask[:, bounds[i] : bounds[i + 1]], generator
            )
            actions[:, i] *= gate[:, i]
    return actions, mask


# --- Rollout storage and reward scaling --------------------------------------------------------------


class Rollout:
    """One rollout's tensors, (num_steps, num_envs, ...): what the update replays."""

    def __init__(self, config: PPOConfig, spec: ActionSpec, screen: int, minimap: int):
        t, n, size = config.num_steps, config.num_envs, config.screen_size
        self.screen = torch.zeros((t, n, screen, size, size), dtype=torch.uint8)
        self.minimap = torch.zeros((t, n, minimap, size, size), dtype=torch.uint8)
        self.player = torch.zeros((t, n, PLAYER_FIELDS), dtype=torch.int64)
        self.available = torch.zeros((t, n, int(spec.nvec[0])), dtype=torch.bool)
        self.masks = torch.zeros((t, n, spec.total), dtype=torch.bool)
        self.actions = torch.zeros((t, n, len(spec.nvec)), dtype=torch.int64)
        self.log_probs, self.rewards, self.dones, self.values = (torch.zeros((t, n)) for _ in range(4))

    def observe(self, t: int, obs: dict[str, np.ndarray], functions: int) -> tuple[torch.Tensor, ...]:
        """Copy step t's observation in (the vector env refills its arrays) and return the policy's inputs."""
        stored = (self.screen[t], self.minimap[t], self.player[t], self.available[t])
        for into, tensor in zip(stored, inputs(obs, functions)):
            into.copy_(tensor)
        return stored

    def flat(self, name: str) -> torch.Tensor:
        tensor = getattr(self, name)
        return tensor.reshape(-1, *tensor.shape[2:])


def inputs(obs: dict[str, np.ndarray], functions: int) -> tuple[torch.Tensor, ...]:
    """The policy's inputs from a batched observation."""
    return (
        torch.from_numpy(obs["feature_screen"]),
        torch.from_numpy(obs["feature_minimap"]),
        torch.from_numpy(obs["player"]),
        torch.from_numpy(obs["action_mask"][:, :functions] != 0),
    )


class ReturnScaler:
    """Divides rewards by the running std of the discounted return (Gymnasium's NormalizeReward): one scale
    for every map, from MoveToBeacon's 1 a beacon to CollectMineralsAndGas's thousands."""

    def __init__(self, num_envs: int, gamma: float):
        self.gamma = gamma
        self.returns = np.zeros(num_envs)
        self.mean, self.var, self.count = 0.0, 1.0, 1e-4

    def __call__(self, rewards: np.ndarray, dones: np.ndarray) -> np.ndarray:
        self.returns = self.returns * self.gamma + rewards
        batch_mean, batch_var, n = self.returns.mean(), self.returns.var(), len(self.returns)
        delta, total = batch_mean - self.mean, self.count + n
        self.var = (self.var * self.count + batch_var * n + delta**2 * self.count * n / total) / total
        self.mean, self.count = self.mean + delta * n / total, total
        self.returns[dones] = 0.0
        return rewards / math.sqrt(self.var + 1e-8)

    def state_dict(self) -> dict[str, Any]:
        # Plain floats: a checkpoint loads with torch.load(weights_only=True), which refuses numpy scalars.
        return {
            "returns": self.returns.tolist(),
            "mean": float(self.mean),
            "var": float(self.var),
            "count": float(self.count),
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.returns = np.array(state["returns"], float)
        self.mean, self.var, self.count = state["mean"], state["var"], state["count"]


# --- The trainer --------------------------------------------------------------------------------------


class PPOTrainer:
    """One run: its games, agent, optimizer, logs and checkpoint. `run()` trains to `total_timesteps`."""

    def __init__(self, config: PPOConfig, run_dir: str | Path, checkpoint: dict[str, Any] | None = None):
        self.config, self.run_dir = config, Path(run_dir)
        if checkpoint is None and (self.run_dir / CHECKPOINT).exists():
            raise FileExistsError(
                f"{self.run_dir} already holds a run: pass --resume {self.run_dir} to go on, or another --run-dir"
            )
        self.run_dir.mkdir(parents=True, exist_ok=True)
        torch.set_num_threads(config.threads)
        self.rng = np.random.default_rng(config.seed)  # minibatches and game seeds
        self.sampler = torch.Generator().manual_seed(config.seed)  # actions
        self.envs = make_envs(config)
        self.spec: ActionSpec = self.envs.action_spec
        self.agent = initial_agent(config, self.spec)
        self.optimizer = torch.optim.Adam(self.agent.parameters(), lr=config.learning_rate, eps=1e-5)
        screen, minimap = config.layers()
        self.rollout = Rollout(config, self.spec, len(screen), len(minimap))
        self.scaler = ReturnScaler(config.num_envs, config.gamma)
        self.global_step, self.update, self.wall_time, self.episodes = 0, 0, 0.0, 0
        # Tallies of the episodes under way: they start anew with every run (a game's state isn't saved).
        self._returns = np.zeros(config.num_envs)
        self._lengths = np.zeros(config.num_envs, int)
        self._invalid = np.zeros(config.num_envs, int)
        if checkpoint is not None:
            self.agent.load_state_dict(checkpoint["model"])
            self.optimizer.load_state_dict(checkpoint["optimizer"])
            self.scaler.load_state_dict(checkpoint["scaler"])
            torch.set_rng_state(checkpoint["rng"]["torch"])
            self.sampler.set_state(checkpoint["rng"]["sampler"])
            self.rng.bit_generator.state = checkpoint["rng"]["numpy"]
            for name in ("global_step", "update", "wall_time", "episodes"):
                setattr(self, name, checkpoint[name])
        (self.run_dir / "config.json").write_text(json.dumps(config.to_json(), indent=2) + "\n")
        self.log = RunLog(self.run_dir, self.global_step if checkpoint else None, config.tensorboard)

    @classmethod
    def resume(cls, run_dir: str | Path, **changes: Any) -> PPOTrainer:
        """The run in `run_dir`, restored from its checkpoint; `changes` may set the RESUMABLE settings."""
        checkpoint = load_checkpoint(Path(run_dir), CHECKPOINT_FORMAT)
        saved = checkpoint["config"]
        for name, value in changes.items():
            if name not in RESUMABLE and value != saved.get(name):
                raise ValueError(
                    f"--{name.replace('_', '-')} can't change when resuming (the run has {saved.get(name)!r}); "
                    f"a resumed run may change only {', '.join(RESUMABLE)}: start a new --run-dir instead"
                )
        return cls(PPOConfig(**{**saved, **changes}), run_dir, checkpoint)

    def __enter__(self) -> PPOTrainer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.envs.close()
        self.log.close()

    def save(self) -> Path:
        """Write the run's checkpoint: everything `resume` needs to go on as if never stopped."""
        checkpoint = {
            "format": CHECKPOINT_FORMAT,
            "config": self.config.to_json(),
            "global_step": self.global_step,
            "update": self.update,
            "wall_time": self.wall_time,
            "episodes": self.episodes,
            "model": self.agent.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            "scaler": self.scaler.state_dict(),
            "rng": {
                "torch": torch.get_rng_state(),
                "sampler": self.sampler.get_state(),
                "numpy": self.rng.bit_generator.state,
            },
        }
        return save_checkpoint(self.run_dir, checkpoint)

    def run(self) -> bool:
        """Collect rollouts and update until `total_timesteps` (or a stop signal); checkpoint at the end.
        True when the run has reached its steps, False when a signal stopped it first."""
        config = self.config
        if (
            self.global_step >= config.total_timesteps
        ):  # a finished run resumed: nothing to do, no game started
            print(f"{self.run_dir} has reached {self.global_step} of {config.total_timesteps} steps")
            return True
        obs, _ = self.envs.reset(seed=int(self.rng.integers(2**31 - config.num_envs)))
        done = np.zeros(config.num_envs, bool)
        scores: deque[float] = deque(maxlen=20)
        started = time.monotonic() - self.wall_time
        with stop_on_signals() as stop:
            while self.global_step < config.total_timesteps and not stop.requested:
                self.update += 1
                first_step, tick = self.global_step, time.monotonic()
                if config.anneal_lr:
                    fraction = max(0.0, 1.0 - (self.update - 1) / config.num_updates)
                    self.optimizer.param_groups[0]["lr"] = fraction * config.learning_rate
                obs, done, invalid = self._collect(obs, done, started, scores)
                stats = self._learn(obs, done)
                self.wall_time = time.monotonic() - started
                stats.update(
                    learning_rate=self.optimizer.param_groups[0]["lr"],
                    invalid_action_rate=invalid / config.batch_size,
                    steps_per_second=(self.global_step - first_step) / (time.monotonic() - tick),
                )
                self.log.update(self.global_step, self.wall_time, self.update, stats)
                mean = f"{np.mean(scores):.1f}" if scores else "-"
                print(
                    f"update {self.update}/{config.num_updates} step {self.global_step} "
                    f"score(last {len(scores)}) {mean} invalid {stats['invalid_action_rate']:.2f} "
                    f"sps {stats['steps_per_second']:.0f}",
                    flush=True,
                )
                if self.update % config.save_every == 0:
                    self.save()
            self.save()
        return self.global_step >= config.total_timesteps

    def _collect(
        self, obs: dict[str, np.ndarray], done: np.ndarray, started: float, scores: deque[float]
    ) -> tuple[dict[str, np.ndarray], np.ndarray, int]:
        """Play num_steps steps of every game into the rollout; returns the next observation, which games
        just ended, and how many actions the env played as no_op because they were unavailable."""
        config, r, functions = self.config, self.rollout, int(self.spec.nvec[0])
        invalid = 0
        for t in range(config.num_steps):
            policy_inputs = r.observe(t, obs, functions)
            r.dones[t] = torch.from_numpy(done.astype(np.float32))
            with torch.no_grad():
                logits, value = self.agent(*policy_inputs)
                actions, mask = sample_actions(
                    logits,
                    obs["action_mask"] != 0,
                    config.masks,
                    self.spec,
                    self.sampler,
                    obs.get("screen_target_masks"),
                )
                r.masks[t], r.actions[t] = torch.from_numpy(mask), torch.from_numpy(actions)
                r.log_probs[t] = evaluate(logits, r.masks[t], r.actions[t], self.spec)[0]
            r.values[t] = value
            obs, reward, terminated, truncated, info = self.envs.step(actions)
            self.global_step += config.num_envs
            done = terminated | truncated
            wrong = info["invalid_action"].astype(int)
            invalid += int(wrong.sum())
            self._returns += reward
            self._lengths += 1
            self._invalid += wrong
            for i in np.flatnonzero(done):
                scores.append(float(self._returns[i]))
                self.episodes += 1
                self.log.episode(
                    self.global_step, time.monotonic() - started, int(i), float(self._returns[i]),
                    int(self._lengths[i]), int(self._invalid[i]),
                )  # fmt: skip
                self._returns[i], self._lengths[i], self._invalid[i] = 0, 0, 0
            scaled = self.scaler(reward, done) if config.norm_reward else reward
            r.rewards[t] = torch.from_numpy(np.asarray(scaled, np.float32))
        return obs, done, invalid

    def _learn(self, obs: dict[str, np.ndarray], done: np.ndarray) -> dict[str, float]:
        """GAE over the rollout, then update_epochs of clipped PPO on shuffled minibatches."""
        config, r = self.config, self.rollout
        with torch.no_grad():
            next_value = self.agent(*inputs(obs, int(self.spec.nvec[0])))[1]
        next_done = torch.from_numpy(done.astype(np.float32))
        advantages = torch.zeros_like(r.rewards)
        last = torch.zeros(config.num_envs)
        for t in reversed(range(config.num_steps)):
            if t == config.num_steps - 1:
                following, value_after = 1.0 - next_done, next_value
            else:
                following, value_after = 1.0 - r.dones[t + 1], r.values[t + 1]
            delta = r.rewards[t] + config.gamma * value_after * following - r.values[t]
            last = delta + config.gamma * config.gae_lambda * following * last
            advantages[t] = last
        returns = (advantages + r.values).flatten()
        advantages, values, old_log_probs = advantages.flatten(), r.values.flatten(), r.log_probs.flatten()
        batch = [r.flat(name) for name in ("screen", "minimap", "player", "available", "masks", "actions")]
        clip_fractions, approx_kl = [], torch.zeros(())
        for _ in range(config.update_epochs):
            order = self.rng.permutation(config.batch_size)
            for start in range(0, config.batch_size, config.minibatch_size):
                index = torch.from_numpy(order[start : start + config.minibatch_size])
                screen, minimap, player, available, masks, actions = (tensor[index] for tensor in batch)
                logits, new_values = self.agent(screen, minimap, player, available)
                log_probs, entropy = evaluate(logits, masks, actions, self.spec)
                log_ratio = log_probs - old_log_probs[index]
                ratio = log_ratio.exp()
                with torch.no_grad():
                    approx_kl = ((ratio - 1) - log_ratio).mean()
                    clip_fractions.append(((ratio - 1.0).abs() > config.clip_coef).float().mean().item())
                adv = advantages[index]
                adv = (adv - adv.mean()) / (adv.std() + 1e-8)
                policy_loss = torch.max(
                    -adv * ratio, -adv * ratio.clamp(1 - config.clip_coef, 1 + config.clip_coef)
                ).mean()
                if config.clip_vloss:
                    clipped = values[index] + (new_values - values[index]).clamp(
                        -config.clip_coef, config.clip_coef
                    )
                    value_loss = (
                        0.5
                        * torch.max(
                            (new_values - returns[index]) ** 2, (clipped - returns[index]) ** 2
                        ).mean()
                    )
                else:
                    value_loss = 0.5 * ((new_values - returns[index]) ** 2).mean()
                loss = policy_loss - config.ent_coef * entropy.mean() + config.vf_coef * value_loss
                self.optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(self.agent.parameters(), config.max_grad_norm)
                self.optimizer.step()
            if config.target_kl and approx_kl > config.target_kl:
                break
        variance = returns.var()
        explained = float("nan") if variance == 0 else float(1 - (returns - values).var() / variance)
        return {
            "policy_loss": policy_loss.item(),
            "value_loss": value_loss.item(),
            "entropy": entropy.mean().item(),
            "approx_kl": approx_kl.item(),
            "clip_fraction": float(np.mean(clip_fractions)),
            "explained_variance": explained,
        }


# --- Command line -------------------------------------------------------------------------------------


def parser() -> argparse.ArgumentParser:
    """The command line: one option per PPOConfig field, plus --run-dir and --resume."""
    p = argparse.ArgumentParser(
        prog="python -m sc2env.baselines.ppo",
        description="Masked PPO with the SC2LE FullyConv policy on an sc2env mini-game.",
        argument_default=argparse.SUPPRESS,  # only what was given, so that --resume knows what changes
    )
    p.add_argument("--run-dir", help="where the run's files go (default: runs/<map>__<masks>__s<seed>)")
    p.add_argument("--resume", metavar="RUN_DIR", help="go on with the run in RUN_DIR from its checkpoint")
    hints = get_type_hints(PPOConfig, globals(), include_extras=True)
    for f in dataclasses.fields(PPOConfig):
        kind, help_text = get_args(hints[f.name])
        flag, text = f"--{f.name.replace('_', '-')}", f"{help_text} (default: {_shown(f.default)})"
        if kind is bool:
            p.add_argument(flag, action=argparse.BooleanOptionalAction, help=text)
        elif kind is MaskMode:
            p.add_argument(flag, choices=[m.value for m in MaskMode], help=text)
        else:
            p.add_argument(flag, type=kind, help=text)
    return p


def _shown(default: Any) -> str:
    return default.value if isinstance(default, enum.Enum) else str(default)


def main(argv: Sequence[str] | None = None) -> int:
    given = vars(parser().parse_args(argv))
    run_dir, resume = given.pop("run_dir", None), given.pop("resume", None)
    try:
        if resume is not None:
            if run_dir is not None and Path(run_dir) != Path(resume):
                raise ValueError("--resume names the run directory: leave out --run-dir")
            trainer = PPOTrainer.resume(resume, **given)
        else:
            config = PPOConfig(**given)
            run_dir = run_dir or f"runs/{Path(config.map).stem}__{config.masks.value}__s{config.seed}"
            trainer = PPOTrainer(config, run_dir)
    except (ValueError, FileExistsError, FileNotFoundError, ImportError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    with trainer:
        print(f"run {trainer.run_dir}: {trainer.config.to_json()}", flush=True)
        finished = trainer.run()
    print(f"checkpoint {trainer.run_dir / CHECKPOINT} at step {trainer.global_step}")
    if not finished:  # a signal: a queue of runs (examples/run_baselines.sh) stops here too
        print(f"stopped early: go on with --resume {trainer.run_dir}")
        return STOPPED
    return 0


if __name__ == "__main__":
    sys.exit(main())
