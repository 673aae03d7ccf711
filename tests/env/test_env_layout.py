"""The env's observation follows the layout's table: its space, its arrays, and docs/env.md's table."""

from __future__ import annotations

import pathlib

import numpy as np
from gymnasium import spaces

from sc2env.env import SC2Env
from sc2env.env import observation_packer as packer_module
from sc2env.interface import decoder as decoder_module
from sc2env.interface.message_fields import ScalarBlock
from sc2env.interface.observation_layout import OBSERVATION_LAYOUT, Entry, Scalars, markdown_table

ROOT = pathlib.Path(__file__).resolve().parents[2]
SMALL = dict(engine="builtin", screen_size=16, minimap_size=16)


def test_the_docs_table_is_the_layouts():
    page = (ROOT / "docs" / "env.md").read_text()
    start = page.index("<!-- observation-layout")
    start = page.index("\n", start) + 1
    end = page.index("<!-- end observation-layout -->")
    assert page[start:end] == markdown_table(), (
        "docs/env.md's observation table is not the layout's: paste sc2env.interface.observation_layout."
        "markdown_table() between its markers"
    )


def test_the_space_has_the_tables_entries_with_the_settings_sizes():
    env = SC2Env(
        max_selected_units=5,
        max_cargo=3,
        max_units=9,
        use_raw_units=True,
        screen_layers=["player_relative", "unit_type"],
        compact_layers=False,
        **SMALL,
    )
    space = env.observation_space
    assert space["multi_select"].shape == (5, 7) and space["cargo"].shape == (3, 7)
    assert space["raw_units"].shape == (9, 46) and space["raw_units"].dtype == np.int64
    assert space["feature_screen"].shape == (2, 16, 16) and space["feature_screen"].dtype == np.int32
    assert space["action_mask"].shape == (int(env.action_spec.nvec.sum()),)
    assert space["last_actions"] == spaces.Box(-1, np.iinfo(np.int32).max, (16,), np.int32)
    held = {e.name for e in OBSERVATION_LAYOUT} - {
        "rgb_screen",
        "rgb_minimap",
        "feature_units",
        "screen_target_masks",
        "camera_position",
        "unit_type_counts",
    }
    assert set(space) == held


def test_a_row_added_to_the_layout_is_decoded_packed_and_in_the_space(monkeypatch):
    # What adding an observation entry takes: its row. (At import the decoder compiles the table; here the row
    # is added to a running one.)
    extra = Entry(
        "idle_and_army",
        (2,),
        np.int32,
        Scalars.members("player_common", ("idle_worker_count", "army_count")),
        "idle workers and army units",
        low=0,
    )
    layout = (*OBSERVATION_LAYOUT, extra)
    scalars = ScalarBlock([e for e in layout if isinstance(e.source, Scalars)])
    monkeypatch.setattr(decoder_module, "_SCALARS", scalars)
    monkeypatch.setattr(decoder_module, "_OTHERS", ("idle_and_army",))
    monkeypatch.setattr(packer_module, "OBSERVATION_LAYOUT", layout)
    env = SC2Env(**SMALL)
    try:
        assert env.observation_space["idle_and_army"] == spaces.Box(0, np.iinfo(np.int32).max, (2,), np.int32)
        obs, _ = env.reset(seed=1)
        assert obs["idle_and_army"].tolist() == [0, 1], "MoveToBeacon: no worker, one Marine"
        assert env.observation_space.contains(obs)
        assert (
            env.last_observation["idle_and_army"].tolist() == [0, 1]
            and "idle_and_army" in env.last_observation
        )
    finally:
        env.close()


def test_the_architecture_page_names_modules_that_exist():
    import re

    page = (ROOT / "docs" / "architecture.md").read_text()
    page = page[: page.index("## What a change touches")]  # its "before" column names modules now gone
    named = set(re.findall(r"\b([a-z_]+\.py)\b", page))
    present = {path.name for path in (ROOT / "sc2env").rglob("*.py")}
    assert len(named) > 30 and named <= present, sorted(named - present)
