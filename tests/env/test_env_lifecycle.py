"""The env's lifecycle: its state follows its episodes, and what a Ctrl-C cut short is finished later."""

from __future__ import annotations

import pytest

from sc2env import errors
from sc2env.env import SC2Env
from sc2env.env.env import ENV_TRANSITIONS, EnvState
from sc2env.game import Match
from sc2env.interface import FUNCTIONS


def test_closing_is_allowed_from_every_state():
    for state, targets in ENV_TRANSITIONS.items():
        assert EnvState.CLOSED in targets, state


def test_the_envs_state_follows_its_episodes(tmp_path):
    env = SC2Env(
        engine="builtin",
        screen_size=16,
        minimap_size=16,
        step_mul=960,
        save_replay_episodes=1,
        replay_dir=str(tmp_path),
    )
    try:
        assert env.state is EnvState.NEW and env.episode_over
        env.reset(seed=1)
        assert env.state is EnvState.PLAYING and not env.episode_over
        env.step(FUNCTIONS.no_op())
        *_, terminated, _, info = env.step(FUNCTIONS.no_op())
        assert terminated and env.state is EnvState.ENDED and "replay_path" in info
        env.close()
        assert env.state is EnvState.CLOSED and len(list(tmp_path.iterdir())) == 1, "counted once, saved once"
    finally:
        env.close()


def test_an_episode_whose_end_was_cut_off_by_a_ctrl_c_is_counted_at_the_next_reset(tmp_path, monkeypatch):
    env = SC2Env(
        engine="builtin",
        screen_size=16,
        minimap_size=16,
        step_mul=960,
        save_replay_episodes=1,
        replay_dir=str(tmp_path),
    )
    try:
        env.reset(seed=1)
        env.step(FUNCTIONS.no_op())
        observe = env._observe

        def interrupted(*args):
            monkeypatch.setattr(env, "_observe", observe)
            raise KeyboardInterrupt

        monkeypatch.setattr(env, "_observe", interrupted)
        with pytest.raises(KeyboardInterrupt):
            env.step(FUNCTIONS.no_op())  # the last step: the game ended, the observation never came back
        assert env.state is EnvState.ENDING and env.episode_over
        with pytest.raises(errors.ProtocolError, match="step\\(\\) called after the episode ended"):
            env.step(FUNCTIONS.no_op())
        _, info = env.reset()
        assert env.state is EnvState.PLAYING and "replay_path" in info, "its replay was saved at the reset"
        assert len(list(tmp_path.iterdir())) == 1
    finally:
        env.close()


def test_a_reset_that_did_not_finish_is_named_by_step(monkeypatch):
    env = SC2Env(engine="builtin", screen_size=16, minimap_size=16)
    try:
        env.reset(seed=1)
        monkeypatch.setattr(
            Match, "reset", lambda self, seed=None: (_ for _ in ()).throw(KeyboardInterrupt())
        )
        with pytest.raises(KeyboardInterrupt):
            env.reset(seed=2)
        assert env.state is EnvState.RESETTING
        with pytest.raises(
            errors.ProtocolError, match="step\\(\\) called after a reset\\(\\) that did not finish"
        ):
            env.step(FUNCTIONS.no_op())
    finally:
        env.close()
