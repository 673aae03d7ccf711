"""The env on the built-in engine: spaces, masks, FunctionCall actions, rewards, invalid actions, lifecycle."""

from __future__ import annotations

import gc
import os
import pathlib
import signal
import sys
import time

import gymnasium as gym
import numpy as np
import pytest

from sc2env import errors
from sc2env.env import COMPACT_UNIT_TYPES, SC2Env, env_ids
from sc2env.game import MINI_GAMES
from sc2env.interface import FUNCTIONS, MINIMAP_LAYERS, SCREEN_LAYERS, FunctionCall


@pytest.fixture(autouse=True)
def _games_in_their_own_processes(monkeypatch):
    """These tests are about the game process and its socket: every env here starts one (not direct mode)."""
    monkeypatch.setenv("SC2ENV_DIRECT", "0")


SMALL = {"screen_size": 32, "minimap_size": 32}
PLAYER_RELATIVE = [layer.name for layer in SCREEN_LAYERS].index("player_relative")


def test_every_mini_game_is_registered_with_both_entry_points():
    for name in MINI_GAMES:
        spec = gym.spec(f"sc2env/{name}-v0")
        assert spec.kwargs["map_name"] == name
        assert spec.vector_entry_point == "sc2env.env.vector_entry:make_vector_env"
    assert "sc2env/SC2-v0" in env_ids()


def test_observation_matches_space_and_masks_are_never_empty(make_env):
    env = make_env(**SMALL)
    obs, info = env.reset(seed=3)
    assert env.observation_space.contains(obs)
    spec = env.unwrapped.action_spec
    assert obs["action_mask"].dtype == np.int8 and obs["action_mask"].shape == (spec.total,)
    assert all(segment.any() for segment in spec.split(obs["action_mask"]))
    assert obs["feature_screen"].shape == (27, 32, 32) and obs["feature_screen"].dtype == np.uint8
    assert obs["feature_minimap"].shape == (11, 32, 32)
    assert info["game_loop"] == 0 and info["invalid_action"] is False
    masks = env.unwrapped.action_masks()
    assert masks.dtype == bool and np.array_equal(masks, obs["action_mask"].astype(bool))
    available = set(spec.function_ids[masks[: len(spec.functions)]])
    assert FUNCTIONS.select_army.id in available and FUNCTIONS.Move_screen.id not in available


def test_function_calls_move_the_marine_to_the_beacon_and_score(make_env):
    env = make_env(**SMALL)
    obs, _ = env.reset(seed=1)
    obs, reward, *_ = env.step(FUNCTIONS.select_army("select"))
    assert FUNCTIONS.Move_screen.id in env.unwrapped.last_observation.available_actions
    total = 0.0
    for _ in range(60):
        relative = obs["feature_screen"][PLAYER_RELATIVE]
        ys, xs = np.nonzero(relative == 3)  # the neutral beacon
        target = (int(xs.mean()), int(ys.mean()))
        obs, reward, _terminated, _truncated, info = env.step(FUNCTIONS.Move_screen("now", target))
        assert not info["invalid_action"], info["invalid_action_reason"]
        total += reward
        if total >= 2:
            break
    assert total >= 2
    assert info["score"] == total == info["score_details"]["score"]
    assert set(info["score_details"]) >= {"collected_minerals", "killed_value_units", "spent_minerals"}


def test_setting_a_control_group_with_nothing_selected_empties_it(make_env):
    # PySC2 offers it (select_control_group is always available) and the game takes it; the mask refused it,
    # so a ported agent's call became a no_op and its game drifted from PySC2's.
    env = make_env(**SMALL)
    env.reset(seed=1)
    env.step(FUNCTIONS.select_army("select"))
    env.step(FUNCTIONS.select_control_group("set", 3))
    env.step(FUNCTIONS.select_control_group("set", 4))
    env.step(FUNCTIONS.select_rect("select", (0, 0), (1, 1)))  # a corner without units: nothing selected
    _, _, _, _, info = env.step(FUNCTIONS.select_control_group("append", 4))  # appending nothing: no action
    assert (
        info["invalid_action"]
        and "control_group_act 2 (append) is not allowed now" in info["invalid_action_reason"]
    )
    _, _, _, _, info = env.step(FUNCTIONS.select_control_group("set", 3))
    assert not info["invalid_action"], info["invalid_action_reason"]
    groups = env.unwrapped.last_observation.control_groups
    assert groups[3].tolist() == [0, 0] and groups[4].tolist() == [48, 1]


def test_vector_actions_and_function_calls_are_the_same_action(make_env):
    env = make_env(**SMALL)
    env.reset(seed=2)
    unwrapped = env.unwrapped
    call = FUNCTIONS.Move_screen("queued", (5, 9))
    vector = unwrapped.function_call_to_action(call)
    assert vector[0] == FUNCTIONS.Move_screen.id and vector[1] == 9 * 32 + 5 and vector[4] == 1
    assert unwrapped.action_to_function_call(vector) == call


def test_invalid_action_becomes_no_op_and_says_why(make_env):
    env = make_env(**SMALL)
    env.reset(seed=4)
    vector = env.unwrapped.function_call_to_action(FUNCTIONS.Move_screen("now", (3, 3)))
    _, reward, _, _, info = env.step(vector)  # nothing is selected: Move_screen is unavailable
    assert info["invalid_action"] is True
    assert "Move_screen" in info["invalid_action_reason"] and "not available" in info["invalid_action_reason"]
    assert reward == 0.0


def test_invalid_action_can_raise(make_env):
    env = make_env(invalid_action="raise", **SMALL)
    env.reset(seed=4)
    with pytest.raises(errors.InvalidActionError, match="Move_screen"):
        env.step(FUNCTIONS.Move_screen("now", (3, 3)))
    with pytest.raises(errors.InvalidActionError, match="outside 32×32"):
        env.step(FUNCTIONS.select_point("select", (40, 3)))
    env.step(FUNCTIONS.no_op())  # the env is still usable


