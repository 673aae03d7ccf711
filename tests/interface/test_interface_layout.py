"""The observation layout's table: the decoder reads by it, and what it declares is what an Observation holds."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from interface_helpers import observation, with_layers

from sc2env.interface import ObservationDecoder, Player, ScoreByCategory, ScoreCategories
from sc2env.interface.layout_settings import LayoutSettings
from sc2env.interface.message_fields import IntFields, ScalarBlock
from sc2env.interface.observation import ATTRIBUTES
from sc2env.interface.observation_layout import (
    OBSERVATION_LAYOUT,
    Computed,
    Entry,
    Ints,
    RowCounts,
    Rows,
    Scalars,
)


def test_every_entry_the_decoder_makes_is_an_attribute_of_observation():
    made_by_env = [
        e.name
        for e in OBSERVATION_LAYOUT
        if isinstance(e.source, RowCounts) or e.source is Computed.ACTION_MASK
    ]
    assert made_by_env == ["counts", "unit_counts", "action_mask"]
    for entry in OBSERVATION_LAYOUT:
        if entry.name not in made_by_env:
            assert entry.decoded_as in ATTRIBUTES, entry.name


def test_the_decoded_arrays_have_the_shapes_the_table_gives(fmt64):
    fmt = dataclasses.replace(fmt64, screen_target_masks=True)
    response = with_layers(observation(panel=("multi", 3), groups=((2, 48, 5),)), 64)
    response.observation.score.score_details.killed_minerals.army = 75
    obs = ObservationDecoder(fmt).decode(response)
    settings = LayoutSettings(fmt)
    for entry in OBSERVATION_LAYOUT:
        if (
            not settings.holds(entry)
            or entry.source in (Computed.ACTION_MASK,)
            or isinstance(entry.source, RowCounts)
        ):
            continue
        value = np.asarray(getattr(obs, entry.decoded_as))
        expected = settings.shape(entry)
        if entry.padded:  # as many rows as the message holds, the other axes fixed
            assert value.shape[1:] == expected[1:], entry.name
        else:
            assert value.shape == expected, entry.name
    assert obs.score_by_category.killed_minerals.army == 75 and len(obs.multi_select) == 3
    assert obs.control_groups[2].tolist() == [48, 5] and obs.game_loop.dtype == np.int64


def test_a_scalars_row_reads_its_fields_beside_the_others():
    # Adding an entry of integers is one row: the block reads it with the rest, each entry its own view.
    extra = Entry(
        "idle_and_army",
        (2,),
        np.int32,
        Scalars.members("player_common", ("idle_worker_count", "army_count")),
        "",
    )
    rows = [e for e in OBSERVATION_LAYOUT if isinstance(e.source, Scalars)]
    block = ScalarBlock([*rows, extra])
    response = observation(army=12, idle_workers=3)
    response.observation.score.score_details.food_used.economy = 9
    values: dict = {}
    block.read(response.observation, values)
    assert values["idle_and_army"].tolist() == [3, 12]
    assert values["player"][Player.army_count] == 12
    assert values["score_by_category"][ScoreByCategory.food_used, ScoreCategories.economy] == 9


def test_a_message_the_game_left_out_reads_as_zeros():
    rows = [e for e in OBSERVATION_LAYOUT if isinstance(e.source, Scalars)]
    values: dict = {}
    ScalarBlock(rows).read(observation().observation, values)  # no score at all, no cargo panel
    assert not values["score_cumulative"].any() and not values["score_by_vital"].any()
    assert values["cargo_slots_available"].tolist() == [0] and values["player"][Player.player_id] == 1


@pytest.mark.parametrize(
    "source, message",
    [
        (Scalars(("player_common.nonsense",)), "'nonsense' is no field"),
        (Scalars(("alerts",)), "it is not one"),  # repeated
        (Scalars(("score.score_details",)), "it is not one"),  # a message
    ],
)
def test_a_row_naming_no_integer_of_the_message_fails_when_read(source, message):
    with pytest.raises(ValueError, match=message):
        ScalarBlock([Entry("bad", (1,), np.int32, source, "")])


def test_an_ints_row_reads_a_repeated_field_or_one_value():
    response = observation(game_loop=42)
    response.observation.alerts.extend([1, 2])
    fields = IntFields(
        [
            Entry("loop", (1,), np.int32, Ints("observation.game_loop", dtype=np.int64), ""),
            Entry("alerts", (Rows(4),), np.int32, Ints("observation.alerts"), ""),
            Entry("results", (Rows(4),), np.int32, Ints("action_errors", item="result"), ""),
        ]
    )
    values: dict = {}
    fields.read(response, values)
    assert values["loop"].tolist() == [42] and values["loop"].dtype == np.int64
    assert values["alerts"].tolist() == [1, 2] and values["results"].shape == (0,)


def test_padded_tables_take_their_rows_from_the_table(fmt64):
    fmt = dataclasses.replace(fmt64, max_selected_units=5, max_cargo=3)
    obs = ObservationDecoder(fmt).decode(observation(panel=("multi", 7)))
    assert obs.padded("multi_select").shape == (5, 7) and obs.padded("cargo").shape == (3, 7)
    assert obs.padded("build_queue").shape == (10, 7)
    with pytest.raises(KeyError, match="padded\\(\\) takes one of single_select, multi_select"):
        obs.padded("player")
