"""FullyConvPolicy: a small fully convolutional policy for MaskablePPO (sb3-contrib) on sc2env's action.

    from sb3_contrib import MaskablePPO
    from sc2env.baselines.sb3_policy import FullyConvPolicy, fully_conv_kwargs

    model = MaskablePPO(FullyConvPolicy, vec_env, policy_kwargs=fully_conv_kwargs(config))

SB3's default `MultiInputPolicy` flattens the feature layers into dense layers and gives the screen point a
flat W·H-way head: 3.4 M parameters on MoveToBeacon at 64×64, slow to run and slow to learn, since every
pixel's "click here" is learned apart. This policy reads the feature layers with the SC2LE FullyConv
tower (`sc2env.baselines.ppo.Tower`: categorical layers embedded, numeric ones log-scaled, 16 5×5 and 32
3×3 convolutions), and gives every point argument whose grid is the tower's (screen and screen2; the
minimap when its tower is there and of the screen's size) one logit per pixel from a 1×1 convolution: the
same few weights everywhere. The function id, the other arguments and the value read a small summary of
the max-pooled state.

Needs the `train` extra (PyTorch and sb3-contrib). The feature-layer action only (`actions="features"`);
compact or full-valued layers alike.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import torch
from sb3_contrib.common.maskable.policies import MaskableMultiInputActorCriticPolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

from sc2env.baselines.ppo import Tower
from sc2env.interface import MINIMAP_LAYERS, SCREEN_LAYERS, Layer

SUMMARY_UNITS = 64
"""Width of the summary the function id, the non-point arguments and the value read."""
SUMMARY_CHANNELS = 16
"""Channels of the state the summary reads."""
SUMMARY_POOL = 8
"""The state is max-pooled to at most this many pixels a side before the summary's dense layer."""
VALUE_UNITS = 64
FEATURE_ARGUMENTS = 14
"""Components of the feature-layer action: function, screen, minimap, screen2 and ten more."""


def _layers(names: Sequence[str] | None, table: Sequence[Layer], channels: int, key: str) -> list[Layer]:
    by_name = {layer.name: layer for layer in table}
    if names is None:
        if channels != len(table):
            raise ValueError(
                f"obs[{key!r}] has {channels} layers, not all {len(table)}: name them, with "
                "policy_kwargs=fully_conv_kwargs(env.unwrapped.config) (or features_extractor_kwargs="
                f"dict({key.replace('feature_', '')}_layers=[...]))"
            )
        return list(table)
    unknown = [name for name in names if name not in by_name]
    if unknown:
        raise ValueError(f"unknown {key} layers {unknown}; the layers are {sorted(by_name)}")
    if len(names) != channels:
        raise ValueError(f"{len(names)} {key} layer names for obs[{key!r}]'s {channels} layers")
    return [by_name[name] for name in names]


def _box(space: gym.spaces.Dict, key: str) -> gym.spaces.Box:
    entry = space.spaces.get(key)
    if not isinstance(entry, gym.spaces.Box) or len(entry.shape) != 3:
        raise ValueError(
            f"FullyConvExtractor reads obs[{key!r}], a (layers, height, width) Box; this space has {entry}"
        )
    return entry


class FullyConvExtractor(BaseFeaturesExtractor):
    """Feature layers to (point logits per pixel of each spatial point argument ‖ a summary vector).

    screen_layers, minimap_layers: the names of the observation's layers, in order (None: all of them, which
    is what the observation holds unless the env was made with `screen_layers=` / `minimap_layers=`).
    """

    def __init__(
        self,
        observation_space: gym.spaces.Dict,
        screen_layers: Sequence[str] | None = None,
        minimap_layers: Sequence[str] | None = None,
    ):
        channels, height, width = _box(observation_space, "feature_screen").shape
        screen = _layers(screen_layers, SCREEN_LAYERS, channels, "feature_screen")
        minimap: list[Layer] = []
        if "feature_minimap" in observation_space.spaces:
            minimap_shape = _box(observation_space, "feature_minimap").shape
            if minimap_shape[0] > 0:
                minimap = _layers(minimap_layers, MINIMAP_LAYERS, minimap_shape[0], "feature_minimap")
            if minimap and tuple(minimap_shape[1:]) != (height, width):
                raise ValueError(
                    f"FullyConvExtractor stacks screen and minimap: the minimap is {tuple(minimap_shape[1:])}, "
                    f"the screen {(height, width)}; make them one size or observe no minimap layers "
                    "(minimap_layers=())"
                )
        self.spatial_points = 3 if minimap else 2  # screen, screen2 (and the minimap: a logit per pixel)
        self.grid = height * width
        super().__init__(observation_space, self.spatial_points * self.grid + SUMMARY_UNITS)
        self.screen = Tower(screen)
        self.minimap = Tower(minimap) if minimap else None
        state = 32 * (2 if minimap else 1)
        self.points = nn.Conv2d(state, self.spatial_points, 1)
        self.pool = math.ceil(max(height, width) / SUMMARY_POOL)
        side_h, side_w = math.ceil(height / self.pool), math.ceil(width / self.pool)
        # Narrowed to SUMMARY_CHANNELS by a 1×1 convolution first: the dense layer over the pooled state
        # of both towers was 262k weights, most of this policy.
        self.narrow = nn.Sequential(nn.Conv2d(state, SUMMARY_CHANNELS, 1), nn.ReLU())
        self.summary = nn.Sequential(
            nn.Flatten(), nn.Linear(SUMMARY_CHANNELS * side_h * side_w, SUMMARY_UNITS), nn.ReLU()
        )

    def forward(self, observations: dict[str, torch.Tensor]) -> torch.Tensor:
        state = self.screen(observations["feature_screen"])
        if self.minimap is not None:
            state = torch.cat([state, self.minimap(observations["feature_minimap"])], 1)
        narrow = self.narrow(state)
        pooled = nn.functional.max_pool2d(narrow, self.pool, ceil_mode=True) if self.pool > 1 else narrow
        return torch.cat([self.points(state).flatten(1), self.summary(pooled)], 1)


