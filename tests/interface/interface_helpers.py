"""Small observations built by hand, for unit tests of masks and decoding."""

from __future__ import annotations

from s2clientprotocol import sc2api_pb2 as sc_pb


def observation(
    *, abilities=(), army=0, idle_workers=0, panel=None, groups=(), game_loop=7, actions=()
) -> sc_pb.ResponseObservation:
    """A ResponseObservation with the given UI state.

    `abilities`: (ability_id, requires_point) pairs. `panel`: None, ("single",), ("multi", n),
    ("cargo", passengers), ("production", queue_length). `groups`: (index, leader type, count) triples.
    """
    response = sc_pb.ResponseObservation()
    obs = response.observation
    obs.game_loop = game_loop
    obs.player_common.player_id = 1
    obs.player_common.army_count = army
    obs.player_common.idle_worker_count = idle_workers
    for ability_id, requires_point in abilities:
        obs.abilities.add(ability_id=ability_id, requires_point=requires_point)
    ui = obs.ui_data
    for index, leader, count in groups:
        ui.groups.add(control_group_index=index, leader_unit_type=leader, count=count)
    if panel is not None:
        kind = panel[0]
        if kind == "single":
            ui.single.unit.unit_type = 48
            ui.single.unit.health = 45
        elif kind == "multi":
            for i in range(panel[1]):
                ui.multi.units.add(unit_type=48, player_relative=1, health=40 + i, build_progress=1.0)
        elif kind == "cargo":
            ui.cargo.unit.unit_type = 54
            ui.cargo.slots_available = 8 - panel[1]
            for _ in range(panel[1]):
                ui.cargo.passengers.add(unit_type=48, health=45, transport_slots_taken=1)
        elif kind == "production":
            ui.production.unit.unit_type = 21
            for i in range(panel[1]):
                ui.production.build_queue.add(unit_type=48, build_progress=0.25 * i)
                ui.production.production_queue.add(ability_id=560, build_progress=0.25 * i)
    response.actions.extend(actions)
    return response


def with_layers(response: sc_pb.ResponseObservation, size: int, seed: int = 0) -> sc_pb.ResponseObservation:
    """`response` with every screen and minimap layer filled at `size`×`size`, at each layer's bit depth,
    with random contents (so that decoded stacks can be compared)."""
    import numpy as np

    from sc2env.interface import MINIMAP_LAYERS, SCREEN_LAYERS

    rng = np.random.default_rng(seed)
    layers = response.observation.feature_layer_data
    for table, renders in ((SCREEN_LAYERS, layers.renders), (MINIMAP_LAYERS, layers.minimap_renders)):
        for layer in table:
            image = getattr(renders, layer.name)
            image.size.x = image.size.y = size
            image.bits_per_pixel = layer.bits
            count = size * size * layer.bits // 8 if layer.bits > 1 else (size * size + 7) // 8
            image.data = rng.integers(0, 256, count, dtype=np.uint8).tobytes()
    return response