@pytest.mark.parametrize(
    "action, message",
    [
        (5, "got int of shape"),
        (None, "got NoneType"),
        ("select_army", "got str"),
        (np.zeros((1, 14), int), r"shape \(1, 14\)"),
        (np.zeros(13, int), r"shape \(13,\)"),
        (np.r_[573, np.zeros(13, int)], "function component 573 is outside 0..572"),
        (np.r_[0, -1, np.zeros(12, int)], "screen component -1 is outside"),
        (np.r_[np.zeros(13), 0.5], "unload_id component 0.5 is not a whole number"),
        (np.r_[np.zeros(13), np.nan], "is not a whole number"),
        (np.zeros(14, bool), "got bool array of shape"),  # a mask passed as the action
        (
            [FUNCTIONS.no_op()],
            r"or one FunctionCall; got list: \[FunctionCall",
        ),  # was numpy's ragged-array error
        # The same mistakes in a FunctionCall (they used to be played as no_op): PySC2's 84-pixel coordinates on
        # a smaller screen, an unknown id, arguments missing or not a sequence.
        (FUNCTIONS.Move_screen("now", (70, 10)), r"needs a screen point; \(70, 10\) is outside 32×32"),
        (FunctionCall(999, ()), "unknown function id 999"),
        (FunctionCall(331, ((0,),)), "Move_screen takes 2 argument"),
        (FunctionCall(331, None), "arguments must be a sequence"),
    ],
)
def test_a_malformed_action_raises_even_under_noop(make_env, action, message):
    # Not an element of the MultiDiscrete space: a bug in the caller (a wrapper, a batching slip) that a
    # quiet no_op would hide from training.
    env = make_env(**SMALL)
    env.reset(seed=4)
    with pytest.raises(errors.MalformedActionError, match=message):
        env.step(action)
    _, _, _, _, info = env.step(np.zeros(14, int))  # nothing was sent: the env is still usable
    assert not info["invalid_action"]


def test_a_float_vector_of_whole_numbers_is_an_action(make_env):
    env = make_env(**SMALL)
    env.reset(seed=4)
    select_army = env.unwrapped.action_spec.to_vector(FUNCTIONS.select_army("select"))
    _, _, _, _, info = env.step(select_army.astype(np.float32))  # a policy's float output
    assert not info["invalid_action"]
    assert (
        FUNCTIONS.Move_screen.id in env.unwrapped.last_observation.available_actions
    )  # the army is selected


def test_an_rgb_only_env_plays_with_actions_in_rgb_pixels(make_env):
    from gymnasium.utils.env_checker import check_env

    from sc2env.agents import RandomAgent, run_agent

    env = make_env(
        screen_size=None, minimap_size=None, rgb_screen_size=(96, 64), rgb_minimap_size=64, step_mul=32
    )
    check_env(env.unwrapped, skip_render_check=True)
    assert "feature_screen" not in env.observation_space.spaces
    assert env.action_space.nvec[1] == 96 * 64  # screen points are RGB pixels
    (episode,) = run_agent(env, RandomAgent(seed=0), 1, seed=1)
    assert episode.invalid_actions == 0 and episode.steps == 1920 // 32
    obs, _ = env.reset(seed=1)
    env.step(FUNCTIONS.select_army("select"))
    for _ in range(5):
        moved, _, _, _, info = env.step(FUNCTIONS.Move_screen("now", (90, 60)))  # beyond 64: an RGB pixel
        assert not info["invalid_action"]
    assert (moved["rgb_screen"] != obs["rgb_screen"]).any(axis=2).sum() > 50  # the marine walked


@pytest.mark.parametrize("cheating", [False, True])
def test_the_minimap_shows_unit_types_only_with_cheating_layers(make_env, cheating):
    env = make_env(allow_cheating_layers=cheating, **SMALL)
    env.reset(seed=2)
    shown = set(np.unique(env.unwrapped.last_observation.feature_minimap.unit_type).tolist())
    assert shown == ({0, 48, 317} if cheating else {0})  # the Marine and the beacon, or nothing


def rollout(env, seed):
    """The screens of 20 random masked steps from reset(seed)."""
    obs, _ = env.reset(seed=seed)
    frames = [obs["feature_screen"]]
    rng = np.random.default_rng(0)
    for _ in range(20):
        mask = env.unwrapped.action_spec.split(obs["action_mask"])
        env.action_space.seed(int(rng.integers(1 << 30)))
        obs, *_ = env.step(env.action_space.sample(mask=mask))
        frames.append(obs["feature_screen"])
    return np.stack(frames)


def test_same_seed_same_episode(make_env):
    first, second = make_env(**SMALL), make_env(**SMALL)
    assert np.array_equal(rollout(first, 11), rollout(second, 11))
    assert not np.array_equal(rollout(first, 11)[0], rollout(first, 12)[0])


def test_seeds_beyond_31_bits_are_hashed_not_cut(make_env):
    # The game's seed has 31 bits; 5 and 5 + 2**31 used to play the very same episode.
    env = make_env("CollectMineralShards", **SMALL)
    starts = {seed: env.reset(seed=seed)[0]["feature_screen"] for seed in (5, 5 + 2**31, 2**40, 0)}
    assert not np.array_equal(starts[5], starts[5 + 2**31])
    assert not np.array_equal(starts[0], starts[2**40])
    assert np.array_equal(env.reset(seed=2**40)[0]["feature_screen"], starts[2**40])