class SpatialActionHead(nn.Module):
    """The extractor's output to logits over the flat action layout (`ActionSpec`'s order): the per-pixel
    logits where their point components belong, dense layers over the summary for the rest."""

    def __init__(self, nvec: Sequence[int], grid: int, spatial_points: int):
        super().__init__()
        nvec = [int(n) for n in nvec]
        if len(nvec) != FEATURE_ARGUMENTS:
            raise ValueError(
                f"FullyConvPolicy plays the feature-layer action ({FEATURE_ARGUMENTS} components), not one "
                f"of {len(nvec)} (actions='raw' is not supported)"
            )
        spatial = [1, 3] if spatial_points == 2 else [1, 2, 3]
        if any(nvec[i] != grid for i in spatial):
            raise ValueError(
                f"the point components {[nvec[i] for i in spatial]} don't match the {grid}-pixel grid"
            )
        self.nvec = nvec
        self.spatial = spatial
        self.grid = grid
        self.dense = nn.ModuleDict(
            {str(i): nn.Linear(SUMMARY_UNITS, n) for i, n in enumerate(nvec) if i not in spatial}
        )

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        points, summary = (
            features[:, : len(self.spatial) * self.grid],
            features[:, len(self.spatial) * self.grid :],
        )
        parts = []
        for i in range(len(self.nvec)):
            if i in self.spatial:
                k = self.spatial.index(i)
                parts.append(points[:, k * self.grid : (k + 1) * self.grid])
            else:
                parts.append(self.dense[str(i)](summary))
        return torch.cat(parts, 1)


class ValueHead(nn.Module):
    """The value from the extractor's summary alone (its per-pixel logits are the policy's, not a state)."""

    def __init__(self, points: int):
        super().__init__()
        self.points = points
        self.layers = nn.Sequential(
            nn.Linear(SUMMARY_UNITS, VALUE_UNITS), nn.ReLU(), nn.Linear(VALUE_UNITS, 1)
        )

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        return self.layers(features[:, self.points :])


class FullyConvPolicy(MaskableMultiInputActorCriticPolicy):
    """MaskablePPO's multi-input policy with FullyConvExtractor, SpatialActionHead and ValueHead (no shared
    MLP between them), defaults a `policy_kwargs` entry overrides."""

    def __init__(self, observation_space, action_space, lr_schedule, **kwargs: Any):
        kwargs.setdefault("features_extractor_class", FullyConvExtractor)
        kwargs.setdefault("net_arch", dict(pi=[], vf=[]))
        kwargs.setdefault("normalize_images", False)  # the tower reads the layers' values themselves
        super().__init__(observation_space, action_space, lr_schedule, **kwargs)

    def _build(self, lr_schedule) -> None:
        super()._build(lr_schedule)
        extractor = self.pi_features_extractor
        if not isinstance(extractor, FullyConvExtractor):
            raise TypeError(
                "FullyConvPolicy's action head needs FullyConvExtractor as its features extractor"
            )
        if not isinstance(self.action_space, gym.spaces.MultiDiscrete):
            raise TypeError(f"FullyConvPolicy plays a MultiDiscrete action, not {self.action_space}")
        self.action_net = SpatialActionHead(
            self.action_space.nvec.tolist(), extractor.grid, extractor.spatial_points
        )
        # The optimizer was made over the replaced head's parameters: make it again (SB3 types the class as
        # the Optimizer base, whose constructor takes no lr).
        self.optimizer = self.optimizer_class(  # type: ignore[call-arg]
            self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs
        )


def fully_conv_kwargs(config) -> dict[str, Any]:
    """MaskablePPO's `policy_kwargs` for FullyConvPolicy on envs of `config` (an `EnvConfig`, such as
    `env.unwrapped.config`): the layer names the observation holds."""
    return dict(
        features_extractor_kwargs=dict(
            screen_layers=None if config.screen_layers is None else tuple(config.screen_layers),
            minimap_layers=None if config.minimap_layers is None else tuple(config.minimap_layers),
        )
    )
