"""Replays on the built-in engine: save_replay, replay_info and start_replay, in process and over a websocket."""

from __future__ import annotations

import dataclasses
import json
import pathlib
import zlib
from dataclasses import dataclass, field

import engine_helpers
import numpy as np
import pytest
from engine_helpers import (
    arena,
    create_request,
    interface,
    join_request,
    layer,
    move_screen,
    select_rect,
    spatial,
)
from s2clientprotocol import common_pb2
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env import __version__
from sc2env.engine import mpq, replay_archive, replay_file
from sc2env.engine.limits import MAX_STEP_LOOPS
from sc2env.engine.mapdef import builtin_definitions
from sc2env.engine.session import Session
from sc2env.gamedata import BASE_BUILD, DATA_BUILD, DATA_VERSION, GAME_VERSION

MIXED = (8, 1, 16, 3, 8, 5)
FORMAT1_REPLAY = pathlib.Path(__file__).parent / "data" / "MoveToBeacon_format1.SC2Replay"
ALREADY_ENDED = "Game has already ended"


def ask(session: Session, **request) -> sc_pb.Response:
    return sc_pb.Response.FromString(session.handle(sc_pb.Request(**request).SerializeToString()))


def random_action(rng: np.random.Generator, step: int, tags: list[int]) -> sc_pb.Action:
    """The golden tests' random agent, with PySC2's no_op (an empty Action) every tenth step."""
    return sc_pb.Action() if step % 10 == 8 else engine_helpers.random_action(rng, step, tags)


@dataclass
class Recording:
    """A game played through a Session: what was sent before each step, the observation after it, the replay."""

    session: Session
    counts: list[int] = field(default_factory=list)
    sent: list[list[sc_pb.Action]] = field(default_factory=list)
    observations: list[sc_pb.ResponseObservation] = field(default_factory=list)
    data: bytes = b""


def start(
    map_name: str = "MoveToBeacon",
    seed: int = 1,
    options=None,
    map_data: bytes = b"",
    realtime: bool = False,
    join: sc_pb.RequestJoinGame | None = None,
) -> Session:
    session = Session()
    create = create_request(map_name, seed)
    create.local_map.map_data, create.realtime = map_data, realtime
    assert not ask(session, create_game=create).create_game.HasField("error")
    assert ask(session, join_game=join or join_request(options)).status == sc_pb.in_game
    return session


def play(session: Session, steps: int, counts=(8,), seed: int = 0) -> Recording:
    """Random actions and steps of `counts` in turn, an observation after each step; then save_replay."""
    rng = np.random.default_rng(seed)
    recording = Recording(session)
    for n in range(steps):
        if session.status == sc_pb.ended:
            break
        actions = [random_action(rng, n, session.game.world.tag.tolist())]
        count = counts[n % len(counts)]
        ask(session, action=sc_pb.RequestAction(actions=actions))
        assert ask(session, step=sc_pb.RequestStep(count=count)).step.simulation_loop > 0
        recording.counts.append(count)
        recording.sent.append(actions)
        recording.observations.append(ask(session, observation=sc_pb.RequestObservation()).observation)
    recording.data = save(session)
    return recording


def save(session: Session) -> bytes:
    answer = ask(session, save_replay=sc_pb.RequestSaveReplay())
    assert not answer.error, answer.error
    return answer.save_replay.data


def watch(data: bytes, options=None, session: Session | None = None, **fields) -> Session:
    session = session or Session()
    started = ask(
        session,
        start_replay=sc_pb.RequestStartReplay(replay_data=data, options=options or interface(), **fields),
    )
    assert not started.start_replay.HasField("error"), started.start_replay.error_details
    assert started.status == sc_pb.in_replay
    return session


def echoed(actions: list[sc_pb.Action]) -> list[sc_pb.Action]:
    """What the engine echoes in ResponseObservation.actions: feature-layer, render, UI and raw actions (with
    the other form added to raw and feature-layer commands: see `as_sent`)."""
    return [
        a
        for a in actions
        if a.HasField("action_feature_layer") or a.HasField("action_ui") or a.HasField("action_raw")
    ]


def as_sent(echoes, sent: list[sc_pb.Action]) -> list[sc_pb.Action]:
    """The echoes without the forms the engine added (a raw command's feature-layer form, and the reverse)."""
    out = []
    for echo, action in zip(echoes, sent):
        bare = sc_pb.Action()
        bare.CopyFrom(echo)
        for form in ("action_raw", "action_feature_layer"):
            if not action.HasField(form):
                bare.ClearField(form)
        out.append(bare)
    return out if len(echoes) == len(sent) else list(echoes)


# ---- a replay plays the game again -------------------------------------------------------------------
@pytest.mark.parametrize("counts", [(8,), MIXED], ids=["step8", "mixed"])
@pytest.mark.parametrize(
    "map_name", ["MoveToBeacon", "CollectMineralShards", "DefeatRoaches", "BuildMarines"]
)
def test_a_replay_shows_every_observation_again(map_name, counts):
    recording = play(start(map_name, seed=5), 60, counts, seed=len(map_name))
    watcher = watch(recording.data)
    shown = 0
    for count, sent, original in zip(recording.counts, recording.sent, recording.observations):
        stepped = ask(watcher, step=sc_pb.RequestStep(count=count))
        assert stepped.step.simulation_loop == original.observation.game_loop
        obs = ask(watcher, observation=sc_pb.RequestObservation()).observation
        loop = original.observation.game_loop
        assert obs.SerializeToString() == original.SerializeToString(), f"differs at loop {loop}"
        assert as_sent(obs.actions, echoed(sent)) == echoed(sent)
        shown += len(obs.actions)
    assert shown > 30, "the recorded actions were echoed"
    last = recording.observations[-1]
    assert watcher.status == sc_pb.ended and watcher.game.game_loop == last.observation.game_loop
    assert obs.observation.score.score == last.observation.score.score
    assert list(obs.player_result) == list(last.player_result)


