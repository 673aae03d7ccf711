"""Every scenario's sizes, agent counts and limits, as SMAC's formulas give them (no game needed)."""

from __future__ import annotations

import pytest

from sc2env.errors import LaunchError, UnknownMapError
from sc2env.smac import SCENARIOS, SMAC_SCENARIOS, StarCraft2Env, get_scenario
from sc2env.smac.scenarios import map_spawns
from sc2env.smac.unit_kinds import KIND_OF_CATALOG, MAP_FAMILIES

# name: (n_agents, n_enemies, episode_limit, n_actions, obs size, state size), with SMAC's defaults. From SMAC's
# formulas: n_actions = 6 + n_enemies; obs = 4 + n_enemies * (4 + bits + 1 + shield_enemy) + (n_agents - 1) *
# (4 + bits + 1 + shield_ally) + (1 + shield_ally + bits); state = n_agents * (4 + shield_ally + bits) +
# n_enemies * (3 + shield_enemy + bits) + n_agents * n_actions. The published figures agree (3m 30/48, 3s5z
# 128/216, MMM2 176/322, corridor 156/282, 2c_vs_64zg 332/342).
EXPECTED = {
    "3m": (3, 3, 60, 9, 30, 48),
    "8m": (8, 8, 120, 14, 80, 168),
    "25m": (25, 25, 150, 31, 250, 950),
    "5m_vs_6m": (5, 6, 70, 12, 55, 98),
    "8m_vs_9m": (8, 9, 120, 15, 85, 179),
    "10m_vs_11m": (10, 11, 150, 17, 105, 243),
    "27m_vs_30m": (27, 30, 180, 36, 285, 1170),
    "MMM": (10, 10, 150, 16, 160, 290),
    "MMM2": (10, 12, 180, 18, 176, 322),
    "2s3z": (5, 5, 120, 11, 80, 120),
    "3s5z": (8, 8, 150, 14, 128, 216),
    "3s5z_vs_3s6z": (8, 9, 170, 15, 136, 230),
    "3s_vs_3z": (3, 3, 150, 9, 36, 54),
    "3s_vs_4z": (3, 4, 200, 10, 42, 61),
    "3s_vs_5z": (3, 5, 250, 11, 48, 68),
    "1c3s5z": (9, 9, 180, 15, 162, 270),
    "2m_vs_1z": (2, 1, 150, 7, 16, 26),
    "corridor": (6, 24, 400, 30, 156, 282),
    "6h_vs_8z": (6, 8, 150, 14, 78, 140),
    "2s_vs_1sc": (2, 1, 300, 7, 17, 27),
    "so_many_baneling": (7, 32, 100, 38, 202, 397),
    "bane_vs_bane": (24, 24, 200, 30, 336, 984),
    "2c_vs_64zg": (2, 64, 400, 70, 332, 342),
}


def test_smac_has_its_23_scenarios():
    assert list(SMAC_SCENARIOS) == list(EXPECTED)


@pytest.mark.parametrize("name", EXPECTED)
def test_env_info_gives_smac_sizes(name):
    env = StarCraft2Env(map_name=name)  # no game starts before reset()
    n_agents, n_enemies, limit, n_actions, obs, state = EXPECTED[name]
    info = env.get_env_info()
    assert (info["n_agents"], env.n_enemies, info["episode_limit"]) == (n_agents, n_enemies, limit)
    assert (info["n_actions"], info["obs_shape"], info["state_shape"]) == (n_actions, obs, state)
    assert (
        env.get_obs_size() == obs and env.get_state_size() == state and env.get_total_actions() == n_actions
    )


@pytest.mark.parametrize(
    ("name", "options", "obs", "state"),
    [
        # obs_last_action adds n_actions per ally; state without last actions drops n_agents * n_actions.
        ("3m", dict(obs_last_action=True, state_last_action=False), 30 + 2 * 9, 48 - 3 * 9),
        ("MMM2", dict(obs_last_action=True, state_last_action=False), 176 + 9 * 18, 322 - 10 * 18),
        # 8 pathing values and 9 heights; one value each for the timestep flags.
        ("8m", dict(obs_pathing_grid=True, obs_terrain_height=True), 80 + 8 + 9, 168),
        ("2s3z", dict(obs_timestep_number=True, state_timestep_number=True), 80 + 1, 120 + 1),
        # No health in observations: 1 (+1 shield) fewer per enemy and ally, and for the agent itself.
        ("2s3z", dict(obs_all_health=False, obs_own_health=False), 80 - 5 * 2 - 4 * 2 - 2, 120),
        ("3s5z", dict(obs_instead_of_state=True), 128, 128 * 8),
    ],
)
def test_options_change_the_sizes_as_smac_counts_them(name, options, obs, state):
    env = StarCraft2Env(map_name=name, **options)
    assert (env.get_obs_size(), env.get_state_size()) == (obs, state)


