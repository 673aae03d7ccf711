"""The observation's player panels: player_common, the command card (abilities), score details and the UI.

Built once per step, so the parts that only change with the units' types and owners are kept per rows
(`World.per_rows`), and repeated messages (a unit's info card, the score) are reused as serialized bytes
keyed by everything they show: parsing them back gives exactly the message built field by field.
"""

from __future__ import annotations

import functools
import math
import struct
from typing import TYPE_CHECKING

import numpy as np
from s2clientprotocol import sc2api_pb2 as sc_pb
from s2clientprotocol import score_pb2, ui_pb2

from sc2env.engine import wire
from sc2env.engine.frame import SELF, player_relative
from sc2env.engine.orders import RALLIES, SMART
from sc2env.engine.players import CATEGORIES
from sc2env.engine.type_tables import FOOD_REQUIRED, WORKER_TYPES, per_type
from sc2env.gamedata import ABILITIES, LOOPS_PER_GAME_SECOND

if TYPE_CHECKING:
    from sc2env.engine.game import Game

_CURRICULUM = score_pb2.Score.Curriculum
_CATEGORY_STATS = (
    "killed_minerals",
    "killed_vespene",
    "lost_minerals",
    "lost_vespene",
    "total_used_minerals",
    "total_used_vespene",
)
_USED = ("used_minerals", "used_vespene", "food_used")
_MULTI_PANEL = ui_pb2.ObservationUI.DESCRIPTOR.fields_by_name["multi"].number
_UNITS = ui_pb2.MultiPanel.DESCRIPTOR.fields_by_name["units"].number
_CACHE_SIZE = 4096

# Per unit type id: mineral cost, vespene cost, food required (units), worker, army, structure, category.
_MINERALS, _VESPENE, _FOOD, _WORKER, _ARMY, _STRUCTURE, _CATEGORY = range(7)
_TYPE_TABLE = np.stack(
    (
        per_type(lambda t: t.mineral_cost),
        per_type(lambda t: t.vespene_cost),
        FOOD_REQUIRED,
        WORKER_TYPES,
        per_type(lambda t: t.army),
        per_type(lambda t: t.structure),
        per_type(lambda t: CATEGORIES.index(t.cost_category or "none")),
    ),
    axis=1,
)