def test_a_finished_game_replays_to_its_result():
    recording = play(start("MoveToBeacon", seed=2), 400, (16, 8, 24), seed=1)
    assert recording.session.status == sc_pb.ended
    last = recording.observations[-1]
    assert last.observation.game_loop == 1920 and last.player_result[0].result == sc_pb.Tie
    watcher = watch(recording.data)
    # The whole log (as much as one request may ask), and no divergence error.
    done = ask(watcher, step=sc_pb.RequestStep(count=MAX_STEP_LOOPS))
    assert (done.status, done.step.simulation_loop, list(done.error)) == (sc_pb.ended, 1920, [])
    obs = ask(watcher, observation=sc_pb.RequestObservation()).observation
    assert obs.observation.SerializeToString() == last.observation.SerializeToString()
    assert list(obs.player_result) == list(last.player_result)
    assert ALREADY_ENDED in ask(watcher, step=sc_pb.RequestStep(count=8)).error[0]
    info = ask(watcher, replay_info=sc_pb.RequestReplayInfo(replay_data=recording.data)).replay_info
    assert info.player_info[0].player_result == sc_pb.PlayerResult(player_id=1, result=sc_pb.Tie)


def test_an_unseeded_game_replays_from_its_recorded_random_state():
    recording = play(start("DefeatRoaches", seed=None), 10, MIXED, seed=7)
    assert replay_file.decode(recording.data).seed is None
    watcher = watch(recording.data)
    for count, original in zip(recording.counts, recording.observations):
        ask(watcher, step=sc_pb.RequestStep(count=count))
        assert ask(watcher, observation=sc_pb.RequestObservation()).observation == original


def test_a_replay_that_ends_otherwise_than_recorded_says_so(saved):
    watcher = watch(rewritten(saved, score=999))
    done = ask(watcher, step=sc_pb.RequestStep(count=1000))
    assert done.status == sc_pb.ended and "diverged from its recording" in done.error[0]
    assert "score 999" in done.error[0]


def test_a_step_runs_whole_recorded_steps_until_it_has_advanced_far_enough():
    recording = play(start("CollectMineralShards"), 6, (8,))
    watcher = watch(recording.data)
    loops = [ask(watcher, step=sc_pb.RequestStep(count=n)).step.simulation_loop for n in (3, 20, 1, 1)]
    assert loops == [8, 32, 40, 48], "a recorded step(8) is never split; a step may go past its count"
    assert watcher.status == sc_pb.ended


def test_a_replay_saved_mid_game_ends_there_without_a_result():
    recording = play(start("CollectMineralShards"), 10, (8,))
    watcher = watch(recording.data)
    for _ in range(9):
        assert ask(watcher, step=sc_pb.RequestStep(count=8)).status == sc_pb.in_replay
    last = ask(watcher, step=sc_pb.RequestStep(count=8))
    assert (last.status, last.step.simulation_loop) == (sc_pb.ended, 80)
    obs = ask(watcher, observation=sc_pb.RequestObservation()).observation
    assert not obs.player_result and obs.observation.game_loop == 80
    assert ALREADY_ENDED in ask(watcher, step=sc_pb.RequestStep(count=8)).error[0]
    assert ask(watcher, game_info=sc_pb.RequestGameInfo()).game_info.map_name == "CollectMineralShards"
    assert ask(watcher, data=sc_pb.RequestData(unit_type_id=True)).data.units


def test_actions_saved_before_their_step_are_applied_when_the_replay_ends():
    session = start("CollectMineralShards")
    ask(session, action=sc_pb.RequestAction(actions=[move_screen(20, 20)]))
    ask(session, step=sc_pb.RequestStep(count=8))
    ask(session, action=sc_pb.RequestAction(actions=[select_rect(0, 0, 63, 63)]))  # then saved, before a step
    data = save(session)
    at_save = ask(session, observation=sc_pb.RequestObservation()).observation
    watcher = watch(data)
    assert ask(watcher, step=sc_pb.RequestStep(count=8)).status == sc_pb.ended
    obs = ask(watcher, observation=sc_pb.RequestObservation()).observation
    assert obs.observation == at_save.observation and len(obs.observation.ui_data.multi.units) == 2
    assert list(obs.actions) == [move_screen(20, 20), select_rect(0, 0, 63, 63)]