def test_env_info_names_the_state_features():
    info = StarCraft2Env(map_name="2s3z").get_env_info()
    assert info["agent_features"] == [
        "health",
        "energy/cooldown",
        "rel_x",
        "rel_y",
        "shield",
        "type_0",
        "type_1",
    ]
    assert info["enemy_features"] == ["health", "rel_x", "rel_y", "shield", "type_0", "type_1"]
    marines = StarCraft2Env(map_name="3m").get_env_info()
    assert marines["agent_features"] == ["health", "energy/cooldown", "rel_x", "rel_y"]


@pytest.mark.parametrize("name", SMAC_SCENARIOS)
def test_the_maps_spawn_what_the_registry_says(name):
    """The scenario table (SMAC's Python) and the map files (read into maps/smac/source) agree on who fights."""
    scenario = get_scenario(name)
    spawns = map_spawns(scenario.map_file)
    agents = [(kind, n) for player, kind, n in spawns if player == 1]
    assert sum(n for _, n in agents) == scenario.n_agents
    assert sum(n for player, _, n in spawns if player == 2) == scenario.n_enemies
    # Every agent is one of the map family's kinds, so SMAC's type one-hot has a place for it.
    family = MAP_FAMILIES[scenario.map_type]
    assert {KIND_OF_CATALOG[kind] for kind, _ in agents} <= set(family.allies)


def test_generated_scenarios_load_smacv2s_empty_map():
    for name in ("10gen_terran", "10gen_zerg", "10gen_protoss"):
        scenario = SCENARIOS[name]
        assert scenario.generated and scenario.map_path == "SMAC_Maps/32x32_flat.SC2Map"
        assert map_spawns(scenario.map_file) == ()


def test_an_unknown_scenario_is_named_with_close_ones():
    with pytest.raises(UnknownMapError, match=r"Unknown SMAC scenario '3M'.*Did you mean 3m"):
        StarCraft2Env(map_name="3M")
    with pytest.raises(UnknownMapError, match="Known scenarios: 3m, 8m"):
        get_scenario("nothing_like_it")


@pytest.mark.parametrize(
    ("argument", "value", "message"),
    [
        ("difficulty", "11", "difficulty must be one of 1, 2"),
        ("step_mul", 0, "step_mul must be a whole number of at least 1"),
        ("move_amount", -2, "move_amount must be a distance above 0"),
        ("seed", -1, "seed must be a whole number >= 0"),
        ("obs_last_action", "yes", "obs_last_action must be True or False"),
        ("reward_win", "200", "reward_win must be a finite number"),
    ],
)
def test_bad_arguments_are_refused_by_name(argument, value, message):
    with pytest.raises((ValueError, TypeError), match=message):
        StarCraft2Env(map_name="3m", **{argument: value})


def test_the_real_game_needs_smacs_maps_installed(tmp_path):
    """engine="sc2" with an install that lacks Maps/SMAC_Maps: a clear error before any process starts."""
    game = tmp_path / "StarCraftII"
    exe = game / "Versions" / "Base75689" / "SC2_x64"
    exe.parent.mkdir(parents=True)
    exe.write_text("#!/bin/sh\nexit 3\n")
    exe.chmod(0o755)
    (game / "Maps").mkdir()
    env = StarCraft2Env(map_name="2s3z", engine="sc2", sc2path=game)
    with pytest.raises(
        LaunchError, match=r"put SMAC_Maps/2s3z\.SC2Map there \(it comes with SMAC's repository\)"
    ):
        env.reset()
    env.close()


def test_an_unknown_map_lists_the_mini_games_then_smacs():
    from sc2env.game import resolve_map

    with pytest.raises(
        UnknownMapError,
        match=r"Known maps: BuildMarines, .*MoveToBeacon(, \w+)*; SMAC's: 10m_vs_11m, 1c3s5z",
    ):
        resolve_map("Nowhere")
    assert resolve_map("3m").path == "SMAC_Maps/3m.SC2Map"
