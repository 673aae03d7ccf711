"""The agent interface format: resolutions and options, the `InterfaceOptions` they imply, the echo check."""

from __future__ import annotations

import dataclasses
import math
import numbers
from collections.abc import Iterable
from typing import Literal, overload

import numpy as np
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env.errors import ProtocolError

Size = tuple[int, int]
"""A (width, height) in pixels."""
MAX_SIDE = 2048
"""The largest width or height taken: 27 int32 screen layers at 2048x2048 are already 450 MB an observation,
so a larger size is a typo (an extra zero), not a plan."""


def _size(value: int | Size | None, what: str) -> Size | None:
    """Normalise an int (square) or (width, height) to a (width, height) tuple of positive ints."""
    if value is None:
        return None
    given: object = (value, value) if _whole(value) else value
    # Not a string, though iterable: "64" would read as 6×4.
    pair = tuple(given) if isinstance(given, Iterable) and not isinstance(given, (str, bytes)) else ()
    if len(pair) != 2 or not all(map(_whole, pair)):
        raise ValueError(f"{what} must be an int or a (width, height) pair of ints, got {value!r}")
    width, height = (int(v) for v in pair)
    if width <= 0 or height <= 0:
        raise ValueError(f"{what} must be positive, got {width}×{height}")
    if max(width, height) > MAX_SIDE:
        raise ValueError(
            f"{what} {width}×{height} is too large: at most {MAX_SIDE} pixels a side (feature "
            "layers are usually 32-128)"
        )
    return width, height


class _PixelSize:
    """A size field of InterfaceFormat: given as an int (a square), a (width, height) pair or None, held as
    (width, height) or None (checked when set: `_size`)."""

    def __init__(self, default: int | Size | None):
        self._default = default

    def __set_name__(self, owner: type, name: str) -> None:
        self._field, self._name = name, f"_{name}"

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> int | Size | None: ...
    @overload
    def __get__(self, obj: object, owner: type | None = None) -> Size | None: ...
    def __get__(self, obj: object | None, owner: type | None = None) -> int | Size | None:
        if obj is None:  # the class's default, as dataclasses reads it
            return self._default
        return obj.__dict__[self._name]

    def __set__(self, obj: object, value: int | Size | None) -> None:
        object.__setattr__(obj, self._name, _size(value, self._field))  # frozen: set through object


