"""What an env of one EnvConfig observes and acts with: its interface format, action mode and observation."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING

from sc2env.env.action_mode import ActionMode
from sc2env.env.feature_mode import FeatureActions
from sc2env.env.observation_packer import ObservationPacker
from sc2env.env.raw_mode import RawActions
from sc2env.interface import ActionSpec, InterfaceFormat, RawActionSpace

if TYPE_CHECKING:
    from sc2env.env.config import EnvConfig

ACTION_MODES: dict[str, Callable[[EnvConfig, ActionSpec], ActionMode]] = {
    "features": lambda config, spec: FeatureActions(spec),
    "raw": lambda config, spec: RawActions(
        RawActionSpace(config.max_units, config.raw_resolution), config.hide_specific_actions
    ),
}
"""The action layouts by the name `actions=` takes."""


@dataclasses.dataclass(frozen=True)
class EnvLayout:
    """An env's (or a replay watcher's) observation and actions under one config.

    interface_format: what the game is asked to send. action_spec: the feature-layer function layout (the
    decoder's masks; the action space itself with actions="features"). action_mode: the action space, its
    masks and encoding (its own per env: it keeps the latest observation's masks). packer: the observation
    space and the packing of each decoded observation into it.
    """

    interface_format: InterfaceFormat
    action_spec: ActionSpec
    action_mode: ActionMode
    packer: ObservationPacker

    @classmethod
    def of(cls, config: EnvConfig, render_mode: str | None) -> EnvLayout:
        if render_mode == "human":  # before any game starts, not at the first frame
            from sc2env.viewer.window import require_display

            require_display()
        if render_mode is not None:
            from sc2env.viewer.renderer import check_view

            check_view(render_mode, config.render_view)
        fmt = config.interface_format()
        # The viewer draws units from raw data; asking for the camera position turns raw data on.
        fmt = dataclasses.replace(fmt, use_camera_position=True) if render_mode else fmt
        spec = config.action_spec()
        mode = ACTION_MODES[config.actions](config, spec)
        packer = ObservationPacker(
            fmt,
            config.layer_selection(),
            max_units=config.max_units,
            mask_size=mode.mask_size,
            camera_position=config.use_camera_position,
        )
        return cls(fmt, spec, mode, packer)