def _running(pid: int) -> bool:
    try:
        return pathlib.Path(f"/proc/{pid}/stat").read_text().split(")")[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("vector", [False, True])
def test_an_env_dropped_without_close_stops_its_game_without_the_cycle_collector(vector):
    # The launcher's failed readiness probes (websocket-client keeps each error in a local of the frame that
    # raised it) held the env in a reference cycle: its game ran on until a full garbage collection, which a
    # big training process seldom runs.
    gc.collect()
    gc.disable()
    try:
        if vector:
            env = gym.make_vec(
                "sc2env/MoveToBeacon-v0",
                num_envs=2,
                vectorization_mode="vector_entry_point",
                engine="builtin",
                **SMALL,
            )
            env.reset(seed=0)
            env.step(np.zeros((2, 14), np.int64))
            pids = [sub.match.process.pid for sub in env.envs]
        else:
            env = gym.make("sc2env/MoveToBeacon-v0", engine="builtin", **SMALL)
            env.reset(seed=0)
            env.step(FUNCTIONS.no_op())
            pids = [env.unwrapped.match.process.pid]
        del env
        deadline = time.monotonic() + 10
        while any(map(_running, pids)) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not any(map(_running, pids))
    finally:
        gc.enable()
        gc.collect()


def test_spin_wait_changes_timing_only(make_env):
    spinning, sleeping = make_env(**SMALL), make_env(**SMALL, spin_wait=False)
    assert np.array_equal(rollout(spinning, 5), rollout(sleeping, 5))
    assert sleeping.unwrapped.match.process.argv[-2:] == ["--spin-wait", "0"]
    assert sleeping.unwrapped.match.controller._connection.spin.window_s == 0
    assert "--spin-wait" not in spinning.unwrapped.match.process.argv
    assert spinning.unwrapped.match.controller._connection.spin.window_s > 0


def test_episode_ends_on_the_game_timer_and_restarts(make_env):
    env = make_env(step_mul=64, **SMALL)
    env.reset(seed=5)
    steps = 0
    while True:
        _, _, terminated, truncated, info = env.step(FUNCTIONS.no_op())
        steps += 1
        if terminated or truncated:
            break
    assert terminated and not truncated
    assert steps == 1920 // 64 and info["game_loop"] == 1920
    with pytest.raises(
        errors.ProtocolError, match=r"step\(\) called after the episode ended: call reset\(\)"
    ):
        env.step(FUNCTIONS.no_op())
    obs, info = env.reset()  # the fast restart of the same game
    assert info["game_loop"] == 0 and obs["score_cumulative"][0] == 0


def test_max_episode_steps_truncates(make_env):
    env = make_env(max_episode_steps=3, **SMALL)
    env.reset(seed=6)
    results = [env.step(FUNCTIONS.no_op())[2:4] for _ in range(3)]
    assert results == [(False, False), (False, False), (False, True)]


def test_close_is_idempotent_and_stops_the_game(make_env):
    env = make_env(**SMALL)
    env.reset(seed=7)
    process = env.unwrapped.match.process
    assert process.running
    env.close()
    env.close()
    assert not process.running and process.closed
    with pytest.raises(
        errors.ProtocolError, match=r"called after close\(\): call reset\(\) .* \(it starts a game\)"
    ):
        env.step(FUNCTIONS.no_op())


def test_game_crash_raises_and_the_next_reset_starts_a_new_game(make_env):
    env = make_env(**SMALL)
    env.reset(seed=8)
    old = env.unwrapped.match.process
    os.kill(old.pid, signal.SIGKILL)
    assert old.wait(5) is not None
    with pytest.raises(errors.GameCrashedError):
        env.step(FUNCTIONS.no_op())
    with pytest.raises(errors.ProtocolError, match=r"after the game was lost \(GameCrashedError\)"):
        env.step(FUNCTIONS.no_op())
    _obs, info = env.reset()
    assert env.unwrapped.match.process is not old and env.unwrapped.match.process.running
    assert info["game_loop"] == 0


def test_a_game_that_left_the_episode_is_reported_and_the_next_reset_plays_again(make_env):
    # The game answered with status launched mid-episode (here: told to leave). Every step and reset after
    # that was refused for good ("Cannot send restart_game while the game is launched").
    env = make_env(**SMALL)
    env.reset(seed=8)
    env.step(FUNCTIONS.no_op())
    env.unwrapped.match.controller.leave_game()
    with pytest.raises(
        errors.ProtocolError, match=r"reported status launched in the middle of an episode; call reset()"
    ):
        env.step(FUNCTIONS.no_op())
    _, info = env.reset()
    assert info["game_loop"] == 0
    env.step(FUNCTIONS.no_op())


def test_a_game_info_the_decoder_refuses_is_not_kept_for_the_next_reset(make_env, monkeypatch):
    from sc2env.env import env as env_module

    real = env_module.ObservationDecoder
    refusals = []

    def refuse_once(*args, **kwargs):
        if not refusals:
            refusals.append(1)
            raise errors.ProtocolError("game_info describes no map")
        return real(*args, **kwargs)

    monkeypatch.setattr(env_module, "ObservationDecoder", refuse_once)
    env = make_env(**SMALL)
    with pytest.raises(errors.ProtocolError, match="describes no map"):
        env.reset(seed=3)
    assert env.unwrapped.match.process is None  # that game is given up: the next reset starts another
    _, info = env.reset(seed=3)
    assert info["game_loop"] == 0


def test_layer_selection_and_int32_values(make_env):
    env = make_env(
        screen_layers=("player_relative", "unit_type"),
        minimap_layers=("camera",),
        compact_layers=False,
        **SMALL,
    )
    obs, _ = env.reset(seed=9)
    assert obs["feature_screen"].shape == (2, 32, 32) and obs["feature_screen"].dtype == np.int32
    assert obs["feature_minimap"].shape == (1, 32, 32)
    unit_types = set(np.unique(obs["feature_screen"][1])) - {0}
    assert {48, 317} <= unit_types  # Marine and Beacon_Terran, as the game's ids
    with pytest.raises(ValueError, match="unknown screen layers"):
        SC2Env(screen_layers=("nope",))


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"step_mul": 0}, "step_mul must be a whole number of at least 1 game loop, not 0"),
        ({"step_mul": 2.5}, "step_mul must be a whole number .* not 2.5"),
        ({"max_episode_steps": 0}, "max_episode_steps must be a whole number of at least 1 env step"),
    ],
)
def test_bad_step_counts_are_named(kwargs, message):
    with pytest.raises(ValueError, match=message):
        SC2Env(**kwargs)
    assert SC2Env(step_mul=np.int64(4)).metadata["render_fps"] == 22.4 / 4  # numpy integers are whole numbers


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        (
            {"screen_size": "64"},
            ValueError,
            "screen_size must be an int or a .* got '64'",
        ),  # once read as 6×4
        ({"minimap_size": (64.5, 64)}, ValueError, "minimap_size must be an int or a"),
        ({"max_units": 0}, ValueError, "max_units must be a whole number of at least 1 row"),
        (
            {"max_units": 10**9},
            ValueError,
            "max_units=1000000000 is too large: at most 65536 rows",
        ),  # was a MemoryError
        (
            {"screen_sise": 32},
            TypeError,
            "'screen_sise' is not an sc2env env option: did you mean screen_size",
        ),
        (
            {"bot": {"race": "zerg"}},
            ValueError,
            "MoveToBeacon is a single-player mini-game: bot= sets the opponent",
        ),
        (
            {"engine": "builtn"},
            errors.LaunchError,
            "Unknown engine engine='builtn': choose one of auto, builtin, sc2",
        ),
        # These were taken: "False" as True, the others failing later, deep down, or read letter by letter.
        ({"compact_layers": "False"}, TypeError, "compact_layers must be True or False, not 'False'"),
        ({"use_feature_units": "yes"}, TypeError, "use_feature_units must be True or False, not 'yes'"),
        (
            {"functions": "Move_screen"},
            TypeError,
            r"functions takes a list of names, not one string: functions=\['Mo",
        ),
        (
            {"screen_layers": "player_relative"},
            TypeError,
            "screen_layers takes a list of names, not one string",
        ),
        (
            {"camera_width": "24"},
            ValueError,
            "camera_width must be a positive number of world units, not '24'",
        ),
        (
            {"race": "terrans"},
            ValueError,
            "Unknown race 'terrans'; choose one of terran, zerg, protoss, random",
        ),
        (
            {"bot": "easy"},
            TypeError,
            r"bot must be an sc2env.game.Bot, e.g. Bot\(race='zerg', difficulty='easy'\)",
        ),
        ({"seed": "x"}, ValueError, "seed must be a whole number >= 0 or None, not 'x'"),
        ({"seed": -1}, ValueError, "seed must be a whole number >= 0 or None, not -1"),
    ],
)
@pytest.mark.parametrize("vector", [False, True])
def test_bad_settings_are_refused_when_the_env_is_made(kwargs, error, message, vector):
    with pytest.raises(error, match=message):
        if vector:
            gym.make_vec(
                "sc2env/MoveToBeacon-v0", num_envs=2, vectorization_mode="vector_entry_point", **kwargs
            )
        else:
            gym.make("sc2env/MoveToBeacon-v0", **kwargs)


