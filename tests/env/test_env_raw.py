"""actions="raw" on the built-in engine: the raw action space, masks from per-unit abilities, group commands."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from sc2env import errors
from sc2env.env import EnvConfig
from sc2env.interface import FUNCTIONS, RAW_FUNCTIONS, FeatureUnit

F = RAW_FUNCTIONS
SMALL = {"screen_size": 32, "minimap_size": 32, "actions": "raw"}
SELF, ENEMY = 1, 4
MARINE, ROACH, SCV, COMMAND_CENTER, MINERAL_FIELD = 48, 110, 45, 18, 341


def rows(obs, column: FeatureUnit, value: int) -> np.ndarray:
    n = obs["unit_counts"][1]
    return np.flatnonzero(obs["raw_units"][:n, column] == value)


def test_spaces_and_unconditional_masks(make_env):
    env = make_env("DefeatRoaches", **SMALL)
    obs, _ = env.reset(seed=1)
    space = env.unwrapped.raw_space
    assert env.action_space.nvec.tolist() == [564, 2, 257, 256, 64 * 64]
    assert env.observation_space.contains(obs) and obs["action_mask"].shape == (space.total,)
    mask = obs["action_mask"].astype(bool)
    assert {F[i].name for i in np.flatnonzero(mask[space.segment("function")])} == {
        "no_op",
        "raw_move_camera",
        "Smart_pt",
        "Smart_unit",
        "Attack_pt",
        "Attack_unit",
        "Move_pt",
        "Move_unit",
        "Patrol_pt",
        "Patrol_unit",
        "HoldPosition_quick",
        "Stop_quick",
    }
    marines, roaches = rows(obs, FeatureUnit.unit_type, MARINE), rows(obs, FeatureUnit.unit_type, ROACH)
    units = mask[space.segment("units")]
    assert len(marines) == 9 and len(roaches) == 4
    assert units[marines].all() and not units[roaches].any() and units[space.all_able]
    assert mask[space.segment("target")].sum() == obs["unit_counts"][1] == 13
    # The playable area, 22 x 16 cells of the 64 x 64 raw grid.
    assert mask[space.segment("world")].sum() == 22 * 16
    assert np.array_equal(env.unwrapped.action_masks(), mask)


def test_group_focus_fire_kills_roaches(make_env):
    env = make_env("DefeatRoaches", **SMALL)
    obs, _ = env.reset(seed=1)
    space = env.unwrapped.raw_space
    total = 0.0
    for _ in range(80):
        roaches = rows(obs, FeatureUnit.alliance, ENEMY)
        obs, reward, terminated, _truncated, info = env.step(
            np.array([F.Attack_unit.id, 0, space.all_able, roaches[0], 0])
        )
        assert not info["invalid_action"], info["invalid_action_reason"]
        assert obs["last_actions"][:2].tolist() == [F.Attack_unit.id, -1]  # the game echoed the raw command
        total += reward
        if total >= 10 or terminated:
            break
    assert total >= 10, "nine marines focusing one roach at a time kill it (+10)"


def test_one_unit_walks_to_the_beacon(make_env):
    env = make_env("MoveToBeacon", **SMALL)
    obs, _ = env.reset(seed=2)
    marine = int(rows(obs, FeatureUnit.alliance, SELF)[0])
    beacon = obs["raw_units"][rows(obs, FeatureUnit.alliance, 3)[0]]
    call = F.Move_pt("now", [marine], (beacon[FeatureUnit.x], beacon[FeatureUnit.y]))
    vector = env.unwrapped.function_call_to_action(call)
    assert env.unwrapped.action_to_function_call(vector) == call
    total = 0.0
    for _ in range(20):
        obs, reward, *_ = env.step(call)
        total += reward
        if total:
            break
    assert total == 1.0


def test_conditional_masks_narrow_units_targets_and_points(make_env):
    env = make_env("BuildMarines", **SMALL)
    obs, _ = env.reset(seed=1)
    u = env.unwrapped
    space = u.raw_space
    cc, scvs = rows(obs, FeatureUnit.unit_type, COMMAND_CENTER), rows(obs, FeatureUnit.unit_type, SCV)
    fields = rows(obs, FeatureUnit.unit_type, MINERAL_FIELD)
    gather = u.raw_conditional_mask(F.Harvest_Gather_unit.id)
    assert np.flatnonzero(gather[space.segment("units")][:256]).tolist() == scvs.tolist()
    assert np.flatnonzero(gather[space.segment("target")]).tolist() == fields.tolist()
    assert gather[space.segment("world")].tolist() == [True] + [False] * (64 * 64 - 1)  # unused: pinned to 0
    train = u.raw_conditional_mask(F.Train_SCV_quick.id)
    assert np.flatnonzero(train[space.segment("units")]).tolist() == [*cc.tolist(), space.all_able]
    assert np.flatnonzero(train[space.segment("target")]).tolist() == [0]
    obs, *_ = env.step(F.Train_SCV_quick("now", cc.tolist()))
    for _ in range(40):  # 12 s of game time: an SCV takes 272 loops to train
        if len(rows(obs, FeatureUnit.unit_type, SCV)) > len(scvs):
            break
        obs, *_ = env.step(F.no_op())
    assert len(rows(obs, FeatureUnit.unit_type, SCV)) == len(scvs) + 1
    # The step's query asked about the units seen before it; the new SCV was asked about at once.
    assert u.raw_masks.units_for(F.Harvest_Gather_unit.id)[rows(obs, FeatureUnit.unit_type, SCV)].all()


def test_invalid_raw_actions_become_no_op_or_raise(make_env):
    env = make_env("DefeatRoaches", **SMALL)
    obs, _ = env.reset(seed=1)
    marine = int(rows(obs, FeatureUnit.alliance, SELF)[0])
    roach = int(rows(obs, FeatureUnit.alliance, ENEMY)[0])
    _, _, _, _, info = env.step(F.Harvest_Gather_unit("now", [marine], roach))
    assert (
        info["invalid_action"] and "Harvest_Gather_unit is not available now" in info["invalid_action_reason"]
    )
    _, _, _, _, info = env.step(F.Attack_unit("now", [roach], marine))
    assert info["invalid_action"] and f"row {roach} can't use it now" in info["invalid_action_reason"]
    with pytest.raises(errors.MalformedActionError, match="feature-layer FunctionCall"):
        env.step(FUNCTIONS.no_op())
    with pytest.raises(errors.MalformedActionError, match=r"units component 300 is outside 0..256"):
        env.step(np.array([F.Stop_quick.id, 0, 300, 0, 0]))
    with pytest.raises(errors.InvalidActionError, match="commands one unit or every unit able"):
        env.unwrapped.function_call_to_action(F.Stop_quick("now", [0, 1]))
    strict = make_env("DefeatRoaches", invalid_action="raise", **SMALL)
    strict.reset(seed=1)
    with pytest.raises(errors.InvalidActionError, match="is not available now"):
        strict.step(F.Harvest_Gather_unit("now", [marine], roach))
    obs, *_ = strict.step(F.Stop_quick("now", [marine]))  # the env goes on after a refused action
    assert obs["game_loop"][0] == 8


def test_config_checks():
    with pytest.raises(ValueError, match="actions must be one of"):
        EnvConfig(actions="unit")
    with pytest.raises(ValueError, match="functions= narrows the feature-layer function component"):
        EnvConfig(actions="raw", functions=["no_op"])
    assert EnvConfig(actions="raw").interface_format().use_raw_units


def test_a_raw_grid_unlike_the_maps_is_refused_at_reset(make_env):
    env = make_env("MoveToBeacon", raw_resolution=32, **SMALL)
    with pytest.raises(ValueError, match="this map's is 64×64: pass raw_resolution=64"):
        env.reset(seed=1)


def test_vector_env_steps_raw_actions(make_vec):
    envs = make_vec("DefeatRoaches", 2, actions="raw", screen_size=32, minimap_size=32)
    obs, _ = envs.reset(seed=5)
    all_able = envs.envs[0].raw_space.all_able
    assert obs["action_mask"].shape == (2, envs.envs[0].raw_space.total)
    actions = np.array([[F.Attack_pt.id, 0, all_able, 0, 30 * 64 + 40], [F.Stop_quick.id, 0, all_able, 0, 0]])
    obs, _reward, _terminated, _truncated, info = envs.step(actions)
    assert not info["invalid_action"].any() and (obs["game_loop"][:, 0] == 8).all()


def test_gymnasiums_checker_passes(make_env, recwarn):
    env = make_env("DefeatRoaches", **SMALL)
    check_env(env.unwrapped, skip_render_check=True)
    problems = [
        str(w.message)
        for w in recwarn
        if issubclass(w.category, (UserWarning, DeprecationWarning)) and "gymnasium" in str(w.filename)
    ]
    assert not problems, problems


def test_only_the_rows_the_observation_holds_are_named(make_env):
    # 4 rows of CollectMineralsAndGas' ~30 units: the masks, the every-able-unit value and the checks all
    # keep to the rows the agent sees.
    env = make_env("CollectMineralsAndGas", max_units=4, invalid_action="raise", **SMALL)
    obs, _ = env.reset(seed=1)
    u = env.unwrapped
    space = u.raw_space
    assert len(u.raw_masks.units) == 4 and len(u.last_observation.raw_units) > 4
    seen = obs["raw_units"][:4]
    able = np.flatnonzero(seen[:, FeatureUnit.alliance] == SELF)
    units = obs["action_mask"][space.segment("units")].astype(bool)
    assert units[space.all_able] == bool(len(able))
    assert np.flatnonzero(units).tolist() == (
        able.tolist() + [space.all_able] if len(able) else [0]
    )  # 0: pinned
    with pytest.raises(errors.InvalidActionError, match="row 10 names no unit: there are 4 rows"):
        env.step(F.Stop_quick("now", [10]))
    with pytest.raises(errors.InvalidActionError, match="outside the 64×64 raw grid"):
        u.function_call_to_action(F.Move_pt("now", [0], (70, 3)))
    with pytest.raises(ValueError, match="function must be a raw function id"):
        u.raw_conditional_mask(True)
    assert np.array_equal(u.raw_conditional_mask(F.Stop_quick), u.raw_conditional_mask(F.Stop_quick.id))


def test_building_sites_come_from_the_placement_grid(make_env):
    env = make_env("BuildMarines", **SMALL)
    env.reset(seed=1)
    u = env.unwrapped
    space = u.raw_space
    playable = u.action_masks()[space.segment("world")]
    sites = u.raw_conditional_mask(F.Build_SupplyDepot_pt.id)[space.segment("world")]
    moves = u.raw_conditional_mask(F.Smart_pt.id)[space.segment("world")]
    assert np.array_equal(moves, playable) and not (sites & ~playable).any()
    # The mineral line and the Command Center take cells of the playable area off the placement grid.
    assert 0 < sites.sum() == u.transforms.map_info.placement.sum() < playable.sum()


def test_a_raw_episodes_replay_reads_back_as_the_raw_actions_played(make_env, tmp_path):
    from sc2env.agents import RawFocusFire
    from sc2env.env import export_replay, load_episode, watch_replay

    env = make_env("DefeatRoaches", save_replay_episodes=1, replay_dir=str(tmp_path), **SMALL)
    agent = RawFocusFire()
    env.reset(seed=3)
    agent.setup(env.unwrapped)
    agent.reset()
    played = []
    for _ in range(60):
        call = agent.step(env.unwrapped.last_observation)
        played.append(env.unwrapped.function_call_to_action(call))  # the vector, against the same masks
        _, _, terminated, truncated, _ = env.step(call)
        if terminated or truncated:
            break
    env.close()  # saves the replay
    (path,) = tmp_path.glob("*.SC2Replay")
    config = {"screen_size": 32, "minimap_size": 32, "actions": "raw"}
    steps = list(watch_replay(path, config))
    assert len(steps) == len(played)
    assert [step.action.tolist() for step in steps] == [vector.tolist() for vector in played]
    assert sum(int(v[0]) == F.Attack_unit.id for v in played) >= 2
    assert steps[1].observation["last_actions"][0] == played[0][0]  # the echo of the first command
    assert steps[0].observation["action_mask"].shape == (env.unwrapped.raw_space.total,)
    export_replay(path, tmp_path / "episode.npz", config)
    assert load_episode(tmp_path / "episode.npz").actions.shape == (len(played), 5)
    # Through feature-layer eyes, the same replay's raw commands read back in their feature-layer form.
    feature_steps = list(watch_replay(path, {"screen_size": 32, "minimap_size": 32}))
    assert FUNCTIONS.Attack_screen.id in {int(step.action[0]) for step in feature_steps}


def test_a_feature_players_replay_reads_back_as_raw_commands(make_env, tmp_path, caplog):
    import logging

    from sc2env.env import watch_replay

    env = make_env(
        "MoveToBeacon", screen_size=32, minimap_size=32, save_replay_episodes=1, replay_dir=str(tmp_path)
    )
    env.reset(seed=1)
    env.step(FUNCTIONS.select_army("select"))
    env.step(FUNCTIONS.Move_screen("now", (3, 4)))
    env.close()
    (path,) = tmp_path.glob("*.SC2Replay")
    with caplog.at_level(logging.WARNING, logger="sc2env.env.replay_watcher"):
        steps = list(
            watch_replay(path, {"actions": "raw", **dict.fromkeys(("screen_size", "minimap_size"), 32)})
        )
    # The selection has no raw form (left out, logged); the click becomes the Marine's raw Move to that place.
    assert [int(step.action[0]) for step in steps] == [F.no_op.id, F.Move_pt.id]
    marine = int(np.flatnonzero(steps[1].observation["raw_units"][:, FeatureUnit.alliance] == SELF)[0])
    assert steps[1].calls == [F.Move_pt("now", [marine], steps[1].calls[0].arguments[2])]
    assert any("an action in no raw form" in record.getMessage() for record in caplog.records)