def _whole(value) -> bool:
    """An integer (numpy's too) or a float without a fraction, such as a YAML config's 64.0; not a bool."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        return False
    return isinstance(value, numbers.Integral) or float(value).is_integer()


@dataclasses.dataclass(frozen=True)
class InterfaceFormat:
    """How an agent sees and acts: feature-layer and RGB resolutions, camera width and optional extras.

    Sizes are (width, height) in pixels; an int means a square. Arrays built from them are indexed [y, x].
    """

    screen_size: _PixelSize = _PixelSize(64)
    minimap_size: _PixelSize = _PixelSize(64)
    camera_width: float = 24.0
    """Width of the screen view in world units (PySC2's camera_width_world_units)."""
    crop_to_playable_area: bool = False
    allow_cheating_layers: bool = False
    rgb_screen_size: _PixelSize = _PixelSize(None)
    rgb_minimap_size: _PixelSize = _PixelSize(None)
    action_space: Literal["features", "rgb"] | None = None
    """Which pixel space spatial arguments live in; inferred when only one of features or RGB is on."""
    use_feature_units: bool = False
    use_raw_units: bool = False
    use_camera_position: bool = False
    use_unit_counts: bool = False
    """Count the player's own units by type (PySC2's `unit_counts`), from raw data."""
    show_cloaked: bool = False
    show_burrowed_shadows: bool = False
    show_placeholders: bool = False
    hide_specific_actions: bool = True
    """Offer and report general functions (Attack_screen) instead of specific ones (Attack_Attack_screen)."""
    max_selected_units: int = 64
    """Rows of the padded multi-select array, and the number of values of the select_unit_id argument."""
    max_cargo: int = 16
    """Rows of the padded cargo array, and the number of values of the unload_id argument."""
    screen_target_masks: bool = False
    """Compute per-target-class screen masks (where Build_*, Harvest_Gather_*, ... may be aimed)."""

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        features = self.screen_size is not None
        rgb = self.rgb_screen_size is not None
        if features != (self.minimap_size is not None):
            raise ValueError("set both screen_size and minimap_size, or neither")
        if rgb != (self.rgb_minimap_size is not None):
            raise ValueError("set both rgb_screen_size and rgb_minimap_size, or neither")
        if not (features or rgb):
            raise ValueError("an InterfaceFormat needs feature layers (screen_size) or RGB (rgb_screen_size)")
        if self.action_space is None:
            if features and rgb:
                raise ValueError(
                    "with both feature layers and RGB on, choose action_space='features' or 'rgb'"
                )
            set_(self, "action_space", "features" if features else "rgb")
        if self.action_space not in ("features", "rgb"):
            raise ValueError(f"action_space must be 'features' or 'rgb', got {self.action_space!r}")
        if (self.action_space == "features" and not features) or (self.action_space == "rgb" and not rgb):
            raise ValueError(f"action_space={self.action_space!r} needs that observation to be on")
        rgb_screen, rgb_minimap = self.rgb_screen_size, self.rgb_minimap_size
        if (
            rgb_screen is not None
            and rgb_minimap is not None
            and (rgb_screen[0] < rgb_minimap[0] or rgb_screen[1] < rgb_minimap[1])
        ):
            raise ValueError(
                f"the RGB screen {self.rgb_screen_size} can't be smaller than its minimap "
                f"{self.rgb_minimap_size}"
            )
        width = self.camera_width
        if isinstance(width, bool) or not isinstance(width, numbers.Real) or not 0 < width < math.inf:
            raise ValueError(f"camera_width must be a positive number of world units, not {width!r}")
        if self.max_selected_units < 1 or self.max_cargo < 1:
            raise ValueError("max_selected_units and max_cargo must be at least 1")
        if self.screen_target_masks and not features:
            raise ValueError("screen_target_masks are drawn from the feature layers: set screen_size too")
        if self.screen_target_masks and self.action_space != "features":
            raise ValueError(
                "screen_target_masks are in feature-screen pixels: they need action_space='features'"
            )

    @property
    def raw(self) -> bool:
        """Whether the game must send raw data (units, camera position)."""
        return (
            self.use_feature_units or self.use_raw_units or self.use_camera_position or self.use_unit_counts
        )

    @property
    def action_screen_size(self) -> Size:
        """(width, height) of the pixel space that screen arguments address."""
        size = self.screen_size if self.action_space == "features" else self.rgb_screen_size
        assert size is not None  # __post_init__: the action space's observation is on
        return size

    @property
    def action_minimap_size(self) -> Size:
        """(width, height) of the pixel space that minimap arguments address."""
        size = self.minimap_size if self.action_space == "features" else self.rgb_minimap_size
        assert size is not None  # __post_init__: the action space's observation is on
        return size

    def to_interface_options(self) -> sc_pb.InterfaceOptions:
        """The `InterfaceOptions` to send in `RequestJoinGame`."""
        options = sc_pb.InterfaceOptions(
            raw=self.raw,
            score=True,
            show_cloaked=self.show_cloaked,
            show_burrowed_shadows=self.show_burrowed_shadows,
            show_placeholders=self.show_placeholders,
            raw_affects_selection=True,
            raw_crop_to_playable_area=False,
        )
        if self.screen_size is not None and self.minimap_size is not None:
            layer = options.feature_layer
            layer.width = self.camera_width
            layer.resolution.x, layer.resolution.y = self.screen_size
            layer.minimap_resolution.x, layer.minimap_resolution.y = self.minimap_size
            layer.crop_to_playable_area = self.crop_to_playable_area
            layer.allow_cheating_layers = self.allow_cheating_layers
        if self.rgb_screen_size is not None and self.rgb_minimap_size is not None:
            options.render.width = (
                self.camera_width
            )  # without it an RGB-only game shows 24, whatever we assume
            options.render.resolution.x, options.render.resolution.y = self.rgb_screen_size
            options.render.minimap_resolution.x, options.render.minimap_resolution.y = self.rgb_minimap_size
        return options

    def check_game_info(self, game_info: sc_pb.ResponseGameInfo) -> None:
        """Raise `ProtocolError` when the game's echoed `InterfaceOptions` differ from this format."""
        echo = game_info.options
        problems = []

        def compare(what: str, ours: object, theirs: object) -> None:
            if ours != theirs:
                problems.append(f"{what}: asked for {_show(ours)}, the game uses {_show(theirs)}")

        layer = echo.feature_layer if echo.HasField("feature_layer") else None
        compare("feature layers", self.screen_size is not None, layer is not None)
        if layer is not None and self.screen_size is not None:
            compare("screen size", self.screen_size, (layer.resolution.x, layer.resolution.y))
            compare(
                "minimap size", self.minimap_size, (layer.minimap_resolution.x, layer.minimap_resolution.y)
            )
            # The proto's width is a float32: compare what the game could echo, not our float64.
            compare("camera width", float(np.float32(self.camera_width)), float(np.float32(layer.width)))
            compare("crop_to_playable_area", self.crop_to_playable_area, layer.crop_to_playable_area)
        render = echo.render if echo.HasField("render") else None
        compare("RGB", self.rgb_screen_size is not None, render is not None)
        if render is not None and self.rgb_screen_size is not None:
            compare("RGB screen size", self.rgb_screen_size, (render.resolution.x, render.resolution.y))
            if render.width:  # an echo without it (an older game) keeps the feature layers' width
                compare(
                    "RGB camera width", float(np.float32(self.camera_width)), float(np.float32(render.width))
                )
            compare(
                "RGB minimap size",
                self.rgb_minimap_size,
                (render.minimap_resolution.x, render.minimap_resolution.y),
            )
        if self.raw and not echo.raw:
            problems.append(
                "raw data: asked for it (feature units, raw units or camera position), the game has it off"
            )
        if problems:
            raise ProtocolError(
                "the game's interface options differ from the InterfaceFormat ("
                + "; ".join(problems)
                + "); join the game with InterfaceFormat.to_interface_options()"
            )


def _show(value: object) -> str:
    if isinstance(value, tuple):
        return "×".join(str(v) for v in value)
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)
