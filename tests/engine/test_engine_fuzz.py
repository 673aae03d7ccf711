"""Robustness: random selections and commands (every ability the engine knows, any target) never break a game."""

from __future__ import annotations

import numpy as np
import pytest
from engine_helpers import SEVEN_MINI_GAMES, move_screen, select_rect, spatial
from s2clientprotocol import sc2api_pb2 as sc_pb
from sim_helpers import Sim

from sc2env.gamedata import ABILITIES


@pytest.mark.parametrize("map_name", SEVEN_MINI_GAMES)
def test_random_commands_never_cause_an_internal_error(map_name):
    rng = np.random.default_rng(sum(map(ord, map_name)))
    sim = Sim(map_name=map_name, seed=3)
    sim.game.player.minerals = 5000  # so that builds and training go through as well
    abilities = sorted(ABILITIES)
    for step in range(300):
        if sim.session.status == sc_pb.ended:
            assert not sim.ask(restart_game=sc_pb.RequestRestartGame()).error
            sim.game.player.minerals = 5000
        x0, y0, x1, y1 = (int(v) for v in rng.integers(0, 64, 4))
        kind = rng.integers(6)
        if kind == 0:
            action = select_rect(min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1))
        elif kind == 1:
            action = spatial("unit_command", ability_id=int(rng.choice(abilities)))
        elif kind == 2:
            action = spatial("camera_move", center_minimap=(x0, y0))
        elif kind == 3:  # raw: any units, anyone's, at any unit or point
            tags = sim.game.world.tag.tolist()
            action = sc_pb.Action()
            cmd = action.action_raw.unit_command
            cmd.ability_id = int(rng.choice(abilities))
            cmd.unit_tags.extend(int(t) for t in rng.choice(tags, size=min(3, len(tags)), replace=False))
            if rng.integers(2):
                cmd.target_unit_tag = int(rng.choice(tags))
            else:
                cmd.target_world_space_pos.x, cmd.target_world_space_pos.y = x0, y0
        else:
            action = move_screen(x0, y0, ability=int(rng.choice(abilities)), queued=bool(rng.integers(2)))
        answer = sim.ask(action=sc_pb.RequestAction(actions=[action]))
        assert not answer.error, answer.error
        answer = sim.ask(step=sc_pb.RequestStep(count=int(rng.integers(1, 17))))
        assert not answer.error, (step, answer.error)
        assert not sim.ask(observation=sc_pb.RequestObservation()).error
