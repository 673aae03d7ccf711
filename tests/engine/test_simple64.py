"""Simple64 (maps/melee/Simple64.json): its layout, and the melee rule that a side without buildings has lost."""

from __future__ import annotations

import importlib.util
import json
import pathlib
from collections import Counter

import numpy as np
import pytest
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env.engine.computer import INTERFACE
from sc2env.engine.game import Game, Joining
from sc2env.engine.mapdef import find_definition

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _tool():
    spec = importlib.util.spec_from_file_location("simple64_map", ROOT / "tools" / "simple64_map.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def new_game(seed: int = 1) -> Game:
    definition = find_definition("Melee/Simple64.SC2Map")
    game = Game(definition, seed)
    game.join_all([Joining(1, INTERFACE, 1, "one"), Joining(2, INTERFACE, 1, "two")])
    return game


def kinds(game: Game, owner: int) -> Counter:
    w = game.world
    return Counter(w.types[i].name for i in range(w.n) if w.owner[i] == owner)


def test_shipped_definition_is_the_tools_output():
    shipped = json.loads((ROOT / "maps" / "melee" / "Simple64.json").read_text())
    assert shipped == json.loads(json.dumps(_tool().definition()))


def test_served_under_pysc2s_path_and_name():
    definition = find_definition("Melee/Simple64.SC2Map")
    assert definition.path == "Melee/Simple64.SC2Map"  # pysc2's maps.melee.Simple64: directory Melee
    assert definition.map_size == (64, 64)
    assert definition.vision == "fog" and definition.opponent == "player"
    assert [slot.race for slot in definition.players] == [1, 1]  # Terran both
    assert definition.time_limit == 16 * 60 * 30 and definition.timeout_result == "Tie"


def test_each_side_starts_with_a_base_and_a_free_natural():
    game = new_game()
    for owner in (1, 2):
        assert kinds(game, owner) == Counter({"SCV": 12, "CommandCenter": 1})
        assert game.players[owner].minerals == 50
    neutral = kinds(game, 0)
    assert neutral == Counter({"MineralField": 16, "MineralField750": 16, "VespeneGeyser": 8})
    w = game.world
    centres = [tuple(w.pos[i]) for i in range(w.n) if w.types[i].name == "CommandCenter"]
    assert centres == [tuple(s) for s in game.definition.start_locations]  # placed where asked, legal spots
    # Mirror images of each other round the centre: the map is fair.
    assert np.allclose(np.add(*centres), (64, 64))
    # Each natural takes a Command Center (3 cells from its resources, as the game requires).
    cc = next(t for t in (w.types[i] for i in range(w.n)) if t.name == "CommandCenter")
    natural = _tool().NATURAL
    for owner, spot in ((1, natural), (2, (64 - natural[0], 64 - natural[1]))):
        assert game.building.placement_error(cc, *spot, owner=owner) == 1  # Success


def test_camera_starts_on_each_players_base():
    game = new_game()
    for owner, start in zip((1, 2), game.definition.start_locations):
        assert game.players[owner].camera == pytest.approx(start)


def _destroy(game: Game, owner: int) -> None:
    w = game.world
    game.debug_kill([int(w.tag[i]) for i in range(w.n) if w.owner[i] == owner and w.types[i].structure])


def test_a_side_with_no_buildings_loses_though_units_remain():
    game = new_game()
    _destroy(game, 2)
    game.step(1)
    assert game.ended
    assert game.result_for(1) == sc_pb.Victory and game.result_for(2) == sc_pb.Defeat
    assert kinds(game, 2)["SCV"] == 12  # its SCVs live on: buildings decide, not units


def test_losing_units_only_does_not_end_the_game():
    game = new_game()
    w = game.world
    game.debug_kill([int(w.tag[i]) for i in range(w.n) if w.owner[i] == 1 and not w.types[i].structure])
    game.step(8)
    assert not game.ended


def test_both_sides_without_buildings_at_once_is_a_tie():
    game = new_game()
    _destroy(game, 1)
    _destroy(game, 2)
    game.step(1)
    assert game.result_for(1) == sc_pb.Tie and game.result_for(2) == sc_pb.Tie


def test_player_one_destroyed_is_its_defeat():
    game = new_game()
    _destroy(game, 1)
    game.step(1)
    assert game.result_for(1) == sc_pb.Defeat and game.result_for(2) == sc_pb.Victory


def _ai_game(difficulty: int, loops: int, seed: int = 3) -> Game:
    """The built-in AI as player 2 against an idle player 1, for `loops` loops."""
    from sc2env.engine.computer import Computer

    game = new_game(seed)
    Computer(2, difficulty).step(game, loops)
    return game


def test_the_ai_mines_builds_supply_and_barracks_and_trains_marines():
    game = _ai_game(sc_pb.Medium, 16 * 60 * 5)  # five game minutes
    have = kinds(game, 2)
    assert have["SCV"] == 16 and have["SupplyDepot"] >= 2 and have["Barracks"] == 3
    assert have["Marine"] + game.stats(2).lost_minerals["army"] // 50 >= 8
    assert game.stats(2).collected_minerals > 2000  # its SCVs mined
    used, cap = game.production.food(2)
    assert used <= cap
    assert kinds(game, 1)["CommandCenter"] in (0, 1)  # the idle side's base is under attack or gone


def test_harder_levels_build_bigger_bases():
    easy, harder = (_ai_game(level, 16 * 60 * 3) for level in (sc_pb.VeryEasy, sc_pb.Harder))
    assert kinds(harder, 2)["SCV"] > kinds(easy, 2)["SCV"]
    assert kinds(harder, 2)["Barracks"] > kinds(easy, 2)["Barracks"]
    assert kinds(harder, 2)["Marine"] > kinds(easy, 2)["Marine"]


def test_the_ai_is_deterministic_under_the_seed():
    runs = [_ai_game(sc_pb.Hard, 16 * 60 * 4, seed=8) for _ in range(2)]
    assert runs[0].inputs == runs[1].inputs  # the same commands at the same loops
    assert np.array_equal(runs[0].world.pos, runs[1].world.pos)


@pytest.mark.parametrize("difficulty", [sc_pb.VeryEasy, sc_pb.Harder])
def test_the_ai_pulls_its_scvs_onto_a_worker_rush_and_back_to_mining(difficulty):
    from sc2env.engine.build_order import command
    from sc2env.engine.computer import Computer
    from sc2env.engine.orders import ATTACK

    game = new_game(3)
    w = game.world
    cc = next(int(w.tag[i]) for i in range(w.n) if w.owner[i] == 2 and w.types[i].name == "CommandCenter")
    rush = [int(w.tag[i]) for i in range(w.n) if w.owner[i] == 1 and w.types[i].name == "SCV"]
    with game.viewing(1):  # player 1 sends its twelve SCVs onto the AI's Command Center at once
        command(game, rush, ATTACK, target=cc)
    ai = Computer(2, difficulty)
    ai.step(game, 16 * 60)  # a game minute: twelve SCVs left alone take a Command Center's 1500 in about 30 s
    w = game.world
    assert kinds(game, 1)["SCV"] <= 2, kinds(game, 1)  # the raiders met the AI's SCVs
    hall = int(np.flatnonzero(w.tag[: w.n] == cc)[0])
    assert w.health[hall] > 750 and kinds(game, 2)["SCV"] >= 10
    mined = game.stats(2).collected_minerals
    ai.step(game, 16 * 30)
    assert not ai._pulled  # released once no raider is left
    assert game.stats(2).collected_minerals > mined + 100  # and mining again


def test_the_ai_keeps_its_builder_building_during_a_worker_rush():
    from sc2env.engine.build_order import command
    from sc2env.engine.computer import Computer
    from sc2env.engine.orders import ATTACK

    game = new_game(3)
    ai = Computer(2, sc_pb.Harder)
    w = game.world
    while not any(w.owner[i] == 2 and game.building.constructing(i) for i in range(w.n)):
        ai.step(game, 8)  # until its first depot is being built
        assert game.game_loop < 16 * 60, "the AI started no building in a game minute"
    depot = next(int(w.tag[i]) for i in range(w.n) if w.owner[i] == 2 and w.types[i].name == "SupplyDepot")
    cc = next(int(w.tag[i]) for i in range(w.n) if w.owner[i] == 2 and w.types[i].name == "CommandCenter")
    rush = [int(w.tag[i]) for i in range(w.n) if w.owner[i] == 1 and w.types[i].name == "SCV"]
    with game.viewing(1):
        command(game, rush, ATTACK, target=cc)
    ai.step(game, 16 * 60)  # a depot takes 21 game seconds; the raiders walk about 20 to the hall
    w = game.world
    row = int(np.flatnonzero(w.tag[: w.n] == depot)[0])
    assert w.build_progress[row] == 1  # finished: its SCV was not pulled off it
    assert kinds(game, 1)["SCV"] <= 2  # while the others met the raiders