def test_replay_info_describes_the_replay():
    join = sc_pb.RequestJoinGame(race=common_pb2.Random, player_name="Ada", options=interface())
    session = start("DefeatRoaches", join=join)
    recording = play(session, 12, (8,), seed=3)
    info = ask(Session(), replay_info=sc_pb.RequestReplayInfo(replay_data=recording.data))
    assert info.status == sc_pb.launched and not info.replay_info.HasField("error")
    info = info.replay_info
    assert (info.map_name, info.local_map_path) == ("DefeatRoaches", "mini_games/DefeatRoaches.SC2Map")
    assert (info.game_duration_loops, info.game_duration_seconds) == (96, pytest.approx(96 / 22.4))
    assert (info.game_version, info.data_version, info.data_build, info.base_build) == (
        GAME_VERSION,
        DATA_VERSION,
        DATA_BUILD,
        BASE_BUILD,
    )
    (player,) = info.player_info
    assert player.player_info == sc_pb.PlayerInfo(
        player_id=1,
        type=sc_pb.Participant,
        player_name="Ada",
        race_requested=common_pb2.Random,
        race_actual=common_pb2.Terran,
    )
    assert not player.HasField("player_result"), "the game had not ended"
    acted = sum(1 for sent in recording.sent for a in sent if a.ByteSize())  # no-ops don't count
    assert acted == 11 and player.player_apm == round(acted * 60 / (96 / 22.4))


def test_a_replay_after_a_restart_covers_only_the_new_episode():
    session = start("CollectMineralShards", seed=9)
    play(session, 8, (8,), seed=1)
    ask(session, restart_game=sc_pb.RequestRestartGame())
    first = ask(session, observation=sc_pb.RequestObservation()).observation
    recording = play(session, 5, MIXED, seed=2)
    info = ask(session, replay_info=sc_pb.RequestReplayInfo(replay_data=recording.data)).replay_info
    assert info.game_duration_loops == sum(MIXED[:5])
    watcher = watch(recording.data)
    assert ask(watcher, observation=sc_pb.RequestObservation()).observation.observation == first.observation
    for count, original in zip(recording.counts, recording.observations):
        ask(watcher, step=sc_pb.RequestStep(count=count))
        assert ask(watcher, observation=sc_pb.RequestObservation()).observation == original
    assert watcher.status == sc_pb.ended


def test_a_realtime_game_replays_and_can_be_watched_in_realtime():
    session = start("CollectMineralShards", realtime=True)
    rng = np.random.default_rng(4)
    originals = {0: ask(session, observation=sc_pb.RequestObservation()).observation}
    for n in range(4):
        ask(
            session,
            action=sc_pb.RequestAction(actions=[random_action(rng, n, session.game.world.tag.tolist())]),
        )
        obs = ask(
            session, observation=sc_pb.RequestObservation(game_loop=session.game.game_loop + 3)
        ).observation
        originals[obs.observation.game_loop] = obs
    data = save(session)
    watcher = watch(data)
    seen = {0: ask(watcher, observation=sc_pb.RequestObservation()).observation}
    while watcher.status == sc_pb.in_replay:
        ask(watcher, step=sc_pb.RequestStep(count=1))  # lands on every recorded step's end
        obs = ask(watcher, observation=sc_pb.RequestObservation()).observation
        seen[obs.observation.game_loop] = obs
    for loop, original in originals.items():  # the echoes may be split otherwise: the state is what matters
        assert seen[loop].observation == original.observation, f"differs at loop {loop}"
    live = watch(data, realtime=True)
    assert "realtime" in ask(live, step=sc_pb.RequestStep(count=8)).error[0]
    obs = ask(live, observation=sc_pb.RequestObservation(game_loop=5)).observation
    assert obs.observation.game_loop >= 5


# ---- what the watcher sees ---------------------------------------------------------------------------
def test_a_watcher_with_other_resolutions_sees_the_same_game_in_its_own_pixels():
    session = start("CollectMineralShards", seed=3)
    sent = [
        [select_rect(0, 0, 63, 63)],
        [move_screen(63, 10)],
        [spatial("camera_move", center_minimap=(63, 32))],
        [spatial("unit_command", ability_id=3794, target_minimap_coord=(20, 40))],
        [move_screen(5, 60)],
    ]
    recording = Recording(session)
    for actions in sent:
        ask(session, action=sc_pb.RequestAction(actions=actions))
        ask(session, step=sc_pb.RequestStep(count=8))
        recording.observations.append(ask(session, observation=sc_pb.RequestObservation()).observation)
    data = save(session)
    watcher = watch(data, options=interface(screen=32, minimap=48, width=30))
    info = ask(watcher, game_info=sc_pb.RequestGameInfo()).game_info
    assert info.options.feature_layer.resolution.x == 32 and info.options.feature_layer.width == 30
    echoes = []
    for original in recording.observations:
        ask(watcher, step=sc_pb.RequestStep(count=8))
        obs = ask(watcher, observation=sc_pb.RequestObservation()).observation
        assert layer(obs, "unit_type").shape == (32, 32) and layer(obs, "camera", minimap=True).shape == (
            48,
            48,
        )
        units = [(u.tag, u.pos.x, u.pos.y, u.health) for u in obs.observation.raw_data.units]
        assert units == [(u.tag, u.pos.x, u.pos.y, u.health) for u in original.observation.raw_data.units]
        assert obs.observation.score == original.observation.score
        echoes += obs.actions
    # The same places in the world: a recorded screen pixel (64 over 24 world units) goes to the watcher's pixel
    # (32 over 30 units, the same camera centre) holding its centre: x = -12 + (i + 0.5) * 0.375 lands on
    # floor((x + 15) / 0.9375), so 0 -> 3, 63 -> 28, 5 -> 5, 10 -> 7, 60 -> 27. The minimaps cover the same
    # map: pixels scale by 48/64 from their centres.
    # (With raw data on, the commands and the camera move also carry their raw form: world points, the same
    # whatever the watcher's pixels.)
    assert [echo.HasField("action_raw") for echo in echoes] == [False, True, True, True, True]
    for echo in echoes:
        echo.ClearField("action_raw")
    assert echoes == [
        select_rect(3, 3, 28, 28),
        move_screen(28, 7),
        spatial("camera_move", center_minimap=(47, 24)),
        spatial("unit_command", ability_id=3794, target_minimap_coord=(15, 30)),
        move_screen(5, 27),
    ]


