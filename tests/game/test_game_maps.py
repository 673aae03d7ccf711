"""The map registry: the shipped mini-games (read from their definitions), and the maps of a StarCraft II install found by name."""

from __future__ import annotations

import pytest

from sc2env.errors import LaunchError
from sc2env.game import MINI_GAMES, available_maps, install_maps, resolve_map


@pytest.fixture
def maps_dir(tmp_path):
    for relative in (
        "mini_games/MoveToBeacon.SC2Map",
        "Melee/Simple64.SC2Map",
        "Ladder/2000AtmospheresAIE.SC2Map",
        "Custom/MoveToBeacon.SC2Map",
    ):
        path = tmp_path / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"MPQ" + relative.encode())
    return tmp_path


def test_mini_games_carry_their_timers():
    loops = {name: spec.game_loops for name, spec in MINI_GAMES.items()}
    assert loops == {
        "MoveToBeacon": 1920,
        "CollectMineralShards": 1920,
        "FindAndDefeatZerglings": 2880,
        "DefeatRoaches": 1920,
        "DefeatZerglingsAndBanelings": 1920,
        "CollectMineralsAndGas": 6720,
        "BuildMarines": 14400,
    }
    assert all(spec.mini_game and spec.file is None for spec in MINI_GAMES.values())


def test_install_maps_by_name(maps_dir):
    found = install_maps(maps_dir)
    assert found["Simple64"].path == "Melee/Simple64.SC2Map" and found["Simple64"].players == 2
    assert found["2000AtmospheresAIE"].read_data() == b"MPQLadder/2000AtmospheresAIE.SC2Map"
    beacon = found["MoveToBeacon"]  # the mini-game's own file wins over a same-named custom map
    assert beacon.mini_game and beacon.game_loops == 1920 and beacon.path == "mini_games/MoveToBeacon.SC2Map"
    assert beacon.read_data().startswith(b"MPQmini_games")


def test_resolve_by_name_case_or_path(maps_dir):
    assert resolve_map("simple64", maps_dir).name == "Simple64"
    assert resolve_map("Ladder/2000AtmospheresAIE.SC2Map", maps_dir).name == "2000AtmospheresAIE"
    assert resolve_map("DefeatRoaches").path == "mini_games/DefeatRoaches.SC2Map"
    assert set(MINI_GAMES) <= set(available_maps(maps_dir))


def test_unknown_map_lists_the_known_ones(maps_dir):
    with pytest.raises(LaunchError, match=r"Unknown map 'Nowhere'.*Simple64"):
        resolve_map("Nowhere", maps_dir)


def test_the_mini_games_are_the_shipped_definitions_in_their_listed_order():
    from sc2env.mapfiles import LIST_ORDER_FILE, definitions_dir

    folder = definitions_dir()
    assert set(MINI_GAMES) == {file.stem for file in folder.glob("*.json")}
    listed = [
        line for line in (folder / LIST_ORDER_FILE).read_text().splitlines() if not line.startswith("#")
    ]
    assert list(MINI_GAMES) == listed, "order.txt names every shipped mini-game once"


def test_a_definition_added_to_the_maps_folder_is_a_mini_game_with_its_own_timer(tmp_path, monkeypatch):
    import json

    from sc2env.game import maps
    from sc2env.mapfiles import LIST_ORDER_FILE, definitions_dir

    beacon = json.loads((definitions_dir() / "MoveToBeacon.json").read_text())
    (tmp_path / "MoveToBeacon.json").write_text(json.dumps(beacon))
    (tmp_path / "ALongerBeacon.json").write_text(
        json.dumps({**beacon, "name": "ALongerBeacon", "time_limit": 99})
    )
    (tmp_path / LIST_ORDER_FILE).write_text("# first\nMoveToBeacon\nNoSuchGame\n")
    monkeypatch.setattr(maps, "definitions_dir", lambda: tmp_path)
    maps._shipped_files.cache_clear()  # read once per process: cleared before and after
    maps._shipped.cache_clear()
    try:
        assert list(maps.MINI_GAMES) == ["MoveToBeacon", "ALongerBeacon"]  # listed first, the rest by name
        longer = maps.MINI_GAMES["ALongerBeacon"]
        assert (
            longer.game_loops == 99 and longer.path == "mini_games/ALongerBeacon.SC2Map" and longer.mini_game
        )
        assert maps.resolve_map("alongerbeacon") == longer
    finally:
        maps._shipped_files.cache_clear()
        maps._shipped.cache_clear()
