"""Lifecycles: states move only along their tables; the match's says where its game and episode are."""

from __future__ import annotations

import enum
import os
import signal

import pytest
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env import errors
from sc2env.game import Match, MatchConfig, MatchState
from sc2env.game.lifecycle import Lifecycle, LifecycleError
from sc2env.game.match import MATCH_TRANSITIONS
from sc2env.launch import LaunchConfig


class Door(enum.Enum):
    SHUT = 1
    OPEN = 2
    GONE = 3


def test_a_move_the_table_does_not_have_is_refused_naming_both_states():
    door = Lifecycle(
        "Door", Door.SHUT, {Door.SHUT: {Door.OPEN}, Door.OPEN: {Door.SHUT, Door.GONE}, Door.GONE: ()}
    )
    assert door.to(Door.OPEN) is Door.SHUT and door.state is Door.OPEN
    door.to(Door.GONE)
    with pytest.raises(LifecycleError, match=r"Door cannot go from GONE to OPEN \(from GONE: nothing\)"):
        door.to(Door.OPEN)
    assert door.state is Door.GONE


def test_a_table_must_say_where_every_state_may_go():
    with pytest.raises(ValueError, match="says nothing of the states GONE"):
        Lifecycle("Door", Door.SHUT, {Door.SHUT: {Door.OPEN}, Door.OPEN: {Door.SHUT}})


def test_closing_is_allowed_from_every_state():
    for state, targets in MATCH_TRANSITIONS.items():
        assert MatchState.CLOSED in targets, state


def _options() -> sc_pb.InterfaceOptions:
    options = sc_pb.InterfaceOptions(score=True)
    options.feature_layer.width = 24
    options.feature_layer.resolution.x = options.feature_layer.resolution.y = 16
    options.feature_layer.minimap_resolution.x = options.feature_layer.minimap_resolution.y = 16
    return options


@pytest.fixture
def match():
    played = Match(
        MatchConfig(
            map_name="MoveToBeacon",
            interface_options=_options(),
            launch=LaunchConfig(engine="builtin", direct=False),  # a game process, to lose and to cut off
            step_mul=960,  # MoveToBeacon's timer ends it at loop 1920: the second step
        )
    )
    yield played
    played.close()


def test_a_match_goes_through_an_episode_and_its_end(match):
    assert match.state is MatchState.CLOSED and match.episode_over
    match.reset(seed=1)
    assert match.state is MatchState.PLAYING and not match.episode_over
    sent = match.begin_step()
    assert match.state is MatchState.STEPPING and not match.episode_over
    match.finish_step(sent)
    assert match.state is MatchState.PLAYING
    assert match.step().terminated and match.state is MatchState.ENDED and match.episode_over
    with pytest.raises(errors.ProtocolError, match="step\\(\\) needs a running episode"):
        match.begin_step()
    match.reset()
    assert match.state is MatchState.PLAYING
    match.close()
    assert match.state is MatchState.CLOSED


def test_a_ctrl_c_between_sending_and_reading_leaves_the_step_known_to_be_on_its_way(match):
    match.reset(seed=1)
    match.begin_step()  # the caller never reads its answers (a Ctrl-C took it away)
    assert match.state is MatchState.STEPPING
    result = match.step()  # the unread step's answers are dropped first; the game did both steps
    assert result.terminated and result.game_loop == 1920 and match.state is MatchState.ENDED


def test_a_lost_game_leaves_the_match_lost_until_reset_starts_another(match):
    match.reset(seed=1)
    process = match.process
    os.kill(process.pid, signal.SIGKILL)
    assert process.wait(5) is not None
    with pytest.raises(errors.GameCrashedError):
        match.step()
    assert match.state is MatchState.LOST and match.lost_because == "GameCrashedError" and match.episode_over
    with pytest.raises(errors.ProtocolError, match="step\\(\\) needs a running episode"):
        match.begin_step()
    match.reset()
    assert match.state is MatchState.PLAYING and match.process is not process and match.process.running


def test_finish_step_without_a_step_on_its_way_is_refused(match):
    match.reset(seed=1)
    with pytest.raises(
        errors.ProtocolError, match="reads the answers of a step begin_step\\(\\) sent; this match is PLAYING"
    ):
        match.finish_step(sc_pb.ResponseObservation())
