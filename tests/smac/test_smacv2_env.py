"""SMACv2's API on sc2env.smac: its episode distributions, sizes, enemy sharing, bad input, and its generated
scenarios end to end on the built-in engine (a real engine process over a websocket)."""

from __future__ import annotations

import collections

import numpy as np
import pytest

from sc2env.smac import CapabilityConfigError, StarCraft2Env, StarCraftCapabilityEnvWrapper
from sc2env.smac.distributions import episode_generator
from sc2env.smac.sharing import EnemySharing
from sc2env.smac.unit_kinds import MAP_FAMILIES

KINDS = {"protoss": ("stalker", "zealot", "colossus"), "terran": ("marine", "marauder", "medivac")}
KINDS["zerg"] = ("zergling", "baneling", "hydralisk")
# SMACv2's published configs (smacv2/examples/configs/sc2_gen_*.yaml): weights and exceptions per race.
WEIGHTS = {"protoss": [0.45, 0.45, 0.1], "terran": [0.45, 0.45, 0.1], "zerg": [0.45, 0.1, 0.45]}
EXCEPTIONS = {"protoss": [], "terran": ["medivac"], "zerg": ["baneling"]}
# get_env_info of SMACv2's own StarCraft2Env with those configs (use_unit_ranges, obs_own_pos, min attack
# range 2), read from its code for every size its README lists: (n_actions, obs_shape, state_shape).
SMACV2_SIZES = {
    ("protoss", 5, 5): (11, 92, 130),
    ("protoss", 10, 10): (16, 182, 310),
    ("protoss", 20, 20): (26, 362, 820),
    ("protoss", 10, 11): (17, 191, 327),
    ("protoss", 20, 23): (29, 389, 901),
    ("terran", 5, 5): (11, 82, 120),
    ("terran", 10, 10): (16, 162, 290),
    ("terran", 20, 20): (26, 322, 780),
    ("terran", 10, 11): (17, 170, 306),
    ("terran", 20, 23): (29, 346, 858),
    ("zerg", 5, 5): (11, 82, 120),
    ("zerg", 10, 10): (16, 162, 290),
    ("zerg", 20, 20): (26, 322, 780),
    ("zerg", 10, 11): (17, 170, 306),
    ("zerg", 20, 23): (29, 346, 858),
}


def capability(
    race: str, n_units: int = 5, n_enemies: int = 5, start: str = "surrounded_and_reflect"
) -> dict:
    return {
        "n_units": n_units,
        "n_enemies": n_enemies,
        "team_gen": {
            "dist_type": "weighted_teams",
            "unit_types": list(KINDS[race]),
            "weights": WEIGHTS[race],
            "exception_unit_types": EXCEPTIONS[race],
            "observe": True,
        },
        "start_positions": {"dist_type": start, "p": 0.5, "map_x": 32, "map_y": 32},
    }


def smacv2_env(race: str, n_units: int = 5, n_enemies: int = 5, **kwargs) -> StarCraftCapabilityEnvWrapper:
    """The wrapper with SMACv2's published defaults, on the built-in engine."""
    options = dict(obs_own_pos=True, use_unit_ranges=True, min_attack_range=2, engine="builtin")
    return StarCraftCapabilityEnvWrapper(
        capability_config=capability(race, n_units, n_enemies), map_name=f"10gen_{race}", **options | kwargs
    )


# ---- sizes ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("race", "n_units", "n_enemies"), sorted(SMACV2_SIZES))
def test_sizes_are_smacv2s_for_its_published_scenarios(race, n_units, n_enemies):
    env = smacv2_env(race, n_units, n_enemies)
    info = env.get_env_info()
    expected = SMACV2_SIZES[(race, n_units, n_enemies)]
    assert (info["n_actions"], info["obs_shape"], info["state_shape"]) == expected
    assert (info["n_agents"], info["episode_limit"], info["cap_shape"]) == (n_units, 200, 3)
    assert env.n_enemies == n_enemies
    env.close()