@pytest.mark.parametrize(
    "map_name", ["movetobeacon", "MoveToBeacon.SC2Map", "mini_games/MoveToBeacon.SC2Map"]
)
def test_a_bot_is_refused_on_a_mini_game_however_it_is_named(map_name):
    from sc2env.game import Bot

    with pytest.raises(ValueError, match="single-player mini-game: bot= sets the opponent"):
        SC2Env(map_name, bot=Bot("zerg"))


@pytest.mark.parametrize("num_envs", ["2", 2.0, 0, True])
def test_the_number_of_games_is_a_whole_number(num_envs):
    with pytest.raises(ValueError, match="num_envs must be a whole number of at least 1 game"):
        gym.make_vec("sc2env/MoveToBeacon-v0", num_envs=num_envs, vectorization_mode="vector_entry_point")


def test_a_vector_option_given_to_gymnasiums_own_vector_envs_says_where_it_goes():
    # SyncVectorEnv hands make_vec's keywords to each env; autoreset_mode is its own (vector_kwargs).
    with pytest.raises(TypeError, match=r"pass it as vector_kwargs=\{'autoreset_mode': ...\}"):
        gym.make_vec(
            "sc2env/MoveToBeacon-v0", num_envs=2, vectorization_mode="sync", autoreset_mode="same_step"
        )
    envs = gym.make_vec(
        "sc2env/MoveToBeacon-v0",
        num_envs=2,
        vectorization_mode="sync",
        vector_kwargs={"autoreset_mode": "SameStep"},
    )
    assert envs.metadata["autoreset_mode"].value == "SameStep"
    envs.close()


@pytest.mark.parametrize("make", [gym.make, lambda *a, **k: gym.make_vec(*a, num_envs=2, **k)])
def test_a_mini_games_id_refuses_another_map(make):
    # Gymnasium merges keyword arguments over the id's own: this used to play DefeatRoaches as MoveToBeacon-v0.
    with pytest.raises(
        ValueError, match="sc2env/MoveToBeacon-v0 plays MoveToBeacon, but map_name='DefeatRoaches'"
    ):
        make("sc2env/MoveToBeacon-v0", map_name="DefeatRoaches")
    env = make("sc2env/DefeatRoaches-v0", map_name="DefeatRoaches")
    assert env.spec.id == "sc2env/DefeatRoaches-v0"
    env.close()


def test_the_any_map_id_asks_for_a_map():
    with pytest.raises(ValueError, match="pass map_name="):
        gym.make("sc2env/SC2-v0")  # it used to play MoveToBeacon without a word
    assert gym.make("sc2env/SC2-v0", map_name="DefeatRoaches").unwrapped.config.map_name == "DefeatRoaches"


def test_a_policy_following_the_flat_mask_with_target_masks_is_never_refused(make_env):
    # MaskablePPO masks each component on its own: its screen point may fit another available function's
    # target class (a Move point for a Harvest_Gather). The env must take what the flat mask allows.
    env = make_env("BuildMarines", screen_target_masks=True, invalid_action="raise", **SMALL)
    env.reset(seed=3)
    spec = env.unwrapped.action_spec
    env.action_space.seed(0)
    env.step(FUNCTIONS.select_rect("select", (0, 0), (31, 31)))  # the SCVs and the Command Center
    flat = env.unwrapped.action_masks()
    for _ in range(300):
        action = env.action_space.sample(mask=spec.split(flat.view(np.int8)))
        _, _, terminated, truncated, info = env.step(action)  # raises InvalidActionError if refused
        assert not info["invalid_action"]
        flat = env.unwrapped.action_masks()
        if terminated or truncated:
            break


