"""In-process games for mechanic tests: a Session playing a test arena, with raw observations."""

from __future__ import annotations

from engine_helpers import create_request, interface, join_request
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env.engine.session import Session


class Sim:
    """One engine Session playing a definition; requests in, decoded responses out."""

    def __init__(
        self,
        map_data: bytes = b"",
        map_name: str = "TestArena",
        seed: int = 1,
        disable_fog: bool = False,
        options=None,
    ):
        self.session = Session()
        create = create_request(map_name, seed)
        create.disable_fog = disable_fog
        if map_data:
            create.local_map.map_data = map_data
        created = self.ask(create_game=create)
        assert not created.create_game.HasField("error"), created.create_game.error_details
        joined = self.ask(join_game=join_request(options or interface()))
        assert not joined.join_game.HasField("error"), joined.join_game.error_details

    def ask(self, **request) -> sc_pb.Response:
        return sc_pb.Response.FromString(self.session.handle(sc_pb.Request(**request).SerializeToString()))

    @property
    def game(self):
        return self.session.game

    def obs(self) -> sc_pb.ResponseObservation:
        return self.ask(observation=sc_pb.RequestObservation()).observation

    def step(self, loops: int) -> sc_pb.ResponseObservation:
        answer = self.ask(step=sc_pb.RequestStep(count=loops))
        assert not answer.error, answer.error
        return self.obs()

    def act(self, *actions: sc_pb.Action) -> list[int]:
        return list(self.ask(action=sc_pb.RequestAction(actions=list(actions))).action.result)

    def raw(self, ability: int, tags, point=None, target: int | None = None, queued: bool = False) -> int:
        """A raw unit command; returns its immediate ActionResult."""
        action = sc_pb.Action()
        cmd = action.action_raw.unit_command
        cmd.ability_id = ability
        cmd.unit_tags.extend(tags if isinstance(tags, (list, tuple)) else [tags])
        cmd.queue_command = queued
        if point is not None:
            cmd.target_world_space_pos.x, cmd.target_world_space_pos.y = point
        if target is not None:
            cmd.target_unit_tag = target
        return self.act(action)[0]

    def units(self, unit_type: int | None = None, owner: int | None = None) -> list:
        return [
            u
            for u in self.obs().observation.raw_data.units
            if (unit_type is None or u.unit_type == unit_type) and (owner is None or u.owner == owner)
        ]

    def select(self, *tags: int) -> None:
        self.game.player.selection = list(tags)