def test_terran_agents_outnumbering_enemies_get_a_heal_action_per_agent():
    env = smacv2_env("terran", 12, 10)
    assert env.get_total_actions() == 6 + 12
    env.close()
    env = smacv2_env("zerg", 12, 10)
    assert env.get_total_actions() == 6 + 10
    env.close()


# ---- the distributions --------------------------------------------------------------------------------------
def test_weighted_teams_follow_the_weights_and_never_field_only_exceptions():
    generate = episode_generator(capability("zerg", 5, 5), KINDS["zerg"], 5, 5)
    rng = np.random.default_rng(0)
    counts: collections.Counter[str] = collections.Counter()
    for _ in range(2000):
        team = generate(rng)["team_gen"]
        assert team["ally_team"] == team["enemy_team"] and len(team["ally_team"]) == 5
        assert set(team["ally_team"]) != {"baneling"}
        counts.update(team["ally_team"])
    total = sum(counts.values())
    for kind, weight in zip(KINDS["zerg"], WEIGHTS["zerg"]):
        assert counts[kind] / total == pytest.approx(weight, abs=0.02)


def test_more_enemies_extend_the_agents_team_and_fewer_cut_it():
    rng = np.random.default_rng(1)
    more = episode_generator(capability("terran", 5, 7), KINDS["terran"], 5, 7)(rng)["team_gen"]
    assert more["enemy_team"][:5] == more["ally_team"] and len(more["enemy_team"]) == 7
    fewer = episode_generator(capability("terran", 5, 3), KINDS["terran"], 5, 3)(rng)["team_gen"]
    assert fewer["enemy_team"] == fewer["ally_team"][:3]


def test_reflected_starts_mirror_the_agents_across_the_middle():
    generate = episode_generator(capability("zerg", 5, 7, "reflect_position"), KINDS["zerg"], 5, 7)
    config = generate(np.random.default_rng(2))
    allies = config["ally_start_positions"]["item"]
    enemies = config["enemy_start_positions"]["item"]
    assert allies.shape == (5, 2) and enemies.shape == (7, 2)
    assert (allies[:, 0] < 15).all() and (allies >= 0).all() and (allies[:, 1] < 32).all()
    np.testing.assert_allclose(enemies[:5], np.column_stack([32 - allies[:, 0], allies[:, 1]]))
    assert (enemies[5:, 0] >= 16).all()


def test_surrounded_starts_put_the_agents_at_the_centre_and_enemies_on_diagonals():
    generate = episode_generator(capability("zerg", 5, 9, "surrounded"), KINDS["zerg"], 5, 9)
    for seed in range(20):
        config = generate(np.random.default_rng(seed))
        np.testing.assert_array_equal(config["ally_start_positions"]["item"], np.full((5, 2), 16.0))
        enemies = config["enemy_start_positions"]["item"]
        offset = enemies - 16
        # On a diagonal, between 2 cells off the centre (both ways) and the corner.
        np.testing.assert_allclose(np.abs(offset[:, 0]), np.abs(offset[:, 1]))
        assert (np.abs(offset) >= 2 - 1e-9).all() and (np.abs(offset) <= 16).all()
        assert 1 <= len({tuple(np.sign(o)) for o in offset}) <= 4


def test_surrounded_and_reflect_draws_both_about_as_often_as_p_says():
    generate = episode_generator(capability("zerg"), KINDS["zerg"], 5, 5)
    rng = np.random.default_rng(3)
    surrounded = sum(bool((generate(rng)["ally_start_positions"]["item"] == 16).all()) for _ in range(1000))
    assert surrounded / 1000 == pytest.approx(0.5, abs=0.05)