def test_pysc2_reads_a_replay_watched_at_another_resolution():
    features = pytest.importorskip("pysc2_evolved.lib.features")
    session = start("CollectMineralShards", seed=3)
    rng = np.random.default_rng(0)
    for n in range(24):  # actions PySC2 can reverse (the random agent above sends some it can't)
        x, y = (int(v) for v in rng.integers(0, 64, 2))
        action = (
            select_rect(0, 0, 63, 63),
            move_screen(x, y),
            move_screen(x, y, ability=3674),
            spatial("camera_move", center_minimap=(x, y)),
            spatial("unit_command", ability_id=3794, target_minimap_coord=(x, y)),
            spatial("unit_selection_point", selection_screen_coord=(x, y), type=2),
        )[n % 6]
        ask(session, action=sc_pb.RequestAction(actions=[action]))
        ask(session, step=sc_pb.RequestStep(count=8))
    watcher = watch(save(session), options=interface(screen=32, minimap=48))
    pysc2 = features.features_from_game_info(ask(watcher, game_info=sc_pb.RequestGameInfo()).game_info)
    calls = []
    while watcher.status == sc_pb.in_replay:
        ask(watcher, step=sc_pb.RequestStep(count=8))
        obs = pysc2.transform_obs(ask(watcher, observation=sc_pb.RequestObservation()).observation)
        assert obs["feature_screen"].shape == (27, 32, 32) and obs["feature_minimap"].shape == (11, 48, 48)
        calls.extend(int(function) for function in obs["last_actions"])
    assert len(calls) == 24 and calls[:6] == [3, 331, 12, 1, 332, 2]


def test_a_watcher_without_fog_sees_everything_while_the_game_stays_the_same():
    recording = play(start("FindAndDefeatZerglings", seed=6), 12, (8,), seed=5)
    foggy, clear = watch(recording.data), watch(recording.data, disable_fog=True)
    for original in recording.observations:
        for watcher in (foggy, clear):
            ask(watcher, step=sc_pb.RequestStep(count=8))
        mine, everything = (
            ask(w, observation=sc_pb.RequestObservation()).observation for w in (foggy, clear)
        )
        assert mine == original
        assert len(everything.observation.raw_data.units) > len(mine.observation.raw_data.units)
        assert (layer(everything, "visibility_map") != 1).all(), "nothing is fogged"
        positions = {u.tag: (u.pos.x, u.pos.y) for u in everything.observation.raw_data.units}
        assert all(positions[u.tag] == (u.pos.x, u.pos.y) for u in mine.observation.raw_data.units)


def test_a_custom_mini_game_replays_where_it_is_not_installed(tmp_path):
    definition = arena(
        [
            {"spawn": {"type": "Marine", "owner": 1, "count": 3, "at": {"region": "playable_area"}}},
            {"spawn": {"type": "Zergling", "owner": 2, "count": 2, "at": {"point": [40, 40]}}},
        ]
    )
    recording = play(start("TestArena", map_data=definition), 15, MIXED, seed=8)
    (tmp_path / "Other.json").write_bytes(builtin_definitions()["MoveToBeacon"])
    elsewhere = Session(data_dir=str(tmp_path))  # its only mini-game is another one
    watcher = watch(recording.data, session=elsewhere, map_data=definition)  # map_data may repeat the map
    for count, original in zip(recording.counts, recording.observations):
        ask(watcher, step=sc_pb.RequestStep(count=count))
        assert ask(watcher, observation=sc_pb.RequestObservation()).observation == original


def test_record_replay_saves_a_replay_truncated_where_the_watcher_is():
    recording = play(start("BuildMarines", seed=2), 12, (8,), seed=6)
    assert "record_replay" in ask(watch(recording.data), save_replay=sc_pb.RequestSaveReplay()).error[0]
    watcher = watch(recording.data, record_replay=True)
    for _ in range(5):
        ask(watcher, step=sc_pb.RequestStep(count=8))
    truncated = save(watcher)
    info = ask(watcher, replay_info=sc_pb.RequestReplayInfo(replay_data=truncated)).replay_info
    assert info.game_duration_loops == 40
    again = watch(truncated)
    for original in recording.observations[:5]:
        ask(again, step=sc_pb.RequestStep(count=8))
        assert ask(again, observation=sc_pb.RequestObservation()).observation == original
    assert again.status == sc_pb.ended
    while watcher.status == sc_pb.in_replay:
        ask(watcher, step=sc_pb.RequestStep(count=8))
    assert save(watcher) == recording.data, "watched to its end, a replay saves as itself"


