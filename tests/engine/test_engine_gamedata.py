"""The engine's static game facts agree with the real game's ResponseData."""

from __future__ import annotations

import pytest

from sc2env.gamedata import ABILITIES, UNIT_TYPES, specific_ability, unit_type_by_name

STEMS = ["python-sc2_AcropolisLE.data", "python-sc2_2000AtmospheresAIE.data"]


@pytest.mark.parametrize("stem", STEMS)
def test_unit_types_match_real_data(realdata, stem):
    real = {u.unit_id: u for u in realdata(stem).units}
    for t in UNIT_TYPES.values():
        if t.unit_id == 1680:  # NaturalMinerals comes from the Liberty campaign, absent from ladder data
            assert real[1680].name == ""
            continue
        r = real[t.unit_id]
        assert (t.name, t.mineral_cost, t.vespene_cost, t.race) == (r.name, r.mineral_cost, r.vespene_cost, r.race)
        assert t.speed == pytest.approx(r.movement_speed) and t.armor == pytest.approx(r.armor)
        assert t.sight == pytest.approx(r.sight_range) and t.food_required == pytest.approx(r.food_required)
        assert t.food_provided == pytest.approx(r.food_provided)
        assert sorted(t.attributes) == sorted(type(r).DESCRIPTOR.fields_by_name["attributes"].enum_type
                                              .values_by_number[a].name for a in r.attributes)
        if r.weapons:
            w = r.weapons[0]
            assert (t.weapon.damage, t.weapon.range, t.weapon.cooldown, t.weapon.target) == pytest.approx(
                (w.damage, w.range, w.speed, w.type))
        else:
            assert t.weapon is None


@pytest.mark.parametrize("stem", STEMS)
def test_abilities_match_real_data(realdata, stem):
    real = {a.ability_id: a for a in realdata(stem).abilities}
    for a in ABILITIES.values():
        r = real[a.ability_id]
        assert (a.link_name, a.link_index, a.button_name, a.friendly_name) == (
            r.link_name, r.link_index, r.button_name, r.friendly_name)
        if stem == STEMS[0]:  # hotkeys differ between recordings (layouts); the table follows the first
            assert a.hotkey == r.hotkey
        assert (a.remaps_to, int(a.target), a.allow_minimap) == (r.remaps_to_ability_id, r.target, r.allow_minimap)
        assert a.footprint_radius == pytest.approx(r.footprint_radius)


def test_general_and_specific_ids_resolve_through_the_command_card():
    card = unit_type_by_name("Marine").command_card
    assert [specific_ability(i, card) for i in (3794, 16, 3674, 3665, 3793, 3795, 1)] == [16, 16, 23, 4, 18, 17, 1]
    assert specific_ability(295, card) is None and specific_ability(3666, card) is None
    assert specific_ability(3671, UNIT_TYPES[21].command_card) == 306
    assert specific_ability(3671, UNIT_TYPES[18].command_card) == 308
    with pytest.raises(KeyError, match="known: "):
        unit_type_by_name("Battlecruiserr")