def test_batched_conditional_masks_narrow_the_screen_to_the_functions_target_class(make_env):
    # What an autoregressive policy computes from the Gymnasium observation alone, for a batch.
    env = make_env("BuildMarines", screen_target_masks=True, **SMALL)
    env.reset(seed=3)
    obs, *_ = env.step(FUNCTIONS.select_rect("select", (0, 0), (31, 31)))
    spec, masks = env.unwrapped.action_spec, env.unwrapped.last_observation.masks
    positions = np.flatnonzero(obs["action_mask"][: len(spec.functions)])
    assert len(positions) > 10
    n = len(positions)
    batch = spec.conditional_mask(
        np.tile(obs["action_mask"], (n, 1)),
        positions,
        np.broadcast_to(obs["screen_target_masks"], (n, *obs["screen_target_masks"].shape)),
    )
    for row, position in zip(batch, positions):
        np.testing.assert_array_equal(row.astype(bool), masks.for_function(int(spec.function_ids[position])))
    narrowed = [p for p, row in zip(positions, batch) if row[spec.segment("screen")].sum() < 32 * 32]
    assert narrowed, "some functions aim at one class of targets only"
    with pytest.raises(ValueError, match=r"give \(classes, h, w\) with one flat mask"):
        spec.conditional_mask(np.tile(obs["action_mask"], (n, 1)), positions, obs["screen_target_masks"])


def test_with_target_masks_a_point_no_available_function_could_use_is_refused(make_env):
    # No selection function with a screen point (they take any pixel): the idle SCVs are picked by key.
    env = make_env(
        "CollectMineralsAndGas",
        screen_target_masks=True,
        invalid_action="raise",
        functions=["no_op", "select_idle_worker", "Harvest_Gather_screen"],
        **SMALL,
    )
    env.reset(seed=3)
    env.step(FUNCTIONS.select_idle_worker("select_all"))
    masks = env.unwrapped.last_observation.masks
    resources = masks.target_masks[5]  # TargetClass.RESOURCE, the one screen class in this action space
    assert (masks.argument("screen") == resources.ravel()).all()
    inside, outside = np.argwhere(resources)[0], np.argwhere(~resources)[0]
    env.step(FUNCTIONS.Harvest_Gather_screen("now", (int(inside[1]), int(inside[0]))))
    with pytest.raises(
        errors.InvalidActionError, match=r"Harvest_Gather_screen: screen .* is not allowed now"
    ):
        env.step(FUNCTIONS.Harvest_Gather_screen("now", (int(outside[1]), int(outside[0]))))


def test_function_subset_shrinks_the_action_space(make_env):
    env = make_env(functions=["no_op", "select_army", "Move_screen"], **SMALL)
    obs, _ = env.reset(seed=10)
    assert env.action_space.nvec[0] == 3
    assert list(obs["action_mask"][:3]) == [1, 1, 0]


def test_a_game_that_dies_between_episodes_is_replaced_by_the_next_reset(make_env):
    env = make_env(step_mul=256, **SMALL)
    env.reset(seed=8)
    while not env.step(FUNCTIONS.no_op())[2]:
        pass
    old = env.unwrapped.match.process
    os.kill(old.pid, signal.SIGKILL)
    assert old.wait(5) is not None
    _obs, info = env.reset()  # the first reset after the death already works
    assert env.unwrapped.match.process.running and info["game_loop"] == 0


def test_compact_layers_are_the_game_values_narrowed(make_env):
    env = make_env("CollectMineralsAndGas", **SMALL)  # minerals (341) and geysers: ids past 255
    obs, _ = env.reset(seed=12)
    full = env.unwrapped.last_observation  # int32 stacks, decoded on first use
    lookup = {unit: i + 1 for i, unit in enumerate(COMPACT_UNIT_TYPES)}
    for key, stack, table in (
        ("feature_screen", full.feature_screen, SCREEN_LAYERS),
        ("feature_minimap", full.feature_minimap, MINIMAP_LAYERS),
    ):
        for layer in table:
            got, values = obs[key][layer.index], np.asarray(stack[layer.index])
            if layer.name == "unit_type":
                expected = np.vectorize(lambda v: 0 if v == 0 else lookup.get(int(v), 255))(values)
            else:
                expected = np.minimum(values, 255)
            assert np.array_equal(got, expected), (key, layer.name)
    assert {lookup[341], lookup[45], lookup[18]} <= set(
        np.unique(obs["feature_screen"][6])
    )  # minerals, SCVs, CC


def test_unit_tables_keep_real_game_tags(make_env):
    # Real StarCraft II tags are 2**32 and more (the engine's are small): the tables are int64, never cut.
    from sc2env.env.observation_packer import _pad

    env = make_env(use_raw_units=True, use_feature_units=True, **SMALL)
    obs, _ = env.reset(seed=4)
    for name in ("raw_units", "feature_units"):
        assert env.observation_space[name].dtype == np.int64 and obs[name].dtype == np.int64
        assert env.observation_space[name].contains(obs[name])
    tag = 4353949697  # a tag from a real ladder replay
    assert _pad(np.array([[tag, 48]]), (4, 2), np.dtype(np.int64), 0)[0, 0] == tag


def test_a_subset_with_nothing_available_offers_its_first_function_played_as_no_op(make_env):
    env = make_env(functions=["Move_screen", "select_army"], **SMALL)
    obs, _ = env.reset(seed=4)
    assert obs["action_mask"][:2].tolist() == [0, 1], "select_army is available: no stand-in"
    env.step(FUNCTIONS.no_op())
    env = make_env(functions=["Move_screen"], **SMALL)
    obs, _ = env.reset(seed=4)  # nothing selected: Move_screen is not available, but a mask needs a choice
    assert obs["action_mask"][0] == 1
    obs, _, _, _, info = env.step(env.unwrapped.function_call_to_action(FUNCTIONS.Move_screen("now", (3, 3))))
    assert not info["invalid_action"]
    assert not obs["action_result"].any() and obs["last_actions"][0] == -1, "nothing was sent to the game"


def test_upgrades_are_observed(make_env, monkeypatch):
    from sc2env.interface import ObservationDecoder
    from sc2env.interface.observation_layout import MAX_UPGRADES

    env = make_env(**SMALL)
    obs, _ = env.reset(seed=3)
    assert obs["upgrades"].shape == (MAX_UPGRADES,) and not obs["upgrades"].any(), "the mini-games have none"
    decode = ObservationDecoder.decode

    def researched(self, response, **kwargs):  # as the real game reports Stimpack (15) and Combat Shield (16)
        response.observation.raw_data.player.upgrade_ids.extend([15, 16])
        return decode(self, response, **kwargs)

    monkeypatch.setattr(ObservationDecoder, "decode", researched)
    obs, *_ = env.step(FUNCTIONS.no_op())
    assert obs["upgrades"].tolist() == [15, 16] + [0] * (MAX_UPGRADES - 2)
    assert env.observation_space.contains(obs)