def test_all_teams_draws_every_multiset_but_all_exceptions():
    config = capability("terran", 2, 2)
    config["team_gen"] = {
        "dist_type": "all_teams",
        "unit_types": ["marine", "medivac"],
        "exception_unit_types": ["medivac"],
    }
    generate = episode_generator(config, KINDS["terran"], 2, 2)
    rng = np.random.default_rng(4)
    seen = {tuple(sorted(generate(rng)["team_gen"]["ally_team"])) for _ in range(200)}
    assert seen == {("marine", "marine"), ("marine", "medivac")}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda c: c["team_gen"].update(unit_types=["marine", "zergling"]), "zergling is none"),
        (lambda c: c["team_gen"].update(weights=[0.5, 0.5, 0.5]), "one probability per unit type"),
        (lambda c: c["team_gen"].update(dist_type="fancy"), "'fancy': sc2env plays weighted_teams"),
        (
            lambda c: c["team_gen"].update(exception_unit_types=KINDS["terran"]),
            "every unit type is an exception",
        ),
        (lambda c: c["start_positions"].pop("map_x"), "needs 'map_x'"),
        (
            lambda c: c.update(attack={"dist_type": "per_agent_uniform"}),
            "does not play SMACv2.s stochastic attacks",
        ),
        (
            lambda c: c.update(health={"dist_type": "per_agent_uniform"}),
            "does not play SMACv2.s stochastic health",
        ),
        (lambda c: c.update(enemy_mask={"dist_type": "mask"}), "does not play SMACv2.s enemy masks"),
        (lambda c: c.update(teams={}), "key 'teams' is none of SMACv2's"),
        (lambda c: c.update(n_units=0), r"capability_config\['n_units'\] must be a whole number 1 to 200"),
    ],
)
def test_a_bad_capability_config_is_refused_naming_it(change, message):
    config = capability("terran")
    change(config)
    with pytest.raises(CapabilityConfigError, match=message):
        StarCraftCapabilityEnvWrapper(capability_config=config, map_name="10gen_terran", engine="builtin")


def test_smacv2_options_sc2env_does_not_play_are_refused_by_name():
    with pytest.raises(ValueError, match="conic_fov=True"):
        smacv2_env("zerg", conic_fov=True)
    with pytest.raises(ValueError, match="obs_starcraft=False"):
        smacv2_env("zerg", obs_starcraft=False)
    with pytest.raises(ValueError, match="prob_obs_enemy is a probability"):
        smacv2_env("zerg", prob_obs_enemy=1.5)
    with pytest.raises(
        CapabilityConfigError, match="capability_config applies to SMACv2's generated scenarios"
    ):
        StarCraft2Env(map_name="3m", capability_config=capability("terran"))


# ---- enemy sharing ------------------------------------------------------------------------------------------
def test_an_enemy_seen_is_known_by_its_finder_and_told_to_others_by_probability():
    sees = np.array([[True, False], [False, False], [False, False]])
    alive = np.ones(3, bool)
    never = EnemySharing(3, 2, 0.0, np.random.default_rng(0))
    shared = never.observe(sees, alive)
    assert shared.tolist() == [[True, False], [False, False], [False, False]]
    always = EnemySharing(3, 2, 1.0, np.random.default_rng(0))
    assert always.observe(sees, alive)[:, 0].tolist() in (
        [True, True, True],
        [True, False, True],
        [True, True, False],
        [True, False, False],
    )
    # Once told, known for good: the next round everyone knows, seeing it or not.
    assert always.observe(np.zeros((3, 2), bool), alive)[:, 0].all()


def test_the_finders_death_and_the_enemys_make_everyone_forget():
    sharing = EnemySharing(2, 2, 1.0, np.random.default_rng(0))
    sharing.observe(np.array([[True, True], [False, False]]), np.ones(2, bool))
    assert sharing.known.all()
    sharing.after_step(np.array([False, False]), np.array([False, True]))  # enemy 1 died
    assert sharing.known[:, :].tolist() == [[True, True], [False, False]]
    sharing.after_step(np.array([True, False]), np.array([False, False]))  # agent 0, the finder, died
    assert not sharing.known.any() and (sharing.tagger == -1).all()


def test_a_dead_agent_learns_nothing_and_finds_nothing():
    sharing = EnemySharing(2, 1, 1.0, np.random.default_rng(0))
    shared = sharing.observe(np.array([[True], [True]]), np.array([False, True]))
    assert shared.tolist() == [[False], [True]] and sharing.tagger.tolist() == [1]


# ---- end to end on the built-in engine -----------------------------------------------------------------------
def engine_plays_colossus() -> bool:
    from sc2env.gamedata import unit_type_by_name

    try:
        unit_type_by_name("Colosus_RL")
    except KeyError:
        return False
    return True