# ---- the status machine ------------------------------------------------------------------------------
def test_what_a_replay_accepts_and_refuses():
    recording = play(start("MoveToBeacon"), 3, (8,))
    session = recording.session
    watch(recording.data, session=session)  # from in_game
    action = ask(session, action=sc_pb.RequestAction(actions=[move_screen(3, 3)]))
    assert "not accepted while watching a replay" in action.error[0] and action.status == sc_pb.in_replay
    restart = ask(session, restart_game=sc_pb.RequestRestartGame())
    assert "start_replay again" in restart.error[0] and restart.status == sc_pb.in_replay
    assert ask(session, ping=sc_pb.RequestPing()).status == sc_pb.in_replay
    assert ask(session, leave_game=sc_pb.RequestLeaveGame()).status == sc_pb.launched
    watch(recording.data, session=session)  # from launched
    watch(recording.data, session=session)  # from in_replay
    while session.status == sc_pb.in_replay:
        ask(session, step=sc_pb.RequestStep(count=8))
    assert "start_replay again" in ask(session, restart_game=sc_pb.RequestRestartGame()).error[0]
    assert ALREADY_ENDED in ask(session, action=sc_pb.RequestAction(actions=[move_screen(3, 3)])).error[0]
    watch(recording.data, session=session)  # from ended
    assert (
        ask(session, create_game=create_request("MoveToBeacon")).status == sc_pb.init_game
    )  # from in_replay
    assert ask(session, join_game=join_request()).status == sc_pb.in_game
    assert ask(session, step=sc_pb.RequestStep(count=8)).step.simulation_loop == 8, "a game again"


# ---- what a replay can be refused for ----------------------------------------------------------------
@pytest.fixture(scope="module")
def saved() -> bytes:
    return play(start("MoveToBeacon"), 4, (8,)).data


def rewritten(data: bytes, **changes) -> bytes:
    return replay_file.encode(dataclasses.replace(replay_file.decode(data), **changes))


def repacked(data: bytes, edit) -> bytes:
    """The replay's archive again, with its JSON member changed by `edit` (a function of the parsed JSON)."""
    body = mpq.MpqArchive(data).read(replay_archive.MEMBER)
    return replay_archive.pack(replay_file.decode(data), edit(json.loads(body)))


def recompressed(body: bytes, version: bytes = b"1") -> bytes:
    """A format 1 replay (the magic line, then zlib) of `body`."""
    return replay_file.MAGIC + version + b"\n" + zlib.compress(body)


def flipped(data: bytes, at: int) -> bytes:
    return data[:at] + bytes([data[at] ^ 0xFF]) + data[at + 1 :]


def member_at(data: bytes) -> int:
    """Where the replay's JSON member lies in the file."""
    archive = mpq.MpqArchive(data)
    return archive.offset + archive.block(replay_archive.MEMBER).offset


def table_at(data: bytes) -> int:
    """Where the archive's hash table lies in the file (the header's sixth field)."""
    archive = mpq.MpqArchive(data)
    return archive.offset + int.from_bytes(data[archive.offset + 16 : archive.offset + 20], "little")


def real_game_like(with_user_data: bool) -> bytes:
    """An archive as the real game writes them: its members, none of them sc2env's."""
    files = {"replay.details": b"\x05\x00", "replay.gamemetadata.json": b"{}", "replay.game.events": b"x"}
    return mpq.write_archive(files, user_data=b"header" if with_user_data else None)


@pytest.fixture(scope="module")
def format1() -> bytes:
    """A format 1 replay (sc2env-replay/1), written by sc2env before replays were .SC2Replay archives."""
    return FORMAT1_REPLAY.read_bytes()


