"""Rewards, episode ends, info, stats, resets, commands, errors and crash recovery of the SMAC env, on a
scripted stand-in game (no engine)."""

from __future__ import annotations

import numpy as np
import pytest
from fake_game import MARINE, MARINE_RL, FakeGame, ToyCombat, commands, marines_3m, unit
from test_smac_features import marines, stalkers_and_zealots

from sc2env import errors
from sc2env.smac import StarCraft2Env
from sc2env.smac.commands import Ability

# 3m's reward scale: 3 enemies x 10 per death + 200 for the win + their 3 x 45 health.
MAX_REWARD_3M = 3 * 10 + 200 + 3 * 45


def make(name="3m", spawn=marines, **kwargs):
    game = FakeGame(spawn=spawn)
    env = StarCraft2Env(map_name=name, game=game, **kwargs)
    env.reset()
    return env, game


def hurt(game, tag, health=None, shield=None):
    u = game.by_tag(tag)
    if health is not None:
        u.health = health
    if shield is not None:
        u.shield = shield


def test_reward_counts_damage_and_kills_scaled_by_the_maximum():
    env, game = make()
    hurt(game, 5, health=30)  # 36 -> 30: 6 damage
    game.remove(4)  # 45 health and a kill
    hurt(game, 1, health=20)  # the agents' losses do not count (reward_only_positive)
    reward, terminated, info = env.step([1, 1, 1])
    assert reward == pytest.approx((6 + 45 + 10) / (MAX_REWARD_3M / 20))
    assert not terminated
    assert info == {"battle_won": False, "dead_allies": 0, "dead_enemies": 1}
    assert env.max_reward == MAX_REWARD_3M
    reward, _, _ = env.step([1, 1, 1])  # nothing happened: a dead enemy counts once
    assert reward == 0


def test_negative_rewards_when_not_only_positive():
    env, game = make(reward_only_positive=False, reward_scale=False)
    hurt(game, 5, health=30)  # +6
    hurt(game, 1, health=25)  # agent 2 loses 20: -0.5 * 20
    game.remove(2)  # agent 1 dies at 30 health: -0.5 * 30 and -10 * 0.5
    reward, _, info = env.step([1, 1, 1])
    assert reward == pytest.approx(6 - 0.5 * 20 - 0.5 * 30 - 10 * 0.5)
    assert info["dead_allies"] == 1


def test_shield_regeneration_counts_as_positive_reward():
    """SMAC takes the absolute value: enemy shields that grow by 2 give +2 (before scaling)."""
    env, game = make("2s3z", spawn=stalkers_and_zealots, reward_scale=False)
    hurt(game, 6, shield=12)  # the Zealot's shield regenerates from 10 to 12
    reward, _, _ = env.step([1] * 5)
    assert reward == pytest.approx(2)
    env2, game2 = make("2s3z", spawn=stalkers_and_zealots, reward_scale=False, reward_only_positive=False)
    hurt(game2, 6, shield=12)
    assert env2.step([1] * 5)[0] == pytest.approx(-2)


def test_a_won_battle_ends_with_the_win_bonus_and_counts():
    env, game = make(reward_scale=False)
    game.remove(4, 5, 6)
    reward, terminated, info = env.step([1, 1, 1])
    assert terminated and info["battle_won"] and info["dead_enemies"] == 3
    assert reward == pytest.approx(45 + 36 + 45 + 3 * 10 + 200)
    assert env.get_stats() == {
        "battles_won": 1,
        "battles_game": 1,
        "battles_draw": 0,
        "win_rate": 1.0,
        "timeouts": 0,
        "restarts": 0,
    }
    with pytest.raises(errors.ProtocolError, match="the episode is over: call reset"):
        env.step([1, 1, 1])


def test_lost_and_drawn_battles():
    env, game = make(reward_defeat=-7, reward_scale=False)
    game.remove(1, 2, 3)
    reward, terminated, info = env.step([1, 1, 1])
    assert terminated and not info["battle_won"] and reward == -7
    env.reset()
    game.units = [u for u in game.units if u.owner not in (1, 2)]  # both sides gone at once: a draw
    reward, terminated, info = env.step([1, 1, 1])
    assert terminated and not info["battle_won"]
    assert reward == pytest.approx(45 + 36 + 45 + 3 * 10)  # the kills count, no win, no defeat
    assert env.get_stats()["battles_game"] == 2 and env.get_stats()["battles_won"] == 0


