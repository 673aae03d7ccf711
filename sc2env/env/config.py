"""EnvConfig: every knob of an sc2env environment, and the game and interface settings it implies."""

from __future__ import annotations

import dataclasses
import difflib
import os
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from sc2env.env.compact_layers import LayerSelection
from sc2env.env.layout import ACTION_MODES
from sc2env.env.opponents import Computer, check_opponent, parse_opponent
from sc2env.game import Bot, MatchConfig
from sc2env.game.map_races import slot_race
from sc2env.game.maps import definition_map, is_definition_path
from sc2env.game.match_config import require_count, require_seed
from sc2env.interface import FUNCTIONS, MINIMAP_LAYERS, SCREEN_LAYERS, ActionSpec, Function, InterfaceFormat
from sc2env.launch import LaunchConfig

INVALID_ACTION_POLICIES = ("noop", "raise")
CRASH_POLICIES = ("raise", "truncate")
TIME_LIMIT_ENDS = ("terminated", "truncated")
RENDER_VIEWS = ("viewer", "game")
"""What render() draws: the whole viewer (the dashboard), or the game's view alone at render_size."""
_SWITCHES = (
    "compact_layers",
    "use_feature_units",
    "use_raw_units",
    "screen_target_masks",
    "hide_specific_actions",
    "crop_to_playable_area",
    "realtime",
    "disable_fog",
    "spin_wait",
    "allow_cheating_layers",
    "show_cloaked",
    "show_burrowed_shadows",
    "show_placeholders",
    "use_camera_position",
    "use_unit_counts",
)
_NAME_LISTS = ("functions", "screen_layers", "minimap_layers")
_SIZES = ("screen_size", "minimap_size", "rgb_screen_size", "rgb_minimap_size")
"""Sizes, which may be given as an int or a pair and which EnvConfig holds as (width, height) tuples."""
MAX_UNITS = 65536
"""The most rows max_units may ask for: far beyond any game's units, and each padded table stays under 25 MB."""