PROTOSS = pytest.param(
    "protoss",
    marks=pytest.mark.skipif(not engine_plays_colossus(), reason="the built-in engine has no Colossus yet"),
)


@pytest.mark.parametrize("race", ["terran", "zerg", PROTOSS])
def test_a_random_policy_plays_generated_episodes(race):
    rng = np.random.default_rng(0)
    with smacv2_env(race, seed=2) as env:
        for _ in range(2):
            obs, state = env.reset()
            team = env.episode_config["team_gen"]
            # The agents are the drawn team (SMAC's order: by type id, x, y), the enemies the drawn kinds.
            assert sorted(env.agent_kinds) == sorted(team["ally_team"])
            enemy_kinds = [
                MAP_FAMILIES[f"{race}_gen"].allies[i]
                for i in np.argmax(env.get_state_dict()["enemies"][:, -3:], axis=1)
            ]
            assert sorted(enemy_kinds) == sorted(team["enemy_team"])
            caps = env.get_capabilities().reshape(5, 3)
            assert [KINDS[race][KINDS[race].index(k)] for k in env.agent_kinds] == [
                MAP_FAMILIES[f"{race}_gen"].allies[i] for i in caps.argmax(axis=1)
            ]
            terminated, steps = False, 0
            while not terminated:
                assert len(obs) == 5 and all(o.shape == (env.get_obs_size(),) for o in obs)
                assert state.shape == (env.get_state_size(),)
                avail = np.array(env.get_avail_actions())
                actions = np.argmax(rng.random(avail.shape) * avail, axis=1)
                reward, terminated, info = env.step(actions)
                assert np.isfinite(reward) and reward >= 0
                obs, state = env.get_obs(), env.get_state()
                steps += 1
            assert 1 <= steps <= 200 and set(info) >= {"battle_won", "dead_allies", "dead_enemies"}
        assert env.get_stats()["battles_game"] == 2


def test_own_position_in_the_observation_is_where_the_unit_stands():
    with smacv2_env("zerg", seed=4) as env:
        obs, _ = env.reset()
        own = env.get_obs_size() - 3 - 2  # ... own position x, y, then the type one-hot
        for i in range(5):
            unit = env.get_unit_by_id(i)
            assert obs[i][own : own + 2] == pytest.approx([unit.pos.x / 32, unit.pos.y / 32], abs=1e-6)


def test_the_same_seed_plays_the_same_episodes_and_another_differs():
    def run(seed: int) -> tuple[list, list, list]:
        rng = np.random.default_rng(7)
        teams, obs_sums, rewards = [], [], []
        with smacv2_env("terran", seed=seed) as env:
            for _ in range(2):
                env.reset()
                teams.append(list(env.episode_config["team_gen"]["ally_team"]))
                terminated = False
                while not terminated:
                    obs_sums.append(float(np.sum(env.get_obs())) + float(np.sum(env.get_state())))
                    avail = np.array(env.get_avail_actions())
                    reward, terminated, _ = env.step(np.argmax(rng.random(avail.shape) * avail, axis=1))
                    rewards.append(reward)
        return teams, obs_sums, rewards

    first, again, other = run(11), run(11), run(12)
    assert first == again
    assert first[0] != other[0] or first[1] != other[1]


def test_a_generated_scenario_needs_its_episode_config():
    with StarCraft2Env(map_name="10gen_zerg", engine="builtin") as env:
        with pytest.raises(CapabilityConfigError, match="StarCraftCapabilityEnvWrapper"):
            env.reset()
        with pytest.raises(CapabilityConfigError, match=r"'ally_team'\] must list 10 of zergling"):
            env.reset({"team_gen": {"ally_team": ["zergling"] * 9, "enemy_team": ["zergling"] * 10}})
        with pytest.raises(CapabilityConfigError, match="must be 10 finite"):
            env.reset(
                {
                    "team_gen": {"ally_team": ["zergling"] * 10, "enemy_team": ["zergling"] * 10},
                    "ally_start_positions": {"item": np.zeros((3, 2))},
                }
            )
        # Without start positions: SMACv2's defaults, agents round (8, 16), enemies round (24, 16).
        env.reset({"team_gen": {"ally_team": ["hydralisk"] * 10, "enemy_team": ["zergling"] * 10}})
        xs = [env.get_unit_by_id(i).pos.x for i in range(10)]
        assert all(5 < x < 11 for x in xs) and set(env.agent_kinds) == {"hydralisk"}
        assert all(21 < e.pos.x < 27 for e in env.enemies.values())