def test_sparse_rewards():
    env, game = make(reward_sparse=True, reward_scale=False)
    hurt(game, 4, health=1)
    assert env.step([1, 1, 1])[0] == 0
    game.remove(4, 5, 6)
    assert env.step([1, 1, 1])[0] == 1
    env.reset()
    game.remove(*[u.tag for u in game.units if u.owner == 1])
    assert env.step([1, 1, 1])[0] == -1


def test_episode_limit_and_continuing_episodes():
    env, _ = make()
    for _ in range(59):
        assert not env.step([1, 1, 1])[1]
    _, terminated, info = env.step([1, 1, 1])
    assert terminated and "episode_limit" not in info
    assert env.get_stats()["timeouts"] == 1 and env.get_stats()["battles_draw"] == 1
    env2, _ = make(continuing_episode=True)
    for _ in range(60):
        _, terminated, info = env2.step([1, 1, 1])
    assert terminated and info["episode_limit"] is True


def test_reset_kills_the_survivors_and_the_map_brings_everyone_back():
    env, game = make()
    game.remove(4)
    env.step([1, 1, 1])
    env.reset()
    assert sorted(game.killed[-1]) == [1, 2, 3, 5, 6]  # the living ones, by tag
    assert [env.get_unit_by_id(i).tag for i in range(3)] == [9, 8, 7]  # new units, numbered afresh
    assert env.get_avail_agent_actions(0)[0] == 0 and len(game.seeds) == 1  # the same game


def test_commands_sent_for_each_action():
    env, game = make(move_amount=1.5)
    env.step([1, 2, 7])  # agent 0 stops, agent 1 moves north, agent 2 attacks enemy 1
    sent = commands(game.sent[-1])
    assert [c.unit_tags[:] for c in sent] == [[3], [2], [1]]
    assert sent[0].ability_id == Ability.STOP and not sent[0].queue_command
    assert sent[1].ability_id == Ability.MOVE
    assert (sent[1].target_world_space_pos.x, sent[1].target_world_space_pos.y) == (9.0, 16.5)
    assert sent[2].ability_id == Ability.ATTACK and sent[2].target_unit_tag == 5
    env.step([3, 4, 5])  # south, east, west: from where the units are now
    moved = commands(game.sent[-1])
    assert [(c.target_world_space_pos.x, c.target_world_space_pos.y) for c in moved] == [
        (8.5, 15.0),
        (10.5, 15.0),
        (7.5, 16.0),
    ]


def test_dead_agents_send_nothing():
    env, game = make()
    game.remove(3)
    env.step([1, 1, 1])
    env.step([0, 1, 1])
    # the two living agents' stops, as one command naming both units (agents 1 and 2: tags 2 and 1)
    assert [c.unit_tags[:] for c in commands(game.sent[-1])] == [[2, 1]]


def test_the_medivac_heals_with_its_target_actions():
    from test_smac_features import mmm

    env, game = make("MMM", spawn=mmm)
    env.step([1] * 9 + [6])  # the Medivac (id 9) on agent 0 (tag 2)
    heal = commands(game.sent[-1])[-1]
    assert heal.ability_id == Ability.HEAL and heal.target_unit_tag == 2 and heal.unit_tags[:] == [1]


@pytest.mark.parametrize(
    ("actions", "message"),
    [
        ([1, 1], "3m has 3 agents: step\\(\\) needs 3 actions, got 2"),
        ([1, 1, 1, 1], "needs 3 actions, got 4"),
        ([1, 1, 9], "agent 2's action 9 is no action id: ids are whole numbers from 0 to 8"),
        ([1, -1, 1], "agent 1's action -1 is no action id"),
        ([1, 1.5, 1], "agent 1's action 1.5 is no action id"),
        (
            [1, 1, 8],
            r"agent 2 cannot take action 8 \(target 2\) now; its available actions are \[1, 2, 3, 4, 5, 6, 7\]",
        ),
        ([0, 1, 1], r"agent 0 cannot take action 0 \(no-op\) now"),
        (5, "actions must be a sequence of 3 action ids"),
    ],
)
def test_bad_actions_are_refused_with_what_is_wrong(actions, message):
    env, game = make()
    with pytest.raises(errors.InvalidActionError, match=message):
        env.step(actions)
    assert game.steps == 0  # nothing was sent
    env.step(np.array([1, 1, 1]))  # numpy actions (and whole floats) are fine
    env.step([1.0, 1, np.int64(1)])


def test_step_and_observations_need_a_reset():
    env = StarCraft2Env(map_name="3m", game=FakeGame())
    with pytest.raises(errors.ProtocolError, match="call reset"):
        env.step([1, 1, 1])
    with pytest.raises(errors.ProtocolError, match="call reset"):
        env.get_obs()
    with pytest.raises(IndexError, match="agent ids on 3m are 0 to 2"):
        make()[0].get_obs_agent(3)


