"""docs/env.md's table of PySC2's options names every option of PySC2's SC2Env and AgentInterfaceFormat, and
every sc2env keyword it offers in their place is an env option."""

from __future__ import annotations

import dataclasses
import inspect
import pathlib
import re

import pytest

from sc2env.env import EnvConfig
from sc2env.env.config import check_option_names

DOCS = pathlib.Path(__file__).resolve().parents[2] / "docs" / "env.md"


def _tables() -> dict[str, dict[str, str]]:
    """{"SC2Env": {option: what sc2env offers}, "AgentInterfaceFormat": {...}} from the section's two tables."""
    text = DOCS.read_text()
    section = text[text.index("## PySC2's options") :]
    section = section[: section.index("\n## ", 1)]
    tables: dict[str, dict[str, str]] = {}
    for name in ("SC2Env", "AgentInterfaceFormat"):
        part = section[section.index(f"**`{name}`**") :]
        rows = part.split("\n\n")[1].splitlines()[2:]
        table = tables[name] = {}
        for row in rows:
            options, offer = re.match(r"\| (.+?) \| (.+) \|$", row).groups()
            for option in re.findall(r"`(\w+)`", options):
                table[option] = offer
    return tables


def test_every_pysc2_option_has_a_row():
    sc2_env = pytest.importorskip("pysc2_evolved.env.sc2_env")
    features = pytest.importorskip("pysc2_evolved.lib.features")
    tables = _tables()
    for name, cls in (("SC2Env", sc2_env.SC2Env), ("AgentInterfaceFormat", features.AgentInterfaceFormat)):
        options = set(inspect.signature(cls.__init__).parameters) - {"self"}
        assert set(tables[name]) == options, name


def test_each_row_offers_an_option_or_says_why_not():
    known = {field.name for field in dataclasses.fields(EnvConfig)} | {"render_mode"}
    for table in _tables().values():
        for option, offer in table.items():
            if offer.startswith("not supported"):
                assert ", because " in offer, option
                continue
            if offer.startswith("the same"):
                assert option in known, option
                continue
            # The row names an env option (a keyword, or a value of one), or an attribute of the env.
            named = [word for word in re.findall(r"`(\w+)", offer) if word in known]
            assert named or "env.unwrapped" in offer or option == "agent_interface_format", option
            if option in known:
                assert f"`{option}`" in offer, option  # offered under its own name


def test_raw_crop_to_playable_area_is_refused_with_the_reason_not_a_near_name():
    with pytest.raises(
        TypeError, match=r"raw_crop_to_playable_area \(a PySC2 option\) is not offered"
    ) as caught:
        check_option_names(["raw_crop_to_playable_area"])
    assert "playable area" in str(caught.value) and "did you mean" not in str(caught.value)