class Panels:
    """Fills the player panels of one game's observations; holds the caches of serialized pieces."""

    def __init__(self, game: Game):
        self.game = game
        self._unit_cards: dict[tuple, bytes] = {}

    def fill(self, o: sc_pb.Observation, score: bool = True) -> None:
        self.player_common(o.player_common)
        self.abilities(o)
        if score:  # InterfaceOptions.score: the game sends the score only when asked
            self.score(o.score)

    # ---- per-row facts ------------------------------------------------------------------------------
    def _own(self) -> tuple:
        """The player's rows and what follows from their types: (rows, type-table rows, worker rows, food of
        workers, army count, used_* sums by category, total values of the finished ones)."""
        w, pid = self.game.world, self.game.player.player_id

        def build():
            own = (w.owner == pid).nonzero()[0]
            table = _TYPE_TABLE[w.type_id[own]]
            worker = table[:, _WORKER] > 0
            category = table[:, _CATEGORY].astype(np.intp)
            used = tuple(
                tuple(np.bincount(category, weights=table[:, column], minlength=len(CATEGORIES)).tolist())
                for column in (_MINERALS, _VESPENE, _FOOD)
            )
            # Which rows are finished is a per-rows fact too (construction start and end change the version).
            return (
                own,
                table,
                own[worker].tolist(),
                float(table[:, _FOOD][worker].sum()),
                int(table[:, _ARMY].sum()),
                used,
                _values(table, w.build_progress[own] >= 1),
            )

        return w.per_rows(("own", pid), build)

    # ---- player_common ------------------------------------------------------------------------------
    def player_common(self, pc: sc_pb.PlayerCommon) -> None:
        g = self.game
        w, p = g.world, g.player
        pc.player_id = p.player_id
        pc.minerals, pc.vespene = p.minerals, p.vespene
        food_used, food_cap = g.production.food(p.player_id)
        _, _, workers, food_workers, army, _, _ = self._own()
        pc.food_cap = int(food_cap)
        pc.food_used = math.ceil(food_used)
        pc.food_workers = int(food_workers)
        pc.food_army = math.ceil(food_used - food_workers)
        pc.idle_worker_count = sum(1 for i in workers if not w.orders[i])
        pc.army_count = army

    # ---- command card -------------------------------------------------------------------------------
    def abilities(self, o: sc_pb.Observation) -> None:
        """The usable command-card abilities of the selected own units, plus Smart, each listed once."""
        g = self.game
        w = g.world
        rows = w.slots(g.player.selection)
        if not rows:
            return
        r = np.array(rows)
        own = (w.owner[r] == g.player.player_id).tolist()
        types = w.type_id[r].tolist()
        cargo = (w.cargo[r] != 0).tolist()
        constructing = g.building.constructing_rows(r).tolist()
        finished = (w.build_progress[r] >= 1).tolist()
        seen: dict[int, None] = {}
        done: set[tuple] = set()
        for k, i in enumerate(rows):
            if not own[k]:
                continue
            # Units of a type in the same state offer the same buttons: ask once per state.
            state = (
                types[k],
                cargo[k],
                constructing[k],
                len(w.orders[i]) if w.types[i].queue_size else 0,
                finished[k],
            )
            if state in done:
                continue
            done.add(state)
            for ability_id in unit_abilities(g, i, finished[k]):
                seen.setdefault(ability_id)
        if seen:
            o.MergeFromString(abilities_field(tuple(seen)))

    # ---- score --------------------------------------------------------------------------------------
    def score(self, score: score_pb2.Score) -> None:
        g = self.game
        stats = g.player.stats
        rates = None
        if stats.income:
            rates = (
                stats.collection_rate(g.game_loop, "minerals"),
                stats.collection_rate(g.game_loop, "vespene"),
            )
        _, _, _, _, _, used, values = self._own()
        score.MergeFromString(encode_score(g.player.score, stats, rates, used, values))

    # ---- UI -----------------------------------------------------------------------------------------
    def ui(self, ui: ui_pb2.ObservationUI) -> None:
        g = self.game
        w = g.world
        if any(g.player.control_groups):  # usually none is set: skip looking through ten empty groups
            for index, group in enumerate(g.player.control_groups):
                tags = [t for t in group if w.exists(t)]
                if tags:
                    ui.groups.add(
                        control_group_index=index,
                        leader_unit_type=int(g.type_ids.reported[w.type_id[w.slot(tags[0])]]),
                        count=len(tags),
                    )
        rows = w.slots(g.player.selection)
        if len(rows) == 1:
            i = rows[0]
            queue = w.orders[i] if w.types[i].queue_size and w.owner[i] == g.player.player_id else []
            if queue:
                production = ui.production
                production.unit.MergeFromString(self._unit_cards_of(rows)[0])
                trains = g.production.trains
                for order in queue:
                    item = production.build_queue.add(
                        unit_type=trains[order.ability_id].unit_id, build_progress=order.progress
                    )
                    production.production_queue.add(
                        ability_id=order.ability_id, build_progress=order.progress
                    )
                    item.player_relative = SELF
            else:
                ui.single.unit.MergeFromString(self._unit_cards_of(rows)[0])
        elif rows:
            cards = b"".join(
                wire.field_header(_UNITS, len(card)) + card for card in self._unit_cards_of(rows)
            )
            ui.MergeFromString(wire.field_header(_MULTI_PANEL, len(cards)) + cards)

    def _unit_cards_of(self, rows: list[int]) -> list[bytes]:
        """Serialized UnitInfo of each row (type, relation, whole vitals and maxima, build progress)."""
        w, pid = self.game.world, self.game.player.player_id

        types, relations = w.per_rows(
            ("unit cards", pid),
            lambda: (
                self.game.type_ids.report(w.type_id).tolist(),
                player_relative(w.owner, pid).tolist(),
            ),
        )
        vitals = np.array((w.health, w.health_max, w.shields, w.shields_max, w.energy, w.energy_max))
        columns = (
            [types[i] for i in rows],
            [relations[i] for i in rows],
            *vitals[:, rows].astype(np.int64).tolist(),  # truncated like int()
            w.build_progress[rows].tolist(),
        )
        out = []
        cards = self._unit_cards
        for values in zip(*columns):
            card = cards.get(values)
            if card is None:
                if len(cards) > _CACHE_SIZE:
                    cards.clear()
                (
                    unit_type,
                    relation,
                    health,
                    max_health,
                    shields,
                    max_shields,
                    energy,
                    max_energy,
                    progress,
                ) = values
                card = cards[values] = ui_pb2.UnitInfo(
                    unit_type=unit_type,
                    player_relative=relation,
                    health=health,
                    max_health=max_health,
                    shields=shields,
                    max_shields=max_shields,
                    energy=energy,
                    max_energy=max_energy,
                    build_progress=progress,
                ).SerializeToString()
            out.append(card)
        return out