def test_a_crashed_game_raises_and_the_next_reset_starts_a_new_one():
    env, game = make(seed=7)
    game.crash_at = 2
    env.step([1, 1, 1])
    with pytest.raises(errors.GameCrashedError):
        env.step([1, 1, 1])
    with pytest.raises(errors.ProtocolError, match="call reset"):
        env.step([1, 1, 1])
    obs, state = env.reset()
    assert game.seeds == [7, 7]  # a new game, with the same seed
    assert env.get_stats()["restarts"] == 1
    assert len(obs) == 3 and state.shape == (48,)
    assert env.step([1, 1, 1])[1] is False


def test_reset_with_a_seed_starts_a_new_game():
    env, game = make(seed=3)
    assert env.seed() == 3
    env.reset(seed=11)
    assert game.seeds == [3, 11] and env.seed() == 11 and env.get_stats()["restarts"] == 0


def test_a_map_that_never_spawns_the_scenario_fails_the_reset():
    game = FakeGame(spawn=lambda t0: marines_3m(t0)[:5])
    env = StarCraft2Env(map_name="3m", game=game)
    with pytest.raises(errors.SC2EnvError, match=r"does not show 3 agents \(player 1\) and 3 enemies"):
        env.reset()


def test_a_scenario_spawning_late_is_waited_for():
    game = FakeGame()
    env = StarCraft2Env(map_name="3m", game=game)
    env.reset()
    game.respawn_delay = 5  # the map brings the units back 5 loops after the last one died
    env.reset()
    assert game.loop == 5  # SMAC steps 2 loops after the kill, then one at a time until all are there
    assert [env.get_unit_by_id(i).tag for i in range(3)] == [9, 8, 7]


def test_heuristic_focus_fires_on_the_closest_enemy_and_writes_its_actions_back():
    env, game = make(heuristic_ai=True)
    actions = [1, 1, 1]
    env.step(actions)
    assert actions == [6, 6, 6]  # enemy 0 at (13, 16) is the closest to all three
    assert {c.target_unit_tag for c in commands(game.sent[-1])} == {4}
    game.by_tag(5).pos.x = 10.0  # enemy 1 comes closer: the target is kept until it dies
    env.step(actions)
    assert actions == [6, 6, 6]
    game.remove(4)
    env.step(actions)
    env.step(actions)
    assert actions == [7, 7, 7]


def test_heuristic_rest_moves_towards_a_target_out_of_range():
    def far(t0):
        return [
            *[unit(t0 + i, MARINE_RL, 1, 5.0, 14.0 + i, 45) for i in range(3)],
            *[unit(t0 + 3 + i, MARINE, 2, 20.0, 14.0 + i, 45) for i in range(3)],
        ]

    env, game = make(spawn=far, heuristic_ai=True, heuristic_rest=True)
    actions = np.array([1, 1, 1])
    env.step(actions)
    assert actions.tolist() == [4, 4, 4]  # east, towards their targets 15 away
    assert all(c.ability_id == Ability.MOVE for c in commands(game.sent[-1]))


def test_save_replay_writes_the_games_replay(tmp_path):
    env, _ = make(replay_dir=str(tmp_path), replay_prefix="mine")
    path = env.save_replay()
    assert path.parent == tmp_path and path.name.startswith("mine_") and path.read_bytes() == b"fake replay"


def test_render_draws_both_sides():
    env, _ = make()
    image = env.render("rgb_array")
    assert image.shape == (512, 512, 3) and image.dtype == np.uint8
    # The agent at (9, 16) is blue, the enemy at (13, 16) red (16 pixels a cell, north up).
    assert tuple(image[512 - 16 * 16, 9 * 16]) == (40, 110, 230)
    assert tuple(image[512 - 16 * 16, 13 * 16]) == (220, 50, 40)
    with pytest.raises(ValueError, match="keep one mode"):
        env.render("human")


def test_toy_battles_run_to_their_end_with_a_random_policy():
    game = FakeGame(on_step=ToyCombat())
    env = StarCraft2Env(map_name="3m", game=game)
    rng = np.random.default_rng(0)
    for _ in range(3):
        env.reset()
        terminated = False
        while not terminated:
            avail = np.array(env.get_avail_actions())
            _, terminated, _ = env.step([rng.choice(np.flatnonzero(a)) for a in avail])
    assert env.get_stats()["battles_game"] == 3