@dataclasses.dataclass(frozen=True)
class EnvConfig:
    """How an env plays (the keyword arguments of `gymnasium.make("sc2env/<Map>-v0", ...)`).

    map_name:           a mini-game, the path of a mini-game definition file (.json, played by the built-in
                        engine, see docs/engine.md#map-definitions), or a map of the StarCraft II install
                        (with engine="sc2").
    engine:             "builtin", "sc2" or "auto" (a real install if there is one); None reads $SC2ENV_ENGINE.
    screen_size, minimap_size: feature-layer resolutions (an int for a square, or (width, height)).
    camera_width:       world units across the screen.
    step_mul:           game loops per env step (8 in the SC2LE paper: about 2.8 actions per game second).
    max_episode_steps:  truncate after this many env steps; None: only the game's own end and the safety cap.
    score_index:        what the reward follows (PySC2's option): -1 the outcome, 0-12 the change of that
                        score_cumulative entry (0 the curriculum score, 7 collected_minerals, ...); None: the
                        map's (0 on mini-games, -1 on two-player maps).
    score_multiplier:   the reward is multiplied by this (-1: a score to minimise).
    time_limit:         how an episode that the map's own timer ends is reported: "terminated" (default: the
                        game ended, as it reports) or "truncated" (cut by time: a trainer that bootstraps from
                        the last state's value at truncation, as the agent sees no clock, should want this).
    functions:          the function component's values: all 573 functions (None) or a subset (ids or names).
    actions:            "features" (default): the feature-layer function calls above; "raw": raw unit
                        commands, [function, queued, units, target, world] over raw_units rows and raw cells,
                        masked from the game's per-unit abilities (turns use_raw_units on; docs/env.md#raw-actions).
    raw_resolution:     the raw action's world grid, raw_resolution² cells (PySC2's raw frame); it must be the
                        map's raw grid, 64 on the mini-games.
    invalid_action:     "noop" (default): an unavailable function or disallowed argument is played as no_op
                        and reported in info["invalid_action"]; "raise": InvalidActionError.
    on_crash:           what step() does when the game is lost (it died, hung past request_timeout_s or
                        dropped the connection): "raise" (default) its ConnectionError; "truncate": end the
                        episode there (truncated, the last observation again, info["crash"] saying why), so
                        that a vector env's worker (Gymnasium's AsyncVectorEnv) lives on. Either way the
                        next reset() starts a new game.
    screen_layers, minimap_layers: which feature layers the observation carries (None: all 27 / 11).
    compact_layers:     uint8 layers (CNN-ready); False keeps the game's int32 values.
    use_feature_units, use_raw_units: add unit tables (padded to max_units rows) to the observation.
    use_camera_position: add obs["camera_position"], the camera's centre in raw coordinates (PySC2's).
    use_unit_counts:    add obs["unit_type_counts"], (type, count) rows of the player's units by type (PySC2's
                        unit_counts; obs["unit_counts"] is the rows filled in the unit tables).
    rgb_screen_size, rgb_minimap_size: also observe RGB images (the built-in engine draws them itself).
    screen_target_masks: add per-target-class screen masks and narrow the screen argument's mask with them.
    hide_specific_actions: fold specific abilities into their general ones (as PySC2 does by default).
    crop_to_playable_area: the minimap shows only the playable area.
    allow_cheating_layers: the minimap's unit_type layer shows unit types (also under the fog), as the game's
                        flag of that name; False leaves it zero, as the game does.
    show_cloaked, show_burrowed_shadows, show_placeholders: the game's InterfaceOptions of those names (as
                        PySC2's): cloaked units, burrowed units' shadows, buildings queued but not started. The
                        built-in engine has no cloaked or burrowed units, and makes no placeholders, so it refuses
                        show_placeholders (at reset(), when the engine is known).
    seed:               the seed of the first reset() when reset() is given none.
    spin_wait:          the env and its game poll briefly for each other's next message instead of sleeping
                        at once: about a quarter more steps/s on the development VM; it backs off by itself when
                        the other side is slow or the cores are crowded. False: never poll.
    direct:             play the built-in engine inside the env's process ("direct mode": no game process,
                        socket or serialisation; the same observations, rewards, infos, replays and errors, at
                        0.5-0.9x the CPU per step). False: start it as a process of its own, over a websocket,
                        as the real game is played. None reads $SC2ENV_DIRECT (0 or 1), else True. No
                        effect with engine="sc2".
    realtime:           play against the clock (the game advances on its own; no step requests).
    opponent:           who plays the other side of a two-player map (docs/multiplayer.md): "computer:<level>"
                        (the game's AI: very_easy, easy, medium, medium_hard, hard, harder; any case), an agent's
                        name ("random", "scripted", "package.module:Class"), an sc2env Agent, or a callable from
                        the opponent's observation dict (with its action_mask) to an action, played in this
                        process every step (a game process per player); None: the AI at very_easy. Mini-games
                        have no opponent.
    race:               the agent's race: "terran", "zerg", "protoss" or "random"; None: the map's (a mini-game's
                        definition says it: Terran on the SC2LE ones), else "terran". A mini-game plays its
                        own units whatever race joins, so another race than its own is refused.
    launch_timeout_s, request_timeout_s: seconds to wait for the game to start answering (None: the
                        launcher's default for the engine), and for each answer (RequestTimeoutError after).
    save_replay_episodes: save every this many episodes' replays into `replay_dir` (info["replay_path"] names
                        the file); an episode counts when it ends, or when reset() or close() leave it early
                        (not when its game was lost); 0: never (env.save_replay() still works).
    replay_dir:         where those replays go (made if missing).
    render_size:        (width, height) of the frames render() returns and of the "human" window: the viewer
                        from (960, 540) to (7680, 4320), None: (1280, 720); the game view from (16, 16),
                        None: 512 pixels along the longer side, with the feature screen's aspect.
    render_view:        what render_mode="rgb_array" frames show: "viewer" (default), the whole dashboard
                        (the view, minimap, functions, layers, status); "game": the camera's area alone
                        (terrain, units, orders, clicks, fog), the view a video of the agent wants.
    """

    map_name: str = "MoveToBeacon"
    engine: str | None = None
    screen_size: int | tuple[int, int] = 64
    minimap_size: int | tuple[int, int] = 64
    camera_width: float = 24.0
    step_mul: int = 8
    max_episode_steps: int | None = None
    time_limit: str = "terminated"
    score_index: int | None = None
    score_multiplier: float = 1.0
    functions: Sequence[int | str | Function] | None = None
    actions: str = "features"
    raw_resolution: int = 64
    invalid_action: str = "noop"
    on_crash: str = "raise"
    screen_layers: Sequence[str] | None = None
    minimap_layers: Sequence[str] | None = None
    compact_layers: bool = True
    use_feature_units: bool = False
    use_raw_units: bool = False
    max_units: int = 256
    use_camera_position: bool = False
    use_unit_counts: bool = False
    rgb_screen_size: int | tuple[int, int] | None = None
    rgb_minimap_size: int | tuple[int, int] | None = None
    max_selected_units: int = 64
    max_cargo: int = 16
    screen_target_masks: bool = False
    hide_specific_actions: bool = True
    crop_to_playable_area: bool = False
    allow_cheating_layers: bool = False
    show_cloaked: bool = False
    show_burrowed_shadows: bool = False
    show_placeholders: bool = False
    seed: int | None = None
    realtime: bool = False
    disable_fog: bool = False
    race: str | None = None
    opponent: Any = None
    bot: Bot | None = None
    sc2path: str | None = None
    version: str | int | None = None
    launch_timeout_s: float | None = None
    request_timeout_s: float = 120.0
    spin_wait: bool = True
    direct: bool | None = None
    save_replay_episodes: int = 0
    replay_dir: str = "replays"
    render_size: tuple[int, int] | None = None
    render_view: str = "viewer"

    def __post_init__(self) -> None:
        for field in dataclasses.fields(
            self
        ):  # numpy scalars (a sweep's np.int64 seed) as the Python numbers they
            value = getattr(self, field.name)  # are: Gymnasium's seeding and JSON take only those
            if isinstance(value, np.generic):
                object.__setattr__(self, field.name, value.item())
        if isinstance(self.map_name, os.PathLike):  # a pathlib.Path of a definition file
            object.__setattr__(self, "map_name", os.fspath(self.map_name))
        if not isinstance(self.map_name, str) or not self.map_name:
            raise ValueError(
                f"map_name must name a map, not {self.map_name!r}: pass map_name= (a mini-game such as "
                "'MoveToBeacon', a mini-game definition file such as 'maps/MyBeacon.json', or a map "
                "of a StarCraft II install with engine='sc2')"
            )
        if is_definition_path(self.map_name):
            # A missing or broken file fails here, not at the first reset(); kept absolute, so that a config
            # sent to a process started in another folder (pickled to a worker) names the same file.
            file = definition_map(self.map_name).file
            assert file is not None  # a definition's map names its file
            object.__setattr__(self, "map_name", os.fspath(file))
        if self.actions not in ACTION_MODES:
            raise ValueError(f"actions must be one of {tuple(ACTION_MODES)}, not {self.actions!r}")
        require_count("raw_resolution", self.raw_resolution, "cell")
        if self.actions == "raw" and self.functions is not None:
            raise ValueError(
                "functions= narrows the feature-layer function component; with actions='raw' the "
                "function component is every raw function (mask the rest in your policy)"
            )
        if self.invalid_action not in INVALID_ACTION_POLICIES:
            raise ValueError(
                f"invalid_action must be one of {INVALID_ACTION_POLICIES}, not {self.invalid_action!r}"
            )
        if self.time_limit not in TIME_LIMIT_ENDS:
            raise ValueError(f"time_limit must be one of {TIME_LIMIT_ENDS}, not {self.time_limit!r}")
        if self.on_crash not in CRASH_POLICIES:
            raise ValueError(f"on_crash must be one of {CRASH_POLICIES}, not {self.on_crash!r}")
        # Strings from command lines and config files ("False", "no") would pass a truth test the wrong way.
        for name in _SWITCHES:
            if not isinstance(getattr(self, name), (bool, np.bool_)):
                raise TypeError(f"{name} must be True or False, not {getattr(self, name)!r}")
        if self.direct is not None and not isinstance(self.direct, (bool, np.bool_)):
            raise TypeError(
                f"direct must be True, False or None ($SC2ENV_DIRECT, else True), not {self.direct!r}"
            )
        for name in _NAME_LISTS:
            if isinstance(getattr(self, name), (str, bytes)):
                raise TypeError(
                    f"{name} takes a list of names, not one string: {name}=[{getattr(self, name)!r}]"
                )
        require_seed("seed", self.seed)
        if isinstance(
            self.bot, Mapping
        ):  # as env.spec.to_json() writes a Bot (dataclasses.asdict), or a config file
            fields = {f.name for f in dataclasses.fields(Bot)}
            if not set(self.bot) <= fields:
                raise TypeError(f"bot as a dict takes the keys {sorted(fields)}, not {sorted(self.bot)}")
            object.__setattr__(self, "bot", Bot(**self.bot))
        check_opponent(self.opponent, self.map_name, self.bot)
        if self.max_episode_steps is not None:
            require_count("max_episode_steps", self.max_episode_steps, "env step (or None)")
        require_count("max_units", self.max_units, "row")
        if self.max_units > MAX_UNITS:  # a typo's extra zeros would otherwise surface as a MemoryError
            raise ValueError(
                f"max_units={self.max_units} is too large: at most {MAX_UNITS} rows (the unit tables "
                "are padded to it; a few hundred hold any game)"
            )
        if isinstance(self.save_replay_episodes, bool) or self.save_replay_episodes != 0:
            require_count("save_replay_episodes", self.save_replay_episodes, "episode (or 0 for never)")
        if not isinstance(self.replay_dir, (str, os.PathLike)) or not str(self.replay_dir):
            raise TypeError(f"replay_dir must name a folder, not {self.replay_dir!r}")
        object.__setattr__(self, "replay_dir", os.fspath(self.replay_dir))
        # One form for what may be given several ways (ids, names or Functions; lists or tuples), so that equal
        # configs compare equal, also after a trip through pickle or JSON (env.spec.to_json()).
        fmt = self.interface_format()  # checks the sizes
        if self.functions is not None:
            ids = ActionSpec.from_format(fmt, tuple(self.functions)).function_ids
            object.__setattr__(self, "functions", tuple(FUNCTIONS[i].name for i in ids))
        if self.render_view not in RENDER_VIEWS:
            raise ValueError(f"render_view must be one of {RENDER_VIEWS}, not {self.render_view!r}")
        if self.render_size is not None:
            size = tuple(self.render_size) if isinstance(self.render_size, (list, tuple)) else ()
            if len(size) != 2 or not all(
                isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in size
            ):
                raise TypeError(f"render_size takes (width, height) in pixels, not {self.render_size!r}")
            object.__setattr__(self, "render_size", (int(size[0]), int(size[1])))
            from sc2env.viewer.layout import check_size  # pygame, only for those who ask to render

            check_size(self.render_size, self.render_view)
        for name in ("screen_layers", "minimap_layers"):
            if isinstance(getattr(self, name), list):
                object.__setattr__(self, name, tuple(getattr(self, name)))
        for name in _SIZES:  # as (width, height): 64 and (64, 64) are one size
            object.__setattr__(self, name, getattr(fmt, name))
        self.layer_selection()  # fail early on unknown layer names
        self.match_config(fmt.to_interface_options())  # step_mul, race, bot, timeouts too

    def interface_format(self) -> InterfaceFormat:
        rgb = self.rgb_screen_size is not None
        return InterfaceFormat(
            screen_size=self.screen_size,
            minimap_size=self.minimap_size,
            camera_width=self.camera_width,
            crop_to_playable_area=self.crop_to_playable_area,
            rgb_screen_size=self.rgb_screen_size,
            rgb_minimap_size=self.rgb_minimap_size,
            action_space="features" if rgb and self.screen_size is not None else None,
            use_feature_units=self.use_feature_units,
            use_raw_units=self.use_raw_units or self.actions == "raw",
            use_camera_position=self.use_camera_position
            or self.use_feature_units
            or self.use_raw_units
            or self.actions == "raw",
            use_unit_counts=self.use_unit_counts,
            hide_specific_actions=self.hide_specific_actions,
            max_selected_units=self.max_selected_units,
            max_cargo=self.max_cargo,
            screen_target_masks=self.screen_target_masks,
            allow_cheating_layers=self.allow_cheating_layers,
            show_cloaked=self.show_cloaked,
            show_burrowed_shadows=self.show_burrowed_shadows,
            show_placeholders=self.show_placeholders,
        )

    def action_spec(self) -> ActionSpec:
        return ActionSpec.from_format(self.interface_format(), self.functions)

    def layer_selection(self) -> LayerSelection:
        screen = (
            tuple(self.screen_layers)
            if self.screen_layers is not None
            else tuple(layer.name for layer in SCREEN_LAYERS)
        )
        minimap = (
            tuple(self.minimap_layers)
            if self.minimap_layers is not None
            else tuple(layer.name for layer in MINIMAP_LAYERS)
        )
        return LayerSelection(screen, minimap, self.compact_layers)

    def computer_bot(self) -> Bot | None:
        """The Bot of opponent="computer:<level>" (None for any other opponent)."""
        opponent = parse_opponent(self.opponent)
        return opponent.bot(self.map_name) if isinstance(opponent, Computer) else None

    def launch_config(self) -> LaunchConfig:
        return LaunchConfig(
            engine=self.engine,
            sc2path=self.sc2path,
            version=self.version,
            render=self.rgb_screen_size is not None,
            timeout_s=self.launch_timeout_s,
            spin_wait=self.spin_wait,
            direct=None if self.direct is None else bool(self.direct),
        )

    def match_config(self, interface_options) -> MatchConfig:
        return MatchConfig(
            map_name=self.map_name,
            interface_options=interface_options,
            launch=self.launch_config(),
            step_mul=self.step_mul,
            race=self.race if self.race is not None else (slot_race(self.map_name) or "terran").lower(),
            bot=self.bot or self.computer_bot(),
            disable_fog=self.disable_fog,
            realtime=self.realtime,
            request_timeout_s=self.request_timeout_s,
            score_index=self.score_index,
            score_multiplier=self.score_multiplier,
        )