def unit_abilities(game: Game, i: int, finished: bool, ignore_resources: bool = False) -> list[int]:
    """What row i's command card offers now: Smart for finished units that move or rally, then the card's
    usable buttons."""
    w = game.world
    smart = finished and (w.speed[i] > 0 or any(ability in RALLIES for ability in w.types[i].command_card))
    return [SMART] * bool(smart) + game.orders.available(i, ignore_resources)


@functools.lru_cache(maxsize=1024)  # a few sets of buttons come up again and again
def abilities_field(ability_ids: tuple[int, ...], message: type = sc_pb.Observation) -> bytes:
    """The `abilities` field of `message` (Observation, or a query's ResponseQueryAvailableAbilities) for these
    ability ids, serialized (merging it appends them in order)."""
    o = message()
    for ability_id in ability_ids:
        o.abilities.add(ability_id=ability_id, requires_point=ABILITIES[ability_id].requires_point)
    return o.SerializeToString()


def _values(table: np.ndarray, finished: np.ndarray) -> tuple[float, float]:
    """(total_value_structures, total_value_units) of finished units, value = minerals + vespene."""
    value = (table[:, _MINERALS] + table[:, _VESPENE]) * finished
    structure = table[:, _STRUCTURE] > 0
    return float(value[structure].sum()), float(value[~structure].sum())


def encode_score(points: int, stats, rates: tuple | None, used: tuple, values: tuple) -> bytes:
    """The serialized curriculum Score with its details, as protobuf writes them (fields in number order,
    floats as float32; category messages only with their non-zero entries, and only if they have one)."""
    scalars = [
        stats.idle_production_loops / LOOPS_PER_GAME_SECOND,
        stats.idle_worker_loops / LOOPS_PER_GAME_SECOND,
        values[1],
        values[0],
        stats.killed_value_units,
        stats.killed_value_structures,
        stats.collected_minerals,
        stats.collected_vespene,
        *(rates or ()),
        stats.spent_minerals,
        stats.spent_vespene,
    ]
    names = _SCALAR_NAMES if rates is not None else _SCALAR_NAMES_NO_RATES
    try:
        tagged = _tagged(names).copy()
        tagged[1::2] = scalars
        details = [_scalars_struct(len(names)).pack(*tagged)]
    except OverflowError:  # out of float32 range: protobuf stores an infinity
        details = [_DETAILS_TAGS[name] + np.float32(value).tobytes() for name, value in zip(names, scalars)]
    by_name = dict(zip(_USED, used))
    for name in _CATEGORY_FIELDS:  # in field-number order
        sums = by_name[name] if name in by_name else _by_category(getattr(stats, name))
        details.append(_category_field(name, sums))
    details += (_DEALT + _float32(stats.damage_dealt), _TAKEN + _float32(stats.damage_taken))
    head = (
        _SCORE_TYPE_CURRICULUM + _SCORE_TAG + wire.varint(points & 0xFFFFFFFFFFFFFFFF)
    )  # int32: sign-extended
    return head + wire.message_field(_SCORE_DETAILS, b"".join(details))


