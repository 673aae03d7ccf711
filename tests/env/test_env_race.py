"""race: a mini-game plays its definition's race; another is refused when the env is made, not ignored."""

from __future__ import annotations

import json
import pathlib

import pytest
from s2clientprotocol import common_pb2

from sc2env.env import SC2Env
from sc2env.game.map_races import check_race
from sc2env.mapfiles import definitions_dir


def test_a_race_the_mini_game_does_not_play_is_refused_naming_the_maps_race():
    for race in ("zerg", "Protoss", "random"):
        with pytest.raises(
            ValueError,
            match=f"MoveToBeacon is a Terran mini-game: .* race={race!r} would not be played; pass race='terran'",
        ):
            SC2Env("MoveToBeacon", engine="builtin", race=race)
    with pytest.raises(ValueError, match="DefeatRoaches is a Terran mini-game"):
        SC2Env(
            "defeatroaches", engine="builtin", race="zerg"
        )  # map names in any case, as resolve_map reads them
    with pytest.raises(ValueError, match="Unknown race 'elf'"):
        SC2Env("MoveToBeacon", engine="builtin", race="elf")


def test_the_default_race_is_the_maps_and_joins_as_it(make_env):
    env = make_env("MoveToBeacon", race="Terran", screen_size=16, minimap_size=16)
    env.reset(seed=0)
    (player,) = [p for p in env.unwrapped.game_info.player_info if p.player_id == 1]
    assert player.race_requested == common_pb2.Terran


def test_a_definition_of_another_race_plays_it_by_default(tmp_path):
    spec = json.loads((definitions_dir() / "MoveToBeacon.json").read_text())
    spec["players"][0]["race"] = "Zerg"
    spec["name"] = "ZergBeacon"
    path = pathlib.Path(tmp_path / "ZergBeacon.json")
    path.write_text(json.dumps(spec))
    with pytest.raises(ValueError, match=r"ZergBeacon\.json is a Zerg mini-game: .* pass race='zerg'"):
        SC2Env(str(path), engine="builtin", race="terran")
    env = SC2Env(str(path), engine="builtin", screen_size=16, minimap_size=16)
    try:
        assert env.config.race is None
        env.reset(seed=0)
        (player,) = [p for p in env.game_info.player_info if p.player_id == 1]
        assert player.race_requested == common_pb2.Zerg
    finally:
        env.close()


def test_a_duel_slot_keeps_its_race_but_a_melee_map_takes_any():
    # The duels' units are the definition's whatever race joins; StarCraft II starts each race on Simple64.
    with pytest.raises(
        ValueError, match=r"DuelZerglingsBanelings gives player 1 Zerg units .* pass race='zerg'"
    ):
        check_race("DuelZerglingsBanelings", "terran", 1)
    check_race("DuelZerglingsBanelings", "terran", 2)
    check_race("Simple64", "zerg", 1)
    check_race("Melee/Simple64.SC2Map", "protoss", 2)