def check_option_names(names) -> None:
    """TypeError for a keyword that is no env option, naming the nearest ones (a typo gets a hint, not
    Python's bare "unexpected keyword argument")."""
    known = {field.name for field in dataclasses.fields(EnvConfig)}
    for name in names:
        if name in known:
            continue
        if name == "autoreset_mode":  # gym.make_vec hands it to the env itself in the sync and async modes
            raise TypeError(
                "autoreset_mode belongs to the vector env: under vectorization_mode='sync' or 'async' "
                "pass it as vector_kwargs={'autoreset_mode': ...}"
            )
        if name in NOT_OFFERED:
            raise TypeError(f"{name} (a PySC2 option) is not offered by the env: {NOT_OFFERED[name]}")
        raise TypeError(
            f"{name!r} is not an sc2env env option: {option_hint(name)} (docs/env.md describes each)"
        )


NOT_OFFERED = {
    "raw_crop_to_playable_area": (
        "the raw action grid is square and a mini-game's playable area is not, and the minimap keeps whole-map "
        "coordinates; crop_to_playable_area crops the minimap, and the built-in engine honours the raw option "
        "for clients of its own (docs/env.md, PySC2's options)"
    ),
}
"""PySC2 options the env deliberately lacks, and why: said when one is passed, instead of a near name."""


def option_hint(name: str) -> str:
    """ "did you mean ...?" with the env options (render_mode too) nearest to `name`, else all of them."""
    known = [field.name for field in dataclasses.fields(EnvConfig)] + ["render_mode"]
    close = difflib.get_close_matches(name, known, n=3)
    either = ", ".join(close[:-1]) + " or " + close[-1] if len(close) > 1 else "".join(close)
    return f"did you mean {either}?" if close else f"the options are {', '.join(known)}"