def test_the_stand_in_pins_its_arguments_so_no_component_is_empty(make_env):
    # select_control_group is dropped without a selection or a group: its arguments would have no value.
    env = make_env(functions=["select_control_group"], **SMALL)
    obs, _ = env.reset(seed=4)
    spec = env.unwrapped.action_spec
    assert all(segment.any() for segment in spec.split(obs["action_mask"]))
    assert env.unwrapped.last_observation.masks.stand_in
    with pytest.raises(errors.InvalidActionError, match="stand-in"):
        env.unwrapped.last_observation.masks.check(FUNCTIONS.select_control_group("recall", 0))
    env.action_space.seed(1)
    obs, _, _, _, info = env.step(env.action_space.sample(mask=spec.split(obs["action_mask"])))
    assert not info["invalid_action"] and not obs["action_result"].any(), "played as no_op"


def test_the_stand_in_is_named_when_another_function_of_the_subset_is_sent(make_env):
    # The message named the function sent as the stand-in, and said "send no_op", which the space lacks.
    env = make_env(
        "CollectMineralsAndGas", functions=["Train_SCV_quick", "Move_screen"], invalid_action="raise", **SMALL
    )
    env.reset(seed=4)  # nothing selected: neither can be called
    assert env.unwrapped.last_observation.masks.stand_in
    with pytest.raises(
        errors.InvalidActionError,
        match=r"offers only Train_SCV_quick \(the function component's "
        r"value 0, every argument 0\) as a stand-in",
    ):
        env.step(FUNCTIONS.Move_screen("now", (3, 3)))
    _, _, _, _, info = env.step(env.unwrapped.function_call_to_action(FUNCTIONS.Train_SCV_quick("now")))
    assert not info["invalid_action"]


@pytest.mark.parametrize("value", [0, -1, float("nan"), float("inf"), "5", None])
def test_a_request_timeout_that_is_no_duration_is_refused_before_anything_starts(value):
    with pytest.raises(ValueError, match="request_timeout_s must be a finite number of seconds above 0"):
        SC2Env(request_timeout_s=value)


def test_ctrl_c_while_a_step_waits_keeps_the_game(make_env, interrupt_once):
    env = make_env(**SMALL)
    env.reset(seed=4)
    controller = env.unwrapped.match.controller
    interrupt_once(controller._connection, "receive")
    with pytest.raises(KeyboardInterrupt):
        env.step(FUNCTIONS.no_op())
    # The game did that step; its answers are read and dropped before the next request.
    _, _, _, _, info = env.step(FUNCTIONS.no_op())
    assert info["game_loop"] == 16 and env.unwrapped.match.controller is controller and not controller.closed


# Where a Ctrl-C lands in a step, and the game loop the next step reaches (16: the interrupted step happened).
CTRL_C_POINTS = {
    "before the step is written": (lambda c, once: once(c._connection, "send"), 8),
    "just after the step is written": (lambda c, once: once(c._connection, "send", after_call=1), 16),
    "before the answers are read": (lambda c, once: once(c, "_finish"), 16),
    "just after the first answer is read": (
        lambda c, once: once(c._connection, "_read_message", after_call=1),
        16,
    ),
    "just after the observation is read": (
        lambda c, once: once(c._connection, "_read_message", after_call=3),
        16,
    ),
    "just after the observation is parsed": (
        lambda c, once: once(c._protocol, "read_response", after_call=3),
        16,
    ),
}


@pytest.mark.parametrize("where", CTRL_C_POINTS)
def test_ctrl_c_anywhere_in_a_step_keeps_the_game(make_env, interrupt_once, where):
    # Each of these used to lose the game, go out of step, or leave every later step refused.
    arm, game_loop = CTRL_C_POINTS[where]
    env = make_env(request_timeout_s=10, **SMALL)  # a wrongly kept answer would show as a 10 s timeout
    env.reset(seed=4)
    controller = env.unwrapped.match.controller
    arm(controller, interrupt_once)
    with pytest.raises(KeyboardInterrupt):
        env.step(FUNCTIONS.no_op())
    _, _, _, _, info = env.step(FUNCTIONS.no_op())
    assert (
        info["game_loop"] == game_loop
        and env.unwrapped.match.controller is controller
        and not controller.closed
    )
    arm(controller, interrupt_once)
    with pytest.raises(KeyboardInterrupt):
        env.step(FUNCTIONS.no_op())
    _, info = env.reset()  # reset() after such an interruption restarts the same game
    assert info["game_loop"] == 0 and env.unwrapped.match.controller is controller


@pytest.mark.parametrize("calls", [1, 2, 3, 4])
@pytest.mark.parametrize("target", ["send", "_read_message"])
def test_ctrl_c_anywhere_in_a_seeded_reset_leaves_reset_working(make_env, interrupt_once, target, calls):
    # A seeded reset writes and reads create_game, join_game, game_info and observation, one at a time.
    # A Ctrl-C just after create_game left the game waiting for a join, and every later reset() and step()
    # was refused ("Cannot send create_game while the game is init_game") until close().
    env = make_env(request_timeout_s=10, **SMALL)
    env.reset(seed=4)
    controller = env.unwrapped.match.controller
    interrupt_once(controller._connection, target, after_call=calls)
    with pytest.raises(KeyboardInterrupt):
        env.reset(seed=5)
    _, info = env.reset(seed=6)
    _, _, _, _, after = env.step(FUNCTIONS.no_op())
    assert (info["game_loop"], after["game_loop"]) == (0, 8)
    assert env.unwrapped.match.controller is controller and not controller.closed