@pytest.mark.parametrize(
    "make, kind, details",
    [
        (lambda d: b"", "InvalidReplayData", "not an sc2env replay (empty data"),
        (
            lambda d: b"some bytes that are not a replay",
            "InvalidReplayData",
            "not an sc2env replay (it starts with",
        ),
        (lambda d: real_game_like(True), "InvalidReplayData", "real StarCraft II binary"),
        (lambda d: real_game_like(False), "InvalidReplayData", "recorded by the real game"),
        (lambda d: b"MPQ\x1b" + bytes(200), "ParsingError", "the replay's archive is damaged"),
        (lambda d: d[: len(d) // 2], "ParsingError", "it is truncated"),
        (lambda d: flipped(d, member_at(d) + 20), "ParsingError", "compressed data is damaged"),
        (lambda d: flipped(d, table_at(d) + 5), "ParsingError", "hash table does not match its MD5"),
        (lambda d: flipped(d, 1030), "ParsingError", "header does not match its MD5"),
        (lambda d: d + b"!", "ParsingError", "1 unexpected bytes after the replay's archive"),
        (lambda d: repacked(d, lambda j: b"{}"), "ParsingError", "format is None, not 2"),
        (
            lambda d: repacked(d, lambda j: json.dumps({**j, "format": 3}).encode()),
            "InvalidReplayData",
            "install a newer sc2env",
        ),
        (lambda d: repacked(d, lambda j: b"[1, 2"), "ParsingError", "not valid JSON"),
        (
            lambda d: repacked(d, lambda j: json.dumps({"format": 2, "player": {}}).encode()),
            "ParsingError",
            "'interface_options' is missing",
        ),
    ],
    ids=[
        "empty",
        "garbage",
        "sc2replay",
        "mpq",
        "damaged-mpq",
        "truncated",
        "corrupted",
        "table",
        "header",
        "trailing",
        "no-format",
        "newer-format",
        "not-json",
        "missing-field",
    ],
)
def test_bad_replay_data_is_refused_with_what_was_wrong(saved, make, kind, details):
    assert_refused(make(saved), kind, details)


@pytest.mark.parametrize(
    "make, kind, details",
    [
        (lambda d: d[: len(d) // 2], "ParsingError", "truncated"),
        (lambda d: flipped(d, 40), "ParsingError", "corrupted"),
        (lambda d: d + b"!", "ParsingError", "unexpected bytes after"),
        (lambda d: replay_file.MAGIC + b"x\n" + d[16:], "ParsingError", "first line is damaged"),
        (lambda d: recompressed(b"{}", b"2"), "ParsingError", "first line is damaged"),
        (lambda d: recompressed(b"[1, 2"), "ParsingError", "not valid JSON"),
        (
            lambda d: recompressed(b" " * (replay_file.MAX_INFLATED_BYTES + 1)),
            "InvalidReplayData",
            "inflates to more than 256 MiB",
        ),
        (
            lambda d: recompressed(json.dumps({"player": {}}).encode()),
            "ParsingError",
            "'interface_options' is missing",
        ),
    ],
    ids=[
        "truncated",
        "corrupted",
        "trailing",
        "first-line",
        "unknown-version",
        "not-json",
        "bomb",
        "missing-field",
    ],
)
def test_bad_format1_data_is_refused_with_what_was_wrong(format1, make, kind, details):
    assert_refused(make(format1), kind, details)


def test_a_member_larger_than_any_replay_is_refused_before_it_is_inflated(saved, monkeypatch):
    size = mpq.MpqArchive(saved).block(replay_archive.MEMBER).size
    monkeypatch.setattr(replay_file, "MAX_INFLATED_BYTES", size - 1)
    assert_refused(saved, "InvalidReplayData", f"inflates to {size} bytes, more than")


def assert_refused(data: bytes, kind: str, details: str) -> None:
    """replay_info and start_replay both refuse `data` with `kind` and `details`; the game stays as it was."""
    info = ask(Session(), replay_info=sc_pb.RequestReplayInfo(replay_data=data)).replay_info
    assert info.error == sc_pb.ResponseReplayInfo.Error.Value(kind) and details in info.error_details, info
    session = start("MoveToBeacon")
    started = ask(session, start_replay=sc_pb.RequestStartReplay(replay_data=data, options=interface()))
    start_kind = "InvalidReplayData" if kind == "ParsingError" else kind  # start_replay has no ParsingError
    assert started.start_replay.error == sc_pb.ResponseStartReplay.Error.Value(start_kind)
    assert details in started.start_replay.error_details
    assert started.status == sc_pb.in_game and session.playback is None, (
        "a refused replay leaves the game as it was"
    )


def test_a_real_starcraft_replay_is_explained():
    details = ask(
        Session(), replay_info=sc_pb.RequestReplayInfo(replay_data=real_game_like(True))
    ).replay_info
    assert "plays only replays it recorded itself" in details.error_details
    assert "without sc2env's member sc2env.replay.json" in details.error_details
    assert "real StarCraft II binary (engine='sc2')" in details.error_details


def test_a_format1_replay_is_still_read_and_played_to_its_end(format1):
    recorded = replay_file.decode(format1)
    assert (recorded.map_name, recorded.game_loop, recorded.result) == ("MoveToBeacon", 1920, sc_pb.Tie)
    assert recorded.started_at is None, "format 1 did not record when the episode started"
    info = ask(Session(), replay_info=sc_pb.RequestReplayInfo(replay_data=format1)).replay_info
    assert not info.HasField("error") and info.game_duration_loops == 1920
    assert info.player_info[0].player_result.result == sc_pb.Tie
    watcher = watch(format1, record_replay=True)
    done = ask(watcher, step=sc_pb.RequestStep(count=MAX_STEP_LOOPS))
    assert (done.status, done.step.simulation_loop, list(done.error)) == (sc_pb.ended, 1920, [])
    obs = ask(watcher, observation=sc_pb.RequestObservation()).observation
    assert obs.observation.score.score == recorded.score
    resaved = save(watcher)  # saved again, it is a format 2 archive of the same episode
    assert resaved.startswith(mpq.USER_DATA_MAGIC)
    again = replay_file.decode(resaved)
    assert again.started_at is not None
    assert dataclasses.replace(again, started_at=None) == recorded


def test_a_replay_of_another_sc2env_version_is_refused_naming_both(saved):
    other = rewritten(saved, sc2env_version="0.0.1")
    info = ask(Session(), replay_info=sc_pb.RequestReplayInfo(replay_data=other)).replay_info
    assert not info.HasField("error") and info.map_name == "MoveToBeacon", "replay_info still describes it"
    answer = ask(Session(), start_replay=sc_pb.RequestStartReplay(replay_data=other, options=interface()))
    error = answer.start_replay
    assert error.error == sc_pb.ResponseStartReplay.InvalidReplayData and answer.status == sc_pb.launched
    assert f"recorded by sc2env 0.0.1 and this engine is sc2env {__version__}" in error.error_details
    assert "Install sc2env 0.0.1 to watch it" in error.error_details


def test_replay_paths_are_read_or_refused(saved, tmp_path):
    path = tmp_path / "game.SC2Replay"
    path.write_bytes(saved)
    session = Session()
    started = ask(session, start_replay=sc_pb.RequestStartReplay(replay_path=str(path), options=interface()))
    assert started.status == sc_pb.in_replay
    info = ask(session, replay_info=sc_pb.RequestReplayInfo(replay_path=str(path))).replay_info
    assert info.game_duration_loops == 32
    for bad in (tmp_path / "missing.SC2Replay", tmp_path):
        info = ask(session, replay_info=sc_pb.RequestReplayInfo(replay_path=str(bad))).replay_info
        assert info.error == sc_pb.ResponseReplayInfo.InvalidReplayPath and str(bad) in info.error_details
        started = ask(
            session, start_replay=sc_pb.RequestStartReplay(replay_path=str(bad), options=interface())
        )
        assert started.start_replay.error == sc_pb.ResponseStartReplay.InvalidReplayPath
    empty = ask(session, replay_info=sc_pb.RequestReplayInfo(replay_path="")).replay_info
    assert "replay_path is empty" in empty.error_details
    missing = ask(session, replay_info=sc_pb.RequestReplayInfo()).replay_info
    assert missing.error == sc_pb.ResponseReplayInfo.MissingReplay and "replay_data" in missing.error_details
    missing = ask(session, start_replay=sc_pb.RequestStartReplay(options=interface())).start_replay
    assert missing.error == sc_pb.ResponseStartReplay.MissingReplay


@pytest.mark.parametrize("player_id, ok", [(0, True), (1, True), (2, False), (-1, False)])
def test_only_the_recorded_player_can_be_observed(saved, player_id, ok):
    answer = ask(
        Session(),
        start_replay=sc_pb.RequestStartReplay(
            replay_data=saved, options=interface(), observed_player_id=player_id
        ),
    )
    if ok:
        assert answer.status == sc_pb.in_replay and not answer.start_replay.HasField("error")
    else:
        assert answer.start_replay.error == sc_pb.ResponseStartReplay.InvalidObservedPlayerId
        assert f"observed_player_id {player_id}" in answer.start_replay.error_details


def test_start_replay_needs_options_it_can_serve_and_the_replay_s_own_map(saved):
    def refusal(**fields):
        answer = ask(Session(), start_replay=sc_pb.RequestStartReplay(replay_data=saved, **fields))
        assert answer.status == sc_pb.launched
        return answer.start_replay

    assert refusal().error == sc_pb.ResponseStartReplay.MissingOptions
    tiny = interface()
    tiny.feature_layer.resolution.x = 0
    bad = refusal(options=tiny)
    assert (
        bad.error == sc_pb.ResponseStartReplay.LaunchError and "feature_layer.resolution" in bad.error_details
    )
    other = refusal(options=interface(), map_data=builtin_definitions()["CollectMineralShards"])
    assert other.error == sc_pb.ResponseStartReplay.InvalidMapData
    assert "differs from the definition" in other.error_details
    mpq = refusal(options=interface(), map_data=b"MPQ\x1a" + bytes(64))
    assert (
        mpq.error == sc_pb.ResponseStartReplay.InvalidMapData and "leave map_data empty" in mpq.error_details
    )


def test_a_replay_whose_inside_was_edited_into_nonsense_is_invalid_data(saved):
    for changes in ({"map_definition": b"{}"}, {"player": replay_file.RecordedPlayer(7, 1, 1, "x")}):
        answer = ask(
            Session(),
            start_replay=sc_pb.RequestStartReplay(
                replay_data=rewritten(saved, **changes), options=interface()
            ),
        )
        assert answer.start_replay.error == sc_pb.ResponseStartReplay.InvalidReplayData, changes


# ---- over a real websocket ---------------------------------------------------------------------------
def test_save_and_watch_a_replay_through_the_engine_process(controller, tmp_path):
    controller.create_game(create_request("CollectMineralShards", seed=4))
    controller.join_game(join_request())
    rng = np.random.default_rng(1)
    originals = []
    for n in range(12):
        originals.append(controller.act_step_observe([random_action(rng, n, [])], (8, 16, 1)[n % 3]))
    data = controller.save_replay().data
    assert data.startswith(mpq.USER_DATA_MAGIC), "a .SC2Replay: an MPQ archive after its user data header"
    assert replay_file.decode(data).game_loop == originals[-1].observation.game_loop
    info = controller.replay_info(replay_data=data)
    assert (
        info.map_name == "CollectMineralShards"
        and info.game_duration_loops == originals[-1].observation.game_loop
    )
    path = tmp_path / "shards.SC2Replay"
    path.write_bytes(data)
    controller.start_replay(sc_pb.RequestStartReplay(replay_path=str(path), options=interface()))
    assert controller.status == sc_pb.in_replay
    assert controller.game_info().map_name == "CollectMineralShards"
    for n, original in enumerate(originals):
        controller.step((8, 16, 1)[n % 3])
        assert controller.observation() == original
    assert controller.status == sc_pb.ended


@pytest.mark.parametrize(
    "changes",
    [
        {"result": 7},
        {"base_build": -1},
        {"score": 2**40},
        {"player": replay_file.RecordedPlayer(2**40, 1, 1, "x")},
        {"player": replay_file.RecordedPlayer(1, 99, 1, "x")},
    ],
    ids=["result", "base_build", "score", "player_id", "race"],
)
def test_a_header_edited_out_of_range_is_a_parsing_error_not_an_engine_fault(saved, changes):
    info = ask(
        Session(), replay_info=sc_pb.RequestReplayInfo(replay_data=rewritten(saved, **changes))
    ).replay_info
    assert info.error == sc_pb.ResponseReplayInfo.ParsingError and "is out of its range" in info.error_details


# ---- inputs checked against themselves and the header (issue 28) --------------------------------------
def refused_everywhere(data: bytes, kind: str, details: str) -> None:
    """replay_info and start_replay both refuse `data` as `kind`, saying `details`; nothing is started."""
    info = ask(Session(), replay_info=sc_pb.RequestReplayInfo(replay_data=data)).replay_info
    assert info.error == sc_pb.ResponseReplayInfo.Error.Value(kind), info
    assert details in info.error_details
    session = Session()
    started = ask(session, start_replay=sc_pb.RequestStartReplay(replay_data=data, options=interface()))
    start_kind = "InvalidReplayData" if kind == "ParsingError" else kind
    assert started.start_replay.error == sc_pb.ResponseStartReplay.Error.Value(start_kind)
    assert details in started.start_replay.error_details and "internal error" not in str(started)
    assert session.status == sc_pb.launched and session.playback is None


def test_an_action_input_that_is_no_action_is_refused_before_playback(saved):
    # Garbage action bytes listed as a good replay; playback then stopped with "internal error ... DecodeError".
    inputs = list(replay_file.decode(saved).inputs)
    n = next(k for k, entry in enumerate(inputs) if entry.__class__ is bytes and entry)
    inputs[n] = b"\xff\xff\xff"
    refused_everywhere(
        rewritten(saved, inputs=tuple(inputs)),
        "ParsingError",
        f"inputs[{n}] is not a serialized sc2api Action",
    )


def edit_steps(saved: bytes, edit) -> bytes:
    recorded = replay_file.decode(saved)
    return rewritten(saved, inputs=tuple(edit(list(recorded.inputs))))


def first_step(inputs: list) -> int:
    return next(k for k, entry in enumerate(inputs) if entry.__class__ is int)


@pytest.mark.parametrize(
    "edit, details",
    [
        # Played as one step to the time limit (1920) while the header says 32 loops: no divergence was told.
        (lambda i: i[: first_step(i)] + [2**40] + i[first_step(i) + 1 :], "is a step of 1099511627776"),
        (lambda i: i[: first_step(i)] + [9] + i[first_step(i) + 1 :], "steps add up to 33 game loops"),
        (lambda i: [e for e in i if e.__class__ is not int or e != 8] + [8], "steps add up to 8 game loops"),
    ],
    ids=["huge-step", "longer-step", "steps-dropped"],
)
def test_steps_that_disagree_with_the_header_are_refused_before_playback(saved, edit, details):
    assert replay_file.decode(saved).game_loop == 32  # four steps of 8
    refused_everywhere(edit_steps(saved, edit), "InvalidReplayData", details)


def test_a_result_the_steps_cannot_have_reached_is_refused(saved):
    # An unfinished game's header given a result: its steps all ran whole, so the game did not end in them.
    refused_everywhere(
        rewritten(saved, result=sc_pb.Victory, game_loop=40), "InvalidReplayData", "add up to 32"
    )


def test_a_replay_longer_than_its_map_allows_is_refused():
    recording = play(start("MoveToBeacon", seed=2), 400, (16,), seed=1)
    recorded = replay_file.decode(recording.data)
    assert recorded.result == sc_pb.Tie and recorded.game_loop == 1920
    source = json.loads(recorded.map_definition)
    source["time_limit"] = 960  # edited: the map ends the game at 960, the recording at 1920
    data = rewritten(recording.data, map_definition=json.dumps(source).encode())
    started = ask(Session(), start_replay=sc_pb.RequestStartReplay(replay_data=data, options=interface()))
    assert started.start_replay.error == sc_pb.ResponseStartReplay.InvalidReplayData
    assert (
        "lasts 1920 game loops, longer than its map's time limit of 960" in started.start_replay.error_details
    )


def test_a_game_that_ends_before_its_recording_does_reports_the_divergence_then(saved):
    # The game ended at loop 1 (a map edited to end at once) with 31 recorded loops to go: the watcher stayed
    # in_replay with no error (a client then sees a result and stops, never told of the divergence).
    source = json.loads(replay_file.decode(saved).map_definition)
    source["triggers"].append({"when": {"every_loop": {}}, "do": [{"end_game": {"result": "Defeat"}}]})
    watcher = watch(rewritten(saved, map_definition=json.dumps(source).encode()))
    done = ask(watcher, step=sc_pb.RequestStep(count=1))
    assert done.status == sc_pb.ended and done.step.simulation_loop == 1
    assert "diverged from its recording" in done.error[0], done.error
    assert "ended at 1 with result 2" in done.error[0] and "of its inputs not played" in done.error[0]
    assert ALREADY_ENDED in ask(watcher, step=sc_pb.RequestStep(count=8)).error[0]


def test_a_random_state_no_generator_takes_is_a_parsing_error(saved):
    # Found by tools/fuzz_engine.py: an infinity in rng_state raised OverflowError, an internal error.
    broken = {**replay_file.decode(saved).rng_state, "uinteger": float("inf")}
    refused_everywhere(
        rewritten(saved, rng_state=broken), "ParsingError", "rng_state is not a PCG64 generator state"
    )