def _by_category(values: dict) -> tuple:
    return tuple(values.values()) if tuple(values) == CATEGORIES else tuple(values.get(c) for c in CATEGORIES)


def _float32(value: float) -> bytes:
    try:
        return _pack_float(value)
    except OverflowError:  # out of float32 range: protobuf stores an infinity
        return np.float32(value).tobytes()


@functools.lru_cache(maxsize=4096)  # the sums rarely change
def _category_field(name: str, sums: tuple) -> bytes:
    entries = b"".join(_CATEGORY_TAGS[k] + _float32(v) for k, v in enumerate(sums) if v)
    return wire.message_field(_DETAILS[name], entries) if entries else b""


@functools.lru_cache(maxsize=4)
def _scalars_struct(count: int) -> struct.Struct:
    """Tag byte + float32, `count` times (the details' scalar fields all have one-byte tags)."""
    return struct.Struct("<" + "Bf" * count)


@functools.lru_cache(maxsize=4)
def _tagged(names: tuple) -> list[int | float | None]:
    """[tag, None, tag, None, ...]: the arguments of `_scalars_struct` with each value still to fill in."""
    out: list[int | float | None] = [None] * (2 * len(names))
    out[::2] = [_DETAILS_TAGS[name][0] for name in names]
    return out


_pack_float = struct.Struct("<f").pack
_DETAILS = {f.name: f.number for f in score_pb2.ScoreDetails.DESCRIPTOR.fields}
_DETAILS_TAGS = {
    name: wire.varint(number << 3 | 5) for name, number in _DETAILS.items()
}  # wire type 5: 32-bit
_CATEGORY_FIELDS = sorted(_CATEGORY_STATS + _USED, key=_DETAILS.__getitem__)
_CATEGORY_TAGS = [
    wire.varint(score_pb2.CategoryScoreDetails.DESCRIPTOR.fields_by_name[c].number << 3 | 5)
    for c in CATEGORIES
]
_LIFE_TAG = wire.varint(score_pb2.VitalScoreDetails.DESCRIPTOR.fields_by_name["life"].number << 3 | 5)
_DEALT = wire.field_header(_DETAILS["total_damage_dealt"], 5) + _LIFE_TAG  # then the float
_TAKEN = wire.field_header(_DETAILS["total_damage_taken"], 5) + _LIFE_TAG
_SCALAR_NAMES = (
    "idle_production_time",
    "idle_worker_time",
    "total_value_units",
    "total_value_structures",
    "killed_value_units",
    "killed_value_structures",
    "collected_minerals",
    "collected_vespene",
    "collection_rate_minerals",
    "collection_rate_vespene",
    "spent_minerals",
    "spent_vespene",
)
_SCALAR_NAMES_NO_RATES = tuple(n for n in _SCALAR_NAMES if not n.startswith("collection_rate"))
_SCORE_FIELDS = score_pb2.Score.DESCRIPTOR.fields_by_name
_SCORE_TYPE_CURRICULUM = wire.varint(_SCORE_FIELDS["score_type"].number << 3) + wire.varint(_CURRICULUM)
_SCORE_TAG = wire.varint(_SCORE_FIELDS["score"].number << 3)
_SCORE_DETAILS = _SCORE_FIELDS["score_details"].number
