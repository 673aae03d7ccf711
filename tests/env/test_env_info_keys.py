"""docs/env.md's list of info keys is the env's: every key listed as always there is, and no other."""

from __future__ import annotations

import pathlib
import re

import numpy as np

DOCS = pathlib.Path(__file__).resolve().parents[2] / "docs" / "env.md"


def _documented() -> tuple[set[str], set[str]]:
    """(always, sometimes): the info table's keys, split by whether the row says "only"."""
    text = DOCS.read_text()
    table = text[text.index("| key | type | what |") :].split("\n\n")[0]
    always, sometimes = set(), set()
    for row in table.splitlines()[2:]:
        match = re.match(r"\s*\| `(\w+)` \| [^|]+ \| (.*) \|$", row)
        assert match, row
        (sometimes if match.group(2).startswith("only") else always).add(match.group(1))
    return always, sometimes


def test_the_documented_info_keys_are_the_envs(make_env, tmp_path):
    always, sometimes = _documented()
    assert sometimes == {"crash", "replay_path", "replay_error"}
    env = make_env(
        "MoveToBeacon",
        step_mul=64,
        screen_size=16,
        minimap_size=16,
        save_replay_episodes=1,
        replay_dir=str(tmp_path),
    )
    _, info = env.reset(seed=0)
    assert set(info) == always
    while True:
        *_, terminated, truncated, info = env.step(np.zeros(env.action_space.shape, np.int64))
        if terminated or truncated:
            break
        assert set(info) == always
    assert set(info) == always | {"replay_path"}  # the episode's last step, with its saved replay
    assert pathlib.Path(info["replay_path"]).exists()
