"""Match: one game over many episodes, on the built-in engine and through the real-game launch path."""

from __future__ import annotations

import subprocess
import sys

import pytest
from s2clientprotocol import common_pb2
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env import errors
from sc2env.game import Bot, Match, MatchConfig
from sc2env.game.maps import MapSpec
from sc2env.launch import LaunchConfig


def options(size: int = 16) -> sc_pb.InterfaceOptions:
    opts = sc_pb.InterfaceOptions(score=True)
    layer = opts.feature_layer
    layer.width = 24
    layer.resolution.x = layer.resolution.y = size
    layer.minimap_resolution.x = layer.minimap_resolution.y = size
    return opts


def config(**changes) -> MatchConfig:
    base = dict(map_name="MoveToBeacon", interface_options=options(), launch=LaunchConfig(engine="builtin"))
    return MatchConfig(**(base | changes))


def play_out(match: Match) -> tuple[int, float]:
    steps, total = 0, 0.0
    while True:
        result = match.step()
        steps, total = steps + 1, total + result.reward
        if result.terminated or result.truncated:
            return steps, total


def test_episode_runs_to_the_timer_then_restarts():
    with Match(config(step_mul=32)) as match:
        first = match.reset(seed=3)
        assert first.observation.game_loop == 0 and match.game_info.map_name
        steps, _ = play_out(match)
        assert steps == 1920 // 32
        with pytest.raises(errors.ProtocolError, match="reset"):
            match.step()
        process = match.process
        assert match.reset().observation.game_loop == 0
        assert match.process is process  # restarted in place, not relaunched


def test_the_rewards_of_an_episode_add_up_to_its_final_score():
    # CollectMineralsAndGas scores its 50 starting minerals at the reset, then the collected total (0) from
    # the first loop on: measured from that first observation, every episode would start with a reward of -50.
    with Match(config(map_name="CollectMineralsAndGas", step_mul=64, max_game_loops=640)) as match:
        for seed in (None, 5):  # a new game, then a restart
            assert match.reset(seed=seed).observation.score.score == 50
            result, total = match.step(), 0.0
            assert result.reward == 0 and result.observation.observation.score.score == 0
            while not (result.terminated or result.truncated):
                total += result.reward
                result = match.step()
            assert total + result.reward == result.observation.observation.score.score


def test_same_seed_same_start_and_restarts_continue_deterministically():
    def starts(seed):
        with Match(config(interface_options=options(64))) as match:
            first = match.reset(seed=seed).observation.feature_layer_data.renders.unit_type.data
            restarted = match.reset().observation.feature_layer_data.renders.unit_type.data
            return first, restarted

    assert starts(4) == starts(4)
    assert starts(4)[0] != starts(5)[0]


def test_safety_cap_truncates():
    with Match(config(max_game_loops=40, step_mul=16)) as match:
        match.reset(seed=1)
        results = [match.step() for _ in range(3)]
        with pytest.raises(errors.ProtocolError):
            match.step()
    assert [(r.game_loop, r.terminated, r.truncated) for r in results] == [
        (16, False, False),
        (32, False, False),
        (48, False, True),
    ]


def test_real_game_path_sends_the_map_file(tmp_path):
    # An install-shaped folder whose SC2_x64 runs the built-in engine: the `engine="sc2"` code path for real.
    subprocess.run(
        [sys.executable, "-m", "sc2env.engine", "--make-sc2path", str(tmp_path)],
        check=True,
        capture_output=True,
    )
    with Match(config(launch=LaunchConfig(engine="sc2", sc2path=tmp_path))) as match:
        match.reset(seed=2)
        assert (
            match.process.engine == "sc2"
            and match.map.file == tmp_path / "Maps/mini_games/MoveToBeacon.SC2Map"
        )
        assert match.step().game_loop == 8


def test_real_game_without_the_map_file_fails_before_starting(tmp_path):
    subprocess.run(
        [sys.executable, "-m", "sc2env.engine", "--make-sc2path", str(tmp_path)],
        check=True,
        capture_output=True,
    )
    (tmp_path / "Maps/mini_games/CollectMineralShards.SC2Map").unlink()
    match = Match(
        config(map_name="CollectMineralShards", launch=LaunchConfig(engine="sc2", sc2path=tmp_path))
    )
    with pytest.raises(errors.LaunchError, match=r"CollectMineralShards is not installed.*engine='builtin'"):
        match.reset()
    assert match.process is None


class RecordingController:
    """Stands in for the Controller in one unit test: records the requests of create and join."""

    def __init__(self):
        self.created = self.joined = None
        self.closed = False

    def create_game(self, request):
        self.created = request

    def join_game(self, request):
        self.joined = request
        return sc_pb.ResponseJoinGame(player_id=1)

    def game_info(self):
        return sc_pb.ResponseGameInfo(map_name="Simple64")


def test_two_player_maps_add_the_bot(tmp_path):
    map_file = tmp_path / "Simple64.SC2Map"
    map_file.write_bytes(b"MPQ-simple64")
    match = Match(
        config(map_name="Simple64", race="zerg", bot=Bot("protoss", "hard", "macro"), realtime=True)
    )
    match.map = MapSpec("Simple64", "Melee/Simple64.SC2Map", players=2, file=map_file)
    match.controller = RecordingController()
    match._create_and_join(seed=9)
    created, joined = match.controller.created, match.controller.joined
    assert (
        created.local_map.map_path == "Melee/Simple64.SC2Map"
        and created.local_map.map_data == b"MPQ-simple64"
    )
    assert created.random_seed == 9 and created.realtime
    assert [p.type for p in created.player_setup] == [sc_pb.Participant, sc_pb.Computer]
    bot = created.player_setup[1]
    assert (bot.race, bot.difficulty, bot.ai_build) == (common_pb2.Protoss, sc_pb.Hard, sc_pb.Macro)
    assert joined.race == common_pb2.Zerg and joined.options.feature_layer.resolution.x == 16


def test_bad_bot_settings_are_named():
    with pytest.raises(ValueError, match="Unknown bot difficulty 'impossible'"):
        Bot(difficulty="impossible")


def test_a_game_reporting_ended_without_a_result_still_ends():
    match = Match(config())
    match.map = MapSpec("MoveToBeacon", "mini_games/MoveToBeacon.SC2Map", players=1, game_loops=1920)

    class Ended:
        status = sc_pb.ended

    match.controller = Ended()
    response = sc_pb.ResponseObservation()
    response.observation.game_loop = 800
    result = match._score(response)
    assert result.terminated and result.outcome == 0 and not result.truncated