def test_the_pettingzoo_env_plays_generated_scenarios_and_passes_its_api_test():
    import warnings

    pytest.importorskip("pettingzoo")
    from pettingzoo.test import parallel_api_test

    from sc2env.smac import parallel_env

    options = dict(obs_own_pos=True, use_unit_ranges=True, min_attack_range=2, engine="builtin", seed=3)
    env = parallel_env(map_name="10gen_zerg", capability_config=capability("zerg"), **options)
    assert env.possible_agents == [f"agent_{i}" for i in range(5)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        parallel_api_test(env, num_cycles=60)
    observations, _ = env.reset(seed=5)
    assert observations["agent_0"]["observation"].shape == (82,) and env.state().shape == (120,)
    env.close()


def test_the_env_draws_from_its_capability_config_when_reset_without_an_episode():
    with StarCraft2Env(
        map_name="10gen_terran", capability_config=capability("terran"), engine="builtin", seed=1
    ) as env:
        env.reset()
        first = env.episode_config["team_gen"]["ally_team"]
        assert len(first) == 5 and sorted(env.agent_kinds) == sorted(first)
        env.reset(seed=1)  # the same draws again, in a new game
        assert env.episode_config["team_gen"]["ally_team"] == first


@pytest.mark.parametrize("map_name", ["3m", "MMM2", "2s3z", "10gen_protoss", "10gen_terran"])
@pytest.mark.parametrize("flags", [(False, False, False), (True, True, True), (True, False, True)])
def test_feature_names_name_every_value(map_name, flags):
    last, grids, own_pos = flags
    options = dict(
        obs_last_action=last, obs_pathing_grid=grids, obs_terrain_height=grids, obs_timestep_number=last
    )
    if map_name.startswith("10gen"):
        options |= dict(obs_own_pos=own_pos, capability_config={"n_units": 4, "n_enemies": 6})
    env = StarCraft2Env(map_name=map_name, state_last_action=not last, state_timestep_number=grids, **options)
    obs_names, state_names = env.get_obs_feature_names(), env.get_state_feature_names()
    assert len(obs_names) == env.get_obs_size() == len(set(obs_names))
    assert len(state_names) == env.get_state_size() == len(set(state_names))
    env.close()


def test_feature_names_are_smacv2s():
    env = StarCraft2Env(
        map_name="10gen_protoss", capability_config={"n_units": 2, "n_enemies": 1}, obs_own_pos=True
    )
    assert env.get_obs_feature_names() == [
        *("move_action_north", "move_action_south", "move_action_east", "move_action_west"),
        *("enemy_shootable_0", "enemy_distance_0", "enemy_relative_x_0", "enemy_relative_y_0"),
        *("enemy_health_0", "enemy_shield_0", *(f"enemy_unit_type_0_bit_{b}" for b in range(3))),
        *("ally_visible_1", "ally_distance_1", "ally_relative_x_1", "ally_relative_y_1"),
        *("ally_health_1", "ally_shield_1", *(f"ally_unit_type_1_bit_{b}" for b in range(3))),
        *(
            "own_health",
            "own_shield",
            "own_pos_x",
            "own_pos_y",
            *(f"own_unit_type_bit_{b}" for b in range(3)),
        ),
    ]
    assert env.get_state_feature_names()[:8] == [
        *("ally_health_0", "ally_cooldown_0", "ally_relative_x_0", "ally_relative_y_0", "ally_shield_0"),
        *(f"ally_unit_type_0_bit_{b}" for b in range(3)),
    ]
    env.close()