@pytest.mark.parametrize("where", ["after create_game", "before anything", "while a new game starts"])
def test_after_a_seeded_reset_cut_short_the_next_reset_plays_that_seed(make_env, interrupt_once, where):
    env, fresh = make_env("CollectMineralShards", **SMALL), make_env("CollectMineralShards", **SMALL)
    env.reset(seed=4)
    match = env.unwrapped.match
    if where == "after create_game":
        interrupt_once(match.controller._connection, "send", after_call=1)
    elif where == "before anything":
        interrupt_once(match, "reset")
    else:
        match.close()  # the game is gone: the reset starts a new one, and is cut while it does
        interrupt_once(match, "_start")
    with pytest.raises(KeyboardInterrupt):
        env.reset(seed=5)
    obs, _ = env.reset()  # it replayed seed 4's game, while np_random_seed said 5
    assert env.unwrapped.np_random_seed == 5
    assert np.array_equal(obs["feature_screen"], fresh.reset(seed=5)[0]["feature_screen"])


def test_ctrl_c_while_closing_still_stops_the_game(make_env, interrupt_once):
    env = make_env(**SMALL)
    env.reset(seed=4)
    process = env.unwrapped.match.process
    interrupt_once(env.unwrapped.match.controller, "quit")
    with pytest.raises(KeyboardInterrupt):
        env.close()
    # Nothing referred to the process any more, yet it ran on until garbage collection.
    assert not process.running


def test_a_controller_used_directly_survives_a_ctrl_c_just_after_a_request_is_written(
    make_env, interrupt_once
):
    # Its Pending never reached the caller: the answer is read and dropped, not owed to a finish() nobody calls.
    env = make_env(**SMALL)
    env.reset(seed=4)
    controller = env.unwrapped.match.controller
    interrupt_once(controller._connection, "send", after_call=1)
    with pytest.raises(KeyboardInterrupt):
        controller.ping()
    assert controller.ping().base_build and controller.observation().observation.game_loop == 0


def test_ctrl_c_after_a_realtime_observation_was_read_keeps_the_game(make_env, interrupt_once):
    env = make_env(realtime=True, request_timeout_s=10, **SMALL)
    env.reset(seed=4)
    controller = env.unwrapped.match.controller
    interrupt_once(controller._connection, "_read_message", after_call=1)
    with pytest.raises(KeyboardInterrupt):
        env.step(FUNCTIONS.no_op())
    timed_out = []
    real_receive = controller._connection.receive

    def receive(timeout_s):
        try:
            return real_receive(timeout_s)
        except TimeoutError:
            timed_out.append(timeout_s)
            raise

    controller._connection.receive = receive
    _, _, _, _, info = env.step(FUNCTIONS.no_op())  # it waited 10 s for an answer already taken, then gave up
    assert info["game_loop"] >= 8 and not controller.closed
    assert not timed_out, "no wait for an answer that was already read"


def test_ctrl_c_as_a_realtime_episode_ends_reports_the_end_next(make_env, monkeypatch, interrupt_once):
    import json

    from sc2env.engine.mapdef import builtin_definitions
    from sc2env.game.maps import MapSpec

    # MoveToBeacon cut to 96 loops (about 4 s of real time), sent as the map's data; steps of 32 loops leave a
    # slow machine 1.4 s of slack before the game ends on its own.
    definition = json.loads(builtin_definitions()["MoveToBeacon"])
    definition["time_limit"] = 96
    monkeypatch.setattr(MapSpec, "read_data", lambda self: json.dumps(definition).encode())
    env = make_env(realtime=True, step_mul=32, request_timeout_s=10, **SMALL)
    _, info = env.reset(seed=4)
    while info["game_loop"] < 64:
        _, _, terminated, _, info = env.step(FUNCTIONS.no_op())
        assert not terminated
    # The second answer of a realtime step (after the action's): the observation saying it ended.
    interrupt_once(env.unwrapped.match.controller._connection, "_read_message", after_call=2)
    with pytest.raises(KeyboardInterrupt):
        env.step(FUNCTIONS.no_op())
    # It used to refuse every later step ("Cannot send action while the game is ended") until reset().
    _, _, terminated, _, info = env.step(FUNCTIONS.no_op())
    assert terminated and info["game_loop"] >= 96


class _PartWrite:
    """A socket whose send() writes 3 bytes once, then is interrupted: a request cut mid-frame."""

    def __init__(self, sock):
        self._sock = sock
        self._calls = 0

    def send(self, data):
        self._calls += 1
        if self._calls == 1:
            return self._sock.send(data[:3])
        raise KeyboardInterrupt

    def __getattr__(self, name):
        return getattr(self._sock, name)


def test_an_unforeseen_error_while_reading_gives_up_the_game_instead_of_repeating(make_env):
    env = make_env(**SMALL)
    env.reset(seed=4)
    connection = env.unwrapped.match.controller._connection
    original = connection.receive
    connection.receive = lambda timeout_s: (setattr(connection, "receive", original), 1 / 0)
    with pytest.raises(ZeroDivisionError):
        env.step(FUNCTIONS.no_op())
    with pytest.raises(errors.ConnectionError, match="an error while reading answers"):
        env.step(FUNCTIONS.no_op())
    _, info = env.reset()
    assert info["game_loop"] == 0


class _InterruptedAfterRecv:
    """A socket whose next recv_into takes its bytes and then raises KeyboardInterrupt, as a Ctrl-C handled
    just as the call returns does."""

    def __init__(self, sock):
        self._sock = sock
        self._interrupted = False

    def recv_into(self, *args):
        n = self._sock.recv_into(*args)
        if self._interrupted:
            return n
        self._interrupted = True
        raise KeyboardInterrupt

    def __getattr__(self, name):
        return getattr(self._sock, name)


@pytest.mark.parametrize(
    "cut, reason",
    [
        (_PartWrite, "interrupted while it was being sent"),  # part of a request went out
        # Bytes of an answer left the stream (this used to be misread as a broken frame).
        (_InterruptedAfterRecv, "interrupted half-read"),
    ],
)
def test_a_ctrl_c_that_cuts_a_message_gives_up_the_game_with_the_reason(make_env, cut, reason):
    env = make_env(**SMALL)
    env.reset(seed=4)
    ws = env.unwrapped.match.controller._connection.ws
    ws.sock = cut(ws.sock)
    with pytest.raises(KeyboardInterrupt):
        env.step(FUNCTIONS.no_op())
    with pytest.raises(errors.ConnectionError, match=reason):
        env.step(FUNCTIONS.no_op())
    obs, _ = env.reset()
    assert env.observation_space.contains(obs)


