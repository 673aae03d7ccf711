"""The engine's static game facts agree with the real game's ResponseData."""

from __future__ import annotations

import pytest
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env.engine.observe import game_data
from sc2env.gamedata import (
    ABILITIES,
    MAP_OWN_TYPES,
    REAL_TYPE_COUNT,
    UNIT_TYPES,
    specific_ability,
    unit_type_by_name,
)

REAL_TYPES = [t for t in UNIT_TYPES.values() if t.unit_id < REAL_TYPE_COUNT]
"""The real game's types the engine plays (the rest are SMAC maps' own copies of them)."""

STEMS = ["python-sc2_AcropolisLE.data", "python-sc2_2000AtmospheresAIE.data"]


@pytest.mark.parametrize("stem", STEMS)
def test_unit_types_match_real_data(realdata, stem):
    real = {u.unit_id: u for u in realdata(stem).units}
    for t in REAL_TYPES:
        if t.unit_id == 1680:  # NaturalMinerals comes from the Liberty campaign, absent from ladder data
            assert real[1680].name == ""
            continue
        r = real[t.unit_id]
        assert (t.name, t.mineral_cost, t.vespene_cost, t.race) == (
            r.name,
            r.mineral_cost,
            r.vespene_cost,
            r.race,
        )
        assert t.speed == pytest.approx(r.movement_speed) and t.armor == pytest.approx(r.armor)
        assert t.sight == pytest.approx(r.sight_range) and t.food_required == pytest.approx(r.food_required)
        assert t.food_provided == pytest.approx(r.food_provided)
        assert sorted(t.attributes) == sorted(
            type(r).DESCRIPTOR.fields_by_name["attributes"].enum_type.values_by_number[a].name
            for a in r.attributes
        )
        if r.weapons:
            w = r.weapons[0]
            assert (t.weapon.damage, t.weapon.range, t.weapon.cooldown, t.weapon.target) == pytest.approx(
                (w.damage, w.range, w.speed, w.type)
            )
        else:
            assert t.weapon is None


@pytest.mark.parametrize("stem", STEMS)
def test_the_engines_response_data_reports_what_the_game_does(realdata, stem):
    # Aliases, resources and requirements as the game reports them (a lowered depot counts as a depot; a
    # refinery holds vespene). Not compared: the making ability of types the engine doesn't make (Zerg units:
    # 0, their abilities are not served) and a morph's time (the engine lowers a depot at once).
    real = {u.unit_id: u for u in realdata(stem).units}
    served = game_data(sc_pb.RequestData(unit_type_id=True)).units
    # An entry per type id, as the game gives (SMACv2 counts them); those the engine doesn't play by name only.
    assert [u.unit_id for u in served] == list(range(REAL_TYPE_COUNT))
    for u in served:
        if not u.available:  # names differ between game versions: the count and ids are what matter
            continue
        if u.unit_id == 1680:
            continue
        r = real[u.unit_id]
        assert (u.has_minerals, u.has_vespene, list(u.tech_alias), u.unit_alias, u.tech_requirement) == (
            r.has_minerals,
            r.has_vespene,
            list(r.tech_alias),
            r.unit_alias,
            r.tech_requirement,
        ), u.name
        assert u.ability_id == r.ability_id or (u.ability_id == 0 and u.race == 2), u.name  # 2: Zerg
        assert u.build_time == pytest.approx(r.build_time) or u.unit_id == 47, u.name


@pytest.mark.parametrize("stem", STEMS)
def test_abilities_match_real_data(realdata, stem):
    real = {a.ability_id: a for a in realdata(stem).abilities}
    for a in ABILITIES.values():
        r = real[a.ability_id]
        assert (a.link_name, a.link_index, a.button_name, a.friendly_name) == (
            r.link_name,
            r.link_index,
            r.button_name,
            r.friendly_name,
        )
        if stem == STEMS[0]:  # hotkeys differ between recordings (layouts); the table follows the first
            assert a.hotkey == r.hotkey
        assert (a.remaps_to, int(a.target), a.allow_minimap) == (
            r.remaps_to_ability_id,
            r.target,
            r.allow_minimap,
        )
        assert a.footprint_radius == pytest.approx(r.footprint_radius)


def test_general_and_specific_ids_resolve_through_the_command_card():
    card = unit_type_by_name("Marine").command_card
    assert [specific_ability(i, card) for i in (3794, 16, 3674, 3665, 3793, 3795, 1)] == [
        16,
        16,
        23,
        4,
        18,
        17,
        1,
    ]
    assert specific_ability(295, card) is None and specific_ability(3666, card) is None
    assert specific_ability(3671, UNIT_TYPES[21].command_card) == 306
    assert specific_ability(3671, UNIT_TYPES[18].command_card) == 308
    with pytest.raises(KeyError, match="known: "):
        unit_type_by_name("Battlecruiserr")


def test_unit_ids_by_race_agree_with_the_engines_types_and_pysc2():
    from sc2env.gamedata import unit_ids

    by_race = {1: unit_ids.Terran, 2: unit_ids.Zerg, 3: unit_ids.Protoss, 0: unit_ids.Neutral}
    for t in REAL_TYPES:
        if t.unit_id != 1680:  # the campaign's shard is in no ladder recording
            assert by_race[t.race][t.name] == t.unit_id
    assert (
        unit_ids.Terran.Marine == 48 and unit_ids.Zerg.Baneling == 9 and unit_ids.Neutral.MineralField == 341
    )
    pysc2_units = pytest.importorskip("pysc2_evolved.lib.units")  # a reference: same name, same id
    for race in ("Neutral", "Terran", "Zerg", "Protoss"):
        ours = getattr(unit_ids, race).__members__
        shared = [m for m in getattr(pysc2_units, race) if m.name in ours]
        assert len(shared) > 40
        assert all(ours[m.name] == m.value for m in shared)


def test_the_maps_own_types_copy_their_real_type_after_every_real_id():
    """SMAC's Marine_RL ...: the real type's stats and weapon, never acquiring nor responding, with an id past
    every real type (REAL_TYPE_COUNT is the length of the newest recorded ResponseData)."""
    own = [t for t in UNIT_TYPES.values() if t.unit_id >= REAL_TYPE_COUNT]
    assert REAL_TYPE_COUNT == 2057 and own
    for t in own:
        real = unit_type_by_name(MAP_OWN_TYPES[t.name])
        speed = 2.75 if t.name == "Medivac_RL" else real.speed  # SMAC's maps' Medivac_RL is faster
        health = 80 if t.name == "Hydralisk_RL" else real.health  # and its Hydralisk_RL frailer
        assert (t.health, t.shields, t.armor, t.speed, t.radius, t.weapon, t.attributes) == (
            health,
            real.shields,
            real.armor,
            speed,
            real.radius,
            real.weapon,
            real.attributes,
        )
        assert not t.auto_acquire and not t.responds
    assert sorted(t.name for t in own) == [t.name for t in sorted(own, key=lambda t: t.unit_id)]