@pytest.mark.parametrize("vector, spin_wait", [(False, True), (False, False), (True, False)])
def test_a_process_with_over_a_thousand_files_open_steps(make_env, vector, spin_wait):
    # select() refuses descriptors above 1023; no wait for answers (spinning, blocking, several games) uses it.
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 1200:
        pytest.skip(f"the hard limit on open files is {hard}")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, 1200), hard))
    held = []
    gc.collect()  # sockets of earlier tests' garbage would free low descriptors for our games to take
    gc.disable()
    try:
        while not held or held[-1] < 1030:  # every free descriptor below 1030 taken
            held.append(os.open(os.devnull, os.O_RDONLY))
        if vector:
            env = gym.make_vec(
                "sc2env/MoveToBeacon-v0", num_envs=2, engine="builtin", spin_wait=spin_wait, **SMALL
            )
            games = env.envs
        else:
            env = make_env(spin_wait=spin_wait, **SMALL)
            games = [env.unwrapped]
        try:
            env.reset(seed=4)
            assert min(game.match.controller._connection.fileno() for game in games) > 1023
            _, _, _, _, info = env.step([FUNCTIONS.no_op()] * 2 if vector else FUNCTIONS.no_op())
            assert np.all(info["game_loop"] == 8)
        finally:
            env.close()
    finally:
        gc.enable()
        for fd in held:
            os.close(fd)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_ctrl_c_half_way_through_an_answer_gives_up_that_game_only(make_env, interrupt_once):
    env = make_env(**SMALL)
    env.reset(seed=4)
    connection = env.unwrapped.match.controller._connection
    interrupt_once(connection, "receive", before=lambda: setattr(connection, "between_messages", False))
    with pytest.raises(KeyboardInterrupt):
        env.step(FUNCTIONS.no_op())
    with pytest.raises(errors.ConnectionError, match="interrupted half-read"):
        env.step(FUNCTIONS.no_op())
    obs, _ = env.reset()  # a new game
    assert env.observation_space.contains(obs)


def test_ctrl_c_on_an_episodes_last_step_or_while_parsing_keeps_the_game(make_env, interrupt_once):
    env = make_env(step_mul=960, **SMALL)  # MoveToBeacon ends at loop 1920: the second step is the last
    env.reset(seed=4)
    env.step(FUNCTIONS.no_op())
    interrupt_once(env.unwrapped.match.controller._connection, "receive")
    with pytest.raises(KeyboardInterrupt):
        env.step(FUNCTIONS.no_op())
    # The game ended during the interrupted step: the next one sees it (not a refusal to act in an ended game).
    _, _, terminated, _, info = env.step(FUNCTIONS.no_op())
    assert terminated and info["game_loop"] == 1920
    env.reset()
    interrupt_once(
        env.unwrapped.match.controller._protocol, "read_response"
    )  # while the first answer is parsed
    with pytest.raises(KeyboardInterrupt):
        env.step(FUNCTIONS.no_op())
    _, _, _, _, info = env.step(FUNCTIONS.no_op())
    assert info["game_loop"] == 1920, "both steps happened (960 loops each)"


class _CtrlCAtOpcode:
    """A trace function raising KeyboardInterrupt at the `at`-th bytecode run in the client's own modules."""

    def __init__(self, at: int, files: set[str]):
        self.at, self.files, self.count, self.where = at, files, 0, None

    def __call__(self, frame, event, arg):
        if frame.f_code.co_filename not in self.files:
            return None
        frame.f_trace_opcodes = True
        if event == "opcode":
            self.count += 1
            if self.count == self.at:
                self.where = f"{pathlib.Path(frame.f_code.co_filename).name}:{frame.f_lineno}"
                raise KeyboardInterrupt
        return self


def test_a_ctrl_c_at_any_bytecode_of_a_step_keeps_the_game_or_says_the_answer_was_cut(make_env):
    # Python delivers a Ctrl-C between bytecodes (3.10: nearly any; 3.11+: after calls and at loop ends). Every
    # few bytecodes of a step's client code in turn: the next step must find the game where the interrupted one
    # left it (8 or 16 loops on), or the answer was half-read (bytes taken off the socket), and then reset()
    # recovers. Never a wait for an answer that will not come, or an answer taken for another's.
    import sc2env

    package = pathlib.Path(sc2env.__file__).parent
    files = {
        str(package / name)
        for name in (
            "client/controller.py",
            "client/connection.py",
            "game/match.py",
            "env/env.py",
            "spinwait.py",
        )
    }
    env = make_env(request_timeout_s=5, **SMALL)  # a lost track would show as this timeout
    env.reset(seed=1)
    kept, cut, at = 0, 0, 1
    while True:
        loop = int(env.unwrapped.last_observation.game_loop[0])
        strike = _CtrlCAtOpcode(at, files)
        sys.settrace(strike)
        try:
            env.step(FUNCTIONS.no_op())
        except KeyboardInterrupt:
            pass
        finally:
            sys.settrace(None)
        if strike.where is None:
            break  # past the last bytecode of a step
        try:
            _, _, terminated, truncated, info = env.step(FUNCTIONS.no_op())
        except errors.ConnectionError as error:
            assert "interrupted half-read" in str(error), f"Ctrl-C at {strike.where}: {error}"
            cut += 1
            env.reset()
            continue
        except errors.ProtocolError as error:  # the interrupted step was its episode's last
            assert "after the episode ended" in str(error), f"Ctrl-C at {strike.where}: {error}"
            env.reset()
            continue
        finally:
            at += 7
        assert info["game_loop"] - loop in (8, 16), f"Ctrl-C at {strike.where}"
        kept += 1
        if terminated or truncated:
            env.reset()
    # Most points keep the game; how many fall mid-answer depends on how many pieces the answers arrive in.
    assert kept > 100 and cut < kept, (kept, cut)


def test_a_numpy_integer_seed_is_a_seed(make_env):
    # Gymnasium's Env.reset takes Python ints only; seeds drawn with numpy (rng.integers) are as good.
    env = make_env(**SMALL)
    obs, _ = env.reset(seed=np.int64(3))
    again, _ = env.reset(seed=3)
    assert (
        np.array_equal(obs["feature_screen"], again["feature_screen"]) and env.unwrapped.np_random_seed == 3
    )
